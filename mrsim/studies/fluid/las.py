"""Least attained service (foreground-background) on one server of capacity 1.

The jobs with the least attained service share the server equally; all others wait. LAS ignores sizes and
estimates. It is not one of the study's four disciplines (Dell'Amico RR-13-282 section 2.3 has FIFO, PS, SRPT, FSP);
its released simulator has it, and it is the size-oblivious reference for the size-based ones.

Jobs with equal attained service form a *group*; a group is served as PS, so its clock is its attained level
``a`` itself and a member of size ``s`` completes when ``a`` reaches ``s``: a heap on ``(s, index)`` per group.
Only the served group ages. An arrival (attained 0) preempts it, pushing it on a stack; since the served level is
always the minimum, the stack's levels increase from top to bottom, and when the served level reaches the top's
level the two groups merge (smaller heap pushed into the larger, so each job moves O(log n) times overall).

Cost: O(log n) amortised per event, O(log^2 n) amortised per job for merges. Events: arrivals, completions and
level merges (at most n merges).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Sequence

from mrsim.studies.fluid.schedule import FluidSchedule

_INF = float("inf")


def simulate_las(submit: Sequence[float], size: Sequence[float], *, check: bool = False) -> FluidSchedule:
    """LAS; ``submit`` sorted. ``check`` verifies the stack and heap invariants after every event (O(n))."""
    n = len(submit)
    start = list(submit)  # an arrival has the least attained service (0), so it is served at once
    finish = [0.0] * n
    group: list[tuple[float, int]] = []
    level = 0.0
    stack: list[tuple[float, list[tuple[float, int]]]] = []
    t = 0.0
    k = 0
    events = 0
    while k < n or group:
        if group:
            m = len(group)
            d = group[0][0] - level
            t_done = t + (d if d > 0.0 else 0.0) * m
            if stack:
                d = stack[-1][0] - level
                t_merge = t + (d if d > 0.0 else 0.0) * m
            else:
                t_merge = _INF
        else:
            t_done = t_merge = _INF
        t_a = submit[k] if k < n else _INF

        if t_done <= t_merge and t_done <= t_a:
            s, i = heappop(group)
            level = s
            t = t_done
            finish[i] = t
            if not group and stack:
                level, group = stack.pop()
        elif t_merge <= t_a:
            t = t_merge
            level, other = stack.pop()
            if len(other) > len(group):
                group, other = other, group
            for item in other:
                heappush(group, item)
        else:
            if group:
                level += (t_a - t) / len(group)
            t = t_a
            if group and level > 0.0:
                stack.append((level, group))
                group = []
            level = 0.0  # the new job joins a group still at level 0, or starts a new one
            heappush(group, (size[k], k))
            k += 1
        events += 1
        if check:
            _check(group, level, stack)
    return FluidSchedule(start, finish, events)


def _check(group: list[tuple[float, int]], level: float,
           stack: list[tuple[float, list[tuple[float, int]]]]) -> None:
    tol = 1e-9 * (1.0 + abs(level))
    for s, _ in group:
        assert s >= level - tol, "a served job's size is below its attained service"
    below = level
    for lvl, g in reversed(stack):
        assert lvl > below - tol, "stack levels must increase from the top"
        assert g, "empty group on the stack"
        for s, _ in g:
            assert s >= lvl - tol
        below = lvl
    assert group or not stack, "idle server with waiting groups"
