"""Incremental per-node model: equals the literal Epochs algorithm, invariants after every operation, API."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.contention.epochs import epochs
from mrsim.contention.incremental import MixCache, NodeContention, predicted_utilization
from mrsim.contention.node import NodeSpec, solve_mix
from mrsim.errors import InputError


def replay(
    spec: NodeSpec, jobs: list[tuple[float, tuple[float, ...]]], cache: MixCache | None = None
) -> dict[int, float]:
    """Drive a NodeContention the way an engine with one event per completion would."""
    node = NodeContention(cache or MixCache(spec))
    ends: dict[int, float] = {}
    arrivals = sorted(range(len(jobs)), key=lambda i: (jobs[i][0], i))
    pos = 0
    while pos < len(arrivals) or len(node):
        nxt = node.next_completion()
        t_arr = jobs[arrivals[pos]][0] if pos < len(arrivals) else float("inf")
        if nxt is not None and nxt[0] < t_arr:
            t, key = nxt
            assert node.remove_task(key, t) == pytest.approx(0.0, abs=1e-9)
            ends[key] = t
        else:
            i = arrivals[pos]
            pos += 1
            node.add_task(i, jobs[i][1], t_arr)
        node._check()
    return ends


def random_jobs(rng: np.random.Generator, n: int, width: int, n_shapes: int) -> list[tuple[float, tuple[float, ...]]]:
    shapes = rng.uniform(0.0, 10.0, (n_shapes, width))
    shapes[:, 0] += 1.0  # every shape uses the CPU
    jobs = []
    for _ in range(n):
        size = float(rng.uniform(0.2, 3.0))
        jobs.append((float(rng.uniform(0.0, 150.0)), tuple(float(v) * size for v in shapes[rng.integers(n_shapes)])))
    return jobs


@pytest.mark.parametrize("seed,cores,disks", [(1, 1, 1), (2, 4, 1), (3, 8, 2), (4, 2, 0)])
def test_matches_literal_epochs(seed: int, cores: int, disks: int) -> None:
    # Same local stream through Algorithm 7 (one class per job) and the shape-aggregated model.
    # Stated tolerance 1e-6 relative: both are AMVA fixed points of the same equations at tol 1e-8.
    spec = NodeSpec(cores, disks)
    jobs = random_jobs(np.random.default_rng(seed), 30, spec.width, 3)
    reference = epochs(jobs, spec, keep_epochs=False)
    ends = replay(spec, jobs)
    for i in range(len(jobs)):
        assert ends[i] == pytest.approx(reference.end_times[i], rel=1e-6), i


def test_heartbeat_collection_style_gives_the_same_times() -> None:
    # Tasks start on 3-second heartbeats; completions are collected at later heartbeats, each with its exact
    # finish instant (the node retires it there and re-solves, so contention ends when the task does).
    spec = NodeSpec(2, 1)
    jobs = [(3.0 * round(t / 3.0), d) for t, d in random_jobs(np.random.default_rng(11), 25, spec.width, 2)]
    reference = epochs(jobs, spec, keep_epochs=False)
    node = NodeContention(spec)
    ends: dict[int, float] = {}
    for now in np.arange(0.0, 3000.0, 3.0):
        done = node.advance(float(now))
        assert all(t <= now for t, _ in done)
        assert [t for t, _ in done] == sorted(t for t, _ in done)
        ends.update({k: t for t, k in done})
        for i, (start, demand) in enumerate(jobs):
            if start == now:
                node.add_task(i, demand, float(now))
        node._check()
    assert len(ends) == len(jobs) and len(node) == 0
    for i in range(len(jobs)):
        assert ends[i] == pytest.approx(reference.end_times[i], rel=1e-6)


def test_ten_cpu_tasks_single_core() -> None:
    node = NodeContention(NodeSpec(1, 0))
    for i in range(10):
        node.add_task(i, (100.0,), 0.0)
    assert node.completion_times() == pytest.approx({i: 1000.0 for i in range(10)}, rel=1e-12)
    assert node.cache.solves == 1  # ten starts at one instant: one solve, one shape, population 10
    assert node.next_completion() == pytest.approx((1000.0, 0))
    done = node.advance(1000.0)
    assert [k for _, k in done] == list(range(10))  # ties go to the task that started first
    assert [t for t, _ in done] == pytest.approx([1000.0] * 10)


def test_shapes_and_cache_are_shared() -> None:
    cache = MixCache(NodeSpec(4, 1))
    a, b = NodeContention(cache), NodeContention(cache)
    a.add_task("x", (10.0, 2.0), 0.0)
    a.add_task("y", (20.0, 4.0), 0.0)  # same shape, twice the size
    b.add_task("z", (5.0, 1.0), 0.0)
    b.add_task("w", (1.0, 0.2), 0.0)
    assert cache.n_shapes == 1
    assert a.signature() == b.signature() == ((0, 2),)
    ta, tb = a.completion_times(), b.completion_times()
    assert cache.solves == 1 and cache.hits == 1
    assert ta["y"] == pytest.approx(2 * ta["x"], rel=1e-12)  # remaining time scales with residual size
    assert ta["x"] == pytest.approx(tb["z"] * 2, rel=1e-12)


def test_kill_and_residuals() -> None:
    spec = NodeSpec(1, 1)
    node = NodeContention(spec)
    node.add_task("a", (2.0, 4.0), 0.0)
    assert node.remaining_demand("a") == pytest.approx((2.0, 4.0))
    node.advance(3.0)
    assert node.remaining_demand("a") == pytest.approx((1.0, 2.0))  # Table 5.1, epoch 1
    assert node.progress("a") == pytest.approx(0.5)
    node.add_task("b", (3.0, 5.0), 3.0)
    t_b = node.completion_time("b")
    assert t_b == pytest.approx(3.0 + 12.44, abs=0.005)  # T_{2,2} of Table 5.1
    v = node.version
    assert node.remove_task("a", 5.0) > 0.0  # killed half-way through epoch 2
    assert node.version == v + 1
    assert "a" not in node
    node._check()
    assert node.completion_time("b") < t_b  # less contention, earlier finish
    with pytest.raises(KeyError):
        node.remove_task("a", 5.0)


def test_predictions_for_dispatchers() -> None:
    spec = NodeSpec(4, 1)
    node = NodeContention(spec)
    assert node.utilization() == (0.0, 0.0)
    assert node.predicted_response_time((100.0, 10.0)) == pytest.approx(110.0, rel=1e-12)
    assert node.predicted_utilization((100.0, 10.0)) == pytest.approx((25 / 110, 10 / 110), rel=1e-12)
    node.add_task(1, (100.0, 10.0), 0.0)
    node.add_task(2, (50.0, 30.0), 0.0)
    # What-if answers equal a fresh solve of the enlarged mix, and leave the node alone.
    sig, version = node.signature(), node.version
    want = solve_mix(spec, [(100.0, 10.0), (50.0, 30.0), (5.0, 5.0)], [1, 1, 1])
    assert node.predicted_utilization((5.0, 5.0)) == pytest.approx(want.utilization, rel=1e-6)
    assert node.predicted_response_time((5.0, 5.0)) == pytest.approx(want.response[2], rel=1e-6)
    assert node.max_utilization() == max(node.utilization())
    assert node.signature() == sig and node.version == version
    standalone = predicted_utilization(spec, [((100.0, 10.0), 1), ((50.0, 30.0), 1)])
    assert standalone == pytest.approx(node.utilization(), rel=1e-9)
    # A CPU-bound task on one core keeps it fully busy.
    assert predicted_utilization(NodeSpec(1, 0), [((7.0,), 3)]) == pytest.approx((1.0,))


def test_zero_demand_and_errors() -> None:
    node = NodeContention(NodeSpec(2, 1), now=10.0)
    node.add_task("empty", (0.0, 0.0), 12.0)
    assert node.next_completion() == (12.0, "empty")
    assert node.advance(12.0) == [(12.0, "empty")]
    with pytest.raises(InputError, match="task 'bad'"):
        node.add_task("bad", (1.0,), 12.0)
    node.add_task("t", (1.0, 1.0), 12.0)
    with pytest.raises(ValueError, match="already"):
        node.add_task("t", (1.0, 1.0), 12.0)
    with pytest.raises(ValueError, match="backwards"):
        node.advance(11.0)


def test_random_operations_keep_invariants() -> None:
    # Seeded random starts, kills and clock moves on a shared cache; _check after every operation.
    rng = np.random.default_rng(99)
    spec = NodeSpec(4, 2)
    cache = MixCache(spec)
    nodes = [NodeContention(cache) for _ in range(3)]
    shapes = [(8.0, 1.0, 0.0), (2.0, 2.0, 2.0), (30.0, 0.0, 5.0)]
    now, key = 0.0, 0
    for _ in range(600):
        node = nodes[int(rng.integers(3))]
        op = rng.random()
        now += float(rng.exponential(2.0))
        if op < 0.5:
            node.add_task(key, tuple(v * float(rng.uniform(0.5, 2)) for v in shapes[int(rng.integers(3))]), now)
            key += 1
        elif op < 0.6 and len(node):
            victim = next(iter(node.completion_times()))
            node.remove_task(victim, now)
        else:
            for t, _ in node.advance(now):
                assert t <= now
        node._check()
        nxt = node.next_completion()
        if nxt is not None:
            assert nxt[0] >= node.now - 1e-9 or nxt[1] in node
    assert cache.stats()["solves"] < 600


def test_co_finishing_tasks_stay_pending_until_retired() -> None:
    # Two identical tasks end at the same instant. Removing one leaves the other pending (no longer
    # contending, still counted by len()), and next_completion() hands it out at the same time.
    node = NodeContention(NodeSpec(1, 0))
    node.add_task("a", (5.0,), 0.0)
    node.add_task("b", (5.0,), 0.0)
    t, key = node.next_completion()
    assert (t, key) == (pytest.approx(10.0), "a")
    assert node.remove_task("a", t) == 0.0
    assert node.running == 0 and len(node) == 1 and "b" in node
    assert node.next_completion() == (t, "b")
    assert node.completion_time("b") == t
    assert node.remove_task("b", t) == 0.0
    assert len(node) == 0 and node.next_completion() is None
    node._check()
