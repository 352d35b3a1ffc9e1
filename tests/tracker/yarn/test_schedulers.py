"""Scheduler behaviour from the examples of Hadoop's Capacity and Fair Scheduler documentation, exact allocations."""

from __future__ import annotations

import pytest

from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn.schedulers.base import PRIORITY_MAP, SchedulerApp
from mrsim.errors import InputError
from tests.tracker.yarn.helpers import StubRM, capacity_xml, cluster, conf, job, workload, write

P = "yarn.scheduler.capacity."

# CapacityScheduler.md's queue tree (root: a, b, c; a: a1, a2; b: b1, b2, b3) and its queue-mappings example.
DOC_CAPACITY = {
    P + "root.queues": "a,b,c",
    P + "root.a.capacity": "40", P + "root.b.capacity": "50", P + "root.c.capacity": "10",
    P + "root.a.queues": "a1,a2", P + "root.a.a1.capacity": "60", P + "root.a.a2.capacity": "40",
    P + "root.b.queues": "b1,b2,b3", P + "root.b.b1.capacity": "60", P + "root.b.b2.capacity": "20",
    P + "root.b.b3.capacity": "20",
    P + "queue-mappings": "u:user1:a1,g:group1:b2,u:%user:%user,u:user2:%primary_group",
}


def _app(i: int, user: str, queue: str = "default") -> SchedulerApp:
    return SchedulerApp(i, f"app{i}", user, queue, 0.0, (1024.0, 1.0))


def test_capacity_queue_mappings_route_jobs(tmp_path) -> None:
    path = write(tmp_path, "capacity-scheduler.xml", capacity_xml(DOC_CAPACITY | {P + "root.c.queues": "c1,group1,b9",
                                                                                   P + "root.c.c1.capacity": "50",
                                                                                   P + "root.c.group1.capacity": "25",
                                                                                   P + "root.c.b9.capacity": "25"}))
    cs = create_yarn_scheduler("capacity", {"config_file": str(path)})
    assert cs.place(_app(0, "user1")).path == "root.a.a1"  # u:user1:a1
    assert cs.place(_app(1, "group1")).path == "root.b.b2"  # g:group1:b2 (primary group = the user's name)
    assert cs.place(_app(2, "c1")).path == "root.c.c1"  # u:%user:%user
    # override disabled (the default): an app submitted to a queue other than default keeps it
    assert cs.place(_app(3, "user1", "a2")).path == "root.a.a2"
    with pytest.raises(InputError, match="not a leaf queue"):
        cs.place(_app(4, "nobody"))  # u:%user:%user -> queue 'nobody' does not exist: rejected, as Hadoop does


def test_capacity_tree_absolute_capacities(tmp_path) -> None:
    path = write(tmp_path, "cs.xml", capacity_xml(DOC_CAPACITY))
    cs = create_yarn_scheduler("capacity", {"config_file": str(path)})
    queues = cs.describe()["queues"]
    assert queues["root.a.a1"]["capacity"] == pytest.approx(24.0)
    assert queues["root.b.b1"]["capacity"] == pytest.approx(30.0)
    assert queues["root.c"]["capacity"] == pytest.approx(10.0)


def test_capacity_am_resource_percent_holds_back_applications(tmp_path) -> None:
    # One 10240 MB node, queue default at 100 %, maximum-am-resource-percent 0.1 -> AM limit 1024 MB: one AM at a
    # time. Job 1: AM at 0, map asked at 1, allocated at 1, received at 2, runs 2 -> 12; the AM container is
    # reported free at the NM heartbeat at 12, when job 2 is activated and its AM allocated.
    path = write(tmp_path, "cs.xml", capacity_xml({P + "maximum-am-resource-percent": "0.1"}))
    w = workload(job("j1", [10.0]), job("j2", [10.0]))
    r = replay_yarn(w, cluster(), conf(nm_memory_mb=10240.0),
                    create_yarn_scheduler("capacity", {"config_file": str(path)}), aligned_heartbeats=True)
    assert list(r.jobs["am_start_s"]) == [0.0, 12.0]
    r2 = replay_yarn(w, cluster(), conf(nm_memory_mb=10240.0), create_yarn_scheduler("capacity"),
                     aligned_heartbeats=True)
    # default 0.1 of 10240 is also 1024 MB ... but Hadoop always activates one app and checks the sum:
    assert list(r2.jobs["am_start_s"]) == [0.0, 12.0]
    path3 = write(tmp_path, "cs3.xml", capacity_xml({P + "maximum-am-resource-percent": "0.2"}))
    r3 = replay_yarn(w, cluster(), conf(nm_memory_mb=10240.0),
                     create_yarn_scheduler("capacity", {"config_file": str(path3)}), aligned_heartbeats=True)
    # Both AMs fit in 2048 MB, but the Capacity Scheduler gives at most one off-switch container per heartbeat and
    # serves a leaf's apps in order: 0 job 1's AM; 1 job 1's map (its ask arrived at 1); 2 job 2's AM.
    assert list(r3.jobs["am_start_s"]) == [0.0, 2.0]


