"""Job-ordering policies of the central controller (Hung, Golubchik, Yu, SoCC'15, sections 3-5).

Every policy is a pure function of a :class:`Snapshot`: the jobs that still have *queued* (not yet launched)
tasks, in arrival order, with their queued size in each datacenter. The controller runs one on every job
arrival and departure and pushes the result to the datacenters as one local order per datacenter
(:func:`local_orders`); local schedulers launch tasks in that order until the next decision.

Notation: ``K`` jobs in the snapshot, ``D`` datacenters, ``P`` (job, datacenter) pairs with queued work
(``P <= K * D``). "Size" is queued tasks by default or queued task-seconds (see
:class:`mrsim.studies.geo.simulator.SizeMeasure`); either way sizes are compared *per slot* where datacenters differ in
slot count, which reduces to the paper's task counts when every datacenter has the same number of slots.

Policies and their cost per decision:

* FCFS: arrival order everywhere. O(P).
* Global-SRPT (section 3.1): order by total queued size over all datacenters, ties by arrival. O(P + K log K).
* Independent-SRPT (section 3.2): each datacenter orders by its own queued sub-job size, ties by arrival; no
  global order. O(P log P).
* Reordering (section 4, Algorithm 1) on top of either SRPT: repeatedly take the datacenter with the largest
  queue, move the job with the largest sub-job there to the *back*, remove that job's sub-jobs from every queue;
  the reverse of the removal sequence is the new order. Ties between equal sub-jobs go to the job the base
  policy ranks later at that datacenter (it is moved back first), which is how the base policy still matters.
  O(P log P + K log D).
* SWAG (section 5, Algorithm 2): greedily append the job with the smallest estimated finish
  ``max_d (q_d + size_{j,d}) / slots_d`` over the datacenters where it has queued work, where ``q_d`` is the
  work already placed in front of it; ties by smaller total queued size, then arrival. Lazy-greedy: estimates
  only grow as ``q`` grows, so a stale heap key is a lower bound and is refreshed only when it reaches the top.
  O(P log K) typical, O(K * P log K) worst case.
"""

from __future__ import annotations

import enum
import heapq
from typing import Sequence

from mrsim.errors import UsageError

#: One queued sub-job in a snapshot: (job position in the snapshot, queued size, sub-job id in the simulator).
Entry = tuple[int, float, int]


class Policy(enum.Enum):
    """Controller policies; the value is the name used on the command line."""

    FCFS = "fcfs"
    GSRPT = "gsrpt"
    ISRPT = "isrpt"
    REORDER_GSRPT = "reorder-gsrpt"
    REORDER_ISRPT = "reorder-isrpt"
    SWAG = "swag"

    @classmethod
    def parse(cls, text: str) -> "Policy":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise UsageError(f"unknown policy {text!r} (expected one of {', '.join(p.value for p in cls)})") from None

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def needs_global_order(self) -> bool:
        """False for Independent-SRPT, whose datacenters order themselves (no order is pushed)."""
        return self is not Policy.ISRPT


_LABELS = {
    Policy.FCFS: "FCFS",
    Policy.GSRPT: "Global-SRPT",
    Policy.ISRPT: "Independent-SRPT",
    Policy.REORDER_GSRPT: "Global-SRPT + Reordering",
    Policy.REORDER_ISRPT: "Independent-SRPT + Reordering",
    Policy.SWAG: "SWAG",
}


class Snapshot:
    """Read-only view the controller decides on.

    Attributes:
        slots: slots per datacenter.
        entries: ``entries[k]`` lists job ``k``'s queued sub-jobs as :data:`Entry` tuples with their datacenter:
            ``(d, size, sub_id)``; jobs are positioned in arrival order, so ``k`` is also the arrival rank.
        by_dc: ``by_dc[d]`` lists the :data:`Entry` tuples ``(k, size, sub_id)`` queued in datacenter ``d``, in
            arrival order.
        totals: ``totals[k]`` is job ``k``'s total queued size (unnormalised, as in the paper).
    """

    __slots__ = ("slots", "entries", "by_dc", "totals")

    def __init__(self, slots: Sequence[int], entries: list[list[tuple[int, float, int]]]) -> None:
        self.slots = tuple(slots)
        self.entries = entries
        by_dc: list[list[Entry]] = [[] for _ in self.slots]
        totals: list[float] = []
        for k, ent in enumerate(entries):
            t = 0
            for d, v, s in ent:
                by_dc[d].append((k, v, s))
                t += v
            totals.append(t)
        self.by_dc = by_dc
        self.totals = totals

    @classmethod
    def from_sizes(cls, sizes: Sequence[Sequence[float]], slots: Sequence[int] | None = None) -> "Snapshot":
        """Build from a ``K x D`` table of queued sizes (zeros mean no sub-job); sub-job ids are ``k * D + d``.

        Used for worked examples such as the paper's Figure 2 table.
        """
        n_dc = len(sizes[0]) if sizes else len(slots or ())
        entries = [[(d, v, k * n_dc + d) for d, v in enumerate(row) if v > 0] for k, row in enumerate(sizes)]
        return cls(slots if slots is not None else (1,) * n_dc, entries)


