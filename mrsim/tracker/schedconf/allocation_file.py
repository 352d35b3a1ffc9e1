"""Fair Scheduler allocation files (``fair-scheduler.xml``, root ``<allocations>``): one reader for both lines.

MRv1's ``PoolManager.reloadAllocs`` (Hadoop 0.20.205-1.2: ``<pool>``, ``minMaps`` / ``minReduces``) and YARN's
``AllocationFileLoaderService`` (Hadoop 2/3: nested ``<queue>``, ``minResources``) read the same file format.
:func:`read_allocation_file` reads it once (the shared, frozen parse of
:func:`mrsim.tracker.schedconf.document.read_document`) into an :class:`AllocationFile`: the element tree with
line numbers and the dialect the file is written in. Each line then takes what its scheduler means by the
elements: the MRv1 Fair Scheduler's pools (:mod:`mrsim.tracker.schedconf.fair_alloc`: a YARN file's queues become
slot pools there) and YARN's queue tree (:mod:`mrsim.tracker.yarn.schedulers.fair`). The root is not checked
here: each line names its own expectation in its error. Cost: O(elements).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

from mrsim.tracker.schedconf.document import Dialect, Element, read_document

#: Elements only YARN's allocation files have; one of them at the top level or in a top-level queue makes the
#: file a YARN one.
YARN_ONLY = frozenset({"queue", "maxRunningApps", "userMaxAppsDefault", "queueMaxAppsDefault",
                       "defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode", "queuePlacementPolicy",
                       "minResources", "maxResources", "queueMaxAMShareDefault", "defaultFairSharePreemptionTimeout",
                       "defaultFairSharePreemptionThreshold", "schedulingPolicy", "queueMaxResourcesDefault"})
#: The tags of a queue (MRv1 and YARN both accept ``<pool>`` and ``<queue>``).
QUEUE_TAGS = ("queue", "pool")


def dialect_of(root: Element) -> Dialect:
    """YARN when an element of :data:`YARN_ONLY` is at the top level or inside a top-level element, else MRv1."""
    yarn = any(c.tag in YARN_ONLY for c in root.children) or any(
        g.tag in YARN_ONLY for c in root.children for g in c.children)
    return Dialect.YARN if yarn else Dialect.MRV1


@dataclass(frozen=True)
class AllocationFile:
    """An allocation file as written: its root element (``<allocations>`` in a valid file) and its dialect."""

    path: str
    root: Element
    dialect: Dialect

    @property
    def line(self) -> int:
        return self.root.line

    def queues(self) -> Iterator[Element]:
        """The top-level ``<queue>`` / ``<pool>`` elements, in file order."""
        return self.root.named(*QUEUE_TAGS)


def queue_name(element: Element) -> str:
    """A queue element's ``name`` attribute, stripped (empty when missing: each line reports that its own way)."""
    return element.attrs.get("name", "").strip()


def read_allocation_file(path: str | os.PathLike[str]) -> AllocationFile:
    """The allocation file ``path`` (missing files and malformed XML: one-line InputErrors naming it)."""
    root = read_document(path)
    return AllocationFile(str(path), root, dialect_of(root))
