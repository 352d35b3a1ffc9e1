"""Algorithm 1: non-dominated bins equal the brute-force set of maximal feasible count vectors."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mrsim.studies.lotes.bins import nondominated_bins


def brute_force(capacity, requests):
    K = len(requests)
    req = np.array(requests, dtype=float)
    cap = np.array(capacity, dtype=float)
    limits = [int(min(cap[l] // req[k][l] for l in range(len(cap)) if req[k][l] > 0)) for k in range(K)]
    feasible = [
        c for c in itertools.product(*(range(L + 1) for L in limits)) if (np.array(c) @ req <= cap + 1e-9).all()
    ]
    fs = set(feasible)

    def dominated(c):
        return any(tuple(c[i] + (i == k) for i in range(K)) in fs for k in range(K))

    return sorted((c for c in feasible if not dominated(c)), reverse=True)


def test_single_class_three_core_tasks():
    assert nondominated_bins((8.0,), [(3.0,)]) == [(2,)]


def test_two_resources_by_hand():
    # 4 cores, 4 GB; A = (2 cores, 1 GB), B = (1 core, 2 GB): {2A}, {1A, 1B}, {2B}; {1A} alone is dominated
    assert nondominated_bins((4.0, 4.0), [(2.0, 1.0), (1.0, 2.0)]) == [(2, 0), (1, 1), (0, 2)]


def test_exact_fill_with_decimal_sizes():
    # 0.1 + 0.2 must fill 0.3 despite binary rounding
    assert nondominated_bins((0.3,), [(0.1,), (0.2,)]) == [(3, 0), (1, 1)]


def test_no_classes_gives_the_empty_bin():
    assert nondominated_bins((4.0, 4.0), []) == [()]


@settings(max_examples=60, deadline=None)
@given(
    cap=st.tuples(st.integers(2, 12), st.integers(2, 12)),
    reqs=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=3),
)
def test_matches_brute_force(cap, reqs):
    reqs = [r for r in reqs if r[0] <= cap[0] and r[1] <= cap[1]] or [(1, 1)]
    capacity = tuple(c / 2 for c in cap)
    requests = [tuple(x / 4 for x in r) for r in reqs]
    assert sorted(nondominated_bins(capacity, requests), reverse=True) == brute_force(capacity, requests)
