"""Sweep throughput (cells per second) for a grid of short replays, on the local pool and on Dask.

Usage: python3 benchmarks/bench_sweep.py [--workers N] [--replications 25] [--jobs 4] [--model slots|fluid]
       [--skip-dask]

The grid: a synthetic Facebook-like workload of ``--jobs`` jobs on an 8-node cluster in SimMR's task-driven mode,
4 inter-arrival scales x ``--replications`` x 2 scheduler labels (slots), or a generated SWIM trace under 4
disciplines x 3 sigmas x ``--replications`` (fluid): cells of a few milliseconds, where per-task overhead
dominates unless cells are batched. Runs, each from an empty journal:

1. in-process serial loop over :func:`mrsim.analysis.sweeps.run_cell` (the baseline, no executor);
2. local process pool, adaptive chunks, and with ``--chunk-size 1`` (no batching);
3. Dask LocalCluster (``--workers`` processes), adaptive chunks and ``--chunk-size 1``.

For each it prints cells, tasks (chunks), wall time, start-up time, cells/s with and without start-up, the CPU
seconds the cells used (worker ``process_time``) and the busy share: cell CPU / (wall without start-up x workers),
which is below 1 when the machine is shared or the workers wait for the driver. The sum of simulation events over
all cells is asserted equal to the baseline's, so skipping work cannot pass as a speed-up.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mrsim.analysis.sweeps import (ExecutorKind, ExecutorOptions, parse_spec, plan_cells, read_results, run_cell,
                                   run_sweep)

SLOTS = """
name = "bench-slots"
replications = {replications}
schedulers = [{{name = "fifo", label = "fifo-a"}}, {{name = "fifo", label = "fifo-b"}}]
[[workloads]]
generator = "facebook-like"
jobs = {jobs}
[[clusters]]
nodes = 8
[engine]
heartbeat_interval_s = "off"
[grid]
interarrival_scale = [0.5, 1.0, 2.0, 4.0]
"""

FLUID = """
name = "bench-fluid"
model = "fluid"
replications = {replications}
schedulers = ["fifo", "ps", "srpt", "fsp-ps"]
[[workloads]]
trace = "bench.tsv"
[grid]
sigma = [0.0, 0.5, 2.0]
"""


def _swim(directory: Path, jobs: int) -> None:
    rng = np.random.default_rng(0)
    t, lines = 0.0, []
    for i in range(jobs):
        gap = float(rng.exponential(20.0))
        t += gap
        lines.append(f"job{i}\t{t:.0f}\t{gap:.0f}\t" + "\t".join(str(int(x)) for x in rng.lognormal(16, 2, 3)))
    (directory / "bench.tsv").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--replications", type=int, default=25)
    ap.add_argument("--jobs", type=int, default=4, help="jobs per workload (slots) or x50 SWIM jobs (fluid)")
    ap.add_argument("--model", choices=["slots", "fluid"], default="slots")
    ap.add_argument("--skip-dask", action="store_true")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if args.model == "fluid":
            _swim(d, args.jobs * 50)
            text = FLUID.format(replications=args.replications)
        else:
            text = SLOTS.format(replications=args.replications, jobs=args.jobs)
        import tomllib

        spec = parse_spec(tomllib.loads(text), "bench", d)
        cells = plan_cells(spec)
        t0, c0 = time.perf_counter(), time.process_time()
        baseline_events = sum(int(run_cell(c)["events"]) for c in cells)
        serial, serial_cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{spec.name}: {len(cells)} cells, {baseline_events:,} events in total, "
              f"{1000 * serial / len(cells):.1f} ms per cell serially")
        print(f"{'run':<28} {'cells':>6} {'tasks':>6} {'wall s':>8} {'start s':>8} {'cells/s':>9} {'w/o start':>10} "
              f"{'cpu s':>7} {'busy':>5}")
        print(f"{'serial, in-process':<28} {len(cells):>6} {'-':>6} {serial:>8.2f} {0.0:>8.2f} "
              f"{len(cells) / serial:>9.1f} {len(cells) / serial:>10.1f} {serial_cpu:>7.2f} {serial_cpu / serial:>5.2f}")
        runs = [("local pool, adaptive", ExecutorOptions(ExecutorKind.LOCAL, args.workers), None),
                ("local pool, chunk 1", ExecutorOptions(ExecutorKind.LOCAL, args.workers), 1)]
        if not args.skip_dask:
            runs += [("dask LocalCluster, adaptive", ExecutorOptions(ExecutorKind.DASK, args.workers), None),
                     ("dask LocalCluster, chunk 1", ExecutorOptions(ExecutorKind.DASK, args.workers), 1)]
        for name, options, chunk in runs:
            out = d / f"{name.replace(' ', '_').replace(',', '')}.parquet"
            stats = run_sweep(spec, out, options, restart=True, chunk_size=chunk)
            table = read_results(out)
            events = int(table["events"].sum())
            assert stats.computed == len(cells) and events == baseline_events, (name, stats.computed, events)
            work = stats.wall_s - stats.startup_s
            cpu = float(table["cell_cpu_s"].sum())
            print(f"{name:<28} {stats.computed:>6} {stats.chunks:>6} {stats.wall_s:>8.2f} {stats.startup_s:>8.2f} "
                  f"{stats.cells_per_s:>9.1f} {stats.computed / work if work > 0 else 0:>10.1f} {cpu:>7.2f} "
                  f"{cpu / (work * args.workers) if work > 0 else 0:>5.2f}")
    print(f"peak RSS of the driver {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"workers: {args.workers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
