"""Cluster descriptions: TaskTrackers with map/reduce slots, cores, racks and a speed factor.

A :class:`ClusterSpec` is frozen; replays build their live state from it. Four ways to get one:

* :func:`uniform_cluster` from flags (``--nodes --map-slots --reduce-slots --cores --racks``);
* :func:`load_cluster_file` from a cluster file (TOML or JSON, documented in ``docs/cluster.md``), or from an SLS
  node file (``nodes.json``, :mod:`mrsim.model.sls_nodes`);
* :func:`cluster_from_rumen_topology` from a Rumen topology JSON plus slot counts;
* any of them with slot counts from ``mapred-site.xml`` (see :mod:`mrsim.model.hadoop_conf`).

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

Two extensions (``docs/cluster.md``): **resource vectors** (``resources = {vcores = 8, memory_mb = 16384}`` on
any level, plus a ``[requests]`` section with the default per-task request; a task runs on a node only while the
sum of requests fits) and **federations** (``[[datacenters]]`` entries, each holding its own racks and nodes, or a
``datacenter = "..."`` key on racks and nodes).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Mapping

from mrsim.errors import InputError, OptionError
from mrsim.io import safe_json
from mrsim.io.fields import as_float, as_int
from mrsim.io.limits import check_limit, limit
from mrsim.io.safe_json import JSONValueError
from mrsim.io.safe_open import check_input_file

DEFAULT_RACK = "/default-rack"

#: YARN's defaults for a task's container (``mapreduce.{map,reduce}.memory.mb`` = 1024,
#: ``mapreduce.{map,reduce}.cpu.vcores`` = 1); resources not named here default to a request of 0.
YARN_DEFAULT_REQUEST: dict[str, float] = {"memory_mb": 1024.0, "vcores": 1.0}


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
    #: capacity per named resource, sorted by name (empty: the slot model)
    resources: tuple[tuple[str, float], ...] = ()
    #: the datacenter of a federated cluster ("" when the cluster is one site)
    datacenter: str = ""
    #: contention model (--contention tdam) of the cores: "seidmann" (the dissertation's) or "exact" (multi-server MVA)
    cpu_model: str = "seidmann"
    #: memory architecture for the contention model: "none", "smp" or "numa" (chapter 4's memory layer)
    memory_architecture: str = "none"
    #: NUMA nodes: K_N / K_T = D_mem_local / D_mem_remote (section 4.3.2; 1.0 as the dissertation measured)
    numa_ratio: float = 1.0

    def __post_init__(self) -> None:
        if self.map_slots < 0 or self.reduce_slots < 0:
            raise InputError(f"node {self.name}: slot counts must be non-negative")
        if self.cores < 1:
            raise InputError(f"node {self.name}: cores must be at least 1")
        if not self.speed > 0:
            raise InputError(f"node {self.name}: speed must be positive")
        if self.disks < 0:
            raise InputError(f"node {self.name}: disks must be non-negative")
        for resource, amount in self.resources:
            if not amount >= 0 or math.isinf(amount):
                raise InputError(f"node {self.name}: resource {resource!r} must be a non-negative number, got {amount}")
        if self.cpu_model not in ("seidmann", "exact"):
            raise InputError(f"node {self.name}: cpu_model must be seidmann or exact, got {self.cpu_model!r}")
        if self.memory_architecture not in ("none", "smp", "numa"):
            raise InputError(f"node {self.name}: memory_architecture must be none, smp or numa, "
                             f"got {self.memory_architecture!r}")
        if not (self.numa_ratio > 0 and math.isfinite(self.numa_ratio)):
            raise InputError(f"node {self.name}: numa_ratio must be a positive number, got {self.numa_ratio!r}")
        if self.memory_architecture != "none" and self.disks > 1:
            raise InputError(f"node {self.name}: the memory layer (memory_architecture = "
                             f"{self.memory_architecture!r}) models one disk, got disks = {self.disks}")
        if self.memory_architecture != "none" and self.cpu_model != "seidmann":
            raise InputError(f"node {self.name}: cpu_model = {self.cpu_model!r} applies to nodes without a memory "
                             f"layer (memory_architecture = {self.memory_architecture!r} models the cores itself)")

    def capacity(self, resource: str) -> float:
        """This node's capacity of ``resource`` (0 when it does not declare it)."""
        for name, amount in self.resources:
            if name == resource:
                return amount
        return 0.0


