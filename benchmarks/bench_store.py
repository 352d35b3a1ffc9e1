"""Trace-store speed: write and load stores of about one million tasks into a Workload.

Usage: python3 benchmarks/bench_store.py [--tasks 1000000] [--repeat 3] [--dir DIR] [--rumen]

Three deterministic workloads of at least ``--tasks`` tasks:

* ``facebook``: SimMR's Facebook-like job sizes (:mod:`mrsim.profiler.synth`, about 265 tasks per job, heavy-tailed);
* ``small-jobs``: 10 tasks per job (8 maps, 2 reduces), the worst case for per-job overhead;
* ``facebook+locations``: the first one with 3 preferred split hosts per map out of 1,000 hosts
  (what stores profiled from real logs carry).

For each it prints the write time, the best-of-``repeat`` warm load time of :func:`mrsim.profiler.store.load_store`
(imports done; wall and CPU seconds, us/job from CPU), the load time with ``verify=True`` (the validating JobTemplate constructor), and a cold load in a
fresh interpreter (``python -c 'load_store(...)'``, imports included). Task counts are asserted after every load, so
skipping work cannot pass as a speed-up. ``--rumen`` also times ``load_workload`` of the same facebook workload as a
gzipped Rumen trace, for comparison (slow: it parses JSON). Peak RSS is printed last.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mrsim.profiler.store import add_to_store, load_store
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.templates import JobTemplate


def facebook(tasks: int) -> list[JobTemplate]:
    jobs = max(1, tasks // 265)
    while True:
        w = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=1))
        if w.n_tasks >= tasks:
            return list(w.jobs)
        jobs = int(jobs * tasks / max(w.n_tasks, 1)) + 10


def small_jobs(tasks: int) -> list[JobTemplate]:
    rng = np.random.default_rng(2)
    n = -(-tasks // 10)
    maps = rng.lognormal(3.0, 1.0, (n, 8))
    reduces = rng.lognormal(3.5, 1.0, (n, 2))
    shuffles = rng.lognormal(1.0, 1.0, (n, 2))
    return [JobTemplate(job_id=f"job_small_{i:07d}", submit_s=float(i), map_durations=maps[i],
                        reduce_durations=reduces[i], typical_shuffle_durations=shuffles[i],
                        actual_completion_s=float(maps[i].sum() + reduces[i].sum()))
            for i in range(n)]


def with_locations(templates: list[JobTemplate]) -> list[JobTemplate]:
    rng = np.random.default_rng(3)
    hosts = [f"/rack{h // 40:02d}/host{h:04d}" for h in range(1000)]
    out = []
    for t in templates:
        picks = rng.integers(0, len(hosts), (t.n_maps, 3))
        out.append(t.with_changes(map_locations=tuple(tuple(hosts[h] for h in row) for row in picks)))
    return out


def best(fn, repeat: int):
    """``(best wall s, best CPU s, result)``: CPU time (this process) is reported too, since wall time on a shared
    machine includes waiting for a core."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus), out


def cold_load(path: Path, tasks: int) -> float:
    code = (f"import time; t = time.perf_counter(); from mrsim.profiler.store import load_store; "
            f"w = load_store({str(path)!r}); assert w.n_tasks == {tasks}; print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=None, help="where to write the stores (default: a temporary directory)")
    ap.add_argument("--rumen", action="store_true", help="also time load_workload of the facebook workload as Rumen JSON")
    args = ap.parse_args(argv)

    fb = facebook(args.tasks)
    cases = {"facebook": fb, "small-jobs": small_jobs(args.tasks), "facebook+locations": with_locations(fb)}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        print(f"trace store, >= {args.tasks:,} tasks per case, best of {args.repeat} (warm); cold = fresh interpreter")
        print(f"{'case':<20} {'jobs':>7} {'tasks':>9} {'MB':>6} {'write s':>8} {'load s':>7} {'cpu s':>6} "
              f"{'us/job':>7} {'verify s':>9} {'cold s':>7}")
        for name, templates in cases.items():
            path = Path(tmp) / name
            tasks = sum(t.n_tasks for t in templates)
            t0 = time.perf_counter()
            update = add_to_store(path, templates)
            write_s = time.perf_counter() - t0
            assert update.jobs == len(templates) and update.maps + update.reduces == tasks
            load_s, load_cpu, loaded = best(lambda: load_store(path), args.repeat)
            assert loaded.n_tasks == tasks and len(loaded) == len(templates)
            verify_s, _, checked = best(lambda: load_store(path, verify=True), 1)
            assert checked.n_tasks == tasks
            cold_s = cold_load(path, tasks)
            size_mb = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
            print(f"{name:<20} {len(templates):>7,} {tasks:>9,} {size_mb:>6.1f} {write_s:>8.3f} {load_s:>7.3f} "
                  f"{load_cpu:>6.3f} {1e6 * load_cpu / len(templates):>7.1f} {verify_s:>9.3f} {cold_s:>7.3f}")
        if args.rumen:
            from mrsim.profiler.rumen_writer import write_rumen_trace
            from mrsim.profiler.synth import template_to_logged_job
            from mrsim.profiler.workloads import load_workload

            trace = Path(tmp) / "facebook.json.gz"
            write_rumen_trace((template_to_logged_job(t) for t in fb), trace)
            tasks = sum(t.n_tasks for t in fb)
            rumen_s, _, w = best(lambda: load_workload(trace), 1)
            assert w.n_tasks == tasks
            print(f"{'facebook as Rumen':<20} {len(fb):>7,} {tasks:>9,} {trace.stat().st_size / 1e6:>6.1f} "
                  f"{'':>8} {rumen_s:>7.3f}  (load_workload of a gzipped Rumen trace)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
