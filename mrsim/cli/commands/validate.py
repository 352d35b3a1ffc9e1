"""``mrsim validate``: replay a trace on the cluster it ran on and compare every job with its real completion."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import orjson

from mrsim.cli.runspec import context, spec_from_args
from mrsim.run.execute import announce_once, announce_warnings, early_announcer, execute_validate
from mrsim.cli.calibration_options import add_calibration_arguments
from mrsim.wording import clip_left
from mrsim.cli.options import (add_cluster_arguments, add_engine_arguments, add_output_arguments,
                               add_scheduler_argument, check_report_path, stderr_level)

if TYPE_CHECKING:
    from mrsim.analysis.validation.report import ValidationReport

NAME = "validate"
HELP = "replay a trace as it ran and compare simulated with actual job completion times"
DESCRIPTION = (
    "Replay TRACE (Rumen, JobHistory, .jhist, SLS, or a trace store) under the scheduler that ran it (--scheduler, "
    "else mapred-site.xml's, else the one its job confs name, else fifo) "
    "on the cluster it ran on (inferred from the trace's hosts and peak concurrency unless --cluster, --topology "
    "or --nodes is given), and report error_pct = 100 x (simulated - actual) / actual per job. --isolate replays "
    "each job alone with the slots it held (SimMR's validation setting). See docs/validation.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", help="trace file, log directory, or trace store")
    p.add_argument("--format", help="force the input format: rumen, jobhistory, jhist, sls")
    add_scheduler_argument(p, "scheduler that ran the trace: a name or module:Class (default: mapred-site.xml's, "
                              "else the one the trace's job confs name, else fifo)")
    p.add_argument("--isolate", action="store_true",
                   help="replay each job alone on its observed peak map/reduce slots (SimMR's setting)")
    add_cluster_arguments(p)
    add_engine_arguments(p)
    add_calibration_arguments(p, background_default="trace")
    from mrsim.cli.options import add_engine_choice

    add_engine_choice(p)
    p.add_argument("--ignore-trace-conf", action="store_true",
                   help="do not take slow start / heartbeat keys from the trace's jobProperties")
    p.add_argument("--plot", metavar="FILE.png", help="scatter plot of simulated vs actual completion times")
    add_output_arguments(p)


def early_input(args: argparse.Namespace) -> tuple[str, str | None] | None:
    """The input this command's pass will parse, to start reading it as the command starts
    (:mod:`mrsim.profiler.early_read`): ``(TRACE, --format)``, or None without a TRACE."""
    if not args.trace:
        return None
    return args.trace, args.format


def run(args: argparse.Namespace) -> int:
    check_report_path(args)
    level = stderr_level(args)
    printed, early = early_announcer(level)  # the assumption line before the replays
    validated = execute_validate(spec_from_args(args), ctx=context(args, early))
    report = validated.report
    if args.plot:
        from mrsim.analysis.validation.plot import plot_validation

        plot_validation(report, args.plot, title=args.trace.rstrip("/").rsplit("/", 1)[-1])
    if args.report:
        validated.to_html(args.report)
    announce_once(validated.assumptions, validated.notes, level, printed)
    announce_warnings(report.warnings, validated.notes, level)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(report.to_json_dict()) + b"\n")
    else:
        _print_table(report, args)
        if args.report:
            print(f"wrote {args.report}")
    return 0


#: What the table's less obvious columns hold (docs/validation.md, "Where the error comes from").
COLUMN_LEGEND = ("error % = (sim - actual) / actual completion; launch = submission to the job's first task launch, in "
                 "the trace / in the replay;",
                 "trace tail = the trace's job finish - its last map/reduce task's finish (cleanup task, job commit)")


def _fmt(x: float | None, spec: str = ",.1f") -> str:
    return "" if x is None else format(x, spec)


def _print_table(report: ValidationReport, args: argparse.Namespace, max_rows: int = 30) -> None:
    s = report.summary
    print(f"mrsim validate: {args.trace}")
    print(f"mode {report.mode.value} | scheduler {report.scheduler} | heartbeat {report.spec.get('heartbeat_interval_s')} s")
    print()
    header = (f"{'job':<28} {'maps':>5} {'reduces':>7} {'actual s':>10} {'sim s':>10} {'error %':>8} "
              f"{'launch trace/sim s':>18} {'trace tail s':>12}")
    print(header)
    print("-" * len(header))
    for r in report.jobs[:max_rows]:
        launch = f"{_fmt(r['trace_launch_delay_s'])}/{_fmt(r['sim_launch_delay_s'])}"
        print(f"{clip_left(r['job_id'], 28):<28} {r['maps']:>5} {r['reduces']:>7} {_fmt(r['actual_completion_s']):>10} "
              f"{_fmt(r['completion_s']):>10} {_fmt(r['error_pct'], '+.1f'):>8} {launch:>18} "
              f"{_fmt(r['trace_tail_s']):>12}")
    if len(report.jobs) > max_rows:
        print(f"... {len(report.jobs) - max_rows} more jobs (use --json)")
    print("\n".join(COLUMN_LEGEND))
    print()
    if s["scored_jobs"]:
        print(f"scored jobs {s['scored_jobs']}/{s['jobs']}  mean |error| {s['mean_abs_error_pct']:.2f} %  "
              f"max |error| {s['max_abs_error_pct']:.2f} %  mean signed {s['mean_error_pct']:+.2f} %")
        w = s.get("without_background")
        if w and w.get("mean_abs_error_pct") is not None:
            explained = sum(r.get("background_wait_s") or 0.0 for r in report.jobs)
            print(f"without the background: mean |error| {w['mean_abs_error_pct']:.2f} %  max |error| "
                  f"{w['max_abs_error_pct']:.2f} %  mean signed {w['mean_error_pct']:+.2f} %  (the background "
                  f"explains {explained:,.0f} s of waiting; docs/calibration.md)")
    else:
        print("no job could be scored (needs outcome SUCCESS and an actual completion time)")
    if args.plot:
        print(f"wrote {args.plot}")
