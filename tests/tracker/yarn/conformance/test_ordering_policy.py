"""Cases of Hadoop's ``TestFairOrderingPolicy`` and ``TestFifoOrderingPolicy`` (``scheduler.policy``) and of
``TestApplicationPriority`` (``scheduler.capacity``), re-expressed on :mod:`mrsim.tracker.yarn.capacity_ordering`
and the Capacity Scheduler's leaf walk."""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn.capacity_ordering import Ordering, job_priority
from mrsim.tracker.yarn.schedulers.base import SchedulerApp
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.conformance.hadoop import GB, MultiNodeRM, hadoop, request

V = "3.3.6"
P = "yarn.scheduler.capacity."


def _entity(i: int, used: float = 0.0, pending: float = 0.0) -> SchedulerApp:
    a = SchedulerApp(i, f"app_{i}", "u", "default", float(i), (GB, 1.0))
    a.used_mem, a.pending_mb = used, pending
    return a


def _fair(size_based: bool = False) -> Ordering:
    props = {P + "root.default.ordering-policy": ("fair", 0)}
    if size_based:
        props[P + "root.default.ordering-policy.fair.enable-size-based-weight"] = ("true", 0)
    o = Ordering(props, "test")
    o.add_leaf("root.default")
    return o


def _first(o: Ordering, *apps: SchedulerApp) -> list[str]:
    return [a.app_id for a in o.order("root.default", list(apps), {})]


@hadoop("TestFairOrderingPolicy", "testSimpleComparison", V)
def test_fair_less_used_first() -> None:
    o = _fair()
    assert _first(o, _entity(1), _entity(2)) == ["app_1", "app_2"]  # equal: submission order
    assert _first(o, _entity(1, used=1.0), _entity(2)) == ["app_2", "app_1"]


@hadoop("TestFairOrderingPolicy", "testSizeBasedWeight", V)
def test_fair_size_based_weight() -> None:
    o = _fair(size_based=True)
    r1 = _entity(1, 4 * GB, 4 * GB)
    assert _first(o, r1, _entity(2, 4 * GB, 4 * GB)) == ["app_1", "app_2"]  # the same: submission order
    # more demand and usage, not enough more demand to make up for the usage
    assert _first(o, _entity(2, 5 * GB, 5 * GB), r1) == ["app_1", "app_2"]
    # a high demand reverses the order
    assert _first(o, r1, _entity(2, 5 * GB, 100 * GB)) == ["app_2", "app_1"]


@hadoop("TestFairOrderingPolicy", "testIterators", V)
def test_fair_iterators() -> None:
    o = _fair()
    apps = [_entity(1, 3.0), _entity(2, 2.0), _entity(3, 1.0)]
    assert _first(o, *apps) == ["app_3", "app_2", "app_1"]  # assignment: least to greatest usage
    assert list(reversed(_first(o, *apps))) == ["app_1", "app_2", "app_3"]  # preemption: the reverse
    apps[1].used_mem = 6.0
    assert _first(o, *apps) == ["app_3", "app_1", "app_2"]


@hadoop("TestFifoOrderingPolicy", "testFifoOrderingPolicyAlongWithPriority", V)
def test_fifo_priority_then_submission() -> None:
    o = Ordering({}, "test")
    o.add_leaf("root.default")
    a1, a2 = _entity(1), _entity(2)
    assert [a.app_id for a in o.order("root.default", [a1, a2], {})] == ["app_1", "app_2"]
    assert [a.app_id for a in o.order("root.default", [a1, a2], {2: 1})] == ["app_2", "app_1"]
    assert [a.app_id for a in o.order("root.default", [a1, a2], {1: 2, 2: 1})] == ["app_1", "app_2"]


@hadoop("TestApplicationPriority", "testApplicationPriorityAllocation", V)
def test_higher_priority_app_served_first(tmp_path) -> None:
    # cluster max priority 10; app 1 at priority 2, app 2 at priority 8: the node's containers go to app 2 first
    cs = CapacityScheduler({"yarn.cluster.max-application-priority": "10", P + "maximum-am-resource-percent": "1"})
    cs.asked_priority = {0: 2, 1: 8}
    rm = MultiNodeRM([("h1", "/r1", 16 * GB, 16.0)])
    rm.start(cs)
    a1, a2 = _entity(0), _entity(1)
    for a in (a1, a2):
        a.pending_mb = 0.0
        cs.add_app(a)
        request(a, 20, GB, 5)
    given = [g[0] for _ in range(7) for g in rm.heartbeat("h1")]  # one off-switch container per heartbeat
    assert given == ["app_1"] * 5 + ["app_0"] * 2


@hadoop("TestApplicationPriority", "testApplicationPriorityUpdation", V)  # the cap at the cluster's maximum
def test_priority_capped_at_cluster_maximum() -> None:
    o = Ordering({"yarn.cluster.max-application-priority": ("5", 0)}, "test")
    o.add_leaf("root.default")
    assert o.priority("root.default", 8) == 5 and o.priority("root.default", None) == 0
    # the default cluster maximum, 0: every application has priority 0
    assert Ordering({}, "test").priority("root.default", 8) == 0


@hadoop("TestApplicationPriority", "testDefaultApplicationPriority", V)
def test_queue_default_priority() -> None:
    o = Ordering({"yarn.cluster.max-application-priority": ("10", 0),
                  P + "root.default.default-application-priority": ("2", 0)}, "test")
    o.add_leaf("root.default")
    assert o.priority("root.default", None) == 2 and o.priority("root.default", 7) == 7


@hadoop("TestTypeConverter", "testApplicationPriorityConversion", V)  # MapReduce's JobPriority mapping
def test_job_priority_names() -> None:
    assert [job_priority({"mapreduce.job.priority": n}, "j") for n in ("VERY_HIGH", "HIGH", "NORMAL", "LOW",
                                                                       "VERY_LOW", "DEFAULT", "7")] == [5, 4, 3, 2, 1, 0, 7]
    assert job_priority({}, "j") is None
    with pytest.raises(InputError, match="job j: mapreduce.job.priority = 'URGENT'"):
        job_priority({"mapreduce.job.priority": "URGENT"}, "j")
