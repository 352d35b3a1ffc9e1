"""Streaming statistics and the steady-state verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mrsim.studies.lotes.metrics import PER_DECADE, StreamStat, steady_state


def test_mean_is_exact_and_quantiles_are_within_the_bin_bound():
    rng = np.random.default_rng(4)
    x = np.concatenate([np.zeros(3000), rng.lognormal(0.0, 2.0, 20000)])
    rng.shuffle(x)
    s = StreamStat()
    for chunk in np.array_split(x, 7):
        s.add_many(chunk.tolist())
    assert s.count == x.size and s.zeros == 3000
    assert s.mean == pytest.approx(x.mean(), rel=1e-12)
    bound = 10 ** (1 / PER_DECADE) - 1
    for q in (0.25, 0.5, 0.9, 0.99):
        assert s.quantile(q) == pytest.approx(np.quantile(x, q), rel=bound)
    assert s.quantile(0.1) == 0.0  # more than 10 % of values are exactly zero


def test_empty_stat_is_nan():
    s = StreamStat()
    assert math.isnan(s.mean) and math.isnan(s.quantile(0.5))


def test_steady_state_verdicts():
    rng = np.random.default_rng(1)
    t = np.linspace(0, 200, 201)
    flat = 1000 + rng.normal(0, 10, t.size)
    ramp = 1000 + 5 * t + rng.normal(0, 10, t.size)
    assert steady_state(t.tolist(), flat.tolist(), 100.0).steady
    v = steady_state(t.tolist(), ramp.tolist(), 100.0)
    assert not v.steady and "still rising" in v.reason and v.growth > 0.2
    assert not steady_state([0.0, 1.0], [1.0, 1.0], 0.0).steady