@dataclass(frozen=True)
class ClusterSpec:
    """An immutable cluster: an ordered tuple of TaskTrackers (order fixes tie-breaks and phases).

    ``map_request`` / ``reduce_request``: the default per-task request of resource-vector clusters (the
    ``[requests]`` section), used for jobs whose trace or spec gives none.
    """

    trackers: tuple[TrackerSpec, ...]
    source: str = ""
    map_request: tuple[tuple[str, float], ...] = ()
    reduce_request: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        where = self.source or "cluster"
        if not self.trackers:
            raise InputError(f"{where}: a cluster needs at least one node")
        names = [t.name for t in self.trackers]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError(f"{where}: node {dup!r} is listed twice")
        with_resources = [t for t in self.trackers if t.resources]
        if with_resources and len(with_resources) != len(self.trackers):
            bare = next(t for t in self.trackers if not t.resources)
            raise InputError(f"{where}: node {bare.name!r} declares no resources while others do "
                             "(give every node resources, e.g. in [defaults])")
        with_dc = [t for t in self.trackers if t.datacenter]
        if with_dc and len(with_dc) != len(self.trackers):
            bare = next(t for t in self.trackers if not t.datacenter)
            raise InputError(f"{where}: node {bare.name!r} belongs to no datacenter while others do")

    @property
    def resource_names(self) -> tuple[str, ...]:
        """Resources declared by the nodes, sorted (empty for the slot model)."""
        return tuple(sorted({name for t in self.trackers for name, _ in t.resources}))

    @property
    def uses_resources(self) -> bool:
        """True when tasks are placed by resource fit (Hadoop 2 containers) rather than by slots alone."""
        return bool(self.trackers[0].resources)

    @property
    def datacenters(self) -> tuple[str, ...]:
        """Datacenter names in first-appearance order (empty when the cluster is one site)."""
        return tuple(dict.fromkeys(t.datacenter for t in self.trackers if t.datacenter))

    def default_request(self, reduce: bool) -> dict[str, float]:
        """The per-task request used when a job gives none: the ``[requests]`` section, else YARN's defaults for
        the resources the nodes declare (0 for the others)."""
        given = dict(self.reduce_request if reduce else self.map_request)
        return {r: float(given.get(r, YARN_DEFAULT_REQUEST.get(r, 0.0))) for r in self.resource_names}

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
            "heterogeneous": len({(t.map_slots, t.reduce_slots, t.cores, t.speed, t.resources)
                                  for t in self.trackers}) > 1,
            "source": self.source,
            **({"resources": {r: sum(t.capacity(r) for t in self.trackers) for r in self.resource_names},
                "configurations": len({t.resources for t in self.trackers})} if self.uses_resources else {}),
            **({"datacenters": {d: sum(1 for t in self.trackers if t.datacenter == d) for d in self.datacenters}}
               if self.datacenters else {}),
        }


