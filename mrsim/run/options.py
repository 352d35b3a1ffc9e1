"""Building a run's inputs from its :class:`~mrsim.model.runspec.RunSpec`: the Hadoop configuration, the replay
options, the scheduler's configuration, the workload's demands and its datacenter placement.

Used by :mod:`mrsim.run.execute` for ``replay``, ``validate`` and ``compare`` (the API and the command line alike).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrsim.errors import InputError, OptionError, OptionUsageError

if TYPE_CHECKING:  # the engine, the cluster model and numpy: imported when a run builds them
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.tracker.replay_options import ReplayOptions

#: One day: a longer heartbeat is a typo, and ``inf`` would break the phase draw.
MAX_HEARTBEAT_INTERVAL_S = 86400.0
#: 1 ms: a shorter interval would emulate billions of heartbeats over a day-long trace (a hang), and one as small
#: as 5e-324 s overflows the engine's heartbeat counts.
MIN_HEARTBEAT_INTERVAL_S = 1e-3
#: The resources CA-FIFO keeps thresholds for (``schedulers/cafifo.py``: DEFAULT_THRESHOLDS).
THRESHOLD_RESOURCES = ("cpu", "disk")


def build_conf(args: Any) -> HadoopConf:
    from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion, conf_from_mapred_site, validate_conf

    from mrsim.model.yarn_version import parse_yarn_version

    # a 2.x/3.x value is YARN mode's (mrsim.model.yarn_version); the MR1 engine refuses it (engine_choice.use_yarn)
    text = args.hadoop_version if parse_yarn_version(args.hadoop_version) is None else None
    conf = HadoopConf(version=HadoopVersion.parse(text or "1.2"))
    if args.mapred_site:
        conf = conf_from_mapred_site(args.mapred_site, conf)
    conf = conf.with_overrides(
        map_slots=args.map_slots, reduce_slots=args.reduce_slots, slowstart_completed_maps=args.slowstart,
        outofband_heartbeat=True if args.oob_heartbeat else None,
        map_speculative=True if args.speculative else None,
        reduce_speculative=True if args.speculative else None,
    )
    validate_conf(conf, "command line")
    return conf


def build_options(args: Any) -> ReplayOptions:
    from mrsim.tracker.replay_options import ReplayOptions

    interval = None
    if args.heartbeat_interval is not None:
        text = str(args.heartbeat_interval).strip().lower()
        if text in ("off", "0", "none"):
            interval = 0.0
        else:
            try:
                interval = float(text)
            except ValueError:
                raise OptionError(f"{{heartbeat_interval}} expects seconds or 'off', got {args.heartbeat_interval!r}") from None
            if not MIN_HEARTBEAT_INTERVAL_S <= interval <= MAX_HEARTBEAT_INTERVAL_S:
                raise OptionUsageError(f"{{heartbeat_interval}} must be in [{MIN_HEARTBEAT_INTERVAL_S:g}, "
                                 f"{MAX_HEARTBEAT_INTERVAL_S:g}] seconds (or 'off'), got {args.heartbeat_interval!r}")
    return ReplayOptions(heartbeat_interval_s=interval, naive_heartbeats=args.naive_heartbeats, seed=args.seed,
                         contention=args.contention, locality=args.locality, rack_local_slowdown=args.rack_local_slowdown,
                         off_switch_slowdown=args.off_switch_slowdown, job_overheads=not args.no_job_overheads,
                         failed_attempts=not args.no_failed_attempts,
                         memory_slots=getattr(args, "memory_slots", "on") != "off",
                         task_results=getattr(args, "task_results", True))


def scheduler_config(args: Any, scheduler: str | None = None, *, with_file: bool = True) -> dict:
    """The config dict handed to the constructor of the run's scheduler ``scheduler`` (default ``--scheduler`` or
    fifo). ``--scheduler-config NAME=FILE,...`` gives it its own entry's file (:mod:`mrsim.run.scheduler_files`);
    ``with_file=False`` leaves ``config_file`` out (``mrsim compare`` adds one per scheduler)."""
    config: dict = {}
    if with_file and getattr(args, "scheduler_config", None):
        from mrsim.run.scheduler_files import config_files, normalise_name

        chosen = scheduler or getattr(args, "scheduler", None) or "fifo"
        name = normalise_name(chosen if isinstance(chosen, str) else str(getattr(chosen, "name", chosen)))
        files, _notes = config_files(args.scheduler_config, [name])
        if name in files:
            config["config_file"] = files[name]
    if getattr(args, "threshold", None):
        thresholds = {}
        for part in str(args.threshold).split(","):
            name, _, value = part.partition("=")
            if name.strip().lower() not in THRESHOLD_RESOURCES:
                raise OptionUsageError(f"{{threshold}} {part.strip()!r}: unknown resource {name.strip()!r} (CA-FIFO keeps "
                                 f"thresholds for {' and '.join(THRESHOLD_RESOURCES)})")
            try:
                thresholds[name.strip()] = float(value)
            except ValueError:
                raise OptionError(f"{{threshold}} expects RES=U pairs like cpu=0.7,disk=0.75, got {args.threshold!r}") from None
            if not 0 < thresholds[name.strip()] <= 1.5:
                raise OptionError(f"{{threshold}} {name.strip()}={value}: expected a utilization in (0, 1.5]")
        config["thresholds"] = thresholds
    if getattr(args, "cafifo_admission", None):
        config["admission"] = args.cafifo_admission
    return config


def load_replay_workload(args: Any, trace: str):
    """The workload for a replay: any format, plus service demands when ``--demands`` asks for them."""
    from mrsim.profiler.workloads import load_workload

    return attach_demands(args, load_workload(trace, getattr(args, "format", None)), trace)


def attach_demands(args: Any, workload, trace: str):
    """Apply ``--demands counters|FILE`` (and ``--disk-mb-s``) to a loaded workload; unchanged without them."""
    demands = getattr(args, "demands", None) or []
    if not demands:
        if getattr(args, "disk_mb_s", None) is not None:
            raise OptionError("{disk_mb_s} needs {demands} counters")
        return workload
    from mrsim.model.demands import DEFAULT_DISK_MB_S, apply_demand_table, load_demand_table
    from mrsim.profiler.demands import apply_trace_demands

    tables = [d for d in demands if d != "counters"]
    if len(tables) > 1:
        raise OptionError("give at most one demand table with {demands} FILE")
    disk = args.disk_mb_s if args.disk_mb_s is not None else DEFAULT_DISK_MB_S
    if not disk > 0:
        raise OptionError("{disk_mb_s} must be positive")
    if "counters" in demands:
        workload = apply_trace_demands(workload, trace, disk_mb_s=disk, fmt=getattr(args, "format", None))
    if tables:
        workload = apply_demand_table(workload, load_demand_table(tables[0]), source=tables[0])
    return workload


def apply_placement(args: Any, workload, cluster: ClusterSpec):
    """Place ``workload`` on ``cluster`` per ``--placement``; returns ``(workload, report or None)``.

    ``report`` is None on one-site clusters (nothing to place); ``--placement`` other than auto, ``--rack-map``
    or ``--placement-skew`` there are errors, as are a skew without zipf and a rack map without racks.
    """
    text = getattr(args, "placement", "auto") or "auto"
    skew = getattr(args, "placement_skew", None)
    rack_map_text = getattr(args, "rack_map", None)
    if not cluster.datacenters and str(text).strip().lower() == "auto" and skew is None and not rack_map_text:
        return workload, None  # one site, no placement flag: nothing to place or refuse (no placement import)
    from mrsim.studies.federation.placement import PlacementPolicy, PlacementSpec, parse_rack_map, place_workload

    policy = PlacementPolicy.parse(text)
    if not cluster.datacenters:
        for flag, given in (("--placement " + policy.value, policy is not PlacementPolicy.AUTO),
                            ("--placement-skew", skew is not None), ("--rack-map", bool(rack_map_text))):
            if given:
                raise InputError(f"{flag}: the cluster is not a federation (use a cluster file with [[datacenters]]; "
                                 "see docs/cluster.md)")
        return workload, None
    if skew is not None and policy is not PlacementPolicy.ZIPF:
        raise OptionError("{placement_skew} needs {placement} zipf")
    if rack_map_text and policy is not PlacementPolicy.RACKS:
        raise OptionError("{rack_map} needs {placement} racks")
    spec = PlacementSpec(policy, 1.0 if skew is None else skew, parse_rack_map(rack_map_text, cluster.datacenters),
                         seed=args.seed)
    return place_workload(workload, cluster, spec)
