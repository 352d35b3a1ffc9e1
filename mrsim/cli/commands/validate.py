"""``mrsim validate``: replay a trace on the cluster it ran on and compare every job with its real completion."""

from __future__ import annotations

import argparse
import sys

import orjson

from mrsim.cli.options import (add_cluster_arguments, add_engine_arguments, attach_demands, build_cluster, build_conf,
                               build_options)
from mrsim.cli.options import scheduler_config as build_scheduler_config
from mrsim.errors import InputError
from mrsim.io.policy import enforce
from mrsim.profiler.detect import Format
from mrsim.profiler.topology_infer import cluster_from_hosts
from mrsim.sanity import with_warnings, zero_slot_warnings
from mrsim.templates import Workload
from mrsim.validation.observe import Profiler, require_templates
from mrsim.validation.report import Mode, ValidationReport
from mrsim.validation.run import ValidationSetup, validate
from mrsim.validation.trace_conf import TRACE_KEYS, apply_trace_conf

TRACE_FIELDS = {name for name, _ in TRACE_KEYS.values()}

NAME = "validate"
HELP = "replay a trace as it ran and compare simulated with actual job completion times"
DESCRIPTION = (
    "Replay TRACE (Rumen, JobHistory, .jhist, SLS, or a trace store) under the scheduler that ran it (default fifo) "
    "on the cluster it ran on (inferred from the trace's hosts and peak concurrency unless --cluster, --topology "
    "or --nodes is given), and report error_pct = 100 x (simulated - actual) / actual per job. --isolate replays "
    "each job alone with the slots it held (SimMR's validation setting). See docs/validation.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", help="trace file, log directory, or trace store")
    p.add_argument("--format", help="force the input format: rumen, jobhistory, jhist, sls")
    p.add_argument("--scheduler", default=None, help="scheduler that ran the trace (default fifo, or mapred-site.xml's)")
    p.add_argument("--isolate", action="store_true",
                   help="replay each job alone on its observed peak map/reduce slots (SimMR's setting)")
    add_cluster_arguments(p)
    add_engine_arguments(p)
    p.add_argument("--ignore-trace-conf", action="store_true",
                   help="do not take slow start / heartbeat keys from the trace's jobProperties")
    p.add_argument("--plot", metavar="FILE.png", help="scatter plot of simulated vs actual completion times")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no warnings on stderr")


def _format(args: argparse.Namespace) -> Format | None:
    if not args.format:
        return None
    try:
        return Format[args.format.strip().upper()]
    except KeyError:
        raise InputError(f"unknown --format {args.format!r} (expected one of {', '.join(f.value for f in Format)})") from None


def _user_set_fields(args: argparse.Namespace) -> set[str]:
    """HadoopConf fields the user set explicitly (a mapred-site.xml counts for all): the trace must not override."""
    if args.mapred_site:
        return set(TRACE_FIELDS)
    locked = set()
    if args.slowstart is not None:
        locked.add("slowstart_completed_maps")
    if args.oob_heartbeat:
        locked.add("outofband_heartbeat")
    if getattr(args, "speculative", False):
        locked.update(("map_speculative", "reduce_speculative"))
    return locked


def run(args: argparse.Namespace) -> int:
    conf = build_conf(args)
    options = build_options(args)
    profiler = Profiler(fmt=_format(args))
    profiler.add(args.trace)
    require_templates(profiler, args.trace)
    trace_conf_used: dict[str, str] = {}
    if not args.ignore_trace_conf:
        conf, trace_conf_used, conf_warnings = apply_trace_conf(conf, profiler.trace_conf, _user_set_fields(args))
        profiler.warnings.extend(conf_warnings)
    workload = Workload.of(profiler.templates, source=args.trace, warnings=profiler.warnings)
    workload = attach_demands(args, workload, args.trace)
    if not any(t.actual_completion_s is not None for t in workload.jobs):
        raise InputError(f"{args.trace}: no job has an actual completion time (finish - submit); nothing to validate")
    if args.cluster or args.topology or args.nodes is not None:
        cluster = build_cluster(args, conf)
    else:
        hosts = profiler.hosts()
        if not hosts:
            raise InputError(f"{args.trace}: the trace names no hosts to infer the cluster from; "
                             "give --cluster, --topology or --nodes")
        cluster = cluster_from_hosts(hosts, source=f"inferred from {args.trace}",
                                     map_slots=args.map_slots, reduce_slots=args.reduce_slots)
    workload = with_warnings(workload, zero_slot_warnings(cluster))
    enforce(workload.warnings, args.trace)  # --strict
    setup = ValidationSetup(workload, cluster, conf, args.scheduler or conf.scheduler or "fifo", options,
                            profiler.observations, build_scheduler_config(args))
    report = validate(setup, Mode.ISOLATE if args.isolate else Mode.SHARED)
    report.spec["conf_from_trace"] = trace_conf_used
    if args.plot:
        from mrsim.validation.plot import plot_validation

        plot_validation(report, args.plot, title=args.trace.rstrip("/").rsplit("/", 1)[-1])
    if not args.quiet:
        for w in report.warnings:
            print(f"mrsim: warning: {w}", file=sys.stderr)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(report.to_json_dict()) + b"\n")
    else:
        _print_table(report, args)
    return 0


def _fmt(x: float | None, spec: str = ",.1f") -> str:
    return "" if x is None else format(x, spec)


def _print_table(report: ValidationReport, args: argparse.Namespace, max_rows: int = 30) -> None:
    s = report.summary
    print(f"mrsim validate: {args.trace}")
    print(f"mode {report.mode.value} | scheduler {report.scheduler} | heartbeat {report.spec.get('heartbeat_interval_s')} s")
    print()
    header = f"{'job':<28} {'maps':>5} {'red':>4} {'actual s':>10} {'sim s':>10} {'error %':>8} {'launch tr/sim s':>16} {'tail s':>7}"
    print(header)
    print("-" * len(header))
    for r in report.jobs[:max_rows]:
        launch = f"{_fmt(r['trace_launch_delay_s'])}/{_fmt(r['sim_launch_delay_s'])}"
        print(f"{r['job_id'][-28:]:<28} {r['maps']:>5} {r['reduces']:>4} {_fmt(r['actual_completion_s']):>10} "
              f"{_fmt(r['completion_s']):>10} {_fmt(r['error_pct'], '+.1f'):>8} {launch:>16} {_fmt(r['trace_tail_s']):>7}")
    if len(report.jobs) > max_rows:
        print(f"... {len(report.jobs) - max_rows} more jobs (use --json)")
    print()
    if s["scored_jobs"]:
        print(f"scored jobs {s['scored_jobs']}/{s['jobs']}  mean |error| {s['mean_abs_error_pct']:.2f} %  "
              f"max |error| {s['max_abs_error_pct']:.2f} %  mean signed {s['mean_error_pct']:+.2f} %")
    else:
        print("no job could be scored (needs outcome SUCCESS and an actual completion time)")
    if args.plot:
        print(f"wrote {args.plot}")
