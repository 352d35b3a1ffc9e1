"""A tiny discrete-event kernel with no Hadoop knowledge (in the spirit of SimPy's ``core.py``).

Every event has a key ``(time, order, seq)`` and a payload ``(kind, a, b)``:

* ``time`` in seconds (float);
* ``order`` breaks ties at the same instant; callers give every event class its own order value, so
  same-time behaviour is deterministic and documented where the classes are defined;
* ``seq`` is a global counter, so equal ``(time, order)`` pairs pop in push order and payloads are never compared;
* ``kind`` indexes the handler table; ``a`` and ``b`` are two integer payloads.

The binary heap holds only the events' times (one float per event); the tuple ``(order, seq, kind, a, b)`` waits
in a dict keyed by its time, or, when several queued events share a time, in a small heap ordered by ``(order,
seq)`` under that time (a heap, not a sorted list: YARN mode's ApplicationMaster allocates can put thousands of
events on one instant, where a sorted list's insert and ``pop(0)`` cost O(n) each). Popping the smallest time and then the first of its events gives exactly the ``(time, order,
seq)`` order of a heap of whole tuples, but each heap comparison is one float comparison instead of a tuple
comparison (two float comparisons and a pointer more to follow): on 10,000 trackers, with about 10,000 events
queued, popping from a heap of tuples was a third of a streamed replay's CPU (issue 18, ``docs/performance.md``).
No object is allocated per event beyond the tuple itself (the float is the caller's). Cancellation is by
tombstone: a handler compares a payload with the current state and ignores stale events. Cost: O(log n) per push
and pop, plus one dict operation each.

This is the **only** module that touches the heap: the engine core and every feature schedule events through
:meth:`Kernel.schedule` (hot paths cache the bound method in a local), register their handlers with
:meth:`Kernel.register`, and ask :meth:`Kernel.has_pending` / :meth:`Kernel.clear` instead of reading the heap.
"""

from __future__ import annotations

import heapq
import math
from heapq import heappop, heappush
from itertools import count
from typing import Any, Callable, Final, Iterator, Sequence, Union

Handler = Callable[[float, int, int, int], None]
#: A queued event's ``(order, seq, kind, a, b)``; its time is its key in ``Kernel.events_at`` (typed as a
#: variable-length tuple so that compiled code keeps it one boxed object: ``_push`` compares identities)
Event = tuple[int, ...]

#: Arrivals pushed by :meth:`Kernel.schedule_arrival` get ``seq = index - ARRIVAL_SEQ_BASE``: below every counter
#: value of :meth:`Kernel.schedule` (which starts at 1), in index order (up to 2**62 jobs).
ARRIVAL_SEQ_BASE: Final = 1 << 62


class Kernel:
    """Clock, heap and run loop."""

    __slots__ = ("heap", "events_at", "now", "order", "_seq", "events", "handlers")

    def __init__(self) -> None:
        self.heap: list[float] = []  # the time of every queued event (a time appears once per event)
        #: time -> its one queued event, or a heap (by (order, seq)) of its events when several share it
        self.events_at: dict[float, Union[Event, list[Event]]] = {}
        self.now = 0.0
        self.order = -1  # order of the event being handled (for "same instant, later order" decisions)
        self._seq = count(1).__next__  # push counter: ties at equal (time, order) pop in push order
        self.events = 0
        self.handlers: list[Handler | None] = []  # kind -> handler (register); None: a kind nobody registered

    def schedule(self, time: float, order: int, kind: int, a: int = 0, b: int = 0) -> None:
        """Push an event; ``time`` must not be earlier than :attr:`now`. O(log n)."""
        self._push(time, (order, self._seq(), kind, a, b))

    def _push(self, time: float, event: Event) -> None:
        queued = self.events_at.setdefault(time, event)
        if queued is not event:  # another event has this time already
            if isinstance(queued, list):
                heappush(queued, event)
            else:
                self.events_at[time] = [queued, event] if queued < event else [event, queued]
        heappush(self.heap, time)

    def schedule_arrival(self, time: float, order: int, kind: int, index: int) -> None:
        """Push the arrival of job ``index`` (the ``index``-th in submit order) so that it pops before every other
        event of the same ``(time, order)`` and after the arrivals of lower indices, whenever it is pushed: the
        order that pushing every arrival before the run gives. Streamed replays push one arrival at a time
        (``mrsim/engine/features/streaming.py``). O(log n)."""
        self._push(time, (order, index - ARRIVAL_SEQ_BASE, kind, index, 0))

    def register(self, kind: int, handler: Handler) -> None:
        """Handle events of ``kind`` (a small non-negative int) with ``handler(time, order, a, b)``."""
        table = self.handlers
        if kind >= len(table):
            table.extend([None] * (kind + 1 - len(table)))
        if table[kind] is not None:
            raise ValueError(f"event kind {kind} already has a handler")
        table[kind] = handler

    def has_pending(self, kinds: "frozenset[int] | set[int] | tuple[int, ...]") -> bool:
        """Whether an event of one of ``kinds`` is queued (stale ones included). O(n): for rare checks only."""
        for queued in self.events_at.values():
            if isinstance(queued, list):
                if any(event[2] in kinds for event in queued):
                    return True
            elif queued[2] in kinds:
                return True
        return False

    def next_time(self) -> float:
        """Time of the next queued event, ``inf`` when none is queued. O(1): studies that batch the events of one
        instant ask it to know whether an event is the instant's last."""
        heap = self.heap
        return heap[0] if heap else math.inf

    def pending_count(self) -> int:
        """Number of queued events (stale ones included). O(1)."""
        return len(self.heap)

    def pending(self) -> Iterator[tuple[float, int, int, int]]:
        """Queued events as ``(time, kind, a, b)``, in no particular order. O(n): for checkers and end-of-run
        views only."""
        for time, queued in self.events_at.items():
            for _order, _seq, kind, a, b in (queued if isinstance(queued, list) else [queued]):
                yield time, kind, a, b

    def clear(self) -> None:
        """Drop every queued event (the run is over)."""
        self.heap.clear()
        self.events_at.clear()

    def run(self, handlers: Sequence[Handler] | None = None, after_event: Callable[[], None] | None = None,
            until: float = float("inf")) -> None:
        """Pop and dispatch events in (time, order, seq) order until the heap is empty or ``until`` passes.

        ``handlers[kind](time, order, a, b)`` handles each event (default: the table :meth:`register` built);
        ``after_event`` (features' end-of-event work, invariant checks in tests) runs after every event.
        """
        if handlers is None:
            handlers = [h if h is not None else _unregistered for h in self.handlers]
        heap = self.heap
        events_at = self.events_at
        pop = heapq.heappop
        count = self.events
        try:
            while heap:
                if heap[0] > until:
                    break
                time = pop(heap)
                queued = events_at.pop(time)
                event: tuple[Any, ...]
                if isinstance(queued, list):  # several events at this time: the first in (order, seq) order
                    event = heappop(queued)
                    if queued:
                        events_at[time] = queued
                else:
                    event = queued
                self.now = time
                # The payloads go to the handler as the objects the tuple holds (typed Any: compiled code would
                # otherwise unbox them and box them again, allocating an int object per value above 256).
                order = event[0]
                self.order = order
                handlers[event[2]](time, order, event[3], event[4])
                count += 1
                if after_event is not None:
                    after_event()
        finally:
            self.events = count


def _unregistered(now: float, _order: int, _a: int, _b: int) -> None:
    raise RuntimeError(f"event of an unregistered kind at t={now}")
