"""Run one YARN-mode replay: workload, cluster, YARN settings and a YARN scheduler in; a ``ReplayResult`` out.

The result has the same shape as the MR1 engine's (``mrsim.tracker.results``: the ``--json`` contract, jobs.csv,
tasks.csv) plus ``summary.yarn`` (containers, AM allocates, NodeManager heartbeats, reduce preemptions, the
per-queue summary of the time series) and ``spec.engine = "yarn"`` with the YARN settings used.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from mrsim import compiled_core
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.locality import LocalityMode
from mrsim.tracker.results import ReplayResult, _r
from mrsim.tracker.yarn.calibration import YarnCalibration
from mrsim.tracker.yarn.config import YarnConf
from mrsim.tracker.yarn.heartbeat import NodeUpdates
from mrsim.tracker.yarn.capacity_ordering import attach_priorities
from mrsim.tracker.yarn.preemption_monitor import monitor_for
from mrsim.tracker.yarn.rm import ResourceManager
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.tracker.yarn.schedulers.base import YarnScheduler
from mrsim.io.gc_policy import yarn_gc
from mrsim.errors import InputError, StalledError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import Workload

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.state import JobState


def replay_yarn(workload: Workload, cluster: ClusterSpec, conf: YarnConf, scheduler: YarnScheduler, *,
                seed: int = 0, aligned_heartbeats: bool = False, job_overheads: bool = True,
                queue_series: bool = True, locality: str = "auto", rack_local_slowdown: float = 1.0,
                off_switch_slowdown: float = 1.0, check: Callable[[ResourceManager], None] | None = None,
                progress: Callable[[int], None] | None = None, warnings: tuple[str, ...] = (),
                poll_ams: bool = False, calibration: YarnCalibration | None = None) -> ReplayResult:
    """Replay ``workload`` through the emulated ResourceManager (``docs/yarn.md``). ``calibration``: the jobs'
    commit tails (:mod:`mrsim.tracker.yarn.calibration`); None finishes every job with its last task."""
    if len(workload) == 0:
        raise InputError(f"{workload.source or 'workload'}: no jobs to replay")
    job_ids = [t.job_id for t in workload.jobs]
    commit_s = calibration.commit_times(job_ids, seed) if calibration is not None else None
    # no cyclic collection from the set-up to the result (mrsim.io.gc_policy): the set-up's and the result's
    # objects live as long as the replay's, so collections there would only scan them (0.03-0.05 s per 1148 jobs)
    with yarn_gc():
        rm = ResourceManager(workload, cluster, conf, scheduler, seed=seed, aligned_heartbeats=aligned_heartbeats,
                             job_overheads=job_overheads, queue_series=queue_series, locality=locality,
                             rack_local_slowdown=rack_local_slowdown, off_switch_slowdown=off_switch_slowdown,
                             poll_ams=poll_ams, commit_s=commit_s)
        rm.progress = progress
        jt = yarn_jobtracker(rm, workload, cluster, seed)
        attach_priorities(scheduler, workload)  # the jobs' mapreduce.job.priority (Capacity only)
        monitor = monitor_for(scheduler)  # the RM's preemption monitor, when the settings turn it on
        if monitor is not None:
            monitor.attach(rm)
        started = time.perf_counter()
        jt.run((lambda: check(rm)) if check is not None else None)
        rm.finish()
        wall = time.perf_counter() - started
        if rm.stalled or rm.apps_done != len(rm.apps):
            stuck = next(am for am in rm.ams if am.finish < 0)
            raise StalledError(
                f"YARN replay stalled: {len(rm.apps) - rm.apps_done} application(s) never finished (first: "
                f"{stuck.app.app_id}, AM {'running' if stuck.start >= 0 else 'never started'}); e.g. "
                f"ApplicationMasters fill the cluster under the {scheduler.name} scheduler (use capacity with "
                f"maximum-am-resource-percent, or fair with maxAMShare), or a queue's running-application limit "
                f"of 0 (maxRunningApps, userMaxAppsDefault, queueMaxAppsDefault)")
        result = collect_yarn_result(rm, wall, seed, locality, job_overheads, warnings)
        if monitor is not None:
            monitor.add_to(result)
    result.spec["yarn_calibration"] = calibration.describe(job_ids) if calibration is not None else None
    return result


def yarn_jobtracker(rm: ResourceManager, workload: Workload, cluster: ClusterSpec, seed: int) -> JobTracker:
    """The JobTracker core YARN mode runs on: one tracker per NodeManager heartbeating every
    ``yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`` (the RM sets their phases), the YARN scheduler as its
    plug-in (:class:`NodeUpdates`), the ResourceManager attached as a feature. No locality caches (the MR AM matches
    containers to splits itself) and no bounded wake-ups (the RM wakes the nodes with room)."""
    jt = JobTracker(workload, cluster, HadoopConf(), NodeUpdates(rm), heartbeat_interval=rm.conf.nm_heartbeat_s,
                    seed=seed, aligned_heartbeats=True, locality=LocalityMode.OFF, bounded_wakes=False)
    jt.attach(rm)
    return jt


def _task_columns(jobs: "list[JobState]", job_ids: list[str], names: np.ndarray) -> dict[str, np.ndarray]:
    """The tasks table: maps then reduces per job, in job order, from the jobs' per-task arrays. Each column is
    one ``np.concatenate`` of the arrays' buffers (``np.frombuffer``: no per-task Python object), where iterating
    them value by value (``np.fromiter`` over chained arrays) took about a tenth of a 1148-job replay; the same
    values, bit for bit. O(tasks) in C, O(jobs) in Python."""
    n_maps = np.fromiter((job.n_maps for job in jobs), np.int64, len(jobs))
    n_reduces = np.fromiter((job.n_reduces for job in jobs), np.int64, len(jobs))
    counts = np.empty(2 * len(jobs), dtype=np.int64)  # per job: its maps' block, then its reduces'
    counts[0::2] = n_maps
    counts[1::2] = n_reduces
    total = int(counts.sum())
    block_starts = np.cumsum(counts) - counts

    def column(dtype: Any, maps: str | None, reduces: str | None, fill: Any) -> np.ndarray:
        parts = []
        for job in jobs:
            for attr, n in ((maps, job.n_maps), (reduces, job.n_reduces)):
                if n:
                    parts.append(np.frombuffer(getattr(job, attr), dtype=dtype) if attr else np.full(n, fill, dtype))
        out = np.concatenate(parts) if parts else np.empty(0, dtype)
        if len(out) != total:
            raise ValueError(f"per-task results of {len(out)} tasks for {total} tasks (released task arrays?)")
        return out

    node_idx = column(np.int32, "map_tracker", "reduce_tracker", -1)
    return {
        "job_id": np.repeat(np.repeat(np.array(job_ids, dtype=object), 2), counts),
        "type": np.repeat(np.tile(np.array(["MAP", "REDUCE"], dtype=object), len(jobs)), counts),
        "task": np.arange(total, dtype=np.int64) - np.repeat(block_starts, counts),
        "tracker": names[node_idx],
        "start_s": column(np.float64, "map_start", "reduce_start", np.nan),
        "shuffle_end_s": column(np.float64, None, "reduce_shuffle_end", np.nan),
        "finish_s": column(np.float64, "map_finish", "reduce_finish", np.nan),
        "locality": column(np.int8, "map_locality", None, 0),
    }


def collect_yarn_result(rm: ResourceManager, wall_s: float, seed: int, locality: str, job_overheads: bool,
                        warnings: tuple[str, ...]) -> ReplayResult:
    ams = rm.ams
    n = len(ams)
    templates = [am.template for am in ams]
    submit = np.fromiter((am.app.submit for am in ams), float, n)
    start = np.fromiter((am.first_task_start if am.first_task_start != float("inf") else am.finish for am in ams),
                        float, n)
    finish = np.fromiter((am.finish for am in ams), float, n)
    actual = np.fromiter((t.actual_completion_s if t.actual_completion_s is not None else np.nan for t in templates),
                         float, n)
    deadline = np.fromiter((t.deadline_s + s if t.deadline_s is not None else np.nan for t, s in zip(templates, submit)),
                           float, n)
    job_columns = {
        "job_id": [t.job_id for t in templates],
        "name": [t.name for t in templates],
        "user": [am.app.user for am in ams],
        "queue": [str(am.app.queue) if am.app.queue is not None else am.app.queue_name for am in ams],
        "submit_s": submit,
        "start_s": start,
        "finish_s": finish,
        "completion_s": finish - submit,
        "maps": [am.n_maps for am in ams],
        "reduces": [am.n_reduces for am in ams],
        "actual_completion_s": actual,
        "deadline_s": deadline,
        "am_start_s": np.fromiter((am.start for am in ams), float, n),
    }
    names = np.array([nd.name for nd in rm.nodes] + [""], dtype=object)
    jobs = [am.state() for am in ams]  # per-task results: the core's JobState arrays
    task_columns = _task_columns(jobs, [am.template.job_id for am in ams], names)
    total = len(task_columns["task"])
    completion = finish - submit
    events = rm.kernel.events
    yarn_summary: dict = {
        "containers": rm.containers,
        "am_allocates": rm.allocates,
        "nm_heartbeats": rm.heartbeats,
        "reduces_preempted": rm.killed,
        "containers_released_unused": rm.released_unused,
    }
    if rm.series is not None:
        yarn_summary["queues"] = rm.series.summary()
    summary = {
        "jobs": n,
        "tasks": int(total),
        "makespan_s": _r(float(finish.max())),
        "mean_completion_s": _r(float(completion.mean())),
        "events": int(events),
        "wall_s": round(wall_s, 4),
        "p95_completion_s": _r(float(np.percentile(completion, 95))),
        "heartbeats": rm.heartbeats,
        "killed_tasks": rm.killed,
        "wasted_slot_s": _r(rm.wasted_s),
        "failed_attempts_replayed": 0,
        "speculative_attempts": 0,
        "speculative_wins": 0,
        "events_per_s": round(events / wall_s, 1) if wall_s > 0 else None,
        "yarn": yarn_summary,
    }
    loc = task_columns["locality"]
    if (loc > 0).any():
        summary["node_local_maps"] = int((loc == 1).sum())
        summary["rack_local_maps"] = int((loc == 2).sum())
        summary["off_switch_maps"] = int((loc == 3).sum())
    spec = {
        "engine": "yarn",
        "mode": "heartbeat",
        "heartbeat_interval_s": rm.conf.nm_heartbeat_s,
        "am_heartbeat_interval_s": rm.conf.am_heartbeat_s,
        "hadoop_version": (f"{rm.scheduler.version.text} (YARN)" if rm.scheduler.version.given
                           else rm.scheduler.version.text),
        "slowstart_completed_maps": rm.conf.slowstart,
        "seed": seed,
        "locality": locality,
        "job_overheads": job_overheads,
        "failed_attempts": False,
        "yarn": rm.conf.describe(),
        "cluster": {**rm.cluster.describe(), "nodemanagers": len(rm.nodes), "memory_mb": rm.cluster_mem,
                    "vcores": rm.cluster_vcores},
        "scheduler": rm.scheduler.describe(),
        "trace": rm.workload.source,
        "engine_build": compiled_core.engine_build(),  # "compiled" (mypyc) or "pure", as the MR1 engine's spec says
    }
    all_warnings = tuple(warnings) + tuple(rm.workload.warnings) + tuple(rm.scheduler.warnings)
    result = ReplayResult(rm.scheduler.name, job_columns, task_columns, summary, spec, all_warnings)
    result.queue_series = rm.series  # type: ignore[attr-defined]
    return result
