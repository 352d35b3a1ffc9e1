"""Bounded wake-ups: new work wakes parked TaskTrackers one at a time, in heartbeat order, while work is pending.

The reference policy (``JobTracker.wake_for_maps`` / ``wake_for_reduces`` without this module) wakes *every*
parked tracker with a free slot of the kind when work of that kind appears (a job becomes RUNNING, slow start is
met, a task is requeued, a scheduler's limits loosen). On 10,000 nodes a job of ten maps then costs 10,000
heartbeats, nearly all of which find nothing left to take (13 events per task, measured).

This module gives the same schedule with far fewer heartbeats. A wake call for kind X (maps or reduces) at event
key ``w = (time, order)`` makes *owed* every tracker that is parked at ``w`` with a free X slot: the reference policy
would give each of them one heartbeat, at its next grid time ``phase + k * interval`` after ``w``. Instead of
queuing all of them, a *chain* queues the first owed tracker in heartbeat order; when that heartbeat has run, the
chain queues the next owed one, and so on, but only while some task is pending (unlaunched maps of RUNNING jobs
plus unlaunched reduces of jobs past slow start, ``JobTracker.pending_maps + pending_ready_reduces``). When no task
is pending the chain stops: the owed trackers it did not reach would, in the reference policy, have had heartbeats
that find nothing to launch and change nothing, then parked again.

Why the schedule is identical (the argument the tests check on seeded workloads, real traces and every scheduler
that opts in): an owed tracker U that the chain has not reached by its grid key has, at that key, no pending task
(the chain walks the owed trackers in key order and passes U only after a heartbeat ending with none pending, and
pending work grows only through a wake call, which restarts the chain). Its reference heartbeat would have found
nothing to launch. Pending work of the *other* kind is covered by that kind's chain: a tracker owed for maps with a
free reduce slot was parked before the reduce wake call too, so it is owed for reduces as well, with the same key.
A tracker woken by the chain heartbeats at exactly the key the reference policy gives it (its next grid key, which
has not passed). Waking an owed tracker the reference policy would also have woken is always safe, so ties and
floating-point doubts are resolved by waking more, never fewer.

When it applies (``BoundedWakes.applies``): heartbeat mode with fixed phases (not task mode, not the naive mode,
no out-of-band heartbeats, which move a tracker's phase), a scheduler that does not wake its own trackers and
that declares ``bounded_wakes_exact`` (its ``assign_tasks`` launches nothing and changes no state when no task is
pending), and no feature that acts at heartbeats without pending tasks (``on_heartbeat``, ``before_assign``,
``assign_first``, ``offer_backup``). Otherwise the engine keeps the reference policy.

Data: the parked trackers with a free map (reduce) slot, as ranks in (phase, index) order in a :class:`RankSet`
(a bitmap of 32-bit words, compiled with the core; a ``sortedcontainers.SortedList`` before, whose interpreted
``add`` and ``irange`` were a fifth of a streamed 10,000-node replay); a tracker's next grid times, from any
instant, come in that cyclic order. Entries are removed lazily: a tracker that was woken by something else, or
whose free slot is gone, leaves when a chain walks past it. Cost: O(1) to add or remove a rank, and a chain step
reads the words up to the next member (a machine operation per 32 ranks) plus the entries it walks past; nothing
per event otherwise (the engine calls :meth:`after_heartbeat` once per heartbeat, O(1)).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import TYPE_CHECKING, Final

from mrsim.tracker.events import ORDER_HEARTBEAT
from mrsim.tracker.heartbeats import next_grid_k, schedule_grid
from mrsim.tracker.state import INF, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

MAP: Final = 0
REDUCE: Final = 1

#: Cluster size from which the engine uses bounded wake-ups by default. Below it, the per-heartbeat bookkeeping
#: (about 15 % more engine CPU on a saturated 64-node replay) costs more than waking every idle tracker; at 1,000
#: trackers both cost the same CPU and the bounded policy has 40 % fewer events; at 10,000, 4.6 times fewer
#: (``benchmarks/bench_scaling.py``, docs/performance.md).
BOUNDED_WAKES_FROM_TRACKERS = 1000


def grid_index_after(phase: float, interval: float, hb_order: int, time: float, order: int) -> int:
    """Index ``k`` of the first grid point ``phase + k * interval`` (order ``hb_order``) strictly after the event
    key ``(time, order)``: ``heartbeats.next_grid_k``, the one definition of a tracker's next heartbeat, so every
    path computes identical times."""
    return next_grid_k(phase, interval, time, hb_order, order)


class BoundedWakes:
    """The chains of owed trackers, one per task kind (see the module docstring)."""

    __slots__ = ("jt", "interval", "by_rank", "phases", "rank", "parked", "in_set", "parked_time", "parked_order",
                 "wake_time", "wake_order", "member", "cursor", "chain_wakes")

    def __init__(self, jt: "JobTracker") -> None:
        self.jt = jt
        self.interval = jt.interval
        trackers = jt.trackers
        order = sorted(range(len(trackers)), key=lambda i: (trackers[i].phase, i))
        self.by_rank: list[TrackerState] = [trackers[i] for i in order]
        self.phases: list[float] = [t.phase for t in self.by_rank]
        self.rank: list[int] = [0] * len(trackers)
        for r, i in enumerate(order):
            self.rank[i] = r
        # Every tracker starts parked (no heartbeat queued) before any wake call: owed by the first one.
        self.parked_time: list[float] = [-INF] * len(trackers)
        self.parked_order: list[int] = [0] * len(trackers)
        self.parked: tuple[RankSet, RankSet] = (RankSet(len(trackers)), RankSet(len(trackers)))
        for r, t in enumerate(self.by_rank):
            if t.map_slots > 0:
                self.parked[MAP].add(r)
            if t.reduce_slots > 0:
                self.parked[REDUCE].add(r)
        # bit 1: in the map set, bit 2: in the reduce set
        self.in_set = bytearray((1 if t.map_slots > 0 else 0) | (2 if t.reduce_slots > 0 else 0) for t in trackers)
        self.wake_time: list[float] = [-INF, -INF]
        self.wake_order: list[int] = [0, 0]
        self.member: list[TrackerState | None] = [None, None]  # the chain's last woken tracker, per kind
        self.cursor: list[int] = [0, 0]  # its rank: the next step walks on from there
        self.chain_wakes = 0  # trackers woken by the chains (statistics for benchmarks)

    @staticmethod
    def applies(jt: "JobTracker") -> bool:
        """Whether the engine uses the bounded policy: asked for (``jt.bounded_wakes``; None means from
        :data:`BOUNDED_WAKES_FROM_TRACKERS` trackers on), and giving the reference schedule (module docstring)."""
        wanted = len(jt.trackers) >= BOUNDED_WAKES_FROM_TRACKERS if jt.bounded_wakes is None else jt.bounded_wakes
        return (wanted and not jt.task_mode and not jt.naive and not jt.oob and not jt.scheduler_wakes
                and bool(getattr(jt.scheduler, "bounded_wakes_exact", False))
                and not jt.on_heartbeat and not jt.before_assign and jt.assign_first is None
                and jt.offer_backup is None and len(jt.trackers) > 0)

    # ------------------------------------------------------------------------------------------- engine calls

    def heartbeat(self, now: float, order: int, tracker_index: int, stamp: int) -> None:
        """The heartbeat handler under bounded wake-ups: the engine's heartbeat, then the chains' bookkeeping."""
        jt = self.jt
        tracker = jt.trackers[tracker_index]
        if stamp != tracker.hb_stamp:
            jt._on_heartbeat(now, order, tracker_index, stamp)
            return
        jt.hb_current = tracker
        jt._on_heartbeat(now, order, tracker_index, stamp)
        jt.hb_current = None
        self.after_heartbeat(tracker)

    def wake(self, kind: int) -> None:
        """Work of ``kind`` appeared (a wake call): the owed set is now every tracker parked with a free slot of
        that kind; restart the chain at the first of them in heartbeat order if any task is pending."""
        jt = self.jt
        kernel = jt.kernel
        now = kernel.now
        self.wake_time[kind] = now
        self.wake_order[kind] = kernel.order
        current = jt.hb_current
        if current is not None and current.next_hb == INF and _free(current, kind):
            jt.wake(current)  # the tracker whose heartbeat is running: the reference wakes it for its next one
        self.member[kind] = None
        if jt.pending_maps + jt.pending_ready_reduces > 0:
            self._walk(kind, self._start_rank(now))

    def after_heartbeat(self, tracker: TrackerState) -> None:
        """``tracker``'s heartbeat has run: note it parked (with the key of that heartbeat), and step the chains
        it was the member of."""
        index = tracker.index
        if tracker.next_hb == INF:
            kernel = self.jt.kernel
            self.parked_time[index] = kernel.now
            self.parked_order[index] = kernel.order
            bits = self.in_set[index]
            rank = self.rank[index]
            if not bits & 1 and tracker.running_maps < tracker.map_slots:
                self.parked[MAP].add(rank)
                bits |= 1
            if not bits & 2 and tracker.running_reduces < tracker.reduce_slots:
                self.parked[REDUCE].add(rank)
                bits |= 2
            self.in_set[index] = bits
        member = self.member
        for kind in (MAP, REDUCE):
            if member[kind] is tracker:
                member[kind] = None
                jt = self.jt
                if jt.pending_maps + jt.pending_ready_reduces > 0:
                    self._walk(kind, self.cursor[kind] + 1)

    # ------------------------------------------------------------------------------------------- the chain

    def _start_rank(self, now: float) -> int:
        """Rank of the tracker whose next grid time after the current event comes first (cyclic phase order).

        The bisection of ``now mod interval`` lands within a rank or two of it; floating-point rounding at the
        cycle's seam and a grid point at exactly ``now`` that has already passed (a wake call inside that
        tracker's own heartbeat) are settled by comparing exact next times of the neighbours, then the start
        steps back over trackers whose next time is the same (ties are woken together). O(1) but for ties."""
        interval = self.interval
        phases = self.phases
        n = len(phases)
        frac = now - math.floor(now / interval) * interval
        guess = bisect_left(phases, frac)
        order = self.jt.kernel.order
        # The rank of the least (next time, distance from the guess) among the five ranks around the guess (fewer
        # on small clusters); no two ranks have the same distance, so the choice does not depend on the order in
        # which they are read. Plain loops: a closure and a key function cost Python-level calls per wake call.
        start = -1
        first = INF
        best_distance = n
        for d in range(-2, 3):
            r = (guess + d) % n
            time = self._next_time(r, now, order)
            distance = (r - guess) % n
            if start < 0 or time < first or (time == first and distance < best_distance):
                start, first, best_distance = r, time, distance
        for _ in range(n - 1):
            before = (start - 1) % n
            if self._next_time(before, now, order) != first:
                break
            start = before
        return start

    def _next_time(self, r: int, now: float, order: int) -> float:
        """The first grid time of the tracker of rank ``r`` after the event key ``(now, order)``."""
        t = self.by_rank[r]
        interval = self.interval
        return t.phase + grid_index_after(t.phase, interval, ORDER_HEARTBEAT + t.index, now, order) * interval

    def _walk(self, kind: int, start: int) -> None:
        """Wake the first owed tracker of ``kind`` at or after rank ``start`` (cyclically), and any owed trackers
        right after it whose grid time is not later (ties are woken together); make the last of them the chain's
        member. Entries of trackers no longer parked, or without a free slot of the kind, are dropped on the way.
        The walk ends at the first owed tracker whose grid point after the wake call has passed: every later one
        in cyclic order has passed too (the chain stopped for lack of pending work, so they had nothing to take)."""
        jt = self.jt
        kernel = jt.kernel
        now, order = kernel.now, kernel.order
        interval = self.interval
        w_time, w_order = self.wake_time[kind], self.wake_order[kind]
        parked = self.parked[kind]
        by_rank = self.by_rank
        bit = 1 << kind
        n = len(by_rank)
        start %= n
        drop: list[int] = []
        woken_time = INF
        last_rank = -1
        last: TrackerState | None = None
        # With no task of this kind pending, an owed tracker's reference heartbeat can launch only work of the
        # other kind: those without a free slot of that kind are passed over (their heartbeat would be a no-op).
        own_pending = (jt.pending_maps if kind == MAP else jt.pending_ready_reduces) > 0
        other = 1 - kind
        # The members from ``start`` to the end, then from the beginning up to ``start`` (the set does not change
        # during the walk: the dropped ranks are removed after it).
        pos, limit, wrapped = start, n, False
        while True:
            rank = parked.first_from(pos, limit)
            if rank < 0:
                if wrapped or start == 0:
                    break
                pos, limit, wrapped = 0, start, True
                continue
            pos = rank + 1
            t = by_rank[rank]
            index = t.index
            if t.next_hb != INF or not _free(t, kind):
                drop.append(rank)
                continue
            pt = self.parked_time[index]
            if pt > w_time or (pt == w_time and self.parked_order[index] >= w_order):
                continue  # parked after the wake call: not owed
            hb_order = ORDER_HEARTBEAT + index
            k = grid_index_after(t.phase, interval, hb_order, now, order)
            if k != grid_index_after(t.phase, interval, hb_order, w_time, w_order):
                break  # its owed heartbeat has passed (and so have those of every later owed tracker)
            time = t.phase + k * interval
            if last is not None and time > woken_time:
                break
            if not own_pending and not _free(t, other):
                continue
            woken_time = time if last is None else max(woken_time, time)
            schedule_grid(jt, t, k)
            self.chain_wakes += 1
            drop.append(rank)
            if last is None or (time, hb_order) > (last.next_hb, ORDER_HEARTBEAT + last.index):
                last = t
            last_rank = rank
        for rank in drop:
            parked.remove(rank)
            tracker = by_rank[rank]
            self.in_set[tracker.index] &= ~bit
        if last is not None:
            self.member[kind] = last
            self.cursor[kind] = last_rank


def _free(tracker: TrackerState, kind: int) -> bool:
    if kind == MAP:
        return tracker.running_maps < tracker.map_slots
    return tracker.running_reduces < tracker.reduce_slots


#: bits per word of a :class:`RankSet` (a word stays a small int: no big-int arithmetic in compiled code)
WORD_SHIFT: Final = 5
WORD_MASK: Final = (1 << WORD_SHIFT) - 1


class RankSet:
    """A set of ranks ``0 .. n-1`` as a bitmap of 32-bit words: O(1) add and remove, and the smallest member at or
    after a rank by reading words (:meth:`first_from`); iteration in rank order is what the chains need of it."""

    __slots__ = ("words",)

    def __init__(self, n: int) -> None:
        self.words: list[int] = [0] * ((n + WORD_MASK) >> WORD_SHIFT)

    def add(self, rank: int) -> None:
        self.words[rank >> WORD_SHIFT] |= 1 << (rank & WORD_MASK)

    def remove(self, rank: int) -> None:
        self.words[rank >> WORD_SHIFT] &= ~(1 << (rank & WORD_MASK))

    def __contains__(self, rank: int) -> bool:
        return bool(self.words[rank >> WORD_SHIFT] >> (rank & WORD_MASK) & 1)

    def __len__(self) -> int:
        return sum(bin(word).count("1") for word in self.words)

    def first_from(self, pos: int, limit: int) -> int:
        """The smallest member in ``pos .. limit - 1``, or -1. O(words read)."""
        if pos >= limit:
            return -1
        words = self.words
        w = pos >> WORD_SHIFT
        x = words[w] & ~((1 << (pos & WORD_MASK)) - 1)
        last = (limit - 1) >> WORD_SHIFT
        while x == 0:
            w += 1
            if w > last:
                return -1
            x = words[w]
        rank = (w << WORD_SHIFT) + (x & -x).bit_length() - 1
        return rank if rank < limit else -1
