"""Shared builders for the EDF tests."""

from __future__ import annotations

from tests.tracker.helpers import random_workload  # noqa: F401  (re-exported for the EDF tests)


def peak_concurrency(starts, finishes) -> int:
    """Most intervals [start, finish) open at once (a finish at t frees before a start at t)."""
    events = sorted([(s, 1) for s in starts] + [(f, -1) for f in finishes], key=lambda e: (e[0], e[1]))
    level = peak = 0
    for _, d in events:
        level += d
        peak = max(peak, level)
    return peak
