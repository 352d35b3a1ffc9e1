"""Exact MVA: hand-computed cases and invariants (dissertation eq. 2.1)."""

from __future__ import annotations

import pytest

from mrsim.contention.mva import exact_mva, exact_mva_multiclass
from mrsim.contention.network import CentreKind
from mrsim.errors import InputError

Q, D = CentreKind.QUEUE, CentreKind.DELAY


def test_single_queue_response_is_n_times_demand() -> None:
    # One queue, nothing else: every job waits for the other n - 1, so R(n) = n D and X(n) = 1/D.
    res = exact_mva([2.5], 8)
    for n in range(1, 9):
        assert res.response[n] == pytest.approx(n * 2.5, rel=1e-15)
        assert res.throughput[n] == pytest.approx(1 / 2.5, rel=1e-15)
        assert res.queue_length[n][0] == pytest.approx(n, rel=1e-15)


def test_two_balanced_queues() -> None:
    # By symmetry Q_k(n) = n/2, so R'_k(n) = D (1 + (n-1)/2) and R(n) = D (n + 1).
    res = exact_mva([3.0, 3.0], 6)
    for n in range(1, 7):
        assert res.response[n] == pytest.approx(3.0 * (n + 1), rel=1e-14)
        assert res.residence[n][0] == pytest.approx(res.residence[n][1], rel=1e-15)
        assert res.throughput[n] == pytest.approx(n / (3.0 * (n + 1)), rel=1e-14)


def test_queue_plus_delay_by_hand() -> None:
    # D_q = 1 (queue), D_d = 2 (delay).
    # n=1: R = 1 + 2 = 3, X = 1/3, Q_q = 1/3.  n=2: R_q = 1 * (1 + 1/3) = 4/3, R = 10/3, X = 0.6, Q_q = 0.8.
    res = exact_mva([1.0, 2.0], 2, kinds=[Q, D])
    assert res.response[1] == pytest.approx(3.0)
    assert res.queue_length[1][0] == pytest.approx(1 / 3)
    assert res.residence[2] == pytest.approx((4 / 3, 2.0))
    assert res.throughput[2] == pytest.approx(0.6)
    assert res.queue_length[2] == pytest.approx((0.8, 1.2))


def test_think_time_equals_delay_centre() -> None:
    with_think = exact_mva([1.0, 0.5], 5, think_time=4.0)
    with_delay = exact_mva([1.0, 0.5, 4.0], 5, kinds=[Q, Q, D])
    for n in range(1, 6):
        assert with_think.throughput[n] == pytest.approx(with_delay.throughput[n], rel=1e-14)
        assert with_think.response[n] + 4.0 == pytest.approx(with_delay.response[n], rel=1e-14)


def test_invariants_little_and_bounds() -> None:
    demands = [0.7, 2.0, 1.1, 3.0]
    kinds = [Q, Q, Q, D]
    res = exact_mva(demands, 40, kinds=kinds, think_time=1.5)
    for n in range(1, 41):
        x = res.throughput[n]
        assert sum(res.queue_length[n]) + x * 1.5 == pytest.approx(n, rel=1e-12)  # Little's law, whole network
        assert x <= 1 / 2.0 + 1e-12  # bottleneck bound 1 / D_max over queues
        assert x <= n / (sum(demands) + 1.5) + 1e-12
        assert max(res.utilization(n)[:3]) <= 1.0 + 1e-12
        assert res.throughput[n] >= res.throughput[n - 1]  # throughput never falls with population


def test_multiclass_exact_matches_single_class_and_symmetry() -> None:
    single = exact_mva([1.0, 2.0, 3.0], 5)
    one = exact_mva_multiclass([[1.0, 2.0, 3.0]], [5])
    assert one.response[0] == pytest.approx(single.response[5], rel=1e-14)
    # Two identical classes share the single-class throughput in proportion to their populations.
    two = exact_mva_multiclass([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [2, 3])
    assert two.throughput[0] == pytest.approx(single.throughput[5] * 2 / 5, rel=1e-13)
    assert two.throughput[1] == pytest.approx(single.throughput[5] * 3 / 5, rel=1e-13)
    assert two.response[0] == pytest.approx(single.response[5], rel=1e-13)


def test_multiclass_exact_two_single_jobs_by_hand() -> None:
    # Table 5.1's epoch-2 network solved exactly: J1 (1, 2) meets J2 alone, whose queues are (3/8, 5/8):
    # R_1 = 1 (1 + 3/8) + 2 (1 + 5/8) = 4.625. (Schweitzer AMVA gives 4.69: see test_epochs.)
    res = exact_mva_multiclass([[1.0, 2.0], [3.0, 5.0]], [1, 1])
    assert res.response[0] == pytest.approx(4.625, rel=1e-15)
    assert res.response[1] == pytest.approx(3 * (1 + 1 / 3) + 5 * (1 + 2 / 3), rel=1e-15)


def test_input_errors_are_one_line() -> None:
    with pytest.raises(InputError, match="non-negative"):
        exact_mva([1.0, -2.0], 3)
    with pytest.raises(InputError, match="integer population"):
        exact_mva([1.0], 2.5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="zero"):
        exact_mva([0.0, 0.0], 1)
    with pytest.raises(InputError, match="kinds"):
        exact_mva([1.0, 1.0], 1, kinds=[Q])
