"""The kernel's queue: lanes beside a heap pop events in exactly ``(time, order, seq)``
order, wherever each event waited, including events pushed by handlers while the run goes."""

from __future__ import annotations

import heapq
import random

from mrsim.tracker.kernel import LANE_KINDS, Kernel


def test_lanes_and_heap_pop_in_key_order_hand_computed() -> None:
    k = Kernel()
    out: list[tuple[float, int, int]] = []
    for kind in range(LANE_KINDS + 1):  # kind 4 has no lane: it always waits in the heap
        k.register(kind, lambda now, order, a, b, kind=kind: out.append((now, kind, a)))
    k.schedule(1.0, 3, 2, 1)  # lane 2 (empty)
    k.schedule(2.0, 3, 2, 2)  # lane 2: after its last key
    k.schedule(1.5, 3, 2, 3)  # before lane 2's last key: the heap
    k.schedule(2.0, 1, 1, 4)  # lane 1
    k.schedule(2.0, 3, 4, 5)  # no lane: the heap; same (time, order) as event 2, pushed later
    k.schedule(0.5, 0, 0, 6)  # lane 0
    assert k.pending_count() == 6 and k.next_time() == 0.5
    assert k.has_pending((4,)) and k.has_pending((1,)) and not k.has_pending((3,))
    assert sorted(k.pending()) == [(0.5, 0, 6, 0), (1.0, 2, 1, 0), (1.5, 2, 3, 0), (2.0, 1, 4, 0), (2.0, 2, 2, 0),
                                   (2.0, 4, 5, 0)]
    k.run()
    assert out == [(0.5, 0, 6), (1.0, 2, 1), (1.5, 2, 3), (2.0, 1, 4), (2.0, 2, 2), (2.0, 4, 5)]
    assert k.events == 6 and k.pending_count() == 0


def test_random_pushes_pop_like_one_heap_of_whole_keys() -> None:
    """Oracle: a ``heapq`` of ``(time, order, seq)`` keys fed the same pushes, before and during the run."""
    rng = random.Random(7)
    k = Kernel()
    oracle: list[tuple[float, int, int, int]] = []
    popped: list[tuple[float, int, int]] = []
    mismatches: list[tuple[float, int, int, int]] = []
    seq = 0

    def push(time: float, order: int, kind: int) -> None:
        nonlocal seq
        seq += 1
        k.schedule(time, order, kind, seq)
        heapq.heappush(oracle, (time, order, seq, kind))

    def handler(now: float, order: int, a: int, _b: int) -> None:
        popped.append((now, order, a))
        first = heapq.heappop(oracle)  # what one heap of whole keys pops now
        if first[:3] != (now, order, a):
            mismatches.append(first)
        for _ in range(rng.choice((0, 1, 1, 2))):
            if seq < 20_000:
                # times on a coarse grid, so that equal times (and equal (time, order)) are frequent
                push(now + rng.choice((0.0, 0.5, 1.0, 1.0, 2.0, 7.5)), rng.randrange(4), rng.randrange(6))

    for kind in range(6):
        k.register(kind, handler)
    for _ in range(300):
        push(rng.randrange(40) * 0.5, rng.randrange(4), rng.randrange(6))
    k.run()
    assert not mismatches and not oracle and len(popped) == seq > 10_000
    assert len(set(t for t, _, _ in popped)) < len(popped) // 4  # equal times were frequent
    assert k.pending_count() == 0


def test_until_and_clear_see_the_lanes() -> None:
    k = Kernel()
    seen: list[float] = []
    k.register(2, lambda now, order, a, b: seen.append(now))
    for t in (1.0, 2.0, 3.0):
        k.schedule(t, 3, 2)  # all in lane 2
    k.run(until=2.0)
    assert seen == [1.0, 2.0] and k.next_time() == 3.0 and k.pending_count() == 1
    k.clear()
    assert k.pending_count() == 0 and k.next_time() == float("inf") and list(k.pending()) == []


def test_a_feature_kind_with_a_lane_pops_in_key_order() -> None:
    """``add_lane`` (YARN mode's AM allocates): kind 40 gets a lane; pushes in key order wait there, an earlier push
    waits in the heap, and the pop order is the one of one heap of whole keys, also after ``clear``."""
    k = Kernel()
    out: list[tuple[float, int, int]] = []
    for kind in (2, 40, 41):
        k.register(kind, lambda now, order, a, b, kind=kind: out.append((now, kind, a)))
    k.add_lane(40)
    k.add_lane(40)  # once is enough
    k.add_lane(2)  # has one already
    assert len(k.lanes) == LANE_KINDS + 1
    k.schedule(1.0, 2, 40, 1)  # lane 40 (empty)
    k.schedule(2.0, 2, 40, 2)  # lane 40: after its last key
    k.schedule(1.5, 2, 40, 3)  # before lane 40's last key: the heap
    k.schedule(2.0, 2, 41, 4)  # no lane: the heap; same (time, order) as event 2, pushed later
    k.schedule(2.0, 2, 40, 5)  # lane 40: same (time, order) as event 2, pushed later
    k.schedule(1.0, 3, 2, 6)  # lane 2
    assert k.lanes[LANE_KINDS].size() == 3 and len(k.heap) == 2
    assert k.has_pending((40,)) and k.pending_count() == 6
    k.run()
    assert out == [(1.0, 40, 1), (1.0, 2, 6), (1.5, 40, 3), (2.0, 40, 2), (2.0, 41, 4), (2.0, 40, 5)]
    k.schedule(3.0, 2, 40, 7)
    k.clear()
    assert k.pending_count() == 0 and len(k.lanes) == LANE_KINDS + 1
    k.schedule(4.0, 2, 40, 8)
    assert k.lanes[LANE_KINDS].size() == 1 and not k.heap


def test_popped_events_are_reused() -> None:
    """A popped event is recycled for a later push (no allocation per event): a chain of 5,000 events, each pushing
    the next one and an event of another kind, never has more than three events allocated, and the pop order is
    unchanged by the reuse (the handler's pushes happen after the popped event's fields were read)."""
    k = Kernel()
    out: list[tuple[float, int, int, int]] = []

    def handler(now: float, order: int, a: int, b: int) -> None:
        out.append((now, order, a, b))
        if a < 5_000 and b == 0:
            k.schedule(now + 1.0, 2, 1, a + 1, 0)  # lane 1
            k.schedule(now + 0.5, 3, 5, a, 7)  # no lane: the heap
        assert len(k.spare) + k.pending_count() <= 3

    k.register(1, handler)
    k.register(5, handler)
    k.schedule(0.0, 2, 1, 0, 0)
    k.run()
    expected: list[tuple[float, int, int, int]] = []
    for a in range(5_001):
        expected.append((float(a), 2, a, 0))
        if a < 5_000:
            expected.append((a + 0.5, 3, a, 7))
    assert out == expected and k.events == 10_001
