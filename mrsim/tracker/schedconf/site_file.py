"""Hadoop ``<configuration>`` files (``mapred-site.xml``, ``yarn-site.xml``, ``capacity-scheduler.xml``): one
reader, frozen properties with the line each was set on.

``Configuration.loadResource`` reads every ``<property>`` child of the root, its ``<name>`` and ``<value>``; a
later property of the same name wins. :func:`read_site_file` does the same over the shared parse of the file
(:func:`mrsim.tracker.schedconf.document.read_document`), so the MRv1 schedulers' layered settings
(:mod:`mrsim.tracker.schedconf.properties`), YARN mode's settings (:mod:`mrsim.tracker.yarn.config`), the YARN
schedulers and the user-group mapping read one :class:`SiteFile` per file. A root other than ``<configuration>``
is an :class:`mrsim.errors.InputError` naming ``file:line``. The MR1 engine's own keys of ``mapred-site.xml``
(slots, heartbeats) are read below the tracker, by :mod:`mrsim.model.hadoop_conf`. Cost: O(properties) after the
parse.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from mrsim.errors import InputError
from mrsim.tracker.schedconf.document import Element, read_document
from mrsim.tracker.schedconf.xmltree import Property


@dataclass(frozen=True)
class SiteFile:
    """A ``<configuration>`` file's properties (later ones win, as in Hadoop) and where it lives."""

    path: str
    line: int
    props: Mapping[str, Property]
    directory: Path  # relative file names given in this file are resolved against it

    def keys_with(self, *prefixes: str) -> list[str]:
        """The property names that start with one of ``prefixes``, in file order of their winning value."""
        return [k for k in self.props if k.startswith(prefixes)]


def properties_of(root: Element) -> dict[str, Property]:
    """``{name: Property}`` of a ``<configuration>`` element's ``<property>`` children (unnamed ones skipped)."""
    props: dict[str, Property] = {}
    for prop in root.children:
        if prop.tag != "property":
            continue
        name = next((c.text for c in prop.children if c.tag == "name"), "")
        value = next((c.text for c in prop.children if c.tag == "value"), "")
        if name:
            props[name] = Property(value, prop.line)
    return props


def read_site_file(path: str | os.PathLike[str]) -> SiteFile:
    """The ``<configuration>`` file ``path`` (missing files, malformed XML and other roots: one-line InputErrors)."""
    root = read_document(path)
    if root.tag != "configuration":
        raise InputError(f"{path}:{root.line}: expected a Hadoop <configuration> file, found <{root.tag}>")
    return SiteFile(str(path), root.line, MappingProxyType(properties_of(root)), Path(path).resolve().parent)

