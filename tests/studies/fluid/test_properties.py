"""Properties every fluid discipline must have, on generated workloads (hypothesis) and seeded random ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrsim.studies.fluid import FluidPolicy, FluidWorkload, simulate
from mrsim.studies.fluid.naive import naive_simulate

TOL = 1e-9

jobs_st = st.lists(
    st.tuples(st.floats(0.0, 5.0, allow_nan=False), st.floats(0.0, 10.0, allow_nan=False)),
    min_size=1, max_size=25,
)
errors_st = st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=25, max_size=25)


def _workload(jobs: list[tuple[float, float]]) -> FluidWorkload:
    gaps, sizes = zip(*jobs)
    return FluidWorkload.from_sizes(np.cumsum(gaps), sizes)


def _busy_periods(w: FluidWorkload, fifo_finish: list[float]) -> list[tuple[list[int], float]]:
    """FIFO's busy periods as (job indices, end time)."""
    periods: list[tuple[list[int], float]] = []
    end = -1.0
    for i, a in enumerate(w.submit_s.tolist()):
        if not periods or a > end:
            periods.append(([], 0.0))
        periods[-1][0].append(i)
        end = fifo_finish[i]
        periods[-1] = (periods[-1][0], end)
    return periods


@settings(max_examples=150, deadline=None)
@given(jobs_st, errors_st)
def test_work_conservation_matches_fifo_busy_periods(jobs: list[tuple[float, float]], logerr: list[float]) -> None:
    w = _workload(jobs)
    est = w.size_s * np.exp(np.asarray(logerr[: len(w)]))
    fifo = simulate(w, FluidPolicy.FIFO)
    periods = _busy_periods(w, fifo.finish_s)
    for policy in FluidPolicy:
        out = simulate(w, policy, est, check=True)
        assert max(out.finish_s) == pytest.approx(max(fifo.finish_s), rel=TOL, abs=TOL), policy
        for members, end in periods:
            finishes = [out.finish_s[i] for i in members]
            # Every job of a busy period leaves inside it, and the last leaves when FIFO's last does.
            assert max(finishes) == pytest.approx(end, rel=TOL, abs=TOL), policy
            assert all(out.start_s[i] >= w.submit_s[i] - TOL for i in members), policy
            assert all(out.finish_s[i] >= out.start_s[i] - TOL for i in members), policy


@settings(max_examples=150, deadline=None)
@given(jobs_st)
def test_exact_fsp_never_finishes_a_job_later_than_ps(jobs: list[tuple[float, float]]) -> None:
    w = _workload(jobs)
    ps = simulate(w, FluidPolicy.PS).finish_s
    for policy in (FluidPolicy.FSP_FIFO, FluidPolicy.FSP_PS):
        fsp = simulate(w, policy, check=True).finish_s
        for i, (f, p) in enumerate(zip(fsp, ps)):
            assert f <= p + TOL * (1.0 + p), (policy, i, f, p)


@settings(max_examples=150, deadline=None)
@given(jobs_st)
def test_exact_srpt_has_the_least_total_sojourn(jobs: list[tuple[float, float]]) -> None:
    w = _workload(jobs)
    total = {p: sum(simulate(w, p).finish_s) for p in FluidPolicy}
    best = total[FluidPolicy.SRPT]
    for policy, value in total.items():
        assert best <= value + TOL * (1.0 + abs(value)), policy


@pytest.mark.parametrize("seed", range(40))
def test_fast_disciplines_agree_with_the_naive_reference(seed: int) -> None:
    # Continuous random draws: exact ties have probability zero, so both implementations must take the same
    # decisions (with ties, floating point can legitimately break them differently in the two).
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    w = FluidWorkload.from_sizes(np.cumsum(rng.exponential(1.0, n)), rng.pareto(1.5, n) * 0.8)
    est = w.size_s * rng.lognormal(0.0, 1.0, n)
    for policy in FluidPolicy:
        fast = simulate(w, policy, est, check=True)
        ref = naive_simulate(w.submit_s.tolist(), w.size_s.tolist(), est.tolist(), policy)
        assert fast.finish_s == pytest.approx(ref.finish_s, rel=1e-9, abs=1e-9), policy
        assert fast.start_s == pytest.approx(ref.start_s, rel=1e-9, abs=1e-9), policy


def test_exact_estimates_give_identical_fsp_variants() -> None:
    # Without errors no job is ever late (beyond rounding), so the two late treatments coincide.
    rng = np.random.default_rng(7)
    w = FluidWorkload.from_sizes(np.cumsum(rng.exponential(1.0, 300)), rng.pareto(1.2, 300))
    a = simulate(w, FluidPolicy.FSP_FIFO).finish_s
    b = simulate(w, FluidPolicy.FSP_PS).finish_s
    assert a == pytest.approx(b, rel=1e-9, abs=1e-9)
