"""A tiny discrete-event kernel with no Hadoop knowledge (in the spirit of SimPy's ``core.py``).

Every event has a key ``(time, order, seq)`` and a payload ``(kind, a, b)``:

* ``time`` in seconds (float);
* ``order`` breaks ties at the same instant; callers give every event class its own order value, so
  same-time behaviour is deterministic and documented where the classes are defined;
* ``seq`` is a global counter, so equal ``(time, order)`` pairs pop in push order and payloads are never compared;
* ``kind`` indexes the handler table; ``a`` and ``b`` are two integer payloads.

Each queued event is one :class:`Event` object whose fields hold the key and the payload (compiled: a double and
five machine ints), and the kernel reuses popped events for later pushes, so the queue allocates nothing per event
once it has reached its largest size. The queue is a binary heap of events compiled with the
core: a heap step compares two times as machine doubles read from the events, and ``(order, seq)`` only when the
times are equal. Beside the heap, each of the first :data:`LANE_KINDS` kinds has a *lane* (:class:`Lane`), a FIFO
that takes an event of its kind whenever the event's key is after the key of the lane's last event: most events of
one kind are pushed in key order (a tracker's next heartbeat one interval after the one being handled, jobs
arriving in submit order), so on 10,000 trackers most of the 10,000 queued events wait in a lane, where a push
and a pop cost O(1) and touch memory in order, instead of in a heap 14 levels deep whose every step was a cache
miss. Every other event goes to the heap. The next event is the smallest of the heap's top and the lanes' heads,
so popping gives exactly the ``(time, order, seq)`` order, wherever each event waited. A later kind whose events
are mostly pushed in key order may ask for a lane too (:meth:`Kernel.add_lane`: YARN mode's AM allocates).
Earlier layouts cost more: a ``heapq`` of whole tuples compared tuples at every step; a ``heapq`` of times with the
payloads in a dict keyed by the time paid a generic comparison per step plus a float hash and two dict operations
per event; two parallel lists of boxed times and ``(order, seq, kind, a, b)`` tuples allocated a tuple, a float and
up to three ints per event and freed them after it (``docs/performance.md``).
Cancellation is by tombstone: a handler compares a payload with the current state and ignores stale events.
Cost: O(1) per push and pop of a lane, O(log n) per push and pop of the heap, plus one comparison per lane to pick
the next event.

This is the **only** module that touches the heap: the engine core and every feature schedule events through
:meth:`Kernel.schedule` (compiled callers call it on the kernel directly: a bound method stored or kept in a local
would make every call a Python-level one), register their handlers with
:meth:`Kernel.register`, and ask :meth:`Kernel.has_pending` / :meth:`Kernel.clear` instead of reading the heap.
"""

from __future__ import annotations

import math
from typing import Callable, Final, Iterator, final

Handler = Callable[[float, int, int, int], None]

#: Arrivals pushed by :meth:`Kernel.schedule_arrival` get ``seq = index - ARRIVAL_SEQ_BASE``: below every counter
#: value of :meth:`Kernel.schedule` (which starts at 1), in index order (up to 2**62 jobs).
ARRIVAL_SEQ_BASE: Final = 1 << 62
#: Event kinds ``0 .. LANE_KINDS - 1`` have a lane each (the engine core's four kinds: ``mrsim/tracker/events.py``)
LANE_KINDS: Final = 4
#: A lane drops its popped entries once this many have accumulated and they are half of it (amortised O(1))
LANE_COMPACT: Final = 4096


@final
class Event:
    """A queued event: its key ``(time, order, seq)`` and payload ``(kind, a, b)`` as fields of one object.

    Compiled, the fields are machine values in the object (a double and five tagged ints): pushing an event boxes
    nothing and a heap step compares two doubles read from the objects. The kernel recycles the objects: the run
    loop reads a popped event's fields, then puts it on :attr:`Kernel.spare` for the next push, so a replay
    allocates about as many events as it ever has queued at once, not one per event (a tuple, a float and up to
    three ints per event would put a fifth of the engine's instructions into allocating and freeing
    them, ``docs/performance.md``). Nothing outside the kernel holds an event."""

    __slots__ = ("time", "order", "seq", "kind", "a", "b")

    def __init__(self, time: float, order: int, seq: int, kind: int, a: int, b: int) -> None:
        self.time = time
        self.order = order
        self.seq = seq
        self.kind = kind
        self.a = a
        self.b = b