def uniform_cluster(nodes: int, map_slots: int = 2, reduce_slots: int = 2, cores: int = 4, racks: int = 1,
                    speed: float = 1.0) -> ClusterSpec:
    """``nodes`` identical TaskTrackers in contiguous blocks over ``racks`` racks (one rack: ``/default-rack``)."""
    if nodes < 1:
        raise OptionError(f"{{nodes}} must be at least 1, got {nodes}")
    check_limit("nodes", nodes, "--nodes")  # before allocating one TrackerSpec per node
    for field, value in (("map_slots", map_slots), ("reduce_slots", reduce_slots)):
        check_limit("slots", value, "--" + field.replace("_", "-"))
        if value < 0:
            raise OptionError(f"{{{field}}} must be at least 0, got {value}")
    if racks < 1 or racks > nodes:
        raise OptionError(f"{{racks}} must be between 1 and the number of nodes, got {racks}")
    per_rack = -(-nodes // racks)
    trackers = []
    for i in range(nodes):
        rack = DEFAULT_RACK if racks == 1 else f"/rack{i // per_rack + 1:02d}"
        trackers.append(TrackerSpec(f"node{i + 1:04d}", rack, map_slots, reduce_slots, cores, speed))
    return ClusterSpec(tuple(trackers), source=f"{nodes} nodes x ({map_slots} map, {reduce_slots} reduce slots)")


def _array(doc: Mapping[str, object], key: str, where: str) -> list:
    """``doc[key]`` as a list of tables (``[[key]]`` in TOML); missing is empty."""
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where}: {key} must be an array of tables ([[{key}]]), got {type(value).__name__}")
    return value


def _text(value: object, where: str, field: str) -> str:
    """A name field (a string; an integer is read as its decimal text)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{where}: {field} must be a string, got {value!r}"[:300])


_NODE_KEYS = {"name", "rack", "map_slots", "reduce_slots", "cores", "speed", "disks", "memory_gb", "resources",
              "datacenter", "cpu_model", "memory_architecture", "numa_ratio"}


def _resource_table(value: object, where: str) -> dict[str, float]:
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: resources must be a table such as {{vcores = 8, memory_mb = 16384}}")
    table: dict[str, float] = {}
    for name, amount in value.items():
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise InputError(f"{where}: resource {name!r} must be a number, got {amount!r}")
        table[str(name)] = as_float(amount, where, f"resource {name!r}", None, 1e15)  # sign: TrackerSpec
    return table


def _merge(base: Mapping[str, object], entry: Mapping[str, object], where: str) -> dict[str, object]:
    """``entry``'s node keys over ``base``; resource tables merge per resource."""
    merged = {**base, **{k: v for k, v in entry.items() if k in _NODE_KEYS}}
    if "resources" in entry and "resources" in base:
        merged["resources"] = {**_resource_table(base["resources"], where), **_resource_table(entry["resources"], where)}
    return merged


#: Slot cap of a resource node when no default request constrains it (the resource fit alone decides).
UNBOUNDED_SLOTS = 1_000_000


def containers_that_fit(capacity: Mapping[str, float], request: Mapping[str, float]) -> int:
    """How many tasks of ``request`` fit on a node of ``capacity`` at once (resources requested as 0 never bind;
    :data:`UNBOUNDED_SLOTS` when nothing binds)."""
    bound = math.inf
    for name, amount in request.items():
        if amount > 0:
            bound = min(bound, math.floor(capacity.get(name, 0.0) / amount + 1e-9))
    return UNBOUNDED_SLOTS if bound == math.inf else int(bound)


def _choice(values: Mapping[str, object], key: str, default: str, where: str) -> str:
    value = values.get(key, default)
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} must be a string, got {value!r}")
    return value


def _number(values: Mapping[str, object], key: str, default: float, where: str) -> float:
    value = values.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {key} must be a number, got {value!r}")
    return float(value)


