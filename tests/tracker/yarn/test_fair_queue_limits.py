"""Fair's ``maxChildResources`` (Hadoop 2.9+) and ``maxContainerAllocation`` (3.2+), chosen by ``--hadoop-version``."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn.schedulers.base import PRIORITY_AM, PRIORITY_MAP
from tests.tracker.yarn.conformance.hadoop import GB, MultiNodeRM, allocation_file, app, request
from tests.tracker.yarn.helpers import cluster, conf, job, workload

USERS = ('<queue name="users" type="parent"><maxChildResources>2048 mb, 2 vcores</maxChildResources></queue>'
         '<queuePlacementPolicy><rule name="specified"/><rule name="default"/></queuePlacementPolicy>')


def test_max_child_resources_cap_the_ad_hoc_children_of_a_queue(tmp_path: Path) -> None:
    fair = create_yarn_scheduler("fair", {"config_file": str(allocation_file(tmp_path, USERS)),
                                          "hadoop_version": "2.9"})
    rm = MultiNodeRM([("host_0", "/rack_0", 8 * GB, 8.0)])
    rm.start(fair)
    alice = app(0, "alice", "root.users.alice")
    fair.add_app(alice)
    request(alice, PRIORITY_AM, GB, 1)
    request(alice, PRIORITY_MAP, GB, 5)
    queue = fair.queues["root.users.alice"]
    assert (queue.max_mem, queue.max_vcores) == (2048.0, 2.0)
    for _ in range(5):
        rm.heartbeat("host_0")
    # the AM and one map fill the queue's 2048 MB (the node has room for 8 containers); the share is capped too
    assert [p for _a, p, _h, _l in rm.log] == [PRIORITY_AM, PRIORITY_MAP]
    assert queue.fair_share == pytest.approx(2048.0)


def test_max_child_resources_before_hadoop_2_9_is_reported_and_ignored(tmp_path: Path) -> None:
    fair = create_yarn_scheduler("fair", {"config_file": str(allocation_file(tmp_path, USERS))})
    assert any("<maxChildResources> is Hadoop 2.9+" in w and "ignored" in w for w in fair.warnings)
    assert fair.place(app(0, "alice", "root.users.alice")).max_mem == float("inf")


def test_max_container_allocation_rejects_a_larger_container(tmp_path: Path) -> None:
    body = ('<queue name="small"><maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation>'
            '<queue name="leaf"/></queue>')
    path = str(allocation_file(tmp_path, body))
    big = job("j1", [10.0], user="u", queue="root.small.leaf", props={"mapreduce.map.memory.mb": "4096"})
    fair = create_yarn_scheduler("fair", {"config_file": path, "hadoop_version": "3.2"})
    with pytest.raises(InputError, match=r"job j1: its map container of 4096 MB and 1 vcores exceeds the "
                                         r"maxContainerAllocation of queue root\.small \(2048 MB, 2 vcores\)"):
        replay_yarn(workload(big), cluster(), conf(), fair, aligned_heartbeats=True)
    # within the limit the job runs; and 3.1 has no such element (reported, not applied)
    fits = job("j2", [10.0], user="u", queue="root.small.leaf")
    r = replay_yarn(workload(fits), cluster(), conf(), create_yarn_scheduler(
        "fair", {"config_file": path, "hadoop_version": "3.2"}), aligned_heartbeats=True)
    assert r.jobs.finish_s[0] > 10.0
    older = create_yarn_scheduler("fair", {"config_file": path, "hadoop_version": "3.1"})
    assert any("<maxContainerAllocation> is Hadoop 3.2+" in w for w in older.warnings)
    replay_yarn(workload(big), cluster(), conf(), older, aligned_heartbeats=True)
