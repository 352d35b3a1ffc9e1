"""The calibration collector alone: ``CalibrationCollector.add_plain`` over every job of a trace, then ``result()``.

Reads the trace once in this process as the one-pass ingest does (the Rumen reader's typed path: plain jobs come
with their columns, :mod:`mrsim.profiler.typed`; other jobs as dicts), keeps the jobs, then measures the CPU of the
collector alone (``add_plain`` for plain jobs, ``add_job`` for the others, then ``result``; the cyclic GC paused,
as the pass runs), min of ``--repeat`` runs. ``--before DIR``: also the collector of an older tree (its
``mrsim/calibration/extract.py`` loaded as a module of its own, with this tree's other modules: valid while the
modules it imports keep their interface), in rounds that interleave the two, on the same jobs, asserting the same
:class:`~mrsim.calibration.model.Calibration` (``repr``: every field, samples and notes included).

``--general``: every job through ``add_job`` (the per-attempt path; plain jobs as dicts). ``--gc``: the cyclic GC on.
``--only read`` / ``--only adds`` / ``--only this``: for ``valgrind --tool=callgrind``, read the jobs only, or read
them and run this tree's collector's adds once, or the adds and ``result``; the collector's instructions (and those
of ``result``, the tail of the pass after the reader's last job) are the differences of the counts.

``--tail``: the pass's tail in a whole replay instead: ``python3 -m mrsim replay TRACE --nodes 64 --map-slots 1
--reduce-slots 1 --json --no-cache`` in a fresh process (the forked reader forced on, ``MRSIM_INGEST_WORKER=always``,
whatever the load), this tree and ``--before``'s interleaved, ``--repeat`` rounds; per run the CPU and wall time
from the start of ``CalibrationCollector.result`` (the pass has handled its last job) to the engine's start
(``mrsim.tracker.replay.replay``), ``result``'s own CPU, and the whole process's wall; min of each. The digest of
each ``--json`` output (minus ``summary.wall_s`` and ``summary.events_per_s``) must agree between the trees.

The default trace is the ingest benchmark's (``mrsim synth --jobs 1148 --seed 7``: 300,793 tasks), written to a
scratch directory unless ``--trace`` names one.

Usage: ``python3 benchmarks/bench_calibration.py [--trace T] [--repeat 5] [--before DIR] [--general] [--gc] [--tail]``
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any


def read_jobs(trace: Path, general: bool) -> list[tuple[Any, Any]]:
    """``(job, columns or None)`` per job, in file order; the columns' arrays made (the pass's first collector
    makes them; every collector shares them)."""
    from mrsim.profiler.detect import Format, iter_logged_jobs
    from mrsim.profiler.plain import plain_job
    from mrsim.profiler.typed import TypedJob, full_job

    jobs = []
    for logged in iter_logged_jobs(trace, Format.RUMEN, warnings=[], typed=True):
        plain = logged.columns if type(logged) is TypedJob else plain_job(logged)
        if general:
            jobs.append((full_job(logged) if type(logged) is TypedJob else logged, None))
            continue
        if plain is not None:
            plain.arrays()
        jobs.append((logged, plain))
    return jobs


def run(module: ModuleType, jobs: list[tuple[Any, Any]], source: str, with_gc: bool,
        adds_only: bool = False) -> tuple[float, float, Any]:
    """(CPU s of the adds, CPU s of ``result``, the calibration) of ``module``'s collector over ``jobs`` (no
    ``result`` when ``adds_only``: 0 s and None)."""
    collector = module.CalibrationCollector()
    gc.enable() if with_gc else gc.disable()
    try:
        started = time.process_time()
        for job, plain in jobs:
            if plain is None:
                collector.add_job(job)
            else:
                collector.add_plain(job, plain)
        added = time.process_time()
        calibration = None if adds_only else collector.result(source, None)
        done = time.process_time()
    finally:
        gc.enable()
    return added - started, done - added, calibration


#: Run in a fresh interpreter by --tail (argv: trace, marks file): times the tail and runs the CLI's replay.
_TAIL_DRIVER = """
import os, sys, time
trace, out = sys.argv[1], sys.argv[2]
marks = {}
def mark(name):
    marks.setdefault(name, (time.perf_counter(), time.process_time()))
import mrsim.calibration.extract as extract, mrsim.tracker.replay as engine
result, replay = extract.CalibrationCollector.result, engine.replay
def timed_result(self, *a, **k):
    mark("result")
    try:
        return result(self, *a, **k)
    finally:
        mark("result end")
def timed_replay(*a, **k):
    mark("engine")
    with open(out, "w") as f:
        f.write(repr(marks))
    return replay(*a, **k)
extract.CalibrationCollector.result, engine.replay = timed_result, timed_replay
from mrsim.cli import main
sys.argv = ["mrsim", "replay", trace, "--nodes", "64", "--map-slots", "1", "--reduce-slots", "1", "--json",
            "--no-cache"]