def _node_from(entry: Mapping[str, object], defaults: Mapping[str, object], where: str,
               requests: tuple[dict[str, float], dict[str, float]] | None = None) -> TrackerSpec:
    unknown = set(entry) - _NODE_KEYS - {"count", "hosts"}
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    values = _merge(defaults, entry, where)
    try:
        resources = _resource_table(values["resources"], where) if "resources" in values else {}
        map_slots = values.get("map_slots")
        reduce_slots = values.get("reduce_slots")
        if resources and requests is not None:
            # A resource node's slot counts, unless given, are its container equivalents: how many default-sized
            # requests fit. Slot-based schedulers use them for shares; the engine enforces the resource fit.
            request_of = {r: YARN_DEFAULT_REQUEST.get(r, 0.0) for r in resources}
            if map_slots is None:
                map_slots = containers_that_fit(resources, {**request_of, **requests[0]})
            if reduce_slots is None:
                reduce_slots = containers_that_fit(resources, {**request_of, **requests[1]})
        # Slot counts the file gives are bounded by the slots limit; those derived from a resource node's capacity
        # may be larger (the resource fit alone decides how many tasks run there).
        given = values.get("map_slots") is not None and values.get("reduce_slots") is not None
        max_slots = limit("slots") if given or not resources else max(limit("slots"), UNBOUNDED_SLOTS)
        return TrackerSpec(
            name=_text(values["name"], where, "name"),
            rack=_text(values.get("rack", DEFAULT_RACK), where, "rack"),
            map_slots=as_int(map_slots if map_slots is not None else 2, where, "map_slots", 0, max_slots),
            reduce_slots=as_int(reduce_slots if reduce_slots is not None else 2, where, "reduce_slots", 0, max_slots),
            cores=as_int(values.get("cores", 4), where, "cores", 1, 1 << 20),
            speed=as_float(values.get("speed", 1.0), where, "speed", 1e-6, 1e6),
            disks=as_int(values.get("disks", 1), where, "disks", 0, 1 << 20),
            memory_gb=as_float(values.get("memory_gb", 0.0), where, "memory_gb", 0.0, 1e12),
            resources=tuple(sorted(resources.items())),
            datacenter=_text(values.get("datacenter", ""), where, "datacenter"),
            cpu_model=_choice(values, "cpu_model", "seidmann", where),
            memory_architecture=_choice(values, "memory_architecture", "none", where),
            numa_ratio=_number(values, "numa_ratio", 1.0, where),
        )
    except KeyError:
        raise InputError(f"{where}: a node needs a name") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: bad value ({exc})") from None


def _rack_nodes(rack: object, defaults: Mapping[str, object], where: str, prefix: str,
                requests: tuple[dict[str, float], dict[str, float]]) -> list[TrackerSpec]:
    if not isinstance(rack, dict) or "name" not in rack:
        raise InputError(f"{where}: a rack needs a name")
    rack_name = _text(rack["name"], where, "rack name")
    rack_defaults = {**_merge(defaults, {k: v for k, v in rack.items() if k != "name"}, where), "rack": rack_name}
    rack_defaults.pop("name", None)
    hosts = rack.get("hosts")
    if hosts is not None and (not isinstance(hosts, list) or not all(isinstance(h, (str, int)) for h in hosts)):
        raise InputError(f"{where}: rack {rack_name}: hosts must be a list of names")
    if hosts is not None:
        check_limit("nodes", len(hosts), f"{where}: rack {rack_name}: hosts")
    if hosts is None:
        count = rack.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InputError(f"{where}: give either hosts = [...] or a positive count")
        check_limit("nodes", count, f"{where}: rack {rack_name}: count")
        base = prefix + rack_name.strip("/").replace("/", "-")
        hosts = [f"{base}-node{i + 1:03d}" for i in range(count)]
    return [_node_from({"name": host}, rack_defaults, where, requests) for host in hosts]


def _requests(doc: Mapping[str, object], source: str) -> tuple[dict[str, float], dict[str, float]]:
    section = doc.get("requests") or {}
    if not isinstance(section, Mapping) or set(section) - {"map", "reduce"}:
        raise InputError(f"{source}: [requests] takes map = {{...}} and reduce = {{...}} tables")
    return (_resource_table(section.get("map", {}), f"{source}: [requests] map"),
            _resource_table(section.get("reduce", {}), f"{source}: [requests] reduce"))