FAIR_DOC = """<?xml version="1.0"?>
<allocations>
  <queue name="sample_queue">
    <minResources>10000 mb,0vcores</minResources>
    <maxRunningApps>50</maxRunningApps>
    <maxAMShare>0.1</maxAMShare>
    <weight>2.0</weight>
    <schedulingPolicy>fair</schedulingPolicy>
    <queue name="sample_sub_queue">
      <aclSubmitApps>charlie</aclSubmitApps>
      <minResources>5000 mb,0vcores</minResources>
    </queue>
  </queue>
  <queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
  <user name="sample_user">
    <maxRunningApps>30</maxRunningApps>
  </user>
  <userMaxAppsDefault>5</userMaxAppsDefault>
  <queuePlacementPolicy>
    <rule name="specified" />
    <rule name="primaryGroup" create="false" />
    <rule name="default" queue="other"/>
  </queuePlacementPolicy>
</allocations>
"""


def test_fair_placement_rules_from_the_documentation(tmp_path) -> None:
    path = write(tmp_path, "fair-scheduler.xml", FAIR_DOC)
    fs = create_yarn_scheduler("fair", {"config_file": str(path)})
    assert fs.place(_app(0, "bob", "sample_queue.sample_sub_queue")).path == "root.sample_queue.sample_sub_queue"
    assert fs.place(_app(1, "bob")).path == "root.other"  # no queue 'bob' (create=false): the default rule
    assert any("aclSubmitApps" in w for w in fs.warnings)
    assert fs.queues["root.sample_queue.sample_sub_queue"].max_am_share == 0.5  # queueMaxAMShareDefault
    assert fs.queues["root.sample_queue"].max_am_share == 0.1


NO_USER_QUEUES = {"yarn.scheduler.fair.user-as-default-queue": False}  # else each app goes to root.<user>


def _fair_file(tmp_path, share: str) -> str:
    return str(write(tmp_path, f"fair{share}.xml", f"""<allocations><queue name="default">
        <maxAMShare>{share}</maxAMShare></queue></allocations>"""))


def test_fair_max_am_share_holds_back_application_masters(tmp_path) -> None:
    # One 10240 MB node; root.default is the only active queue, so its fair share is 10240 MB. maxAMShare 0.1 ->
    # AMs may use 1024 MB: job 2's AM waits until job 1's AM container is reported free (NM heartbeat at 12).
    w = workload(job("j1", [10.0]), job("j2", [10.0]))
    held = replay_yarn(w, cluster(), conf(nm_memory_mb=10240.0),
                       create_yarn_scheduler("fair", {"config_file": _fair_file(tmp_path, "0.1"), **NO_USER_QUEUES}),
                       aligned_heartbeats=True)
    assert list(held.jobs["am_start_s"]) == [0.0, 12.0]
    # maxAMShare -1: no check. One container per heartbeat (assignmultiple false): job 1's AM at 0; at 1 job 2
    # (usage 0) is served before job 1 (usage 1024): its AM starts at 1.
    free = replay_yarn(w, cluster(), conf(nm_memory_mb=10240.0),
                       create_yarn_scheduler("fair", {"config_file": _fair_file(tmp_path, "-1"), **NO_USER_QUEUES}),
                       aligned_heartbeats=True)
    assert list(free.jobs["am_start_s"]) == [0.0, 1.0]


def _drf_apps(fs, rm: StubRM) -> tuple[SchedulerApp, SchedulerApp]:
    a = SchedulerApp(0, "A", "alice", "a", 0.0, (1024.0, 1.0))
    b = SchedulerApp(1, "B", "bob", "b", 0.0, (1024.0, 1.0))
    for app, (mem, vc) in ((a, (4096.0, 1.0)), (b, (1024.0, 3.0))):
        app.am_running = app.am_allocated = True
        app.ask(PRIORITY_MAP, mem, vc).total = 100
        fs.add_app(app)
    return a, b