def before(x: Event, y: Event) -> bool:
    """Whether ``x`` pops before ``y``: key ``(time, order, seq)`` (``seq`` is unique, so two events never tie).
    O(1); compiled, three comparisons of machine values at most."""
    if x.time != y.time:
        return x.time < y.time
    if x.order != y.order:
        return x.order < y.order
    return x.seq < y.seq


class Lane:
    """Events of one kind whose keys increase in push order: a FIFO (a list read from ``head``).
    :meth:`Kernel._push` appends an event only if its key is after the last one's."""

    __slots__ = ("events", "head")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.head = 0  # index of the first queued entry; entries before it were popped

    def size(self) -> int:
        return len(self.events) - self.head

    def pop(self) -> None:
        """Drop the head (read by the caller)."""
        head = self.head + 1
        if head >= LANE_COMPACT and 2 * head >= len(self.events):
            del self.events[:head]
            head = 0
        self.head = head


class EventSink:
    """A handler of events: the kernel's table holds one per kind (:meth:`Kernel.register`), and the run loop calls
    its :meth:`handle` (compiled: a C call through the class's vtable, the payloads as machine values). Engine and
    feature code compiled with the core subclass it (the JobTracker's four kinds, YARN mode's ResourceManager,
    TDAM's epochs); a plain function is registered behind :class:`CallHandler`."""

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        raise NotImplementedError

    def end_of_event(self) -> None:
        """End-of-event work, when this object is the ``after_event`` given to :meth:`Kernel.run` (TDAM's epochs).
        Here: nothing to do."""


@final
class CallHandler(EventSink):
    """A plain function ``handler(time, order, a, b)`` as a table entry (features written in Python): one
    Python-level call per event."""

    __slots__ = ("handler",)

    def __init__(self, handler: Handler) -> None:
        self.handler = handler

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.handler(time, order, a, b)


@final
class CallEnd(EventSink):
    """A plain function ``() -> None`` as the run loop's end-of-event work (invariant checks, Python features)."""

    __slots__ = ("call",)

    def __init__(self, call: Callable[[], None]) -> None:
        self.call = call

    def end_of_event(self) -> None:
        self.call()


@final
class EndOfEvents(EventSink):
    """Several ``end_of_event`` objects, called in order after each event."""

    __slots__ = ("ends",)

    def __init__(self, ends: list[EventSink]) -> None:
        self.ends = ends

    def end_of_event(self) -> None:
        for end in self.ends:
            end.end_of_event()


