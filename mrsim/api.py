"""The Python API: replay, validate and compare a trace from a notebook, with pandas results (docs/api.md).

>>> import mrsim
>>> run = mrsim.replay("trace.json.gz", scheduler="fair", nodes=32, map_slots=2)   # doctest: +SKIP
>>> run.jobs.head(); run.summary["mean_completion_s"]; run.to_html("report.html")  # doctest: +SKIP

Every option is a named keyword argument (``help(mrsim.replay)`` lists them, with units), the long flag of the
matching command with dashes as underscores (``map_slots=2`` is ``--map-slots 2``, ``heartbeat_interval="off"``),
and takes the flag's default when omitted; an unknown name is Python's ``TypeError``. The arguments become one
frozen :class:`~mrsim.model.runspec.RunSpec` (modes as enums, :mod:`mrsim.model.modes`; their texts are accepted
too), run by :mod:`mrsim.run.execute` as the CLI's commands run theirs, so a command and its API call give the same
``summary`` (tested). What a run assumed (cluster and heartbeat, and where each came from) is announced on stderr
unless ``quiet=True``; it is also kept in ``run.assumptions``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, TypeVar

from mrsim.model.modes import (Admission, BackgroundMode, CalibrationPart, Contention, CpuModel, Engine, Locality,
                               Placement, Switch)
from mrsim.model.runspec import RunSpec
from mrsim.run.execute import (RunContext, announce_once, early_announcer, execute_compare, execute_replay,
                               execute_validate)
from mrsim.run.results import LOCALITY_LEVELS, ComparisonRun, Run, Trace, ValidationRun  # noqa: F401 - the API's results

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.templates import Workload

F = TypeVar("F", bound=Callable[..., Any])



# --------------------------------------------------------------------------------------------- public API


def load(trace: "str | os.PathLike[str] | Workload | Trace | None" = None, format: str | None = None) -> Trace:
    """Read ``trace`` (any supported format, detected from content unless ``format`` names it; a trace store or a
    job spec; default: the bundled trace) into a :class:`~mrsim.run.results.Trace`.

    The result has ``.jobs`` (one row per job) and ``.tasks`` (one row per task) as pandas DataFrames,
    ``.to_frame()`` (a copy of ``.jobs``), ``.templates`` (the job templates), ``.workload`` and ``.warnings``. It
    can be passed to :func:`replay` and :func:`compare` in place of the path: the run is then the path's run.
    Cost: one parse of the input (or a trace-cache hit).
    """
    from mrsim.model.templates import Workload
    from mrsim.profiler.workloads import default_trace_path, load_workload

    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, Workload):
        return Trace(trace)
    path = str(trace) if trace is not None else str(default_trace_path())
    return Trace(load_workload(path, format), path, format)



#: The docstring lines of the options the three calls share, by group (appended by :func:`_documented`).
_CLUSTER_DOC = """
    Cluster (without any of these a real trace runs on the cluster inferred from its hosts, a synthetic one on 64
    nodes of 2 map + 2 reduce slots):
        cluster: a :class:`~mrsim.model.cluster.ClusterSpec`, or a cluster file (TOML/JSON, SLS node file).
        nodes: TaskTrackers; on a real trace the first N of its hosts, or copies of them, with their slots.
        map_slots, reduce_slots: slots per TaskTracker (default 2, or mapred-site.xml's; they override an inferred
            cluster's per-host counts).
        cores: cores per TaskTracker (default 4). racks: racks for ``nodes`` (default 1).
        topology: a Rumen topology JSON (one TaskTracker per host). mapred_site: a mapred-site.xml (slots, slow
            start, heartbeat keys)."""
_ENGINE_DOC = """
    Engine:
        engine: :class:`~mrsim.model.modes.Engine` ``"auto"`` (YARN for Hadoop 2/3 inputs), ``"yarn"`` or ``"mr1"``.
        yarn_site: a yarn-site.xml for YARN mode.
        hadoop_version: the heartbeat formula's Hadoop line: ``"0.20"``, ``"1.0"``, ``"1.2"`` (default), or in YARN
            mode ``"2.x"`` / ``"3.x"``.
        heartbeat_interval: seconds, or ``"off"`` for SimMR's task-completion-driven mode; default: Hadoop's
            formula, or the trace's calibration.
        oob_heartbeat: an out-of-band heartbeat when a task finishes.
        seed: master random seed (heartbeat phases, sampled lags); the same inputs and seed give the same run.
        slowstart: mapred.reduce.slowstart.completed.maps, a fraction of the maps (default 0.05).
        speculative: speculative execution of maps and reduces (Hadoop 1.x's rules).
        no_job_overheads: ignore the trace's job launch delays and setup/cleanup tasks.
        no_failed_attempts: do not replay the trace's failed/killed attempts.
        memory_slots: :class:`~mrsim.model.modes.Switch` ``"on"`` (a high-RAM job's task takes several slots) or
            ``"off"``.
        naive_heartbeats: emulate every heartbeat (slow; identical results).
        locality: :class:`~mrsim.model.modes.Locality` ``"auto"``, ``"on"`` or ``"off"`` (map split locations).
        rack_local_slowdown, off_switch_slowdown: factors on rack-local / off-switch map durations (default 1).
        contention: :class:`~mrsim.model.modes.Contention` ``"none"`` (trace durations) or ``"tdam"`` (per-node
            queueing model; needs service demands).
        cpu_model: :class:`~mrsim.model.modes.CpuModel` ``"seidmann"`` or ``"exact"`` (TDAM's m-core CPU).
        demands: ``"counters"`` (the trace's CPU and byte counters) and/or a demand table file (a list for both).
        disk_mb_s: disk bandwidth (MB/s) turning counter bytes into disk demand (default 100).
        scheduler_config: a Fair/Capacity allocation file, ``"fair=F.xml,capacity=C.xml"`` or a mapping
            ``{"fair": "F.xml"}``.
        threshold: CA-FIFO utilization thresholds, ``"cpu=0.7,disk=0.75"``.
        cafifo_admission: :class:`~mrsim.model.modes.Admission` ``"current"`` or ``"predicted"`` (CA-FIFO).
    Calibration (docs/calibration.md):
        calibration_from: measure the cluster's overheads from this calibration TOML, trace, log or store.
        no_calibration: replay tasks without launch/report lags and the trace's heartbeat interval.
        calibration_parts: the :class:`~mrsim.model.modes.CalibrationPart` terms to replay (names, or one
            comma-separated text; default all).
        background: :class:`~mrsim.model.modes.BackgroundMode` ``"trace"`` (slots held by work outside the trace,
            estimated from it) or ``"none"``.
    Input and output:
        format: force the input format (``"rumen"``, ``"jobhistory"``, ``"jhist"``, ``"sls"``, ``"swim"``,
            ``"store"``, ``"jobspec"``).
        quiet: True silences stderr; ``"warning"`` keeps only warnings."""
_WHATIF_DOC = """
    What-ifs (docs/what-if-load.md, docs/geo.md):
        deadline_factor: draw each job's deadline in [T, DF x T], T = its completion alone (SimMR section V-B).
        load_scale: F times the load (every inter-arrival gap x 1/F). duration: fold the trace into this many
            seconds (needs input_cycle). input_cycle: seconds per cycle overlaid. concentration: Folder's
            -concentration.
        placement: :class:`~mrsim.model.modes.Placement` of maps in a federation's datacenters: ``"auto"``,
            ``"uniform"``, ``"zipf"`` or ``"racks"``; placement_skew: the Zipf skew; rack_map: ``"/R1=DC1,..."``."""


def _documented(*blocks: str) -> Callable[[F], F]:
    """Append the shared option blocks to a function's docstring (``help()`` then lists every keyword)."""
    def wrap(fn: F) -> F:
        fn.__doc__ = (fn.__doc__ or "").rstrip() + "\n" + "".join(blocks) + "\n"
        return fn

    return wrap


def _run_spec(trace: Any, cluster: Any, **fields: Any) -> tuple[RunSpec, "ClusterSpec | None", "Workload | None"]:
    """The RunSpec of the call's keyword arguments, the cluster given as a value (a path becomes ``cluster``), and
    the workload given in place of a trace (a :func:`load` result keeps its path: the run is the path's run)."""
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.templates import Workload

    if isinstance(trace, Trace):
        if trace.path is not None and fields.get("format") is None:
            fields["format"] = trace.format
        trace = trace.path if trace.path is not None else trace.workload
    workload = trace if isinstance(trace, Workload) else None
    given_cluster = cluster if isinstance(cluster, ClusterSpec) else None
    if cluster is not None and given_cluster is None:
        fields["cluster"] = str(cluster)
    for key in ("topology", "mapred_site", "calibration_from"):
        if fields.get(key) is not None:
            fields[key] = str(fields[key])
    fields["trace"] = None if trace is None or workload is not None else str(trace)
    return RunSpec(**fields), given_cluster, workload


def _run(execute: Callable[..., Any], quiet: "bool | str", spec: RunSpec, cluster: "ClusterSpec | None",
         workload: "Workload | None") -> Any:
    printed, early = early_announcer(quiet)
    progress = quiet is not True and quiet != "error"
    run = execute(spec, cluster, ctx=RunContext(workload=workload, early=early, progress=progress))
    announce_once(run.assumptions, run.notes, quiet, printed)
    return run


@_documented(_CLUSTER_DOC, _ENGINE_DOC, _WHATIF_DOC)
def replay(trace: "str | os.PathLike[str] | Workload | Trace | None" = None, scheduler: Any = "fifo",
           cluster: "ClusterSpec | str | os.PathLike[str] | None" = None, *,
           nodes: int | None = None, map_slots: int | None = None, reduce_slots: int | None = None,
           cores: int | None = None, racks: int | None = None, topology: "str | os.PathLike[str] | None" = None,
           mapred_site: "str | os.PathLike[str] | None" = None,
           engine: "Engine | str" = Engine.AUTO, yarn_site: "str | os.PathLike[str] | None" = None,
           hadoop_version: str | None = None, heartbeat_interval: "float | str | None" = None,
           oob_heartbeat: bool = False, seed: int = 0, slowstart: float | None = None, speculative: bool = False,
           no_job_overheads: bool = False, no_failed_attempts: bool = False,
           memory_slots: "Switch | str" = Switch.ON, naive_heartbeats: bool = False,
           locality: "Locality | str" = Locality.AUTO, rack_local_slowdown: float = 1.0,
           off_switch_slowdown: float = 1.0, contention: "Contention | str" = Contention.NONE,
           cpu_model: "CpuModel | str | None" = None, demands: "str | Sequence[str] | None" = None,
           disk_mb_s: float | None = None, scheduler_config: "str | Mapping[str, str] | None" = None,
           threshold: str | None = None, cafifo_admission: "Admission | str | None" = None,
           calibration_from: "str | os.PathLike[str] | None" = None, no_calibration: bool = False,
           calibration_parts: "Sequence[CalibrationPart | str] | str | None" = None,
           background: "BackgroundMode | str" = BackgroundMode.NONE,
           deadline_factor: float | None = None, load_scale: float | None = None, duration: float | None = None,
           input_cycle: float | None = None, concentration: float | None = None,
           placement: "Placement | str" = Placement.AUTO, placement_skew: float | None = None,
           rack_map: str | None = None, format: str | None = None, quiet: "bool | str" = False) -> Run:
    """Replay ``trace`` under ``scheduler`` and return a :class:`~mrsim.run.results.Run` (``mrsim replay``).

    Args:
        trace: a path (any supported format), a :func:`load` result or a ``Workload``; None: the bundled trace.
        scheduler: a registered name (``mrsim schedulers``), ``"module:Class"``, a plug-in class or an instance.

    Returns:
        a Run: ``.jobs`` / ``.tasks`` DataFrames, ``.summary`` (the ``--json`` summary), ``.spec``,
        ``.warnings``, ``.assumptions``, ``.notes``, ``.to_json_dict()``, ``.to_html(path)``.
    Raises:
        mrsim.errors.InputError: bad input (the message is the CLI's error line, naming the keyword argument for
        a value no mode has); TypeError: an unknown keyword argument.
    """
    spec, given, workload = _run_spec(
        trace, cluster, scheduler=scheduler, nodes=nodes, map_slots=map_slots, reduce_slots=reduce_slots,
        cores=cores, racks=racks, topology=topology, mapred_site=mapred_site, engine=engine, yarn_site=yarn_site,
        hadoop_version=hadoop_version, heartbeat_interval=heartbeat_interval, oob_heartbeat=oob_heartbeat,
        seed=seed, slowstart=slowstart, speculative=speculative, no_job_overheads=no_job_overheads,
        no_failed_attempts=no_failed_attempts, memory_slots=memory_slots, naive_heartbeats=naive_heartbeats,
        locality=locality, rack_local_slowdown=rack_local_slowdown, off_switch_slowdown=off_switch_slowdown,
        contention=contention, cpu_model=cpu_model, demands=demands, disk_mb_s=disk_mb_s,
        scheduler_config=scheduler_config, threshold=threshold, cafifo_admission=cafifo_admission,
        calibration_from=calibration_from, no_calibration=no_calibration, **_parts(calibration_parts),
        background=background, deadline_factor=deadline_factor, load_scale=load_scale, duration=duration,
        input_cycle=input_cycle, concentration=concentration, placement=placement, placement_skew=placement_skew,
        rack_map=rack_map, format=format)
    return _run(execute_replay, quiet, spec, given, workload)


@_documented(_CLUSTER_DOC, _ENGINE_DOC)
def validate(trace: "str | os.PathLike[str]", *, scheduler: Any = None, isolate: bool = False,
             ignore_trace_conf: bool = False,
             cluster: "ClusterSpec | str | os.PathLike[str] | None" = None,
             nodes: int | None = None, map_slots: int | None = None, reduce_slots: int | None = None,
             cores: int | None = None, racks: int | None = None, topology: "str | os.PathLike[str] | None" = None,
             mapred_site: "str | os.PathLike[str] | None" = None,
             engine: "Engine | str" = Engine.AUTO, yarn_site: "str | os.PathLike[str] | None" = None,
             hadoop_version: str | None = None, heartbeat_interval: "float | str | None" = None,
             oob_heartbeat: bool = False, seed: int = 0, slowstart: float | None = None, speculative: bool = False,
             no_job_overheads: bool = False, no_failed_attempts: bool = False,
             memory_slots: "Switch | str" = Switch.ON, naive_heartbeats: bool = False,
             locality: "Locality | str" = Locality.AUTO, rack_local_slowdown: float = 1.0,
             off_switch_slowdown: float = 1.0, contention: "Contention | str" = Contention.NONE,
             cpu_model: "CpuModel | str | None" = None, demands: "str | Sequence[str] | None" = None,
             disk_mb_s: float | None = None, scheduler_config: "str | Mapping[str, str] | None" = None,
             threshold: str | None = None, cafifo_admission: "Admission | str | None" = None,
             calibration_from: "str | os.PathLike[str] | None" = None, no_calibration: bool = False,
             calibration_parts: "Sequence[CalibrationPart | str] | str | None" = None,
             background: "BackgroundMode | str" = BackgroundMode.TRACE,
             format: str | None = None, quiet: "bool | str" = False) -> ValidationRun:
    """Replay a real trace on the cluster it ran on and score each job against the trace (``mrsim validate``).

    Args:
        trace: a real trace or log (it must record actual completion times).
        scheduler: default: the one the trace's job confs name, else FIFO (Capacity/FIFO in YARN mode).
        isolate: replay every job alone on the cluster instead of all together.
        ignore_trace_conf: do not apply the Hadoop settings the trace's job confs record.
        background: default ``"trace"`` here.

    Returns:
        a ValidationRun: ``.jobs`` (with ``error_pct`` and the error identity's terms), ``.tasks`` (shared
        mode), ``.summary``, ``.spec``, ``.warnings``, ``.assumptions``, ``.notes``, ``.to_json_dict()``,
        ``.to_html(path)``.
    Raises:
        mrsim.errors.InputError: bad input; TypeError: an unknown keyword argument.
    """
    spec, given, _ = _run_spec(
        trace, cluster, scheduler=scheduler, isolate=isolate, ignore_trace_conf=ignore_trace_conf, nodes=nodes,
        map_slots=map_slots, reduce_slots=reduce_slots, cores=cores, racks=racks, topology=topology,
        mapred_site=mapred_site, engine=engine, yarn_site=yarn_site, hadoop_version=hadoop_version,
        heartbeat_interval=heartbeat_interval, oob_heartbeat=oob_heartbeat, seed=seed, slowstart=slowstart,
        speculative=speculative, no_job_overheads=no_job_overheads, no_failed_attempts=no_failed_attempts,
        memory_slots=memory_slots, naive_heartbeats=naive_heartbeats, locality=locality,
        rack_local_slowdown=rack_local_slowdown, off_switch_slowdown=off_switch_slowdown, contention=contention,
        cpu_model=cpu_model, demands=demands, disk_mb_s=disk_mb_s, scheduler_config=scheduler_config,
        threshold=threshold, cafifo_admission=cafifo_admission, calibration_from=calibration_from,
        no_calibration=no_calibration, **_parts(calibration_parts), background=background, format=format)
    return _run(execute_validate, quiet, spec, given, None)


@_documented(_CLUSTER_DOC, _ENGINE_DOC, _WHATIF_DOC)
def compare(trace: "str | os.PathLike[str] | Workload | Trace | None" = None,
            schedulers: Sequence[str] | str = ("fifo", "fair", "capacity"), *,
            replications: int = 1, cluster: "ClusterSpec | str | os.PathLike[str] | None" = None,
            nodes: int | None = None, map_slots: int | None = None, reduce_slots: int | None = None,
            cores: int | None = None, racks: int | None = None, topology: "str | os.PathLike[str] | None" = None,
            mapred_site: "str | os.PathLike[str] | None" = None,
            engine: "Engine | str" = Engine.AUTO, yarn_site: "str | os.PathLike[str] | None" = None,
            hadoop_version: str | None = None, heartbeat_interval: "float | str | None" = None,
            oob_heartbeat: bool = False, seed: int = 0, slowstart: float | None = None, speculative: bool = False,
            no_job_overheads: bool = False, no_failed_attempts: bool = False,
            memory_slots: "Switch | str" = Switch.ON, naive_heartbeats: bool = False,
            locality: "Locality | str" = Locality.AUTO, rack_local_slowdown: float = 1.0,
            off_switch_slowdown: float = 1.0, contention: "Contention | str" = Contention.NONE,
            cpu_model: "CpuModel | str | None" = None, demands: "str | Sequence[str] | None" = None,
            disk_mb_s: float | None = None, scheduler_config: "str | Mapping[str, str] | None" = None,
            threshold: str | None = None, cafifo_admission: "Admission | str | None" = None,
            calibration_from: "str | os.PathLike[str] | None" = None, no_calibration: bool = False,
            calibration_parts: "Sequence[CalibrationPart | str] | str | None" = None,
            background: "BackgroundMode | str" = BackgroundMode.NONE,
            deadline_factor: float | None = None, load_scale: float | None = None, duration: float | None = None,
            input_cycle: float | None = None, concentration: float | None = None,
            placement: "Placement | str" = Placement.AUTO, placement_skew: float | None = None,
            rack_map: str | None = None, format: str | None = None, quiet: "bool | str" = False) -> ComparisonRun:
    """Replay ``trace`` under each of ``schedulers`` on the same cluster with the same seeds (``mrsim compare``).

    Args:
        trace: a path, a :func:`load` result or a ``Workload``; None: the bundled trace.
        schedulers: names (a list, or one comma-separated string); default Hadoop's three, as ``mrsim compare``.
        replications: runs per scheduler; replication ``r`` uses seed ``seed + r`` for every scheduler.

    Returns:
        a ComparisonRun: ``.table`` (one row per scheduler, flat numeric columns: the metric means over
        replications, NaN where a metric does not apply, ``share_<queue>`` per queue), ``.runs``, ``.results``
        (replication 0 per scheduler), ``.warnings``, ``.assumptions``, ``.notes``, ``.to_json_dict()``,
        ``.to_html(path)``.
    Raises:
        mrsim.errors.InputError: bad input; TypeError: an unknown keyword argument.
    """
    text = schedulers if isinstance(schedulers, str) else ",".join(schedulers)
    spec, given, workload = _run_spec(
        trace, cluster, schedulers=text, replications=replications, nodes=nodes, map_slots=map_slots,
        reduce_slots=reduce_slots, cores=cores, racks=racks, topology=topology, mapred_site=mapred_site,
        engine=engine, yarn_site=yarn_site, hadoop_version=hadoop_version, heartbeat_interval=heartbeat_interval,
        oob_heartbeat=oob_heartbeat, seed=seed, slowstart=slowstart, speculative=speculative,
        no_job_overheads=no_job_overheads, no_failed_attempts=no_failed_attempts, memory_slots=memory_slots,
        naive_heartbeats=naive_heartbeats, locality=locality, rack_local_slowdown=rack_local_slowdown,
        off_switch_slowdown=off_switch_slowdown, contention=contention, cpu_model=cpu_model, demands=demands,
        disk_mb_s=disk_mb_s, scheduler_config=scheduler_config, threshold=threshold,
        cafifo_admission=cafifo_admission, calibration_from=calibration_from, no_calibration=no_calibration,
        **_parts(calibration_parts), background=background, deadline_factor=deadline_factor,
        load_scale=load_scale, duration=duration, input_cycle=input_cycle, concentration=concentration,
        placement=placement, placement_skew=placement_skew, rack_map=rack_map, format=format)
    return _run(execute_compare, quiet, spec, given, workload)


def _parts(parts: "Sequence[CalibrationPart | str] | str | None") -> dict[str, Any]:
    """``calibration_parts`` when given (None keeps the spec's default: every part)."""
    return {} if parts is None else {"calibration_parts": parts}
