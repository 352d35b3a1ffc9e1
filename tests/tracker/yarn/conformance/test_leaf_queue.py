"""Hadoop's ``TestLeafQueue`` (``scheduler.capacity``), re-expressed: the same nodes, racks, users and resource
requests, and one ``LeafQueue.assignContainers`` call as one leaf assignment of mrsim's Capacity Scheduler
(``_assign_leaf``); the allocations, missed scheduling opportunities (``Ask.missed``), outstanding containers
(``Ask.total``), usages and headrooms are the values Hadoop asserts.
"""

from __future__ import annotations

from pathlib import Path

from mrsim.tracker.yarn.schedulers.base import NODE_LOCAL, OFF_SWITCH, RACK_LOCAL
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.conformance.hadoop import GB, MultiNodeRM, app, capacity_file, hadoop, request

P = "yarn.scheduler.capacity."
V = "2.7.0"


def _capacity(tmp_path: Path, props: dict[str, str], nodes: list[tuple[str, str]], node_gb: float = 8,
              version: str | None = None) -> tuple[CapacityScheduler, MultiNodeRM]:
    config: dict = {"config_file": str(capacity_file(tmp_path, props))}
    if version:
        config["hadoop_version"] = version
    cs = CapacityScheduler(config)
    rm = MultiNodeRM([(h, r, node_gb * GB, 16.0) for h, r in nodes])
    rm.start(cs)
    return cs, rm


def _leaf_call(cs: CapacityScheduler, rm: MultiNodeRM, queue: str, host: str) -> list[tuple[str, int, str, int]]:
    """One ``LeafQueue.assignContainers(clusterResource, node)``: the containers it gave."""
    before = len(rm.log)
    cs._assign_leaf(cs.leaves[queue], rm.by_host[host])
    return rm.log[before:]


ONE_QUEUE = {P + "root.queues": "default", P + "maximum-am-resource-percent": "1.0"}
LOCALITY_NODES = [("host_0", "/rack_0"), ("host_1", "/rack_1"), ("host_2", "/rack_2")]


@hadoop("TestLeafQueue", "testLocalityScheduling", V)
def test_locality_scheduling(tmp_path: Path) -> None:
    cs, rm = _capacity(tmp_path, {**ONE_QUEUE, P + "node-locality-delay": "1"},
                       LOCALITY_NODES + [("host_3", "/rack_1")])
    a0 = app(0, "user_0", am=(1.0, 1.0))
    cs.add_app(a0)
    request(a0, 1, GB, 3, hosts={"host_0": 1, "host_1": 1}, racks={"/rack_0": 1, "/rack_1": 1})  # one extra
    ask = a0.asks[0]
    # off-switch on node_2: three missed opportunities first (4 hosts and racks asked: wait factor 1, 3 asks)
    for missed in (1, 2, 3):
        assert _leaf_call(cs, rm, "default", "host_2") == []
        assert (ask.missed, ask.total) == (missed, 3)
    assert _leaf_call(cs, rm, "default", "host_2") == [("app_0", 1, "host_2", OFF_SWITCH)]
    assert (ask.missed, ask.total) == (4, 2)  # not reset by an off-switch container
    assert _leaf_call(cs, rm, "default", "host_0") == [("app_0", 1, "host_0", NODE_LOCAL)]
    assert (ask.missed, ask.total) == (0, 1)
    assert _leaf_call(cs, rm, "default", "host_1") == [("app_0", 1, "host_1", NODE_LOCAL)]
    assert (ask.missed, ask.total) == (0, 0)
    # two more: host_1 / rack_1; host_3 is on rack_1; the rack-local delay is 1
    request(a0, 1, GB, 2, hosts={"host_1": 1}, racks={"/rack_1": 1})
    assert _leaf_call(cs, rm, "default", "host_3") == []
    assert (ask.missed, ask.total) == (1, 2)
    assert _leaf_call(cs, rm, "default", "host_3") == [("app_0", 1, "host_3", RACK_LOCAL)]
    assert (ask.missed, ask.total) == (0, 1)


@hadoop("TestLeafQueue", "testApplicationPriorityScheduling", V)
def test_application_priority_scheduling(tmp_path: Path) -> None:
    cs, rm = _capacity(tmp_path, ONE_QUEUE, LOCALITY_NODES)
    a0 = app(0, "user_0", am=(1.0, 1.0))
    cs.add_app(a0)
    request(a0, 1, GB, 2, hosts={"host_0": 1, "host_1": 1}, racks={"/rack_0": 1, "/rack_1": 1})
    request(a0, 2, 2 * GB, 1, hosts={"host_2": 1}, racks={"/rack_2": 1})
    p1, p2 = a0.asks
    # off-switch for P1 on node_2 is delayed, so P2 is not served there either, though node_2 is local to it
    for missed in (1, 2):
        assert _leaf_call(cs, rm, "default", "host_2") == []
        assert (p1.missed, p1.total, p2.missed, p2.total) == (missed, 2, 0, 1)
    assert _leaf_call(cs, rm, "default", "host_2") == [("app_0", 1, "host_2", OFF_SWITCH)]
    assert (p1.missed, p1.total, p2.missed, p2.total) == (3, 1, 0, 1)
    assert _leaf_call(cs, rm, "default", "host_0") == [("app_0", 1, "host_0", NODE_LOCAL)]
    assert (p1.missed, p1.total, p2.missed, p2.total) == (0, 0, 0, 1)
    # P1 has nothing left: P2 off-switch on node_1 (wait factor 2/3, one ask: allowed at the first opportunity)
    assert _leaf_call(cs, rm, "default", "host_1") == [("app_0", 2, "host_1", OFF_SWITCH)]
    assert (p1.missed, p1.total, p2.missed, p2.total) == (0, 0, 1, 0)


