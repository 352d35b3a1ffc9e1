"""Cases of Hadoop 3's ``TestAbsoluteResourceConfiguration`` and ``TestCapacitySchedulerWeightMode``
(``scheduler.capacity``), re-expressed on mrsim's Capacity Scheduler: the queues' effective capacities."""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.conformance.hadoop import GB, MultiNodeRM, hadoop

P = "yarn.scheduler.capacity."


def _started(props: dict[str, str], cluster_gb: int) -> CapacityScheduler:
    cs = CapacityScheduler(props)
    MultiNodeRM([("h1", "/r1", cluster_gb * GB, 1000.0)]).start(cs)
    return cs


@hadoop("TestAbsoluteResourceConfiguration", "testSimpleMinMaxResourceConfigurartionPerQueue", "3.3.6")
def test_absolute_min_and_max_per_queue() -> None:
    # the test's 250 GB node; queue A [100 GB, max 200 GB], B [50, 150], C [25, 150], D [25, 150]
    props = {P + "root.queues": "a,b,c,d"}
    for q, lo, hi in (("a", 100, 200), ("b", 50, 150), ("c", 25, 150), ("d", 25, 150)):
        props[P + f"root.{q}.capacity"] = f"[memory={lo * GB:.0f},vcores=10]"
        props[P + f"root.{q}.maximum-capacity"] = f"[memory={hi * GB:.0f},vcores=30]"
    cs = _started(props, 250)
    effective = {q: (round(cs.leaves[q].abs_capacity * 250 * GB), round(cs.leaves[q].abs_max * 250 * GB))
                 for q in "abcd"}
    assert effective == {"a": (100 * GB, 200 * GB), "b": (50 * GB, 150 * GB), "c": (25 * GB, 150 * GB),
                         "d": (25 * GB, 150 * GB)}


@hadoop("TestAbsoluteResourceConfiguration", "testValidateAbsoluteResourceConfig", "3.3.6")
def test_a_child_maximum_above_its_parent_s_is_an_error() -> None:
    props = {P + "root.queues": "b", P + "root.b.capacity": "[memory=51200,vcores=10]",
             P + "root.b.maximum-capacity": "[memory=153600,vcores=30]", P + "root.b.queues": "b1",
             P + "root.b.b1.capacity": "[memory=40960,vcores=10]", P + "root.b.b1.maximum-capacity": "[memory=204800,vcores=30]"}
    with pytest.raises(InputError, match="queue root.b.b1: maximum-capacity 204800 MB is greater than its parent's "
                                         "maximum, 153600 MB"):
        _started(props, 250)


@hadoop("TestAbsoluteResourceConfiguration", "testComplexValidateAbsoluteResourceConfig", "3.3.6")  # case 2
def test_children_may_not_exceed_their_parent() -> None:
    props = {P + "root.queues": "a,b", P + "root.a.capacity": "[memory=100000,vcores=10]",
             P + "root.b.capacity": "[memory=100000,vcores=10]"}
    with pytest.raises(InputError, match="queue root: the absolute capacities of its children \\(a, b\\) sum to "
                                         "200000 MB, more than its 102400 MB"):
        _started(props, 100)


@hadoop("TestAbsoluteResourceConfiguration", "testComplexValidateAbsoluteResourceConfig", "3.3.6")  # case 1
def test_siblings_do_not_mix_kinds() -> None:
    props = {P + "root.queues": "a,b", P + "root.a.capacity": "[memory=1024,vcores=1]", P + "root.b.capacity": "50"}
    with pytest.raises(InputError, match="mix absolute and percent"):
        CapacityScheduler(props)


@hadoop("TestCapacitySchedulerWeightMode", "testGetCapacityOrWeightStringUsingWeights", "3.3.6")
def test_weights_give_shares_of_the_parent() -> None:
    props = {P + "root.queues": "a,b,c", P + "root.a.capacity": "1w", P + "root.b.capacity": "3w",
             P + "root.c.capacity": "4w", P + "root.c.queues": "c1,c2", P + "root.c.c1.capacity": "1w",
             P + "root.c.c2.capacity": "1w"}
    cs = CapacityScheduler(props)
    assert cs.leaves["a"].abs_capacity == pytest.approx(1 / 8)
    assert cs.leaves["b"].abs_capacity == pytest.approx(3 / 8)
    assert cs.leaves["c1"].abs_capacity == pytest.approx(4 / 8 / 2)
    with pytest.raises(InputError, match="mix percent and weight"):
        CapacityScheduler({P + "root.queues": "a,b", P + "root.a.capacity": "1w", P + "root.b.capacity": "50"})
