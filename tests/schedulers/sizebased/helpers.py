"""Builders for hand-computed slot-level size-based tests."""

from __future__ import annotations

import numpy as np

from mrsim.tracker.replay import ReplayOptions, ReplayResult, replay
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from mrsim.schedulers._sizebased import SizeBasedScheduler


def job(job_id: str, submit: float, maps=(), reduces=(), typical=()) -> JobTemplate:
    return JobTemplate(job_id=job_id, submit_s=submit, map_durations=list(maps), reduce_durations=list(reduces),
                       typical_shuffle_durations=list(typical))


def node(map_slots: int, reduce_slots: int = 0) -> ClusterSpec:
    return ClusterSpec((TrackerSpec("n1", map_slots=map_slots, reduce_slots=reduce_slots),))


def with_factors(cls: type[SizeBasedScheduler], factors: list[float], config: dict | None = None) -> SizeBasedScheduler:
    """A scheduler whose estimation-error factors are fixed by hand (one per job, workload order)."""

    class Fixed(cls):  # type: ignore[valid-type, misc]
        def start(self, jt):  # type: ignore[no-untyped-def]
            super().start(jt)
            self.factors = np.asarray(factors, dtype=float)

    return Fixed(config or {})


def run(jobs, scheduler: SizeBasedScheduler, cluster: ClusterSpec | None = None, *, interval: float = 0.0,
        slowstart: float = 0.05, **opts) -> ReplayResult:
    options = ReplayOptions(heartbeat_interval_s=interval, check_invariants=True, aligned_heartbeats=True, **opts)
    return replay(Workload.of(jobs, source="test"), cluster or node(1), HadoopConf(slowstart_completed_maps=slowstart),
                  scheduler, options)


def finish(result: ReplayResult) -> dict[str, float]:
    return {r.job_id: round(float(r.finish_s), 6) for r in result.jobs.itertuples()}


def map_starts(result: ReplayResult) -> list[tuple[str, float]]:
    """(job, start) of every map attempt that completed, in start order (ties by job id)."""
    t = result.tasks[result.tasks.type == "MAP"].sort_values(["start_s", "job_id", "task"])
    return [(j, round(float(s), 6)) for j, s in zip(t.job_id, t.start_s)]
