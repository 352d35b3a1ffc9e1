"""Stage 1 of LoTES: the multi-resource allocation LP (Tran & Beck section 4.1, constraints 1-4).

The LP pools every configuration's machines into one fluid "super machine" and finds the largest job arrival
rate ``lambda`` (jobs per hour) whose expected resource demand the pooled resources can serve::

    max lambda
    s.t. sum_j delta_jkl c_jl n_j mu_k >= lambda alpha_k T r_kl        k in K, l in R    (1)
         delta_jkl c_jl / r_kl = delta_jk1 c_j1 / r_k1                 j in M, k in K, l (2)
         sum_k delta_jkl <= 1                                          j in M, l in R    (3)
         delta_jkl >= 0                                                                  (4)

``T`` is the number of tasks per job: 1 for single-task jobs; ``maps + reduces`` for MapReduce jobs, following
section 6 ("multiply the resource requirement of a task ... with the expected number of tasks in a job").
``lambda*`` is an upper bound on the stable arrival rate because the fluid model ignores fragmentation; it is
the paper's "load 1". Solved with HiGHS through :func:`scipy.optimize.linprog`; the LP has ``M*K*R + 1``
variables (161 for Tables 1 and 3) and solves in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from mrsim.studies.lotes.spec import Cluster, Workload

#: A delta below this is treated as zero when deciding which classes a configuration serves (``K^j``).
DELTA_TOL = 1e-9


@dataclass(frozen=True)
class Allocation:
    """The allocation LP's optimum.

    ``lam``: lambda* in jobs per hour. ``delta[j, k, l]``: fraction of configuration ``j``'s resource ``l``
    devoted to class ``k``. ``classes_of[j]``: the class indices with positive delta on ``j`` (``K^j``).
    """

    lam: float
    delta: np.ndarray
    classes_of: tuple[tuple[int, ...], ...]

    def parallel_tasks(self, cluster: Cluster, workload: Workload) -> np.ndarray:
        """``[j, k]``: class-k tasks configuration j runs in parallel in the fluid solution."""
        cap = np.array([c.capacity for c in cluster.configs], dtype=float)
        n = np.array([c.count for c in cluster.configs], dtype=float)
        r = np.array([c.request_mean for c in workload.classes], dtype=float)
        return self.delta[:, :, 0] * cap[:, None, 0] * n[:, None] / r[None, :, 0]


def solve_allocation(cluster: Cluster, workload: Workload) -> Allocation:
    """Solve constraints (1)-(4). Cost: one HiGHS solve of a ``(K*R + M*K*(R-1) + M*R)``-row LP."""
    workload.check_against(cluster)
    M, K, R = len(cluster.configs), len(workload.classes), len(cluster.resources)
    cap = np.array([c.capacity for c in cluster.configs], dtype=float)
    n = np.array([c.count for c in cluster.configs], dtype=float)
    r = np.array([c.request_mean for c in workload.classes], dtype=float)
    alpha = np.array([c.proportion for c in workload.classes], dtype=float)
    mu = np.array([c.rate for c in workload.classes], dtype=float)
    T = float(workload.tasks_per_job)
    n_var = M * K * R + 1
    lam = n_var - 1

    def var(j: int, k: int, l: int) -> int:
        return (j * K + k) * R + l

    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    b_ub: list[float] = []
    row = 0
    for k in range(K):  # (1), written as  lambda alpha T r - sum delta c n mu <= 0
        for l in range(R):
            for j in range(M):
                rows.append(row), cols.append(var(j, k, l)), vals.append(-cap[j, l] * n[j] * mu[k])
            rows.append(row), cols.append(lam), vals.append(alpha[k] * T * r[k, l])
            b_ub.append(0.0)
            row += 1
    for j in range(M):  # (3)
        for l in range(R):
            for k in range(K):
                rows.append(row), cols.append(var(j, k, l)), vals.append(1.0)
            b_ub.append(1.0)
            row += 1
    a_ub = coo_matrix((vals, (rows, cols)), shape=(row, n_var)).tocsr()

    rows, cols, vals = [], [], []
    row = 0
    for j in range(M):  # (2)
        for k in range(K):
            for l in range(1, R):
                rows += [row, row]
                cols += [var(j, k, l), var(j, k, 0)]
                vals += [cap[j, l] / r[k, l], -cap[j, 0] / r[k, 0]]
                row += 1
    a_eq = coo_matrix((vals, (rows, cols)), shape=(row, n_var)).tocsr() if row else None
    b_eq = np.zeros(row) if row else None

    c = np.zeros(n_var)
    c[lam] = -1.0
    res = linprog(c, A_ub=a_ub, b_ub=np.array(b_ub), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"allocation LP failed: {res.message}")
    delta = np.maximum(res.x[:lam].reshape(M, K, R), 0.0)
    classes_of = tuple(tuple(k for k in range(K) if delta[j, k, 0] > DELTA_TOL) for j in range(M))
    return Allocation(lam=float(res.x[lam]), delta=delta, classes_of=classes_of)
