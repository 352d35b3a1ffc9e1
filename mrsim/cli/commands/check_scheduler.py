"""``mrsim check-scheduler NAME``: run a scheduler plug-in through the checker's battery (exit 0 pass, 1 fail)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from mrsim.analysis.checker import (CheckReport, Failure, Mode, Shape, check_scheduler, failure_trace,
                                    reproduce_command, scheduler_factory)
from mrsim.errors import InputError
from mrsim.model.cluster import write_cluster_file

NAME = "check-scheduler"
HELP = "check a scheduler plug-in on small generated traces (invariants, slots, stalls, parked == naive, speed)"
DESCRIPTION = (
    "Replay a battery of small seeded traces (map-only, reduce-heavy, bursts, priorities, deadlines, queues, a "
    "one-slot cluster, heterogeneous nodes, split locations, edge cases) in heartbeat, task-completion and out-of-band modes under "
    "the scheduler, checking the engine's invariants after every event, every assign_tasks call (free slots, "
    "return value, wall time), that every task runs exactly once and every job finishes, and that parked "
    "trackers give the same schedule as naive heartbeats. A failing trace is shrunk and shown as Rumen JSON. "
    "NAME is a registered plug-in (see mrsim schedulers) or module:Class. Exit 0 when every check passes, 1 "
    "otherwise."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scheduler", metavar="NAME", help="registered scheduler name, or module:Class")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated traces (default 0)")
    p.add_argument("--shapes", help=f"comma-separated subset of: {', '.join(s.value for s in Shape)}")
    p.add_argument("--modes", help=f"comma-separated subset of: {', '.join(m.value for m in Mode)}")
    p.add_argument("--max-decision-ms", type=float, default=100.0, metavar="MS",
                   help="fail when one assign_tasks call takes longer (wall time; default 100 ms)")
    p.add_argument("--shrink-budget", type=int, default=400, metavar="N",
                   help="at most N replays to shrink each failing trace (default 400)")
    p.add_argument("--out", metavar="DIR", help="write each shrunk failing trace (Rumen JSON) and its cluster file here")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")


def _parse_enum(text: str | None, enum_type: type, flag: str) -> tuple:
    if not text:
        return tuple(enum_type)
    chosen = []
    for part in text.split(","):
        value = part.strip().lower()
        try:
            chosen.append(enum_type(value))
        except ValueError:
            valid = ", ".join(e.value for e in enum_type)
            raise InputError(f"{flag}: unknown value {value!r} (expected some of {valid})") from None
    return tuple(chosen)


def run(args: argparse.Namespace) -> int:
    shapes = _parse_enum(args.shapes, Shape, "--shapes")
    modes = _parse_enum(args.modes, Mode, "--modes")
    if not args.max_decision_ms > 0:
        raise InputError("--max-decision-ms must be positive")
    factory = scheduler_factory(args.scheduler)
    from mrsim.cli.render import progress_bar

    done = [0]
    with progress_bar(len(shapes) * len(modes), "cases") as bar:  # on a terminal, after 2 s; shrinking included

        def progress(_case: str, _ok: bool) -> None:
            done[0] += 1
            if bar is not None:
                bar(done[0])

        report = check_scheduler(factory, name=args.scheduler, seed=args.seed,
                                 max_decision_s=args.max_decision_ms / 1e3, shapes=shapes, modes=modes,
                                 shrink_budget=max(0, args.shrink_budget), progress=progress)
    written = _write_failures(report, args.out, args.scheduler) if args.out else {}
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(_json(report, args.scheduler, written)) + b"\n")
    else:
        _print(report, args.scheduler, written)
    return 0 if report.passed else 1


def _file_stem(failure: Failure, index: int) -> str:
    return f"{index:02d}-{failure.case.name.replace('/', '-')}-{failure.kind.value}"


def _write_failures(report: CheckReport, out: str, scheduler: str) -> dict[int, tuple[str, str]]:
    from mrsim.profiler.rumen_writer import write_rumen_trace

    directory = Path(out)
    written = {}
    for i, failure in enumerate(report.failures):
        stem = _file_stem(failure, i)
        trace = directory / f"{stem}.json"
        cluster = directory / f"{stem}-cluster.toml"
        write_rumen_trace(failure_trace(failure), trace, pretty=True)
        write_cluster_file(failure.case.cluster, cluster)
        written[i] = (str(trace), str(cluster))
    return written


def _failure_doc(failure: Failure, scheduler: str, files: tuple[str, str] | None) -> dict:
    case = failure.case
    trace_path, cluster_path = files if files else ("TRACE.json", None)
    return {
        "case": case.name, "kind": failure.kind.value, "message": failure.message,
        "original": {"jobs": failure.original_jobs, "tasks": failure.original_tasks},
        "shrunk": {"jobs": len(case.workload), "tasks": case.workload.n_tasks, "nodes": len(case.cluster)},
        "deadlines_s": {j.job_id: j.deadline_s for j in case.workload.jobs if j.deadline_s is not None},
        "reproduce": reproduce_command(failure, scheduler, trace_path, cluster_path),
        "files": list(files) if files else [],
        "trace": failure_trace(failure),
    }


def _json(report: CheckReport, scheduler: str, written: dict[int, tuple[str, str]]) -> dict:
    return {
        "scheduler": scheduler, "passed": report.passed, "cases": report.cases,
        "decisions": report.decisions, "max_decision_ms": round(report.max_decision_s * 1e3, 3),
        "wall_s": round(report.wall_s, 3),
        "failures": [_failure_doc(f, scheduler, written.get(i)) for i, f in enumerate(report.failures)],
    }


def _print(report: CheckReport, scheduler: str, written: dict[int, tuple[str, str]]) -> None:
    failed = {f.case.name: f for f in report.failures}
    print(f"mrsim check-scheduler {scheduler}: {len(report.cases)} cases, {report.decisions:,} heartbeat decisions, "
          f"slowest {report.max_decision_s * 1e3:.2f} ms, {report.wall_s:.1f} s")
    for name in report.cases:
        f = failed.get(name)
        print(f"  {'ok  ' if f is None else 'FAIL'} {name}" + ("" if f is None else f"  [{f.kind.value}] {f.message}"))
    if report.passed:
        print("all checks passed")
        return
    # Show the smallest shrunk trace of each kind of failure in full; the rest are one line each above.
    shown: dict[str, tuple[int, Failure]] = {}
    for i, f in enumerate(report.failures):
        best = shown.get(f.kind.value)
        if best is None or f.case.workload.n_tasks < best[1].case.workload.n_tasks:
            shown[f.kind.value] = (i, f)
    for kind, (i, f) in shown.items():
        doc = _failure_doc(f, scheduler, written.get(i))
        print()
        print(f"FAILED [{kind}] {f.case.name}: {f.message}")
        print(f"  shrunk from {f.original_jobs} jobs / {f.original_tasks} tasks to {doc['shrunk']['jobs']} job(s) / "
              f"{doc['shrunk']['tasks']} task(s) on {doc['shrunk']['nodes']} node(s)")
        if doc["deadlines_s"]:
            print(f"  deadlines (s after submission, not carried by Rumen): {doc['deadlines_s']}")
        print(f"  reproduce: {doc['reproduce']}")
        if ":" in scheduler:
            print("  (run it from the directory the plug-in module imports from, as for this check)")
        if written.get(i):
            print(f"  wrote {written[i][0]} and {written[i][1]}")
        else:
            print("  smallest trace (Rumen LoggedJob JSON, one job per line; --out DIR writes it):")
            for job in doc["trace"]:
                print("    " + orjson.dumps(job).decode())
    print()
    print(f"{len(report.failures)} of {len(report.cases)} cases failed")
