"""Exact MVA with multi-server (load-dependent) stations: the exact alternative to Seidmann's CPU.

A ``c``-server station serves ``min(j, c)`` jobs at once when ``j`` are present (an ``m``-core CPU shared by
tasks that are not bound to cores). Seidmann's method (section 4.5, :func:`mrsim.contention.network.seidmann`)
replaces it by a queue ``D/c`` plus a delay ``D(c-1)/c``, which makes a job queue even when jobs do not outnumber
servers (2 jobs on 4 cores: 106 s for 100 s of CPU) and adds the delay ``D(c-1)/c`` on top of a saturated queue
(10 jobs on 4 cores: about 265 s instead of 250 s). This module solves the station exactly, with the multi-server
MVA recursion of Reiser and Lavenberg as written in Bolch et al., *Queueing Networks and Markov Chains* (2nd ed.,
section 8.2.1, "multiple servers"), for every population vector ``n <= N``::

    R_ck(n) = D_ck / c_k * [1 + Q_k(n - e_c) + sum_{j=0}^{c_k-2} (c_k - 1 - j) p_k(j | n - e_c)]   c_k-server
    R_ck(n) = D_ck [1 + Q_k(n - e_c)]                                                            queue (c_k = 1)
    R_ck(n) = D_ck                                                                               delay (c_k = 0)
    X_c(n)  = n_c / sum_k R_ck(n)
    Q_k(n)  = sum_c X_c(n) R_ck(n)
    p_k(j | n) = (1/j) sum_c D_ck X_c(n) p_k(j-1 | n - e_c)                       j = 1 .. c_k - 1
    p_k(0 | n) = 1 - (1/c_k) [sum_c D_ck X_c(n) + sum_{j=1}^{c_k-1} (c_k - j) p_k(j | n)]

``D`` is a job's total service demand at the station (s of one server), as everywhere in this package. The result
is exact for product-form networks (no approximation at all, unlike Bard-Schweitzer), and like AMVA with one job
per class its per-class response times scale with the class's demand magnitude only, so the engine's per-shape
mix cache applies unchanged (the product-form weight of every state scales by ``alpha ** N_c``).

Cost: O(S x C x (K + c)) time and O(S x (K + c)) memory for ``S = prod_c (N_c + 1)`` population vectors. The
engine bounds ``S`` (:data:`DEFAULT_MAX_STATES`) and falls back to Seidmann + AMVA beyond it, counting fallbacks.
``p_k(0 | n)`` is computed by subtraction, which loses precision only for populations far beyond a node's slots;
it is clamped at 0.
"""

from __future__ import annotations

import math
from typing import Sequence

from mrsim.contention.mva import MultiClassResult
from mrsim.errors import InputError

#: Largest lattice (``prod (N_c + 1)``) the engine solves exactly; a node mix beyond it uses Seidmann + AMVA.
DEFAULT_MAX_STATES = 20_000


def lattice_size(populations: Sequence[int]) -> int:
    """``prod_c (N_c + 1)``: how many population vectors an exact solve visits."""
    return math.prod(int(n) + 1 for n in populations)


def exact_multiserver_mva(
    demands: Sequence[Sequence[float]], populations: Sequence[int], servers: Sequence[int]
) -> MultiClassResult:
    """Exact multi-class MVA of a closed network whose centres have ``servers[k]`` servers (0 = delay centre).

    Args:
        demands: ``D[c][k]``, class ``c``'s total service demand at centre ``k`` (s of one server).
        populations: integer ``N_c >= 0`` per class.
        servers: per centre, ``0`` (delay), ``1`` (load-independent queue) or ``c > 1`` (``c`` identical servers).

    Returns per-class throughput (jobs/s) and response time (s) at ``N``, residence times and queue lengths per
    class and centre, and per-centre utilization (busy fraction of one server: ``sum_c X_c D_ck / c_k``; for a
    delay centre the mean number of jobs in it). ``iterations`` is the lattice size, ``converged`` is True.
    """
    rows = [tuple(float(d) for d in row) for row in demands]
    n_k = len(servers)
    pops = [int(n) for n in populations]
    if not rows or len(pops) != len(rows):
        raise InputError(f"exact MVA needs one population per class, got {len(pops)} for {len(rows)} classes")
    for c, row in enumerate(rows):
        if len(row) != n_k:
            raise InputError(f"class {c}: {len(row)} demands for {n_k} centres")
        if any(not math.isfinite(d) or d < 0.0 for d in row):
            raise InputError(f"class {c}: demands must be finite and non-negative, got {row}")
        if pops[c] < 0 or pops[c] != populations[c]:
            raise InputError(f"class {c}: population must be a non-negative integer, got {populations[c]!r}")
        if pops[c] > 0 and sum(row) <= 0.0:
            raise InputError(f"class {c}: a job with zero total demand has infinite throughput")
    for k, s in enumerate(servers):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise InputError(f"centre {k}: servers must be an integer >= 0 (0 = delay), got {s!r}")
    return _solve(rows, pops, list(servers))


