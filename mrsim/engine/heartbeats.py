"""The heartbeat grid: when a TaskTracker's next heartbeat falls (a helper of the JobTracker core).

Tracker *i* heartbeats at ``phase_i + k * interval`` (``TaskTracker.offerService``: it waits ``interval`` after
each heartbeat; the phases are drawn once from a seeded stream, or all 0 with aligned heartbeats). Most
heartbeats change nothing, so by default they are not simulated (``docs/engine.md``, "Heartbeats without the
cost"): a tracker is *parked* (no event queued) unless it has completions to report or it just launched tasks and
still has free slots; anything that can make a parked tracker useful (a job arrival, slow start being met, one of
its own tasks finishing) computes its next grid time arithmetically with :func:`next_grid_k` and queues just that
heartbeat. The naive mode emits every heartbeat; tests check that both give identical results, which holds
because a grid time is always computed the same way, ``phase + k * interval`` (never by adding intervals).
"""

from __future__ import annotations

import math


def next_grid_k(phase: float, interval: float, now: float, own_order: int, current_order: int) -> int:
    """Index ``k`` of the first heartbeat ``phase + k * interval`` not before ``now`` that has not already passed
    in this instant: one at exactly ``now`` is still ahead only if its order (``own_order``, the tracker's
    ``ORDER_HEARTBEAT + index``) comes after the event being handled (``current_order``). O(1); the two
    corrections undo the rounding of the division, so the result agrees with the grid times themselves."""
    k = math.ceil((now - phase) / interval)
    if k < 0:
        k = 0
    if phase + k * interval < now:
        k += 1
    elif k > 0 and phase + (k - 1) * interval >= now:
        k -= 1
    if phase + k * interval == now and own_order <= current_order:
        k += 1
    return k
