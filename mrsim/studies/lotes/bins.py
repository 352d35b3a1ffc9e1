"""Stage 2a of LoTES: all non-dominated bins of one machine configuration (Tran & Beck Algorithm 1).

A *bin* is a multiset of tasks, given as a count per class, whose summed expected requests fit on one machine.
A bin is *dominated* when another feasible bin strictly contains it. Because requests are non-negative, a bin is
non-dominated exactly when it is *maximal*: no single task of any allowed class can be added. So the
non-dominated bins are the maximal feasible count vectors, which this module enumerates by depth-first search
over the classes: counts for each class from most to fewest, the last class always filled to its maximum, and
a leaf kept only if it is maximal. This is our own formulation of Algorithm 1's exhaustive backtracking, not a
line-by-line transcription; the output set is the same by the argument above (checked against brute force in
the tests).

Classes are searched in decreasing order of their largest capacity share, as section 4.2 suggests, which keeps
the search tree small; bins are returned in a deterministic order. Cost: proportional to the number of feasible
count vectors over all classes but the last (worst case ``prod_k L_k``); the LP restriction to ``K^j`` keeps it to
thousands for Tables 1 and 3.
"""

from __future__ import annotations

from typing import Sequence

from mrsim.errors import InputError

#: Relative slack so that e.g. 0.1 + 0.2 requests still fill a 0.3 capacity exactly.
_EPS = 1e-9


def nondominated_bins(
    capacity: Sequence[float], requests: Sequence[Sequence[float]], *, max_bins: int = 200_000
) -> list[tuple[int, ...]]:
    """Every maximal count vector ``N`` with ``sum_k N_k requests[k] <= capacity`` componentwise.

    ``requests[k]`` is class ``k``'s expected request vector. Returns count tuples indexed like ``requests``.
    An empty class list gives ``[()]``; classes that never fit get count 0. Raises :class:`InputError` when more
    than ``max_bins`` bins exist (the machine-assignment LP would be impractically large).
    """
    R = len(capacity)
    K = len(requests)
    if K == 0:
        return [()]
    cap = [float(c) * (1 + _EPS) for c in capacity]
    req = [[float(x) for x in r] for r in requests]
    order = sorted(range(K), key=lambda k: (-max(req[k][l] / capacity[l] for l in range(R)), k))
    counts = [0] * K
    out: list[tuple[int, ...]] = []

    def max_fit(k: int, free: list[float]) -> int:
        best = None
        for l in range(R):
            if req[k][l] > 0:
                m = int(free[l] // req[k][l])
                # floor division can fall one short when free is an exact multiple up to rounding
                while (m + 1) * req[k][l] <= free[l]:
                    m += 1
                best = m if best is None else min(best, m)
        return 0 if best is None else max(best, 0)

    def fits(k: int, free: list[float]) -> bool:
        return all(req[k][l] <= free[l] for l in range(R))

    def dfs(pos: int, free: list[float]) -> None:
        k = order[pos]
        top = max_fit(k, free)
        if pos == K - 1:
            counts[k] = top
            rest = [free[l] - top * req[k][l] for l in range(R)]
            if not any(fits(c, rest) for c in range(K)):
                if len(out) >= max_bins:
                    raise InputError(f"more than {max_bins} non-dominated bins for capacity {list(capacity)}")
                out.append(tuple(counts))
            counts[k] = 0
            return
        for m in range(top, -1, -1):
            counts[k] = m
            dfs(pos + 1, [free[l] - m * req[k][l] for l in range(R)])
        counts[k] = 0

    dfs(0, cap)
    out.sort(reverse=True)
    return out
