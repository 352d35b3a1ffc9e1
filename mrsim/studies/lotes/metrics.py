"""Streaming statistics: exact means, log-binned histograms for quantiles, sampled time series, steady state.

The simulator never keeps one record per job. Samples are appended to a bounded buffer that is folded into a
:class:`StreamStat` every :data:`FLUSH` values (numpy does the binning), so memory is O(bins) however long a run
lasts.

Quantiles come from a histogram with an exact zero bin (tasks that start on arrival wait exactly 0) and
:data:`PER_DECADE` log-spaced bins per decade between :data:`LO` and :data:`HI` hours; a reported quantile is the
geometric centre of its bin, so its relative error is at most ``10**(1/(2*PER_DECADE)) - 1`` (0.6 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FLUSH = 1 << 16
LO = 1e-7  # hours (0.36 ms)
HI = 1e6  # hours
PER_DECADE = 200
_NBINS = int(round(math.log10(HI / LO) * PER_DECADE))


class StreamStat:
    """Count, exact sum and a log histogram of non-negative values (hours)."""

    __slots__ = ("count", "total", "zeros", "hist", "below", "above", "maximum")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.zeros = 0
        self.hist = np.zeros(_NBINS, dtype=np.int64)
        self.below = 0  # positive values under LO
        self.above = 0
        self.maximum = 0.0

    def add_many(self, values: list[float]) -> None:
        """Fold a buffer of values in. Cost: O(len(values)) in numpy."""
        if not values:
            return
        x = np.asarray(values, dtype=float)
        self.count += x.size
        self.total += math.fsum(values)
        self.maximum = max(self.maximum, float(x.max()))
        pos = x[x > 0]
        self.zeros += x.size - pos.size
        idx = np.floor((np.log10(pos) - math.log10(LO)) * PER_DECADE).astype(np.int64)
        self.below += int((idx < 0).sum())
        self.above += int((idx >= _NBINS).sum())
        idx = idx[(idx >= 0) & (idx < _NBINS)]
        self.hist += np.bincount(idx, minlength=_NBINS)

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else math.nan

    def quantile(self, q: float) -> float:
        """Approximate ``q``-quantile (see the module docstring for the error bound)."""
        if not self.count:
            return math.nan
        rank = q * self.count
        if rank < self.zeros or (self.zeros == self.count):
            return 0.0
        acc = self.zeros + self.below
        if rank < acc:
            return LO / 2
        cum = np.cumsum(self.hist) + acc
        b = int(np.searchsorted(cum, rank, side="right"))
        if b >= _NBINS:
            return self.maximum
        return LO * 10 ** ((b + 0.5) / PER_DECADE)

    def zero_fraction(self) -> float:
        return self.zeros / self.count if self.count else math.nan


@dataclass(frozen=True)
class SteadyVerdict:
    """Whether the number in system still trended up at the end of a run, and by how much."""

    steady: bool
    growth: float  # relative rise of the mean number in system, first to last of the trailing windows
    reason: str


#: Relative rise over the measurement period that counts as "still growing", and the noise multiple it must beat.
GROWTH_TOL = 0.02
NOISE_SIGMAS = 3.0


def steady_state(times: list[float], values: list[float], warmup: float) -> SteadyVerdict:
    """Judge steady state from the number in system sampled after ``warmup``.

    A least-squares line is fitted to the post-warm-up samples. The run is declared *not steady* when the line's
    rise over the period exceeds both :data:`GROWTH_TOL` (2 %) of the mean level and :data:`NOISE_SIGMAS` (3)
    standard deviations of the residuals: a stable system fluctuates around a level, while an overloaded one (or
    one still filling from empty) keeps rising. This is a heuristic, not a statistical test: samples are
    autocorrelated, so the residual spread understates the noise of the slope.
    """
    pts = [(t, v) for t, v in zip(times, values) if t >= warmup]
    if len(pts) < 8:
        return SteadyVerdict(False, math.nan, "too few samples after warm-up to judge")
    t = np.array([p[0] for p in pts])
    y = np.array([p[1] for p in pts], dtype=float)
    slope, icept = np.polyfit(t, y, 1)
    span = float(t[-1] - t[0])
    rise = float(slope) * span
    level = float(y.mean())
    sd = float(np.std(y - (slope * t + icept)))
    growth = rise / level if level > 0 else 0.0
    if rise > GROWTH_TOL * max(level, 1.0) and rise > NOISE_SIGMAS * sd:
        return SteadyVerdict(
            False, growth, f"number in system still rising: +{growth:.1%} over the {span:g} h after warm-up"
        )
    return SteadyVerdict(True, growth, f"number in system level after warm-up ({growth:+.1%} trend)")
