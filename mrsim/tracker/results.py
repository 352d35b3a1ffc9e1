"""Replay results as flat records: per job, per task, and a summary; plus the JSON contract and CSV files.

The ``--json`` object is a public contract (extend it, never break it)::

    {"scheduler": str,
     "jobs": [{"job_id", "submit_s", "start_s", "finish_s", "completion_s", "maps", "reduces",
               "actual_completion_s"}, ...],
     "summary": {"jobs", "tasks", "makespan_s", "mean_completion_s", "events", "wall_s", ...},
     ...}

Times are seconds from the first submission; ``completion_s = finish_s - submit_s``; ``start_s`` is the launch
of the job's first task; ``actual_completion_s`` is the trace's finish − submit, or null when unknown.
Extra keys (``spec``, ``summary.heartbeats`` ...) are additions, never replacements.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from mrsim import compiled_core

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.replay_options import ReplayOptions
    from mrsim.tracker.state import JobState


@dataclass
class ReplayResult:
    """Per-job table, per-task table (pandas, built once at the end), summary and the run's specification."""

    scheduler: str
    job_columns: dict
    task_columns: dict | None  # None: the replay did not keep per-task results (ReplayOptions.task_results)
    summary: dict
    spec: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: attempts that did not succeed: ``(job_id, "MAP"|"REDUCE", task, tracker, start_s, end_s, result)``
    lost_attempts: tuple[tuple[str, str, int, str, float, float, str], ...] = ()
    _jobs: "pd.DataFrame | None" = field(default=None, repr=False)
    _tasks: "pd.DataFrame | None" = field(default=None, repr=False)

    @property
    def jobs(self) -> "pd.DataFrame":
        """One row per job (pandas, built on first use)."""
        if self._jobs is None:
            import pandas as pd

            self._jobs = pd.DataFrame(self.job_columns)
        return self._jobs

    @property
    def tasks(self) -> "pd.DataFrame":
        """One row per task (built on first use: a million-task replay need not pay for it)."""
        if self._tasks is None:
            import pandas as pd

            if self.task_columns is None:
                raise ValueError("per-task results were not kept: replay with ReplayOptions(task_results=True)")
            self._tasks = pd.DataFrame(self.task_columns)
        return self._tasks

    def to_json_dict(self) -> dict:
        c = self.job_columns
        jobs = []
        for k in range(len(c["job_id"])):
            actual = float(c["actual_completion_s"][k])
            jobs.append({
                "job_id": c["job_id"][k],
                "submit_s": _r(c["submit_s"][k]),
                "start_s": _r(c["start_s"][k]),
                "finish_s": _r(c["finish_s"][k]),
                "completion_s": _r(c["completion_s"][k]),
                "maps": int(c["maps"][k]),
                "reduces": int(c["reduces"][k]),
                "actual_completion_s": None if math.isnan(actual) else _r(actual),
            })
        return {"scheduler": self.scheduler, "jobs": jobs, "summary": self.summary, "spec": self.spec,
                "warnings": list(self.warnings)}

    #: every file a replay's output directory may hold (so that a later run may replace a previous set)
    OUTPUT_FILES = ("jobs.csv", "tasks.csv", "attempts.csv", "timeseries.csv", "queues.csv")

    def write_csv(self, out_dir: str | os.PathLike[str], extra: "Mapping[str, Any] | None" = None) -> list[Path]:
        """Write ``jobs.csv``, ``tasks.csv`` and the ``extra`` files (name -> DataFrame, or a callable writing to a
        text file handle) as ``out_dir``, as one unit (:func:`mrsim.io.atomic.atomic_directory`: a reader sees the
        previous set or the new one, never a mix)."""
        from mrsim.io.atomic import atomic_directory
        from mrsim.io.csv_frame import write_frame_csv

        out = Path(out_dir)
        files_to_write: dict[str, Any] = {"jobs.csv": self.jobs, "tasks.csv": self.tasks, **dict(extra or {})}
        with atomic_directory(out, owned=self.OUTPUT_FILES) as files:
            for name, content in files_to_write.items():
                with files.open(name) as fh:
                    if callable(content):
                        content(fh)
                    else:
                        write_frame_csv(content, fh, float_format="%.6f")  # pandas' to_csv, the same bytes
        return [out / name for name in files_to_write]


