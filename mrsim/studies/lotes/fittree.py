"""Index of machines by free capacity: a max segment tree per resource, for first-fit queries.

Leaf ``i`` holds machine ``i``'s free amount of every resource, or ``-1`` when the machine cannot start a new task
at once (its FIFO queue is not empty). Internal nodes hold the per-resource maximum of their children. A machine
can start request ``r`` now iff its leaf is ``>= r`` in every resource; a subtree can only contain such a machine
if its node is ``>= r`` in every resource, so a left-first descent that skips failing nodes finds the *leftmost*
fitting machine of a position range.

Cost: :meth:`set` is ``O(R log n)`` and usually less, because propagation stops at the first ancestor whose
maxima do not change. :meth:`first_fit` is ``O(R log n)`` when the per-resource maxima of a subtree are attained by
one machine; with several resources a subtree can pass the test without containing a machine that fits (one
machine has the cores, another the memory), so the worst case is ``O(R n)``. The tree counts visited nodes
(:attr:`visits`) so runs report how far from ``log n`` the search really is. Amounts are integers (see
:mod:`mrsim.studies.lotes.workload`), so comparisons are exact. The two-resource case (cores, memory) is unrolled because
these two methods are the simulator's hot path.
"""

from __future__ import annotations

from typing import Sequence


class FitTree:
    """Leftmost-fit index over ``n`` positions and ``n_resources`` resources."""

    __slots__ = ("n", "size", "mx", "visits", "_nres", "_roots_cache")

    def __init__(self, n: int, n_resources: int) -> None:
        size = 1
        while size < max(n, 1):
            size *= 2
        self.n = n
        self.size = size
        self._nres = n_resources
        self.mx: list[list[int]] = [[-1] * (2 * size) for _ in range(n_resources)]
        self.visits = 0
        self._roots_cache: dict[tuple[int, int], list[int]] = {}

    def set(self, pos: int, values: Sequence[int]) -> None:
        """Set position ``pos`` to ``values`` (one per resource; ``-1`` everywhere = cannot start anything)."""
        v = pos + self.size
        if self._nres == 2:
            m0, m1 = self.mx
            m0[v] = values[0]
            m1[v] = values[1]
            v >>= 1
            while v:
                a = 2 * v
                x = m0[a]
                y = m0[a + 1]
                b0 = x if x > y else y
                x = m1[a]
                y = m1[a + 1]
                b1 = x if x > y else y
                if m0[v] == b0 and m1[v] == b1:
                    return
                m0[v] = b0
                m1[v] = b1
                v >>= 1
            return
        mx = self.mx
        for l in range(self._nres):
            mx[l][v] = values[l]
        v >>= 1
        while v:
            a = 2 * v
            changed = False
            for col in mx:
                x = col[a]
                y = col[a + 1]
                best = x if x > y else y
                if col[v] != best:
                    col[v] = best
                    changed = True
            if not changed:
                return
            v >>= 1

    def get(self, pos: int) -> list[int]:
        return [col[pos + self.size] for col in self.mx]

    def _roots(self, lo: int, hi: int) -> list[int]:
        """Canonical nodes covering positions ``[lo, hi)``, left to right (memoised: ranges repeat)."""
        key = (lo, hi)
        roots = self._roots_cache.get(key)
        if roots is None:
            roots = self._roots_cache[key] = self._decompose(lo, hi)
        return roots

    def _decompose(self, lo: int, hi: int) -> list[int]:
        if hi >= self.n:
            hi = self.size  # padding leaves hold -1 and never fit, so the range may run to the end
        if lo <= 0 and hi >= self.size:
            return [1]
        left: list[int] = []
        right: list[int] = []
        a, b = lo + self.size, hi + self.size
        while a < b:
            if a & 1:
                left.append(a)
                a += 1
            if b & 1:
                b -= 1
                right.append(b)
            a >>= 1
            b >>= 1
        right.reverse()
        return left + right

    def first_fit(self, req: Sequence[int], lo: int = 0, hi: int | None = None) -> int:
        """Leftmost position in ``[lo, hi)`` whose values are ``>= req`` in every resource, or ``-1``."""
        if hi is None or hi > self.n:
            hi = self.n
        if lo < 0:
            lo = 0
        if lo >= hi:
            return -1
        size = self.size
        visits = 0
        if self._nres == 2:
            m0, m1 = self.mx
            r0 = req[0]
            r1 = req[1]
            for v in self._roots(lo, hi):
                visits += 1
                if m0[v] < r0 or m1[v] < r1:
                    continue
                # v passes: go left when the left child passes (remembering the right one), else right
                stack: list[int] = []
                while True:
                    if v >= size:
                        self.visits += visits
                        return v - size
                    a = 2 * v
                    visits += 1
                    if m0[a] >= r0 and m1[a] >= r1:
                        stack.append(a + 1)
                        v = a
                        continue
                    visits += 1
                    if m0[a + 1] >= r0 and m1[a + 1] >= r1:
                        v = a + 1
                        continue
                    # neither child fits although v passed (maxima from different machines): backtrack
                    while stack:
                        v = stack.pop()
                        visits += 1
                        if m0[v] >= r0 and m1[v] >= r1:
                            break
                    else:
                        break
            self.visits += visits
            return -1
        mx = self.mx

        def ok(v: int) -> bool:
            for l, col in enumerate(mx):
                if col[v] < req[l]:
                    return False
            return True

        for root in self._roots(lo, hi):
            stack = [root]
            while stack:
                v = stack.pop()
                visits += 1
                if not ok(v):
                    continue
                if v >= size:
                    self.visits += visits
                    return v - size
                stack.append(2 * v + 1)
                stack.append(2 * v)
        self.visits += visits
        return -1

    def _check(self) -> None:
        """Invariant: every internal node is the per-resource max of its children; padding leaves are -1."""
        for col in self.mx:
            for i in range(self.n + self.size, 2 * self.size):
                assert col[i] == -1, "padding leaf changed"
            for v in range(1, self.size):
                assert col[v] == max(col[2 * v], col[2 * v + 1]), f"node {v} is not the max of its children"
