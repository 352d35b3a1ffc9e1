"""The ARIA bounds model: a MapReduce job's completion time from its profile and slot allocation, and back.

Follows SimMR section V-A and the model it cites (Verma, Cherkasova, Campbell, "ARIA: Automatic Resource
Inference and Allocation for MapReduce Environments", ICAC 2011, section III).

**Makespan bounds of one phase.** ``n`` tasks with average duration ``avg`` and maximum ``max`` run by a greedy
assignment (each task to the slot that frees first) on ``k`` slots take at least ``n·avg/k`` and at most
``(n − 1)·avg/k + max`` seconds (:func:`phase_bounds`).

**Job bounds** (ARIA eqs. 4–9). The job profile holds avg/max of the map durations (M), the non-overlapping
part of the first-wave shuffle (Sh1), the typical shuffle of later waves (Sh) and the reduce phase (R), all in
seconds, as :class:`mrsim.model.templates.JobTemplate` defines them. With ``N_M`` maps on ``S_M`` slots and ``N_R``
reduces on ``S_R`` slots::

    T_low = N_M·M_avg/S_M + Sh1_avg + (N_R/S_R − 1)·Sh_avg + N_R·R_avg/S_R
    T_up  = (N_M − 1)·M_avg/S_M + M_max + Sh1_max + ((N_R − 1)/S_R − 1)·Sh_avg + Sh_max + (N_R − 1)·R_avg/S_R + R_max

Both have the form ``A/S_M + B/S_R + C`` (:class:`CompletionModel`), and so does their average, which SimMR
and ARIA use as the estimate. The first wave's shuffle is counted once (Sh1), later waves pay the typical
shuffle; a job without reduces has only the map term. Missing shuffle arrays fall back as in the replay
engine: a missing first-shuffle uses the typical one and vice versa, both missing count as 0 s.

The model describes a job that has its slots to itself from its start (no queueing, no heartbeat delays,
identical nodes: tracker speed factors are ignored). A job cannot use more slots than it has tasks, and the
``(N_R/S_R − 1)`` shuffle term is only meaningful for ``S_R ≤ N_R``; :meth:`CompletionModel.time` therefore
clamps ``S_M ≤ N_M`` and ``S_R ≤ N_R``.

**Inverse problem** (:func:`min_slots_for_deadline`): the allocations meeting ``T = D`` lie on the hyperbola
``a/S_M + b/S_R = D − c``; the point minimising ``S_M + S_R`` (Lagrange multipliers) is::

    S_M = √a·(√a + √b)/(D − c),   S_R = √b·(√a + √b)/(D − c)

With the box ``S_M ≤ min(N_M, cluster map slots)``, ``S_R ≤ min(N_R, cluster reduce slots)``: a coordinate
above its limit is fixed at the limit and the other solved from the hyperbola (the KKT point of the boxed
problem). Both are then rounded up to integers (so the model time stays ≤ D), at least one slot per phase
that has tasks. When no allocation inside the box meets D, the whole box is returned with
``feasible = False``. Cost: O(tasks) to build a profile (numpy reductions), O(1) for everything else.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate


class Bound(enum.Enum):
    """Which completion-time bound the model uses."""

    LOWER = "lower"
    UPPER = "upper"
    AVERAGE = "average"  # (lower + upper) / 2: SimMR's and ARIA's estimate

    @classmethod
    def parse(cls, value: object) -> "Bound":
        if isinstance(value, Bound):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise InputError(f"unknown ARIA bound {value!r} (expected lower, upper or average)") from None


@dataclass(frozen=True)
class PhaseStats:
    """Average and maximum task duration of one phase (s); zeros for an empty phase."""

    avg: float = 0.0
    max: float = 0.0

    @classmethod
    def of(cls, durations: np.ndarray) -> "PhaseStats":
        if durations.size == 0:
            return cls()
        return cls(float(durations.mean()), float(durations.max()))


def phase_bounds(n: int, avg: float, max_: float, k: int) -> tuple[float, float]:
    """Makespan bounds (s) of ``n`` tasks of average ``avg`` and maximum ``max_`` seconds greedily run on ``k`` slots:
    ``(n·avg/k, (n − 1)·avg/k + max)``. Zero tasks take zero time. Cost O(1)."""
    if n <= 0:
        return 0.0, 0.0
    if k <= 0:
        raise ValueError("a phase with tasks needs at least one slot")
    return n * avg / k, (n - 1) * avg / k + max_


@dataclass(frozen=True)
class JobProfile:
    """ARIA's compact job profile: task counts and avg/max per phase (s)."""

    n_maps: int
    n_reduces: int
    map: PhaseStats
    first_shuffle: PhaseStats
    typical_shuffle: PhaseStats
    reduce: PhaseStats

    @classmethod
    def from_template(cls, t: JobTemplate) -> "JobProfile":
        """Profile of a template, with the replay engine's shuffle fallback. Cost O(tasks)."""
        first = t.first_shuffle_durations if t.first_shuffle_durations.size else t.typical_shuffle_durations
        typical = t.typical_shuffle_durations if t.typical_shuffle_durations.size else t.first_shuffle_durations
        return cls(t.n_maps, t.n_reduces, PhaseStats.of(t.map_durations), PhaseStats.of(first),
                   PhaseStats.of(typical), PhaseStats.of(t.reduce_durations))


