"""Cases of Hadoop's ``TestProportionalCapacityPreemptionPolicy`` (``monitor.capacity``), re-expressed on
:mod:`mrsim.tracker.yarn.capacity_preemption`.

Each Hadoop case describes a queue tree by a matrix, one column per queue in depth-first order (root first): its
absolute guarantee, maximum, usage and pending demand, its number of applications and of child queues. Each leaf
runs one application whose usage is containers of 1 unit (the matrices' "req granularity"), and the case counts the
containers one ``editSchedule`` marks for preemption per application. The test's set-up sets
``total_preemption_per_round`` and ``natural_termination_factor`` to 1 ("report ideal preempt") and keeps
``max_ignored_over_capacity`` at its default, 0.1.
"""

from __future__ import annotations

from mrsim.tracker.yarn.capacity_preemption import Candidate, Marks, PolicyKnobs, TempQueue, compute_ideal, select
from tests.tracker.yarn.conformance.hadoop import hadoop

V = "3.3.6"
CLS = "TestProportionalCapacityPreemptionPolicy"
IDEAL = PolicyKnobs(total_preemption_per_round=1.0, max_ignored_over_capacity=0.1, natural_termination_factor=1.0)


def _tree(abs_: list[int], max_: list[int], used: list[int], pending: list[int], subqueues: list[int],
          disabled: set[int] = frozenset()) -> tuple[TempQueue, list[TempQueue]]:
    """The queue tree of a Hadoop matrix (columns in depth-first order) and its queues by column; a queue inherits
    ``disable_preemption`` from its parent."""
    columns: list[TempQueue] = []
    pos = 0

    def build(inherited: bool) -> TempQueue:
        nonlocal pos
        i = pos
        pos += 1
        off = inherited or i in disabled
        q = TempQueue(f"q{i}", abs_[i], max_[i], used[i], 0, off)
        columns.append(q)
        if subqueues[i]:
            q.add_children([build(off) for _ in range(subqueues[i])])
        else:
            q.pending = pending[i]
        return q

    root = build(False)
    return root, columns


def preempted(matrix: list[list[int]], disabled: set[int] = frozenset(),
              knobs: PolicyKnobs = IDEAL) -> dict[str, int]:
    """Containers marked per leaf (named by column) in one round of the policy."""
    abs_, max_, used, pending, apps, subqueues = matrix
    root, columns = _tree(abs_, max_, used, pending, subqueues, disabled)
    leaves = compute_ideal(root, abs_[0], knobs)
    seq = 0
    apps_of: dict[int, list[list[Candidate]]] = {}
    for q in leaves:
        containers = []
        for _ in range(q.used):
            seq += 1
            containers.append(Candidate(1, 1, seq))
        apps_of[id(q)] = [containers] if containers else []
    counts: dict[str, int] = {}
    for q, _c in select(leaves, apps_of, abs_[0], knobs):
        counts[q.name] = counts.get(q.name, 0) + 1
    return counts


@hadoop(CLS, "testIgnore", V)
def test_no_demand_no_preemption() -> None:
    assert preempted([[100, 40, 40, 20], [100] * 4, [100, 0, 60, 40], [0] * 4, [3, 1, 1, 1], [3, 0, 0, 0]]) == {}


@hadoop(CLS, "testProportionalPreemption", V)
def test_proportional_preemption() -> None:
    # A will preempt guaranteed-allocated: appA (queue A, column 1) gives back 10
    m = [[100, 10, 40, 20, 30], [100] * 5, [100, 30, 60, 10, 0], [45, 20, 5, 20, 0], [3, 1, 1, 1, 0],
         [4, 0, 0, 0, 0]]
    assert preempted(m) == {"q1": 10}


@hadoop(CLS, "testMaxCap", V)
def test_queue_at_maximum_capacity_takes_nothing() -> None:
    m = [[100, 40, 40, 20], [100, 100, 45, 100], [100, 55, 45, 0], [20, 10, 10, 0], [2, 1, 1, 0], [3, 0, 0, 0]]
    assert preempted(m).get("q1", 0) == 0


@hadoop(CLS, "testPreemptCycle", V)
def test_preempt_cycle() -> None:
    m = [[100, 40, 40, 20], [100] * 4, [100, 0, 60, 40], [10, 10, 0, 0], [3, 1, 1, 1], [3, 0, 0, 0]]
    assert preempted(m) == {"q3": 10}


@hadoop(CLS, "testDeadzone", V)
def test_dead_zone() -> None:
    m = [[100, 40, 40, 20], [100] * 4, [100, 39, 43, 21], [10, 10, 0, 0], [3, 1, 1, 1], [3, 0, 0, 0]]
    assert preempted(m) == {}


@hadoop(CLS, "testPerQueueDisablePreemption", V)
def test_per_queue_disable_preemption() -> None:
    m = [[100, 55, 25, 20], [100] * 4, [100, 0, 54, 46], [10, 10, 0, 0], [3, 1, 1, 1], [3, 0, 0, 0]]
    assert preempted(m, disabled={2}) == {"q3": 10}
    assert preempted(m) == {"q2": 4, "q3": 6}


