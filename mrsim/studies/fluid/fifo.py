"""FIFO (first come, first served) on one server of capacity 1 (Dell'Amico RR-13-282, section 2.3)."""

from __future__ import annotations

from typing import Sequence

from mrsim.studies.fluid.schedule import FluidSchedule


def simulate_fifo(submit: Sequence[float], size: Sequence[float]) -> FluidSchedule:
    """Serve jobs one at a time in input order (arrivals must be sorted). Cost: O(1) per job.

    Events: one arrival and one completion per job (2n).
    """
    n = len(submit)
    start = [0.0] * n
    finish = [0.0] * n
    free = float("-inf")
    for i in range(n):
        a = submit[i]
        s = a if a > free else free
        start[i] = s
        free = s + size[i]
        finish[i] = free
    return FluidSchedule(start, finish, 2 * n)
