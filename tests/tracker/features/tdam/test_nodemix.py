"""The engine's node model equals mrsim.contention's NodeContention and the literal Epochs algorithm."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.contention import EpochJob, MixCache, NodeContention, NodeSpec, epochs, predicted_utilization
from mrsim.tracker.features.contention import NodeMix


def drive(node: NodeMix, stream: list[tuple[float, tuple[float, ...]]]) -> dict[int, float]:
    """Feed arrivals, retire at each predicted completion, as the engine does; return end times by index."""
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


def random_stream(seed: int, n: int, width: int, shapes: int) -> list[tuple[float, tuple[float, ...]]]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.0, 10.0, (shapes, width))
    base[:, 0] += 1.0
    out = []
    for _ in range(n):
        size = float(rng.uniform(0.2, 3.0))
        out.append((float(rng.uniform(0.0, 150.0)), tuple(float(v) * size for v in base[rng.integers(shapes)])))
    return out


@pytest.mark.parametrize("seed,cores,disks,model", [
    (1, 1, 1, {}), (2, 4, 1, {}), (3, 8, 2, {}), (4, 2, 0, {}),
    (5, 4, 1, {"cpu_model": "exact"}), (6, 2, 2, {"cpu_model": "exact"}),  # exact cores: exact to rounding
    (7, 4, 1, {"memory": "smp"}), (8, 6, 0, {"memory": "numa", "numa_ratio": 2.0}),  # chapter 4's layer
])
def test_matches_literal_epochs_and_nodecontention(seed, cores, disks, model):
    # Stated tolerance 1e-6 relative, as for NodeContention: AMVA fixed points at tol 1e-8.
    spec = NodeSpec(cores, disks, **model)
    stream = random_stream(seed, 30, spec.width, 3)
    literal = epochs([EpochJob(str(i), t, d) for i, (t, d) in enumerate(stream)], spec, keep_epochs=False)
    ours = drive(NodeMix(MixCache(spec)), stream)
    for i in range(len(stream)):
        assert ours[i] == pytest.approx(literal.end_times[i], rel=1e-6), i
    # NodeContention on the same stream, driven one completion at a time.
    reference = NodeContention(MixCache(spec))
    ends: dict[int, float] = {}
    order = sorted(range(len(stream)), key=lambda i: (stream[i][0], i))
    pos = 0
    while pos < len(order) or len(reference):
        nxt = reference.next_completion()
        t_arr = stream[order[pos]][0] if pos < len(order) else float("inf")
        if nxt is not None and nxt[0] < t_arr:
            reference.remove_task(nxt[1], nxt[0])
            ends[nxt[1]] = nxt[0]
        else:
            reference.add_task(order[pos], stream[order[pos]][1], t_arr)
            pos += 1
    for i in range(len(stream)):
        assert ours[i] == pytest.approx(ends[i], rel=1e-9), i


def test_ties_end_together_in_start_order_and_zero_demand_tasks_end_at_once():
    node = NodeMix(MixCache(NodeSpec(1, 1)))
    node.add(7, (5.0, 0.0), 0.0)
    node.add(3, (5.0, 0.0), 0.0)
    node.add(9, (0.0, 0.0), 0.0)
    assert node.next_completion() == 0.0
    assert node.retire(0.0) == [9]
    assert node.next_completion() == pytest.approx(10.0)
    assert node.retire(node.next_completion()) == [7, 3]
    assert len(node) == 0 and node.next_completion() == float("inf")


def test_remove_returns_the_residual_and_speeds_up_the_rest():
    node = NodeMix(MixCache(NodeSpec(1, 1)))
    node.add(1, (10.0, 0.0), 0.0)
    node.add(2, (10.0, 0.0), 0.0)
    assert node.remove(1, 4.0) == pytest.approx(8.0)  # half speed for 4 s: 2 s done
    assert node.next_completion() == pytest.approx(12.0)  # task 2 has 8 s left, alone from 4


def test_utilization_queries_agree_with_the_package():
    spec = NodeSpec(4, 1)
    cache = MixCache(spec)
    node = NodeMix(cache)
    for i in range(3):
        node.add(i, (40.0, 10.0), 0.0)
    assert node.utilization() == pytest.approx(predicted_utilization(spec, [((40.0, 10.0), 3)]))
    extra = (5.0, 20.0)
    assert node.predicted_utilization(extra) == pytest.approx(
        predicted_utilization(spec, [((40.0, 10.0), 3), (extra, 1)]))
    assert node.predicted_utilization((0.0, 0.0)) == node.utilization()
    assert len(node) == 3  # what-if queries leave the node as it was


def test_time_never_runs_backwards():
    node = NodeMix(MixCache(NodeSpec(1, 1)))
    node.add(1, (1.0, 0.0), 5.0)
    with pytest.raises(ValueError):
        node.add(2, (1.0, 0.0), 4.0)
