"""Seeded random workloads under --contention tdam: invariants after every event, determinism, parked == naive
heartbeats, kills (preemption) taking tasks off their node."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from mrsim.schedulers.fifo import FifoScheduler


def random_workload(seed: int, jobs: int = 20) -> Workload:
    """Jobs with per-task (cpu, disk, memory) demands of a few shapes; some jobs without demands (fallback)."""
    rng = np.random.default_rng(seed)
    shapes = rng.uniform(0.0, 1.0, (4, 3)) * np.array([1.0, 0.6, 0.2])
    shapes[:, 0] += 0.2
    out, t = [], 0.0
    for j in range(jobs):
        t += float(rng.exponential(15.0))
        m = int(rng.integers(0, 12)) if j % 5 else 0
        r = int(rng.integers(0 if m else 1, 4))
        shape = shapes[rng.integers(len(shapes))]
        map_sizes = rng.lognormal(2.0, 0.7, m)
        red_sizes = rng.lognormal(1.5, 0.7, r)
        with_demands = j % 4 != 3
        out.append(JobTemplate(
            job_id=f"job_{j:03d}", submit_s=t, map_durations=map_sizes, reduce_durations=red_sizes,
            first_shuffle_durations=rng.uniform(0, 4, int(rng.integers(0, 2))),
            typical_shuffle_durations=rng.uniform(0, 6, int(rng.integers(0, 3))),
            map_demands=np.outer(map_sizes, shape) if with_demands else None,
            reduce_demands=np.outer(red_sizes, shape) if with_demands else None,
        ))
    return Workload.of(out, source=f"random tdam seed {seed}")


def mixed_cluster() -> ClusterSpec:
    # Oversubscribed and heterogeneous: slots exceed cores, one fast node, one node with two disks.
    return ClusterSpec((
        TrackerSpec("a", map_slots=4, reduce_slots=2, cores=1, disks=1),
        TrackerSpec("b", map_slots=3, reduce_slots=1, cores=2, disks=2),
        TrackerSpec("c", map_slots=2, reduce_slots=1, cores=4, disks=1, speed=1.5),
    ))


def check_result(result, workload: Workload, cluster: ClusterSpec) -> None:
    tasks = result.tasks
    assert len(tasks) == workload.n_tasks and not tasks.duplicated(["job_id", "type", "task"]).any()
    assert (tasks.start_s >= 0).all() and (tasks.finish_s >= tasks.start_s - 1e-9).all()
    red = tasks[tasks.type == "REDUCE"]
    assert (red.shuffle_end_s >= red.start_s - 1e-9).all() and (red.finish_s >= red.shuffle_end_s - 1e-9).all()
    slots = {t.name: {"MAP": t.map_slots, "REDUCE": t.reduce_slots} for t in cluster.trackers}
    for (tracker, kind), grp in tasks.groupby(["tracker", "type"]):
        ev = sorted([(s, 1) for s in grp.start_s] + [(f, -1) for f in grp.finish_s], key=lambda x: (x[0], x[1]))
        level = peak = 0
        for _, d in ev:
            level += d
            peak = max(peak, level)
        assert peak <= slots[tracker][kind]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("interval,oob,naive", [(0.0, False, False), (0.7, False, False), (3.0, True, False),
                                                (1.0, False, True)])
def test_invariants_after_every_event(seed, interval, oob, naive):
    w = random_workload(seed)
    conf = HadoopConf(slowstart_completed_maps=[0.0, 0.05, 0.5, 1.0][seed], outofband_heartbeat=oob)
    from mrsim.tracker.scheduling import create_scheduler

    c = mixed_cluster()
    r = replay(w, c, conf, create_scheduler("fifo"),
               ReplayOptions(heartbeat_interval_s=interval, contention="tdam", check_invariants=True, seed=seed,
                             naive_heartbeats=naive))
    check_result(r, w, c)


@pytest.mark.parametrize("seed", range(3))
def test_parked_heartbeats_equal_naive_heartbeats_under_contention(seed):
    from mrsim.tracker.scheduling import create_scheduler

    w = random_workload(50 + seed)
    c = mixed_cluster()
    fast = replay(w, c, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=seed, contention="tdam"))
    naive = replay(w, c, HadoopConf(), create_scheduler("fifo"),
                   ReplayOptions(seed=seed, contention="tdam", naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks) and fast.jobs.equals(naive.jobs)


@pytest.mark.parametrize("scheduler", ["fifo", "cafifo"])
def test_same_inputs_same_results(scheduler):
    from mrsim.tracker.scheduling import create_scheduler

    w = random_workload(7)
    runs = [replay(w, mixed_cluster(), HadoopConf(), create_scheduler(scheduler),
                   ReplayOptions(seed=3, contention="tdam")) for _ in range(2)]
    assert runs[0].tasks.equals(runs[1].tasks) and runs[0].jobs.equals(runs[1].jobs)
    assert runs[0].summary["makespan_s"] == runs[1].summary["makespan_s"]


class KillingFifo(FifoScheduler):
    """FIFO that preempts every few seconds: the newest running map (or reduce) of the oldest running job."""

    name = "killing-fifo"

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        self.kills = 0
        jt.schedule_timer(5.0, 0)

    def on_timer(self, now: float, token: int) -> None:
        jt = self.jt
        for job in sorted(jt.running_jobs.values(), key=lambda j: j.index):
            reduce = token % 2 == 1 and job.running_reduces > 0
            if (job.running_reduces if reduce else job.running_maps) and jt.kill_task(job, reduce) >= 0.0:
                self.kills += 1
                break
        if self.kills < 25 and jt.jobs_done < len(jt.jobs):
            jt.schedule_timer(now + 4.0, token + 1)


@pytest.mark.parametrize("interval", [0.0, 1.5])
def test_killed_tasks_leave_their_node_and_run_again(interval):
    w = random_workload(11)
    c = mixed_cluster()
    sched = KillingFifo()
    r = replay(w, c, HadoopConf(slowstart_completed_maps=0.0), sched,
               ReplayOptions(heartbeat_interval_s=interval, contention="tdam", check_invariants=True))
    assert sched.kills >= 10 and r.summary["killed_tasks"] == sched.kills
    check_result(r, w, c)


class KillReduceAt(FifoScheduler):
    """FIFO that kills the running reduce of the first job once, at a given time."""

    name = "kill-reduce-at"

    def __init__(self, at: float) -> None:
        super().__init__()
        self.at = at
        self.wasted = -1.0

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        jt.schedule_timer(self.at, 0)

    def on_timer(self, now: float, token: int) -> None:
        self.wasted = self.jt.kill_task(self.jt.jobs[0], True)


@pytest.mark.parametrize("slowstart,kill_at,expected", [
    # slowstart 1: the reduce launches at 10 and shuffles (typical, 100 s) until 110; killed at 50 it relaunches
    # at once, shuffles until 150, then runs 5 s of CPU alone: 155. The stale shuffle end at 110 is ignored.
    (1.0, 50.0, (50.0, 155.0)),
    # slowstart 0: a first-wave filler from 0; killed at 5 while waiting for the map stage, relaunched at 5;
    # the map ends at 10, the first shuffle takes 2 s, the reduce 5 s: 17.
    (0.0, 5.0, (5.0, 17.0)),
])
def test_killing_a_shuffling_reduce(slowstart, kill_at, expected):
    from tests.tracker.features.tdam.helpers import cluster, demand_job, node, task_times

    job = demand_job("j", 0.0, maps=[(10.0, 0.0)], reduces=[(5.0, 0.0)], first=[2.0], typical=[100.0])
    sched = KillReduceAt(kill_at)
    r = replay(Workload.of([job]), cluster(node(1, cores=1)), HadoopConf(slowstart_completed_maps=slowstart), sched,
               ReplayOptions(heartbeat_interval_s=0.0, contention="tdam", check_invariants=True))
    assert sched.wasted > 0.0
    assert task_times(r, "j", "REDUCE") == [pytest.approx(expected, rel=1e-12)]
