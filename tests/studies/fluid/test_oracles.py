"""Hand-computed timelines for every fluid discipline (derivations in the comments)."""

from __future__ import annotations

import pytest

from mrsim.studies.fluid import FluidPolicy, FluidWorkload, simulate
from mrsim.studies.fluid.naive import naive_simulate

# Three jobs: A (t=0, 3 s), B (t=1, 1 s), C (t=2, 2 s).
ABC = FluidWorkload.from_sizes([0.0, 1.0, 2.0], [3.0, 1.0, 2.0], ["A", "B", "C"])

EXACT = {
    # FIFO: A 0-3, B 3-4, C 4-6.
    FluidPolicy.FIFO: ([0.0, 3.0, 4.0], [3.0, 4.0, 6.0]),
    # PS: A alone to t=1 (2 left); A,B share to t=2 (1.5, 0.5 left); A,B,C share, B ends at 2 + 0.5*3 = 3.5
    # (A 1, C 1.5 left); A,C share, A ends at 3.5 + 2 = 5.5; C alone, 0.5 left, ends at 6.
    FluidPolicy.PS: ([0.0, 1.0, 2.0], [5.5, 3.5, 6.0]),
    # SRPT: B (1) preempts A (2 left) at t=1 and ends at 2; at t=2 C (2) ties A (2 left): no preemption on a tie,
    # A ends at 4, C at 6.
    FluidPolicy.SRPT: ([0.0, 1.0, 4.0], [4.0, 2.0, 6.0]),
    # FSP: virtual tags F_A = 3, F_B = V(1) + 1 = 2, F_C = V(2) + 2 = 1.5 + 2 = 3.5. So B at 1-2, A at 2-4, C 4-6.
    FluidPolicy.FSP_FIFO: ([0.0, 1.0, 4.0], [4.0, 2.0, 6.0]),
    FluidPolicy.FSP_PS: ([0.0, 1.0, 4.0], [4.0, 2.0, 6.0]),
    # LAS: A to level 1 at t=1; B alone to level 1 and done at t=2; A resumes at level 1, preempted at t=2 by C;
    # C alone to level 1 at t=3; A and C share from level 1: C done at level 2 (t=5), A alone to 3 (t=6).
    FluidPolicy.LAS: ([0.0, 1.0, 2.0], [6.0, 2.0, 5.0]),
}


@pytest.mark.parametrize("policy", list(FluidPolicy))
def test_three_jobs_exact_sizes(policy: FluidPolicy) -> None:
    start, finish = EXACT[policy]
    out = simulate(ABC, policy, check=True)
    assert out.start_s == pytest.approx(start, abs=1e-12)
    assert out.finish_s == pytest.approx(finish, abs=1e-12)


# Late jobs. A (0, 6 s, estimate 1), B (0, 1 s, estimate 2), C (0, 1 s, estimate 3).
# Virtual PS on estimates: all three at rate 1/3, A virtually done at V=1, t=3; B, C at 1/2, B done at V=2, t=5;
# C alone, done at V=3, t=6. Real: A (smallest tag) runs from 0; at t=3 it is late with 3 s left.
LATE = FluidWorkload.from_sizes([0.0, 0.0, 0.0], [6.0, 1.0, 1.0])
LATE_EST = [1.0, 2.0, 3.0]


def test_fsp_fifo_serves_late_jobs_in_lateness_order() -> None:
    # A keeps the server to t=6; B (late since t=5) then C (late since t=6) run 6-7 and 7-8.
    out = simulate(LATE, FluidPolicy.FSP_FIFO, LATE_EST, check=True)
    assert out.finish_s == pytest.approx([6.0, 7.0, 8.0], abs=1e-12)
    assert out.start_s == pytest.approx([0.0, 6.0, 7.0], abs=1e-12)


