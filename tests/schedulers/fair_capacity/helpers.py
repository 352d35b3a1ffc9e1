"""Builders for the Fair/Capacity scheduler tests: tiny workloads, replays, concurrency read from the task table."""

from __future__ import annotations

from pathlib import Path

from mrsim.tracker.replay import ReplayOptions, ReplayResult, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Priority, Workload

REPO = Path(__file__).resolve().parents[3]


def job(job_id: str, submit: float, maps=(), reduces=(), *, user="u", queue="default", priority=Priority.NORMAL,
        typical=(), **kw) -> JobTemplate:
    return JobTemplate(job_id=job_id, submit_s=submit, map_durations=list(maps), reduce_durations=list(reduces),
                       typical_shuffle_durations=list(typical), user=user, queue=queue, priority=priority, **kw)


def nodes(n: int, map_slots: int, reduce_slots: int) -> ClusterSpec:
    return ClusterSpec(tuple(TrackerSpec(f"n{i + 1}", map_slots=map_slots, reduce_slots=reduce_slots) for i in range(n)))


def run(jobs, cluster, scheduler: str, config: dict | None = None, *, interval: float = 0.0, slowstart: float = 0.05,
        **opts) -> ReplayResult:
    conf = HadoopConf(slowstart_completed_maps=slowstart)
    options = ReplayOptions(heartbeat_interval_s=interval, check_invariants=True, aligned_heartbeats=True, **opts)
    return replay(Workload.of(jobs, source="test"), cluster, conf, create_scheduler(scheduler, config), options)


def starts(result: ReplayResult, job_id: str, kind: str = "MAP") -> list[float]:
    t = result.tasks
    sel = t[(t.job_id == job_id) & (t.type == kind)].sort_values("task")
    return [round(x, 6) for x in sel.start_s]


def running_at(result: ReplayResult, t: float, job_id: str | None = None, kind: str = "MAP") -> int:
    """Tasks of ``kind`` (of one job, or all) occupying a slot at time ``t`` (start <= t < finish)."""
    tasks = result.tasks
    sel = tasks[(tasks.type == kind) & (tasks.start_s <= t) & (tasks.finish_s > t)]
    if job_id is not None:
        sel = sel[sel.job_id == job_id]
    return int(len(sel))


def peak(result: ReplayResult, job_ids=None, kind: str = "MAP") -> int:
    """Largest number of tasks of ``kind`` (of the given jobs) running at once."""
    tasks = result.tasks[result.tasks.type == kind]
    if job_ids is not None:
        tasks = tasks[tasks.job_id.isin(list(job_ids))]
    events = sorted([(s, 1) for s in tasks.start_s] + [(f, -1) for f in tasks.finish_s], key=lambda e: (e[0], e[1]))
    level = best = 0
    for _, d in events:
        level += d
        best = max(best, level)
    return best
