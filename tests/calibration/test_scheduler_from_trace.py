"""The scheduler a trace's job confs name, and 0.21's CapacityTaskScheduler hand-out (hand-computed timelines)."""

from __future__ import annotations

from mrsim.profiler.trace_conf import CAPACITY_021, TraceConf, scheduler_settings
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import scheduler_from
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from tests.tracker.helpers import finishes, job, job_finish, one_node, starts

CAPACITY = "org.apache.hadoop.mapred.CapacityTaskScheduler"


def _run(scheduler: str, config: dict | None = None):
    # One TaskTracker with 3 map slots and 1 reduce slot, heartbeats every 1 s at 0, 1, 2, ... (no out-of-band
    # heartbeats); one job of 3 maps of 10 s and 1 reduce of 2 s (slow start 1: the reduce waits for every map).
    options = ReplayOptions(heartbeat_interval_s=1.0, check_invariants=True, aligned_heartbeats=True)
    return replay(Workload.of([job("j", 0.0, maps=[10, 10, 10], reduces=[2], typical=[1])], source="test"),
                  one_node(3, 1), HadoopConf(slowstart_completed_maps=1.0), scheduler_from(scheduler, config), options)


def test_capacity_021_hands_out_one_map_per_heartbeat():
    # 0.21's CapacityTaskScheduler.assignTasks: at most one map (and one reduce) per heartbeat. The maps start at
    # the heartbeats at 0, 1 and 2 and end at 10, 11, 12; the last is reported at the heartbeat at 12, the reduce
    # is assigned there, shuffles 1 s and reduces 2 s: 12 + 1 + 2 = 15.
    r = _run("capacity", CAPACITY_021)
    assert starts(r, "j") == [0, 1, 2]
    assert finishes(r, "j") == [10, 11, 12]
    assert job_finish(r, "j") == 15
    # FIFO (JobQueueTaskScheduler) and the 1.x Capacity Scheduler fill every free map slot in one heartbeat: all
    # three maps at 0, done at 10, the reduce 10 + 1 + 2 = 13.
    for name in ("fifo", "capacity"):
        plain = _run(name)
        assert starts(plain, "j") == [0, 0, 0] and job_finish(plain, "j") == 13


def _conf_of(*values: str) -> TraceConf:
    conf = TraceConf()
    for key, value in values:
        conf.add_job({"jobProperties": {key: value}})
    return conf


def test_the_trace_conf_names_the_scheduler():
    changes, used, warnings = _conf_of(("mapreduce.jobtracker.taskscheduler", CAPACITY)).changes()
    assert changes == {"scheduler": "capacity"} and not warnings
    assert scheduler_settings(used) == (CAPACITY_021, scheduler_settings(used)[1])
    assert "0.21" in (scheduler_settings(used)[1] or "")
    # The 1.x name: the 1.x Capacity Scheduler as mrsim's plug-in has it, no 0.21 settings.
    changes, used, _ = _conf_of(("mapred.jobtracker.taskScheduler", CAPACITY)).changes()
    assert changes == {"scheduler": "capacity"} and scheduler_settings(used)[0] == {}
    changes, used, _ = _conf_of(("mapred.jobtracker.taskScheduler",
                                 "org.apache.hadoop.mapred.JobQueueTaskScheduler")).changes()
    assert changes == {"scheduler": "fifo"}
    # A class mrsim does not emulate is reported and ignored (the run keeps its default).
    changes, used, warnings = _conf_of(("mapreduce.jobtracker.taskscheduler", "com.example.MyScheduler")).changes()
    assert changes == {} and used == {}
    assert warnings == ["trace conf: mapreduce.jobtracker.taskscheduler = 'com.example.MyScheduler' is not a "
                        "scheduler mrsim emulates; ignored"]
    assert scheduler_settings({}) == ({}, None)
