"""Bard-Schweitzer approximate MVA for multi-class closed networks (dissertation sections 2.3, 4.6, 5.3, 5.6).

Schweitzer's proportional estimate (reference [64]) replaces the exact recursion's ``Q_k(N - e_c)`` with
``Q_k(N) - Q_ck(N) / N_c``, which turns MVA into a fixed point in the queue lengths ``Q_ck``::

    A_ck = sum_j Q_jk - Q_ck / N_c                (queue seen by an arriving class-c job)
    R_ck = D_ck (1 + A_ck)   at a queue,   D_ck at a delay centre
    X_c  = N_c / (Z_c + sum_k R_ck)
    Q_ck = X_c R_ck

Populations may be non-integer (Algorithm 5 feeds fractional ``N^mem``). For ``0 < N_c < 1`` the self term
``(1 - 1/N_c) Q_ck`` is negative but ``A_ck >= -1`` still holds because ``Q_ck <= N_c``, so residence times
stay non-negative. A class with ``N_c = 0`` has no throughput; its reported response time is what one arriving
job would see (``A_ck = sum_j Q_jk``), which is what a dispatcher wants to know.

Iteration: Gauss-Seidel sweeps (each class uses the queue totals already updated by the classes before it)
from ``Q_ck = N_c D_ck / sum_k D_ck`` (jobs spread in proportion to demand), stopping when no ``Q_ck`` moves by
more than ``tol * N_c`` in a sweep, or after ``max_iter`` sweeps (then
``converged=False``; the last iterate is returned, the caller decides). Cost per sweep O(C K); the dissertation
(section 5.6) reports about 39 sweeps for 100 classes x 5 devices at tolerance 5e-4.

Accuracy: approximate. Against exact MVA the Schweitzer response times are typically within a few per cent and
exact for a single class with one job or for one queue; tests state the tolerances they check.
"""

from __future__ import annotations

import math
from typing import Sequence

from mrsim.contention.mva import MultiClassResult, _check_kinds
from mrsim.contention.network import CentreKind, check_demand_rows
from mrsim.errors import InputError

DEFAULT_TOL = 1e-8
DEFAULT_MAX_ITER = 10_000


def schweitzer_amva(
    demands: Sequence[Sequence[float]],
    populations: Sequence[float],
    kinds: Sequence[CentreKind] | None = None,
    think_times: Sequence[float] | None = None,
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
) -> MultiClassResult:
    """Solve a multi-class closed network with the Bard-Schweitzer approximation.

    Args:
        demands: ``D[c][k]``, service demand of class ``c`` at centre ``k`` (s).
        populations: ``N_c`` per class, any non-negative real.
        kinds: centre kinds; default all load-independent queues.
        think_times: ``Z_c`` per class (s); default 0.
        tol: convergence threshold on queue-length change, relative to the class population.
        max_iter: cap on sweeps.

    Returns a :class:`MultiClassResult` with per-class throughput, response time, per-centre residence times and
    queue lengths, per-centre utilization, sweeps used and whether the tolerance was met.
    """
    if not demands:
        raise InputError("AMVA needs at least one class")
    k = len(demands[0])
    rows = check_demand_rows(demands, k)
    pops = tuple(float(n) for n in populations)
    if len(pops) != len(rows):
        raise InputError(f"got {len(pops)} populations for {len(rows)} classes")
    for c, n in enumerate(pops):
        if not math.isfinite(n) or n < 0.0:
            raise InputError(f"class {c}: population must be finite and non-negative, got {n!r}")
    if think_times is None:
        z = (0.0,) * len(rows)
    else:
        z = tuple(float(t) for t in think_times)
        if len(z) != len(rows) or any(not math.isfinite(t) or t < 0.0 for t in z):
            raise InputError("think times must be one finite, non-negative value per class")
    for c in range(len(rows)):
        if pops[c] > 0.0 and sum(rows[c]) + z[c] <= 0.0:
            raise InputError(f"class {c}: total demand plus think time is zero; throughput would be infinite")
    if not (tol > 0.0) or isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise InputError(f"AMVA needs tol > 0 and max_iter >= 1, got tol={tol!r}, max_iter={max_iter!r}")
    return amva_core(rows, pops, _check_kinds(kinds, k), z, tol, max_iter)


