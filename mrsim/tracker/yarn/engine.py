"""Choosing and running the engine from the command line: ``--engine auto|yarn|mr1`` and ``--yarn-site``.

The choice itself lives in :mod:`mrsim.run.engine_choice` and the flags in :mod:`mrsim.cli.options`, so that an MR1 replay
imports none of YARN's modules. ``auto`` (the default) picks YARN for Hadoop 2/3 inputs: ``.jhist`` and SLS traces (``mrsim.profiler.detect``
formats ``JHIST`` and ``SLS``), and Rumen traces or trace stores whose job confs carry YARN keys
(``mapreduce.framework.name = yarn`` or any ``yarn.*`` key kept by the profiler) or whose job ids carry a
ResourceManager's start time (:mod:`mrsim.profiler.provenance`). Everything else (0.20/1.x JobHistory logs, Rumen
traces of MR1 clusters, SWIM) runs on the MR1 JobTracker engine.
"""

from __future__ import annotations

import argparse
import sys

from mrsim.tracker.results import ReplayResult
from mrsim.tracker.routing import yarn_routing_note
from mrsim.tracker.yarn.calibration import YarnCalibration
from mrsim.tracker.yarn.config import YarnConf, build_yarn_conf, infer_nm_resources, trace_values, unmodelled_keys
from mrsim.tracker.yarn.schedulers.registry import YARN_SCHEDULERS, create_yarn_scheduler
from mrsim.model.yarn_version import DEFAULT as DEFAULT_VERSION, YarnVersion, parse_yarn_version, yarn_version
from mrsim.errors import InputError
from mrsim.tracker.schedconf.site_file import read_site_file
from mrsim.wording import clip_left
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import Workload


def _props(workload: Workload) -> list[dict]:
    return [t.extra["properties"] for t in workload.jobs if isinstance(t.extra.get("properties"), dict)]


def _mr1_version(text: str | None) -> bool:
    """True when ``--hadoop-version`` names an MR1 line (0.20, 1.0, ...) other than the engine default 1.2; a 2.x or
    3.x value chooses YARN mode's behaviour where the two lines differ (:mod:`mrsim.model.yarn_version`)."""
    return text not in (None, "1.2") and parse_yarn_version(text) is None


def hadoop_version(args: argparse.Namespace) -> YarnVersion:
    """The Hadoop line of a YARN-mode run: ``--hadoop-version`` when it names 2.x or 3.x, else the default."""
    text = getattr(args, "hadoop_version", None)
    return yarn_version(text) if parse_yarn_version(text) is not None else DEFAULT_VERSION


def scheduler_settings(args: argparse.Namespace, config: dict) -> dict:
    """The scheduler's config dict with the run's Hadoop line and the ``--yarn-site`` files (the Fair Scheduler
    reads its ``yarn.scheduler.fair.*`` keys from them, as the RM reads them from yarn-site.xml)."""
    out = dict(config or {})
    out["hadoop_version"] = hadoop_version(args)
    files = tuple(getattr(args, "yarn_site", None) or ())
    if files:
        out["site_files"] = files
    return out


def check_flags(args: argparse.Namespace) -> dict:
    """MR1 engine flags in YARN mode: ``--heartbeat-interval S`` sets the NodeManager heartbeat; the ones with no
    YARN meaning are one-line errors rather than silently ignored."""
    for flag, given in (("--contention tdam", getattr(args, "contention", "none") not in (None, "none")),
                        ("--speculative", getattr(args, "speculative", False)),
                        ("--naive-heartbeats", getattr(args, "naive_heartbeats", False)),
                        ("--oob-heartbeat", getattr(args, "oob_heartbeat", False)),
                        ("--hadoop-version", _mr1_version(getattr(args, "hadoop_version", None)))):
        if given:
            raise InputError(f"{flag} is a Hadoop 1 engine option, not supported in YARN mode (use --engine mr1)")
    overrides: dict = {}
    text = getattr(args, "heartbeat_interval", None)
    if text is not None:
        try:
            value = float(str(text))
        except ValueError:
            value = 0.0
        if not value > 0:
            raise InputError("--heartbeat-interval in YARN mode sets the NodeManager heartbeat and must be positive "
                             "seconds (there is no heartbeat-free YARN mode)")
        overrides["nm_heartbeat_s"] = value
    return overrides


def yarn_conf(args: argparse.Namespace, workload: Workload, cluster: ClusterSpec | None = None,
              inferred_cluster: bool = False) -> tuple[YarnConf, list[str]]:
    """The YARN settings of a run, and notes for stderr. With ``inferred_cluster`` (``cluster`` was inferred from
    the trace's hosts), NodeManager sizes no input gives are inferred from its peaks (:func:`infer_nm_resources`)."""
    files = tuple(getattr(args, "yarn_site", None) or ())
    if getattr(args, "mapred_site", None):
        files = (args.mapred_site,) + files
    trace = trace_values(_props(workload)) if not getattr(args, "ignore_trace_conf", False) else {}
    overrides = {"slowstart": getattr(args, "slowstart", None), **check_flags(args)}
    conf = build_yarn_conf(trace_props=trace, files=files, overrides=overrides)
    if not (inferred_cluster and cluster is not None):
        return conf, []
    conf, note = infer_nm_resources(conf, cluster, workload)
    return conf, [f"mrsim: note: {note}"] if note else []


