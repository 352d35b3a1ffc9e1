"""Parked heartbeats == naive heartbeats for Fair and Capacity on seeded random workloads, with the schedulers'
timers (update ticks, preemption checks), delay scheduling, limits and preemption all active; and the engine's
invariants after every event."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion
from mrsim.model.templates import JobTemplate, Priority, Workload
from tests.schedulers.fair_capacity.helpers import REPO

Q = "mapred.capacity-scheduler.queue."
ALLOC = """<allocations>
  <pool name="a"><minMaps>3</minMaps><minReduces>2</minReduces><minSharePreemptionTimeout>5</minSharePreemptionTimeout>
    <schedulingMode>fifo</schedulingMode></pool>
  <pool name="b"><weight>2</weight><maxMaps>6</maxMaps><maxRunningJobs>2</maxRunningJobs></pool>
  <userMaxJobsDefault>4</userMaxJobsDefault>
  <fairSharePreemptionTimeout>20</fairSharePreemptionTimeout>
</allocations>"""
CONFIGS = {
    "fair": {"mapred.fairscheduler.preemption": True, "mapred.fairscheduler.preemption.interval": 5000,
             "mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"},
    "fair-example": {"config_file": str(REPO / "examples" / "fair-allocations.xml"),
                     "mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"},
    "fair-users": {},
    "capacity": {"mapred.queue.names": "default,a,b", Q + "default.capacity": 50, Q + "a.capacity": 30,
                 Q + "b.capacity": 20, Q + "a.user-limit-factor": 2, Q + "b.maximum-capacity": 40,
                 Q + "default.minimum-user-limit-percent": 25, Q + "default.supports-priority": True},
}


def random_workload(seed: int, jobs: int = 30) -> Workload:
    """Random sizes and arrivals, three users and queues, priorities, and split locations on half the jobs
    (on hosts outside the cluster, so the Fair Scheduler's delay scheduling waits)."""
    rng = np.random.default_rng(seed)
    out = []
    t = 0.0
    for j in range(jobs):
        t += float(rng.exponential(15.0))
        m = int(rng.integers(1, 25))
        r = int(rng.integers(0, 6))
        locs = tuple(("/default-rack/h",) for _ in range(m)) if rng.random() < 0.5 else None
        out.append(JobTemplate(
            job_id=f"job_{j:04d}", submit_s=t, map_durations=rng.lognormal(2.5, 1.0, m),
            reduce_durations=rng.lognormal(2.0, 1.0, r), typical_shuffle_durations=rng.uniform(0, 5, 2),
            first_shuffle_durations=rng.uniform(0, 3, 1), priority=Priority(int(rng.integers(0, 5))),
            user=f"u{int(rng.integers(1, 4))}", queue=("default", "a", "b")[int(rng.integers(0, 3))],
            map_locations=locs,
        ))
    return Workload.of(out, source=f"random seed {seed}")


@pytest.fixture(scope="module")
def alloc_file(tmp_path_factory) -> str:
    f = tmp_path_factory.mktemp("fc") / "alloc.xml"
    f.write_text(ALLOC)
    return str(f)


def config(name: str, alloc_file: str) -> dict:
    return dict(CONFIGS[name], config_file=alloc_file) if name == "fair" else CONFIGS[name]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_parked_heartbeats_equal_naive_heartbeats(name, seed, alloc_file):
    w = random_workload(200 + seed)
    conf = HadoopConf(version=HadoopVersion.parse("1.2" if seed != 1 else "0.20"), slowstart_completed_maps=0.3)
    cluster = uniform_cluster(5 + seed, 2, 2)
    scheduler = name.split("-")[0]
    fast = replay(w, cluster, conf, create_scheduler(scheduler, config(name, alloc_file)),
                  ReplayOptions(seed=seed, check_invariants=True))
    naive = replay(w, cluster, conf, create_scheduler(scheduler, config(name, alloc_file)),
                   ReplayOptions(seed=seed, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks)
    assert fast.jobs.equals(naive.jobs)
    assert fast.summary["killed_tasks"] == naive.summary["killed_tasks"]
    assert fast.summary["events"] < naive.summary["events"]
    assert len(fast.tasks) == w.n_tasks and (fast.jobs.finish_s >= fast.jobs.submit_s).all()


def test_preemption_happens_in_the_equivalence_workload(alloc_file):
    # Guard that the equivalence test above exercises preemption (kills) at all.
    w = random_workload(200)
    r = replay(w, uniform_cluster(5, 2, 2), HadoopConf(slowstart_completed_maps=0.3),
               create_scheduler("fair", config("fair", alloc_file)), ReplayOptions(seed=0))
    assert r.summary["killed_tasks"] > 0 and r.summary["wasted_slot_s"] > 0
