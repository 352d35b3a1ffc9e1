"""Processor sharing by virtual time (Dell'Amico RR-13-282, section 2.3; the classic fair-queueing clock).

With ``n`` jobs present each is served at rate ``1/n``. Instead of decrementing ``n`` remainders per event, keep a
virtual clock ``V`` with ``dV/dt = 1/n``: every present job has received exactly ``V - V(arrival)`` service, so a
job of size ``s`` arriving at virtual time ``V_a`` leaves when ``V`` reaches its tag ``F = V_a + s``. A heap on
``(F, index)`` gives the next departure at ``t + (F_min - V) * n``. ``V`` restarts at 0 whenever the system
empties, which keeps tags small (absolute rounding error per event is about ulp(V) * n seconds).

Cost: O(log n) per event; 2 events per job (arrival, completion).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Sequence

from mrsim.studies.fluid.schedule import FluidSchedule

_INF = float("inf")


def simulate_ps(submit: Sequence[float], size: Sequence[float], *, check: bool = False) -> FluidSchedule:
    """Processor sharing; ``submit`` sorted. ``check`` verifies the heap invariants after every event (O(n))."""
    n = len(submit)
    start = list(submit)
    finish = [0.0] * n
    heap: list[tuple[float, int]] = []
    v = 0.0
    t = 0.0
    k = 0
    events = 0
    while k < n or heap:
        if heap:
            f0 = heap[0][0]
            d = f0 - v
            t_done = t + (d if d > 0.0 else 0.0) * len(heap)
        else:
            t_done = _INF
        if k < n and submit[k] < t_done:
            ta = submit[k]
            if heap:
                v += (ta - t) / len(heap)
            else:
                v = 0.0
            t = ta
            heappush(heap, (v + size[k], k))
            k += 1
        else:
            f0, i = heappop(heap)
            # Snap the clock to the tag: departures are exact in virtual time, and ties leave together.
            v = f0
            t = t_done
            finish[i] = t
        events += 1
        if check:
            _check(heap, v)
    return FluidSchedule(start, finish, events)


def _check(heap: list[tuple[float, int]], v: float) -> None:
    for j, (f, _) in enumerate(heap):
        assert f >= v - 1e-9 * (1.0 + abs(v)), "a present job's tag is behind the virtual clock"
        for c in (2 * j + 1, 2 * j + 2):
            assert c >= len(heap) or heap[c] >= heap[j], "heap order broken"
