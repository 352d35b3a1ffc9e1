"""Capacity Scheduler files (``capacity-scheduler.xml``): one reader for MRv1's and YARN's keys.

Hadoop 1's ``CapacitySchedulerConf`` reads ``mapred.capacity-scheduler.queue.<q>.*`` for the queues listed in
``mapred.queue.names``; YARN's ``CapacitySchedulerConfiguration`` reads ``yarn.scheduler.capacity.<path>.*`` for
the tree that ``<path>.queues`` spells. Both are ``<configuration>`` files: :func:`read_capacity_file` reads one
once (:func:`mrsim.tracker.schedconf.site_file.read_site_file`) into a :class:`CapacityFile`, the properties with
their lines and the dialect the keys are written in. The MRv1 Capacity Scheduler
(:mod:`mrsim.tracker.schedconf.capacity_conf`) and YARN's (:mod:`mrsim.tracker.yarn.schedulers.capacity`) each
take what their line means from it; both read queue lists with :func:`queue_list`. Cost: O(properties).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Mapping

from mrsim.tracker.schedconf.document import Dialect
from mrsim.tracker.schedconf.site_file import SiteFile, read_site_file
from mrsim.tracker.schedconf.xmltree import Property

MRV1_PREFIX = "mapred.capacity-scheduler."
YARN_PREFIX = "yarn.scheduler.capacity."


def dialect_of(keys: Iterable[str]) -> Dialect:
    """YARN when some key is a ``yarn.scheduler.capacity.*`` one, else MRv1."""
    return Dialect.YARN if any(k.startswith(YARN_PREFIX) for k in keys) else Dialect.MRV1


def queue_list(text: str | None) -> list[str]:
    """A comma-separated queue list (``mapred.queue.names``, ``<path>.queues``): names trimmed, empty ones dropped."""
    return [n.strip() for n in text.split(",") if n.strip()] if text else []


@dataclass(frozen=True)
class CapacityFile:
    """A ``capacity-scheduler.xml``: its properties (with lines) and the dialect of its keys."""

    site: SiteFile
    dialect: Dialect

    @property
    def path(self) -> str:
        return self.site.path

    @property
    def props(self) -> Mapping[str, Property]:
        return self.site.props


def read_capacity_file(path: str | os.PathLike[str]) -> CapacityFile:
    """The capacity-scheduler.xml ``path`` (missing files, malformed XML, other roots: one-line InputErrors)."""
    site = read_site_file(path)
    return CapacityFile(site, dialect_of(site.props))