def _task_columns(jt: "JobTracker") -> dict[str, np.ndarray]:
    """Per-task records as flat numpy columns, maps then reduces per job, in job order. O(tasks)."""
    from itertools import chain

    jobs = jt.jobs
    kinds = []
    ids = []
    counts = []
    for j in jobs:
        if j.n_maps:
            ids.append(j.job_id)
            kinds.append(0)
            counts.append(j.n_maps)
        if j.n_reduces:
            ids.append(j.job_id)
            kinds.append(1)
            counts.append(j.n_reduces)
    total = sum(counts)
    counts_arr = np.asarray(counts, dtype=np.int64)
    starts_of_blocks = np.cumsum(counts_arr) - counts_arr
    task_index = np.arange(total, dtype=np.int64) - np.repeat(starts_of_blocks, counts_arr)

    def flat(attr_map: str, attr_reduce: str | None, fill: float = np.nan) -> np.ndarray:
        seqs = []
        for j in jobs:
            if j.n_maps:
                seqs.append(getattr(j, attr_map) if attr_map else [fill] * j.n_maps)
            if j.n_reduces:
                seqs.append(getattr(j, attr_reduce) if attr_reduce else [fill] * j.n_reduces)
        return np.fromiter(chain.from_iterable(seqs), dtype=float, count=total)

    tracker_idx = np.fromiter(chain.from_iterable(
        seq for j in jobs for seq in ((j.map_tracker,) if j.n_maps else ()) + ((j.reduce_tracker,) if j.n_reduces else ())
    ), dtype=np.int64, count=total)
    names = np.array([t.name for t in jt.trackers] + [""], dtype=object)
    return {
        "job_id": np.repeat(np.array(ids, dtype=object), counts_arr),
        "type": np.repeat(np.array(["MAP", "REDUCE"], dtype=object)[np.asarray(kinds, dtype=np.int64)], counts_arr),
        "task": task_index,
        "tracker": names[tracker_idx],
        "start_s": flat("map_start", "reduce_start"),
        "shuffle_end_s": flat("", "reduce_shuffle_end"),
        "finish_s": flat("map_finish", "reduce_finish"),
        "locality": np.fromiter(chain.from_iterable(
            seq for j in jobs for seq in (((j.map_locality or [0] * j.n_maps),) if j.n_maps else ())
            + (([0] * j.n_reduces,) if j.n_reduces else ())
        ), dtype=np.int8, count=total),
    }


def _r(x: float) -> float:
    return round(float(x), 6)


def _job_columns(jobs: "list[JobState]") -> tuple[dict, np.ndarray]:
    """The job table from the engine's ``JobState`` objects, and the absolute deadlines (``inf``: none). O(jobs)."""
    n = len(jobs)
    submit = np.fromiter((j.submit for j in jobs), float, n)
    finish = np.fromiter((j.finish_time for j in jobs), float, n)
    actual = np.fromiter(
        (j.template.actual_completion_s if j.template.actual_completion_s is not None else np.nan for j in jobs), float, n
    )
    deadline = np.fromiter((j.deadline for j in jobs), float, n)
    columns = {
        "job_id": [j.job_id for j in jobs],
        "name": [j.template.name for j in jobs],
        "user": [j.user for j in jobs],
        "queue": [j.queue for j in jobs],
        "submit_s": submit,
        "start_s": np.fromiter((j.start_time for j in jobs), float, n),
        "finish_s": finish,
        "completion_s": finish - submit,
        "maps": [j.n_maps for j in jobs],
        "reduces": [j.n_reduces for j in jobs],
        "actual_completion_s": actual,
        "deadline_s": np.where(np.isfinite(deadline), deadline, np.nan),
    }
    return columns, deadline


def _streamed_job_columns(jt: "JobTracker") -> tuple[dict, np.ndarray] | None:
    """A streamed replay's job table, kept by its arrivals feature as jobs finished (their ``JobState`` objects are
    gone, ``mrsim/tracker/features/streaming.py``), and the deadlines; None for a replay held whole."""
    for feature in jt.features:
        rows = getattr(feature, "rows", None)
        if rows is not None and hasattr(feature, "job_columns"):
            return feature.job_columns(), rows.deadlines()
    return None


