"""Small builders for hand-computed engine tests."""

from __future__ import annotations

from pathlib import Path

from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import ClusterSpec, TrackerSpec, uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
import numpy as np

from mrsim.tracker.replay import ReplayOptions, ReplayResult, replay
from mrsim.model.templates import JobTemplate, Priority, Workload
from tests.data import shared_data_dir

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = shared_data_dir()  # $MRSIM_SHARED_DATA or ../shared/data (tests/data.py)


def job(job_id: str, submit: float, maps=(), reduces=(), first=(), typical=(), priority=Priority.NORMAL,
        **kw) -> JobTemplate:
    return JobTemplate(job_id=job_id, submit_s=submit, map_durations=list(maps), reduce_durations=list(reduces),
                       first_shuffle_durations=list(first), typical_shuffle_durations=list(typical),
                       priority=priority, **kw)


def one_node(map_slots: int, reduce_slots: int) -> ClusterSpec:
    return ClusterSpec((TrackerSpec("n1", map_slots=map_slots, reduce_slots=reduce_slots),))


def run(jobs, cluster=None, *, interval=0.0, slowstart=0.05, scheduler="fifo", **opts) -> ReplayResult:
    cluster = cluster or uniform_cluster(1, 2, 1)
    conf = HadoopConf(slowstart_completed_maps=slowstart)
    options = ReplayOptions(heartbeat_interval_s=interval, check_invariants=True, aligned_heartbeats=True, **opts)
    return replay(Workload.of(jobs, source="test"), cluster, conf, create_scheduler(scheduler), options)


def starts(result: ReplayResult, job_id: str, kind: str = "MAP") -> list[float]:
    t = result.tasks
    sel = t[(t.job_id == job_id) & (t.type == kind)].sort_values("task")
    return [round(x, 6) for x in sel.start_s]


def finishes(result: ReplayResult, job_id: str, kind: str = "MAP") -> list[float]:
    t = result.tasks
    sel = t[(t.job_id == job_id) & (t.type == kind)].sort_values("task")
    return [round(x, 6) for x in sel.finish_s]


def job_finish(result: ReplayResult, job_id: str) -> float:
    return round(float(result.jobs.set_index("job_id").loc[job_id, "finish_s"]), 6)


def random_workload(seed: int, jobs: int = 25) -> Workload:
    """Seeded random jobs of every kind (map-less, reduce-less, first/typical shuffles, priorities)."""
    rng = np.random.default_rng(seed)
    out = []
    t = 0.0
    for j in range(jobs):
        t += float(rng.exponential(20.0))
        m = int(rng.integers(0, 30)) if j % 7 else 0
        r = int(rng.integers(0 if m else 1, 8))
        out.append(JobTemplate(
            job_id=f"job_{j:04d}", submit_s=t,
            map_durations=rng.lognormal(2.5, 1.0, m), reduce_durations=rng.lognormal(2.0, 1.0, r),
            first_shuffle_durations=rng.uniform(0, 5, int(rng.integers(0, 3))),
            typical_shuffle_durations=rng.uniform(0, 10, int(rng.integers(0, 3))),
            priority=Priority(int(rng.integers(0, 5))),
        ))
    return Workload.of(out, source=f"random seed {seed}")
