"""What a run assumed: which cluster and heartbeat it used and where each came from (announced, never silent).

``replay``, ``compare`` and ``validate`` pick the cluster by one rule (:func:`choose_cluster`):

1. a cluster given by the caller (``cluster=`` in :mod:`mrsim.api`), or ``--cluster FILE`` / ``--topology FILE``
   / ``--nodes N``;
2. else, when the trace names the hosts its task attempts ran on, the cluster inferred from them exactly as
   ``mrsim validate`` does (:func:`mrsim.profiler.topology_infer.cluster_from_hosts`: one TaskTracker per host,
   slots = the most attempts the host ran at once, a lower bound on its configured slots);
3. else (synthetic traces, whose first job's attempts all name ``synthetic-host``; SWIM files; job specs) today's
   default,
   64 nodes with 2 map + 2 reduce slots (or ``--map-slots`` / ``--reduce-slots`` / mapred-site.xml's).

The heartbeat interval comes from ``--heartbeat-interval``, else Hadoop's formula for the chosen cluster size
(:meth:`mrsim.model.hadoop_conf.HadoopConf.heartbeat_interval_s`) under ``--hadoop-version`` (default 1.2), with
mapred-site.xml's or the trace's heartbeat keys when given. :func:`assumption_line` says all of it in one line.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from mrsim.errors import OptionError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from mrsim.wording import counted

#: The host every attempt of a ``mrsim synth`` trace names (``mrsim.profiler.synth.template_to_logged_job``).
SYNTHETIC_HOST = "synthetic-host"
DEFAULT_NODES = 64


@dataclass(frozen=True)
class ClusterChoice:
    """The cluster a run uses, where it came from, and notes that explain it (e.g. 0-slot trackers)."""

    cluster: ClusterSpec
    origin: str
    inferred: bool = False
    notes: tuple[str, ...] = ()
    #: the cluster the trace ran on, when the run knows it (inferred, or the one ``cluster`` was resized from)
    trace_cluster: ClusterSpec | None = None

    def __post_init__(self) -> None:
        if self.inferred and self.trace_cluster is None:
            object.__setattr__(self, "trace_cluster", self.cluster)

    @property
    def trace_trackers(self) -> int | None:
        return None if self.trace_cluster is None else len(self.trace_cluster.trackers)


@dataclass
class LoadedTrace:
    """A workload plus the hosts its attempts ran on (None when the input names none), read in one pass."""

    workload: Workload
    hosts: list[dict[str, Any]] | None = None
    extra_warnings: list[str] = field(default_factory=list)


def load_with_hosts(path: str | os.PathLike[str], fmt: str | None = None) -> LoadedTrace:
    """Read ``path`` like :func:`mrsim.profiler.workloads.load_workload` and collect its hosts in the same pass.

    The workload is identical to ``load_workload``'s (the same builder over the same LoggedJob stream); the hosts
    are those of :class:`mrsim.profiler.topology_infer.SlotUsage` (or those saved in a trace store). Logs and
    traces go through :func:`mrsim.profiler.ingest.ingest`: one parse shared with the calibration and the
    background, or none when the trace cache has the file.
    """
    from mrsim.profiler.detect import Format, detect_format
    from mrsim.profiler.jobspec import is_jobspec
    from mrsim.profiler.store import is_store, load_hosts
    from mrsim.profiler.workloads import load_workload

    p = Path(path)
    kind = (fmt or "").strip().lower()
    if not p.exists() or kind in ("store", "jobspec") or (not kind and (is_store(p) or is_jobspec(p))):
        workload = load_workload(p, fmt)
        hosts = load_hosts(p) if (kind == "store" or (not kind and is_store(p))) else None
        return LoadedTrace(workload, hosts or None)
    if fmt:
        try:
            format_ = Format[kind.upper()]
        except KeyError:
            return LoadedTrace(load_workload(p, fmt))  # load_workload raises the usual error
    else:
        format_ = detect_format(p)
    if format_ is Format.SWIM:
        return LoadedTrace(load_workload(p, fmt))
    from mrsim.profiler.ingest import ingest

    once = ingest(p, fmt)  # one pass for every view, from the trace cache when it has the file
    return LoadedTrace(once.workload(), once.workload_hosts)


def _load_with_hosts_uncached(p: Path, format_: Any) -> LoadedTrace:
    """What :func:`load_with_hosts` did before :mod:`mrsim.profiler.ingest` (kept for the equality tests)."""
    from mrsim.profiler.builder import workload_from_logged_jobs
    from mrsim.profiler.detect import iter_logged_jobs
    from mrsim.profiler.topology_infer import SlotUsage

    warnings: list[str] = []
    usage = SlotUsage()
    synthetic: list[bool] = []  # decided on the first job that names a host
    workload = workload_from_logged_jobs(_observe(iter_logged_jobs(p, format_, warnings=warnings), usage, synthetic, str(p)),
                                         source=str(p))
    if warnings:
        workload = Workload.of(workload.jobs, source=workload.source, warnings=[*warnings, *workload.warnings])
    if synthetic and synthetic[0]:
        return LoadedTrace(workload, [{"rack": "default-rack", "host": SYNTHETIC_HOST}])
    hosts = [h.as_dict() for h in usage.hosts()]
    return LoadedTrace(workload, hosts or None)


def _observe(jobs: Iterator[dict[str, Any]], usage: Any, synthetic: list[bool],
             source: str = "") -> Iterator[dict[str, Any]]:
    """Feed ``usage`` as jobs stream past, unless the first job naming a host names only ``mrsim synth``'s
    placeholder: then the trace is synthetic and collecting attempt windows (a third of the load time on the
    1148-job benchmark) is skipped."""
    from mrsim.profiler.topology_infer import attempt_host, iter_attempt_windows

    from mrsim.profiler.logged_check import check_logged_job

    for job in jobs:
        try:
            if not synthetic:
                names = {where[1] for _, attempt, _, _ in iter_attempt_windows(job)
                         if (where := attempt_host(attempt)) is not None}
                if names:
                    synthetic.append(names == {SYNTHETIC_HOST})
            if not (synthetic and synthetic[0]):
                usage.add_job(job)
        except (TypeError, AttributeError, ValueError, OverflowError, KeyError):
            check_logged_job(job, source)  # a malformed job: the precise one-line InputError
            raise
        yield job


def is_synthetic(hosts: list[dict[str, Any]] | None) -> bool:
    """True when every host is ``mrsim synth``'s placeholder (a synthetic trace names no real cluster)."""
    return bool(hosts) and all(str(h.get("host", "")).strip("/").split("/")[-1] == SYNTHETIC_HOST for h in hosts)


