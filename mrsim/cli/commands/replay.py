"""``mrsim replay``: replay a trace on an emulated cluster under one scheduler."""

from __future__ import annotations

import argparse
import sys

import orjson

from mrsim.cli.calibration_options import add_calibration_arguments, calibrate_run
from mrsim.cli.options import (add_cluster_arguments, add_engine_arguments, add_placement_arguments, apply_placement,
                               build_cluster, build_conf, build_options, load_replay_workload, scheduler_config)
from mrsim.cli.render import print_replay_table, progress_bar
from mrsim.errors import InputError
from mrsim.io.policy import enforce
from mrsim.sanity import with_warnings, zero_slot_warnings
from mrsim.scheduling import create_scheduler
from mrsim.tracker.replay import replay
from mrsim.workloads import default_trace_path

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
    p.add_argument("--scheduler", default=None, help="scheduler plug-in (default fifo, or mapred-site.xml's)")
    p.add_argument("--model", choices=["slots", "fluid"], default="slots",
                   help="slots: the heartbeat engine (default); fluid: the idealised one-server model (SWIM traces)")
    g = p.add_argument_group("fluid model (--model fluid)")
    g.add_argument("--load", type=float, default=0.9, help="offered load (default 0.9)")
    g.add_argument("--dn", type=float, default=4.0, help="shuffle weight d/n in the job size (default 4)")
    g.add_argument("--sigma", type=float, default=0.0, help="size-estimation error: LogNormal(0, sigma^2) (default 0)")
    add_cluster_arguments(p)
    add_engine_arguments(p)
    add_calibration_arguments(p, background_default="none")
    add_placement_arguments(p)
    from mrsim.yarn.engine import add_engine_choice

    add_engine_choice(p)
    p.add_argument("--out", metavar="DIR", help="write jobs.csv and tasks.csv (atomically) into DIR; in YARN mode "
                                                "also queues.csv (per-queue metrics per second)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no warnings on stderr")


def run(args: argparse.Namespace) -> int:
    trace = args.trace or str(default_trace_path())
    if args.model == "fluid":
        return _run_fluid(args, trace)
    conf = build_conf(args)
    cluster = build_cluster(args, conf)
    options = build_options(args)
    workload = load_replay_workload(args, trace)
    options, calibration_notes = calibrate_run(args, trace, cluster, conf, options)
    workload = with_warnings(workload, zero_slot_warnings(cluster))
    workload, placement = apply_placement(args, workload, cluster)  # before deadlines: isolated runs need it
    if args.deadline_factor is not None:
        from mrsim.deadlines import assign_deadlines

        workload = assign_deadlines(workload, cluster, conf, args.deadline_factor, args.seed, options)
    from mrsim.yarn import engine as yarn_engine

    notes = list(calibration_notes)
    yarn = yarn_engine.use_yarn(args, trace, workload)
    if yarn:
        with progress_bar(len(workload), "jobs") as progress:
            result, yarn_notes = yarn_engine.run_yarn(args, workload, cluster, scheduler_config(args), progress)
        notes.extend(yarn_notes)
        if not args.quiet:
            for line in result.spec.get("site_ignored_keys", []):
                print(f"mrsim: warning: {line}", file=sys.stderr)
    else:
        scheduler = create_scheduler(args.scheduler or conf.scheduler or "fifo", scheduler_config(args))
        with progress_bar(len(workload), "jobs") as progress:
            result = replay(workload, cluster, conf, scheduler, options, progress=progress)
        result.spec["engine"] = "mr1"
        result.spec["notes"] = list(calibration_notes)
    if placement is not None:
        result.spec["placement"] = placement.to_json()
        notes.append(placement.describe())
    note = result.summary.get("scheduler_stats", {}).get("note")
    if note:
        notes.append(note)
    enforce(result.warnings)  # --strict: before anything is written
    if args.out:
        result.write_csv(args.out)
        series = getattr(result, "queue_series", None)
        if series is not None:
            series.write_csv(args.out)
    if not args.quiet:
        for text in notes:
            print(f"mrsim: note: {text}", file=sys.stderr)
    if not args.quiet and result.warnings:
        shown = result.warnings[:5]
        for w in shown:
            print(f"mrsim: warning: {w}", file=sys.stderr)
        if len(result.warnings) > len(shown):
            print(f"mrsim: warning: ... and {len(result.warnings) - len(shown)} more", file=sys.stderr)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result.to_json_dict()) + b"\n")
    else:
        print_replay_table(result, out_dir=args.out)
        print_federation(result.summary)
        if yarn:
            yarn_engine.print_queue_summary(result)
            if args.out:
                print(f"wrote {args.out}/queues.csv (per-queue metrics per second)")
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
    from mrsim.fluid import run_fluid

    if args.out:
        raise InputError("--out is not supported with --model fluid (use --json)")
    result = run_fluid(trace, args.scheduler or "fifo", load=args.load, dn=args.dn, sigma=args.sigma, seed=args.seed)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
    else:
        s = result["summary"]
        print(f"fluid model, scheduler {result['scheduler']}: {s['jobs']} jobs, mean sojourn {s['mean_completion_s']:.3f} s, "
              f"makespan {s['makespan_s']:.1f} s ({s['events']} events in {s['wall_s']:.3f} s)")
    return 0
