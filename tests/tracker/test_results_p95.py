"""``mrsim.tracker.results.p95`` against ``np.percentile(values, 95)``: the same float, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.results import p95


@pytest.mark.parametrize("seed", range(40))
def test_p95_is_numpys_percentile_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 5, 19, 20, 21, 100, 1148, int(rng.integers(1, 5000))):
        for values in (rng.uniform(0, 1e4, n), rng.integers(0, 7, n).astype(np.float64),  # ties
                       np.round(rng.exponential(300.0, n), 3), np.full(n, 2.5)):
            want = float(np.percentile(values, 95))
            got = p95(values)
            assert got == want and np.signbit(got) == np.signbit(want), (n, seed)


def test_p95_leaves_its_input_alone_and_handles_nan() -> None:
    values = np.array([5.0, 1.0, 3.0, 2.0])
    assert p95(values) == float(np.percentile(values, 95))
    assert values.tolist() == [5.0, 1.0, 3.0, 2.0]
    odd = np.array([1.0, np.nan, 3.0])
    assert np.isnan(p95(odd))
