"""The XML reader with line numbers (:mod:`mrsim.tracker.schedconf.xmltree`) and :func:`read_properties`, under the
names modules of YARN mode import them by.

:func:`read_properties` reads a ``<configuration>`` file through the shared reader
(:func:`mrsim.tracker.schedconf.site_file.read_site_file`: one parse per file), as a dict of its own.
"""

from __future__ import annotations

import os

from mrsim.tracker.schedconf.site_file import read_site_file
from mrsim.tracker.schedconf.xmltree import Node, Property, Where, parse_xml, parse_xml_data, read_xml_bytes

__all__ = ["Node", "Property", "Where", "parse_xml", "parse_xml_data", "read_properties", "read_xml_bytes"]


def read_properties(path: str | os.PathLike[str]) -> dict[str, Property]:
    """A Hadoop ``<configuration>`` file as ``{name: Property}``; later properties win, as in Hadoop."""
    return dict(read_site_file(path).props)