def cluster_from_mapping(doc: Mapping[str, object], source: str, overrides: Mapping[str, object] | None = None) -> ClusterSpec:
    """Build a cluster from a parsed cluster file (see the module docstring)."""
    unknown = set(doc) - {"defaults", "racks", "nodes", "datacenters", "requests"}
    if unknown:
        raise InputError(f"{source}: unknown section(s) {', '.join(sorted(unknown))} "
                         "(expected defaults, racks, nodes, datacenters, requests)")
    raw_defaults = doc.get("defaults") or {}
    if not isinstance(raw_defaults, Mapping):
        raise InputError(f"{source}: [defaults] must be a table")
    defaults = dict(raw_defaults)
    bad = set(defaults) - (_NODE_KEYS - {"name"})
    if bad:
        raise InputError(f"{source}: unknown key(s) in [defaults]: {', '.join(sorted(bad))}")
    if overrides:
        defaults.update({k: v for k, v in overrides.items() if v is not None})
    requests = _requests(doc, source)
    trackers: list[TrackerSpec] = []
    for r, rack in enumerate(_array(doc, "racks", source)):
        trackers += _rack_nodes(rack, defaults, f"{source}: racks[{r}]", "", requests)
        check_limit("nodes", len(trackers), f"{source}: racks")
    for d, dc in enumerate(_array(doc, "datacenters", source)):
        where = f"{source}: datacenters[{d}]"
        if not isinstance(dc, dict) or "name" not in dc:
            raise InputError(f"{where}: a datacenter needs a name")
        dc_name = _text(dc["name"], where, "datacenter name")
        extra_keys = set(dc) - (_NODE_KEYS - {"rack", "datacenter"}) - {"racks", "nodes", "count"}
        if extra_keys:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(extra_keys))}")
        dc_defaults = {**_merge(defaults, {k: v for k, v in dc.items() if k in _NODE_KEYS - {"name"}}, where),
                       "datacenter": dc_name}
        racks = list(_array(dc, "racks", where))
        if "count" in dc:  # shorthand: one rack of `count` nodes
            racks.append({"name": f"/{dc_name}/rack1", "count": dc["count"]})
        for r, rack in enumerate(racks):
            if isinstance(rack, dict) and "name" in rack and not str(rack["name"]).startswith(f"/{dc_name}/"):
                rack = {**rack, "name": f"/{dc_name}/" + str(rack["name"]).strip("/")}
            trackers += _rack_nodes(rack, dc_defaults, f"{where}.racks[{r}]", "", requests)
            check_limit("nodes", len(trackers), f"{where}: racks")
        for n, node in enumerate(_array(dc, "nodes", where)):
            if not isinstance(node, dict):
                raise InputError(f"{where}.nodes[{n}]: expected a table")
            trackers.append(_node_from(node, {**dc_defaults, "rack": f"/{dc_name}{DEFAULT_RACK}"},
                                       f"{where}.nodes[{n}]", requests))
    by_name = {t.name: i for i, t in enumerate(trackers)}
    nodes = _array(doc, "nodes", source)
    check_limit("nodes", len(trackers) + len(nodes), f"{source}: nodes")
    for n, node in enumerate(nodes):
        where = f"{source}: nodes[{n}]"
        if not isinstance(node, dict):
            raise InputError(f"{where}: expected a table")
        if "name" in node:
            _text(node["name"], where, "name")
        if node.get("name") in by_name:  # override a node a rack declared
            i = by_name[str(node["name"])]
            old = trackers[i]
            base: dict[str, object] = {k: getattr(old, k) for k in _NODE_KEYS - {"resources"}}
            if old.resources:
                base["resources"] = dict(old.resources)
            trackers[i] = _node_from(node, base, where, requests)
        else:
            trackers.append(_node_from(node, defaults, where, requests))
    return ClusterSpec(tuple(trackers), source=source, map_request=tuple(sorted(requests[0].items())),
                       reduce_request=tuple(sorted(requests[1].items())))


