"""Sweep throughput (cells per second) for a grid of short replays, on the local pool and on Dask.

Usage: python3 benchmarks/bench_sweep.py [--workers N] [--replications 25] [--jobs 4] [--model slots|fluid]
       [--skip-dask]
       python3 benchmarks/bench_sweep.py --cli [--repeat 3] [--spec SPEC.toml] [--workers N] [--replications 25]

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
all cells is asserted equal to the baseline's, so skipping work cannot pass as a speed-up. ``wait s`` is the whole
``run_sweep`` call (start-up, cells, table, executor shutdown) and ``x local`` its ratio to the local pool's
(adaptive), the throughput ratio with each executor's own start-up and shutdown counted. In-process, the Dask
workers' fork server is forked at the start (as ``mrsim sweep`` forks it), so its import of Dask overlaps the serial
baseline and is not in the Dask rows' start-up; the second Dask run reuses it as well.

``--cli`` measures what a user waits for instead: whole ``mrsim sweep SPEC -o R.parquet --executor local|dask
--workers N --json`` processes (interpreter start, imports, executor start-up, cells, table, shutdown), alternating
local and Dask ``--repeat`` times, each in a fresh process, and prints the minimum process wall time of each and
their ratio (local / Dask: Dask's throughput as a fraction of the pool's), with the CPU seconds of each run's whole
process tree (on Linux the benchmark adopts the sweep's orphaned helpers to count them) and the load average; it
checks that both executors wrote the same table (timing columns dropped). ``--spec`` times a given spec file (for
example ``examples/sweeps/simmr_edf.toml``) instead of the generated grid.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
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


def _become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``), so that the CPU of a sweep's
    whole process tree (its fork server, the cluster's host, workers and nannies, which outlive or are not children
    of the ``mrsim sweep`` process) is reaped here and counted; False where that is not available."""
    import ctypes

    try:
        return sys.platform.startswith("linux") and ctypes.CDLL(None, use_errno=True).prctl(36, 1) == 0
    except (OSError, AttributeError):
        return False


def _reap_tree(deadline_s: float = 30.0) -> None:
    """Wait for every adopted descendant to end (each sweep's helpers end once its driver has)."""
    end = time.perf_counter() + deadline_s
    while time.perf_counter() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.005)


