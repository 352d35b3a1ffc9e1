"""Metrics computed from a run's flat records (Hung, Golubchik, Yu, SoCC'15, section 6).

* Job completion time (s): departure minus arrival; the paper's main metric is its mean.
* Slowdown: completion time over the job's *isolated* completion time, the time it would take alone in the
  federation (:func:`isolated_completion`), so every slowdown is >= 1. Reported per size class (small 1-150
  tasks, medium 151-500, large 501+), the paper's fairness analysis.
* Controller computation time per decision (ms of process CPU time, machine-dependent, not reproducible).
* Jobs in the system: a step function that changes only at decisions; its time average and maximum, and the
  number of (job, datacenter) entries pushed per decision (the paper's communication-overhead proxy; zero for
  Independent-SRPT, whose datacenters order themselves).

Cost: O(jobs + decisions), plus O(tasks log slots) once per workload for isolated times.
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from mrsim.studies.geo.model import GeoWorkload
from mrsim.studies.geo.result import GeoResult
from mrsim.studies.geo.workloads import SIZE_CLASSES


def list_makespan(durations: np.ndarray, slots: int) -> float:
    """Finish time of tasks launched in order on ``slots`` idle slots, each on the earliest free one (s)."""
    n = int(durations.size)
    if n == 0:
        return 0.0
    if n <= slots:
        return float(durations.max())
    free = [0.0] * slots
    for x in durations.tolist():
        heapq.heapreplace(free, free[0] + x)
    return max(free)


def isolated_completion(workload: GeoWorkload) -> np.ndarray:
    """Per job, its completion time alone in the federation: max over its sub-jobs of :func:`list_makespan`.

    This is exactly what the simulator does for a job that meets no other job, so slowdowns are >= 1.
    """
    slots = workload.federation.slots
    return np.array(
        [max(list_makespan(a, slots[d]) for d, a in zip(job.dcs, job.durations)) for job in workload.jobs],
        dtype=np.float64,
    )


def slowdowns(result: GeoResult, isolated: np.ndarray) -> np.ndarray:
    """Completion over isolated completion; a job whose isolated time is 0 (zero-length tasks) counts as 1."""
    comp = result.completion_s
    out = np.ones_like(comp)
    pos = isolated > 0
    out[pos] = comp[pos] / isolated[pos]
    return out


def jobs_in_system(result: GeoResult) -> tuple[float, int]:
    """(time-average, maximum) number of jobs in the system between the first arrival and the last departure."""
    at, n = result.decision_at_s, result.decision_jobs
    if at.size < 2:
        return 0.0, int(n.max()) if n.size else 0
    span = float(at[-1] - at[0])
    avg = float(np.sum(n[:-1] * np.diff(at)) / span) if span > 0 else float(n.mean())
    return avg, int(n.max())


def _class_stats(result: GeoResult, slow: np.ndarray) -> dict[str, dict[str, float | int]]:
    out: dict[str, dict[str, float | int]] = {}
    for name, lo, hi in SIZE_CLASSES:
        mask = (result.n_tasks >= lo) & (result.n_tasks <= hi)
        cnt = int(mask.sum())
        out[name] = {
            "jobs": cnt,
            "mean_completion_s": float(result.completion_s[mask].mean()) if cnt else float("nan"),
            "mean_slowdown": float(slow[mask].mean()) if cnt else float("nan"),
        }
    return out


def summarize(result: GeoResult, isolated: np.ndarray) -> dict[str, Any]:
    """One flat-ish record of a run. Keys under ``timing`` are CPU times and vary between runs."""
    comp = result.completion_s
    slow = slowdowns(result, isolated)
    avg_jobs, max_jobs = jobs_in_system(result)
    ms = result.decision_ns / 1e6
    pushes = result.decision_entries if result.policy.needs_global_order else np.zeros(0, dtype=np.int64)
    return {
        "policy": result.policy.value,
        "measure": result.measure.value,
        "jobs": int(comp.size),
        "tasks": int(result.n_tasks.sum()),
        "events": result.n_events,
        "mean_completion_s": float(comp.mean()),
        "median_completion_s": float(np.median(comp)),
        "p95_completion_s": float(np.percentile(comp, 95)),
        "mean_slowdown": float(slow.mean()),
        "by_class": _class_stats(result, slow),
        "makespan_s": float(result.finish_s.max() - result.arrival_s.min()),
        "decisions": int(result.decision_at_s.size),
        "mean_jobs_in_system": avg_jobs,
        "max_jobs_in_system": max_jobs,
        "mean_jobs_per_decision": float(result.decision_jobs.mean()) if result.decision_jobs.size else 0.0,
        "pushed_entries_total": int(pushes.sum()),
        "pushed_entries_per_decision": float(pushes.mean()) if pushes.size else 0.0,
        "timing": {
            "decision_ms_mean": float(ms.mean()) if ms.size else 0.0,
            "decision_ms_p50": float(np.percentile(ms, 50)) if ms.size else 0.0,
            "decision_ms_p99": float(np.percentile(ms, 99)) if ms.size else 0.0,
            "decision_ms_max": float(ms.max()) if ms.size else 0.0,
        },
    }
