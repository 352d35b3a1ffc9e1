"""Cluster descriptions: TaskTrackers with map/reduce slots, cores, racks and a speed factor.

A :class:`ClusterSpec` is frozen; replays build their live state from it. Four ways to get one:

* :func:`uniform_cluster` from flags (``--nodes --map-slots --reduce-slots --cores --racks``);
* :func:`load_cluster_file` from a cluster file (TOML or JSON, documented in ``docs/cluster.md``);
* :func:`cluster_from_rumen_topology` from a Rumen topology JSON plus slot counts;
* any of them with slot counts from ``mapred-site.xml`` (see :mod:`mrsim.hadoop_conf`).

Cluster file format (TOML shown; JSON has the same structure)::

    [defaults]            # applies to every node unless overridden
    map_slots = 2
    reduce_slots = 2
    cores = 4
    speed = 1.0           # task durations are divided by this (heterogeneous nodes)

    [[racks]]
    name = "rack1"
    count = 16            # 16 nodes named rack1-node001 ... (or: hosts = ["h1", "h2"])

    [[nodes]]             # individual nodes; may also override a rack's defaults
    name = "fast01"
    rack = "rack2"
    map_slots = 4
    speed = 1.5
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from mrsim.errors import InputError

DEFAULT_RACK = "/default-rack"


@dataclass(frozen=True, slots=True)
class TrackerSpec:
    """One TaskTracker (a worker node). ``speed`` > 1 runs tasks faster: duration / speed."""

    name: str
    rack: str = DEFAULT_RACK
    map_slots: int = 2
    reduce_slots: int = 2
    cores: int = 4
    speed: float = 1.0
    disks: int = 1
    memory_gb: float = 0.0

    def __post_init__(self) -> None:
        if self.map_slots < 0 or self.reduce_slots < 0:
            raise InputError(f"node {self.name}: slot counts must be non-negative")
        if self.cores < 1:
            raise InputError(f"node {self.name}: cores must be at least 1")
        if not self.speed > 0:
            raise InputError(f"node {self.name}: speed must be positive")
        if self.disks < 0:
            raise InputError(f"node {self.name}: disks must be non-negative")


@dataclass(frozen=True)
class ClusterSpec:
    """An immutable cluster: an ordered tuple of TaskTrackers (order fixes tie-breaks and phases)."""

    trackers: tuple[TrackerSpec, ...]
    source: str = ""

    def __post_init__(self) -> None:
        if not self.trackers:
            raise InputError(f"{self.source or 'cluster'}: a cluster needs at least one node")
        names = [t.name for t in self.trackers]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError(f"{self.source or 'cluster'}: node {dup!r} is listed twice")

    def __len__(self) -> int:
        return len(self.trackers)

    @property
    def map_slots(self) -> int:
        return sum(t.map_slots for t in self.trackers)

    @property
    def reduce_slots(self) -> int:
        return sum(t.reduce_slots for t in self.trackers)

    @property
    def racks(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.rack for t in self.trackers))

    def describe(self) -> dict:
        """A JSON-ready summary for run records."""
        return {
            "nodes": len(self.trackers),
            "racks": len(self.racks),
            "map_slots": self.map_slots,
            "reduce_slots": self.reduce_slots,
            "cores": sum(t.cores for t in self.trackers),
            "heterogeneous": len({(t.map_slots, t.reduce_slots, t.cores, t.speed) for t in self.trackers}) > 1,
            "source": self.source,
        }


def uniform_cluster(nodes: int, map_slots: int = 2, reduce_slots: int = 2, cores: int = 4, racks: int = 1,
                    speed: float = 1.0) -> ClusterSpec:
    """``nodes`` identical TaskTrackers in contiguous blocks over ``racks`` racks (one rack: ``/default-rack``)."""
    if nodes < 1:
        raise InputError(f"--nodes must be at least 1, got {nodes}")
    if racks < 1 or racks > nodes:
        raise InputError(f"--racks must be between 1 and the number of nodes, got {racks}")
    per_rack = -(-nodes // racks)
    trackers = []
    for i in range(nodes):
        rack = DEFAULT_RACK if racks == 1 else f"/rack{i // per_rack + 1:02d}"
        trackers.append(TrackerSpec(f"node{i + 1:04d}", rack, map_slots, reduce_slots, cores, speed))
    return ClusterSpec(tuple(trackers), source=f"{nodes} nodes x ({map_slots} map, {reduce_slots} reduce slots)")


_NODE_KEYS = {"name", "rack", "map_slots", "reduce_slots", "cores", "speed", "disks", "memory_gb"}


def _node_from(entry: Mapping[str, object], defaults: Mapping[str, object], where: str) -> TrackerSpec:
    unknown = set(entry) - _NODE_KEYS - {"count", "hosts"}
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    values = {**defaults, **{k: v for k, v in entry.items() if k in _NODE_KEYS}}
    try:
        return TrackerSpec(
            name=str(values["name"]),
            rack=str(values.get("rack", DEFAULT_RACK)),
            map_slots=int(values.get("map_slots", 2)),  # type: ignore[arg-type]
            reduce_slots=int(values.get("reduce_slots", 2)),  # type: ignore[arg-type]
            cores=int(values.get("cores", 4)),  # type: ignore[arg-type]
            speed=float(values.get("speed", 1.0)),  # type: ignore[arg-type]
            disks=int(values.get("disks", 1)),  # type: ignore[arg-type]
            memory_gb=float(values.get("memory_gb", 0.0)),  # type: ignore[arg-type]
        )
    except KeyError:
        raise InputError(f"{where}: a node needs a name") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: bad value ({exc})") from None


def cluster_from_mapping(doc: Mapping[str, object], source: str, overrides: Mapping[str, object] | None = None) -> ClusterSpec:
    """Build a cluster from a parsed cluster file (see the module docstring)."""
    unknown = set(doc) - {"defaults", "racks", "nodes"}
    if unknown:
        raise InputError(f"{source}: unknown section(s) {', '.join(sorted(unknown))} (expected defaults, racks, nodes)")
    defaults = dict(doc.get("defaults") or {})  # type: ignore[arg-type]
    bad = set(defaults) - (_NODE_KEYS - {"name"})
    if bad:
        raise InputError(f"{source}: unknown key(s) in [defaults]: {', '.join(sorted(bad))}")
    if overrides:
        defaults.update({k: v for k, v in overrides.items() if v is not None})
    trackers: list[TrackerSpec] = []
    for r, rack in enumerate(doc.get("racks") or ()):  # type: ignore[union-attr]
        where = f"{source}: racks[{r}]"
        if not isinstance(rack, dict) or "name" not in rack:
            raise InputError(f"{where}: a rack needs a name")
        rack_name = str(rack["name"])
        rack_defaults = {**defaults, **{k: v for k, v in rack.items() if k in _NODE_KEYS - {"name"}}, "rack": rack_name}
        hosts = rack.get("hosts")
        if hosts is None:
            count = rack.get("count")
            if not isinstance(count, int) or count < 1:
                raise InputError(f"{where}: give either hosts = [...] or a positive count")
            base = rack_name.strip("/").replace("/", "-")
            hosts = [f"{base}-node{i + 1:03d}" for i in range(count)]
        for host in hosts:
            trackers.append(_node_from({"name": host}, rack_defaults, where))
    by_name = {t.name: i for i, t in enumerate(trackers)}
    for n, node in enumerate(doc.get("nodes") or ()):  # type: ignore[union-attr]
        where = f"{source}: nodes[{n}]"
        if not isinstance(node, dict):
            raise InputError(f"{where}: expected a table")
        if node.get("name") in by_name:  # override a node a rack declared
            i = by_name[str(node["name"])]
            base = {k: getattr(trackers[i], k) for k in _NODE_KEYS}
            trackers[i] = _node_from(node, base, where)
        else:
            trackers.append(_node_from(node, defaults, where))
    return ClusterSpec(tuple(trackers), source=source)


def load_cluster_file(path: str | os.PathLike[str], overrides: Mapping[str, object] | None = None) -> ClusterSpec:
    """Read a cluster file: TOML, or JSON when the content starts with ``{``."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    text = p.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}: line {exc.lineno}: invalid JSON ({exc.msg})") from None
        if "children" in doc and "name" in doc:
            return cluster_from_rumen_topology(doc, str(p), overrides)
    else:
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{p}: invalid TOML ({exc})") from None
    return cluster_from_mapping(doc, str(p), overrides)