sys.exit(main())
"""


def _json_digest(text: str) -> str:
    """A hash of a ``--json`` output without its wall-clock fields (``summary.wall_s``, ``summary.events_per_s``)."""
    import hashlib
    import json

    doc = json.loads(text)
    for key in ("wall_s", "events_per_s"):
        doc["summary"].pop(key, None)
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def tail(trees: dict[str, Path], trace: Path, repeat: int) -> None:
    """``--tail``: see the module docstring."""
    import ast
    import os

    best = {name: [float("inf")] * 4 for name in trees}
    digests: dict[str, set[str]] = {name: set() for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        marks_file = Path(tmp) / "marks"
        for _ in range(repeat):
            for name, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": str(tree), "MRSIM_INGEST_WORKER": "always"}
                started = time.perf_counter()
                done = subprocess.run([sys.executable, "-c", _TAIL_DRIVER, str(trace.resolve()), str(marks_file)],
                                      cwd=tmp, env=env, capture_output=True, text=True, check=True)
                wall = time.perf_counter() - started
                marks = ast.literal_eval(marks_file.read_text())
                digests[name].add(_json_digest(done.stdout))
                (w0, c0), (_w1, c1), (w2, c2) = marks["result"], marks["result end"], marks["engine"]
                b = best[name]
                b[0], b[1], b[2], b[3] = min(b[0], w2 - w0), min(b[1], c2 - c0), min(b[2], c1 - c0), min(b[3], wall)
    load = os.getloadavg()[0]
    print(f"the pass's tail (result's start to the engine's start), min of {repeat}, load {load:.1f} at the end:")
    for name, (wall, cpu, result_cpu, whole) in best.items():
        print(f"  {name:<10} tail {1e3 * wall:5.1f} ms wall, {1e3 * cpu:5.1f} ms CPU (result {1e3 * result_cpu:5.1f} ms "
              f"CPU); whole process {whole:.3f} s wall")
    assert all(len(d) == 1 for d in digests.values()) and len(set.union(*digests.values())) == 1, \
        "the --json outputs differ"
    if len(trees) > 1:
        print(f"  same --json output; tail CPU this tree / before: {best['this tree'][1] / best['before'][1]:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--trace", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", type=Path, help="an older tree whose collector runs beside this one")
    ap.add_argument("--general", action="store_true", help="every job through add_job")
    ap.add_argument("--gc", action="store_true", help="the cyclic GC on while the collector runs")
    ap.add_argument("--only", choices=("read", "adds", "this"),
                    help="for callgrind: read only, or read and run the adds (and result) once")
    ap.add_argument("--tail", action="store_true", help="the pass's tail in whole replays (see the docstring)")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    if args.tail:
        trees = {"before": args.before} if args.before is not None else {}
        trees["this tree"] = Path(__file__).resolve().parents[1]
        if args.trace is None:
            ap.error("--tail needs --trace (the trace to replay)")
        tail(trees, args.trace, args.repeat)
        return
    import mrsim.calibration.extract as this

    with tempfile.TemporaryDirectory() as tmp:
        trace = args.trace
        if trace is None:
            trace = Path(tmp) / "b.json.gz"
            subprocess.run([sys.executable, "-m", "mrsim", "synth", "--jobs", "1148", "--seed", "7", "-o", str(trace),
                            "--quiet"], check=True, cwd=tmp)
        jobs = read_jobs(trace, args.general)
        if args.only == "read":
            return
        if args.only in ("adds", "this"):
            run(this, jobs, str(trace), args.gc, adds_only=args.only == "adds")
            return
        versions = {"this tree": this}
        if args.before is not None:
            spec = importlib.util.spec_from_file_location(
                "extract_before", args.before / "mrsim" / "calibration" / "extract.py")
            assert spec is not None and spec.loader is not None
            before = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(before)
            versions = {"before": before, **versions}
        best: dict[str, list[float]] = {name: [float("inf")] * 3 for name in versions}
        results: dict[str, str] = {}
        for _ in range(args.repeat):
            for name, module in versions.items():
                adds, result, calibration = run(module, jobs, str(trace), args.gc)
                results[name] = repr(calibration)
                b = best[name]
                b[0], b[1], b[2] = min(b[0], adds), min(b[1], result), min(b[2], adds + result)
    if args.trace is None:  # the work done, not skipped: every task of the benchmark trace is one attempt
        assert f"attempts={300_793}," in results["this tree"], "the collector did not count every attempt"
    plain = sum(p is not None for _j, p in jobs)
    print(f"{len(jobs)} jobs ({plain} through add_plain), GC {'on' if args.gc else 'paused'}, min of {args.repeat}:")
    for name, (adds, result, total) in best.items():
        print(f"  {name:<10} adds {adds:.3f} s, result {result:.3f} s, both {total:.3f} s CPU")
    if args.before is not None:
        assert results["before"] == results["this tree"], "the two collectors' calibrations differ"
        print(f"  same calibration; this tree / before: {best['this tree'][2] / best['before'][2]:.2f}x")


if __name__ == "__main__":
    main()
