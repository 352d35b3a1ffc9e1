"""Stage 2b of LoTES: the machine-assignment LP and the resulting plan (Tran & Beck section 4.2, constraints 5-8).

Given the non-dominated bins ``B_j`` of every configuration (built from the classes ``K^j`` the allocation LP
gave it), decide how many machines ``x_ij`` of configuration ``j`` emulate bin ``i``::

    max lambda
    s.t. sum_j Delta_jkl mu_k >= lambda alpha_k T r_kl                 k in K, l in R    (5)
         sum_{i in B_j} eps_ijkl x_ij = Delta_jkl                      j in M, k, l      (6)
         sum_{i in B_j} x_ij = n_j                                     j in M            (7)
         x_ij >= 0                                                                      (8)

with ``eps_ijkl = N_ijk r_kl`` (``N_ijk``: class-k tasks in bin ``i``). A configuration whose ``K^j`` is empty gets
one empty bin so that (7) stays feasible; its machines serve only the dispatcher's "any machine with room" step.

The LP's ``x_ij`` are fractional; the simulator needs whole machines, so each configuration's ``x_ij`` are rounded
by largest remainder to integers summing to ``n_j`` (our choice; the paper does not say how it rounds). The
dispatcher's configuration shares ``rho_jk`` (section 4.3) are computed from the *rounded* assignment, so that a
configuration only receives class ``k`` when some machine of it actually emulates a bin containing ``k``; with
1000 machines per configuration this differs from the LP's ``Delta`` by at most a rounding step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from mrsim.studies.lotes.allocation import Allocation, solve_allocation
from mrsim.studies.lotes.bins import nondominated_bins
from mrsim.studies.lotes.spec import Cluster, Workload


@dataclass(frozen=True)
class LotesPlan:
    """Everything the online dispatcher needs, plus the offline figures worth reporting.

    ``bins[j]``: count tuples over all K classes. ``machines_per_bin[j][i]``: whole machines emulating bin ``i``.
    ``bin_of[j][m]``: the bin of the ``m``-th machine of configuration ``j`` (machines are given bins in bin order).
    ``rho[j][k]``: share of class-k tasks sent to configuration ``j`` (each column sums to 1).
    ``lam_allocation``: lambda* of stage 1; ``lam_assignment``: the assignment LP optimum; ``lam_rounded``: the rate
    the rounded whole-machine assignment supports by the same formula (all jobs per hour).
    """

    allocation: Allocation
    bins: tuple[tuple[tuple[int, ...], ...], ...]
    machines_per_bin: tuple[tuple[int, ...], ...]
    lam_assignment: float
    lam_rounded: float
    rho: tuple[tuple[float, ...], ...]

    @property
    def lam_allocation(self) -> float:
        return self.allocation.lam

    def bin_of(self, j: int) -> list[int]:
        out: list[int] = []
        for i, count in enumerate(self.machines_per_bin[j]):
            out.extend([i] * count)
        return out

    def serves(self, j: int, machine: int) -> tuple[int, ...]:
        """Classes whose group machine ``machine`` of configuration ``j`` belongs to (``A^j_ik = 1``)."""
        b = self.bin_of(j)[machine]
        return tuple(k for k, n in enumerate(self.bins[j][b]) if n > 0)


def largest_remainder(x: np.ndarray, total: int) -> list[int]:
    """Round non-negative ``x`` to integers summing to ``total``; ties go to the lower index (deterministic)."""
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    s = x.sum()
    if total == 0 or len(x) == 0:
        return [0] * len(x)
    scaled = x * (total / s) if s > 0 else np.full(len(x), total / len(x))
    base = np.floor(scaled + 1e-9).astype(int)
    short = total - int(base.sum())
    if short > 0:
        rem = scaled - base
        for i in sorted(range(len(x)), key=lambda i: (-rem[i], i))[:short]:
            base[i] += 1
    elif short < 0:  # only from the 1e-9 guard; take back from the largest overshoots
        rem = base - scaled
        for i in sorted(range(len(x)), key=lambda i: (-rem[i], i))[: -short]:
            base[i] -= 1
    return [int(v) for v in base]


def build_plan(cluster: Cluster, workload: Workload, allocation: Allocation | None = None) -> LotesPlan:
    """Stages 1 and 2: allocation LP, bin generation per configuration, machine-assignment LP, rounding."""
    if allocation is None:
        allocation = solve_allocation(cluster, workload)
    M, K, R = len(cluster.configs), len(workload.classes), len(cluster.resources)
    r = np.array([c.request_mean for c in workload.classes], dtype=float)
    alpha = np.array([c.proportion for c in workload.classes], dtype=float)
    mu = np.array([c.rate for c in workload.classes], dtype=float)
    T = float(workload.tasks_per_job)

    bins: list[tuple[tuple[int, ...], ...]] = []
    for j, cfg in enumerate(cluster.configs):
        ks = allocation.classes_of[j]
        local = nondominated_bins(cfg.capacity, [r[k] for k in ks]) if ks else [()]
        full = []
        for b in local:
            v = [0] * K
            for k, cnt in zip(ks, b):
                v[k] = cnt
            full.append(tuple(v))
        bins.append(tuple(full))

    # variable layout: x_ij for every (j, i) in order, then Delta_jkl, then lambda
    x_index: list[tuple[int, int]] = [(j, i) for j in range(M) for i in range(len(bins[j]))]
    n_x = len(x_index)
    d0 = n_x

    def dvar(j: int, k: int, l: int) -> int:
        return d0 + (j * K + k) * R + l

    lam = d0 + M * K * R
    n_var = lam + 1

    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    row = 0
    for k in range(K):  # (5):  lambda alpha T r - sum_j Delta mu <= 0
        for l in range(R):
            for j in range(M):
                rows.append(row), cols.append(dvar(j, k, l)), vals.append(-mu[k])
            rows.append(row), cols.append(lam), vals.append(alpha[k] * T * r[k, l])
            row += 1
    a_ub = coo_matrix((vals, (rows, cols)), shape=(row, n_var)).tocsr()
    b_ub = np.zeros(row)

    rows, cols, vals = [], [], []
    b_eq: list[float] = []
    row = 0
    first_x = 0
    for j in range(M):
        nb = len(bins[j])
        for k in range(K):  # (6)
            for l in range(R):
                for i in range(nb):
                    cnt = bins[j][i][k]
                    if cnt:
                        rows.append(row), cols.append(first_x + i), vals.append(cnt * r[k, l])
                rows.append(row), cols.append(dvar(j, k, l)), vals.append(-1.0)
                b_eq.append(0.0)
                row += 1
        for i in range(nb):  # (7)
            rows.append(row), cols.append(first_x + i), vals.append(1.0)
        b_eq.append(float(cluster.configs[j].count))
        row += 1
        first_x += nb
    a_eq = coo_matrix((vals, (rows, cols)), shape=(row, n_var)).tocsr()

    c = np.zeros(n_var)
    c[lam] = -1.0
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.array(b_eq), bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"machine-assignment LP failed: {res.message}")
    x = res.x[:n_x]

    machines_per_bin: list[tuple[int, ...]] = []
    start = 0
    for j in range(M):
        nb = len(bins[j])
        machines_per_bin.append(tuple(largest_remainder(x[start : start + nb], cluster.configs[j].count)))
        start += nb

    # tasks of class k that configuration j runs in parallel under the rounded assignment
    served = np.zeros((M, K))
    for j in range(M):
        for i, cnt in enumerate(machines_per_bin[j]):
            if cnt:
                served[j] += cnt * np.array(bins[j][i], dtype=float)
    rates = (served.sum(axis=0) * mu) / np.where(alpha > 0, alpha * T, np.inf)
    lam_rounded = float(rates[alpha > 0].min()) if (alpha > 0).any() else 0.0

    fluid = allocation.parallel_tasks(cluster, workload)
    rho_cols = []
    for k in range(K):
        col = served[:, k]
        if col.sum() <= 0:  # rounding left no machine for k: fall back to the fluid shares, then to uniform
            col = fluid[:, k]
        if col.sum() <= 0:
            col = np.array([1.0 if cfg.count else 0.0 for cfg in cluster.configs])
        rho_cols.append(col / col.sum())
    rho = tuple(tuple(float(rho_cols[k][j]) for k in range(K)) for j in range(M))
    return LotesPlan(
        allocation=allocation,
        bins=tuple(bins),
        machines_per_bin=tuple(machines_per_bin),
        lam_assignment=float(res.x[lam]),
        lam_rounded=lam_rounded,
        rho=rho,
    )