@hadoop(CLS, "testPerQueueDisablePreemptionHierarchical", V)
def test_per_queue_disable_preemption_hierarchical() -> None:
    m = [[200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
         [4, 2, 1, 1, 2, 1, 1], [2, 2, 0, 0, 2, 0, 0]]
    assert preempted(m) == {"q2": 10}  # queueB (appA), not queueE
    assert preempted(m, disabled={2}) == {"q5": 10}  # queueB untouchable: from queueE (appC)


@hadoop(CLS, "testPerQueueDisablePreemptionBroadHierarchical", V)
def test_per_queue_disable_preemption_broad_hierarchical() -> None:
    m = [[1000, 350, 150, 200, 400, 200, 200, 250, 100, 150], [1000] * 10,
         [1000, 400, 200, 200, 400, 250, 150, 200, 150, 50], [50, 0, 0, 0, 50, 0, 50, 0, 0, 0],
         [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0]]
    assert preempted(m) == {"q2": 27, "q5": 23}
    assert preempted(m, disabled={2}) == {"q5": 50}
    assert preempted(m, disabled={2, 5}) == {}


@hadoop(CLS, "testPerQueueDisablePreemptionInheritParent", V)
def test_per_queue_disable_preemption_inherit_parent() -> None:
    m = [[1000, 500, 200, 200, 100, 500, 200, 200, 100], [1000] * 9, [1000, 700, 0, 350, 350, 300, 0, 200, 100],
         [200, 0, 0, 0, 0, 200, 200, 0, 0], [5, 2, 0, 1, 1, 3, 1, 1, 1], [2, 3, 0, 0, 0, 3, 0, 0, 0]]
    assert preempted(m) == {"q3": 17, "q4": 183}
    assert preempted(m, disabled={1}) == {}


@hadoop(CLS, "testPerQueuePreemptionNotAllUntouchable", V)
def test_per_queue_preemption_not_all_untouchable() -> None:
    m = [[2000, 1000, 800, 100, 100, 1000, 500, 300, 200], [2000] * 9,
         [2000, 1300, 300, 800, 200, 700, 500, 0, 200], [300, 0, 0, 0, 0, 300, 0, 300, 0],
         [6, 3, 1, 1, 1, 3, 1, 1, 1], [2, 3, 0, 0, 0, 3, 0, 0, 0]]
    assert preempted(m, disabled={3}) == {"q4": 100}


@hadoop(CLS, "testPerQueueDisablePreemptionRootDisablesAll", V)
def test_root_disables_all() -> None:
    m = [[1000, 500, 250, 250, 250, 100, 150, 250, 100, 150], [1000] * 10,
         [1000, 20, 0, 20, 490, 240, 250, 490, 240, 250], [200, 200, 200, 0, 0, 0, 0, 0, 0, 0],
         [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0]]
    assert preempted(m, disabled={0}) == {}


@hadoop(CLS, "testPerQueueDisablePreemptionOverAbsMaxCapacity", V)
def test_disabled_queue_over_its_maximum_keeps_its_containers() -> None:
    m = [[1000, 725, 360, 365, 275, 17, 258], [1000, 1000, 1000, 1000, 550, 109, 1000],
         [1000, 741, 396, 345, 259, 110, 149], [40, 20, 0, 20, 20, 20, 0], [4, 2, 1, 1, 2, 1, 1],
         [2, 2, 0, 0, 2, 0, 0]]
    assert preempted(m, disabled={4}).get("q5", 0) == 0


@hadoop(CLS, "testOverCapacityImbalance", V)
def test_over_capacity_imbalance() -> None:
    m = [[100, 40, 40, 20], [100] * 4, [100, 55, 45, 0], [20, 10, 10, 0], [2, 1, 1, 0], [3, 0, 0, 0]]
    assert preempted(m).get("q1", 0) == 0


@hadoop(CLS, "testNaturalTermination", V)
def test_natural_termination() -> None:
    m = [[100, 40, 40, 20], [100] * 4, [100, 55, 45, 0], [20, 10, 10, 0], [2, 1, 1, 0], [3, 0, 0, 0]]
    knobs = PolicyKnobs(total_preemption_per_round=1.0, natural_termination_factor=0.1)
    assert preempted(m, knobs=knobs) == {}


@hadoop(CLS, "testHierarchical", V)
def test_hierarchical() -> None:
    m = [[200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
         [4, 2, 1, 1, 2, 1, 1], [2, 2, 0, 0, 2, 0, 0]]
    assert preempted(m) == {"q2": 10}


@hadoop(CLS, "testZeroGuar", V)
def test_zero_guarantee() -> None:
    m = [[200, 100, 0, 99, 100, 10, 90], [200] * 7, [170, 80, 60, 20, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
         [4, 2, 1, 1, 2, 1, 1], [2, 2, 0, 0, 2, 0, 0]]
    assert preempted(m).get("q2", 0) == 0


@hadoop(CLS, "testExpireKill", V)
def test_expire_kill() -> None:
    # max_wait_before_kill 10 s: 10 containers of appC marked at 0 s, marked again (no new event) at 5 s, killed
    # at 10.001 s: 20 events in all
    m = [[100, 40, 40, 20], [100] * 4, [100, 0, 60, 40], [10, 10, 0, 0], [3, 1, 1, 1], [3, 0, 0, 0]]
    abs_, max_, used, pending, _apps, subqueues = m
    root, _ = _tree(abs_, max_, used, pending, subqueues)
    leaves = compute_ideal(root, 100, IDEAL)
    containers = {id(q): [[Candidate(1, 1, q.used * 1000 + k) for k in range(q.used)]] for q in leaves}
    chosen = [c for _q, c in select(leaves, containers, 100, IDEAL)]
    marks = Marks(10.0)
    assert marks.update(chosen, 0.0) == [] and marks.marked == 10
    assert marks.update(chosen, 5.0) == [] and marks.marked == 10
    killed = marks.update(chosen, 10.001)
    assert len(killed) == 10 and set(killed) == set(chosen) and marks.marked + len(killed) == 20
