"""mrsim.tracker.schedconf: MRv1 and YARN allocation / capacity files, defaults, warnings, and InputErrors naming the file."""

from __future__ import annotations

import math

import pytest

from mrsim.cli import main
from mrsim.tracker.schedconf import (Dialect, PlacementKind, SchedulingMode, load_allocations, load_capacity_conf,
                                    load_fair_conf)
from mrsim.errors import InputError
from tests.schedulers.fair_capacity.helpers import REPO

EXAMPLES = REPO / "examples"


def test_mrv1_allocation_file_every_key():
    """PoolManager.reloadAllocs: every element of the example file; timeouts are seconds in the file."""
    a = load_allocations(EXAMPLES / "fair-allocations.xml")
    assert a.dialect is Dialect.MRV1 and a.warnings == ()
    pa, pb = a.pool("a"), a.pool("b")
    assert (pa.min_maps, pa.min_reduces, pa.weight, pa.scheduling_mode) == (4, 2, 2.0, SchedulingMode.FIFO)
    assert pa.min_share_preemption_timeout_s == 30
    assert (pb.max_maps, pb.max_reduces, pb.max_running_jobs, pb.weight) == (10, 6, 3, 1.0)
    assert a.user_limit("u1") == 4 and a.user_limit("someone") == 8
    assert a.pool_limit("b") == 3 and a.pool_limit("undeclared") == 20
    assert a.min_share_timeout_s("a") == 30 and a.min_share_timeout_s("b") == 60
    assert a.fair_share_timeout_s("b") == 120
    assert a.mode("b") is SchedulingMode.FAIR and a.mode("undeclared") is SchedulingMode.FAIR


def test_defaults_without_files():
    """FairScheduler.start defaults: assignmultiple on, preemption off, update 500 ms, auto locality delay."""
    c = load_fair_conf({})
    assert c.assignmultiple and not c.preemption and c.update_interval_s == 0.5 and c.poolnameproperty == "user.name"
    assert c.locality_delays_s(0.3) == pytest.approx((0.45, 0.45))  # 1.5 x heartbeat interval
    assert c.locality_delays_s(20.0) == (15.0, 15.0)  # capped at MAX_AUTOCOMPUTED_LOCALITY_DELAY
    # One explicit delay with locality.delay unset is discarded (Hadoop's auto-compute overwrites both).
    assert load_fair_conf({"mapred.fairscheduler.locality.delay.node": 5000}).locality_delays_s(1.0) == (1.5, 1.5)
    both = load_fair_conf({"mapred.fairscheduler.locality.delay.node": 5000,
                           "mapred.fairscheduler.locality.delay.rack": 10000})
    assert both.locality_delays_s(1.0) == (5.0, 10.0)


def test_mapred_site_configuration_file_names_the_allocation_file(tmp_path):
    alloc = tmp_path / "alloc.xml"
    alloc.write_text("<allocations><pool name='p'><minMaps>3</minMaps></pool><bogus/></allocations>")
    site = tmp_path / "site.xml"
    site.write_text("<configuration>"
                    "<property><name>mapred.fairscheduler.allocation.file</name><value>alloc.xml</value></property>"
                    "<property><name>mapred.fairscheduler.preemption</name><value>true</value></property>"
                    "<property><name>mapred.fairscheduler.weightadjuster</name><value>x.Y</value></property>"
                    "</configuration>")
    c = load_fair_conf({"config_file": str(site), "mapred.fairscheduler.assignmultiple": False})
    assert c.preemption and not c.assignmultiple and c.allocations.pool("p").min_maps == 3
    assert any("bogus" in w and "alloc.xml:1" in w for w in c.warnings)
    assert any("weightadjuster is not modelled" in w for w in c.warnings)


YARN_FAIR = """<?xml version="1.0"?>
<allocations>
  <queue name="production">
    <minResources>4096 mb,4 vcores</minResources>
    <maxResources>8192 mb, 100 vcores</maxResources>
    <weight>2.0</weight>
    <maxRunningApps>20</maxRunningApps>
    <schedulingPolicy>fifo</schedulingPolicy>
    <minSharePreemptionTimeout>60</minSharePreemptionTimeout>
    <maxAMShare>0.5</maxAMShare>
  </queue>
  <queue name="research" type="parent">
    <weight>1.0</weight>
    <queue name="ml"><weight>3</weight><minResources>25%</minResources></queue>
    <queue name="etl"><weight>1</weight><schedulingPolicy>drf</schedulingPolicy></queue>
  </queue>
  <user name="alice"><maxRunningApps>5</maxRunningApps></user>
  <userMaxAppsDefault>10</userMaxAppsDefault>
  <queueMaxAppsDefault>50</queueMaxAppsDefault>
  <defaultMinSharePreemptionTimeout>300</defaultMinSharePreemptionTimeout>
  <defaultFairSharePreemptionTimeout>600</defaultFairSharePreemptionTimeout>
  <defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>
  <queuePlacementPolicy>
    <rule name="specified"/>
    <rule name="user" create="false"/>
    <rule name="secondaryGroupExistingQueue"/>
    <rule name="default" queue="research.ml"/>
  </queuePlacementPolicy>
</allocations>
"""


