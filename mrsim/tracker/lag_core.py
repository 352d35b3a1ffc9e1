"""Calibrated lags on the launch and report paths, compiled with the engine core: the hot path of
``mrsim.calibration.feature``.

A calibrated replay draws a launch lag for every task attempt and a report lag for every out-of-band report
(``docs/calibration.md``): two draws per task, each an inverse-CDF sample of a 101-quantile law from a batched
uniform stream. Interpreted, that costs 1.3 to 1.5x a plain replay of the 1148-job benchmark with the engine
compiled (the budget: 1.2x; ``docs/performance.md``). The calibration feature stays a plain Python class
(what it replays and why is documented there); when a calibration has nothing per job or tracker (no carried
stalls, stall windows, JVM reuse or job localisation) its launch lag is :meth:`PlainLaunchLag.launch_lag` alone,
and its report lag is always :meth:`ReportLag.report_lag`. Same streams, same arithmetic: results are identical to
the interpreted path's.
"""

from __future__ import annotations

from typing import Any

from mrsim.tracker.state import JobState, TrackerState


class Draws:
    """Uniform draws in [0, 1) from one named stream (a ``numpy.random.Generator``), generated ``batch`` at a time:
    O(1) amortised per draw, no numpy call per draw."""

    def __init__(self, rng: Any, batch: int) -> None:
        self.rng: Any = rng
        self.batch = batch
        self.values: list[float] = []
        self.i = 0

    def next(self) -> float:
        i = self.i
        if i >= len(self.values):
            self.values = self.rng.random(self.batch).tolist()
            i = 0
        self.i = i + 1
        return self.values[i]


def sample(q: list[float], u: float) -> float:
    """The value at probability ``u`` of the law with evenly spaced quantiles ``q`` (inverse CDF, linear between
    quantiles): :meth:`mrsim.calibration.model.Distribution.sample`. O(1)."""
    n = len(q) - 1
    if n == 0:
        return q[0]
    x = u * n
    i = int(x)
    if i >= n:
        return q[n]
    return q[i] + (q[i + 1] - q[i]) * (x - i)


class PlainLaunchLag:
    """The launch lags of a calibration (one law per task kind, ``laws[kind]`` its quantiles, s) and what they
    added up to: :attr:`launches` drawn, :attr:`lag_s` in total (the feature's other launch paths count here too)."""

    def __init__(self, laws: list[list[float]], draws: Draws) -> None:
        self.laws = laws
        self.draws = draws
        self.launches = 0
        self.lag_s = 0.0

    def launch_lag(self, job: JobState, tracker: TrackerState, kind: int) -> float:
        """The engine's ``launch_lag`` hook when nothing depends on the job or tracker: a draw of the kind's law."""
        lag = sample(self.laws[kind], self.draws.next())
        self.launches += 1
        self.lag_s += lag
        return lag


class ReportLag:
    """The report lags of a calibration: ``laws[kind]`` the quantiles of each task kind's law (s)."""

    def __init__(self, laws: list[list[float]], draws: Draws) -> None:
        self.laws = laws
        self.draws = draws

    def report_lag(self, tracker: TrackerState, kind: int) -> float:
        """The engine's ``report_lag`` hook: seconds between a task's end and its out-of-band report."""
        return sample(self.laws[kind], self.draws.next())
