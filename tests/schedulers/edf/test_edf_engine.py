"""MaxEDF and MinEDF on seeded random workloads: invariants after every event, parked == naive heartbeats,
quotas respected, EDF order of first launches."""

from __future__ import annotations

import functools

import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion
from mrsim.schedulers.maxedf import MaxEdfScheduler
from mrsim.schedulers.minedf import MinEdfScheduler
from mrsim.studies.deadlines import assign_deadlines
from tests.schedulers.edf.helpers import peak_concurrency, random_workload

SCHEDULERS = {"maxedf": MaxEdfScheduler, "minedf": MinEdfScheduler}


@functools.cache  # each (seed, cluster) workload serves both schedulers and every interval: deadlines computed once
def deadlined(seed: int, cluster, df: float = 2.0, jobs: int = 25):
    """A seeded random workload with SimMR deadlines (read-only: templates are frozen and no replay mutates them)."""
    return assign_deadlines(random_workload(seed, jobs), cluster, HadoopConf(), df, seed, ReplayOptions(seed=seed))


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("interval,oob", [(0.0, False), (0.7, False), (3.0, True)])
def test_invariants_after_every_event(name, seed, interval, oob):
    cluster = uniform_cluster(6, 2, 1)
    w = deadlined(seed, cluster)
    conf = HadoopConf(slowstart_completed_maps=[0.0, 0.05, 1.0][seed], outofband_heartbeat=oob)
    r = replay(w, cluster, conf, SCHEDULERS[name](), ReplayOptions(heartbeat_interval_s=interval, seed=seed,
                                                                  check_invariants=True))
    assert len(r.tasks) == w.n_tasks and not r.tasks.duplicated(["job_id", "type", "task"]).any()
    assert (r.jobs.finish_s >= r.jobs.submit_s).all()


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("version", ["1.2", "0.20"])
def test_parked_heartbeats_equal_naive_heartbeats(name, seed, version):
    cluster = uniform_cluster(5 + seed, 2, 2)
    w = deadlined(100 + seed, cluster, df=[1.0, 1.5, 2.0, 3.0][seed], jobs=30)
    conf = HadoopConf(version=HadoopVersion.parse(version))
    fast = replay(w, cluster, conf, SCHEDULERS[name](), ReplayOptions(seed=seed))
    naive = replay(w, cluster, conf, SCHEDULERS[name](), ReplayOptions(seed=seed, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks) and fast.jobs.equals(naive.jobs)
    assert fast.summary["events"] < naive.summary["events"]


@pytest.mark.parametrize("seed", range(3))
def test_minedf_never_exceeds_a_jobs_wanted_slots(seed):
    cluster = uniform_cluster(8, 2, 2)
    w = deadlined(seed, cluster, df=3.0)
    sched = MinEdfScheduler()
    r = replay(w, cluster, HadoopConf(), sched, ReplayOptions(seed=seed, check_invariants=True))
    limited = 0
    for job in sched.jt.jobs:
        want = sched.wanted(job)
        t = r.tasks[r.tasks.job_id == job.job_id]
        for kind, quota, n in (("MAP", want.maps, job.n_maps), ("REDUCE", want.reduces, job.n_reduces)):
            sel = t[t.type == kind]
            if len(sel):
                assert peak_concurrency(sel.start_s, sel.finish_s) <= quota
            limited += quota < min(n, cluster.map_slots if kind == "MAP" else cluster.reduce_slots)
    assert limited > 0  # the quotas really bind in this workload


def test_first_launch_follows_deadline_order_when_jobs_queue():
    # Everything arrives at once on a one-slot cluster: jobs start strictly in (deadline, submit) order.
    from mrsim.model.templates import JobTemplate, Workload

    deadlines = [50.0, 10.0, None, 30.0, 10.0]
    jobs = [JobTemplate(f"j{i}", 0.0, [1.0], [], deadline_s=d) for i, d in enumerate(deadlines)]
    r = replay(Workload.of(jobs), uniform_cluster(1, 1, 1), HadoopConf(), MaxEdfScheduler(),
               ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True))
    order = list(r.jobs.sort_values("start_s").job_id)
    assert order == ["j1", "j4", "j3", "j0", "j2"]