def _children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _cli_runs(spec_file: Path, out_dir: Path, workers: int, repeat: int) -> int:
    """Alternate whole ``mrsim sweep`` processes on each executor; print each run, its process tree's CPU and the
    minima's ratio; check that both executors simulated the same events and wrote the same table."""
    import orjson

    from mrsim.analysis.sweeps import deterministic_view

    subreaper = _become_subreaper()
    walls: dict[str, list[float]] = {"local": [], "dask": []}
    cpus: dict[str, list[float]] = {"local": [], "dask": []}
    tables: dict[str, bytes] = {}
    print(f"{'run':<8} {'repeat':>6} {'process s':>10} {'sweep s':>8} {'start s':>8} {'cells/s':>8} {'tasks':>6} "
          f"{'driver':>6} {'tree cpu s':>10} {'load':>5}")
    for i in range(repeat):
        for executor in ("local", "dask"):
            out = out_dir / f"cli-{executor}.parquet"
            cmd = [sys.executable, "-m", "mrsim", "sweep", str(spec_file), "-o", str(out), "--executor", executor,
                   "--workers", str(workers), "--restart", "--json", "--quiet"]
            load = os.getloadavg()[0]
            cpu0 = _children_cpu_s()
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, check=False, env={**os.environ, "PYTHONWARNINGS": "ignore"})
            wall = time.perf_counter() - t0
            _reap_tree()
            cpu = _children_cpu_s() - cpu0
            if proc.returncode != 0:
                print(proc.stderr.decode(errors="replace"), file=sys.stderr)
                return 1
            stats = orjson.loads(proc.stdout.splitlines()[-1])
            walls[executor].append(wall)
            cpus[executor].append(cpu)
            # both executors must compute the same cells: the same table once the timing columns are dropped
            table = deterministic_view(read_results(out)).to_csv(index=False).encode()
            assert tables.setdefault(executor, table) == table == tables.get("local", table), executor
            print(f"{executor:<8} {i + 1:>6} {wall:>10.2f} {stats['wall_s']:>8.2f} {stats['startup_s']:>8.2f} "
                  f"{stats['cells_per_s']:>8.1f} {stats['chunks']:>6} {stats['in_driver']:>6} "
                  f"{cpu if subreaper else float('nan'):>10.2f} {load:>5.1f}")
    best = {k: min(v) for k, v in walls.items()}
    print(f"min of {repeat}: local {best['local']:.2f} s, dask {best['dask']:.2f} s per whole process; "
          f"dask / local throughput = {best['local'] / best['dask']:.2f}x; process-tree CPU (min) local "
          f"{min(cpus['local']):.2f} s, dask {min(cpus['dask']):.2f} s; tables identical; load average "
          f"{os.getloadavg()[0]:.1f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--replications", type=int, default=25)
    ap.add_argument("--jobs", type=int, default=4, help="jobs per workload (slots) or x50 SWIM jobs (fluid)")
    ap.add_argument("--model", choices=["slots", "fluid"], default="slots")
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--cli", action="store_true", help="time whole `mrsim sweep` processes, local vs dask")
    ap.add_argument("--repeat", type=int, default=3, help="--cli: runs of each executor (the minimum counts)")
    ap.add_argument("--spec", type=Path, help="--cli: a spec file to time instead of the generated grid")
    args = ap.parse_args(argv)
    if not args.cli and not args.skip_dask:
        # as `mrsim sweep` does: the Dask workers' fork server forked now, while this process has one thread (the
        # pool runs below leave threads behind, and a fresh server would import numpy and the engines again); its
        # import of Dask then overlaps the serial baseline, so the in-process Dask rows leave it out (--cli counts it)
        from mrsim.analysis.sweeps.forkserver import fork_dask_forkserver

        fork_dask_forkserver()

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if args.cli:
            spec_file = args.spec.resolve() if args.spec else d / "bench.toml"
            if not args.spec:
                if args.model == "fluid":
                    _swim(d, args.jobs * 50)
                    spec_file.write_text(FLUID.format(replications=args.replications))
                else:
                    spec_file.write_text(SLOTS.format(replications=args.replications, jobs=args.jobs))
            print(f"{spec_file.name}: whole `mrsim sweep` processes, {args.workers} workers, "
                  f"load average {os.getloadavg()[0]:.1f}")
            return _cli_runs(spec_file, d, args.workers, args.repeat)
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
              f"{'cpu s':>7} {'busy':>5} {'wait s':>7} {'x local':>7}")
        print(f"{'serial, in-process':<28} {len(cells):>6} {'-':>6} {serial:>8.2f} {0.0:>8.2f} "
              f"{len(cells) / serial:>9.1f} {len(cells) / serial:>10.1f} {serial_cpu:>7.2f} "
              f"{serial_cpu / serial:>5.2f} {serial:>7.2f} {'':>7}")
        runs = [("local pool, adaptive", ExecutorOptions(ExecutorKind.LOCAL, args.workers), None),
                ("local pool, chunk 1", ExecutorOptions(ExecutorKind.LOCAL, args.workers), 1)]
        if not args.skip_dask:
            runs += [("dask LocalCluster, adaptive", ExecutorOptions(ExecutorKind.DASK, args.workers), None),
                     ("dask LocalCluster, chunk 1", ExecutorOptions(ExecutorKind.DASK, args.workers), 1)]
        local_wait = 0.0
        for name, options, chunk in runs:
            out = d / f"{name.replace(' ', '_').replace(',', '')}.parquet"
            t0 = time.perf_counter()
            stats = run_sweep(spec, out, options, restart=True, chunk_size=chunk)
            wait = time.perf_counter() - t0  # what the caller waited for: start-up, cells, table, shutdown
            local_wait = local_wait or wait
            table = read_results(out)
            events = int(table["events"].sum())
            assert stats.computed == len(cells) and events == baseline_events, (name, stats.computed, events)
            work = stats.wall_s - stats.startup_s
            cpu = float(table["cell_cpu_s"].sum())
            print(f"{name:<28} {stats.computed:>6} {stats.chunks:>6} {stats.wall_s:>8.2f} {stats.startup_s:>8.2f} "
                  f"{stats.cells_per_s:>9.1f} {stats.computed / work if work > 0 else 0:>10.1f} {cpu:>7.2f} "
                  f"{cpu / (work * args.workers) if work > 0 else 0:>5.2f} {wait:>7.2f} {local_wait / wait:>7.2f}")
    print(f"peak RSS of the driver {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"workers: {args.workers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
