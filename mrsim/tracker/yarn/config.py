"""YARN and MR-on-YARN settings of a replay: ResourceManager, NodeManagers, the MR ApplicationMaster.

Every key below is read with Hadoop's default beside it (``yarn-default.xml`` / ``mapred-default.xml`` of Hadoop
2.x; where Hadoop 3 differs the docstring of the field says so). Values come from, later winning:

1. the defaults;
2. the job confs a trace recorded (``jobProperties`` / ``*_conf.xml``; the value most jobs carry);
3. ``--mapred-site`` and ``--yarn-site`` files;
4. explicit overrides (flags, tests).

Per-job keys (``mapreduce.{map,reduce}.memory.mb``, ``...cpu.vcores``, ``yarn.app.mapreduce.am.resource.*``,
``mapreduce.job.reduce.slowstart.completedmaps``) are read from each job's own conf first (:meth:`YarnConf.job_sizes`).

Keys of a *file* the user gave that mrsim does not model are reported, one warning per key naming the file
(:func:`unmodelled_keys`); keys of the trace's job confs are not (a job conf carries hundreds of client keys).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping

from mrsim.tracker.schedconf.site_file import read_site_file
from mrsim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.templates import Workload

NM_HEARTBEAT = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms"  # 1000
NM_MEMORY = "yarn.nodemanager.resource.memory-mb"  # 8192
NM_VCORES = "yarn.nodemanager.resource.cpu-vcores"  # 8
MIN_MB = "yarn.scheduler.minimum-allocation-mb"  # 1024
MAX_MB = "yarn.scheduler.maximum-allocation-mb"  # 8192
MIN_VCORES = "yarn.scheduler.minimum-allocation-vcores"  # 1
MAX_VCORES = "yarn.scheduler.maximum-allocation-vcores"  # 4 (Hadoop 2.x and 3.x)
SCHEDULER_CLASS = "yarn.resourcemanager.scheduler.class"  # CapacityScheduler
AM_HEARTBEAT = "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms"  # 1000
AM_MB = "yarn.app.mapreduce.am.resource.mb"  # 1536
AM_VCORES = "yarn.app.mapreduce.am.resource.cpu-vcores"  # 1
MAP_MB = "mapreduce.map.memory.mb"  # 1024
REDUCE_MB = "mapreduce.reduce.memory.mb"  # 1024
MAP_VCORES = "mapreduce.map.cpu.vcores"  # 1
REDUCE_VCORES = "mapreduce.reduce.cpu.vcores"  # 1
SLOWSTART = "mapreduce.job.reduce.slowstart.completedmaps"  # 0.05
RAMPUP_LIMIT = "yarn.app.mapreduce.am.job.reduce.rampup.limit"  # 0.5
PREEMPTION_LIMIT = "yarn.app.mapreduce.am.job.reduce.preemption.limit"  # 0.5

#: Keys this module honours (the scheduler modules list their own).
HONOURED = frozenset({NM_HEARTBEAT, NM_MEMORY, NM_VCORES, MIN_MB, MAX_MB, MIN_VCORES, MAX_VCORES, SCHEDULER_CLASS,
                      AM_HEARTBEAT, AM_MB, AM_VCORES, MAP_MB, REDUCE_MB, MAP_VCORES, REDUCE_VCORES, SLOWSTART,
                      RAMPUP_LIMIT, PREEMPTION_LIMIT})

_SCHEDULER_CLASSES = {"FifoScheduler": "fifo", "CapacityScheduler": "capacity", "FairScheduler": "fair"}


@dataclass(frozen=True)
class LaunchLag:
    """Seconds between the MR AM launching a container and the task attempt's logged start (NM ``startContainer``).

    A constant, or an empirical distribution (``samples``, drawn uniformly with the replay's seeded stream) so a
    calibration object (e.g. one fitted from traces) can be plugged in later. The default is **0 s**: the attempt
    start a ``.jhist`` or Rumen trace logs is the ContainerLauncher's launch time, and the template durations run
    from it, so the JVM start is already inside every task duration.
    """

    constant_s: float = 0.0
    samples: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not (self.constant_s >= 0 and math.isfinite(self.constant_s)) or any(not (s >= 0) for s in self.samples):
            raise InputError("container launch lag must be finite and non-negative")

    def describe(self) -> dict:
        if self.samples:
            return {"distribution": "empirical", "samples": len(self.samples),
                    "mean_s": sum(self.samples) / len(self.samples)}
        return {"constant_s": self.constant_s}


@dataclass(frozen=True)
class YarnConf:
    """Engine-wide YARN settings. Times in seconds, memory in MB."""

    nm_heartbeat_s: float = 1.0
    nm_memory_mb: float = 8192.0
    nm_vcores: float = 8.0
    min_mb: float = 1024.0
    max_mb: float = 8192.0
    min_vcores: float = 1.0
    max_vcores: float = 4.0
    am_heartbeat_s: float = 1.0
    am_mb: float = 1536.0
    am_vcores: float = 1.0
    map_mb: float = 1024.0
    reduce_mb: float = 1024.0
    map_vcores: float = 1.0
    reduce_vcores: float = 1.0
    slowstart: float = 0.05
    rampup_limit: float = 0.5
    preemption_limit: float = 0.5
    scheduler: str | None = None  # from yarn.resourcemanager.scheduler.class, when some file set it
    task_launch_lag: LaunchLag = field(default_factory=LaunchLag)
    am_launch_lag: LaunchLag = field(default_factory=LaunchLag)
    sources: tuple[str, ...] = ()
    from_trace: tuple[tuple[str, str], ...] = ()
    #: field names some input set (the trace's job confs, a site file, an override): not Hadoop's default
    given: tuple[str, ...] = ()
    #: (field, why) of the values inferred from the trace (:func:`infer_nm_resources`)
    inferred: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        for name in ("nm_heartbeat_s", "am_heartbeat_s", "nm_memory_mb", "nm_vcores", "min_mb", "max_mb", "am_mb",
                     "map_mb", "reduce_mb"):
            if not getattr(self, name) > 0:
                raise InputError(f"YARN setting {name} must be positive, got {getattr(self, name)}")
        if self.max_mb < self.min_mb or self.max_vcores < self.min_vcores:
            raise InputError(f"{MAX_MB} / {MAX_VCORES} must not be below the minimum allocation")
        if not 0.0 <= self.slowstart <= 1.0:
            raise InputError(f"{SLOWSTART} must be in [0, 1], got {self.slowstart}")

    def normalise(self, mb: float, vcores: float) -> tuple[float, float]:
        """``SchedulerUtils.normalizeRequest``: round up to a multiple of the minimum allocation, cap at the maximum."""
        m = max(self.min_mb, math.ceil(mb / self.min_mb) * self.min_mb)
        v = max(self.min_vcores, math.ceil(vcores / self.min_vcores) * self.min_vcores) if self.min_vcores > 0 else vcores
        return min(m, self.max_mb), min(v, self.max_vcores)

    def job_sizes(self, properties: Mapping[str, str] | None, extra: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        """Normalised (MB, vcores) of the job's AM, map and reduce containers: the job's ``map_request`` /
        ``reduce_request`` table (job specs), then its own conf, then Rumen's ``jobMapMB`` / ``jobReduceMB``, then
        this conf; each resource on its own."""
        props = properties or {}

        def num(key: str, fallback: float) -> float:
            try:
                value = float(props[key])
            except (KeyError, TypeError, ValueError):
                return fallback
            return value if value > 0 else fallback

        def requested(kind: str, resource: str, fallback: float) -> float:
            # a job spec's (or generator's) per-task request table, e.g. map_request = { memory_mb = 2048 }: it
            # comes first, as it does for resource-vector clusters (mrsim.tracker.placement.task_request)
            table = extra.get(f"{kind}_request")
            if isinstance(table, Mapping):
                value = table.get(resource)
            elif isinstance(table, (tuple, list)):
                value = dict(table).get(resource)
            else:
                return fallback
            try:
                number = float(value) if value is not None else 0.0
            except (TypeError, ValueError):
                return fallback
            return number if number > 0 else fallback

        map_mb = num(MAP_MB, num("mapred.job.map.memory.mb", float(extra.get("map_mb", 0) or 0) or self.map_mb))
        reduce_mb = num(REDUCE_MB, num("mapred.job.reduce.memory.mb", float(extra.get("reduce_mb", 0) or 0) or self.reduce_mb))
        return {
            "am": self.normalise(num(AM_MB, self.am_mb), num(AM_VCORES, self.am_vcores)),
            "map": self.normalise(requested("map", "memory_mb", map_mb),
                                  requested("map", "vcores", num(MAP_VCORES, self.map_vcores))),
            "reduce": self.normalise(requested("reduce", "memory_mb", reduce_mb),
                                     requested("reduce", "vcores", num(REDUCE_VCORES, self.reduce_vcores))),
        }

    def job_slowstart(self, properties: Mapping[str, str] | None) -> float:
        try:
            value = float((properties or {})[SLOWSTART])
        except (KeyError, TypeError, ValueError):
            return self.slowstart
        return value if 0.0 <= value <= 1.0 else self.slowstart

    def describe(self) -> dict:
        return {
            "nm_heartbeat_s": self.nm_heartbeat_s, "nm_memory_mb": self.nm_memory_mb, "nm_vcores": self.nm_vcores,
            "minimum_allocation": [self.min_mb, self.min_vcores], "maximum_allocation": [self.max_mb, self.max_vcores],
            "am_heartbeat_s": self.am_heartbeat_s, "am_resource": [self.am_mb, self.am_vcores],
            "map_resource": [self.map_mb, self.map_vcores], "reduce_resource": [self.reduce_mb, self.reduce_vcores],
            "slowstart": self.slowstart, "reduce_rampup_limit": self.rampup_limit,
            "reduce_preemption_limit": self.preemption_limit,
            "task_launch_lag": self.task_launch_lag.describe(), "am_launch_lag": self.am_launch_lag.describe(),
            "sources": list(self.sources), "from_trace": dict(self.from_trace), "inferred": dict(self.inferred),
        }


_FIELDS: dict[str, tuple[str, float]] = {
    NM_HEARTBEAT: ("nm_heartbeat_s", 1e-3), NM_MEMORY: ("nm_memory_mb", 1.0), NM_VCORES: ("nm_vcores", 1.0),
    MIN_MB: ("min_mb", 1.0), MAX_MB: ("max_mb", 1.0), MIN_VCORES: ("min_vcores", 1.0),
    MAX_VCORES: ("max_vcores", 1.0), AM_HEARTBEAT: ("am_heartbeat_s", 1e-3), AM_MB: ("am_mb", 1.0),
    AM_VCORES: ("am_vcores", 1.0), MAP_MB: ("map_mb", 1.0), REDUCE_MB: ("reduce_mb", 1.0),
    MAP_VCORES: ("map_vcores", 1.0), REDUCE_VCORES: ("reduce_vcores", 1.0), SLOWSTART: ("slowstart", 1.0),
    RAMPUP_LIMIT: ("rampup_limit", 1.0), PREEMPTION_LIMIT: ("preemption_limit", 1.0),
}


def _apply(conf: YarnConf, values: Mapping[str, str], where: str) -> YarnConf:
    changes: dict[str, object] = {}
    for key, text in values.items():
        if key == SCHEDULER_CLASS:
            short = str(text).strip().rsplit(".", 1)[-1]
            if short not in _SCHEDULER_CLASSES:
                raise InputError(f"{where}: {SCHEDULER_CLASS} = {text!r} is not FifoScheduler, CapacityScheduler or "
                                 "FairScheduler")
            changes["scheduler"] = _SCHEDULER_CLASSES[short]
            continue
        if key not in _FIELDS:
            continue
        name, scale = _FIELDS[key]
        try:
            value = float(str(text).strip())
        except ValueError:
            raise InputError(f"{where}: {key} = {text!r} is not a number") from None
        if not math.isfinite(value):
            raise InputError(f"{where}: {key} = {text!r} is not finite")
        changes[name] = value * scale
    try:
        return replace(conf, given=tuple(sorted(set(conf.given) | set(changes))), **changes)  # type: ignore[arg-type]
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def trace_values(job_properties: list[Mapping[str, str]]) -> dict[str, str]:
    """The value most jobs carry for each engine-wide key (ties: the first seen)."""
    counts: dict[str, dict[str, int]] = {}
    for props in job_properties:
        for key in (NM_HEARTBEAT, NM_MEMORY, NM_VCORES, MIN_MB, MAX_MB, MIN_VCORES, MAX_VCORES, AM_HEARTBEAT,
                    SCHEDULER_CLASS):
            if key in props:
                bucket = counts.setdefault(key, {})
                bucket[str(props[key])] = bucket.get(str(props[key]), 0) + 1
    return {key: max(vals.items(), key=lambda kv: kv[1])[0] for key, vals in counts.items()}


def build_yarn_conf(*, trace_props: Mapping[str, str] | None = None, files: tuple[str | os.PathLike[str], ...] = (),
                    overrides: Mapping[str, object] | None = None) -> YarnConf:
    """Defaults < the trace's job confs < ``files`` (Hadoop ``<configuration>`` XML) < ``overrides`` (field names)."""
    conf = YarnConf()
    if trace_props:
        conf = _apply(conf, trace_props, "trace job conf")
        conf = replace(conf, from_trace=tuple(sorted(trace_props.items())))
    for path in files:
        props = read_site_file(path).props
        conf = _apply(conf, {k: p.value for k, p in props.items()}, str(path))
        conf = replace(conf, sources=conf.sources + (str(path),))
    if overrides:
        chosen = {k: v for k, v in overrides.items() if v is not None}
        conf = replace(conf, given=tuple(sorted(set(conf.given) | set(chosen))), **chosen)  # type: ignore[arg-type]
    return conf


def infer_nm_resources(conf: YarnConf, cluster: "ClusterSpec", workload: "Workload") -> tuple[YarnConf, str | None]:
    """NodeManager memory and vcores for a cluster inferred from the trace, when no input gives them.

    MR1 mode infers a TaskTracker's slots as the peak concurrent map and reduce attempts the trace shows on its
    host (:mod:`mrsim.profiler.topology_infer`). YARN mode reads the same peaks as containers: a NodeManager held at
    least ``map_slots`` map containers and ``reduce_slots`` reduce containers and, on a one-node cluster, the AM's
    container too (the AM ran there; on several nodes its node is unknown: ``.jhist`` and SLS traces do not record
    it, so it is not added). When Hadoop's defaults
    (``yarn.nodemanager.resource.memory-mb`` 8192, ``...cpu-vcores`` 8) cannot hold that on the busiest host, the
    log contradicts them: the NodeManagers get the smallest size that holds it (container sizes normalised as
    :meth:`YarnConf.normalise`; per kind the largest of the jobs'). The defaults are only raised, never lowered:
    a host's observed peak is a lower bound of its NodeManager, not its size.

    Only for a ``cluster`` inferred from the trace (its slots are the observed peaks) whose nodes declare no
    ``memory_mb`` / ``vcores``, and for each key only when no input set it (:attr:`YarnConf.given`: the trace's
    job confs, ``--yarn-site``, flags). Returns the conf (unchanged when nothing is inferred) and a note for
    stderr (None when nothing is inferred). Cost: O(jobs + nodes).
    """
    if not cluster.trackers or not workload.jobs:
        return conf, None
    sizes = [conf.job_sizes(t.extra.get("properties") if isinstance(t.extra.get("properties"), dict) else None,
                            t.extra) for t in workload.jobs]
    am, mp, rd = ((max(s[k][0] for s in sizes), max(s[k][1] for s in sizes)) for k in ("am", "map", "reduce"))
    # per resource, the busiest host (ties: the first name); memory's names the host in the note
    busiest = [max(cluster.trackers, key=lambda t, r=r: (t.map_slots * mp[r] + t.reduce_slots * rd[r], t.name))
               for r in (0, 1)]
    with_am = len(cluster.trackers) == 1
    need = [busiest[r].map_slots * mp[r] + busiest[r].reduce_slots * rd[r] + (am[r] if with_am else 0.0)
            for r in (0, 1)]
    names = cluster.resource_names
    changes: dict[str, float] = {}
    why: list[tuple[str, str]] = []
    for r, (field_name, key, resource, unit) in enumerate((("nm_memory_mb", NM_MEMORY, "memory_mb", "MB"),
                                                           ("nm_vcores", NM_VCORES, "vcores", "vcores"))):
        default = float(getattr(conf, field_name))
        host = busiest[r]
        if field_name in conf.given or resource in names or need[r] <= default:
            continue
        changes[field_name] = float(need[r])
        why.append((field_name, f"{need[r]:g} {unit}, not {key} = {default:g}: {host.map_slots} map + "
                                f"{host.reduce_slots} reduce containers at once on {host.name} (the trace's peak)"
                                + (" and the AM's container" if with_am else "")))
    if not changes:
        return conf, None
    conf = replace(conf, inferred=conf.inferred + tuple(why), **changes)  # type: ignore[arg-type]
    held = " and ".join(f"{changes[f]:g} {u}" for f, u in (("nm_memory_mb", "MB"), ("nm_vcores", "vcores"))
                        if f in changes)
    beside = f", beside its {am[0]:g} MB AM" if with_am else ""
    host = busiest[0] if "nm_memory_mb" in changes else busiest[1]
    return conf, (f"YARN NodeManagers of {held} (inferred: the trace ran {host.map_slots} map + {host.reduce_slots} "
                  f"reduce containers of {mp[0]:g} / {rd[0]:g} MB at once on {host.name}{beside}, more than Hadoop's "
                  f"default NodeManager holds); --yarn-site with {NM_MEMORY} / {NM_VCORES} overrides")


def unmodelled_keys(path: str | os.PathLike[str], honoured: frozenset[str] | set[str]) -> list[str]:
    """One warning per ``yarn.*`` / ``mapreduce.*`` / ``mapred.*`` key of ``path`` mrsim does not honour."""
    props = read_site_file(path).props
    out = []
    for key in sorted(props):
        if key in honoured or key in HONOURED:
            continue
        if key.startswith(("yarn.", "mapreduce.", "mapred.")):
            out.append(f"{path}:{props[key].line}: {key} is not modelled (ignored)")
    return out
