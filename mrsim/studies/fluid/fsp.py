"""Fair Sojourn Protocol on estimated sizes (Friedman and Henderson 2003; Dell'Amico RR-13-282, section 2.3).

FSP emulates processor sharing on the *estimated* sizes (the virtual system) and gives the whole real server to
the pending job that finishes first in the virtual system. With exact sizes no job finishes later than under PS.
With errors a job can be *late*: finished in the virtual system while still pending in the real one. Late jobs
take priority over the rest and, per :class:`LateTreatment`, run one at a time in the order they became late
(FSP+FIFO) or share the server equally (FSP+PS). The virtual system keeps every job until its virtual finish,
including jobs already really finished (virtual PS is oblivious to the real system).

Virtual-time formulation, O(log n) per event:

* virtual PS: clock ``V`` with ``dV/dt = 1/n_virtual``, heap ``vheap`` of tags ``(F = V_arrival + estimate, i)``;
* non-late pending jobs: heap ``rheap`` with the *same* ``(F, i)`` keys. Its top is the job FSP serves. Every
  ``rheap`` entry is also in ``vheap``, so when ``vheap``'s top is a pending job it is ``rheap``'s top too: both
  heaps only ever pop their top, with no search and no tombstones;
* late jobs: a deque in lateness order (FSP+FIFO), or a second PS clock ``W`` with heap ``(W + remaining, i)``
  (FSP+PS). Remaining real work is kept per job and advanced only for the one job being served.

Events per job: arrival, virtual finish, real completion (at most 3n; virtual finishes after the last real
completion are skipped). Same-instant order: real completion, then virtual
finish, then arrival, so with exact estimates a job whose real and virtual finishes coincide is not late. Floating
point can still make such a job late by a rounding error, in which case it finishes within that error.
"""

from __future__ import annotations

import enum
from collections import deque
from heapq import heappop, heappush
from typing import Sequence

from mrsim.studies.fluid.schedule import FluidSchedule

_INF = float("inf")
_PENDING, _LATE, _DONE = 1, 2, 3


class LateTreatment(enum.Enum):
    """How FSP serves late jobs (study section 2.3)."""

    FIFO = "fifo"  # the first job to become late gets the whole server
    PS = "ps"  # late jobs share the server equally


def simulate_fsp(submit: Sequence[float], size: Sequence[float], estimate: Sequence[float],
                 late: LateTreatment = LateTreatment.PS, *, check: bool = False) -> FluidSchedule:
    """FSP with estimates ``estimate`` (pass ``size`` for exact FSP); ``submit`` sorted.

    ``check`` verifies the cross-heap invariants after every event (O(n) each; for tests).
    """
    n = len(submit)
    late_ps = late is LateTreatment.PS
    start = [-1.0] * n
    finish = [0.0] * n
    rem = list(size)
    status = [0] * n
    vheap: list[tuple[float, int]] = []
    rheap: list[tuple[float, int]] = []
    late_q: deque[int] = deque()
    lheap: list[tuple[float, int]] = []
    v = 0.0
    w = 0.0
    t = 0.0
    k = 0
    events = 0
    # Virtual finishes after the last real completion cannot change anything, so the loop stops there.
    while k < n or rheap or late_q or lheap:
        # Next real completion.
        if late_ps and lheap:
            d = lheap[0][0] - w
            t_r = t + (d if d > 0.0 else 0.0) * len(lheap)
        elif late_q:
            t_r = t + rem[late_q[0]]
        elif rheap:
            t_r = t + rem[rheap[0][1]]
        else:
            t_r = _INF
        # Next virtual finish.
        if vheap:
            d = vheap[0][0] - v
            t_v = t + (d if d > 0.0 else 0.0) * len(vheap)
        else:
            t_v = _INF
        t_a = submit[k] if k < n else _INF

        t_next = t_r if t_r <= t_v else t_v
        if t_a < t_next:
            t_next = t_a
        # Advance the clocks and the served job's remainder to t_next.
        dt = t_next - t
        if dt > 0.0:
            if vheap:
                v += dt / len(vheap)
            if late_ps and lheap:
                w += dt / len(lheap)
            elif late_q:
                rem[late_q[0]] -= dt
            elif rheap:
                rem[rheap[0][1]] -= dt
        t = t_next

        if t_r <= t_v and t_r <= t_a:
            if late_ps and lheap:
                f, i = heappop(lheap)
                w = f if lheap else 0.0
            elif late_q:
                i = late_q.popleft()
            else:
                i = heappop(rheap)[1]
            rem[i] = 0.0
            status[i] = _DONE
            finish[i] = t
        elif t_v <= t_a:
            f, i = heappop(vheap)
            v = f if vheap else 0.0
            if status[i] == _PENDING:
                heappop(rheap)  # (f, i) is rheap's top: see the module docstring
                status[i] = _LATE
                if late_ps:
                    heappush(lheap, (w + rem[i], i))
                    if start[i] < 0.0:
                        start[i] = t
                else:
                    late_q.append(i)
        else:
            key = (v + estimate[k], k)
            heappush(vheap, key)
            heappush(rheap, key)
            status[k] = _PENDING
            k += 1
        # First service: whoever holds the server now.
        if not lheap:
            if late_q:
                j = late_q[0]
                if start[j] < 0.0:
                    start[j] = t
            elif rheap:
                j = rheap[0][1]
                if start[j] < 0.0:
                    start[j] = t
        events += 1
        if check:
            _check(vheap, rheap, late_q, lheap, status, rem, v, w)
    return FluidSchedule(start, finish, events)


def _check(vheap: list[tuple[float, int]], rheap: list[tuple[float, int]], late_q: deque[int],
           lheap: list[tuple[float, int]], status: list[int], rem: list[float], v: float, w: float) -> None:
    vkeys = set(vheap)
    tol = 1e-9
    for key in rheap:
        assert key in vkeys, "a non-late pending job is missing from the virtual system"
        assert status[key[1]] == _PENDING, "rheap holds a job that is not pending"
        assert rem[key[1]] >= -tol * (1.0 + abs(rem[key[1]])), "negative remaining work"
    assert not (late_q and lheap), "both late treatments in use"
    for i in late_q:
        assert status[i] == _LATE
    for f, i in lheap:
        assert status[i] == _LATE
        assert f >= w - tol * (1.0 + abs(w)), "late tag behind the late clock"
    for f, _ in vheap:
        assert f >= v - tol * (1.0 + abs(v)), "virtual tag behind the virtual clock"
    n_pending = sum(1 for s in status if s == _PENDING)
    assert n_pending == len(rheap), "pending count differs from rheap size"
    if rheap and vheap:
        assert min(vheap) <= min(rheap)
