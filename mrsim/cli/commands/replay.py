"""``mrsim replay``: replay a trace on an emulated cluster under one scheduler."""

from __future__ import annotations

import argparse
import sys

import orjson

from mrsim.cli.runspec import context, spec_from_args
from mrsim.run.execute import announce_once, announce_warnings, early_announcer, execute_replay
from mrsim.cli.calibration_options import add_calibration_arguments
from mrsim.cli.load_options import add_load_arguments, given_load_flags
from mrsim.cli.options import (add_cluster_arguments, add_engine_arguments, add_output_arguments,
                               add_placement_arguments, add_scheduler_argument, check_report_path, stderr_level)
from mrsim.cli.render import print_replay_table
from mrsim.errors import InputError
from mrsim.io.policy import enforce

NAME = "replay"
HELP = "replay a trace (Rumen, JobHistory, .jhist, SLS, SWIM) under a scheduler"
DESCRIPTION = (
    "Replay a job trace through the emulated JobTracker/TaskTracker heartbeat layer. Without TRACE, the bundled "
    "default trace (rumen_traces/default.json.gz) is used."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", nargs="?", help="trace file or log directory (default: the bundled default trace)")
    p.add_argument("--format", help="force the input format: rumen, jobhistory, jhist, sls, swim, store, jobspec")
    p.add_argument("--deadline-factor", type=float, metavar="DF",
                   help="give every job a deadline drawn uniformly in [T, DF x T], T = its completion time alone on "
                        "the cluster (SimMR section V); reported as deadlines_missed / relative_deadline_exceeded")
    add_scheduler_argument(p, "scheduler plug-in: a registered name or module:Class (default fifo, or "
                              "mapred-site.xml's)")
    p.add_argument("--stream", action="store_true",
                   help="read the jobs while replaying (memory grows with the jobs in flight, not the trace): a SWIM "
                        ".tsv file or synth:JOBS[:SEED[:MEAN_INTERARRIVAL_S]]; the same --json, no per-task output")
    p.add_argument("--model", choices=["slots", "fluid"], default="slots",
                   help="slots: the heartbeat engine (default); fluid: the idealised one-server model (SWIM traces)")
    g = p.add_argument_group("fluid model (--model fluid)")
    g.add_argument("--load", type=float, default=0.9, help="offered load (default 0.9)")
    g.add_argument("--dn", type=float, default=4.0, help="shuffle weight d/n in the job size (default 4)")
    g.add_argument("--sigma", type=float, default=0.0, help="size-estimation error: LogNormal(0, sigma^2) (default 0)")
    add_load_arguments(p)
    add_cluster_arguments(p)
    add_engine_arguments(p)
    add_calibration_arguments(p, background_default="none")
    add_placement_arguments(p)
    from mrsim.cli.options import add_engine_choice

    add_engine_choice(p)
    add_output_arguments(p, out="write jobs.csv, tasks.csv, attempts.csv, timeseries.csv and, in YARN mode, queues.csv "
                                "(per-queue metrics per second) into DIR, as one unit")


def early_input(args: argparse.Namespace) -> tuple[str, str | None] | None:
    """The input this command's pass will parse, to start reading it as the command starts
    (:mod:`mrsim.profiler.early_read`): ``(TRACE, --format)``, or None without a TRACE (the bundled default trace
    is small enough to read in this process)."""
    if args.stream or args.model != "slots" or not args.trace:
        return None
    return args.trace, args.format


def run(args: argparse.Namespace) -> int:
    from mrsim.profiler.workloads import default_trace_path  # (numpy: not for --help)

    trace = args.trace or str(default_trace_path())
    if args.stream:
        from mrsim.cli.streamed import refuse_unstreamable_flags

        refuse_unstreamable_flags(args)
    if args.model == "fluid":
        return _run_fluid(args, trace)
    check_report_path(args)
    level = stderr_level(args)
    # Per-task results only for the outputs that show them: a --json or table run drops each job's per-task
    # state when it finishes (same figures; memory grows with the jobs in flight, docs/performance.md).
    args.task_results = bool(args.out or args.report)
    printed, early = early_announcer(level)  # the assumption line before the replay
    if args.stream:
        from mrsim.cli.streamed import execute_streamed_replay

        replayed = execute_streamed_replay(args)
    else:
        replayed = execute_replay(spec_from_args(args), ctx=context(args, early))
    result = replayed.result
    enforce(result.warnings)  # --strict: before anything is written
    if args.out:
        from mrsim.analysis.outputs import write_replay_outputs

        write_replay_outputs(replayed, args.out)
    if args.report:
        replayed.to_html(args.report)
    announce_once(replayed.assumptions, replayed.notes, level, printed)
    announce_warnings(result.warnings, replayed.notes, level, limit=5)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result.to_json_dict()) + b"\n")
    else:
        print_replay_table(result, out_dir=args.out)
        print_federation(result.summary)
        if result.spec.get("engine") == "yarn":
            from mrsim.tracker.yarn.engine import print_queue_summary

            print_queue_summary(result)
        if args.report:
            print(f"wrote {args.report}")
    return 0


def print_federation(summary: dict) -> None:
    """Lines after the replay table for federations and geo controllers (summary.federation / scheduler_stats)."""
    fed = summary.get("federation")
    if fed:
        util = ", ".join(f"{d} {u['map']:.2f}" for d, u in fed["utilisation"].items() if u["map"] is not None)
        classes = ", ".join(
            f"{name} {c['mean_slowdown']:.2f} ({c['jobs']} jobs)" if c["jobs"] else f"{name} - (0 jobs)"
            for name, c in fed["size_classes"].items())
        print(f"map slot utilisation per datacenter: {util}")
        print(f"mean slowdown by size class (baseline: {fed['slowdown_baseline']}): {classes}")
    stats = summary.get("scheduler_stats")
    if stats and "decisions" in stats:
        print(f"controller {stats['policy']}: {stats['decisions']} decisions, {stats['decision_ms_mean']:.3f} ms mean, "
              f"{stats['decision_ms_p95']:.3f} ms p95 per decision (wall); jobs in system: mean "
              f"{stats['mean_jobs_in_system']:.2f}, max {stats['max_jobs_in_system']}")


def _run_fluid(args: argparse.Namespace, trace: str) -> int:
    from mrsim.studies.fluid import run_fluid

    if args.out or args.report:
        raise InputError("--out and --report are not supported with --model fluid (use --json)")
    if given_load_flags(args):
        raise InputError(f"{given_load_flags(args)[0]} is not supported with --model fluid (use --load, the "
                         "offered load the SWIM sizes are scaled to)")
    result = run_fluid(trace, args.scheduler or "fifo", load=args.load, dn=args.dn, sigma=args.sigma, seed=args.seed)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
    else:
        s = result["summary"]
        print(f"fluid model, scheduler {result['scheduler']}: {s['jobs']} jobs, mean sojourn {s['mean_completion_s']:.3f} s, "
              f"makespan {s['makespan_s']:.1f} s ({s['events']} events in {s['wall_s']:.3f} s)")
    return 0