def test_yarn_fair_file_maps_onto_pools(tmp_path):
    """AllocationFileLoaderService keys onto MRv1 pools: containers as slots, nested weights flattened."""
    f = tmp_path / "fair-scheduler.xml"
    f.write_text(YARN_FAIR)
    c = load_fair_conf({"config_file": str(f), "mapreduce.reduce.memory.mb": 2048})
    a = c.allocations
    assert a.dialect is Dialect.YARN and c.dialect is Dialect.YARN and not c.assignmultiple
    assert c.locality_delays_s(0.3) == (0.0, 0.0)  # YARN default: no locality waiting
    prod = a.pool("root.production")
    assert (prod.min_maps, prod.min_reduces) == (4, 2)  # 4096 MB / 1024 per map, / 2048 per reduce
    assert (prod.max_maps, prod.max_reduces) == (8, 4)
    assert prod.max_running_jobs == 20 and prod.scheduling_mode is SchedulingMode.FIFO and prod.weight == 2.0
    ml, etl = a.pool("root.research.ml"), a.pool("root.research.etl")
    assert ml.weight == pytest.approx(0.75) and etl.weight == pytest.approx(0.25)  # 1.0 x 3/4 and x 1/4
    assert ml.min_share_fraction == 0.25 and etl.scheduling_mode is SchedulingMode.FAIR
    assert a.user_limit("alice") == 5 and a.user_limit("bob") == 10 and a.pool_limit("root.x") == 50
    assert a.fair_share_preemption_timeout_s == 600 and a.default_min_share_preemption_timeout_s == 300
    assert [r.kind for r in a.placement] == [PlacementKind.SPECIFIED, PlacementKind.USER, PlacementKind.DEFAULT]
    assert a.placement[1].create is False and a.placement[2].queue == "root.research.ml"
    text = " ".join(a.warnings)
    assert "maxAMShare" in text and "secondaryGroupExistingQueue" in text and "drf" in text


def test_capacity_example_file_and_checks():
    c = load_capacity_conf({"config_file": str(EXAMPLES / "capacity-scheduler.xml")})
    q = {x.name: x for x in c.queues}
    assert [x.name for x in c.queues] == ["default", "production", "research"]
    assert q["production"].maximum_capacity_pct == 80 and q["production"].supports_priority
    assert q["production"].minimum_user_limit_percent == 25 and q["production"].user_limit_factor == 2
    assert q["research"].user_limit_factor == 3 and q["default"].user_limit_factor == 1
    assert q["default"].maximum_capacity_pct is None and c.maximum_tasks_after_offswitch == 0
    assert c.maximum_tasks_per_heartbeat == 32767 and not c.memory.enabled


