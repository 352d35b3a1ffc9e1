"""``mrsim compare``: replay one trace under several schedulers and show the results side by side."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import orjson

from mrsim.cli.runspec import context, spec_from_args
from mrsim.run.execute import announce_once, early_announcer, execute_compare
from mrsim.run.results import ComparisonRun
from mrsim.cli.calibration_options import add_calibration_arguments
from mrsim.cli.load_options import add_load_arguments
from mrsim.cli.options import (add_cluster_arguments, add_engine_arguments, add_output_arguments,
                               add_placement_arguments, check_report_path, stderr_level)
from mrsim.errors import InputError

if TYPE_CHECKING:  # (numpy and the engine: imported when the command runs, not by its parser)
    from mrsim.analysis.comparison import Comparison

NAME = "compare"
HELP = "replay one trace under several schedulers and compare completion times, deadlines and slot shares"
DESCRIPTION = (
    "Replay the same trace on the same cluster under each scheduler (same engine options and seeds) and print a "
    "side-by-side table: mean and p95 completion, makespan, mean slowdown against each job run alone, deadlines "
    "missed, relative deadline exceeded (with --deadline-factor) and the mean share of slots per queue. "
    "Replication r uses master seed SEED + r."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", nargs="?", help="trace file or log directory (default: the bundled default trace)")
    p.add_argument("--format", help="force the input format: rumen, jobhistory, jhist, sls, swim")
    p.add_argument("--schedulers", default="fifo,fair,capacity",
                   help="comma-separated scheduler plug-ins (default fifo,fair,capacity: Hadoop's three; see mrsim "
                        "schedulers); --scheduler-config fair=F.xml,capacity=C.xml gives each its own file")
    p.add_argument("--deadline-factor", type=float, metavar="DF",
                   help="give every job a deadline drawn uniformly in [T_J, DF x T_J] (SimMR V-B; DF >= 1)")
    p.add_argument("--replications", type=int, default=1, metavar="N", help="replications (seeds SEED..SEED+N-1)")
    add_load_arguments(p)
    add_cluster_arguments(p)
    add_engine_arguments(p)
    add_calibration_arguments(p, background_default="none")
    add_placement_arguments(p)
    from mrsim.cli.options import add_engine_choice

    add_engine_choice(p)
    p.add_argument("--plot", metavar="FILE.png", help="write a comparison figure (PNG, atomically)")
    add_output_arguments(p)


def early_input(args: argparse.Namespace) -> tuple[str, str | None] | None:
    """The input this command's pass will parse, to start reading it as the command starts
    (:mod:`mrsim.profiler.early_read`): ``(TRACE, --format)``, or None without a TRACE (the bundled default trace
    is small enough to read in this process)."""
    if not args.trace:
        return None
    return args.trace, args.format


def run(args: argparse.Namespace) -> int:
    if args.plot and not str(args.plot).lower().endswith(".png"):
        raise InputError(f"--plot writes a PNG file; give a name ending in .png, got {args.plot!r}")
    check_report_path(args)
    level = stderr_level(args)
    printed, early = early_announcer(level)  # the assumption line before the replays
    compared: ComparisonRun = execute_compare(spec_from_args(args), ctx=context(args, early))
    result = compared.comparison
    if args.plot:
        from mrsim.analysis.comparison import plot_comparison

        plot_comparison(result, args.plot)
    if args.report:
        compared.to_html(args.report)
    announce_once(compared.assumptions, compared.notes, level, printed)
    placement = next(iter(result.runs.values())).results[0].spec.get("placement")
    if args.json:
        doc = result.to_json_dict()
        classes = federation_columns(result)
        if classes:
            for row in doc["table"]:
                row.update(classes[row["scheduler"]])
        if placement is not None:
            doc["spec"]["placement"] = placement
        load = next(iter(result.runs.values())).results[0].spec.get("load")
        if load is not None:
            doc["spec"]["load"] = load
        doc["spec"]["notes"] = [n.removeprefix("mrsim: note: ") for n in compared.notes if n.startswith("calibration")
                                or n.startswith("background")]
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    else:
        print_table(result, compared.workload.source, args.plot)
        placement_text = [n for n in compared.notes if n.startswith("placement") or "datacenter" in n]
        for text in placement_text:
            print(text)
        if args.report:
            print(f"wrote {args.report}")
    return 0


def federation_columns(result: Comparison) -> dict[str, dict]:
    """Per scheduler, means over replications of the size-class slowdowns and controller figures of
    ``summary.federation`` / ``summary.scheduler_stats`` (empty when no run has them)."""
    out: dict[str, dict] = {}
    for name, run in result.runs.items():
        feds = [r.summary.get("federation") for r in run.results]
        if not all(feds):
            continue
        row: dict = {}
        for cls in ("small", "medium", "large"):
            values = [f["size_classes"][cls]["mean_slowdown"] for f in feds if f["size_classes"][cls]["jobs"]]
            row[f"slowdown_{cls}"] = round(sum(values) / len(values), 6) if values else None
        stats = [r.summary.get("scheduler_stats") for r in run.results]
        if all(stats) and all("decisions" in st for st in stats):
            row["decision_ms_mean"] = round(sum(st["decision_ms_mean"] for st in stats) / len(stats), 6)
            row["mean_jobs_in_system"] = round(sum(st["mean_jobs_in_system"] for st in stats) / len(stats), 6)
        out[name] = row
    return out


def _fmt(value: object, digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{float(value):,.{digits}f}"  # type: ignore[arg-type]


def print_table(result: Comparison, source: str, plot: str | None) -> None:
    rows = result.table()
    first = next(iter(result.runs.values())).results[0]
    print(f"mrsim compare: {source}")
    df = f"deadline factor {result.deadline_factor:g}" if result.deadline_factor is not None else "no deadlines"
    from mrsim.cli.render import run_cluster_line

    print(f"{run_cluster_line(first.spec)} | {df} | {result.replications} replication(s) from seed {result.seed}")
    print()
    header = (f"{'scheduler':<12} {'mean s':>11} {'p95 s':>11} {'makespan s':>12} {'slowdown':>9} "
              f"{'missed':>7} {'rel. exceeded':>14}  slot share by queue")
    print(header)
    print("-" * len(header))
    for r in rows:
        shares = ", ".join(f"{q} {v:.2f}" for q, v in r["slot_share"].items())
        print(f"{r['scheduler']:<12} {_fmt(r['mean_completion_s']):>11} {_fmt(r['p95_completion_s']):>11} "
              f"{_fmt(r['makespan_s']):>12} {_fmt(r['mean_slowdown'], 2):>9} {_fmt(r['deadlines_missed'], 1):>7} "
              f"{_fmt(r['relative_deadline_exceeded'], 3):>14}  {shares}")
    classes = federation_columns(result)
    if classes:
        print()
        head = (f"{'scheduler':<14} {'slowdown small':>15} {'medium':>9} {'large':>9} {'jobs in system':>15} "
                f"{'ms/decision':>12}")
        print(head)
        print("-" * len(head))
        for name, row in classes.items():
            print(f"{name:<14} {_fmt(row['slowdown_small'], 2):>15} {_fmt(row['slowdown_medium'], 2):>9} "
                  f"{_fmt(row['slowdown_large'], 2):>9} {_fmt(row.get('mean_jobs_in_system'), 2):>15} "
                  f"{_fmt(row.get('decision_ms_mean'), 3):>12}")
        print("size classes by total tasks: small 1-150, medium 151-500, large 501+; ms/decision is the geo "
              "controller's wall time per decision")
    print()
    print("slowdown = completion / completion alone on the cluster (FIFO); rel. exceeded = sum over late jobs of (T-D)/D")
    if plot:
        print(f"wrote {plot}")
