"""Heartbeat formulas (docs/hadoop-behaviour.md §7 worked numbers), mapred-site.xml, cluster files, FIFO padding."""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.model.cluster import load_cluster_file, uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion, conf_from_mapred_site


@pytest.mark.parametrize("version,n,expected", [
    ("1.2", 20, 0.3), ("1.2", 500, 5.0), ("1.2", 64, 0.64), ("1.2", 30, 0.3),
    ("1.0", 20, 3.0), ("1.0", 450, 5.0), ("0.20", 64, 3.0), ("0.20", 1000, 10.0), ("0.20", 301, 4.0),
])
def test_heartbeat_interval(version, n, expected):
    assert HadoopConf(version=HadoopVersion.parse(version)).heartbeat_interval_s(n) == pytest.approx(expected)


def test_mapred_site_keys(tmp_path):
    f = tmp_path / "mapred-site.xml"
    f.write_text("""<?xml version="1.0"?><configuration>
      <property><name>mapred.tasktracker.map.tasks.maximum</name><value>4</value></property>
      <property><name>mapred.tasktracker.reduce.tasks.maximum</name><value>2</value></property>
      <property><name>mapred.reduce.slowstart.completed.maps</name><value>0.8</value></property>
      <property><name>mapred.heartbeats.in.second</name><value>50</value></property>
      <property><name>mapreduce.tasktracker.outofband.heartbeat</name><value>true</value></property>
      <property><name>mapred.jobtracker.taskScheduler</name><value>org.apache.hadoop.mapred.JobQueueTaskScheduler</value></property>
      <property><name>io.sort.mb</name><value>100</value></property>
    </configuration>""")
    conf = conf_from_mapred_site(f)
    assert (conf.map_slots, conf.reduce_slots, conf.slowstart_completed_maps) == (4, 2, 0.8)
    assert conf.outofband_heartbeat and conf.scheduler == "fifo"
    assert conf.heartbeat_interval_s(100) == pytest.approx(2.0)  # 1000 * 100 / 50 ms
    assert conf.ignored_keys == ("io.sort.mb",)


def test_bad_mapred_site(tmp_path):
    f = tmp_path / "m.xml"
    f.write_text("<configuration><property><name>mapred.reduce.slowstart.completed.maps</name><value>x</value></property></configuration>")
    with pytest.raises(InputError, match="slowstart"):
        conf_from_mapred_site(f)
    f.write_text("<configuration><property>")
    with pytest.raises(InputError, match="not well-formed"):
        conf_from_mapred_site(f)


def test_cluster_file_toml(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("""
[defaults]
map_slots = 2
reduce_slots = 1
[[racks]]
name = "/r1"
count = 3
[[racks]]
name = "/r2"
hosts = ["a", "b"]
map_slots = 4
[[nodes]]
name = "a"
speed = 2.0
""")
    c = load_cluster_file(f)
    assert len(c) == 5 and c.racks == ("/r1", "/r2")
    assert c.map_slots == 2 * 3 + 4 * 2
    a = next(t for t in c.trackers if t.name == "a")
    assert a.speed == 2.0 and a.map_slots == 4 and a.rack == "/r2"


def test_cluster_file_errors(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("[[racks]]\nname='x'\n")
    with pytest.raises(InputError, match="count"):
        load_cluster_file(f)
    f.write_text("[defaults]\nslots = 3\n")
    with pytest.raises(InputError, match="unknown key"):
        load_cluster_file(f)


def test_uniform_cluster_racks():
    c = uniform_cluster(10, 1, 1, racks=2)
    assert c.racks == ("/rack01", "/rack02") and len(c) == 10


def test_fifo_padding_worked_example():
    # docs/hadoop-behaviour.md §7, JobQueueTaskScheduler.exceededPadding:
    # 10 TTs, map capacity 40, 38 maps running, jobs with reduces want 300 maps ->
    # padding = min(4, trunc(300 * 0.01)) = 3 -> 38 + 3 >= 40 -> exceeded. With 36 running: 39 < 40 -> not.
    from mrsim.tracker.fifo_core import exceeded_padding  # FifoScheduler's rule, compiled with the engine core

    assert exceeded_padding(38, 40, 300, 4, pad=0.01, padding_enabled=True, with_reduces=True)
    assert not exceeded_padding(36, 40, 300, 4, pad=0.01, padding_enabled=True, with_reduces=True)
    # 3 trackers or fewer: padding 0
    assert not exceeded_padding(38, 40, 300, 4, pad=0.01, padding_enabled=False, with_reduces=True)
    # no running job with reduces: never exceeded
    assert not exceeded_padding(40, 40, 300, 4, pad=0.01, padding_enabled=True, with_reduces=False)
