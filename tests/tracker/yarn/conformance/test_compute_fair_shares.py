"""Hadoop's ``TestComputeFairShares`` (``scheduler.fair``), re-expressed: queues of a Fair allocation file, each
with one running app, on a cluster of the test's total memory; each queue's instantaneous fair share is the value
Hadoop asserts. Hadoop's shares are integers (``(int)`` of the bisection's result); mrsim's are floats within 1e-6.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.tracker.yarn.schedulers.fair import FairScheduler, compute_shares
from tests.tracker.yarn.conformance.hadoop import MultiNodeRM, allocation_file, app, hadoop

V = "2.6.0 and 3.3.6"  # the assertions are the same in both lines


def _shares(tmp_path: Path, total: float, queues: list[dict[str, float]]) -> list[float]:
    """Fair shares of queues q1..qn (keys: weight, min, max in MB) with one app each, cluster memory ``total``."""
    body = []
    for i, q in enumerate(queues, 1):
        parts = [f"<weight>{q.get('weight', 1.0)}</weight>"]
        if "min" in q:
            parts.append(f"<minResources>{q['min']:g} mb, 0 vcores</minResources>")
        if "max" in q:
            parts.append(f"<maxResources>{q['max']:g} mb, 1000 vcores</maxResources>")
        body.append(f"<queue name=\"q{i}\">{''.join(parts)}</queue>")
    fair = FairScheduler({"config_file": str(allocation_file(tmp_path, "\n".join(body)))})
    rm = MultiNodeRM([("host_0", "/rack_0", total, 1000.0)], min_mem=1.0)
    rm.start(fair)
    for i in range(1, len(queues) + 1):
        fair.add_app(app(i, "user", f"q{i}"))
    return [fair.queues[f"root.q{i}"].fair_share for i in range(1, len(queues) + 1)]


@hadoop("TestComputeFairShares", "testEqualSharing", V)
def test_equal_sharing(tmp_path: Path) -> None:
    assert _shares(tmp_path, 40, [{}, {}, {}, {}]) == pytest.approx([10, 10, 10, 10], abs=1e-6)


@hadoop("TestComputeFairShares", "testLowMaxShares", V)
def test_low_max_shares(tmp_path: Path) -> None:
    shares = _shares(tmp_path, 40, [{"max": 100}, {"max": 50}, {"max": 11}, {"max": 3}])
    assert shares == pytest.approx([13, 13, 11, 3], abs=1e-6)


@hadoop("TestComputeFairShares", "testMinShares", V)
def test_min_shares(tmp_path: Path) -> None:
    shares = _shares(tmp_path, 40, [{"min": 20}, {"min": 18}, {"min": 0}, {"min": 2}])
    assert shares == pytest.approx([20, 18, 0, 2], abs=1e-6)


@hadoop("TestComputeFairShares", "testWeightedSharing", V)
def test_weighted_sharing(tmp_path: Path) -> None:
    shares = _shares(tmp_path, 45, [{"weight": 2.0}, {"weight": 1.0}, {"weight": 1.0}, {"weight": 0.5}])
    assert shares == pytest.approx([20, 10, 10, 5], abs=1e-6)


@hadoop("TestComputeFairShares", "testWeightedSharingWithMaxShares", V)
def test_weighted_sharing_with_max_shares(tmp_path: Path) -> None:
    shares = _shares(tmp_path, 45, [{"max": 10, "weight": 2.0}, {"max": 11, "weight": 1.0},
                                    {"max": 30, "weight": 1.0}, {"max": 20, "weight": 0.5}])
    assert shares == pytest.approx([10, 11, 16, 8], abs=1e-6)


@hadoop("TestComputeFairShares", "testWeightedSharingWithMinShares", V)
def test_weighted_sharing_with_min_shares(tmp_path: Path) -> None:
    shares = _shares(tmp_path, 45, [{"min": 20, "weight": 2.0}, {"min": 0, "weight": 1.0},
                                    {"min": 5, "weight": 1.0}, {"min": 15, "weight": 0.5}])
    assert shares == pytest.approx([20, 5, 5, 15], abs=1e-6)


@hadoop("TestComputeFairShares", "testLargeShares", V)
def test_large_shares(tmp_path: Path) -> None:
    million = 1000 * 1000
    shares = _shares(tmp_path, 40 * million, [{}, {}, {}, {}])
    assert shares == pytest.approx([10 * million] * 4, abs=1e-6)


@hadoop("TestComputeFairShares", "testEmptyList", V)
def test_empty_list(tmp_path: Path) -> None:
    # configured queues without apps are inactive: no share is handed out (and nothing fails)
    fair = FairScheduler({"config_file": str(allocation_file(tmp_path, '<queue name="q1"/><queue name="q2"/>'))})
    MultiNodeRM([("host_0", "/rack_0", 40.0, 40.0)], min_mem=1.0).start(fair)
    fair._update_shares()
    assert [fair.queues[p].fair_share for p in ("root.q1", "root.q2")] == [0.0, 0.0]
    assert compute_shares([], [], [], 40.0) == []


@hadoop("TestComputeFairShares", "testCPU", V)
def test_cpu() -> None:
    # ComputeFairShares is the same bisection for vcores; mrsim's Fair policy shares memory only, so the vcores
    # case is checked on the shared function
    shares = compute_shares([2.0, 1.0, 1.0, 0.5], [20, 0, 5, 15], [float("inf")] * 4, 45.0)
    assert shares == pytest.approx([20, 5, 5, 15], abs=1e-6)
