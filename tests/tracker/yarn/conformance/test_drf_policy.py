"""Hadoop's ``TestDominantResourceFairnessPolicy`` (``scheduler.fair.policies``), re-expressed: two leaf queues
under a ``drf`` root, each holding the test's usage, with the test's weights and min shares, on a cluster of the
test's size; one NodeManager heartbeat gives one container, and it goes to the queue Hadoop's comparator puts
first (``compare(s1, s2) < 0``). The queue expected first is named ``z_s1`` and the other ``a_s2``, so a tie would
go to the wrong one: only the policy can pick ``z_s1``. (The 3.x-only cases on raw ratio arrays with a third
resource type, testSortShares, testCalculateClusterAndFairRatios and testCompareShares, have no mrsim counterpart:
mrsim has two resources.)
"""

from __future__ import annotations

from pathlib import Path

from mrsim.tracker.yarn.schedulers.base import PRIORITY_AM
from mrsim.tracker.yarn.schedulers.fair import FairScheduler
from tests.tracker.yarn.conformance.hadoop import MultiNodeRM, allocation_file, app, hadoop, request

V = "2.6.0 and 3.3.6"

Sched = tuple  # (memory used MB, vcores used, weight, min memory MB, min vcores)


def _first(tmp_path: Path, cluster: tuple[float, float], first: Sched, second: Sched) -> str:
    """The queue that gets the heartbeat's container: ``first`` is queue z_s1, ``second`` is a_s2."""
    body = ['<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>']
    for name, (_, _, weight, min_mem, min_vc) in (("z_s1", first), ("a_s2", second)):
        body.append(f'<queue name="{name}"><weight>{weight}</weight><maxAMShare>-1</maxAMShare>'
                    f'<minResources>{min_mem} mb, {min_vc} vcores</minResources></queue>')
    fair = FairScheduler({"config_file": str(allocation_file(tmp_path, "\n".join(body)))})
    rm = MultiNodeRM([("host_0", "/rack_0", 100_000.0, 1000.0)], min_mem=1.0, cluster=cluster)
    rm.start(fair)
    for i, (name, (mem, vc, *_rest)) in enumerate((("z_s1", first), ("a_s2", second))):
        a = app(i, "user", name, submit=0.0)
        fair.add_app(a)
        request(a, PRIORITY_AM, 1.0, 1)
        q = fair.queues[f"root.{name}"]
        q.used_mem, q.used_vcores = float(mem), float(vc)  # the schedulable's usage
    given = rm.heartbeat("host_0")
    assert len(given) == 1
    return {"app_0": "z_s1", "app_1": "a_s2"}[given[0][0]]


def s(mem: int, vc: int, weight: float = 1.0, min_mem: int = 0, min_vc: int = 0) -> Sched:
    return (mem, vc, weight, min_mem, min_vc)


@hadoop("TestDominantResourceFairnessPolicy", "testSameDominantResource", V)
def test_same_dominant_resource(tmp_path: Path) -> None:
    # both dominant shares are 1/4 (vcores): the next resource, memory (1/8 against 1/4), decides
    assert _first(tmp_path, (8000, 4), s(1000, 1), s(2000, 1)) == "z_s1"


@hadoop("TestDominantResourceFairnessPolicy", "testDifferentDominantResource", V)
def test_different_dominant_resource(tmp_path: Path) -> None:
    assert _first(tmp_path, (8000, 8), s(4000, 3), s(2000, 5)) == "z_s1"


@hadoop("TestDominantResourceFairnessPolicy", "testOneIsNeedy", V)
def test_one_is_needy(tmp_path: Path) -> None:
    assert _first(tmp_path, (8000, 8), s(2000, 5, min_vc=6), s(4000, 3)) == "z_s1"


@hadoop("TestDominantResourceFairnessPolicy", "testBothAreNeedy", V)
def test_both_are_needy(tmp_path: Path) -> None:
    assert _first(tmp_path, (8000, 100), s(2000, 5), s(4000, 3)) == "z_s1"
    # dominant min-share ratios 2/3 against 4/5
    assert _first(tmp_path, (8000, 100), s(2000, 5, min_mem=3000, min_vc=6), s(4000, 3, min_mem=5000, min_vc=4)) \
        == "z_s1"


@hadoop("TestDominantResourceFairnessPolicy", "testEvenWeightsSameDominantResource", V)
def test_even_weights_same_dominant_resource(tmp_path: Path) -> None:
    assert _first(tmp_path, (8000, 8), s(3000, 1, 2.0), s(2000, 1)) == "z_s1"
    assert _first(tmp_path, (8000, 8), s(1000, 3, 2.0), s(1000, 2)) == "z_s1"


@hadoop("TestDominantResourceFairnessPolicy", "testEvenWeightsDifferentDominantResource", V)
def test_even_weights_different_dominant_resource(tmp_path: Path) -> None:
    assert _first(tmp_path, (8000, 8), s(1000, 3, 2.0), s(2000, 1)) == "z_s1"
    assert _first(tmp_path, (8000, 8), s(3000, 1, 2.0), s(1000, 2)) == "z_s1"


@hadoop("TestDominantResourceFairnessPolicy", "testCompareSchedulablesWithClusterResourceChanges", "3.3.6")
def test_compare_schedulables_with_cluster_resource_changes(tmp_path: Path) -> None:
    # shares [1/2, 1/5] against [1/4, 2/5]: the second comes first; on (8000, 6) [1/4, 1/6] against [1/8, 1/3]
    assert _first(tmp_path, (4000, 5), s(1000, 2), s(2000, 1)) == "z_s1"
    assert _first(tmp_path, (8000, 6), s(2000, 1), s(1000, 2)) == "z_s1"
