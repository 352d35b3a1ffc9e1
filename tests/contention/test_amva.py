"""Bard-Schweitzer AMVA: exact special cases, stated error bounds against exact MVA, invariants."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.contention.amva import schweitzer_amva
from mrsim.contention.mva import exact_mva, exact_mva_multiclass
from mrsim.contention.network import CentreKind
from mrsim.errors import InputError

Q, D = CentreKind.QUEUE, CentreKind.DELAY


def test_exact_on_one_queue_and_on_one_job() -> None:
    # One queue: A = Q - Q/N = N - 1, so R = N D exactly, as in exact MVA.
    for n in (1, 2, 7, 10):
        assert schweitzer_amva([[100.0]], [n]).response[0] == pytest.approx(n * 100.0, rel=1e-12)
    # One job of one class sees nobody: R = sum D exactly.
    res = schweitzer_amva([[1.0, 2.0, 3.0]], [1], kinds=[Q, D, Q])
    assert res.response[0] == pytest.approx(6.0, rel=1e-12)


def test_single_class_error_against_exact_mva() -> None:
    # Stated tolerance: Schweitzer's single-class response-time error is a few per cent (largest near the knee).
    # Queue-only networks here stay within 5 %, networks with a delay centre within 8 %.
    cases = [
        ((1.0, 2.0, 3.0), None, 0.05),
        ((1.0, 1.0), None, 0.05),
        ((5.0, 1.0, 1.0, 1.0), None, 0.05),
        ((1.0, 2.0, 3.0), (Q, D, Q), 0.08),
        ((4.0, 10.0), (Q, D), 0.08),
    ]
    for demands, kinds, tol in cases:
        exact = exact_mva(demands, 30, kinds=kinds)
        for n in range(1, 31):
            approx = schweitzer_amva([demands], [n], kinds=kinds)
            assert approx.converged
            assert approx.response[0] == pytest.approx(exact.response[n], rel=tol), (demands, n)


def test_multiclass_error_against_exact_mva() -> None:
    # 150 seeded random networks (2-3 classes, 1-3 queues, demands 0.1-10 s, up to 4 jobs per class).
    # Stated tolerance: mean relative response-time error below 3 %, worst case below 25 % (Schweitzer is weakest
    # for a one-job class facing a crowded, skewed centre; the dissertation quotes "under 15 %" typical errors).
    rng = np.random.default_rng(20240501)
    errors = []
    for _ in range(150):
        n_cls, n_q = int(rng.integers(2, 4)), int(rng.integers(1, 4))
        demands = rng.uniform(0.1, 10.0, (n_cls, n_q)).tolist()
        pops = rng.integers(0, 5, n_cls).tolist()
        if sum(pops) == 0:
            continue
        exact = exact_mva_multiclass(demands, pops)
        approx = schweitzer_amva(demands, pops)
        assert approx.converged
        for c in range(n_cls):
            if pops[c]:
                errors.append(abs(approx.response[c] - exact.response[c]) / exact.response[c])
    assert np.mean(errors) < 0.03
    assert max(errors) < 0.25


def test_identical_classes_of_one_equal_one_class_of_k() -> None:
    # docs/engine.md ("Why the engine is fast", idea 5):
    # k same-shape classes of population 1 = one class of population k.
    row = [2.0, 0.5, 3.0]
    kinds = [Q, D, Q]
    one = schweitzer_amva([row], [5], kinds=kinds, tol=1e-12)
    many = schweitzer_amva([row] * 5, [1] * 5, kinds=kinds, tol=1e-12)
    for c in range(5):
        assert many.response[c] == pytest.approx(one.response[0], rel=1e-9)
        assert many.throughput[c] == pytest.approx(one.throughput[0] / 5, rel=1e-9)


def test_one_job_classes_are_scale_invariant() -> None:
    # Scaling a one-job class's demands by f leaves every queue length alone and scales its response by f;
    # this is what lets the incremental node model solve per shape.
    base = schweitzer_amva([[1.0, 2.0], [3.0, 5.0]], [1, 1], tol=1e-13)
    scaled = schweitzer_amva([[0.25, 0.5], [3.0, 5.0]], [1, 1], tol=1e-13)
    assert scaled.response[0] == pytest.approx(base.response[0] * 0.25, rel=1e-9)
    assert scaled.response[1] == pytest.approx(base.response[1], rel=1e-9)
    for c in range(2):
        assert scaled.queue_length[c] == pytest.approx(base.queue_length[c], rel=1e-9)


def test_invariants_and_non_integer_populations() -> None:
    demands = [[1.0, 4.0, 0.5], [2.0, 1.0, 3.0], [0.3, 0.3, 6.0]]
    kinds = [Q, Q, D]
    previous = None
    for n0 in np.linspace(0.25, 6.0, 24):
        pops = [float(n0), 2.0, 0.5]
        res = schweitzer_amva(demands, pops, kinds=kinds, think_times=[0.0, 1.0, 0.0])
        assert res.converged
        for c in range(3):
            assert sum(res.queue_length[c]) + res.throughput[c] * [0.0, 1.0, 0.0][c] == pytest.approx(pops[c], rel=1e-6)
            assert min(res.residence[c]) >= 0.0
        assert max(res.utilization[:2]) <= 1.0 + 1e-9
        if previous is not None:  # more class-0 jobs never make anyone faster
            assert all(r >= p - 1e-9 for r, p in zip(res.response, previous))
        previous = res.response


def test_empty_class_reports_arrival_view() -> None:
    res = schweitzer_amva([[2.0, 1.0], [1.0, 1.0]], [3, 0], tol=1e-12)
    q = res.queue_length[0]
    assert res.throughput[1] == 0.0
    assert res.response[1] == pytest.approx(1.0 * (1 + q[0]) + 1.0 * (1 + q[1]), rel=1e-12)


def test_iteration_cap_reports_non_convergence() -> None:
    res = schweitzer_amva([[1.0, 2.0], [3.0, 5.0]], [4, 4], max_iter=2)
    assert not res.converged and res.iterations == 2
    full = schweitzer_amva([[1.0, 2.0], [3.0, 5.0]], [4, 4])
    assert full.converged and 2 < full.iterations < 1000


def test_input_errors() -> None:
    with pytest.raises(InputError, match="class 1, centre 0"):
        schweitzer_amva([[1.0, 2.0], [float("nan"), 1.0]], [1, 1])
    with pytest.raises(InputError, match="class 1 has 2 demands"):
        schweitzer_amva([[1.0], [1.0, 2.0]], [1, 1])
    with pytest.raises(InputError, match="population"):
        schweitzer_amva([[1.0]], [-1])
    with pytest.raises(InputError, match="tol"):
        schweitzer_amva([[1.0]], [1], tol=0.0)
