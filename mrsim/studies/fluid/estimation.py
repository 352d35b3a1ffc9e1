"""Size-estimation error (Dell'Amico RR-13-282, section 2.1): estimate = size * X, X ~ LogNormal(0, sigma^2).

The log-normal makes under-estimating by a factor k as likely as over-estimating by k. Draws come from a named
stream of the master seed, so every scheduler compared at one seed sees the same estimates.
"""

from __future__ import annotations

import math

import numpy as np

from mrsim.errors import InputError
from mrsim.rng import stream

#: Stream name for estimation errors; changing it changes every seeded result.
ESTIMATE_STREAM = "fluid.size-estimation-error"


def named_stream(seed: int, name: str) -> np.random.Generator:
    """:func:`mrsim.rng.stream` for ``(seed, name)``, after checking that ``seed`` is a whole number >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a whole number >= 0, got {seed!r}")
    return stream(int(seed), name)


def estimate_sizes(size_s: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """Estimated sizes (s): ``size * exp(sigma * Z)`` with Z standard normal, one draw per job in input order.

    ``sigma == 0`` returns exact sizes without drawing. Cost: O(n), vectorised.
    """
    if not (math.isfinite(sigma) and sigma >= 0):
        raise InputError(f"sigma must be a number >= 0, got {sigma}")
    rng = named_stream(seed, ESTIMATE_STREAM)
    size = np.asarray(size_s, dtype=np.float64)
    if sigma == 0:
        return size.copy()
    return size * rng.lognormal(0.0, sigma, size.size)