@hadoop("TestLeafQueue", "testSchedulingConstraints", V)
def test_scheduling_constraints(tmp_path: Path) -> None:
    cs, rm = _capacity(tmp_path, ONE_QUEUE, [("host_0_0", "/rack_0"), ("host_0_1", "/rack_0"),
                                             ("host_1_0", "/rack_1")])
    a0 = app(0, "user_0", am=(1.0, 1.0))
    cs.add_app(a0)
    request(a0, 1, GB, 1, hosts={"host_0_0": 1, "host_0_1": 1, "host_1_0": 1}, racks={"/rack_0": 1, "/rack_1": 1})
    ask = a0.asks[0]
    assert _leaf_call(cs, rm, "default", "host_0_0") == [("app_0", 1, "host_0_0", NODE_LOCAL)]
    assert (ask.missed, ask.total) == (0, 0)
    # node-local and rack-local asks remain on host_1_0, but nothing at ANY: no allocation, no missed opportunity
    assert _leaf_call(cs, rm, "default", "host_1_0") == []
    assert (ask.missed, ask.total) == (0, 0)


TWO_QUEUES = {P + "root.queues": "a,b", P + "root.a.capacity": "9", P + "root.b.capacity": "91",
              P + "maximum-am-resource-percent": "1.0"}


@hadoop("TestLeafQueue", "testUserLimits", V)
def test_user_limits(tmp_path: Path) -> None:
    cs, rm = _capacity(tmp_path, {**TWO_QUEUES, P + "root.a.maximum-capacity": "100",
                                  P + "root.a.minimum-user-limit-percent": "50",
                                  P + "root.a.user-limit-factor": "2"},
                       [("127.0.0.1", "/default-rack"), ("127.0.0.2", "/default-rack")])
    apps = [app(0, "user_0", "a", am=(1.0, 1.0)), app(1, "user_0", "a", am=(1.0, 1.0)),
            app(2, "user_1", "a", am=(1.0, 1.0))]
    for a in apps:
        cs.add_app(a)
    request(apps[0], 1, 2 * GB, 1)
    request(apps[1], 1, GB, 2)
    queue = cs.leaves["a"]
    assert cs._active_users(queue) == 1  # only user_0 has outstanding requests
    used = []
    for host in ("127.0.0.1", "127.0.0.1", "127.0.0.2"):
        _leaf_call(cs, rm, "a", host)
        used.append((queue.used_mem / GB, apps[0].used_mem / GB, apps[1].used_mem / GB))
    # the third container goes to user_0 too: user_1 asks for nothing, so it does not halve the limit
    assert used == [(2, 2, 0), (3, 2, 1), (4, 2, 2)]


@hadoop("TestLeafQueue", "testComputeUserLimitAndSetHeadroom", V)
def test_compute_user_limit_and_set_headroom(tmp_path: Path) -> None:
    # queue b: 80 % of 16 GB (user limit 13 GB once normalised up), maximum capacity 100 %
    props = {P + "root.queues": "a,b", P + "root.a.capacity": "20", P + "root.b.capacity": "80",
             P + "root.b.maximum-capacity": "100", P + "maximum-am-resource-percent": "1.0"}
    nodes = [("127.0.0.1", "/default-rack"), ("127.0.0.2", "/default-rack")]
    cs, rm = _capacity(tmp_path, props, nodes)
    qb = cs.leaves["b"]
    # case 1: one user takes 4 GB: min(13 GB user limit, 16 GB queue maximum) - 4 GB = 9 GB
    app0 = app(0, "user_0", "b", am=(1.0, 1.0))
    cs.add_app(app0)
    request(app0, 1, 4 * GB, 1)
    _leaf_call(cs, rm, "b", "127.0.0.1")
    assert cs.headroom(app0) == 9 * GB
    # case 2: a second user takes 4 GB: 16 GB - 8 GB used bounds both headrooms at 8 GB
    app2 = app(2, "user_1", "b", am=(1.0, 1.0))
    cs.add_app(app2)
    request(app2, 2, 4 * GB, 1)
    _leaf_call(cs, rm, "b", "127.0.0.2")
    assert (qb.used_mem, app0.used_mem, app2.used_mem) == (8 * GB, 4 * GB, 4 * GB)
    assert (cs.headroom(app0), cs.headroom(app2)) == (8 * GB, 8 * GB)


@hadoop("TestLeafQueue", "testComputeUserLimitAndSetHeadroom", V)
def test_headroom_with_half_user_limit(tmp_path: Path) -> None:
    # case 3 of the same test, on a fresh queue: minimum-user-limit-percent 50; two users take 2 GB each; with no
    # request outstanding the limit is 50 % of 13 GB, 7 GB once rounded up: headroom 7 - 2 = 5 GB for both
    props = {P + "root.queues": "a,b", P + "root.a.capacity": "20", P + "root.b.capacity": "80",
             P + "root.b.maximum-capacity": "100", P + "root.b.minimum-user-limit-percent": "50",
             P + "maximum-am-resource-percent": "1.0"}
    cs, rm = _capacity(tmp_path, props, [("127.0.0.1", "/default-rack"), ("127.0.0.2", "/default-rack")])
    app1, app3 = app(1, "user_0", "b", am=(1.0, 1.0)), app(3, "user_1", "b", am=(1.0, 1.0))
    for a, priority in ((app1, 1), (app3, 2)):
        request(a, priority, 2 * GB, 1)
        cs.add_app(a)
    _leaf_call(cs, rm, "b", "127.0.0.1")
    _leaf_call(cs, rm, "b", "127.0.0.1")
    assert cs.leaves["b"].used_mem == 4 * GB
    assert (cs.headroom(app3), cs.headroom(app1)) == (5 * GB, 5 * GB)
