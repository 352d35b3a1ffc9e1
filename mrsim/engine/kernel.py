"""A tiny discrete-event kernel with no Hadoop knowledge (in the spirit of SimPy's ``core.py``).

Events are plain tuples ``(time, order, seq, kind, a, b)`` on a binary heap:

* ``time`` in seconds (float);
* ``order`` breaks ties at the same instant; callers give every event class its own order value, so
  same-time behaviour is deterministic and documented where the classes are defined;
* ``seq`` is a global counter, so equal ``(time, order)`` pairs pop in push order and payloads are never compared;
* ``kind`` indexes the handler table; ``a`` and ``b`` are two integer payloads.

No object is allocated per event beyond the tuple itself. Cancellation is by tombstone: a handler compares a
payload with the current state and ignores stale events. Cost: O(log n) per push and pop.

This is the **only** module that touches the heap: the engine core and every feature schedule events through
:meth:`Kernel.schedule` (hot paths cache the bound method in a local), register their handlers with
:meth:`Kernel.register`, and ask :meth:`Kernel.has_pending` / :meth:`Kernel.clear` instead of reading the heap.
"""

from __future__ import annotations

import heapq
import math
from heapq import heappush
from itertools import count
from typing import Callable, Iterator, Sequence

Handler = Callable[[float, int, int, int], None]

#: Arrivals pushed by :meth:`Kernel.schedule_arrival` get ``seq = index - ARRIVAL_SEQ_BASE``: below every counter
#: value of :meth:`Kernel.schedule` (which starts at 1), in index order (up to 2**62 jobs).
ARRIVAL_SEQ_BASE = 1 << 62


class Kernel:
    """Clock, heap and run loop."""

    __slots__ = ("heap", "now", "order", "_seq", "events", "handlers")

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, int, int, int, int]] = []
        self.now = 0.0
        self.order = -1  # order of the event being handled (for "same instant, later order" decisions)
        self._seq = count(1).__next__  # push counter: ties at equal (time, order) pop in push order
        self.events = 0
        self.handlers: list[Handler | None] = []  # kind -> handler (register); None: a kind nobody registered

    def schedule(self, time: float, order: int, kind: int, a: int = 0, b: int = 0) -> None:
        """Push an event; ``time`` must not be earlier than :attr:`now`. O(log n)."""
        heappush(self.heap, (time, order, self._seq(), kind, a, b))

    def schedule_arrival(self, time: float, order: int, kind: int, index: int) -> None:
        """Push the arrival of job ``index`` (the ``index``-th in submit order) so that it pops before every other
        event of the same ``(time, order)`` and after the arrivals of lower indices, whenever it is pushed: the
        order that pushing every arrival before the run gives. Streamed replays push one arrival at a time
        (``mrsim/engine/features/streaming.py``). O(log n)."""
        heappush(self.heap, (time, order, index - ARRIVAL_SEQ_BASE, kind, index, 0))

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
        return any(event[3] in kinds for event in self.heap)

    def next_time(self) -> float:
        """Time of the next queued event, ``inf`` when none is queued. O(1): studies that batch the events of one
        instant ask it to know whether an event is the instant's last."""
        heap = self.heap
        return heap[0][0] if heap else math.inf

    def pending_count(self) -> int:
        """Number of queued events (stale ones included). O(1)."""
        return len(self.heap)

    def pending(self) -> Iterator[tuple[float, int, int, int]]:
        """Queued events as ``(time, kind, a, b)``, in no particular order. O(n): for checkers and end-of-run
        views only."""
        for time, _order, _seq, kind, a, b in self.heap:
            yield time, kind, a, b

    def clear(self) -> None:
        """Drop every queued event (the run is over)."""
        self.heap.clear()

    def run(self, handlers: Sequence[Handler] | None = None, after_event: Callable[[], None] | None = None,
            until: float = float("inf")) -> None:
        """Pop and dispatch events in (time, order, seq) order until the heap is empty or ``until`` passes.

        ``handlers[kind](time, order, a, b)`` handles each event (default: the table :meth:`register` built);
        ``after_event`` (features' end-of-event work, invariant checks in tests) runs after every event.
        """
        if handlers is None:
            handlers = [h if h is not None else _unregistered for h in self.handlers]
        heap = self.heap
        pop = heapq.heappop
        count = self.events
        try:
            while heap:
                if heap[0][0] > until:
                    break
                time, order, _seq, kind, a, b = pop(heap)
                self.now = time
                self.order = order
                handlers[kind](time, order, a, b)
                count += 1
                if after_event is not None:
                    after_event()
        finally:
            self.events = count


def _unregistered(now: float, _order: int, _a: int, _b: int) -> None:
    raise RuntimeError(f"event of an unregistered kind at t={now}")
