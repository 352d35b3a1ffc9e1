"""Benchmark the contention package on fixed synthetic workloads; prints figures, asserts event counts.

Run: ``python3 benchmarks/bench_contention.py [--quick]``. Times are process CPU seconds (``time.process_time``),
so a busy shared machine does not inflate them.

1. Raw Bard-Schweitzer AMVA on section 5.6's set-up: 5 devices, 100 one-job classes, demands U(1, 100) s,
   tolerance 5e-4 (the dissertation reports 39 sweeps and 147 ms per solve in Java on a laptop).
2. The cached incremental model under an engine-like replay: 100 four-core nodes with one disk, 8 map slots
   each, a FIFO-ish stream of 40 jobs (one map shape and one reduce shape each, sizes varying per task);
   every finished task is replaced by the next task of the head-of-queue job. Prints node operations per
   second, AMVA solves per second, the cache hit rate and peak RSS.
3. The same per-node streams through the literal Epochs algorithm (one AMVA class per task, no cache) on a
   subset of nodes, as the baseline; the completion times must agree.
"""

from __future__ import annotations

import argparse
import heapq
import resource
import time

import numpy as np

from mrsim.contention.amva import schweitzer_amva
from mrsim.contention.epochs import epochs
from mrsim.contention.incremental import MixCache, NodeContention
from mrsim.contention.node import NodeSpec


def bench_amva(reps: int) -> None:
    rng = np.random.default_rng(5)
    demands = rng.uniform(1.0, 100.0, (100, 5)).tolist()
    sweeps = []
    t0 = time.process_time()
    for _ in range(reps):
        res = schweitzer_amva(demands, [1.0] * 100, tol=5e-4)
        sweeps.append(res.iterations)
    dt = (time.process_time() - t0) / reps
    print(f"[1] AMVA 100 classes x 5 queues, tol 5e-4: {dt * 1e3:.1f} ms/solve, {np.mean(sweeps):.0f} sweeps")


def bench_node_solve(reps: int) -> None:
    """Uncached solves of a typical node mix: 4 cores + 1 disk, 3 shapes with 4, 3 and 1 tasks."""
    from mrsim.contention.node import solve_mix

    spec = NodeSpec(cores=4, disks=1)
    rows = [(40.0, 10.0), (12.0, 30.0), (25.0, 2.0)]
    t0 = time.process_time()
    for _ in range(reps):
        sol = solve_mix(spec, rows, [4, 3, 1], checked=True)
    dt = time.process_time() - t0
    print(f"[1b] node mix (3 shapes, 8 tasks, 4 cores + disk), uncached: {reps / dt:,.0f} solves/s, "
          f"{sol.amva.iterations} sweeps")


def replay(
    n_nodes: int, n_tasks: int, seed: int
) -> tuple[dict, list[list[tuple[float, tuple[float, ...], int]]], dict[int, float], float]:
    """Engine-like loop; returns counters, each node's local stream (start, demand, key), end times, wall time."""
    rng = np.random.default_rng(seed)
    spec = NodeSpec(cores=4, disks=1)
    cache = MixCache(spec)
    n_jobs = 40
    map_shapes = rng.uniform(0.2, 1.0, (n_jobs, 2)) * np.array([60.0, 15.0])
    red_shapes = rng.uniform(0.2, 1.0, (n_jobs, 2)) * np.array([30.0, 40.0])
    nodes = [NodeContention(cache) for _ in range(n_nodes)]
    streams: list[list[tuple[float, tuple[float, ...], int]]] = [[] for _ in range(n_nodes)]
    heap: list[tuple[float, int, int, int]] = []  # (time, seq, node, version)
    ends: dict[int, float] = {}
    seq = 0
    started = finished = ops = 0
    head = 0  # FIFO: the head job supplies tasks; a few jobs overlap at its tail
    per_job = n_tasks // n_jobs
    left = [per_job] * n_jobs

    def next_task() -> tuple[float, ...] | None:
        nonlocal head
        while head < n_jobs and left[head] == 0:
            head += 1
        if head >= n_jobs:
            return None
        j = head if rng.random() < 0.85 or head + 1 >= n_jobs or left[head + 1] == 0 else head + 1
        left[j] -= 1
        shape = map_shapes[j] if left[j] >= per_job // 3 else red_shapes[j]
        size = float(rng.uniform(0.5, 1.5))
        return (float(shape[0]) * size, float(shape[1]) * size)

    def start(i: int, now: float) -> None:
        nonlocal started, ops
        d = next_task()
        if d is None:
            return
        nodes[i].add_task(started, d, now)
        streams[i].append((now, d, started))
        started += 1
        ops += 1

    def schedule(i: int) -> None:
        nonlocal seq
        nxt = nodes[i].next_completion()
        if nxt is not None:
            seq += 1
            heapq.heappush(heap, (nxt[0], seq, i, nodes[i].version))

    t0 = time.process_time()
    for i in range(n_nodes):
        for _ in range(8):
            start(i, 0.0)
        schedule(i)
    while heap:
        t, _, i, version = heapq.heappop(heap)
        node = nodes[i]
        if version != node.version:
            continue  # tombstone: the mix changed since this prediction
        _, key = node.next_completion()
        node.remove_task(key, t)
        ends[key] = t
        finished += 1
        ops += 1
        start(i, t)
        schedule(i)
    wall = time.process_time() - t0
    stats = cache.stats()
    stats.update(started=started, finished=finished, ops=ops)
    return stats, streams, ends, wall


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller workload (for a smoke run)")
    args = ap.parse_args()
    n_nodes, n_tasks = (20, 2_000) if args.quick else (100, 40_000)

    bench_amva(reps=3 if args.quick else 10)
    bench_node_solve(reps=2_000 if args.quick else 20_000)

    stats, streams, ends, wall = replay(n_nodes, n_tasks, seed=1)
    assert stats["started"] == stats["finished"] == n_tasks, stats  # no skipped work
    solves, hits = stats["solves"], stats["hits"]
    print(
        f"[2] incremental: {n_nodes} nodes, {n_tasks} tasks, {stats['ops']} add/remove ops in {wall:.2f} CPU s: "
        f"{stats['ops'] / wall:,.0f} ops/s, {(hits + solves) / wall:,.0f} solved mixes/s; {solves} AMVA solves, "
        f"hit rate {hits / (hits + solves):.1%}, {stats['sweeps'] / max(solves, 1):.1f} sweeps/solve, "
        f"{stats['shapes']} shapes, {stats['nonconverged']} non-converged"
    )

    subset = range(0, n_nodes, max(1, n_nodes // 5))
    t0 = time.process_time()
    n_epoch_solves = 0
    worst = 0.0
    for i in subset:
        stream = streams[i]
        ref = epochs([(s, d) for s, d, _ in stream], NodeSpec(4, 1), keep_epochs=False)
        n_epoch_solves += ref.solves
        worst = max(worst, max(abs(e - ends[key]) / e for e, (_, _, key) in zip(ref.end_times, stream)))
    literal = time.process_time() - t0
    tasks_subset = sum(len(streams[i]) for i in subset)
    print(
        f"[3] literal Epochs on {len(subset)} nodes ({tasks_subset} tasks): {literal:.2f} CPU s, "
        f"{n_epoch_solves} solves; "
        f"incremental on all {n_nodes} nodes: {wall:.2f} s -> "
        f"{(literal / tasks_subset) / (wall / n_tasks):.1f}x less time per task; "
        f"max relative difference in end times {worst:.1e}"
    )
    assert worst < 1e-6
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
