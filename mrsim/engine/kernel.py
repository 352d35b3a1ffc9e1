"""A tiny discrete-event kernel with no Hadoop knowledge (in the spirit of SimPy's ``core.py``).

Every event has a key ``(time, order, seq)`` and a payload ``(kind, a, b)``:

* ``time`` in seconds (float);
* ``order`` breaks ties at the same instant; callers give every event class its own order value, so
  same-time behaviour is deterministic and documented where the classes are defined;
* ``seq`` is a global counter, so equal ``(time, order)`` pairs pop in push order and payloads are never compared;
* ``kind`` indexes the handler table; ``a`` and ``b`` are two integer payloads.

The queue is a binary heap kept in two parallel lists, compiled with the core (issue 18): ``heap`` holds the
events' times (float objects) and ``queued`` the tuples ``(order, seq, kind, a, b)`` at the same positions. A heap
step compares two times as machine doubles, and the payloads (``(order, seq)``, a tuple comparison) only when the
times are equal, so popping gives exactly the ``(time, order, seq)`` order. Earlier layouts cost more: a ``heapq``
of whole tuples compared tuples at every step (a third of a streamed replay's CPU on 10,000 trackers), and a
``heapq`` of times with the payloads in a dict keyed by the time paid a generic comparison per step plus a float
hash and two dict operations per event (``docs/performance.md``, "Fourth round"). No object is allocated per
event beyond the payload tuple and the boxed time. Cancellation is by tombstone: a handler compares a payload
with the current state and ignores stale events. Cost: O(log n) per push and pop.

This is the **only** module that touches the heap: the engine core and every feature schedule events through
:meth:`Kernel.schedule` (hot paths cache the bound method in a local), register their handlers with
:meth:`Kernel.register`, and ask :meth:`Kernel.has_pending` / :meth:`Kernel.clear` instead of reading the heap.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Final, Iterator, Sequence

Handler = Callable[[float, int, int, int], None]
#: A queued event's ``(order, seq, kind, a, b)``; its time sits at the same position of ``Kernel.heap`` (typed as
#: a variable-length tuple so that compiled code keeps it one boxed object)
Event = tuple[int, ...]

#: Arrivals pushed by :meth:`Kernel.schedule_arrival` get ``seq = index - ARRIVAL_SEQ_BASE``: below every counter
#: value of :meth:`Kernel.schedule` (which starts at 1), in index order (up to 2**62 jobs).
ARRIVAL_SEQ_BASE: Final = 1 << 62


class EventSink:
    """A compiled handler of the kernel's first kinds (``Kernel.sink``): :meth:`handle` is called directly by the
    compiled run loop, where a handler in the table costs a Python-level call per event (argument parsing, boxing
    of the payloads, a bound method). The engine core (``JobTracker``) is one; it handles kinds below
    ``Kernel.sink_kinds`` exactly as the handlers it registered for them would."""

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        raise NotImplementedError


class Kernel:
    """Clock, heap and run loop."""

    __slots__ = ("heap", "queued", "now", "order", "seq", "events", "handlers", "sink", "sink_kinds")

    def __init__(self) -> None:
        #: the queued events' times, a binary heap by (time, order, seq) together with ``queued`` (typed Any: the
        #: heap's steps move the float objects, and compare them as doubles)
        self.heap: list[Any] = []
        self.queued: list[Event] = []  # the payload of the event whose time is at the same index of ``heap``
        self.now = 0.0
        self.order = -1  # order of the event being handled (for "same instant, later order" decisions)
        self.seq = 0  # push counter: ties at equal (time, order) pop in push order
        self.events = 0
        self.handlers: list[Handler | None] = []  # kind -> handler (register); None: a kind nobody registered
        #: kinds below ``sink_kinds`` go to ``sink.handle`` (a direct call in compiled code), not to the table
        self.sink: EventSink | None = None
        self.sink_kinds = 0

    def schedule(self, time: float, order: int, kind: int, a: int = 0, b: int = 0) -> None:
        """Push an event; ``time`` must not be earlier than :attr:`now`. O(log n)."""
        self.seq += 1
        self._push(time, (order, self.seq, kind, a, b))

    def _push(self, time: float, event: Event) -> None:
        """Append the event and move it up to its place (``heapq``'s ``_siftdown``)."""
        times = self.heap
        queued = self.queued
        boxed: Any = time
        times.append(boxed)
        queued.append(event)
        pos = len(times) - 1
        while pos > 0:
            parent = (pos - 1) >> 1
            parent_time: float = times[parent]
            if time < parent_time or (time == parent_time and event < queued[parent]):
                times[pos] = times[parent]
                queued[pos] = queued[parent]
                pos = parent
            else:
                break
        times[pos] = boxed
        queued[pos] = event

    def _pop(self) -> None:
        """Remove the first event (its time and payload were read at index 0): the last one takes its place and
        moves down (``heapq``'s ``_siftup``: to a leaf by the smaller child, then back up)."""
        times = self.heap
        queued = self.queued
        last_time: Any = times.pop()
        last_event = queued.pop()
        end = len(times)
        if end == 0:
            return
        pos = 0
        child = 1
        while child < end:
            right = child + 1
            if right < end:
                left_time: float = times[child]
                right_time: float = times[right]
                if right_time < left_time or (right_time == left_time and queued[right] < queued[child]):
                    child = right
            times[pos] = times[child]
            queued[pos] = queued[child]
            pos = child
            child = 2 * pos + 1
        time: float = last_time
        while pos > 0:
            parent = (pos - 1) >> 1
            parent_time: float = times[parent]
            if time < parent_time or (time == parent_time and last_event < queued[parent]):
                times[pos] = times[parent]
                queued[pos] = queued[parent]
                pos = parent
            else:
                break
        times[pos] = last_time
        queued[pos] = last_event

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
        return any(event[2] in kinds for event in self.queued)

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
        for time, (_order, _seq, kind, a, b) in zip(list(self.heap), list(self.queued)):
            yield time, kind, a, b

    def clear(self) -> None:
        """Drop every queued event (the run is over)."""
        self.heap.clear()
        self.queued.clear()

    def run(self, handlers: Sequence[Handler] | None = None, after_event: Callable[[], None] | None = None,
            until: float = float("inf")) -> None:
        """Pop and dispatch events in (time, order, seq) order until the heap is empty or ``until`` passes.

        ``handlers[kind](time, order, a, b)`` handles each event (default: the table :meth:`register` built);
        ``after_event`` (features' end-of-event work, invariant checks in tests) runs after every event.
        """
        sink: EventSink = self.sink if self.sink is not None else _NO_SINK
        sink_kinds = self.sink_kinds if self.sink is not None else 0
        if handlers is None:
            handlers = [h if h is not None else _unregistered for h in self.handlers]
        else:
            sink_kinds = 0  # an explicit table handles every kind
        heap = self.heap
        queued = self.queued
        count = self.events
        try:
            while heap:
                boxed: Any = heap[0]
                time: float = boxed
                if time > until:
                    break
                event: tuple[Any, ...] = queued[0]
                self._pop()
                self.now = time
                # The table's handlers get the objects the heap and the tuple hold (typed Any: compiled code would
                # otherwise unbox them and box them again, allocating an object per float and per int above 256);
                # the sink gets machine values (a compiled call, nothing boxed).
                order = event[0]
                self.order = order
                kind: int = event[2]
                if kind < sink_kinds:
                    sink.handle(kind, time, order, event[3], event[4])
                else:
                    handlers[kind](boxed, order, event[3], event[4])
                count += 1
                if after_event is not None:
                    after_event()
        finally:
            self.events = count


_NO_SINK: Final = EventSink()  # stands for "no sink" in the run loop (sink_kinds is then 0)


def _unregistered(now: float, _order: int, _a: int, _b: int) -> None:
    raise RuntimeError(f"event of an unregistered kind at t={now}")