def fcfs(snap: Snapshot) -> list[int]:
    """Arrival order. O(K)."""
    return list(range(len(snap.entries)))


def global_srpt(snap: Snapshot) -> list[int]:
    """Jobs by total queued size, ties by arrival. O(K log K)."""
    totals = snap.totals
    return sorted(range(len(totals)), key=lambda k: (totals[k], k))


def independent_srpt(snap: Snapshot) -> list[list[Entry]]:
    """Per datacenter, its queued sub-jobs by size, ties by arrival. O(P log P)."""
    return [sorted(col, key=lambda e: (e[1], e[0])) for col in snap.by_dc]


def split(snap: Snapshot, order: Sequence[int]) -> list[list[Entry]]:
    """Project a global job order onto each datacenter's queued sub-jobs. O(P)."""
    local: list[list[Entry]] = [[] for _ in snap.slots]
    entries = snap.entries
    for k in order:
        for d, v, s in entries[k]:
            local[d].append((k, v, s))
    return local


def reorder(snap: Snapshot, base: Sequence[Sequence[Entry]]) -> list[int]:
    """Reordering (Algorithm 1) of the base policy's local orders ``base``; returns a global job order.

    ``q_d`` starts as the datacenter's total queued size. While jobs remain: the target datacenter is the one
    with the largest ``q_d / slots_d`` (ties: lowest index); the target job is the remaining job with the
    largest sub-job there (ties: the one ``base`` ranks later there); it goes to the back of the result and its
    sub-jobs leave every ``q``. Cost O(P log P + K log D).
    """
    slots = snap.slots
    n_dc = len(slots)
    q: list[float] = [0] * n_dc
    left = [0] * n_dc  # remaining candidate count per datacenter, so float round-off in q cannot stall the loop
    cands: list[list[tuple[float, int, int]]] = []
    for d in range(n_dc):
        col = [(v, r, k) for r, (k, v, _s) in enumerate(base[d])]
        col.sort(reverse=True)
        cands.append(col)
        left[d] = len(col)
        q[d] = sum(c[0] for c in col)
    ptr = [0] * n_dc
    removed = bytearray(len(snap.entries))
    heap = [(-q[d] / slots[d], d) for d in range(n_dc) if left[d]]
    heapq.heapify(heap)
    back: list[int] = []
    entries = snap.entries
    while heap:
        key, d = heap[0]
        if not left[d]:
            heapq.heappop(heap)
            continue
        cur = -q[d] / slots[d]
        if cur != key:  # q only shrinks, so a stale key overstates the queue: refresh and look again
            heapq.heapreplace(heap, (cur, d))
            continue
        col = cands[d]
        i = ptr[d]
        while removed[col[i][2]]:
            i += 1
        ptr[d] = i
        k = col[i][2]
        removed[k] = 1
        back.append(k)
        for d2, v, _s in entries[k]:
            q[d2] -= v
            left[d2] -= 1
    back.reverse()
    return back


def swag(snap: Snapshot) -> list[int]:
    """SWAG (Algorithm 2): greedy by estimated finish, ties by smaller total queued size then arrival.

    The estimate of job ``k`` is ``max over its datacenters d of (q_d + size_{k,d}) / slots_d``; ``q`` starts
    at zero and grows by each chosen job's sub-jobs. Datacenters where the job has nothing queued do not count
    (it does not wait there). Cost: see the module docstring.
    """
    slots = snap.slots
    entries = snap.entries
    totals = snap.totals
    heap = [(max(v / slots[d] for d, v, _s in entries[k]), totals[k], k) for k in range(len(entries))]
    heapq.heapify(heap)
    q: list[float] = [0] * len(slots)
    order: list[int] = []
    while heap:
        m, tot, k = heap[0]
        cur = max((q[d] + v) / slots[d] for d, v, _s in entries[k])
        if cur != m:  # estimates only grow, so the stored key is a lower bound: refresh it
            heapq.heapreplace(heap, (cur, tot, k))
            continue
        heapq.heappop(heap)
        order.append(k)
        for d, v, _s in entries[k]:
            q[d] += v
    return order


def local_orders(policy: Policy, snap: Snapshot) -> list[list[Entry]]:
    """The per-datacenter orders the controller pushes (for ISRPT, the ones the datacenters compute)."""
    if policy is Policy.FCFS:
        return split(snap, fcfs(snap))
    if policy is Policy.GSRPT:
        return split(snap, global_srpt(snap))
    if policy is Policy.ISRPT:
        return independent_srpt(snap)
    if policy is Policy.REORDER_GSRPT:
        return split(snap, reorder(snap, split(snap, global_srpt(snap))))
    if policy is Policy.REORDER_ISRPT:
        return split(snap, reorder(snap, independent_srpt(snap)))
    if policy is Policy.SWAG:
        return split(snap, swag(snap))
    raise AssertionError(policy)  # pragma: no cover - the enum is closed