def p95(values: np.ndarray) -> float:
    """``float(np.percentile(values, 95))`` (numpy's default "linear" method, Hyndman and Fan's 7th), computed the
    way numpy computes it -- virtual index ``(n - 1) * 0.95``, the two order statistics around it, numpy's
    two-sided ``_lerp`` -- so the same float, without calling ``np.percentile``: its first call imports
    ``numpy.ma`` (about 30 ms of every replay's start-up). Arrays with a NaN or an infinity take ``np.percentile``
    itself. ``tests/tracker/test_results_p95.py`` compares both on random, tied and tiny arrays."""
    n = int(values.size)
    if n == 0 or not np.isfinite(values).all():
        return float(np.percentile(values, 95))
    virtual = (n - 1) * 0.95
    if virtual >= n - 1:
        return float(values.max())
    below = math.floor(virtual)
    ordered = np.partition(values.ravel(), (below, below + 1))
    a, b = float(ordered[below]), float(ordered[below + 1])
    t = virtual - below
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def collect_result(jt: "JobTracker", options: "ReplayOptions", wall_s: float) -> ReplayResult:
    """Build the result tables from the JobTracker's flat per-job lists (pandas only here, at the edge)."""
    streamed = _streamed_job_columns(jt)
    job_columns, deadline = _job_columns(jt.jobs) if streamed is None else streamed
    submit = job_columns["submit_s"]
    finish = job_columns["finish_s"]
    n = len(submit)
    task_columns = _task_columns(jt) if jt.keep_task_results else None
    completion = finish - submit
    makespan = float(finish.max()) if n else 0.0
    events = jt.kernel.events
    summary = {
        "jobs": n,
        "tasks": int(sum(job_columns["maps"]) + sum(job_columns["reduces"])),
        "makespan_s": _r(makespan),
        "mean_completion_s": _r(float(completion.mean())) if n else 0.0,
        "events": int(events),
        "wall_s": round(wall_s, 4),
        "p95_completion_s": _r(p95(completion)) if n else 0.0,
        "heartbeats": jt.heartbeats,
        "killed_tasks": jt.killed_tasks,
        "wasted_slot_s": _r(jt.wasted_s),
        "failed_attempts_replayed": jt.failed_attempts_replayed,
        "speculative_attempts": jt.spec_attempts,
        "speculative_wins": jt.spec_wins,
        **({"reduces_preempted": jt.reduces_preempted} if jt.resource_names else {}),
        "events_per_s": round(events / wall_s, 1) if wall_s > 0 else None,
    }
    if task_columns is not None:
        loc = task_columns["locality"]
        levels = [0, int((loc == 1).sum()), int((loc == 2).sum()), int((loc == 3).sum())]
    else:
        levels = jt.locality_counts  # tallied as jobs finished
    if levels[1] or levels[2] or levels[3]:
        summary["node_local_maps"] = levels[1]
        summary["rack_local_maps"] = levels[2]
        summary["off_switch_maps"] = levels[3]
    for feature in jt.features:
        stats = getattr(feature, "contention_stats", None)
        if stats is not None:
            summary["contention"] = stats()
    has_deadlines = np.isfinite(deadline)
    if has_deadlines.any():
        rel_deadline = deadline - submit
        late = has_deadlines & (completion > rel_deadline + 1e-9)
        summary["deadlines_missed"] = int(late.sum())
        summary["relative_deadline_exceeded"] = _r(float(((completion[late] - rel_deadline[late]) / rel_deadline[late]).sum()))
    # Federations and geo controllers (docs/geo.md): size classes, slowdowns, per-datacenter utilisation, and the
    # scheduler's own statistics (controller decision times, jobs in the system) when it keeps any.
    run_stats = getattr(jt.scheduler, "run_stats", None)
    if jt.datacenters or run_stats is not None:
        # Deferred: only federated runs and geo controllers need it.
        from mrsim.tracker.features.federation_metrics import federation_summary

        summary["federation"] = federation_summary(jt, completion, makespan)
    if run_stats is not None:
        summary["scheduler_stats"] = run_stats()
    spec = {
        "mode": "task" if jt.task_mode else ("heartbeat-naive" if jt.naive else "heartbeat"),
        "heartbeat_interval_s": jt.interval,
        "hadoop_version": jt.conf.version.value,
        "slowstart_completed_maps": jt.conf.slowstart_completed_maps,
        "outofband_heartbeat": jt.conf.outofband_heartbeat,
        "speculative_execution": {"maps": jt.speculative_maps, "reduces": jt.speculative_reduces},
        "seed": options.seed,
        "locality": options.locality.value,
        "contention": options.contention.value,
        "job_overheads": options.job_overheads,
        "failed_attempts": options.failed_attempts,
        "cluster": jt.cluster.describe(),
        "scheduler": jt.scheduler.describe(),
        "trace": jt.workload.source,
        "engine_build": compiled_core.engine_build(),  # "compiled" (mypyc) or "pure" (mrsim/compiled_core.py)
    }
    for feature in jt.features:
        describe = getattr(feature, "describe_run", None)
        described = describe() if describe is not None else None  # None: the feature has nothing to record
        if described is not None:
            key, spec_part, summary_part = described
            spec[key] = spec_part
            summary.update(summary_part)
    job_ids = job_columns["job_id"]
    lost = tuple((job_ids[j], "REDUCE" if reduce else "MAP", i, jt.trackers[t].host, _r(start), _r(end), result)
                 for j, i, reduce, t, start, end, result in jt.lost_attempts)
    return ReplayResult(jt.scheduler.name, job_columns, task_columns, summary, spec, jt.workload.warnings, lost)
