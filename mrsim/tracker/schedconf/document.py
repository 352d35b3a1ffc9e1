"""A Hadoop XML file read once: a frozen element tree with line numbers, shared by every reader of that file.

Hadoop's scheduler files are read by several parts of a run: the file-kind check (:mod:`.filekind`), the MRv1
schedulers' settings (:mod:`.fair_conf`, :mod:`.capacity_conf`), YARN mode's settings (:mod:`mrsim.tracker.yarn.config`)
and the YARN schedulers. :func:`read_document` parses a file with :func:`mrsim.tracker.schedconf.xmltree.parse_xml`
the first time it is asked for and hands out the same frozen :class:`Element` tree afterwards, so one run parses
each file once and no reader can change what another reads. The tree is kept by the file's name and a digest of
its bytes, so a file rewritten between two reads (even within one tick of the file system's clock, with the same
size) is parsed again. Errors are those of ``parse_xml``: one :class:`mrsim.errors.InputError` naming
``file:line``; an error is not kept, so asking again reports it again.

Cost: one read and a BLAKE2 digest of the file per call (configuration files are kilobytes); the parse, O(file
size), the first time. The cache holds at most :data:`CACHE_SIZE` files.
"""

from __future__ import annotations

import enum
import hashlib
import os
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterator, Mapping

from mrsim.tracker.schedconf.xmltree import Node, parse_xml_data, read_xml_bytes

#: Files kept parsed (a run reads a handful; a sweep over many configuration files keeps the last ones).
CACHE_SIZE = 64


class Dialect(enum.Enum):
    """The Hadoop line a scheduler file is written for: MRv1 (Hadoop 0.20-1.x) or YARN (Hadoop 2/3)."""

    MRV1 = "mrv1"
    YARN = "yarn"


@dataclass(frozen=True)
class Element:
    """One element as written: tag, attributes, stripped text, children in file order, the line it starts on."""

    tag: str
    attrs: Mapping[str, str]
    line: int
    text: str
    children: tuple["Element", ...]

    def find(self, tag: str) -> "Element | None":
        """The first child named ``tag``."""
        return next((c for c in self.children if c.tag == tag), None)

    def named(self, *tags: str) -> Iterator["Element"]:
        """The children whose tag is one of ``tags``, in file order."""
        return (c for c in self.children if c.tag in tags)


def freeze(node: Node) -> Element:
    """``node`` and its subtree as :class:`Element` objects. Cost O(subtree)."""
    return Element(node.tag, MappingProxyType(dict(node.attrs)), node.line, node.text,
                   tuple(freeze(c) for c in node.children))


_cache: dict[tuple, Element] = {}


def read_document(path: str | os.PathLike[str]) -> Element:
    """The root element of the XML file ``path`` (parsed once per version of the file; see the module docstring)."""
    p, data = read_xml_bytes(path)  # special files, missing or unreadable ones: refused every time
    key = (str(path), hashlib.blake2b(data, digest_size=16).digest())
    root = _cache.get(key)
    if root is None:
        root = freeze(parse_xml_data(p, data))
        if len(_cache) >= CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = root
    return root
