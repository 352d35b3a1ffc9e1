"""The ARIA bounds model against hand-computed numbers (SimMR V-A; ARIA, ICAC 2011)."""

from __future__ import annotations

import math

import pytest

from mrsim.errors import InputError
from mrsim.model.aria import (Bound, CompletionModel, JobProfile, completion_model, estimate_completion,
                              min_slots_for_deadline, phase_bounds)
from mrsim.model.templates import JobTemplate

# maps 10, 20, 30 (avg 20, max 30); reduces 4, 8 (avg 6, max 8); typical shuffle 2, 4 (avg 3, max 4);
# first shuffle 1 (avg 1, max 1).
T = JobTemplate("job_1", 0.0, [10.0, 20.0, 30.0], [4.0, 8.0], first_shuffle_durations=[1.0],
                typical_shuffle_durations=[2.0, 4.0])


def test_phase_bounds():
    assert phase_bounds(3, 20.0, 30.0, 2) == (30.0, 50.0)  # 3*20/2 and 2*20/2 + 30
    assert phase_bounds(4, 5.0, 8.0, 1) == (20.0, 23.0)
    assert phase_bounds(0, 5.0, 8.0, 3) == (0.0, 0.0)
    with pytest.raises(ValueError):
        phase_bounds(2, 1.0, 1.0, 0)


def test_profile_and_coefficients():
    p = JobProfile.from_template(T)
    assert (p.map.avg, p.map.max, p.reduce.avg, p.reduce.max) == (20.0, 30.0, 6.0, 8.0)
    assert (p.first_shuffle.avg, p.typical_shuffle.avg, p.typical_shuffle.max) == (1.0, 3.0, 4.0)
    low = completion_model(p, Bound.LOWER)
    # A = 3*20; B = 2*(3 + 6); C = Sh1_avg - Sh_avg = 1 - 3
    assert (low.a, low.b, low.c) == (60.0, 18.0, -2.0)
    up = completion_model(p, Bound.UPPER)
    # A = 2*20; B = 1*(3 + 6); C = M_max + Sh1_max - Sh_avg + Sh_max + R_max = 30 + 1 - 3 + 4 + 8
    assert (up.a, up.b, up.c) == (40.0, 9.0, 40.0)
    avg = completion_model(p, Bound.AVERAGE)
    assert (avg.a, avg.b, avg.c) == (50.0, 13.5, 19.0)


def test_completion_times_by_phase():
    # S_M = 2, S_R = 1. Lower: 30 (maps) + 1 (Sh1) + (2/1 - 1)*3 (Sh) + 2*6/1 (R) = 46.
    assert estimate_completion(T, 2, 1, Bound.LOWER) == pytest.approx(46.0)
    # Upper: (2*20/2 + 30) + 1 + ((1/1 - 1)*3 + 4) + (1*6/1 + 8) = 50 + 1 + 4 + 14 = 69.
    assert estimate_completion(T, 2, 1, Bound.UPPER) == pytest.approx(69.0)
    assert estimate_completion(T, 2, 1) == pytest.approx(57.5)  # the average
    # More slots than tasks are clamped: 5 map slots behave like 3.
    assert estimate_completion(T, 5, 9) == estimate_completion(T, 3, 2)


def test_missing_shuffles_and_map_only_jobs():
    only_typical = JobTemplate("j", 0.0, [4.0], [6.0], typical_shuffle_durations=[2.0])
    p = JobProfile.from_template(only_typical)
    assert p.first_shuffle == p.typical_shuffle  # the engine's fallback
    map_only = completion_model(JobProfile.from_template(JobTemplate("m", 0.0, [2.0, 4.0], [])), Bound.LOWER)
    assert (map_only.a, map_only.b, map_only.c) == (6.0, 0.0, 0.0)
    assert map_only.time(2, 0) == 3.0


def test_inverse_lagrange_point_hand_computed():
    avg = completion_model(JobProfile.from_template(T), Bound.AVERAGE)  # 50/S_M + 13.5/S_R + 19
    alloc = min_slots_for_deadline(avg, 60.0, 100, 100)
    root = math.sqrt(50.0) + math.sqrt(13.5)
    assert alloc.continuous == pytest.approx((math.sqrt(50.0) * root / 41.0, math.sqrt(13.5) * root / 41.0))
    assert alloc.continuous == pytest.approx((1.85325, 0.96290), abs=1e-4)
    assert (alloc.map_slots, alloc.reduce_slots, alloc.feasible) == (2, 1, True)
    assert alloc.estimate_s == pytest.approx(57.5)
    # The continuous point is on the hyperbola, and it minimises S_M + S_R along it.
    m, r = alloc.continuous
    assert avg.time(m, r) == pytest.approx(60.0)
    for dm in (-0.1, 0.1):
        m2 = m + dm
        r2 = 13.5 / (41.0 - 50.0 / m2)
        assert m2 + r2 > m + r


def test_inverse_box_and_infeasible():
    model = CompletionModel(a=100.0, b=100.0, c=0.0, n_maps=10, n_reduces=10)
    # Unconstrained: S_M = S_R = 10*(10+10)/20 = 10; with 4 map slots the map side is pinned at 4
    # (100/4 = 25 s) and the reduce side takes the rest: 100/(40 - 25) = 6.67 -> 7.
    alloc = min_slots_for_deadline(model, 40.0, 4, 100)
    assert (alloc.map_slots, alloc.reduce_slots, alloc.feasible) == (4, 7, True)
    # A deadline below what the whole cluster achieves: every slot the job can use, flagged infeasible.
    alloc = min_slots_for_deadline(model, 15.0, 4, 6)
    assert (alloc.map_slots, alloc.reduce_slots, alloc.feasible) == (4, 6, False)
    alloc = min_slots_for_deadline(model, -1.0, 64, 64)
    assert (alloc.map_slots, alloc.reduce_slots, alloc.feasible) == (10, 10, False)  # capped at the tasks
    # A loose deadline still needs one slot per phase with tasks.
    alloc = min_slots_for_deadline(model, 1e9, 64, 64)
    assert (alloc.map_slots, alloc.reduce_slots, alloc.feasible) == (1, 1, True)


def test_bound_parse():
    assert Bound.parse("Upper") is Bound.UPPER
    with pytest.raises(InputError):
        Bound.parse("median")
