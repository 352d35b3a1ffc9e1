"""Deliberately naive fluid reference: every discipline by explicit per-job rates, O(n) work per event.

Between events every present job's remainder (and, for FSP, every virtual job's remainder) is decremented
explicitly and the next event is found by scanning all jobs. It shares no data structure with the fast versions
(:mod:`mrsim.studies.fluid.ps`, :mod:`~mrsim.studies.fluid.fsp`, ...), which makes it a test oracle and the benchmark baseline.
Same semantics and tie rules: completions, then internal events, then arrivals; ties by lower job index.

Cost: O(n) per event, O(n^2) per run. Only for tests and ``benchmarks/bench_fluid.py``.
"""

from __future__ import annotations

from typing import Sequence

from mrsim.studies.fluid.policy import FluidPolicy
from mrsim.studies.fluid.schedule import FluidSchedule

_INF = float("inf")


def naive_simulate(submit: Sequence[float], size: Sequence[float], estimate: Sequence[float],
                   policy: FluidPolicy) -> FluidSchedule:
    """Reference simulation of ``policy`` (see the module docstring); ``submit`` sorted."""
    n = len(submit)
    start = [-1.0] * n
    finish = [0.0] * n
    rem: dict[int, float] = {}  # present jobs -> real remaining work; dict order = arrival order
    attained: dict[int, float] = {}
    vrem: dict[int, float] = {}  # FSP virtual system -> virtual remaining work
    late: list[int] = []  # FSP, in lateness order
    fsp = policy in (FluidPolicy.FSP_FIFO, FluidPolicy.FSP_PS)
    t = 0.0
    k = 0
    events = 0
    while k < n or rem:
        rates = _rates(policy, rem, attained, estimate, vrem, late)
        for i, r in rates.items():
            if start[i] < 0.0 and r > 0.0:
                start[i] = t
        # Earliest completion, ties by index.
        dt_c, i_c = _INF, -1
        for i, r in rates.items():
            if r > 0.0:
                d = max(rem[i], 0.0) / r
                if d < dt_c:
                    dt_c, i_c = d, i
        # Earliest internal event.
        dt_i, i_i, merge_level = _INF, -1, 0.0
        if fsp and vrem:
            nv = len(vrem)
            for i, x in vrem.items():
                d = max(x, 0.0) * nv
                if d < dt_i or (d == dt_i and i < i_i):
                    dt_i, i_i = d, i
        elif policy is FluidPolicy.LAS and rates:
            level = attained[next(iter(rates))]
            above = [a for a in attained.values() if a > level]
            if above:
                merge_level = min(above)
                dt_i = (merge_level - level) * len(rates)
        dt_a = submit[k] - t if k < n else _INF
        dt = min(dt_c, dt_i, dt_a)
        dt = dt if dt > 0.0 else 0.0
        for i, r in rates.items():
            rem[i] -= r * dt
            attained[i] += r * dt
        if vrem:
            share = dt / len(vrem)
            for i in vrem:
                vrem[i] -= share
        t += dt
        if dt_c <= dt_i and dt_c <= dt_a:
            finish[i_c] = t
            del rem[i_c], attained[i_c]
            if i_c in late:
                late.remove(i_c)
        elif dt_i <= dt_a:
            if fsp:
                del vrem[i_i]
                if i_i in rem:
                    late.append(i_i)
            else:  # LAS: the served group reaches the next level; equalise the rounding
                for i in rates:
                    attained[i] = merge_level
        else:
            t = submit[k]
            rem[k] = size[k]
            attained[k] = 0.0
            if fsp:
                vrem[k] = estimate[k]
            k += 1
        events += 1
    return FluidSchedule(start, finish, events)


def _rates(policy: FluidPolicy, rem: dict[int, float], attained: dict[int, float], estimate: Sequence[float],
           vrem: dict[int, float], late: list[int]) -> dict[int, float]:
    if not rem:
        return {}
    if policy is FluidPolicy.FIFO:
        return {min(rem): 1.0}
    if policy is FluidPolicy.PS:
        share = 1.0 / len(rem)
        return {i: share for i in rem}
    if policy is FluidPolicy.SRPT:
        return {min(rem, key=lambda i: (estimate[i] - attained[i], i)): 1.0}
    if policy is FluidPolicy.LAS:
        low = min(attained.values())
        group = [i for i in rem if attained[i] == low]
        return {i: 1.0 / len(group) for i in group}
    if late:
        if policy is FluidPolicy.FSP_FIFO:
            return {late[0]: 1.0}
        return {i: 1.0 / len(late) for i in late}
    return {min((i for i in rem if i in vrem), key=lambda i: (vrem[i], i)): 1.0}
