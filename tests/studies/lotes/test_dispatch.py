"""Dispatcher decisions on hand-built cluster states (LoTES steps 1-4 and greedy)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mrsim.studies.lotes.allocation import solve_allocation
from mrsim.studies.lotes.assignment import LotesPlan
from mrsim.studies.lotes.policies import GreedyDispatcher, LotesDispatcher
from mrsim.studies.lotes.state import ClusterState
from mrsim.studies.lotes.workload import Uniforms, stream

from .conftest import units

X, Y = 0, 1
SMALL_X = units(1.0, 0.2)


def _plan(cluster, workload, rho=((1.0, 0.0), (0.0, 1.0))) -> LotesPlan:
    # cpu machines 0,1 emulate a bin of 8 X; cpu machines 2,3 a bin of one Y; mem machines 4-7 a bin of 1 X + 5 Y
    return LotesPlan(
        allocation=solve_allocation(cluster, workload),
        bins=(((8, 0), (0, 1)), ((1, 5),)),
        machines_per_bin=((2, 2), (4,)),
        lam_assignment=0.0,
        lam_rounded=0.0,
        rho=rho,
    )


def _setup(two_class_system, rho=((1.0, 0.0), (0.0, 1.0)), seed=7):
    cluster, workload = two_class_system
    state = ClusterState(cluster)
    lotes = LotesDispatcher(state, _plan(cluster, workload, rho), Uniforms(stream(seed, "dispatch")))
    return state, lotes


def _fill(state: ClusterState, m: int) -> None:
    state.start(m, list(state.free[m]))


def test_step2_first_fit_takes_the_lowest_index_machine_that_fits(two_class_system):
    state, lotes = _setup(two_class_system)
    running = [(0, units(9.5, 0.2))]  # machine 0 keeps 0.5 cores: too few for an X task
    state.start(*running[0])
    assert lotes.dispatch(X, SMALL_X) == (1, True)
    running += [(1, units(5.0, 0.2)), (0, units(0.5, 0.1))]
    for m, req in running[1:]:
        state.start(m, req)
    # first fit, not best fit: machine 0 is full; machine 1 has 5 cores left and comes before the idle 2 and 3
    assert lotes.dispatch(X, SMALL_X) == (1, True)
    assert lotes.steps == [2, 0, 0, 0]
    state._check(running)


def test_step3_any_machine_with_room_when_the_group_is_full(two_class_system):
    state, lotes = _setup(two_class_system)
    for m in (0, 1, 2, 3, 4, 5, 7):
        _fill(state, m)
    # X's group (machines 0 and 1) is full; machines 2, 3 serve only Y, and only machine 6 has room at all
    assert lotes.dispatch(X, SMALL_X) == (6, True)
    assert lotes.steps == [0, 1, 0, 0]


def test_step3_is_not_used_while_the_group_has_room(two_class_system):
    state, lotes = _setup(two_class_system)
    _fill(state, 0)
    # machines 2-7 have more room, but machine 1 is in X's group
    assert all(lotes.dispatch(X, SMALL_X) == (1, True) for _ in range(20))


def test_step4_shortest_queue_in_the_group_ties_at_random(two_class_system):
    state, lotes = _setup(two_class_system)
    for m in range(8):
        _fill(state, m)
    state.enqueue(0, (SMALL_X, 1.0, 0.0, 0.0))
    state.enqueue(0, (SMALL_X, 1.0, 0.0, 0.0))
    state.enqueue(1, (SMALL_X, 1.0, 0.0, 0.0))
    assert lotes.dispatch(X, SMALL_X) == (1, False)
    state.enqueue(1, (SMALL_X, 1.0, 0.0, 0.0))  # now 0 and 1 tie at two waiting tasks
    picks = Counter(lotes.dispatch(X, SMALL_X)[0] for _ in range(400))
    assert set(picks) == {0, 1}  # machines 2-7 have empty queues but are not in X's group on its configuration
    assert 140 < picks[0] < 260
    assert lotes.steps[2] == 401


def test_step4_falls_back_when_the_configuration_is_too_small(two_class_system):
    state, lotes = _setup(two_class_system)
    for m in range(8):
        _fill(state, m)
    state.enqueue(5, (SMALL_X, 1.0, 0.0, 0.0))
    # a Y task asking 3 cores goes to configuration mem (rho), whose machines have only 2 cores:
    # it must join the shortest queue among machines that could ever hold it (cpu machines 0-3)
    m, now = lotes.dispatch(Y, units(3.0, 1.0))
    assert not now and m in (0, 1, 2, 3)
    assert lotes.steps == [0, 0, 0, 1]


def test_first_level_follows_rho(two_class_system):
    state, lotes = _setup(two_class_system, rho=((0.25, 0.0), (0.75, 1.0)))
    u = Uniforms(stream(3, "test"))
    counts = Counter(lotes.choose_config(X, u.next()) for _ in range(8000))
    assert counts[0] / 8000 == pytest.approx(0.25, abs=0.02)
    assert lotes.choose_config(Y, 0.0) == 1 and lotes.choose_config(Y, 0.999) == 1


def test_greedy_starts_anywhere_with_room_else_shortest_capable_queue(two_class_system):
    cluster, _ = two_class_system
    state = ClusterState(cluster)
    greedy = GreedyDispatcher(state, Uniforms(stream(1, "dispatch")))
    for m in range(8):
        if m != 5:
            _fill(state, m)
    assert greedy.dispatch(X, SMALL_X) == (5, True)
    _fill(state, 5)
    for m in range(4):
        state.enqueue(m, (SMALL_X, 1.0, 0.0, 0.0))
    state.enqueue(2, (SMALL_X, 1.0, 0.0, 0.0))
    big = units(5.0, 1.0)  # only the cpu machines (10 cores) can ever hold it
    picks = Counter(greedy.dispatch(X, big)[0] for _ in range(300))
    assert set(picks) == {0, 1, 3}  # queue length 1; machine 2 has 2; mem machines are empty but too small
    # a task every machine can hold goes to an empty queue (mem machines 4-7)
    assert {greedy.dispatch(X, SMALL_X)[0] for _ in range(100)} <= {4, 5, 6, 7}


def test_any_fit_rotation_visits_every_machine_with_room(two_class_system):
    cluster, _ = two_class_system
    state = ClusterState(cluster)
    _fill(state, 3)
    seen = {state.any_fit(SMALL_X, u) for u in np.linspace(0, 0.999, 64)}
    assert seen == {0, 1, 2, 4, 5, 6, 7}
