"""Synthetic workloads shaped like the paper's three traces (Hung, Golubchik, Yu, SoCC'15, section 6, Table 2).

The paper gives, per trace, the mean job size and the share of small (1-150 tasks), medium (151-500) and large
(501+) jobs. Within those constraints the shapes below are **our** choices (the traces themselves are not
public in that form):

* ``FACEBOOK``: mean 364.6 tasks; 89% small, 8% medium, 3% large. A mixture of three discrete log-uniform
  distributions, one per class: ``P(n) ~ ln((n+1)/n)`` on [1, 150], [151, 500] and [501, H]. The large-class upper
  bound H is solved (:func:`solve_upper_bound`) so that the mixture mean is 364.6; this gives the few very large
  jobs ("high variance") the paper describes.
* ``GOOGLE``: mean 86.9 tasks; 96% / 2% / 2%; the same construction with its own H ("small variance with a few
  large jobs").
* ``EXPONENTIAL``: geometric on {1, 2, ...} with mean 800 (the discrete exponential). Its class shares follow:
  17.1% / 29.4% / 53.5%, close to the paper's 18 / 29 / 53.

Task durations (s) are i.i.d. exponential or constant with mean ``mean_task_s`` (default 2 s, the paper's
average task duration). Arrivals are Poisson with rate ``lambda = rho * total_slots / W`` for target utilisation
``rho``, where ``W`` is the mean work per job (task-seconds) *of the generated sample*: a heavy-tailed finite
sample's mean is far from its law's (a 2000-job Facebook-like sample is often 20% off), and calibrating on the
law would silently run a different load. Only the Poisson gaps remain random, so the realised load
(:meth:`GeoWorkload.offered_load`) is close to ``rho``.

Streams (see :mod:`mrsim.studies.geo.streams`): ``sizes``, ``arrivals``, ``durations``, ``placement``.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass

import numpy as np

from mrsim.errors import InputError
from mrsim.studies.geo.model import Federation, GeoWorkload
from mrsim.tracker.features.federation_metrics import SIZE_CLASSES  # noqa: F401 - the paper's classes, shared
from mrsim.studies.geo.placement import Placement, PlacementKind, job_from_counts, split_counts
from mrsim.studies.geo.streams import named_rng

#: Size classes by total tasks (the paper's fairness analysis): (name, lowest, highest) inclusive.


class TraceType(enum.Enum):
    FACEBOOK = "facebook"
    GOOGLE = "google"
    EXPONENTIAL = "exponential"

    @classmethod
    def parse(cls, text: str) -> "TraceType":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InputError(f"unknown workload {text!r} (expected facebook, google or exponential)") from None


class DurationModel(enum.Enum):
    EXPONENTIAL = "exponential"
    CONSTANT = "constant"

    @classmethod
    def parse(cls, text: str) -> "DurationModel":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InputError(f"unknown task-duration model {text!r} (expected exponential or constant)") from None


def _log_uniform_mean(lo: int, hi: int) -> float:
    n = np.arange(lo, hi + 1, dtype=np.float64)
    return float(np.sum(n * np.log1p(1.0 / n)) / math.log((hi + 1) / lo))


@functools.lru_cache(maxsize=None)
def solve_upper_bound(lo: int, target_mean: float) -> int:
    """Smallest ``H`` whose discrete log-uniform on [lo, H] has mean >= ``target_mean`` (bisection)."""
    if target_mean <= lo:
        raise ValueError("target mean must exceed the lower bound")
    a, b = lo, lo * 2
    while _log_uniform_mean(lo, b) < target_mean:
        a, b = b, b * 2
    while b - a > 1:
        m = (a + b) // 2
        if _log_uniform_mean(lo, m) < target_mean:
            a = m
        else:
            b = m
    return b


@dataclass(frozen=True)
class SizeDistribution:
    """Tasks per job: a mixture of discrete log-uniform classes, or (``geometric_mean``) a geometric law."""

    name: str
    classes: tuple[tuple[float, int, int], ...] = ()  # (probability, lo, hi)
    geometric_mean: float | None = None

    @property
    def mean(self) -> float:
        if self.geometric_mean is not None:
            return self.geometric_mean
        return sum(p * _log_uniform_mean(lo, hi) for p, lo, hi in self.classes)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` job sizes (int64, >= 1). O(n)."""
        if self.geometric_mean is not None:
            return rng.geometric(1.0 / self.geometric_mean, n).astype(np.int64)
        probs = np.array([c[0] for c in self.classes])
        which = rng.choice(len(self.classes), size=n, p=probs / probs.sum())
        u = rng.random(n)
        lo = np.array([c[1] for c in self.classes], dtype=np.float64)[which]
        hi = np.array([c[2] for c in self.classes], dtype=np.float64)[which]
        # floor of a continuous log-uniform on [lo, hi + 1) has exactly P(n) ~ ln((n+1)/n)
        x = np.floor(np.exp(np.log(lo) + u * (np.log(hi + 1) - np.log(lo))))
        return np.clip(x, lo, hi).astype(np.int64)


