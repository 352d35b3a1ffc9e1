"""Command-line options shared by ``replay``, ``validate`` and ``compare``: cluster, Hadoop config, engine."""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from mrsim.errors import InputError, UsageError

if TYPE_CHECKING:  # the engine, the cluster model and numpy: imported when a command builds them, not by its parser
    from mrsim.tracker.replay import ReplayOptions
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.hadoop_conf import HadoopConf

#: One day: a longer heartbeat is a typo, and ``inf`` would break the phase draw.
MAX_HEARTBEAT_INTERVAL_S = 86400.0
#: 1 ms: a shorter interval would emulate billions of heartbeats over a day-long trace (a hang), and one as small
#: as 5e-324 s overflows the engine's heartbeat counts.
MIN_HEARTBEAT_INTERVAL_S = 1e-3
#: The resources CA-FIFO keeps thresholds for (``schedulers/cafifo.py``: DEFAULT_THRESHOLDS).
THRESHOLD_RESOURCES = ("cpu", "disk")


def command_defaults(command: str) -> dict[str, object]:
    """Every option of ``mrsim COMMAND`` (argparse dest) with its default: the keyword options of :mod:`mrsim.api`."""
    import importlib

    from mrsim.cli import _Parser

    module = importlib.import_module(f"mrsim.cli.commands.{command}")
    parser = _Parser(prog=f"mrsim {command}")
    module.add_arguments(parser)
    return {a.dest: a.default for a in parser._actions if a.dest not in ("help", argparse.SUPPRESS)}


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cluster (flags, or a file; flags override file defaults)")
    g.add_argument("--nodes", type=int,
                   help="number of TaskTrackers; without it (and without --cluster or --topology) a real trace runs "
                        "on the cluster inferred from its hosts, a synthetic one on 64. On a real trace --nodes N "
                        "is the first N of its hosts, or copies of them, with their slots (docs/what-if.md)")
    g.add_argument("--map-slots", type=int, help="map slots per TaskTracker (default 2, or mapred-site.xml; on a "
                   "cluster inferred from a trace, each host's peak concurrent maps)")
    g.add_argument("--reduce-slots", type=int, help="reduce slots per TaskTracker (default 2, or mapred-site.xml; "
                   "on a cluster inferred from a trace, each host's peak concurrent reduces)")
    g.add_argument("--cores", type=int, help="cores per TaskTracker (default 4)")
    g.add_argument("--racks", type=int, help="racks for --nodes (default 1: /default-rack; on a real trace: its "
                                                "racks)")
    g.add_argument("--cluster", metavar="FILE", help="cluster file (TOML or JSON, see docs/cluster.md), or an SLS "
                   "node file (nodes.json: racks, nodes and per-node resources)")
    g.add_argument("--topology", metavar="FILE", help="Rumen topology JSON: one TaskTracker per host")
    g.add_argument("--mapred-site", metavar="FILE", help="mapred-site.xml: slots, slow start, heartbeat keys")


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("engine")
    g.add_argument("--hadoop-version", default=None,
                   help="heartbeat formula: 0.20 (max(3 s, ceil(N/100) s)), 1.0, or 1.2/1.x (max(0.3 s, 10 ms x N)); default 1.2. "
                        "In YARN mode: 2.x or 3.x (e.g. 2.7, 3.3), where their schedulers differ (docs/yarn.md)")
    g.add_argument("--heartbeat-interval", metavar="S|off",
                   help="override the heartbeat interval (seconds), or 'off' for SimMR's task-completion-driven mode")
    g.add_argument("--oob-heartbeat", action="store_true",
                   help="out-of-band heartbeat when a task finishes (mapreduce.tasktracker.outofband.heartbeat)")
    g.add_argument("--no-job-overheads", action="store_true",
                   help="ignore the trace's job launch delays and setup/cleanup tasks (SimMR's task-only replay)")
    g.add_argument("--memory-slots", choices=("on", "off"), default="on",
                   help="memory-based scheduling: a high-RAM job's task takes ceil(job MB / slot MB) slots when the "
                        "job confs set slot memory (default on; off: one slot per task, also in the inferred cluster)")
    g.add_argument("--no-failed-attempts", action="store_true",
                   help="do not replay the trace's failed/killed attempts (by default they hold slots, then fail)")
    g.add_argument("--speculative", action="store_true",
                   help="speculative execution of maps and reduces with Hadoop 1.x's rules (default off; or the "
                        "mapred.*.tasks.speculative.execution keys of --mapred-site)")
    g.add_argument("--slowstart", type=float, metavar="F",
                   help="mapred.reduce.slowstart.completed.maps (default 0.05)")
    g.add_argument("--naive-heartbeats", action="store_true",
                   help="emulate every heartbeat (slow; results are identical to the default)")
    g.add_argument("--seed", type=int, default=0, help="master random seed (default 0)")
    g.add_argument("--locality", choices=["auto", "on", "off"], default="auto",
                   help="honour map split locations: auto (when they name cluster hosts; default), on (also: maps "
                        "without locations are off-switch, as Hadoop's nonLocalMaps), off")
    g.add_argument("--rack-local-slowdown", type=float, default=1.0, metavar="X",
                   help="multiply rack-local map durations by X (default 1: trace durations)")
    g.add_argument("--off-switch-slowdown", type=float, default=1.0, metavar="X",
                   help="multiply off-switch map durations by X (default 1; Mumak used 3 relative to node-local)")
    g.add_argument("--contention", choices=["none", "tdam"], default="none",
                   help="task durations: none = from the trace (default); tdam = per-node queueing model (needs service demands)")
    g.add_argument("--cpu-model", choices=["seidmann", "exact"], default=None,
                   help="--contention tdam: solve each node's m-core CPU by Seidmann's approximation (the "
                        "dissertation's; default, or the cluster file's cpu_model) or exactly (multi-server MVA)")
    g.add_argument("--demands", action="append", metavar="counters|FILE",
                   help="per-task service demands for --contention tdam: 'counters' (CPU ms and bytes from the trace's "
                        "counters) and/or a demand table FILE (TOML or CSV, job name -> demands); repeatable")
    g.add_argument("--disk-mb-s", type=float, default=None, metavar="MB/S",
                   help="disk bandwidth turning counter bytes into disk demand (default 100 MB/s)")
    g.add_argument("--scheduler-config", metavar="FILE|NAME=FILE,...",
                   help="scheduler configuration file (fair: allocation XML; capacity: capacity-scheduler.xml), or "
                        "one per scheduler: fair=F.xml,capacity=C.xml")
    g.add_argument("--threshold", metavar="RES=U,...",
                   help="CA-FIFO utilization thresholds, e.g. cpu=0.7,disk=0.75")
    g.add_argument("--cafifo-admission", choices=["current", "predicted"], default=None,
                   help="CA-FIFO's admission test (Algorithm 9): current = admit while the node's current "
                        "utilization is below the threshold (default, the literal reading); predicted = while "
                        "its utilization with the task added stays below it")


