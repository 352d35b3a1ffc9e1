"""Shortest remaining processing time on estimates (Dell'Amico RR-13-282, section 2.3; Schrage and Miller 1966).

The whole server goes to the job with the least *estimated* remaining work, estimate minus attained service. An
under-estimated job keeps the server once its estimate runs out (its key goes negative), which is how the study's
released simulator behaves. Ties go to the earlier arrival; an arrival preempts only with a strictly smaller key.

Only the running job ages, so waiting jobs sit in a heap on ``(estimated remaining, index)`` with their real
remainder alongside; the running job is held outside the heap. Cost: O(log n) per event; 2n events.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Sequence

from mrsim.studies.fluid.schedule import FluidSchedule

_INF = float("inf")


def simulate_srpt(submit: Sequence[float], size: Sequence[float], estimate: Sequence[float]) -> FluidSchedule:
    """SRPT with estimated sizes ``estimate`` (pass ``size`` for exact SRPT); ``submit`` sorted."""
    n = len(submit)
    start = [-1.0] * n
    finish = [0.0] * n
    waiting: list[tuple[float, int, float]] = []
    cur = -1
    cur_est = 0.0
    cur_real = 0.0
    t = 0.0
    k = 0
    events = 0
    while k < n or cur >= 0:
        t_done = t + cur_real if cur >= 0 else _INF
        if k < n and submit[k] < t_done:
            ta = submit[k]
            if cur >= 0:
                served = ta - t
                cur_est -= served
                cur_real -= served
            t = ta
            e = estimate[k]
            if cur < 0:
                cur, cur_est, cur_real = k, e, size[k]
                start[k] = t
            elif e < cur_est:
                heappush(waiting, (cur_est, cur, cur_real))
                cur, cur_est, cur_real = k, e, size[k]
                start[k] = t
            else:
                heappush(waiting, (e, k, size[k]))
            k += 1
        else:
            t = t_done
            finish[cur] = t
            if waiting:
                cur_est, cur, cur_real = heappop(waiting)
                if start[cur] < 0.0:
                    start[cur] = t
            else:
                cur = -1
        events += 1
    return FluidSchedule(start, finish, events)