def cluster_from_rumen_topology(topology: Mapping[str, object], source: str,
                                overrides: Mapping[str, object] | None = None) -> ClusterSpec:
    """A cluster with one TaskTracker per host of a Rumen ``LoggedNetworkTopology`` (root → racks → hosts).

    Slot counts, cores and speed come from ``overrides`` (the flags / mapred-site.xml), Hadoop defaults otherwise.
    Rack and host names keep Rumen's JobHistory escapes, so they match the trace's split locations.
    """
    defaults = {"map_slots": 2, "reduce_slots": 2, "cores": 4, "speed": 1.0}
    if overrides:
        defaults.update({k: v for k, v in overrides.items() if v is not None})
    trackers = []
    for rack in topology.get("children") or ():  # type: ignore[union-attr]
        rack_name = "/" + str(rack.get("name", "")).strip("/")
        for host in rack.get("children") or ():
            trackers.append(_node_from({"name": str(host.get("name")), "rack": rack_name}, defaults, source))
    return ClusterSpec(tuple(trackers), source=source)


def write_cluster_file(cluster: ClusterSpec, path: str | os.PathLike[str]) -> None:
    """Write ``cluster`` as a TOML cluster file (atomically)."""
    from mrsim.io import atomic_write

    lines = ["# mrsim cluster file (see docs/cluster.md)", ""]
    for t in cluster.trackers:
        lines += ["[[nodes]]", f"name = {json.dumps(t.name)}", f"rack = {json.dumps(t.rack)}",
                  f"map_slots = {t.map_slots}", f"reduce_slots = {t.reduce_slots}", f"cores = {t.cores}",
                  f"speed = {t.speed!r}", ""]
    with atomic_write(path) as fh:
        fh.write("\n".join(lines))