class Kernel:
    """Clock, heap and run loop."""

    __slots__ = ("heap", "spare", "lanes", "feature_lanes", "now", "order", "seq", "events", "handlers")

    def __init__(self) -> None:
        #: the queued events that wait in no lane, a binary heap by (time, order, seq)
        self.heap: list[Event] = []
        #: popped events, reused by the next pushes (:class:`Event`)
        self.spare: list[Event] = []
        #: kind -> its lane for the first LANE_KINDS kinds; the lanes of :meth:`add_lane` follow them
        self.lanes: list[Lane] = [Lane() for _ in range(LANE_KINDS)]
        #: the lanes of later kinds that asked for one (:meth:`add_lane`), indexed by kind (None: no lane; a list,
        #: not a dict: a push reads it without hashing); empty in MR1 mode
        self.feature_lanes: list[Lane | None] = []
        self.now = 0.0
        self.order = -1  # order of the event being handled (for "same instant, later order" decisions)
        self.seq = 0  # push counter: ties at equal (time, order) pop in push order
        self.events = 0
        #: kind -> its handler (:meth:`register`), the one dispatch table; kinds nobody registered hold
        #: :data:`UNREGISTERED`
        self.handlers: list[EventSink] = []

    def schedule(self, time: float, order: int, kind: int, a: int = 0, b: int = 0) -> None:
        """Push an event; ``time`` must not be earlier than :attr:`now`. O(1) into a lane, O(log n) into the heap."""
        seq = self.seq + 1
        self.seq = seq
        spare = self.spare
        if spare:
            event = spare.pop()
            event.time = time
            event.order = order
            event.seq = seq
            event.kind = kind
            event.a = a
            event.b = b
        else:
            event = Event(time, order, seq, kind, a, b)
        self._push(event)

    def _push(self, event: Event) -> None:
        """Append the event to its kind's lane if its key is after the lane's last one, else push it on the heap
        (append it and move it up to its place: ``heapq``'s ``_siftdown``)."""
        kind = event.kind
        lane: Lane | None = None
        if kind < LANE_KINDS:
            lane = self.lanes[kind]
        elif kind < len(self.feature_lanes):
            lane = self.feature_lanes[kind]
        if lane is not None:
            events = lane.events
            n = len(events)
            if n == lane.head:  # empty: append after the popped entries (``Lane.pop`` drops them in bulk); a
                # clear here freed the list's storage and the next pushes grew it again, at every time the lane
                # ran dry (a third of the heartbeat lane's pushes)
                if n >= LANE_COMPACT:
                    events.clear()
                    lane.head = 0
                events.append(event)
                return
            if before(events[n - 1], event):
                events.append(event)
                return
        heap = self.heap
        heap.append(event)
        self._sift_up(len(heap) - 1, event)

    def _sift_up(self, pos: int, event: Event) -> None:
        """Put ``event`` at ``pos`` or above it, moving later parents down (``heapq``'s ``_siftdown``). O(log n)."""
        heap = self.heap
        time = event.time
        while pos > 0:
            parent = (pos - 1) >> 1
            above = heap[parent]
            if time < above.time or (time == above.time and (
                    event.order < above.order or (event.order == above.order and event.seq < above.seq))):
                heap[pos] = above
                pos = parent
            else:
                break
        heap[pos] = event

    def _pop(self) -> None:
        """Remove the first event (read at index 0): the last one takes its place and moves down (``heapq``'s
        ``_siftup``: to a leaf by the smaller child, then back up)."""
        heap = self.heap
        last = heap.pop()
        end = len(heap)
        if end == 0:
            return
        pos = 0
        child = 1
        while child < end:
            right = child + 1
            smaller = heap[child]
            if right < end:
                other = heap[right]
                if before(other, smaller):
                    child = right
                    smaller = other
            heap[pos] = smaller
            pos = child
            child = 2 * pos + 1
        self._sift_up(pos, last)

    def schedule_arrival(self, time: float, order: int, kind: int, index: int) -> None:
        """Push the arrival of job ``index`` (the ``index``-th in submit order) so that it pops before every other
        event of the same ``(time, order)`` and after the arrivals of lower indices, whenever it is pushed: the
        order that pushing every arrival before the run gives. Streamed replays push one arrival at a time
        (``mrsim/tracker/features/streaming.py``). O(log n)."""
        self._push(Event(time, order, index - ARRIVAL_SEQ_BASE, kind, index, 0))

    def add_lane(self, kind: int) -> None:
        """Give ``kind`` (from :data:`LANE_KINDS` on) a lane of its own, for a kind whose events are mostly pushed in
        key order (e.g. an ApplicationMaster's next allocate, one interval after the one being handled). The pop
        order stays exactly ``(time, order, seq)``; each lane costs the run loop one comparison per event."""
        if kind < LANE_KINDS:
            return  # it has one
        table = self.feature_lanes
        if kind >= len(table):
            table.extend([None] * (kind + 1 - len(table)))
        if table[kind] is None:
            lane = Lane()
            table[kind] = lane
            self.lanes.append(lane)

    def register(self, kind: int, handler: "EventSink | Handler") -> None:
        """Handle events of ``kind`` (a small non-negative int) with ``handler``: an :class:`EventSink` (its
        ``handle(kind, time, order, a, b)``) or a function ``handler(time, order, a, b)`` (behind
        :class:`CallHandler`). A kind has one handler."""
        table = self.handlers
        if kind >= len(table):
            table.extend([UNREGISTERED] * (kind + 1 - len(table)))
        if table[kind] is not UNREGISTERED:
            raise ValueError(f"event kind {kind} already has a handler")
        table[kind] = handler if isinstance(handler, EventSink) else CallHandler(handler)

    def _queued(self) -> list[Event]:
        """Every queued event (stale ones included): the heap's, then each lane's. O(n)."""
        queued = list(self.heap)
        for lane in self.lanes:
            queued.extend(lane.events[lane.head:])
        return queued

    def has_pending(self, kinds: "frozenset[int] | set[int] | tuple[int, ...]") -> bool:
        """Whether an event of one of ``kinds`` is queued (stale ones included). O(n): for rare checks only."""
        return any(event.kind in kinds for event in self._queued())

    def next_time(self) -> float:
        """Time of the next queued event, ``inf`` when none is queued. O(1): studies that batch the events of one
        instant ask it to know whether an event is the instant's last."""
        heap = self.heap
        first = heap[0].time if heap else math.inf
        for lane in self.lanes:
            if lane.size():
                first = min(first, lane.events[lane.head].time)
        return first

    def pending_count(self) -> int:
        """Number of queued events (stale ones included). O(1)."""
        return len(self.heap) + sum(lane.size() for lane in self.lanes)

    def pending(self) -> Iterator[tuple[float, int, int, int]]:
        """Queued events as ``(time, kind, a, b)``, in no particular order. O(n): for checkers and end-of-run
        views only."""
        for event in self._queued():
            yield event.time, event.kind, event.a, event.b

    def clear(self) -> None:
        """Drop every queued event (the run is over)."""
        self.heap.clear()
        self.lanes = [Lane() for _ in range(LANE_KINDS)]
        table = self.feature_lanes
        for kind in range(len(table)):
            if table[kind] is not None:
                lane = Lane()
                table[kind] = lane
                self.lanes.append(lane)

    def run(self, after_event: EventSink | None = None, until: float = float("inf")) -> None:
        """Pop and dispatch events in (time, order, seq) order until the queue is empty or ``until`` passes.

        ``handlers[kind].handle(kind, time, order, a, b)`` handles each event (the table :meth:`register` built);
        ``after_event.end_of_event()`` (features' end-of-event work, invariant checks in tests) runs after every
        event.
        """
        handlers = self.handlers
        heap = self.heap
        spare = self.spare
        count = self.events
        try:
            while True:
                # The next event: the smallest of the heap's top and the lanes' heads.
                source: Lane | None = None
                event: Event | None = None
                if heap:
                    event = heap[0]
                for lane in self.lanes:  # self.lanes: clear() replaces them
                    head = lane.head
                    events = lane.events
                    if head < len(events):
                        first = events[head]
                        if event is None or before(first, event):
                            event = first
                            source = lane
                if event is None:
                    break
                time = event.time
                if time > until:
                    break
                if source is None:
                    self._pop()
                else:
                    source.pop()
                self.now = time
                order = event.order
                self.order = order
                kind = event.kind
                a = event.a
                b = event.b
                spare.append(event)  # read: the handler's pushes may reuse it
                if kind >= len(handlers):
                    _unregistered(time, order, a, b)
                handlers[kind].handle(kind, time, order, a, b)
                count += 1
                if after_event is not None:
                    after_event.end_of_event()
        finally:
            self.events = count


def _unregistered(now: float, _order: int, _a: int, _b: int) -> None:
    raise RuntimeError(f"event of an unregistered kind at t={now}")


#: the table entry of a kind nobody registered: its events are an error
UNREGISTERED: Final[EventSink] = CallHandler(_unregistered)
