"""``mrsim profile``: build or extend a trace store, write a Rumen trace or a cluster file, or compare two runs."""

from __future__ import annotations

from mrsim.cli.flags import add_renamed

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import orjson

from mrsim.errors import InputError
from mrsim.profiler.detect import Format
from mrsim.io.policy import enforce

NAME = "profile"
HELP = "profile logs/traces into a trace store or Rumen trace; infer the cluster; compare duration distributions"
DESCRIPTION = (
    "Profile INPUT... (Rumen, JobHistory, .jhist, SLS, SWIM, or trace stores; files or directories) into the trace "
    "store -o STORE (created, or extended: a job id already stored is kept and the new one skipped), or into a Rumen "
    "trace when -o ends in .json or .json.gz. --cluster-out FILE writes the cluster the logs ran on (hosts, and slots "
    "from the peak concurrent attempts per host) for `mrsim replay --cluster FILE`. --compare A B prints the "
    "symmetric Kullback-Leibler divergence of map, shuffle and reduce durations (SimMR Table I). "
    "See docs/trace-store.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="trace files, log directories or trace stores")
    add_renamed(p, ("-o", "--out"), ("--output",), "output", metavar="STORE|TRACE.json[.gz]",
                help="trace store directory, or a Rumen trace file")
    # --cluster-out: the file is an mrsim cluster file (what --cluster reads), not a Rumen topology (what the
    # replaying commands' --topology reads), so the old spelling named the wrong format
    add_renamed(p, ("--cluster-out",), ("--topology",), "topology", metavar="FILE",
                help="write the inferred cluster file, for --cluster (TOML, or JSON if FILE ends in .json)")
    p.add_argument("--format", help="force the input format: rumen, jobhistory, jhist, sls, swim")
    p.add_argument("--pretty", action="store_true", help="indent a Rumen output trace (as Rumen's default output)")
    g = p.add_argument_group("distribution comparison (SimMR Table I)")
    g.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two traces or stores to compare")
    g.add_argument("--job", action="append", default=[], metavar="ID",
                   help="compare one job: once for both sides, twice for A then B (default: all jobs pooled)")
    g.add_argument("--bins", default="auto", help="histogram bins: a count or 'auto' (NumPy's rule on the pooled sample)")
    g.add_argument("--epsilon", type=float, default=None, help="additive smoothing of bin probabilities (default 1e-6)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no warnings on stderr")


def _format(text: str | None) -> Format | None:
    if not text:
        return None
    try:
        return Format[text.strip().upper()]
    except KeyError:
        raise InputError(f"unknown --format {text!r} (expected one of {', '.join(f.value for f in Format)})") from None


def _is_rumen_target(path: str) -> bool:
    return path.endswith(".json") or path.endswith(".json.gz")


def run(args: argparse.Namespace) -> int:
    if args.compare:
        if args.inputs or args.output or args.topology:
            raise InputError("--compare A B takes no INPUT, -o or --cluster-out")
        return _run_compare(args)
    if args.job or args.bins != "auto" or args.epsilon is not None:
        raise InputError("--job, --bins and --epsilon only apply to --compare")
    if not args.inputs:
        raise InputError("give at least one INPUT (or --compare A B)")
    if not args.output and not args.topology:
        raise InputError("give -o STORE (or -o TRACE.json[.gz]) and/or --cluster-out FILE")
    return _run_profile(args)


def _run_profile(args: argparse.Namespace) -> int:
    from mrsim.profiler.observe import Profiler

    started = time.perf_counter()
    profiler = Profiler(fmt=_format(args.format))
    summary: dict[str, Any] = {"output": args.output, "kind": None}
    if args.output and _is_rumen_target(args.output):
        for path in args.inputs:
            kind = profiler.input_format(path)
            if kind in ("store", Format.SWIM.value):
                raise InputError(f"{path}: a {'trace store' if kind == 'store' else 'SWIM file'} holds no task logs; "
                                 "it cannot be written as a Rumen trace")
        from mrsim.profiler.rumen_writer import write_rumen_trace

        written = write_rumen_trace(_all_logged(profiler, args.inputs), args.output, pretty=args.pretty)
        summary.update(kind="rumen", jobs_written=written)
    else:
        if args.output:
            from mrsim.profiler.store import stored_job_ids

            profiler.exclude(stored_job_ids(args.output))  # so each input reports the ids it repeats
        for path in args.inputs:
            profiler.add(path)
    _print_warnings(profiler.warnings, args.quiet)
    enforce(profiler.warnings, ", ".join(args.inputs))  # --strict: before the store or trace is written
    summary["inputs"] = [r.as_dict() for r in profiler.inputs]
    summary["jobs_profiled"] = len(profiler.templates)
    summary["duplicates_skipped"] = profiler.duplicates_skipped
    summary["warnings"] = len(profiler.warnings)
    if args.output and not _is_rumen_target(args.output):
        from mrsim.profiler.store import add_to_store

        if not profiler.templates and not profiler.duplicates_skipped:
            raise InputError(f"{', '.join(args.inputs)}: no replayable job to store")
        update = add_to_store(
            args.output, profiler.templates,
            observations={jid: obs.as_dict() for jid, obs in profiler.observations.items()},
            hosts=profiler.hosts(), sources=[r.as_dict() for r in profiler.inputs],
            conf_values=profiler.trace_conf.as_counts(),
            calibration_toml=_calibration_toml(profiler),
            background_inputs=profiler.background_inputs(),
            job_table_json=True,  # a replay of the store then reads no Parquet: no pyarrow import (0.1-0.2 s)
        )
        summary.update(kind="store", created=update.created, jobs_added=update.added,
                       duplicates_skipped=profiler.duplicates_skipped + update.skipped,
                       jobs_total=update.jobs, tasks_total=update.maps + update.reduces)
    if args.topology:
        summary["topology"] = _write_topology(profiler, args)
    summary["wall_s"] = round(time.perf_counter() - started, 4)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(summary) + b"\n")
    else:
        _print_summary(summary)
    return 0


