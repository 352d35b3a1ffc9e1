"""Builders for the TDAM tests: one-node clusters, demand-carrying templates, replays, concurrency."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mrsim.tracker.replay import ReplayOptions, ReplayResult, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from tests.tracker.helpers import SHARED_DATA as ENGINE_SHARED_DATA

REPO = Path(__file__).resolve().parents[4]
EXAMPLES = REPO / "examples" / "jobspecs"
SHARED_DATA = ENGINE_SHARED_DATA  # one definition: $MRSIM_SHARED_DATA or ../shared/data


def node(map_slots: int, cores: int = 1, *, disks: int = 1, reduce_slots: int = 1, speed: float = 1.0,
         name: str = "n1") -> TrackerSpec:
    return TrackerSpec(name, map_slots=map_slots, reduce_slots=reduce_slots, cores=cores, disks=disks, speed=speed)


def cluster(*trackers: TrackerSpec) -> ClusterSpec:
    return ClusterSpec(tuple(trackers))


def demand_job(job_id: str, submit: float, maps=(), reduces=(), *, first=(), typical=(), **kw) -> JobTemplate:
    """A job whose tasks are given as (cpu, disk) demand pairs; durations are the demands' totals."""
    m = np.array([[c, d, 0.0] for c, d in maps]).reshape(len(maps), 3)
    r = np.array([[c, d, 0.0] for c, d in reduces]).reshape(len(reduces), 3)
    return JobTemplate(job_id=job_id, submit_s=submit, map_durations=m.sum(axis=1), reduce_durations=r.sum(axis=1),
                       first_shuffle_durations=list(first), typical_shuffle_durations=list(typical),
                       map_demands=m if maps else None, reduce_demands=r if reduces else None, **kw)


def run(workload, cluster_spec: ClusterSpec, *, scheduler: str = "fifo", config: dict | None = None,
        interval: float | None = 0.0, contention: str | None = "tdam", slowstart: float = 0.05,
        **opts) -> ReplayResult:
    if not isinstance(workload, Workload):
        workload = Workload.of(list(workload), source="test")
    options = ReplayOptions(heartbeat_interval_s=interval, contention=contention, check_invariants=True,
                            aligned_heartbeats=True, **opts)
    return replay(workload, cluster_spec, HadoopConf(slowstart_completed_maps=slowstart),
                  create_scheduler(scheduler, config), options)


def finish(result: ReplayResult, job_id: str) -> float:
    return float(result.jobs.set_index("job_id").loc[job_id, "finish_s"])


def task_times(result: ReplayResult, job_id: str, kind: str = "MAP") -> list[tuple[float, float]]:
    t = result.tasks
    sel = t[(t.job_id == job_id) & (t.type == kind)].sort_values("task")
    return list(zip(sel.start_s.tolist(), sel.finish_s.tolist()))


def peak_concurrency(result: ReplayResult, kind: str = "MAP") -> int:
    t = result.tasks[result.tasks.type == kind]
    events = sorted([(s, 1) for s in t.start_s] + [(f, -1) for f in t.finish_s], key=lambda e: (e[0], e[1]))
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    return peak