def test_drf_shares_the_papers_two_resource_cluster(tmp_path) -> None:
    # Ghodsi et al., DRF (NSDI 2011) section 4: 9 CPUs, 18 GB; A's tasks <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>.
    # DRF equalises dominant shares: A gets 3 tasks (3 CPUs, 12 GB: 2/3 of memory), B 2 (6 CPUs: 2/3 of CPU).
    path = write(tmp_path, "drf.xml", """<allocations>
      <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
      <queue name="a"/><queue name="b"/></allocations>""")
    fs = create_yarn_scheduler("fair", {"config_file": str(path), "yarn.scheduler.fair.assignmultiple": True})
    rm = StubRM(18 * 1024.0, 9.0)
    fs.start(rm)  # type: ignore[arg-type]
    _drf_apps(fs, rm)
    rm.run(fs)
    assert rm.given == {"A": 3, "B": 2}
    assert rm.order == ["A", "B", "A", "B", "A"]  # lowest dominant share first (ties: queue name)
    # The fair policy compares memory alone: B (1 GB tasks) is served twice in a row, then CPUs run out for it.
    path2 = write(tmp_path, "fair.xml", """<allocations><queue name="a"/><queue name="b"/></allocations>""")
    fs2 = create_yarn_scheduler("fair", {"config_file": str(path2), "yarn.scheduler.fair.assignmultiple": True})
    rm2 = StubRM(18 * 1024.0, 9.0)
    fs2.start(rm2)  # type: ignore[arg-type]
    _drf_apps(fs2, rm2)
    rm2.run(fs2)
    assert rm2.order == ["A", "B", "B", "A", "A"]


def test_fifo_serves_applications_in_submission_order() -> None:
    rm = StubRM(4096.0, 8.0, memory_only=True)
    fifo = create_yarn_scheduler("fifo")
    fifo.start(rm)  # type: ignore[arg-type]
    for i, name in enumerate(("first", "second")):
        app = SchedulerApp(i, name, "u", "default", float(i), (1024.0, 1.0))
        app.ask(PRIORITY_MAP, 1024.0, 1.0).total = 3
        fifo.add_app(app)
    rm.run(fifo)
    assert rm.given == {"first": 3, "second": 1}


@pytest.mark.parametrize("props, message", [
    ({P + "root.queues": "x,y", P + "root.x.capacity": "150", P + "root.y.capacity": "-50"},
     r"cs\.xml:\d+: queue root\.x: yarn\.scheduler\.capacity\.root\.x\.capacity = 150 is outside \[0, 100\]"),
    ({P + "root.queues": "x,y", P + "root.x.capacity": "60", P + "root.y.capacity": "30"},
     r"queue root: the capacities of its children \(x, y\) sum to 90, not 100"),
    ({P + "root.queues": "x", P + "root.x.capacity": "100", P + "root.x.maximum-capacity": "120"},
     r"queue root\.x: yarn\.scheduler\.capacity\.root\.x\.maximum-capacity = 120 is above 100"),
    ({P + "root.queues": "x", P + "root.x.capacity": "lots"},
     r"queue root\.x: yarn\.scheduler\.capacity\.root\.x\.capacity = 'lots' is not a number"),
])
def test_capacity_malformed_values_name_file_queue_and_key(tmp_path, props, message) -> None:
    path = write(tmp_path, "cs.xml", capacity_xml(props))
    with pytest.raises(InputError, match=message) as err:
        create_yarn_scheduler("capacity", {"config_file": str(path)})
    assert "\n" not in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("body, message", [
    ('<queue name="q"><weight>-2</weight></queue>', r"fair\.xml:\d+: queue root\.q: weight = '-2' must not be negative"),
    ('<queue name="q"><schedulingPolicy>lottery</schedulingPolicy></queue>',
     r"fair\.xml:\d+: queue root\.q: schedulingPolicy = 'lottery' is not one of fair, drf, fifo"),
    ('<queue name="q"><maxAMShare>2</maxAMShare></queue>', r"queue root\.q: maxAMShare = '2' must be in \[0, 1\] or -1"),
    ('<queue name="q"><minResources>lots</minResources></queue>', r"queue root\.q: minResources = 'lots' is not"),
])
def test_fair_malformed_values_name_file_queue_and_key(tmp_path, body, message) -> None:
    path = write(tmp_path, "fair.xml", f"<allocations>{body}</allocations>")
    with pytest.raises(InputError, match=message) as err:
        create_yarn_scheduler("fair", {"config_file": str(path)})
    assert "\n" not in str(err.value)


def test_unmodelled_keys_are_reported_per_key(tmp_path) -> None:
    path = write(tmp_path, "cs.xml", capacity_xml({P + "root.default.accessible-node-labels": "x",
                                                    P + "schedule-asynchronously.enable": "true"}))
    cs = create_yarn_scheduler("capacity", {"config_file": str(path)})
    lines = [w for w in cs.warnings if "not modelled" in w]
    assert len(lines) == 2 and all(str(path) in w for w in lines)
    assert any("accessible-node-labels" in w for w in lines)
