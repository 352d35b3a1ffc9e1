"""The fit tree and the queue index against brute force, over random operation sequences."""

from __future__ import annotations

import random

import pytest

from mrsim.studies.lotes.fittree import FitTree
from mrsim.studies.lotes.qindex import QueueIndex


@pytest.mark.parametrize("n_res", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 7, 64, 100])
def test_first_fit_matches_a_linear_scan(n, n_res):
    rng = random.Random(n * 10 + n_res)
    tree = FitTree(n, n_res)
    leaves = [[-1] * n_res for _ in range(n)]
    for step in range(600):
        pos = rng.randrange(n)
        # -1 rows model machines with a queue; small values make multi-resource near-misses common
        vals = [-1] * n_res if rng.random() < 0.2 else [rng.randrange(0, 6) for _ in range(n_res)]
        tree.set(pos, vals)
        leaves[pos] = vals
        req = [rng.randrange(1, 6) for _ in range(n_res)]
        lo = rng.randrange(n)
        hi = rng.randrange(lo, n + 1)
        want = next((i for i in range(lo, hi) if all(leaves[i][l] >= req[l] for l in range(n_res))), -1)
        assert tree.first_fit(req, lo, hi) == want
        if step % 100 == 0:
            tree._check()
            assert [tree.get(i) for i in range(n)] == leaves


def test_queue_index_tracks_the_shortest_queues():
    rng = random.Random(5)
    qi = QueueIndex(30)
    lengths = [0] * 30
    for _ in range(3000):
        pos = rng.randrange(30)
        new = max(0, lengths[pos] + rng.choice([-3, -1, 1, 1, 2]))
        qi.move(pos, new)
        lengths[pos] = new
        m = min(lengths)
        assert qi.minq == m
        assert sorted(qi.shortest()) == [i for i, x in enumerate(lengths) if x == m]
    qi._check()
