"""Index of machines by queue length, for "shortest queue, ties at random" in O(1).

Bucket ``q`` holds the positions whose FIFO queue has ``q`` waiting tasks, as a list with a back-pointer per
position so that moving a position between buckets is a swap-remove plus an append. ``minq`` tracks the shortest
queue. Cost per :meth:`move`: O(1), plus an upward scan of empty buckets when the last shortest queue grows, which
is O(1) amortised because queues grow by one task per arrival. Memory: one list per distinct queue length.
"""

from __future__ import annotations


class QueueIndex:
    """Queue lengths of ``n`` positions, all starting at 0."""

    __slots__ = ("qlen", "where", "buckets", "minq")

    def __init__(self, n: int) -> None:
        self.qlen = [0] * n
        self.where = list(range(n))
        self.buckets: list[list[int]] = [list(range(n))]
        self.minq = 0

    def move(self, pos: int, new: int) -> None:
        """Set the queue length of ``pos`` to ``new``."""
        old = self.qlen[pos]
        if old == new:
            return
        buckets = self.buckets
        where = self.where
        b = buckets[old]
        i = where[pos]
        last = b.pop()
        if last != pos:  # swap-remove: the former last element takes pos's slot
            b[i] = last
            where[last] = i
        while len(buckets) <= new:
            buckets.append([])
        nb = buckets[new]
        where[pos] = len(nb)
        nb.append(pos)
        self.qlen[pos] = new
        if new < self.minq:
            self.minq = new
        elif old == self.minq and not b:
            m = old + 1
            while not buckets[m]:
                m += 1
            self.minq = m

    def shortest(self) -> list[int]:
        """The positions with the shortest queue (do not modify the returned list)."""
        return self.buckets[self.minq]

    def _check(self) -> None:
        seen = 0
        for q, b in enumerate(self.buckets):
            for i, pos in enumerate(b):
                assert self.qlen[pos] == q and self.where[pos] == i, f"position {pos} misfiled"
            seen += len(b)
        assert seen == len(self.qlen), "positions lost or duplicated"
        if self.qlen:
            assert self.minq == min(self.qlen), "minq is stale"