def _props(path, props: dict) -> str:
    path.write_text("<configuration>" + "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items()) + "</configuration>")
    return str(path)


def test_capacities_not_summing_to_100_name_the_file(tmp_path):
    Q = "mapred.capacity-scheduler.queue."
    f = _props(tmp_path / "cap.xml", {"mapred.queue.names": "a,b", Q + "a.capacity": 60, Q + "b.capacity": 30})
    with pytest.raises(InputError, match=r"cap\.xml.*add up to 90, not 100"):
        load_capacity_conf({"config_file": f})
    f = _props(tmp_path / "cap2.xml", {"mapred.queue.names": "a,b", Q + "a.capacity": 100})
    with pytest.raises(InputError, match=r"cap2\.xml.*queue 'b'.*doesn't have configured capacity"):
        load_capacity_conf({"config_file": f})
    f = _props(tmp_path / "cap3.xml", {Q + "a.capacity": 100, Q + "a.maximum-capacity": 50})
    with pytest.raises(InputError, match=r"cap3\.xml:1: .*maximum-capacity.*below its capacity"):
        load_capacity_conf({"config_file": f})
    f = _props(tmp_path / "cap4.xml", {Q + "a.capacity": "lots"})
    with pytest.raises(InputError, match=r"cap4\.xml:1: .*capacity = 'lots' is not a number"):
        load_capacity_conf({"config_file": f})


@pytest.mark.parametrize("text,pattern", [
    ("<allocations><pool name='a'>", r"bad\.xml:1: not well-formed XML"),
    ("<fairscheduler/>", r"bad\.xml:1: looks like an XML file with root <fairscheduler>; the fair scheduler reads an "
                          r"allocation file \(<allocations>\)"),
    ("<allocations><pool name='a'><weight>0</weight></pool></allocations>", r"bad\.xml:1: <weight> must be positive"),
    ("<allocations>\n<pool name='a'>\n<minMaps>x</minMaps></pool></allocations>", r"bad\.xml:3: <minMaps> = 'x'"),
    ("<allocations><pool><minMaps>1</minMaps></pool></allocations>", r"bad\.xml:1: <pool> needs a name"),
])
def test_bad_allocation_files_are_input_errors_naming_the_file(tmp_path, text, pattern):
    f = tmp_path / "bad.xml"
    f.write_text(text)
    with pytest.raises(InputError, match=pattern):
        load_fair_conf({"config_file": str(f)})


def test_missing_file():
    with pytest.raises(InputError, match="nope.xml: no such file"):
        load_fair_conf({"config_file": "nope.xml"})


YARN_CAPACITY = {
    "yarn.scheduler.capacity.root.queues": "default,production,research",
    "yarn.scheduler.capacity.root.default.capacity": 20,
    "yarn.scheduler.capacity.root.production.capacity": 50,
    "yarn.scheduler.capacity.root.production.maximum-capacity": 80,
    "yarn.scheduler.capacity.root.production.user-limit-factor": 2,
    "yarn.scheduler.capacity.root.production.minimum-user-limit-percent": 25,
    "yarn.scheduler.capacity.root.research.capacity": 30,
    "yarn.scheduler.capacity.root.research.maximum-capacity": 50,
    "yarn.scheduler.capacity.root.research.queues": "ml,etl",
    "yarn.scheduler.capacity.root.research.ml.capacity": 60,
    "yarn.scheduler.capacity.root.research.etl.capacity": 40,
    "yarn.scheduler.capacity.maximum-am-resource-percent": 0.1,
}


def test_yarn_capacity_file_flattens_to_absolute_leaf_capacities(tmp_path):
    c = load_capacity_conf({"config_file": _props(tmp_path / "cs.xml", YARN_CAPACITY)})
    q = {x.name: x for x in c.queues}
    assert c.dialect is Dialect.YARN and list(q) == ["default", "production", "ml", "etl"]
    assert q["ml"].capacity_pct == pytest.approx(18.0) and q["etl"].capacity_pct == pytest.approx(12.0)
    assert q["ml"].maximum_capacity_pct == pytest.approx(50.0)  # research's 50 % x ml's (unset = 100 %)
    assert q["production"].maximum_capacity_pct == 80 and q["production"].user_limit_factor == 2
    assert q["ml"].aliases == ("root.research.ml",) and c.queue_index()["root.research.ml"] == 2
    assert any("maximum-am-resource-percent" in w for w in c.warnings)
    assert math.isclose(sum(x.capacity_pct for x in c.queues), 100.0)
    bad = dict(YARN_CAPACITY, **{"yarn.scheduler.capacity.root.research.etl.capacity": 30})
    with pytest.raises(InputError, match=r"cs2\.xml:1: the capacities of the children of root\.research"):
        load_capacity_conf({"config_file": _props(tmp_path / "cs2.xml", bad)})


def test_cli_reports_bad_scheduler_config_without_traceback(tmp_path, capsys):
    Q = "mapred.capacity-scheduler.queue."
    f = _props(tmp_path / "cap.xml", {"mapred.queue.names": "default,b", Q + "default.capacity": 70,
                                      Q + "b.capacity": 20})
    code = main(["replay", "--scheduler", "capacity", "--scheduler-config", f, "--nodes", "4"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("mrsim: error: ") and "cap.xml" in err and "Traceback" not in err
    code = main(["replay", "--scheduler", "fair", "--scheduler-config", str(tmp_path / "missing.xml")])
    assert code == 1 and "missing.xml: no such file" in capsys.readouterr().err
