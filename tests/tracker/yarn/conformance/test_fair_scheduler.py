"""The placement and fair-share cases of Hadoop's ``TestFairScheduler`` (``scheduler.fair``), re-expressed on
mrsim's Fair Scheduler: the same allocation file or yarn-site keys, the same submissions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn.schedulers.base import PRIORITY_AM
from mrsim.tracker.yarn.schedulers.fair import FairScheduler
from tests.tracker.yarn.conformance.hadoop import MultiNodeRM, allocation_file, app, hadoop, request

V = "2.6.0 and 3.3.6"


@hadoop("TestFairScheduler", "testEmptyQueueName", V)
def test_empty_queue_name() -> None:
    fair = FairScheduler()
    with pytest.raises(InputError, match="empty queue name"):
        fair.place(app(1, "user1", ""))
    assert [q for q in fair.queues.values() if q.is_leaf] == [fair.queues["root.default"]]  # only default


@hadoop("TestFairScheduler", "testAssignToQueue", V)
def test_assign_to_queue() -> None:
    fair = FairScheduler({"yarn.scheduler.fair.user-as-default-queue": "true"})
    assert fair.place(app(0, "asterix", "default")).path == "root.asterix"
    assert fair.place(app(1, "obelix", "notdefault")).path == "root.notdefault"


@hadoop("TestFairScheduler", "testAssignToNonLeafQueueReturnsNull", V)
def test_assign_to_non_leaf_queue_is_rejected(tmp_path: Path) -> None:
    fair = FairScheduler({"config_file": str(allocation_file(
        tmp_path, '<queue name="child1"><queue name="granchild"/></queue><queue name="child2"/>'))})
    with pytest.raises(InputError, match="root.child1, a parent queue"):
        fair.place(app(0, "tintin", "root.child1"))
    assert fair.place(app(1, "snowy", "root.child2")).path == "root.child2"


@hadoop("TestFairScheduler", "testQueuePlacementWithPolicy", V)
def test_queue_placement_with_policy_user_first(tmp_path: Path) -> None:
    # the policy without "specified" first: user (no create), specified (create), default; root.user1 configured
    fair = FairScheduler({"config_file": str(allocation_file(
        tmp_path, '<queue name="user1"/><queuePlacementPolicy><rule name="user" create="false"/>'
                  '<rule name="specified" create="true"/><rule name="default" create="true"/>'
                  '</queuePlacementPolicy>'))})
    assert fair.place(app(0, "user1", "somequeue")).path == "root.user1"
    assert fair.place(app(1, "otheruser", "somequeue")).path == "root.somequeue"
    assert fair.place(app(2, "otheruser", "default")).path == "root.default"


@hadoop("QueuePlacementRule.Specified", "getQueueForApp", V)
def test_root_default_is_a_specified_queue() -> None:
    # only the name "default" means "no queue asked for"; "root.default" names the queue, so the specified rule
    # places the app there even when user-as-default-queue would give it root.<user>
    fair = FairScheduler({"yarn.scheduler.fair.user-as-default-queue": "true"})
    assert fair.place(app(0, "alice", "root.default")).path == "root.default"
    assert fair.place(app(1, "alice", "default")).path == "root.alice"


@hadoop("TestFairScheduler", "testFairShareWithMinAlloc", V)
def test_fair_share_with_min_alloc(tmp_path: Path) -> None:
    fair = FairScheduler({"config_file": str(allocation_file(
        tmp_path, '<queue name="queueA"><minResources>1024mb,0vcores</minResources></queue>'
                  '<queue name="queueB"><minResources>2048mb,0vcores</minResources></queue>'))})
    MultiNodeRM([("127.0.0.1", "/default-rack", 3 * 1024.0, 8.0)]).start(fair)
    for i, queue in enumerate(("queueA", "queueB")):
        a = app(i, "user1", queue)
        fair.add_app(a)
        request(a, PRIORITY_AM, 2 * 1024.0, 1)
    assert fair.queues["root.queueA"].fair_share == pytest.approx(1024, abs=1e-6)
    assert fair.queues["root.queueB"].fair_share == pytest.approx(2048, abs=1e-6)
    assert sum(1 for q in fair.queues.values() if q.is_leaf) == 3  # and root.default


@hadoop("TestFairScheduler", "testQueuePlacementWithPolicy", V)
def test_queue_placement_with_policy_and_groups(tmp_path: Path) -> None:
    # SimpleGroupsMapping gives user U the groups Ugroup, Usubgroup1, Usubgroup2; here as the static mapping
    groups = {u: [f"{u}group", f"{u}subgroup1", f"{u}subgroup2"] for u in ("user1", "user3", "user4", "otheruser")}
    groups["user5"] = ["user5group", "user5subgroup1", "user5subgroup2"]
    queues = "".join(f'<queue name="{q}"/>' for q in ("user1", "user3group", "user4subgroup1", "user4subgroup2",
                                                      "user5subgroup2"))
    policy = ('<queuePlacementPolicy><rule name="specified" create="true"/><rule name="user" create="false"/>'
              '<rule name="primaryGroup" create="false"/><rule name="secondaryGroupExistingQueue" create="false"/>'
              '<rule name="default" create="true"/></queuePlacementPolicy>')
    fair = FairScheduler({"config_file": str(allocation_file(tmp_path, queues + policy)), "user_groups": groups})
    placed = [fair.place(app(i, user, queue)).path for i, (queue, user) in enumerate(
        [("somequeue", "user1"), ("default", "user1"), ("default", "user3"), ("default", "user4"),
         ("default", "user5"), ("default", "otheruser")])]
    assert placed == ["root.somequeue", "root.user1", "root.user3group", "root.user4subgroup1",
                      "root.user5subgroup2", "root.default"]
