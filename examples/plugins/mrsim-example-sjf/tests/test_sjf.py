"""Tests for the example plug-in: one hand-computed timeline and the mrsim checker battery."""

from __future__ import annotations

from mrsim.analysis.checker import check_scheduler
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from mrsim_example_sjf import SmallestJobFirstScheduler


def test_smaller_job_overtakes_a_bigger_one():
    # One node, one map slot, task-completion mode. At t=0 the big job (3 maps of 10 s) takes the slot; the
    # small job (1 map of 5 s) arrives at t=1 and runs next, at t=10, before the big job's other maps.
    jobs = [JobTemplate("job_big", 0.0, [10.0, 10.0, 10.0], []), JobTemplate("job_small", 1.0, [5.0], [])]
    result = replay(Workload.of(jobs), uniform_cluster(1, 1, 1), HadoopConf(), SmallestJobFirstScheduler(),
                    ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True))
    finish = dict(zip(result.jobs.job_id, result.jobs.finish_s))
    assert finish == {"job_big": 35.0, "job_small": 15.0}


def test_passes_the_checker():
    report = check_scheduler(SmallestJobFirstScheduler, name="sjf")
    assert report.passed, [f"{f.case.name}: {f.message}" for f in report.failures]