def _mixture(name: str, mean: float, p_small: float, p_medium: float, p_large: float) -> SizeDistribution:
    known = p_small * _log_uniform_mean(1, 150) + p_medium * _log_uniform_mean(151, 500)
    hi = solve_upper_bound(501, (mean - known) / p_large)
    return SizeDistribution(name, ((p_small, 1, 150), (p_medium, 151, 500), (p_large, 501, hi)))


@functools.lru_cache(maxsize=None)
def size_distribution(trace: TraceType) -> SizeDistribution:
    """The job-size law for ``trace`` (see the module docstring)."""
    if trace is TraceType.FACEBOOK:
        return _mixture("facebook", 364.6, 0.89, 0.08, 0.03)
    if trace is TraceType.GOOGLE:
        return _mixture("google", 86.9, 0.96, 0.02, 0.02)
    return SizeDistribution("exponential", geometric_mean=800.0)


@dataclass(frozen=True)
class Scenario:
    """Everything that defines one synthetic workload; :func:`synthesize` is a pure function of it."""

    trace: TraceType = TraceType.FACEBOOK
    utilization: float = 0.8
    n_datacenters: int = 30
    slots: int = 10
    n_jobs: int = 500
    placement: Placement = Placement()
    seed: int = 1
    mean_task_s: float = 2.0
    durations: DurationModel = DurationModel.EXPONENTIAL

    def __post_init__(self) -> None:
        if not (0 < self.utilization):
            raise InputError(f"utilisation must be positive, got {self.utilization}")
        if self.n_jobs < 1:
            raise InputError(f"number of jobs must be at least 1, got {self.n_jobs}")
        if self.slots < 1:
            raise InputError(f"slots per datacenter must be at least 1, got {self.slots}")
        if not (self.mean_task_s > 0):
            raise InputError(f"mean task duration must be positive, got {self.mean_task_s}")
        if self.placement.kind is PlacementKind.RACKS:
            raise InputError("rack placement needs a trace with preferred locations, not a synthetic workload")

    def describe(self) -> dict[str, object]:
        return {
            "kind": "synthetic",
            "trace": self.trace.value,
            "utilization": self.utilization,
            "datacenters": self.n_datacenters,
            "slots_per_datacenter": self.slots,
            "jobs": self.n_jobs,
            "placement": self.placement.describe(),
            # flat copy for grouping rows: the Zipf skew, 0 for uniform placement
            "skew": self.placement.skew if self.placement.kind is PlacementKind.ZIPF else 0.0,
            "seed": self.seed,
            "mean_task_s": self.mean_task_s,
            "task_durations": self.durations.value,
            "mean_tasks_per_job": size_distribution(self.trace).mean,
        }


def synthesize(sc: Scenario) -> GeoWorkload:
    """Build the workload of ``sc``. O(total tasks)."""
    fed = Federation.uniform(sc.n_datacenters, sc.slots)
    dist = size_distribution(sc.trace)
    sizes = dist.sample(named_rng(sc.seed, "sizes"), sc.n_jobs)
    total = int(sizes.sum())
    if sc.durations is DurationModel.EXPONENTIAL:
        durs = named_rng(sc.seed, "durations").exponential(sc.mean_task_s, total)
    else:
        durs = np.full(total, sc.mean_task_s)
    # Calibrate on the sample's own work, not the law's mean: with heavy-tailed sizes a finite sample's mean is
    # far from the law's, and "utilisation" should describe the run that is simulated.
    rate = sc.utilization * fed.total_slots * sc.n_jobs / float(durs.sum())
    gaps = named_rng(sc.seed, "arrivals").exponential(1.0 / rate, sc.n_jobs)
    arrivals = np.concatenate(([0.0], np.cumsum(gaps[:-1])))
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    prng = named_rng(sc.seed, "placement")
    width = len(str(sc.n_jobs - 1))
    jobs = []
    for i in range(sc.n_jobs):
        n = int(sizes[i])
        counts = split_counts(n, fed.size, sc.placement, prng)
        jobs.append(job_from_counts(f"job{i:0{width}d}", float(arrivals[i]), counts, durs[bounds[i] : bounds[i + 1]]))
    return GeoWorkload(fed, tuple(jobs), source=f"synthetic:{sc.trace.value}", spec=sc.describe())
