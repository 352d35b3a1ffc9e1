"""Ordering algorithms on the paper's worked example (Figure 2 table) and against literal O(K^2) references."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrsim.errors import InputError
from mrsim.studies.geo.policies import (
            Policy,
            Snapshot,
            fcfs,
            global_srpt,
            independent_srpt,
            local_orders,
            reorder,
            split,
            swag,
        )

# Remaining tasks of jobs A, B, C (arrival order) in datacenters 1, 2, 3: the paper's example.
EXAMPLE = [[1, 10, 1], [3, 8, 0], [7, 0, 6]]
NAMES = "ABC"


def names(order: list[int]) -> str:
    return "".join(NAMES[k] for k in order)


def local_names(local: list) -> list[str]:
    return ["".join(NAMES[e[0]] for e in col) for col in local]


@pytest.fixture
def snap() -> Snapshot:
    return Snapshot.from_sizes(EXAMPLE)


def test_fcfs_is_arrival_order(snap: Snapshot) -> None:
    assert names(fcfs(snap)) == "ABC"
    assert local_names(local_orders(Policy.FCFS, snap)) == ["ABC", "AB", "AC"]


def test_global_srpt_orders_by_total_remaining(snap: Snapshot) -> None:
    assert snap.totals == [12, 11, 13]
    assert names(global_srpt(snap)) == "BAC"
    assert local_names(local_orders(Policy.GSRPT, snap)) == ["BAC", "BA", "AC"]


def test_independent_srpt_orders_each_datacenter_by_its_sub_jobs(snap: Snapshot) -> None:
    assert local_names(independent_srpt(snap)) == ["ABC", "BA", "AC"]
    assert local_names(local_orders(Policy.ISRPT, snap)) == ["ABC", "BA", "AC"]


def test_reordering_returns_b_c_a_on_either_srpt(snap: Snapshot) -> None:
    # queues (11, 18, 7): DC2 is longest, A has its largest sub-job there -> A to the back; then
    # queues (10, 8, 6): DC1, C's 7 tasks -> C; then B.  N = A, C, B; reversed: B, C, A.
    assert names(reorder(snap, split(snap, global_srpt(snap)))) == "BCA"
    assert names(reorder(snap, independent_srpt(snap))) == "BCA"
    for p in (Policy.REORDER_GSRPT, Policy.REORDER_ISRPT):
        assert local_names(local_orders(p, snap)) == ["BCA", "BA", "CA"]


def test_swag_returns_c_b_a(snap: Snapshot) -> None:
    # Estimated finishes 10 (A), 8 (B), 7 (C): C first; then queues (7, 0, 6) give A max(8, 10, 7) = 10 and
    # B max(10, 8) = 10, a tie that B wins with 11 remaining tasks against A's 12.
    assert names(swag(snap)) == "CBA"
    assert local_names(local_orders(Policy.SWAG, snap)) == ["CBA", "BA", "CA"]


def test_swag_tie_goes_to_the_smaller_remaining_size() -> None:
    # Same as the example but B has 2 more tasks in a fourth datacenter: its estimates are unchanged (8, then
    # 10) but its total (13) now exceeds A's (12), so A wins the tie.
    s = Snapshot.from_sizes([[1, 10, 1, 0], [3, 8, 0, 2], [7, 0, 6, 0]])
    assert names(swag(s)) == "CAB"


def test_swag_full_tie_goes_to_arrival() -> None:
    s = Snapshot.from_sizes([[2, 0], [0, 2], [2, 0]])
    assert swag(s) == [0, 1, 2]


def test_reordering_tie_moves_the_job_the_base_ranks_later() -> None:
    # Both jobs have one task in the only datacenter: the base's last job is moved back first, so the base
    # order survives; with the base reversed, the result is reversed too.
    s = Snapshot.from_sizes([[1], [1]])
    assert reorder(s, split(s, [0, 1])) == [0, 1]
    assert reorder(s, split(s, [1, 0])) == [1, 0]


def test_slot_counts_normalise_queues() -> None:
    # DC0 has 3 queued tasks on 3 slots (one wave), DC1 2 tasks on 1 slot (two waves): job 0 (in DC0 only)
    # finishes first by SWAG's estimate even though it has more tasks.
    s = Snapshot.from_sizes([[3, 0], [0, 2]], slots=(3, 1))
    assert swag(s) == [0, 1]
    assert global_srpt(s) == [1, 0]


def test_policy_parse() -> None:
    assert Policy.parse(" SWAG ") is Policy.SWAG
    assert Policy.parse("reorder-isrpt") is Policy.REORDER_ISRPT
    with pytest.raises(InputError, match="unknown policy 'srpt'"):
        Policy.parse("srpt")


# ---------------------------------------------------------------------------------------------------------
# Literal references: the paper's pseudo-code, O(K^2 D), with the same normalisation and tie rules.


def naive_swag(sizes: list[list[int]], slots: list[int]) -> list[int]:
    n_dc = len(slots)
    q = [0] * n_dc
    left = list(range(len(sizes)))
    out = []
    while left:
        def key(k: int) -> tuple:
            m = max((q[d] + sizes[k][d]) / slots[d] for d in range(n_dc) if sizes[k][d] > 0)
            return (m, sum(sizes[k]), k)

        best = min(left, key=key)
        out.append(best)
        left.remove(best)
        for d in range(n_dc):
            q[d] += sizes[best][d]
    return out


def naive_reorder(sizes: list[list[int]], slots: list[int], base_rank: list[list[int]]) -> list[int]:
    n_dc = len(slots)
    q = [sum(row[d] for row in sizes) for d in range(n_dc)]
    left = set(range(len(sizes)))
    back = []
    while left:
        d = max(range(n_dc), key=lambda d: (q[d] / slots[d], -d))
        job = max(left, key=lambda k: (sizes[k][d], base_rank[d][k]))
        back.append(job)
        left.remove(job)
        for dd in range(n_dc):
            q[dd] -= sizes[job][dd]
    return back[::-1]


sizes_strategy = st.integers(1, 4).flatmap(
    lambda n_dc: st.tuples(
        st.lists(st.lists(st.integers(0, 6), min_size=n_dc, max_size=n_dc).filter(any), min_size=1, max_size=9),
        st.lists(st.integers(1, 3), min_size=n_dc, max_size=n_dc),
    )
)


@settings(max_examples=120, deadline=None)  # cases of <= 9 jobs on <= 4 datacenters: 120 cover them well
@given(sizes_strategy)
def test_swag_matches_literal_algorithm(case: tuple[list[list[int]], list[int]]) -> None:
    sizes, slots = case
    assert swag(Snapshot.from_sizes(sizes, slots)) == naive_swag(sizes, slots)


@settings(max_examples=120, deadline=None)  # cases of <= 9 jobs on <= 4 datacenters: 120 cover them well
@given(sizes_strategy, st.booleans())
def test_reordering_matches_literal_algorithm(case: tuple[list[list[int]], list[int]], independent: bool) -> None:
    sizes, slots = case
    s = Snapshot.from_sizes(sizes, slots)
    base = independent_srpt(s) if independent else split(s, global_srpt(s))
    rank = [[0] * len(sizes) for _ in slots]
    for d, col in enumerate(base):
        for r, e in enumerate(col):
            rank[d][e[0]] = r
    got = reorder(s, base)
    assert sorted(got) == list(range(len(sizes)))
    assert got == naive_reorder(sizes, slots, rank)


@settings(max_examples=100, deadline=None)
@given(sizes_strategy)
def test_every_policy_lists_each_queued_sub_job_once(case: tuple[list[list[int]], list[int]]) -> None:
    sizes, slots = case
    s = Snapshot.from_sizes(sizes, slots)
    want = [sorted(e[2] for e in col) for col in s.by_dc]
    for p in Policy:
        assert [sorted(e[2] for e in col) for col in local_orders(p, s)] == want
