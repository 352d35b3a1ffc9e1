"""The node model the engine runs (NodeMix) against its oracle, the literal Algorithm 7 (``epochs``).

Hand-computed cases first (Table 5.1; section 6.6's ten CPU tasks on one core), then seeded random streams and a
property over generated streams. Stated tolerance: relative 1e-6, both sides being AMVA fixed points of the same
equations at tol 1e-8 (the observed difference is far smaller).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrsim.contention import EpochJob, MixCache, NodeContention, NodeSpec, epochs
from mrsim.contention.nodemix import MixTable, NodeMix

Stream = list[tuple[float, tuple[float, ...]]]


def engine_node(spec: NodeSpec) -> NodeMix:
    """A node as the engine builds it: the node type's cache, shape memo and mix table (shared by its nodes)."""
    cache = MixCache(spec)
    return NodeMix(cache, {}, MixTable(cache))


def drive(node: NodeMix, stream: Stream) -> dict[int, float]:
    """Arrivals in start order, each predicted completion retired when it comes, as the engine's events do."""
    ends: dict[int, float] = {}
    order = sorted(range(len(stream)), key=lambda i: (stream[i][0], i))
    pos = 0
    while pos < len(order) or len(node):
        t_next = node.next_completion()
        t_arr = stream[order[pos]][0] if pos < len(order) else float("inf")
        if t_next < t_arr:
            for gid in node.retire(t_next):
                ends[gid] = t_next
        else:
            i = order[pos]
            pos += 1
            node.add(i, stream[i][1], t_arr)
        node._check()
    return ends


def oracle(stream: Stream, spec: NodeSpec) -> tuple[float, ...]:
    return epochs([EpochJob(f"J{i + 1}", t, d) for i, (t, d) in enumerate(stream)], spec, keep_epochs=False).end_times


def test_table_5_1_timeline() -> None:
    # J1 (CPU 2 s, disk 4 s) at 0 alone for 3 s (half done), then with J2 (3 s, 5 s): J1 ends at 3 + 4.69 and
    # J2 at 7.69 + 4.98 (Table 5.1; unrounded 12.6751).
    stream: Stream = [(0.0, (2.0, 4.0)), (3.0, (3.0, 5.0))]
    ends = drive(engine_node(NodeSpec(1, 1)), stream)
    assert round(ends[0], 2) == 7.69 and round(ends[1], 4) == 12.6751
    assert [ends[0], ends[1]] == pytest.approx(oracle(stream, NodeSpec(1, 1)), rel=1e-9)


def test_ten_cpu_tasks_on_one_core_end_at_1000_s() -> None:
    # Section 6.6: ten 100-s CPU tasks started together on one core share it; all end at 1000 s, in start order.
    node = engine_node(NodeSpec(1, 0))
    for gid in range(10):
        node.add(gid, (100.0,), 0.0)
    assert node.next_completion() == pytest.approx(1000.0, rel=1e-12)
    assert node.retire(node.next_completion()) == list(range(10))
    assert oracle([(0.0, (100.0,))] * 10, NodeSpec(1, 0)) == pytest.approx((1000.0,) * 10, rel=1e-12)


def test_a_kill_frees_the_node_for_the_rest() -> None:
    # Two 10-s CPU tasks on one core run at half speed; killing one at 4 s (2 s done each) leaves the other 8 s
    # alone: it ends at 12 s, as the oracle's stream in which the killed task asked for 2 s only.
    node = engine_node(NodeSpec(1, 1))
    node.add(1, (10.0, 0.0), 0.0)
    node.add(2, (10.0, 0.0), 0.0)
    assert node.remove(1, 4.0) == pytest.approx(8.0)
    assert node.next_completion() == pytest.approx(12.0)
    assert oracle([(0.0, (2.0, 0.0)), (0.0, (10.0, 0.0))], NodeSpec(1, 1))[1] == pytest.approx(12.0)


def random_stream(seed: int, n: int, width: int, shapes: int) -> Stream:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.0, 10.0, (shapes, width))
    base[:, 0] += 1.0  # every shape uses the CPU
    return [(float(rng.uniform(0.0, 150.0)), tuple(float(v) * float(rng.uniform(0.2, 3.0))
                                                   for v in base[rng.integers(shapes)])) for _ in range(n)]


@pytest.mark.parametrize("seed,cores,disks,model", [
    (11, 1, 1, {}), (12, 4, 1, {}), (13, 8, 2, {}), (14, 2, 0, {}),
    (15, 4, 1, {"cpu_model": "exact"}), (16, 4, 1, {"memory": "smp"}),
    (17, 6, 0, {"memory": "numa", "numa_ratio": 2.0}),
])
def test_random_streams_match_the_oracle(seed: int, cores: int, disks: int, model: dict) -> None:
    spec = NodeSpec(cores, disks, **model)
    stream = random_stream(seed, 40, spec.width, 4)
    ends = drive(engine_node(spec), stream)
    assert [ends[i] for i in range(len(stream))] == pytest.approx(oracle(stream, spec), rel=1e-6)


def test_keyed_interface_is_the_same_model() -> None:
    # NodeContention collects completions at 3-second heartbeats; each task still ends at its exact instant.
    spec = NodeSpec(2, 1)
    stream = [(3.0 * round(t / 3.0), d) for t, d in random_stream(21, 25, spec.width, 2)]
    node = NodeContention(spec)
    ends: dict[int, float] = {}
    for now in np.arange(0.0, 3000.0, 3.0):
        ends.update({k: t for t, k in node.advance(float(now))})
        for i, (start, demand) in enumerate(stream):
            if start == now:
                node.add_task(i, demand, float(now))
        node._check()
    assert len(ends) == len(stream)
    assert [ends[i] for i in range(len(stream))] == pytest.approx(oracle(stream, spec), rel=1e-6)
    assert [ends[i] for i in range(len(stream))] == pytest.approx(
        [drive(engine_node(spec), stream)[i] for i in range(len(stream))], rel=1e-9)


demand = st.floats(0.0, 20.0, allow_nan=False)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(cores=st.integers(1, 4), disks=st.integers(0, 2), data=st.data())
def test_generated_streams_match_the_oracle(cores: int, disks: int, data: st.DataObject) -> None:
    # Any small stream: ties in arrival, zero-demand tasks, CPU-only and disk-heavy shapes.
    spec = NodeSpec(cores, disks)
    row = st.tuples(st.floats(0.0, 50.0, allow_nan=False).map(lambda t: round(t, 1)),
                    st.tuples(*[demand] * spec.width).map(lambda d: tuple(round(v, 2) for v in d)))
    stream = data.draw(st.lists(row, min_size=1, max_size=10))
    ends = drive(engine_node(spec), stream)
    want = oracle(stream, spec)
    for i in range(len(stream)):
        assert ends[i] == pytest.approx(want[i], rel=1e-6, abs=1e-9), (i, stream)