@dataclass(frozen=True)
class CompletionModel:
    """``T(S_M, S_R) = a/S_M + b/S_R + c`` seconds, for a job of ``n_maps`` maps and ``n_reduces`` reduces."""

    a: float
    b: float
    c: float
    n_maps: int
    n_reduces: int

    def time(self, map_slots: float, reduce_slots: float) -> float:
        """Model completion time (s); slots above the task counts are clamped; inf without a needed slot."""
        t = self.c
        if self.n_maps:
            if map_slots <= 0:
                return math.inf
            t += self.a / min(map_slots, self.n_maps)
        if self.n_reduces:
            if reduce_slots <= 0:
                return math.inf
            t += self.b / min(reduce_slots, self.n_reduces)
        return t


def completion_model(profile: JobProfile, bound: Bound = Bound.AVERAGE) -> CompletionModel:
    """The ``A/S_M + B/S_R + C`` coefficients of the chosen bound (module docstring). Cost O(1)."""
    nm, nr = profile.n_maps, profile.n_reduces
    m, sh1, sh, r = profile.map, profile.first_shuffle, profile.typical_shuffle, profile.reduce
    a_low = nm * m.avg
    a_up = (nm - 1) * m.avg if nm else 0.0
    c_low = 0.0
    c_up = m.max if nm else 0.0
    b_low = b_up = 0.0
    if nr:
        b_low = nr * (sh.avg + r.avg)
        b_up = (nr - 1) * (sh.avg + r.avg)
        c_low += sh1.avg - sh.avg
        c_up += sh1.max - sh.avg + sh.max + r.max
    if bound is Bound.LOWER:
        return CompletionModel(a_low, b_low, c_low, nm, nr)
    if bound is Bound.UPPER:
        return CompletionModel(a_up, b_up, c_up, nm, nr)
    return CompletionModel((a_low + a_up) / 2, (b_low + b_up) / 2, (c_low + c_up) / 2, nm, nr)


def estimate_completion(template: JobTemplate, map_slots: int, reduce_slots: int,
                        bound: Bound = Bound.AVERAGE) -> float:
    """Model completion time (s) of ``template`` alone on the given slots. Cost O(tasks)."""
    return completion_model(JobProfile.from_template(template), bound).time(map_slots, reduce_slots)


@dataclass(frozen=True)
class SlotAllocation:
    """Result of the inverse problem.

    Attributes:
        map_slots / reduce_slots: the integer allocation (0 for a phase without tasks).
        feasible: the model time of that allocation is within the deadline.
        estimate_s: model completion time of the allocation (s).
        continuous: the real-valued optimum before rounding (``(inf, inf)`` when infeasible).
    """

    map_slots: int
    reduce_slots: int
    feasible: bool
    estimate_s: float
    continuous: tuple[float, float]


def min_slots_for_deadline(model: CompletionModel, deadline_s: float, cluster_map_slots: int,
                           cluster_reduce_slots: int) -> SlotAllocation:
    """Fewest ``S_M + S_R`` (Lagrange point of the hyperbola, boxed, rounded up) with ``T ≤ deadline_s``.

    ``deadline_s`` is relative to the job's start (s). See the module docstring. Cost O(1).
    """
    cap_m = min(model.n_maps, max(0, cluster_map_slots))
    cap_r = min(model.n_reduces, max(0, cluster_reduce_slots))
    if (model.n_maps and cap_m == 0) or (model.n_reduces and cap_r == 0):
        return SlotAllocation(cap_m, cap_r, False, math.inf, (math.inf, math.inf))
    a = model.a if model.n_maps else 0.0
    b = model.b if model.n_reduces else 0.0
    budget = deadline_s - model.c
    m = r = math.inf
    if budget > 0:
        root = math.sqrt(a) + math.sqrt(b)
        m, r = math.sqrt(a) * root / budget, math.sqrt(b) * root / budget
        # Box constraints: pin an over-limit coordinate and solve the other from a/m + b/r = budget.
        if m > cap_m:
            m, r = _pinned(cap_m, a, b, budget)
        if r > cap_r:
            r, m = _pinned(cap_r, b, a, budget)
            if m > cap_m:
                m = math.inf
    if not (math.isfinite(m) and math.isfinite(r)):
        return SlotAllocation(cap_m, cap_r, False, model.time(cap_m, cap_r), (math.inf, math.inf))
    s_m = _round_up(m, model.n_maps, cap_m)
    s_r = _round_up(r, model.n_reduces, cap_r)
    estimate = model.time(s_m, s_r)
    return SlotAllocation(s_m, s_r, estimate <= deadline_s * (1 + 1e-12), estimate, (m, r))


def _pinned(limit: int, coef_pinned: float, coef_other: float, budget: float) -> tuple[float, float]:
    """Fix one coordinate at ``limit``; the other from the hyperbola (inf when the budget is used up)."""
    rest = budget - (coef_pinned / limit if limit else math.inf)
    if coef_other == 0.0:
        return float(limit), 0.0 if rest >= 0 else math.inf
    return float(limit), coef_other / rest if rest > 0 else math.inf


def _round_up(x: float, n_tasks: int, cap: int) -> int:
    if n_tasks == 0:
        return 0
    # 1e-9 absorbs float noise so that an exact integer optimum is not bumped to the next integer.
    return min(cap, max(1, math.ceil(x - 1e-9)))