def amva_core(
    rows_in: Sequence[Sequence[float]],
    pops_in: Sequence[float],
    is_queue_in: Sequence[bool],
    think_in: Sequence[float],
    tol: float,
    max_iter: int,
) -> MultiClassResult:
    """Unchecked Schweitzer solver: the hot-path entry behind :func:`schweitzer_amva`.

    Inputs must already be validated (floats, matching lengths, ``sum(rows[c]) + think[c] > 0`` where
    ``pops[c] > 0``). Plain Python lists: for the small networks of a node (a few classes, 2 to 5 centres) this
    beats numpy, whose per-call overhead dominates at that size. Compiled with the engine core (mypyc,
    ``mrsim/compiled_core.py``): TDAM solves a mix on a cache miss, and the sweeps were a sixth of a contention-aware
    replay's CPU once the rest was compiled; the inputs are copied into typed lists first so that the compiled
    loops index them natively (the same floats: results are identical to the interpreted solver's).
    """
    rows = [[float(d) for d in row] for row in rows_in]
    pops = [float(n) for n in pops_in]
    think = [float(t) for t in think_in]
    is_queue = [bool(b) for b in is_queue_in]
    x, r, q, util, iterations, converged = amva_lists(rows, pops, is_queue, think, tol, max_iter)
    n_k = len(is_queue)
    return MultiClassResult(
        throughput=tuple(x),
        response=tuple([total(rc) for rc in r]),
        residence=tuple([tuple(rc) for rc in r]),
        queue_length=tuple([tuple(q[c]) if pops[c] > 0.0 else (0.0,) * n_k for c in range(len(q))]),
        utilization=tuple(util),
        iterations=iterations,
        converged=converged,
    )


def total(values: list[float]) -> float:
    """``values[0] + values[1] + ...``, left to right: the solver's one way to add up a row (s or jobs).

    What ``sum`` computes on Python 3.11, written out: compiled, ``sum`` is a generic call that boxes every partial
    sum, and on Python 3.12 and later it compensates rounding, so the loop also keeps the solver's floats the same on
    every Python version and in both builds."""
    s = 0.0
    for v in values:
        s += v
    return s


def amva_lists(
    rows: list[list[float]],
    pops: list[float],
    is_queue: list[bool],
    think: list[float],
    tol: float,
    max_iter: int,
) -> tuple[list[float], list[list[float]], list[list[float]], list[float], int, bool]:
    """:func:`amva_core` on typed lists, without the result object: ``(throughput per class, residence times
    r[c][k], queue lengths q[c][k], utilization per centre, sweeps, converged)``; a class's response time is
    ``total(r[c])``. For compiled callers that solve many small mixes (TDAM's mix table): the inputs are read,
    never kept or changed.

    The sweeps allocate nothing: each class's residence times and queue lengths are updated in place (the same
    operations in the same order as building new lists, so the same floats), sums are :func:`total`'s loop and
    the index loops are over ``range`` (native loops when compiled). Cost O(sweeps x classes x centres).
    """
    n_cls = len(rows)
    n_k = len(is_queue)
    queue_ks = [j for j in range(n_k) if is_queue[j]]
    active = [c for c in range(n_cls) if pops[c] > 0.0]
    # Initial guess: each class's jobs spread over centres in proportion to its demands.
    q = [[0.0] * n_k for _ in range(n_cls)]
    for c in active:
        row_total = total(rows[c])
        if row_total > 0.0:
            share = pops[c] / row_total
            q[c] = [share * d for d in rows[c]]
    inv_n = [1.0 / pops[c] if pops[c] > 0.0 else 0.0 for c in range(n_cls)]
    x = [0.0] * n_cls
    # Residence times: a delay centre's is its demand throughout; a queue's is rewritten in every sweep.
    r = [list(rows[c]) for c in range(n_cls)]
    tot = [0.0] * n_k
    for c in active:
        for j in queue_ks:
            tot[j] = tot[j] + q[c][j]
    if n_k == 3:  # the default node (Seidmann's queue and delay for its cores, one disk): totals in locals
        iterations, converged = _sweeps3(rows, pops, is_queue, think, tol, max_iter, q, r, x, tot, active, inv_n)
    else:
        iterations, converged = _sweeps(rows, pops, is_queue, think, tol, max_iter, q, r, x, tot, active, inv_n,
                                        queue_ks)
    # Empty classes: what one arriving job would see, given the converged mix.
    tot = [0.0] * n_k
    for c in active:
        for j in queue_ks:
            tot[j] = tot[j] + q[c][j]
    for c in range(n_cls):
        if pops[c] <= 0.0:
            r[c] = [rows[c][j] * (1.0 + tot[j]) if is_queue[j] else rows[c][j] for j in range(n_k)]
            x[c] = 0.0
    util = [0.0] * n_k
    for j in range(n_k):
        u = 0.0
        for c in active:
            u += x[c] * rows[c][j]
        util[j] = u
    return x, r, q, util, iterations, converged


