"""Exact Mean Value Analysis for closed product-form networks of load-independent queues and delay centres.

Single class (dissertation eq. 2.1; Reiser and Lavenberg's MVA, reference [63]), for ``n = 1 .. N``::

    R'_k(n) = D_k [1 + Q_k(n - 1)]      queue centre k
    R'_k(n) = D_k                       delay centre k
    X_0(n)  = n / (Z + sum_k R'_k(n))
    Q_k(n)  = X_0(n) R'_k(n)

with ``Q_k(0) = 0``. Cost O(N K) time, O(N K) memory (every level is kept, the brief asks for all ``n <= N``).

:func:`exact_mva_multiclass` is the exact multi-class recursion over all population vectors ``n <= N``; its cost
is O(K C prod_c (N_c + 1)), so it is meant for validating :func:`mrsim.contention.amva.schweitzer_amva` on small
cases, not for the replay loop.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

from mrsim.contention.network import CentreKind, check_demand_rows
from mrsim.errors import InputError


@dataclass(frozen=True, slots=True)
class ExactMVAResult:
    """Single-class MVA at every population ``n = 0 .. N`` (index ``n``; row 0 is all zeros).

    Units: throughput in jobs/s, times in s, queue lengths in jobs (including the job in service).
    ``response[n]`` excludes the think time.
    """

    throughput: tuple[float, ...]
    response: tuple[float, ...]
    residence: tuple[tuple[float, ...], ...]
    queue_length: tuple[tuple[float, ...], ...]
    demands: tuple[float, ...]

    @property
    def population(self) -> int:
        return len(self.throughput) - 1

    def utilization(self, n: int) -> tuple[float, ...]:
        """Per-centre utilization ``X_0(n) D_k`` (for a delay centre: the mean number of jobs in it)."""
        x = self.throughput[n]
        return tuple(x * d for d in self.demands)


def _check_kinds(kinds: Sequence[CentreKind] | None, k: int) -> tuple[bool, ...]:
    if kinds is None:
        return (True,) * k
    kinds = tuple(kinds)
    if len(kinds) != k:
        raise InputError(f"got {len(kinds)} centre kinds for {k} centres")
    for kind in kinds:
        if not isinstance(kind, CentreKind):
            raise InputError(f"centre kind must be a CentreKind, got {kind!r}")
    return tuple(kind is CentreKind.QUEUE for kind in kinds)


def exact_mva(
    demands: Sequence[float],
    population: int,
    kinds: Sequence[CentreKind] | None = None,
    think_time: float = 0.0,
) -> ExactMVAResult:
    """Solve a single-class closed network exactly for every population ``0 .. population``.

    Args:
        demands: service demand per centre (s).
        population: number of circulating jobs ``N`` (integer >= 0).
        kinds: centre kinds; default all load-independent queues.
        think_time: terminal think time ``Z`` (s).
    """
    (row,) = check_demand_rows([demands], len(demands))
    if isinstance(population, bool) or not isinstance(population, int) or population < 0:
        raise InputError(f"exact MVA needs a non-negative integer population, got {population!r}")
    if not math.isfinite(think_time) or think_time < 0:
        raise InputError(f"think time must be finite and non-negative, got {think_time!r}")
    is_queue = _check_kinds(kinds, len(row))
    if population > 0 and sum(row) + think_time <= 0.0:
        raise InputError("exact MVA: total demand plus think time is zero; throughput would be infinite")
    k_range = range(len(row))
    zeros = (0.0,) * len(row)
    xs, rs, res, qs = [0.0], [0.0], [zeros], [zeros]
    q = list(zeros)
    for n in range(1, population + 1):
        r = [row[k] * (1.0 + q[k]) if is_queue[k] else row[k] for k in k_range]
        total = sum(r)
        x = n / (think_time + total)
        q = [x * rk for rk in r]
        xs.append(x)
        rs.append(total)
        res.append(tuple(r))
        qs.append(tuple(q))
    return ExactMVAResult(tuple(xs), tuple(rs), tuple(res), tuple(qs), row)


@dataclass(frozen=True, slots=True)
class MultiClassResult:
    """Per-class results of a multi-class closed network at one population vector.

    Units: throughput jobs/s per class, response and residence s, queue lengths jobs, utilization per centre
    ``sum_c X_c D_ck`` (for a delay centre: mean jobs in it). ``iterations``/``converged`` are 0/True for exact
    solutions.
    """

    throughput: tuple[float, ...]
    response: tuple[float, ...]
    residence: tuple[tuple[float, ...], ...]
    queue_length: tuple[tuple[float, ...], ...]
    utilization: tuple[float, ...]
    iterations: int = 0
    converged: bool = True


def exact_mva_multiclass(
    demands: Sequence[Sequence[float]],
    populations: Sequence[int],
    kinds: Sequence[CentreKind] | None = None,
    think_times: Sequence[float] | None = None,
) -> MultiClassResult:
    """Exact multi-class MVA at population vector ``populations`` (integers). Cost O(K C prod(N_c + 1)).

    Recursion (Lazowska et al., *Quantitative System Performance*, ch. 7):
    ``R_ck(n) = D_ck [1 + Q_k(n - e_c)]`` at queues, ``D_ck`` at delays; ``X_c(n) = n_c / (Z_c + sum_k R_ck(n))``.
    """
    if not demands:
        raise InputError("exact multi-class MVA needs at least one class")
    k = len(demands[0])
    rows = check_demand_rows(demands, k)
    pops = tuple(populations)
    if len(pops) != len(rows):
        raise InputError(f"got {len(pops)} populations for {len(rows)} classes")
    for c, n in enumerate(pops):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError(f"class {c}: exact MVA needs a non-negative integer population, got {n!r}")
    z = tuple(float(t) for t in think_times) if think_times is not None else (0.0,) * len(rows)
    is_queue = _check_kinds(kinds, k)
    n_cls = len(rows)
    for c in range(n_cls):
        if pops[c] > 0 and sum(rows[c]) + z[c] <= 0.0:
            raise InputError(f"class {c}: total demand plus think time is zero; throughput would be infinite")
    # Q[k] for every population vector, filled in order of total population so n - e_c is always ready.
    queue: dict[tuple[int, ...], tuple[float, ...]] = {(0,) * n_cls: (0.0,) * k}
    vectors = sorted(itertools.product(*(range(n + 1) for n in pops)), key=sum)
    last_r: list[list[float]] = [[0.0] * k for _ in range(n_cls)]
    last_x = [0.0] * n_cls
    for vec in vectors[1:]:
        q_tot = [0.0] * k
        for c in range(n_cls):
            if vec[c] == 0:
                last_r[c] = [0.0] * k
                last_x[c] = 0.0
                continue
            prev = queue[vec[:c] + (vec[c] - 1,) + vec[c + 1 :]]
            r = [rows[c][j] * (1.0 + prev[j]) if is_queue[j] else rows[c][j] for j in range(k)]
            x = vec[c] / (z[c] + sum(r))
            last_r[c], last_x[c] = r, x
            for j in range(k):
                q_tot[j] += x * r[j]
        queue[vec] = tuple(q_tot)
    if sum(pops) == 0:
        zeros = (0.0,) * n_cls
        return MultiClassResult(zeros, zeros, ((0.0,) * k,) * n_cls, ((0.0,) * k,) * n_cls, (0.0,) * k)
    # Response of an empty class is what one arriving job would see (arrival theorem), as in AMVA.
    final_q = queue[pops]
    resp, res, ql = [], [], []
    for c in range(n_cls):
        if pops[c] == 0:
            r = [rows[c][j] * (1.0 + final_q[j]) if is_queue[j] else rows[c][j] for j in range(k)]
            res.append(tuple(r))
            resp.append(sum(r))
            ql.append((0.0,) * k)
        else:
            res.append(tuple(last_r[c]))
            resp.append(sum(last_r[c]))
            ql.append(tuple(last_x[c] * v for v in last_r[c]))
    util = tuple(sum(last_x[c] * rows[c][j] for c in range(n_cls)) for j in range(k))
    return MultiClassResult(tuple(last_x), tuple(resp), tuple(res), tuple(ql), util)