def scheduler_name(args: argparse.Namespace, conf: YarnConf) -> tuple[str, str | None]:
    """(YARN scheduler, note) from ``--scheduler``, else ``yarn.resourcemanager.scheduler.class``, else Hadoop's
    default, CapacityScheduler (announced)."""
    if getattr(args, "scheduler", None):
        name = args.scheduler.strip().lower()
        if name not in YARN_SCHEDULERS:
            raise InputError(f"--scheduler {args.scheduler}: not a YARN scheduler in YARN mode (expected "
                             f"{', '.join(YARN_SCHEDULERS)}; use --engine mr1 for the Hadoop 1 plug-ins)")
        return name, None
    if conf.scheduler:
        return conf.scheduler, f"YARN scheduler {conf.scheduler} from yarn.resourcemanager.scheduler.class"
    return "capacity", "YARN scheduler: capacity (Hadoop 2/3's default CapacityScheduler; use --scheduler to choose)"


def ignored_keys(args: argparse.Namespace, scheduler: str) -> list[str]:
    """One line per key of the user's site files that YARN mode does not honour."""
    from mrsim.tracker.yarn.preemption_conf import HONOURED as PREEMPTION_KEYS
    from mrsim.tracker.yarn.schedulers import capacity, fair

    honoured: set[str] = set(PREEMPTION_KEYS) | {"yarn.cluster.max-application-priority"}
    out: list[str] = []
    for path in tuple(getattr(args, "yarn_site", None) or ()):
        keys = set(capacity._GLOBAL_KEYS) | {fair.Y + k for k in ("allocation.file", "user-as-default-queue",
                                                                 "allow-undeclared-pools", "assignmultiple",
                                                                 "max.assign")}
        for w in unmodelled_keys(path, honoured | keys):
            key = w.split(": ", 1)[1]
            if key.startswith("yarn.scheduler.capacity.root"):
                continue
            if key.startswith(fair.Y):
                continue  # the Fair Scheduler reads them (scheduler_settings) and reports the ones it ignores
            out.append(w)
        if scheduler != "fair":
            # the honoured Fair keys mean nothing to FIFO or Capacity: said, not silently dropped
            props = read_site_file(path).props
            out.extend(f"{path}:{props[k].line}: {k} is a Fair Scheduler key and the scheduler is {scheduler} "
                       "(ignored)" for k in sorted(props) if k.startswith(fair.Y))
    return out


def run_yarn(args: argparse.Namespace, workload: Workload, cluster: ClusterSpec, scheduler_config: dict,
             progress=None, calibration: YarnCalibration | None = None,
             inferred_cluster: bool = False) -> tuple[ReplayResult, list[str]]:
    """Replay in YARN mode; returns the result and notes for stderr. ``calibration``: the jobs' commit tails
    (``mrsim.run.yarn_calibration`` chooses it); ``inferred_cluster``: ``cluster`` was inferred from the trace's
    hosts (NodeManager sizes may then be inferred too, :func:`yarn_conf`)."""
    from mrsim.tracker.yarn.replay import replay_yarn

    conf, conf_notes = yarn_conf(args, workload, cluster, inferred_cluster)
    name, note = scheduler_name(args, conf)
    scheduler = create_yarn_scheduler(name, scheduler_settings(args, scheduler_config))
    ignored = ignored_keys(args, name)
    result = replay_yarn(workload, cluster, conf, scheduler, seed=getattr(args, "seed", 0),
                         job_overheads=not getattr(args, "no_job_overheads", False),
                         locality=getattr(args, "locality", "auto"),
                         rack_local_slowdown=getattr(args, "rack_local_slowdown", 1.0),
                         off_switch_slowdown=getattr(args, "off_switch_slowdown", 1.0), progress=progress,
                         calibration=calibration)
    # The scheduler's own ignored keys are already among the result's warnings; the site files' are added here
    # (printed once by the command, one line per key) and both are listed in spec.ignored_keys.
    result.spec["ignored_keys"] = list(ignored) + [w for w in scheduler.warnings if "not modelled" in w]
    result.spec["site_ignored_keys"] = list(ignored)
    notes = ([note] if note else []) + conf_notes + [yarn_routing_note(name, scheduler, result)]
    return result, notes


def print_queue_summary(result: ReplayResult, file=None) -> None:
    """The per-queue lines under the replay table (summary.yarn.queues)."""
    file = file or sys.stdout
    queues = result.summary.get("yarn", {}).get("queues") or {}
    if not queues:
        return
    print("queue                          mean alloc MB  peak alloc MB  mean pending MB  peak pending  share MB",
          file=file)
    for name, q in queues.items():
        print(f"{clip_left(name, 30):<30} {q['mean_allocated_mb']:>13,.0f} {q['peak_allocated_mb']:>14,.0f} "
              f"{q['mean_pending_mb']:>16,.0f} {q['peak_pending_containers']:>13} {q['mean_share_mb']:>9,.0f}",
              file=file)
