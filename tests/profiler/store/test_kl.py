"""Symmetric KL divergence (SimMR Table I) against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mrsim.errors import InputError
from mrsim.profiler.kl import (Phase, compare_phases, kl_divergence, phase_durations, sample_symmetric_kl, smoothed_pmf,
                             symmetric_kl)
from mrsim.model.templates import JobTemplate


def test_discrete_kl_oracle():
    # D(P||Q) = 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1); D(Q||P) = 0.9 ln(0.9/0.5) + 0.1 ln(0.1/0.5)
    d_pq = 0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(5.0)
    d_qp = 0.9 * math.log(1.8) + 0.1 * math.log(0.2)
    assert kl_divergence([0.5, 0.5], [0.9, 0.1]) == pytest.approx(d_pq, rel=1e-12)
    assert kl_divergence([0.9, 0.1], [0.5, 0.5]) == pytest.approx(d_qp, rel=1e-12)
    assert symmetric_kl([0.5, 0.5], [0.9, 0.1]) == pytest.approx(0.5 * (d_pq + d_qp), rel=1e-12)
    assert symmetric_kl([0.5, 0.5], [0.9, 0.1]) == pytest.approx(0.4394449154672439, rel=1e-12)
    # A zero-probability term of P contributes nothing; Q = 0 where P > 0 is infinite.
    assert kl_divergence([1.0, 0.0], [0.25, 0.75]) == pytest.approx(math.log(4.0))
    assert kl_divergence([0.25, 0.75], [1.0, 0.0]) == math.inf


def test_samples_on_explicit_bins_reproduce_the_discrete_oracle():
    a = [1.0] * 5 + [2.0] * 5  # P = (0.5, 0.5)
    b = [1.0] * 9 + [2.0]  # Q = (0.9, 0.1)
    kl, bins = sample_symmetric_kl(a, b, bins=[0.5, 1.5, 2.5], epsilon=0.0)
    assert bins == 2 and kl == pytest.approx(0.4394449154672439, rel=1e-12)
    # Smoothing with epsilon only moves it a little for well-populated bins.
    smoothed, _ = sample_symmetric_kl(a, b, bins=[0.5, 1.5, 2.5], epsilon=1e-6)
    assert smoothed == pytest.approx(0.4394449154672439, rel=1e-4)


def test_identical_inputs_give_zero_and_order_does_not_matter():
    rng = np.random.default_rng(3)
    x = rng.lognormal(3.0, 0.7, 500)
    assert sample_symmetric_kl(x, x)[0] == 0.0
    assert sample_symmetric_kl(x, x[::-1].copy())[0] == 0.0
    assert sample_symmetric_kl([7.0, 7.0, 7.0], [7.0])[0] == 0.0  # one value: a single bin
    y = rng.lognormal(3.2, 0.7, 300)
    assert sample_symmetric_kl(x, y)[0] == pytest.approx(sample_symmetric_kl(y, x)[0], rel=1e-12)


def test_disjoint_supports_are_bounded_by_epsilon():
    # Two bins, all mass apart: after smoothing P = (1 + e, e) / (1 + 2e) and Q is P reversed, D' = D(P||Q).
    e = 1e-6
    p = np.array([1 + e, e]) / (1 + 2 * e)
    expected = float(np.sum(p * np.log(p / p[::-1])))
    kl, bins = sample_symmetric_kl([1.0, 1.0], [3.0, 3.0], bins=2, epsilon=e)
    assert bins == 2 and kl == pytest.approx(expected, rel=1e-12)
    assert kl == pytest.approx(math.log(1 / e), rel=1e-5)
    assert sample_symmetric_kl([1.0], [3.0], bins=2, epsilon=0.0)[0] == math.inf


def test_smoothing_formula_and_bad_arguments():
    p = smoothed_pmf(np.array([1.0, 1.0, 2.0, 9.0]), np.array([0.0, 1.5, 3.0, 10.0]), 0.1)
    assert p.tolist() == pytest.approx([(0.5 + 0.1) / 1.3, (0.25 + 0.1) / 1.3, (0.25 + 0.1) / 1.3])
    with pytest.raises(InputError):
        sample_symmetric_kl([], [1.0])
    with pytest.raises(InputError):
        sample_symmetric_kl([1.0], [2.0], bins=0)
    with pytest.raises(InputError):
        sample_symmetric_kl([1.0], [2.0], epsilon=-1)


def test_phases_pool_first_and_typical_shuffles():
    t1 = JobTemplate(job_id="a", submit_s=0, map_durations=[1, 2], reduce_durations=[5, 6],
                     first_shuffle_durations=[3], typical_shuffle_durations=[4])
    t2 = JobTemplate(job_id="b", submit_s=0, map_durations=[1, 2], reduce_durations=[])
    assert phase_durations([t1], Phase.SHUFFLE).tolist() == [3.0, 4.0]
    result = {c.phase: c for c in compare_phases([t1], [t1, t2])}
    assert result[Phase.MAP].n_a == 2 and result[Phase.MAP].n_b == 4 and result[Phase.MAP].kl == 0.0
    assert result[Phase.REDUCE].kl == 0.0
    no_reduce = {c.phase: c for c in compare_phases([t1], [t2])}
    assert no_reduce[Phase.REDUCE].kl is None and no_reduce[Phase.SHUFFLE].as_dict()["kl"] is None