def build_conf(args: argparse.Namespace) -> HadoopConf:
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


def build_cluster(args: argparse.Namespace, conf: HadoopConf, notes: list[str] | None = None) -> ClusterSpec:
    """The cluster of the flags (``--cluster``, ``--topology``, ``--nodes``...); what reading a cluster file assumed
    is appended to ``notes``."""
    cluster = _build_cluster(args, conf, notes)
    cpu_model = getattr(args, "cpu_model", None)
    return cluster if cpu_model is None else build_cluster_cpu_model(cluster, cpu_model)


def build_cluster_cpu_model(cluster: ClusterSpec, cpu_model: str) -> ClusterSpec:
    """``--cpu-model`` overrides every node's cpu_model (TrackerSpec validates the combination)."""
    return dataclasses.replace(
        cluster, trackers=tuple(dataclasses.replace(t, cpu_model=cpu_model) for t in cluster.trackers))


def _build_cluster(args: argparse.Namespace, conf: HadoopConf, notes: list[str] | None = None) -> ClusterSpec:
    from mrsim.profiler.rumen import read_rumen_topology
    from mrsim.model.cluster import cluster_from_rumen_topology, load_cluster_file, uniform_cluster

    sources = [x for x in (args.cluster, args.topology) if x]
    if len(sources) > 1:
        raise InputError("give at most one of --cluster and --topology")
    overrides = {"map_slots": conf.map_slots, "reduce_slots": conf.reduce_slots, "cores": args.cores}
    if args.cluster:
        if args.nodes is not None:
            raise InputError("--nodes cannot be combined with --cluster (the file lists the nodes)")
        return load_cluster_file(args.cluster, overrides if (args.map_slots or args.reduce_slots or args.cores
                                                             or args.mapred_site) else None, notes)
    if args.topology:
        if args.nodes is not None:
            raise InputError("--nodes cannot be combined with --topology (the topology lists the hosts)")
        return cluster_from_rumen_topology(read_rumen_topology(args.topology), args.topology, overrides)
    return uniform_cluster(args.nodes if args.nodes is not None else 64, conf.map_slots, conf.reduce_slots,
                           args.cores if args.cores is not None else 4, args.racks or 1)