def _solve(rows: list[tuple[float, ...]], pops: list[int], servers: list[int]) -> MultiClassResult:
    """Unchecked recursion behind :func:`exact_multiserver_mva` (the engine's mix cache calls it directly)."""
    n_cls, n_k = len(rows), len(servers)
    strides = []
    size = 1
    for n in pops:
        strides.append(size)
        size *= n + 1
    multi = [k for k in range(n_k) if servers[k] > 1]
    queues = [k for k in range(n_k) if servers[k] == 1]
    delays = [k for k in range(n_k) if servers[k] == 0]
    # Per state: total queue length per centre; per multi-server centre, p(j | n) for j = 0 .. c-1.
    q_tot: list[list[float]] = [[0.0] * n_k for _ in range(size)]
    probs: list[dict[int, list[float]]] = [{} for _ in range(size)]
    empty = {k: [1.0] + [0.0] * (servers[k] - 1) for k in multi}
    probs[0] = empty
    x = [0.0] * n_cls
    resid = [[0.0] * n_k for _ in range(n_cls)]
    counts = [0] * n_cls
    for idx in range(1, size):
        # Mixed-radix increment: n - e_c has a smaller index than n, so it is already solved.
        c0 = 0
        while counts[c0] == pops[c0]:
            counts[c0] = 0
            c0 += 1
        counts[c0] += 1
        q_here = [0.0] * n_k
        for c in range(n_cls):
            nc = counts[c]
            if nc == 0:
                x[c] = 0.0
                continue
            prev = idx - strides[c]
            q_prev, p_prev = q_tot[prev], probs[prev]
            row, rc = rows[c], resid[c]
            for k in delays:
                rc[k] = row[k]
            for k in queues:
                rc[k] = row[k] * (1.0 + q_prev[k])
            for k in multi:
                m = servers[k]
                p = p_prev[k]
                idle_term = 0.0
                for j in range(m - 1):
                    idle_term += (m - 1 - j) * p[j]
                rc[k] = row[k] / m * (1.0 + q_prev[k] + idle_term)
            xc = nc / sum(rc)
            x[c] = xc
            for k in range(n_k):
                q_here[k] += xc * rc[k]
        q_tot[idx] = q_here
        here: dict[int, list[float]] = {}
        for k in multi:
            m = servers[k]
            p = [0.0] * m
            for j in range(1, m):
                acc = 0.0
                for c in range(n_cls):
                    if counts[c]:
                        acc += rows[c][k] * x[c] * probs[idx - strides[c]][k][j - 1]
                p[j] = acc / j
            busy = sum(rows[c][k] * x[c] for c in range(n_cls) if counts[c])
            p0 = 1.0 - (busy + sum((m - j) * p[j] for j in range(1, m))) / m
            p[0] = p0 if p0 > 0.0 else 0.0
            here[k] = p
        probs[idx] = here
    x_final = [x[c] if pops[c] > 0 else 0.0 for c in range(n_cls)]
    if size == 1:  # every population is zero
        x_final = [0.0] * n_cls
    q_cls = tuple(tuple(x_final[c] * resid[c][k] for k in range(n_k)) if pops[c] > 0 else (0.0,) * n_k
                  for c in range(n_cls))
    # Empty classes: what one arriving job would see in the mix (as the AMVA solver reports them).
    last_q = q_tot[size - 1]
    last_p = probs[size - 1]
    response = []
    residence = []
    for c in range(n_cls):
        if pops[c] > 0:
            residence.append(tuple(resid[c]))
            response.append(sum(resid[c]))
            continue
        rc = []
        for k in range(n_k):
            d = rows[c][k]
            if servers[k] == 0:
                rc.append(d)
            elif servers[k] == 1:
                rc.append(d * (1.0 + last_q[k]))
            else:
                m = servers[k]
                p = last_p[k]
                rc.append(d / m * (1.0 + last_q[k] + sum((m - 1 - j) * p[j] for j in range(m - 1))))
        residence.append(tuple(rc))
        response.append(sum(rc))
    util = tuple(sum(x_final[c] * rows[c][k] for c in range(n_cls)) / (servers[k] or 1) for k in range(n_k))
    return MultiClassResult(
        throughput=tuple(x_final),
        response=tuple(response),
        residence=tuple(residence),
        queue_length=q_cls,
        utilization=util,
        iterations=size,
        converged=True,
    )
