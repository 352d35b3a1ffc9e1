"""Per-queue and cluster-wide time series of a replay: running, pending and used slots on a regular time grid.

Definitions (what Hadoop's SLS and Mumak users read; ``docs/api.md`` has the columns):

* a task is **running** at t when ``start_s <= t < finish_s`` of its successful attempt (the slot it holds);
* a task is **pending** at t when its job was submitted (``submit_s <= t``) but the task has not started. A
  reduce waiting for slow start counts as pending, as in the JobTracker's ``pendingReduces``;
* **used slots** = running tasks (one slot each on slot clusters); the ``share`` columns divide by the cluster's
  map + reduce slots.

Failed, killed and losing speculative attempts are not in the task table, so the slot time they held
(``summary.wasted_slot_s``) is missing from these series: an approximation stated in the docs.

Cost: O(T log T) for T tasks (one sort per queue and kind) plus O(P log T) for P grid points; no per-event work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mrsim.tracker.results import ReplayResult

CLUSTER = "(cluster)"


def _counts(times: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """How many of ``times`` are <= each grid point."""
    return np.searchsorted(np.sort(times), grid, side="right")


def time_grid(makespan_s: float, step_s: float = 1.0, max_points: int | None = None) -> np.ndarray:
    """``0, step, 2 step, ...`` up to the makespan (inclusive); with ``max_points`` the step grows to fit (to whole
    seconds when ``step_s`` is at least 1 s)."""
    end = max(0.0, float(makespan_s))
    if max_points is not None and end / step_s + 1 > max_points:
        coarse = end / max(1, max_points - 1)
        step_s = float(np.ceil(coarse)) if step_s >= 1 else coarse  # whole seconds stay whole
    n = int(np.floor(end / step_s + 1e-9)) + 1
    return np.arange(n, dtype=float) * step_s


def task_frame(result: "ReplayResult", by: str = "queue") -> "pd.DataFrame":
    """The task table with each task's group (job column ``by``, as ``queue``) and job submit time (a copy)."""
    tasks = result.tasks
    jobs = result.jobs
    queue_of = dict(zip(jobs["job_id"], jobs[by].astype(str)))
    submit_of = dict(zip(jobs["job_id"], jobs["submit_s"]))
    out = tasks.copy()
    out["queue"] = out["job_id"].map(queue_of)
    out["submit_s"] = out["job_id"].map(submit_of).astype(float)
    return out


def queue_timeseries(result: "ReplayResult", step_s: float = 1.0, max_points: int | None = None,
                     by: str = "queue") -> "pd.DataFrame":
    """Long table, one row per (time_s, queue), plus ``queue == "(cluster)"`` rows for the whole cluster.
    ``by="user"`` groups by user instead (the Fair Scheduler's default pools), still in the ``queue`` column.

    Columns: time_s, queue, running_maps, running_reduces, pending_maps, pending_reduces, used_slots, share
    (used slots / the cluster's map + reduce slots).
    """
    import pandas as pd

    grid = time_grid(float(result.summary["makespan_s"]), step_s, max_points)
    tasks = task_frame(result, by)
    cluster = result.spec.get("cluster", {})
    total_slots = max(1, int(cluster.get("map_slots") or 0) + int(cluster.get("reduce_slots") or 0))
    frames = []
    groups = [(str(q), tasks[tasks["queue"] == q]) for q in sorted(tasks["queue"].unique())]
    groups.append((CLUSTER, tasks))
    for queue, sub in groups:
        cols: dict[str, np.ndarray] = {}
        for kind, label in (("MAP", "maps"), ("REDUCE", "reduces")):
            sel = sub[sub["type"] == kind]
            start = sel["start_s"].to_numpy(float)
            finish = sel["finish_s"].to_numpy(float)
            submit = sel["submit_s"].to_numpy(float)
            started = _counts(start, grid)
            cols[f"running_{label}"] = started - _counts(finish, grid)
            cols[f"pending_{label}"] = _counts(submit, grid) - started
        used = cols["running_maps"] + cols["running_reduces"]
        frames.append(pd.DataFrame({"time_s": grid, "queue": queue, **cols, "used_slots": used,
                                    "share": used / total_slots}))
    return pd.concat(frames, ignore_index=True)


def attempts_frame(result: "ReplayResult") -> "pd.DataFrame":
    """One row per task attempt, with a Hadoop-style attempt id: every successful attempt (the task table) and every
    attempt that did not succeed (``ReplayResult.lost_attempts``: replayed failures, kills, speculative losers).

    Columns: attempt_id, job_id, type, task, attempt, tracker, queue, start_s, shuffle_end_s, finish_s,
    duration_s, locality, result (SUCCESS, FAILED or KILLED). A task's attempts are numbered in start order; an
    unsuccessful attempt has no shuffle end or locality (NaN, 0). Cost O(attempts).
    """
    tasks = task_frame(result)
    kind = np.where(tasks["type"].to_numpy(object) == "MAP", "m", "r")
    job = tasks["job_id"].astype(str).str.replace(r"^job_", "", regex=True).to_numpy(object)
    index = tasks["task"].to_numpy(np.int64)
    ids = [f"attempt_{j}_{k}_{i:06d}_0" for j, k, i in zip(job, kind, index)]
    out = tasks[["job_id", "type", "task", "tracker", "queue", "start_s", "shuffle_end_s", "finish_s", "locality"]].copy()
    out.insert(0, "attempt_id", ids)
    out.insert(4, "attempt", 0)
    out["duration_s"] = out["finish_s"] - out["start_s"]
    out["result"] = "SUCCESS"
    lost = getattr(result, "lost_attempts", ())
    if not lost:
        return out
    import pandas as pd

    queue_of = dict(zip(tasks["job_id"], tasks["queue"]))
    rows = pd.DataFrame(list(lost), columns=["job_id", "type", "task", "tracker", "start_s", "finish_s", "result"])
    rows["queue"] = rows["job_id"].map(queue_of)
    rows["shuffle_end_s"] = np.nan
    rows["locality"] = 0
    rows["duration_s"] = rows["finish_s"] - rows["start_s"]
    both = pd.concat([rows, out.drop(columns=["attempt_id", "attempt"])], ignore_index=True)
    both = both.sort_values(["job_id", "type", "task", "start_s", "result"], kind="stable", ignore_index=True)
    both["attempt"] = both.groupby(["job_id", "type", "task"], sort=False).cumcount()
    kind = np.where(both["type"].to_numpy(object) == "MAP", "m", "r")
    job = both["job_id"].astype(str).str.replace(r"^job_", "", regex=True).to_numpy(object)
    both.insert(0, "attempt_id", [f"attempt_{j}_{k}_{i:06d}_{a}" for j, k, i, a in
                                  zip(job, kind, both["task"].to_numpy(np.int64), both["attempt"].to_numpy(np.int64))])
    return both[list(out.columns)]