def build_options(args: argparse.Namespace) -> ReplayOptions:
    from mrsim.tracker.replay import ReplayOptions

    interval = None
    if args.heartbeat_interval is not None:
        text = str(args.heartbeat_interval).strip().lower()
        if text in ("off", "0", "none"):
            interval = 0.0
        else:
            try:
                interval = float(text)
            except ValueError:
                raise InputError(f"--heartbeat-interval expects seconds or 'off', got {args.heartbeat_interval!r}") from None
            if not MIN_HEARTBEAT_INTERVAL_S <= interval <= MAX_HEARTBEAT_INTERVAL_S:
                raise UsageError(f"--heartbeat-interval must be in [{MIN_HEARTBEAT_INTERVAL_S:g}, "
                                 f"{MAX_HEARTBEAT_INTERVAL_S:g}] seconds (or 'off'), got {args.heartbeat_interval!r}")
    contention = None if args.contention == "none" else args.contention
    return ReplayOptions(heartbeat_interval_s=interval, naive_heartbeats=args.naive_heartbeats, seed=args.seed,
                         contention=contention, locality=args.locality, rack_local_slowdown=args.rack_local_slowdown,
                         off_switch_slowdown=args.off_switch_slowdown, job_overheads=not args.no_job_overheads,
                         failed_attempts=not args.no_failed_attempts,
                         memory_slots=getattr(args, "memory_slots", "on") != "off",
                         task_results=getattr(args, "task_results", True))


def scheduler_config(args: argparse.Namespace, scheduler: str | None = None, *, with_file: bool = True) -> dict:
    """The config dict handed to the constructor of the run's scheduler ``scheduler`` (default ``--scheduler`` or
    fifo). ``--scheduler-config NAME=FILE,...`` gives it its own entry's file (:mod:`mrsim.cli.scheduler_files`);
    ``with_file=False`` leaves ``config_file`` out (``mrsim compare`` adds one per scheduler)."""
    config: dict = {}
    if with_file and getattr(args, "scheduler_config", None):
        from mrsim.cli.scheduler_files import config_files, normalise_name

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
                raise UsageError(f"--threshold {part.strip()!r}: unknown resource {name.strip()!r} (CA-FIFO keeps "
                                 f"thresholds for {' and '.join(THRESHOLD_RESOURCES)})")
            try:
                thresholds[name.strip()] = float(value)
            except ValueError:
                raise InputError(f"--threshold expects RES=U pairs like cpu=0.7,disk=0.75, got {args.threshold!r}") from None
            if not 0 < thresholds[name.strip()] <= 1.5:
                raise InputError(f"--threshold {name.strip()}={value}: expected a utilization in (0, 1.5]")
        config["thresholds"] = thresholds
    if getattr(args, "cafifo_admission", None):
        config["admission"] = args.cafifo_admission
    return config


def load_replay_workload(args: argparse.Namespace, trace: str):
    """The workload for a replay: any format, plus service demands when ``--demands`` asks for them."""
    from mrsim.profiler.workloads import load_workload

    return attach_demands(args, load_workload(trace, getattr(args, "format", None)), trace)


