"""Layered Hadoop properties: ``mapred-site.xml`` < the ``--scheduler-config`` ``<configuration>`` file < the
Python config dict. Each lookup names where the winning value came from, so errors read ``file:line: key ...``.

Hadoop reads scheduler keys (``mapred.fairscheduler.*``, ``mapred.queue.names``, ``yarn.scheduler.fair.*``) from
the JobTracker's / ResourceManager's configuration; mrsim accepts them from any of the three layers above.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from mrsim.tracker.schedconf.site_file import SiteFile, read_site_file
from mrsim.tracker.schedconf.xmltree import Property, Where
from mrsim.errors import InputError


@dataclass(frozen=True)
class Layer:
    """One source of properties: a file (with line numbers) or the config dict (line 0)."""

    source: str
    props: Mapping[str, Property]
    directory: Path | None = None  # for resolving relative file names given in this layer


def file_layer(path: str | os.PathLike[str]) -> Layer:
    return site_layer(read_site_file(path))


def site_layer(site: SiteFile) -> Layer:
    """The properties of a ``<configuration>`` file read once (:mod:`mrsim.tracker.schedconf.site_file`)."""
    return Layer(site.path, site.props, site.directory)


def dict_layer(config: Mapping[str, object], source: str = "scheduler config") -> Layer:
    props: dict[str, Property] = {}
    for key, value in config.items():
        if key == "config_file" or value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = ",".join(str(v) for v in value)
        else:
            text = str(value)
        props[str(key)] = Property(text, 0)
    return Layer(source, props, None)


class Layers:
    """Look up keys through the layers, last layer winning; typed getters raise InputErrors naming the source."""

    def __init__(self, layers: Iterable[Layer]) -> None:
        self.layers = [layer for layer in layers]

    def find(self, key: str) -> tuple[Property, Layer] | None:
        for layer in reversed(self.layers):
            if key in layer.props:
                return layer.props[key], layer
        return None

    def has(self, key: str) -> bool:
        return self.find(key) is not None

    def keys(self) -> set[str]:
        return {k for layer in self.layers for k in layer.props}

    def _where(self, layer: Layer) -> Where:
        return Where(layer.source)

    def text(self, key: str, default: str | None = None) -> str | None:
        hit = self.find(key)
        return default if hit is None else hit[0].value

    def integer(self, key: str, default: int) -> int:
        hit = self.find(key)
        if hit is None:
            return default
        prop, layer = hit
        return self._where(layer).integer(prop.value, key, prop.line)

    def number(self, key: str, default: float) -> float:
        hit = self.find(key)
        if hit is None:
            return default
        prop, layer = hit
        return self._where(layer).number(prop.value, key, prop.line)

    def boolean(self, key: str, default: bool) -> bool:
        hit = self.find(key)
        if hit is None:
            return default
        prop, layer = hit
        return self._where(layer).boolean(prop.value, key, prop.line)

    def path(self, key: str) -> Path | None:
        """A file name property, resolved against the directory of the file that set it."""
        hit = self.find(key)
        if hit is None or not hit[0].value:
            return None
        prop, layer = hit
        p = Path(prop.value)
        if not p.is_absolute() and layer.directory is not None:
            p = layer.directory / p
        return p

    def location(self, key: str) -> str:
        """``file:line`` (or the layer name) of the value in force, for messages."""
        hit = self.find(key)
        if hit is None:
            return "defaults"
        prop, layer = hit
        return f"{layer.source}:{prop.line}" if prop.line else layer.source

    def fail(self, key: str, problem: str) -> InputError:
        return InputError(f"{self.location(key)}: {key}: {problem}")