def zero_slot_notes(cluster: ClusterSpec) -> tuple[str, ...]:
    """Explain inferred TaskTrackers with 0 map or 0 reduce slots (empty when there are none)."""
    n = len(cluster.trackers)
    no_maps = sum(1 for t in cluster.trackers if t.map_slots == 0)
    no_reduces = sum(1 for t in cluster.trackers if t.reduce_slots == 0)
    notes = []
    if no_maps or no_reduces:
        parts = []
        if no_maps:
            parts.append(f"{no_maps} {'has' if no_maps == 1 else 'have'} 0 map slots "
                         f"({'it' if no_maps == 1 else 'they'} ran only reduces in the trace)")
        if no_reduces:
            parts.append(f"{no_reduces} {'has' if no_reduces == 1 else 'have'} 0 reduce slots "
                         f"({'it' if no_reduces == 1 else 'they'} ran only maps)")
        notes.append(f"of {counted(n, 'inferred TaskTracker')}, " + " and ".join(parts) + ": inferred slots are the most attempts a host ran at once, a lower bound "
                     "on its configured slots; give --map-slots/--reduce-slots, --cluster or --topology to set them")
    return tuple(notes)


def choose_cluster(args: Any, conf: HadoopConf, trace: str, hosts: list[dict[str, Any]] | None,
                   given: ClusterSpec | None = None) -> ClusterChoice:
    """The cluster by the module docstring's rule. ``args`` carries the cluster flags of ``add_cluster_arguments``."""
    from mrsim.profiler.topology_infer import cluster_from_hosts

    if given is not None:
        return ClusterChoice(given, "given by the caller")
    if args.cluster:
        read_notes: list[str] = []
        cluster = build_cluster(args, conf, read_notes)
        return ClusterChoice(cluster, f"--cluster {args.cluster}", notes=tuple(read_notes))
    if args.topology:
        return ClusterChoice(build_cluster(args, conf), f"--topology {args.topology}")
    if args.nodes is not None and hosts and not is_synthetic(hosts):
        from mrsim.whatif.cluster import describe, resized

        inferred = cluster_from_hosts(hosts, source=f"inferred from {trace}",
                                      map_slots=args.map_slots, reduce_slots=args.reduce_slots,
                                      memory_slots=getattr(args, "memory_slots", "on") != "off")
        cluster = resized(inferred, args.nodes, args.racks, args.cores)
        same = cluster == inferred
        if getattr(args, "cpu_model", None) is not None:
            cluster = build_cluster_cpu_model(cluster, args.cpu_model)
        return ClusterChoice(cluster, f"--nodes {args.nodes}: {describe(inferred, cluster)}", inferred=same,
                             notes=zero_slot_notes(cluster) if same else (), trace_cluster=inferred)
    if args.nodes is not None:
        return ClusterChoice(build_cluster(args, conf), "--nodes and slot flags")
    if hosts and not is_synthetic(hosts):
        cluster = cluster_from_hosts(hosts, source=f"inferred from {trace}",
                                     map_slots=args.map_slots, reduce_slots=args.reduce_slots,
                                     memory_slots=getattr(args, "memory_slots", "on") != "off")
        origin = (f"inferred from the trace's task attempts: {counted(len(cluster.trackers), 'host')}, slots = peak concurrent "
                  "attempts per host, as validate does")
        return ClusterChoice(cluster, origin, inferred=True, notes=zero_slot_notes(cluster))
    why = "synthetic trace" if hosts else "the trace names no hosts"
    cluster = build_cluster(args, conf)
    slots = "" if args.map_slots or args.reduce_slots or args.mapred_site else f", {conf.map_slots}+{conf.reduce_slots} slots"
    return ClusterChoice(cluster, f"default {DEFAULT_NODES} nodes{slots} ({why}; give --nodes, --cluster or --topology)")


