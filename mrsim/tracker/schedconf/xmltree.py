"""A minimal XML reader that keeps line numbers, so configuration errors can name ``file:line``.

``xml.etree`` drops line numbers; Hadoop's own loaders (``PoolManager.reloadAllocs``, ``Configuration``) report
the element. This reader builds a tiny tree of :class:`Node` objects with expat (stdlib) and converts every
problem into :class:`mrsim.errors.InputError` with the file and line. Cost: O(file size).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from mrsim.errors import InputError
from mrsim.io.safe_open import check_input_file


@dataclass
class Node:
    """One element: tag, attributes, stripped text, children, and the 1-based line it starts on."""

    tag: str
    attrs: dict[str, str]
    line: int
    text: str = ""
    children: list["Node"] = field(default_factory=list)


def read_xml_bytes(path: str | os.PathLike[str]) -> tuple[Path, bytes]:
    """``path`` checked (a FIFO or device would block or never end) and its bytes; InputErrors name the file."""
    p = check_input_file(path)
    try:
        return p, p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None


def parse_xml(path: str | os.PathLike[str]) -> Node:
    """Parse ``path`` into a :class:`Node` tree; missing files and malformed XML are InputErrors naming the file."""
    p, data = read_xml_bytes(path)
    return parse_xml_data(p, data)


def parse_xml_data(p: Path, data: bytes) -> Node:
    """Parse the bytes ``data`` of the file ``p`` (named in errors) into a :class:`Node` tree."""
    parser = expat.ParserCreate()
    stack: list[Node] = []
    texts: list[list[str]] = []
    root: list[Node] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = Node(tag, dict(attrs), parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)
        texts.append([])

    def end(_tag: str) -> None:
        node = stack.pop()
        node.text = "".join(texts.pop()).strip()

    def chars(data: str) -> None:
        if texts:
            texts[-1].append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise InputError(f"{p}:{exc.lineno}: not well-formed XML ({expat.ErrorString(exc.code)})") from None
    if not root:
        raise InputError(f"{p}: empty XML document")
    return root[0]


@dataclass(frozen=True)
class Property:
    """A ``<property>`` of a Hadoop ``<configuration>`` file: value and the line it was set on
    (:func:`mrsim.tracker.schedconf.site_file.read_site_file` reads them)."""

    value: str
    line: int


class Where:
    """Formats ``file:line`` prefixes and converts text to numbers with one-line InputErrors."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)

    def at(self, line: int) -> str:
        return f"{self.path}:{line}"

    def integer(self, text: str, what: str, line: int) -> int:
        try:
            return int(text.strip())
        except ValueError:
            raise InputError(f"{self.at(line)}: {what} = {text!r} is not an integer") from None

    def number(self, text: str, what: str, line: int) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise InputError(f"{self.at(line)}: {what} = {text!r} is not a number") from None
        if not math.isfinite(value):
            raise InputError(f"{self.at(line)}: {what} = {text!r} must be a finite number")
        return value

    def boolean(self, text: str, what: str, line: int) -> bool:
        t = text.strip().lower()
        if t in ("true", "false"):
            return t == "true"
        raise InputError(f"{self.at(line)}: {what} = {text!r} is not true or false")
