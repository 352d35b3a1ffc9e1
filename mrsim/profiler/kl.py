"""Compare task-duration distributions of two profiled executions with the symmetric Kullback-Leibler divergence.

SimMR section II, Table I: ``D(P||Q) = sum_i P(i) log(P(i) / Q(i))`` (natural log, nats) and the symmetric
``D'(P||Q) = (D(P||Q) + D(Q||P)) / 2``, computed for the map, shuffle and reduce duration distributions.

**Binning and smoothing.** KL is defined for discrete distributions and is infinite when one side has mass in a
bin where the other has none, which two finite samples almost always produce. So both samples are histogrammed
on **common bins**: equal-width edges over the pooled sample, by default NumPy's ``"auto"`` rule (the larger bin
count of Sturges' and Freedman-Diaconis' estimators on the pooled data); an integer gives that many bins, and
explicit edges may be passed. Bin probabilities are then smoothed with an additive ``epsilon`` and renormalised,
``P(i) = (c_i / n + epsilon) / (1 + B * epsilon)`` for B bins, so every bin has positive mass. With
``epsilon = 0`` the exact discrete KL is returned (``inf`` when supports differ).

The choice bounds the result: two samples with disjoint supports give ``D' ~= ln(1 / epsilon)`` (13.8 nats for
the default ``epsilon = 1e-6``), and the value for overlapping samples depends on the bin count (finer bins see
more difference). Figures are therefore comparable only under the same binning and epsilon, which is why they
are reported next to every result.

Shuffle durations are the template's first-wave (non-overlapping) and typical shuffle durations together.
Cost: O(n log n) for the pooled sample (bin-edge estimation sorts it).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from mrsim.errors import InputError, OptionError
from mrsim.model.templates import JobTemplate

DEFAULT_EPSILON = 1e-6
DEFAULT_BINS = "auto"


class Phase(enum.Enum):
    """Duration distributions compared (SimMR Table I columns)."""

    MAP = "map"
    SHUFFLE = "shuffle"
    REDUCE = "reduce"


def kl_divergence(p: Sequence[float] | np.ndarray, q: Sequence[float] | np.ndarray) -> float:
    """``D(P||Q)`` in nats for two probability vectors on the same support (each summing to 1).

    Terms with ``P(i) = 0`` contribute 0; a bin with ``P(i) > 0`` and ``Q(i) = 0`` makes the result ``inf``.
    """
    pa = np.asarray(p, dtype=np.float64)
    qa = np.asarray(q, dtype=np.float64)
    if pa.shape != qa.shape or pa.ndim != 1:
        raise ValueError("P and Q must be 1-D vectors of the same length")
    if (pa < 0).any() or (qa < 0).any() or not math.isclose(pa.sum(), 1.0, rel_tol=1e-9) or not math.isclose(qa.sum(), 1.0, rel_tol=1e-9):
        raise ValueError("P and Q must be probability vectors (non-negative, summing to 1)")
    mass = pa > 0
    if (qa[mass] == 0).any():
        return math.inf
    return float(np.sum(pa[mass] * np.log(pa[mass] / qa[mass])))


def symmetric_kl(p: Sequence[float] | np.ndarray, q: Sequence[float] | np.ndarray) -> float:
    """SimMR's ``D'(P||Q) = (D(P||Q) + D(Q||P)) / 2`` in nats."""
    return 0.5 * (kl_divergence(p, q) + kl_divergence(q, p))


def common_edges(a: np.ndarray, b: np.ndarray, bins: int | str | Sequence[float] = DEFAULT_BINS) -> np.ndarray:
    """Bin edges shared by both samples: ``bins`` edges as given, else computed on the pooled sample."""
    if not isinstance(bins, (int, str)):
        edges = np.asarray(bins, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise InputError("bin edges must be an increasing sequence of at least two values")
        return edges
    if isinstance(bins, int) and bins < 1:
        raise OptionError(f"{{bins}} must be a positive integer or 'auto', got {bins}")
    pooled = np.concatenate([a, b])
    return np.histogram_bin_edges(pooled, bins=bins)


def smoothed_pmf(sample: np.ndarray, edges: np.ndarray, epsilon: float) -> np.ndarray:
    """Histogram of ``sample`` on ``edges`` as probabilities, with additive ``epsilon`` smoothing (see module)."""
    counts, _ = np.histogram(sample, bins=edges)
    outside = sample.size - int(counts.sum())
    if outside:
        raise InputError(f"{outside} value(s) fall outside the bin edges [{edges[0]}, {edges[-1]}]")
    p = counts / sample.size
    if epsilon:
        p = (p + epsilon) / (1.0 + epsilon * p.size)
    return p


@dataclass(frozen=True)
class PhaseComparison:
    """The divergence of one phase and what it was computed from (durations in seconds)."""

    phase: Phase
    kl: float | None
    n_a: int
    n_b: int
    bins: int
    mean_a_s: float | None
    mean_b_s: float | None

    def as_dict(self) -> dict[str, object]:
        kl = None if self.kl is None else (self.kl if math.isfinite(self.kl) else "inf")
        return {"kl": kl, "n_a": self.n_a, "n_b": self.n_b, "bins": self.bins,
                "mean_a_s": self.mean_a_s, "mean_b_s": self.mean_b_s}


def sample_symmetric_kl(a: Iterable[float] | np.ndarray, b: Iterable[float] | np.ndarray, *,
                        bins: int | str | Sequence[float] = DEFAULT_BINS,
                        epsilon: float = DEFAULT_EPSILON) -> tuple[float, int]:
    """``(D'(P||Q), number of bins)`` for two duration samples binned on common edges, smoothed by ``epsilon``."""
    xa = np.asarray(list(a) if not isinstance(a, np.ndarray) else a, dtype=np.float64)
    xb = np.asarray(list(b) if not isinstance(b, np.ndarray) else b, dtype=np.float64)
    if xa.size == 0 or xb.size == 0:
        raise InputError("both samples need at least one value")
    if epsilon < 0 or not math.isfinite(epsilon):
        raise OptionError(f"{{epsilon}} must be a non-negative number, got {epsilon}")
    edges = common_edges(xa, xb, bins)
    p = smoothed_pmf(xa, edges, epsilon)
    q = smoothed_pmf(xb, edges, epsilon)
    return symmetric_kl(p, q), int(edges.size - 1)


def phase_durations(templates: Iterable[JobTemplate], phase: Phase) -> np.ndarray:
    """All durations (s) of ``phase`` over ``templates``, concatenated."""
    parts: list[np.ndarray] = []
    for t in templates:
        if phase is Phase.MAP:
            parts.append(t.map_durations)
        elif phase is Phase.REDUCE:
            parts.append(t.reduce_durations)
        else:
            parts.extend((t.first_shuffle_durations, t.typical_shuffle_durations))
    return np.concatenate(parts) if parts else np.empty(0)


def compare_phases(a: Sequence[JobTemplate], b: Sequence[JobTemplate], *,
                   bins: int | str | Sequence[float] = DEFAULT_BINS,
                   epsilon: float = DEFAULT_EPSILON) -> list[PhaseComparison]:
    """Symmetric KL per phase between two sets of templates; ``kl`` is None when a side has no durations."""
    out = []
    for phase in Phase:
        xa, xb = phase_durations(a, phase), phase_durations(b, phase)
        mean_a = round(float(xa.mean()), 6) if xa.size else None
        mean_b = round(float(xb.mean()), 6) if xb.size else None
        if xa.size == 0 or xb.size == 0:
            out.append(PhaseComparison(phase, None, int(xa.size), int(xb.size), 0, mean_a, mean_b))
            continue
        kl, n_bins = sample_symmetric_kl(xa, xb, bins=bins, epsilon=epsilon)
        out.append(PhaseComparison(phase, kl, int(xa.size), int(xb.size), n_bins, mean_a, mean_b))
    return out