def attach_demands(args: argparse.Namespace, workload, trace: str):
    """Apply ``--demands counters|FILE`` (and ``--disk-mb-s``) to a loaded workload; unchanged without them."""
    demands = getattr(args, "demands", None) or []
    if not demands:
        if getattr(args, "disk_mb_s", None) is not None:
            raise InputError("--disk-mb-s needs --demands counters")
        return workload
    from mrsim.model.demands import DEFAULT_DISK_MB_S, apply_demand_table, apply_trace_demands, load_demand_table

    tables = [d for d in demands if d != "counters"]
    if len(tables) > 1:
        raise InputError("give at most one demand table with --demands FILE")
    disk = args.disk_mb_s if args.disk_mb_s is not None else DEFAULT_DISK_MB_S
    if not disk > 0:
        raise InputError("--disk-mb-s must be positive")
    if "counters" in demands:
        workload = apply_trace_demands(workload, trace, disk_mb_s=disk, fmt=getattr(args, "format", None))
    if tables:
        workload = apply_demand_table(workload, load_demand_table(tables[0]), source=tables[0])
    return workload


def add_placement_arguments(p: argparse.ArgumentParser) -> None:
    """Flags that place a workload's tasks in the datacenters of a federated cluster (docs/geo.md)."""
    g = p.add_argument_group("federations (cluster files with [[datacenters]]; docs/geo.md)")
    g.add_argument("--placement", choices=["auto", "uniform", "zipf", "racks"], default="auto",
                   help="datacenter of each map of jobs without a placement: auto (default: keep the input's, "
                        "uniform for the rest), uniform, zipf (per-job random ranking, weight rank^-skew) or racks "
                        "(rack of the first split location); seeded by --seed; jobs that carry one keep it")
    g.add_argument("--placement-skew", type=float, default=None, metavar="S",
                   help="Zipf skew for --placement zipf (default 1.0; 0 = uniform)")
    g.add_argument("--rack-map", metavar="/R1=DC1,...",
                   help="for --placement racks: rack -> datacenter pairs (default: the cluster's own racks, then "
                        "round-robin over the trace's other racks in sorted order)")


def apply_placement(args: argparse.Namespace, workload, cluster: ClusterSpec):
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
        raise InputError("--placement-skew needs --placement zipf")
    if rack_map_text and policy is not PlacementPolicy.RACKS:
        raise InputError("--rack-map needs --placement racks")
    spec = PlacementSpec(policy, 1.0 if skew is None else skew, parse_rack_map(rack_map_text, cluster.datacenters),
                         seed=args.seed)
    return place_workload(workload, cluster, spec)


# ------------------------------------------------------------------------------ one convention for outputs

LOG_LEVELS = ("debug", "info", "warning", "error")


def add_output_arguments(p: argparse.ArgumentParser, *, out: str | None = None, json: bool = True,
                         report: bool = True, quiet: bool = True) -> None:
    """The shared output flags: ``-o/--out`` (help ``out``), ``--json``, ``--report FILE.html``, ``--quiet`` and
    ``--log-level``. Every command that prints a table takes ``--json``; every run command takes ``--report``."""
    g = p.add_argument_group("output")
    if out:
        g.add_argument("-o", "--out", metavar="DIR", help=out)
    if json:
        g.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    if report:
        g.add_argument("--report", metavar="FILE.html",
                       help="write a self-contained interactive HTML report (no network needed to view it)")
    if quiet:
        g.add_argument("--quiet", action="store_true", help="nothing on stderr but errors (= --log-level error)")
        g.add_argument("--log-level", choices=LOG_LEVELS, default="info",
                       help="stderr detail: info (default: what was assumed, notes, warnings), warning (warnings "
                            "only), error (errors only), debug (also Python logging at DEBUG)")


def stderr_level(args: argparse.Namespace) -> str:
    """``info``, ``warning``, ``error`` or ``debug`` from ``--quiet`` / ``--log-level`` (debug also sets logging)."""
    if getattr(args, "quiet", False):
        return "error"
    level = getattr(args, "log_level", None) or "info"
    if level == "debug":
        import logging

        logging.basicConfig(level=logging.DEBUG)
    return level


def check_report_path(args: argparse.Namespace) -> None:
    """``--report`` must name an .html file (checked before any work, like ``--plot``)."""
    path = getattr(args, "report", None)
    if path and not str(path).lower().endswith((".html", ".htm")):
        raise InputError(f"--report writes an HTML file; give a name ending in .html, got {path!r}")


def add_scheduler_argument(p: argparse.ArgumentParser, help_text: str, default: str | None = None) -> None:
    """``--scheduler NAME|module:Class`` (``module:Class`` is imported from the current directory first)."""
    p.add_argument("--scheduler", default=default, metavar="NAME|module:Class", help=help_text)