def _sweeps(rows: list[list[float]], pops: list[float], is_queue: list[bool], think: list[float], tol: float,
            max_iter: int, q: list[list[float]], r: list[list[float]], x: list[float], tot: list[float],
            active: list[int], inv_n: list[float], queue_ks: list[int]) -> tuple[int, bool]:
    """The Gauss-Seidel sweeps of :func:`amva_lists` until convergence or ``max_iter``: updates ``q``, ``r``,
    ``x`` and ``tot`` in place; returns ``(sweeps, converged)``."""
    n_k = len(is_queue)
    iterations = 0
    converged = False
    while iterations < max_iter:
        iterations += 1
        delta = 0.0
        # Gauss-Seidel sweep: each class sees the queue totals already updated by the classes before it.
        # Same fixed point as the Jacobi form, reached in fewer sweeps.
        for c in active:
            row, qc, rc, inv = rows[c], q[c], r[c], inv_n[c]
            for j in queue_ks:
                rc[j] = row[j] * (1.0 + tot[j] - qc[j] * inv)
            xc = pops[c] / (think[c] + total(rc))
            worst = 0.0
            for j in range(n_k):
                v = xc * rc[j]
                old = qc[j]
                d = v - old
                if d < 0.0:
                    d = -d
                if d > worst:
                    worst = d
                if is_queue[j]:
                    tot[j] = tot[j] + (v - old)  # not +=: compiled, an item's += is a generic boxed add
                qc[j] = v
            worst *= inv  # judged relative to the class population (queue lengths scale with it)
            if worst > delta:
                delta = worst
            x[c] = xc
        if delta <= tol:
            converged = True
            break
    return iterations, converged


class _Class3:
    """One class of a three-centre network while :func:`_sweeps3` iterates: its demands ``d*``, queue lengths
    ``q*``, residence times ``r*``, population, think time and ``1 / N_c``. Compiled, the fields are native doubles
    read and written in place, where the lists' items box a new float at every store (five a class and sweep)."""

    def __init__(self, row: list[float], qc: list[float], rc: list[float], pop: float, think: float,
                 inv: float) -> None:
        self.d0: float = row[0]
        self.d1: float = row[1]
        self.d2: float = row[2]
        self.q0: float = qc[0]
        self.q1: float = qc[1]
        self.q2: float = qc[2]
        self.r0: float = rc[0]
        self.r1: float = rc[1]
        self.r2: float = rc[2]
        self.pop = pop
        self.think = think
        self.inv = inv


def _sweeps3(rows: list[list[float]], pops: list[float], is_queue: list[bool], think: list[float], tol: float,
             max_iter: int, q: list[list[float]], r: list[list[float]], x: list[float], tot: list[float],
             active: list[int], inv_n: list[float]) -> tuple[int, bool]:
    """:func:`_sweeps` for three centres, unrolled: the queue totals live in locals and each class's values in a
    :class:`_Class3` (compiled, native doubles throughout), copied back into ``q``, ``r`` and ``x`` after the last
    sweep. The same operations in the same order, so the same floats (``tot`` is left as it was: the caller
    recomputes it; a class's throughput is computed once after the last sweep from that sweep's residence times,
    the same operations as in the sweep; a delay centre's residence time stays its demand, as ``r`` was
    initialised)."""
    iq0, iq1, iq2 = is_queue[0], is_queue[1], is_queue[2]
    t0, t1, t2 = tot[0], tot[1], tot[2]
    classes = [_Class3(rows[c], q[c], r[c], pops[c], think[c], inv_n[c]) for c in active]
    iterations = 0
    converged = False
    while iterations < max_iter:
        iterations += 1
        delta = 0.0
        for k in classes:
            inv = k.inv
            q0, q1, q2 = k.q0, k.q1, k.q2
            r0, r1, r2 = k.d0, k.d1, k.d2  # a delay centre's residence time is its demand
            if iq0:
                r0 = r0 * (1.0 + t0 - q0 * inv)
                k.r0 = r0
            if iq1:
                r1 = r1 * (1.0 + t1 - q1 * inv)
                k.r1 = r1
            if iq2:
                r2 = r2 * (1.0 + t2 - q2 * inv)
                k.r2 = r2
            s = 0.0  # total(rc)
            s += r0
            s += r1
            s += r2
            xc = k.pop / (k.think + s)
            worst = 0.0
            v0 = xc * r0
            d = v0 - q0
            if d < 0.0:
                d = -d
            if d > worst:
                worst = d
            if iq0:
                t0 = t0 + (v0 - q0)
            k.q0 = v0
            v1 = xc * r1
            d = v1 - q1
            if d < 0.0:
                d = -d
            if d > worst:
                worst = d
            if iq1:
                t1 = t1 + (v1 - q1)
            k.q1 = v1
            v2 = xc * r2
            d = v2 - q2
            if d < 0.0:
                d = -d
            if d > worst:
                worst = d
            if iq2:
                t2 = t2 + (v2 - q2)
            k.q2 = v2
            worst *= inv  # judged relative to the class population (queue lengths scale with it)
            if worst > delta:
                delta = worst
        if delta <= tol:
            converged = True
            break
    # Back into the lists, and the throughputs of the last sweep from its residence times (the sweep's operations)
    for n in range(len(active)):
        c = active[n]
        k = classes[n]
        qc, rc = q[c], r[c]
        qc[0], qc[1], qc[2] = k.q0, k.q1, k.q2
        rc[0], rc[1], rc[2] = k.r0, k.r1, k.r2
        s = 0.0
        s += k.r0
        s += k.r1
        s += k.r2
        x[c] = k.pop / (k.think + s)
    return iterations, converged