def test_fsp_ps_shares_between_late_jobs() -> None:
    # A alone and late 3-5 (1 s left); B late at 5: A, B share 5-6 (0.5 s left each); C late at 6: three-way share,
    # A and B done at 6 + 0.5*3 = 7.5, C has 0.5 s left and ends at 8.
    out = simulate(LATE, FluidPolicy.FSP_PS, LATE_EST, check=True)
    assert out.finish_s == pytest.approx([7.5, 7.5, 8.0], abs=1e-12)
    assert out.start_s == pytest.approx([0.0, 5.0, 6.0], abs=1e-12)


def test_srpt_keeps_an_underestimated_job() -> None:
    # A's key goes negative after 1 s and nobody can preempt it: A 0-6, B 6-7, C 7-8.
    out = simulate(LATE, FluidPolicy.SRPT, LATE_EST)
    assert out.finish_s == pytest.approx([6.0, 7.0, 8.0], abs=1e-12)


@pytest.mark.parametrize("policy, finish, start", [
    # A (0, 3 s, est 1) is virtually done at t=1 (late, 2 s left) and the virtual system empties (V restarts).
    # B (1.5, 1 s, est 1) is virtually done at 2.5, late too.
    (FluidPolicy.FSP_FIFO, [3.0, 4.0], [0.0, 3.0]),  # A to 3, then B 3-4
    (FluidPolicy.FSP_PS, [3.5, 4.0], [0.0, 2.5]),  # A alone to 2.5 (0.5 left), shares with B: A at 3.5, B at 4
])
def test_late_job_across_an_empty_virtual_system(policy: FluidPolicy, finish: list[float],
                                                   start: list[float]) -> None:
    w = FluidWorkload.from_sizes([0.0, 1.5], [3.0, 1.0])
    out = simulate(w, policy, [1.0, 1.0], check=True)
    assert out.finish_s == pytest.approx(finish, abs=1e-12)
    assert out.start_s == pytest.approx(start, abs=1e-12)


def test_completion_precedes_arrival_at_the_same_instant() -> None:
    # LAS: A (0, 1 s) ends exactly when B (1, 1 s) arrives. Completion first, so A leaves at 1; were the arrival
    # first, B (level 0) would preempt A with 0 s left and A would leave at 2.
    w = FluidWorkload.from_sizes([0.0, 1.0], [1.0, 1.0])
    for policy in FluidPolicy:
        assert simulate(w, policy, check=True).finish_s == pytest.approx([1.0, 2.0]), policy


def test_virtual_tie_goes_to_the_earlier_job() -> None:
    # FSP: A (0, 2 s), B (1, 1 s): tags F_A = 2 and F_B = V(1) + 1 = 2 tie; A, the earlier, runs first.
    w = FluidWorkload.from_sizes([0.0, 1.0], [2.0, 1.0])
    for policy in (FluidPolicy.FSP_FIFO, FluidPolicy.FSP_PS):
        assert simulate(w, policy, check=True).finish_s == pytest.approx([2.0, 3.0])


def test_zero_size_jobs_finish_on_arrival() -> None:
    w = FluidWorkload.from_sizes([0.0, 0.5, 0.5], [1.0, 0.0, 0.0])
    for policy in FluidPolicy:
        out = simulate(w, policy, check=True)
        if policy is FluidPolicy.FIFO:
            assert out.finish_s == pytest.approx([1.0, 1.0, 1.0])
        else:
            assert out.finish_s == pytest.approx([1.0, 0.5, 0.5]), policy


@pytest.mark.parametrize("policy", list(FluidPolicy))
def test_naive_reference_agrees_on_the_oracles(policy: FluidPolicy) -> None:
    ref = naive_simulate(ABC.submit_s.tolist(), ABC.size_s.tolist(), ABC.size_s.tolist(), policy)
    assert ref.finish_s == pytest.approx(EXACT[policy][1], abs=1e-12)
    ref = naive_simulate(LATE.submit_s.tolist(), LATE.size_s.tolist(), LATE_EST, policy)
    assert ref.finish_s == pytest.approx(simulate(LATE, policy, LATE_EST).finish_s, abs=1e-12)