def load_cluster_file(path: str | os.PathLike[str], overrides: Mapping[str, object] | None = None,
                      notes: list[str] | None = None) -> ClusterSpec:
    """Read a cluster file: TOML, or JSON when the content starts with ``{``: an mrsim cluster file, a Rumen
    topology, or an SLS node file (:mod:`mrsim.model.sls_nodes`). What the reading assumed is appended to
    ``notes`` (SLS's defaults for resources a node does not set, skipped entries)."""
    p = check_input_file(path)
    text = p.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        from mrsim.model.sls_nodes import looks_like_sls_nodes, sls_cluster_document

        if looks_like_sls_nodes(text):
            doc, read_notes = sls_cluster_document(text, str(p))
            if notes is not None:
                notes.extend(read_notes)
            return cluster_from_mapping(doc, str(p), overrides)
        try:
            doc = safe_json.loads(text)
        except JSONValueError as exc:
            raise InputError(f"{p}: {exc.msg}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}: line {exc.lineno}: invalid JSON ({exc.msg})") from None
        if "children" in doc and "name" in doc:
            return cluster_from_rumen_topology(doc, str(p), overrides)
    else:
        import tomllib  # here: a replay without a cluster file never parses TOML

        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{p}: invalid TOML ({exc})") from None
        except RecursionError:
            raise InputError(f"{p}: invalid TOML (nesting too deep)") from None
    if not isinstance(doc, dict):
        raise InputError(f"{p}: expected a table (TOML) or an object (JSON) at the top")
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
    racks = topology.get("children") or ()
    if not isinstance(racks, list) or not all(isinstance(r, dict) for r in racks):
        raise InputError(f"{source}: topology 'children' must be a list of rack objects")
    for rack in racks:
        rack_name = "/" + _text(rack.get("name", ""), source, "rack name").strip("/")
        hosts = rack.get("children") or ()
        if not isinstance(hosts, list) or not all(isinstance(h, dict) for h in hosts):
            raise InputError(f"{source}: rack {rack_name}: 'children' must be a list of host objects")
        for host in hosts:
            trackers.append(_node_from({"name": str(host.get("name")), "rack": rack_name}, defaults, source))
    return ClusterSpec(tuple(trackers), source=source)


def write_cluster_file(cluster: ClusterSpec, path: str | os.PathLike[str]) -> None:
    """Write ``cluster`` as a TOML cluster file (atomically)."""
    from mrsim.io import atomic_write

    lines = ["# mrsim cluster file (see docs/cluster.md)", ""]
    if cluster.map_request or cluster.reduce_request:
        lines.append("[requests]")
        for kind, request in (("map", cluster.map_request), ("reduce", cluster.reduce_request)):
            if request:
                lines.append(f"{kind} = {{ " + ", ".join(f"{json.dumps(r)} = {a!r}" for r, a in request) + " }")
        lines.append("")
    for t in cluster.trackers:
        lines += ["[[nodes]]", f"name = {json.dumps(t.name)}", f"rack = {json.dumps(t.rack)}",
                  f"map_slots = {t.map_slots}", f"reduce_slots = {t.reduce_slots}", f"cores = {t.cores}",
                  f"speed = {t.speed!r}"]
        if t.resources:
            lines.append("resources = { " + ", ".join(f"{json.dumps(r)} = {a!r}" for r, a in t.resources) + " }")
        if t.datacenter:
            lines.append(f"datacenter = {json.dumps(t.datacenter)}")
        if t.cpu_model != "seidmann":
            lines.append(f"cpu_model = {json.dumps(t.cpu_model)}")
        if t.memory_architecture != "none":
            lines.append(f"memory_architecture = {json.dumps(t.memory_architecture)}")
        if t.numa_ratio != 1.0:
            lines.append(f"numa_ratio = {t.numa_ratio!r}")
        lines.append("")
    with atomic_write(path, what="the cluster file") as fh:
        fh.write("\n".join(lines))
