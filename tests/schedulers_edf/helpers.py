"""Shared builders for the EDF tests."""

from __future__ import annotations

import numpy as np

from mrsim.templates import JobTemplate, Priority, Workload


def random_workload(seed: int, jobs: int = 25) -> Workload:
    """Seeded random jobs of every kind (map-less, reduce-less, first/typical shuffles, priorities)."""
    rng = np.random.default_rng(seed)
    out = []
    t = 0.0
    for j in range(jobs):
        t += float(rng.exponential(20.0))
        m = int(rng.integers(0, 30)) if j % 7 else 0
        r = int(rng.integers(0 if m else 1, 8))
        out.append(JobTemplate(
            job_id=f"job_{j:04d}", submit_s=t,
            map_durations=rng.lognormal(2.5, 1.0, m), reduce_durations=rng.lognormal(2.0, 1.0, r),
            first_shuffle_durations=rng.uniform(0, 5, int(rng.integers(0, 3))),
            typical_shuffle_durations=rng.uniform(0, 10, int(rng.integers(0, 3))),
            priority=Priority(int(rng.integers(0, 5))),
        ))
    return Workload.of(out, source=f"random seed {seed}")


def peak_concurrency(starts, finishes) -> int:
    """Most intervals [start, finish) open at once (a finish at t frees before a start at t)."""
    events = sorted([(s, 1) for s in starts] + [(f, -1) for f in finishes], key=lambda e: (e[0], e[1]))
    level = peak = 0
    for _, d in events:
        level += d
        peak = max(peak, level)
    return peak