def build_cluster(args: Any, conf: HadoopConf, notes: list[str] | None = None) -> ClusterSpec:
    """The cluster of the flags (``--cluster``, ``--topology``, ``--nodes``...); what reading a cluster file assumed
    is appended to ``notes``."""
    cluster = _build_cluster(args, conf, notes)
    cpu_model = getattr(args, "cpu_model", None)
    return cluster if cpu_model is None else build_cluster_cpu_model(cluster, cpu_model)


def build_cluster_cpu_model(cluster: ClusterSpec, cpu_model: str) -> ClusterSpec:
    """``--cpu-model`` overrides every node's cpu_model (TrackerSpec validates the combination)."""
    return dataclasses.replace(
        cluster, trackers=tuple(dataclasses.replace(t, cpu_model=str(cpu_model)) for t in cluster.trackers))


def _build_cluster(args: Any, conf: HadoopConf, notes: list[str] | None = None) -> ClusterSpec:
    from mrsim.model.cluster import cluster_from_rumen_topology, load_cluster_file, uniform_cluster
    from mrsim.profiler.rumen import read_rumen_topology

    sources = [x for x in (args.cluster, args.topology) if x]
    if len(sources) > 1:
        raise OptionError("give at most one of {cluster} and {topology}")
    overrides = {"map_slots": conf.map_slots, "reduce_slots": conf.reduce_slots, "cores": args.cores}
    if args.cluster:
        if args.nodes is not None:
            raise OptionError("{nodes} cannot be combined with {cluster} (the file lists the nodes)")
        return load_cluster_file(args.cluster, overrides if (args.map_slots or args.reduce_slots or args.cores
                                                             or args.mapred_site) else None, notes)
    if args.topology:
        if args.nodes is not None:
            raise OptionError("{nodes} cannot be combined with {topology} (the topology lists the hosts)")
        return cluster_from_rumen_topology(read_rumen_topology(args.topology), args.topology, overrides)
    return uniform_cluster(args.nodes if args.nodes is not None else 64, conf.map_slots, conf.reduce_slots,
                           args.cores if args.cores is not None else 4, args.racks or 1)


def heartbeat_origin(args: Any, conf: HadoopConf, n_trackers: int,
                     conf_from_trace: dict[str, str] | None = None, options: Any = None, engine: str = "mr1") -> str:
    """Where the heartbeat interval came from, for :func:`assumption_line`. ``options``: the run's
    ``ReplayOptions`` (its calibration may have measured the interval); ``engine``: ``yarn`` for YARN mode, whose
    interval is the NodeManagers'."""
    if getattr(args, "heartbeat_interval", None) is not None:
        return "--heartbeat-interval"
    if engine == "yarn":
        return "NodeManager heartbeat, yarn.resourcemanager.nodemanagers.heartbeat-interval-ms"
    if options is not None:
        if options.requested_interval() is not None:
            return f"calibration: {options.calibration.heartbeat_source}"
    version = conf.version.value
    formula = conf.version.formula
    by = "--hadoop-version" if getattr(args, "hadoop_version", None) else "default --hadoop-version"
    why = conf.version_origin or f"{by} {version}"
    keys = ""
    hb_keys = [k for k in (conf_from_trace or {}) if "heartbeat" in k]
    if hb_keys:
        keys = ", heartbeat keys from the trace's job conf"
    elif getattr(args, "mapred_site", None):
        keys = f", keys of {args.mapred_site}"
    return f"Hadoop {version} formula {formula} for N={n_trackers} trackers ({why}{keys})"


def assumption_line(command: str, cluster_text: str, cluster_origin: str, spec: dict, heartbeat_from: str) -> str:
    """``mrsim <command>: cluster ... (origin); heartbeat ... (origin)`` as printed on stderr."""
    interval = spec.get("heartbeat_interval_s")
    if spec.get("mode") == "task":
        hb = "no heartbeats (task-completion driven, --heartbeat-interval off)"
    else:
        hb = f"heartbeat {interval:g} s ({heartbeat_from})"
    return f"mrsim {command}: cluster {cluster_text} ({cluster_origin}); {hb}"