def _all_logged(profiler: Any, inputs: list[str]) -> Iterator[dict[str, Any]]:
    count = 0
    for path in inputs:
        for logged in profiler.logged_jobs(path):
            count += 1
            yield logged
    if count == 0:  # raised inside the atomic write: no empty trace is left behind
        raise InputError(f"{', '.join(inputs)}: no job to write")


def _write_topology(profiler: Any, args: argparse.Namespace) -> dict[str, Any]:
    from mrsim.profiler.topology_infer import write_cluster

    hosts = profiler.hosts()
    if not hosts:
        raise InputError(f"{', '.join(args.inputs)}: no attempt names a host; cannot infer the cluster")
    cluster = write_cluster(hosts, args.topology, sources=args.inputs)
    return {"path": args.topology, **{k: v for k, v in cluster.describe().items() if k != "source"}}


def _print_warnings(warnings: list[str], quiet: bool) -> None:
    if quiet:
        return
    for w in warnings:
        print(f"mrsim: warning: {w}", file=sys.stderr)


def _print_summary(s: dict[str, Any]) -> None:
    for r in s["inputs"]:
        print(f"{r['path']}: {r['format']}, {r['jobs_read']} jobs read, {r['jobs_added']} profiled, "
              f"{r['duplicates_skipped']} duplicate ids skipped, {r['jobs_without_work']} without completed work")
    if s["kind"] == "store":
        verb = "created" if s["created"] else "updated"
        print(f"{verb} trace store {s['output']}: {s['jobs_added']} jobs added, {s['duplicates_skipped']} duplicates "
              f"skipped, {s['jobs_total']} jobs / {s['tasks_total']:,} tasks in total")
    elif s["kind"] == "rumen":
        print(f"wrote Rumen trace {s['output']}: {s['jobs_written']} jobs")
    if "topology" in s:
        t = s["topology"]
        print(f"wrote cluster file {t['path']}: {t['nodes']} nodes on {t['racks']} racks, "
              f"{t['map_slots']} map + {t['reduce_slots']} reduce slots")


def _load_side(path: str) -> list:
    from mrsim.profiler.store import is_store, load_store
    from mrsim.profiler.workloads import load_workload

    if not Path(path).exists():
        raise InputError(f"{path}: no such file or directory")
    return list((load_store(path) if is_store(path) else load_workload(path)).jobs)


def _select(jobs: list, job_id: str | None, path: str) -> list:
    if job_id is None:
        return jobs
    chosen = [t for t in jobs if t.job_id == job_id]
    if not chosen:
        raise InputError(f"{path}: no job {job_id}")
    return chosen


def _run_compare(args: argparse.Namespace) -> int:
    from mrsim.profiler.kl import DEFAULT_EPSILON, compare_phases

    if len(args.job) > 2:
        raise InputError("--job takes at most two values (A's job, then B's)")
    job_a = args.job[0] if args.job else None
    job_b = args.job[-1] if args.job else None
    bins: int | str = args.bins
    if bins != "auto":
        try:
            bins = int(bins)
        except ValueError:
            raise InputError(f"--bins expects a positive integer or 'auto', got {args.bins!r}") from None
    epsilon = DEFAULT_EPSILON if args.epsilon is None else args.epsilon
    a_path, b_path = args.compare
    a = _select(_load_side(a_path), job_a, a_path)
    b = _select(_load_side(b_path), job_b, b_path)
    phases = compare_phases(a, b, bins=bins, epsilon=epsilon)
    doc = {
        "a": {"path": a_path, "job": job_a, "jobs": len(a)},
        "b": {"path": b_path, "job": job_b, "jobs": len(b)},
        "bins": bins, "epsilon": epsilon, "unit": "nats",
        "phases": {c.phase.value: c.as_dict() for c in phases},
    }
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(doc) + b"\n")
        return 0
    print(f"symmetric KL divergence D'(P||Q) (nats), bins {bins}, epsilon {epsilon:g}")
    print(f"A: {a_path}{' job ' + job_a if job_a else ''} ({len(a)} jobs)")
    print(f"B: {b_path}{' job ' + job_b if job_b else ''} ({len(b)} jobs)")
    print(f"{'phase':<8} {'D_prime':>9} {'bins':>5} {'n A':>7} {'n B':>7} {'mean A s':>9} {'mean B s':>9}")
    for c in phases:
        kl = "n/a" if c.kl is None else f"{c.kl:.4f}"
        mean_a = "" if c.mean_a_s is None else f"{c.mean_a_s:.2f}"
        mean_b = "" if c.mean_b_s is None else f"{c.mean_b_s:.2f}"
        print(f"{c.phase.value:<8} {kl:>9} {c.bins:>5} {c.n_a:>7} {c.n_b:>7} {mean_a:>9} {mean_b:>9}")
    return 0


def _calibration_toml(profiler: Any) -> str | None:
    """The calibration of the logs just read (as the trace's own confs say about out-of-band heartbeats), merged
    with the calibrations of the stores read (so a store profiled from a store keeps it)."""
    measured = profiler.measured_calibration()
    return None if measured is None else measured.to_toml()
