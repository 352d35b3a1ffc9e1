"""Per-task service demands read from a trace's counters (TDAM, dissertation section 6.3), as
:mod:`mrsim.model.demands` describes them: CPU from the successful attempt's
``resourceUsageMetrics.cumulativeCpuUsage`` (Hadoop's ``CPU_MILLISECONDS`` counter, ms), disk from the bytes it read
and wrote divided by a disk bandwidth. Reading the trace is the profiler's part; what a demand is, the model's.
"""

from __future__ import annotations

import math
import os
from typing import Iterable, Mapping

import numpy as np

from mrsim.errors import InputError
from mrsim.model.demands import BYTES_PER_MB, DEFAULT_DISK_MB_S, DISK_BYTE_FIELDS
from mrsim.model.templates import DEMAND_RESOURCES, Workload
from mrsim.profiler.builder import attempt_window, successful_attempt
from mrsim.profiler.detect import Format, iter_logged_jobs


def _counter(value: object) -> float:
    """A Rumen long counter as float; unknown (``-1``, missing, non-numeric) is NaN."""
    if isinstance(value, bool) or value is None:
        return math.nan
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) and x >= 0 else math.nan


def _attempt_demand(attempt: Mapping[str, object], disk_bytes_per_s: float) -> tuple[float, float]:
    """``(cpu_s, disk_s)`` from one attempt's counters; cpu is NaN when the CPU counter is unknown or zero."""
    usage = attempt.get("resourceUsageMetrics")
    cpu_ms = _counter(usage.get("cumulativeCpuUsage")) if isinstance(usage, Mapping) else math.nan
    # Rumen's ResourceUsageMetrics defaults to 0 when the log had no counter: 0 CPU ms means "not measured".
    cpu = cpu_ms / 1000.0 if cpu_ms > 0 else math.nan
    total = 0.0
    for name in DISK_BYTE_FIELDS:
        b = _counter(attempt.get(name))
        if b == b:  # not NaN
            total += b
    return cpu, total / disk_bytes_per_s


def _task_rows(tasks: Iterable[dict], job_id: str, disk_bytes_per_s: float) -> list[tuple[float, float]]:
    # Same task selection as mrsim.profiler.builder (first successful attempt with a usable time window), so row
    # i here is task i of the template; the builder's helpers are shared on purpose to keep the two in step.
    rows = []
    scratch: list[str] = []  # the builder already reported these windows
    for task in tasks:
        attempt = successful_attempt(task)
        if attempt is None or attempt_window(task, attempt, job_id, scratch) is None:
            continue
        rows.append(_attempt_demand(attempt, disk_bytes_per_s))
    return rows


def trace_counter_demands(path: str | os.PathLike[str], *, disk_mb_s: float = DEFAULT_DISK_MB_S,
                          fmt: str | None = None) -> dict[str, tuple[list[tuple[float, float]], list[tuple[float, float]]]]:
    """Job id (as the builder names repeats: ``id#2``...) → per-task ``(cpu_s, disk_s)`` for maps and reduces.

    Reads the ``LoggedJob`` dicts of any format that has them (:func:`mrsim.profiler.detect.iter_logged_jobs`).
    ``cpu_s`` is NaN where the trace has no CPU counter. Cost: one pass over the trace.
    """
    if not (math.isfinite(disk_mb_s) and disk_mb_s > 0):
        raise InputError(f"disk bandwidth must be a positive number of MB/s, got {disk_mb_s!r}")
    format_ = None
    if fmt:
        try:
            format_ = Format[fmt.strip().upper()]
        except KeyError:
            raise InputError(f"unknown trace format {fmt!r}") from None
    rate = disk_mb_s * BYTES_PER_MB
    out: dict[str, tuple[list[tuple[float, float]], list[tuple[float, float]]]] = {}
    seen: dict[str, int] = {}
    for job in iter_logged_jobs(path, format_, warnings=[]):
        jid = str(job.get("jobID") or "")
        count = seen.get(jid, 0) + 1
        seen[jid] = count
        key = jid if count == 1 else f"{jid}#{count}"
        maps = [t for t in job.get("mapTasks") or () if (t.get("taskType") or "MAP") == "MAP"]
        reduces = [t for t in job.get("reduceTasks") or () if (t.get("taskType") or "REDUCE") == "REDUCE"]
        out[key] = (_task_rows(maps, jid, rate), _task_rows(reduces, jid, rate))
    return out


def _filled(rows: list[tuple[float, float]], durations: np.ndarray) -> tuple[np.ndarray, int]:
    arr = np.zeros((len(rows), len(DEMAND_RESOURCES)))
    missing = 0
    for i, (cpu, disk) in enumerate(rows):
        if cpu != cpu:  # NaN: no CPU counter, use the documented fallback for this task
            arr[i, 0] = durations[i]
            missing += 1
        else:
            arr[i, 0] = cpu
            arr[i, 1] = disk
    return arr, missing


def apply_trace_demands(workload: Workload, path: str | os.PathLike[str], *, disk_mb_s: float = DEFAULT_DISK_MB_S,
                        fmt: str | None = None) -> Workload:
    """``workload`` (built from the trace at ``path``) with per-task demands from the trace's counters.

    A task without a CPU counter gets the fallback (its trace duration as CPU, no disk); one warning per job
    says how many. A job whose task count differs from the trace's (another file) raises :class:`InputError`.
    """
    counters = trace_counter_demands(path, disk_mb_s=disk_mb_s, fmt=fmt)
    jobs = []
    warnings = list(workload.warnings)
    for t in workload:
        rows = counters.get(t.job_id)
        if rows is None:
            raise InputError(f"{path}: job {t.job_id} of the workload is not in this trace")
        map_rows, reduce_rows = rows
        if len(map_rows) != t.n_maps or len(reduce_rows) != t.n_reduces:
            raise InputError(f"{path}: job {t.job_id} has {len(map_rows)} maps/{len(reduce_rows)} reduces with "
                             f"usable attempts, the workload {t.n_maps}/{t.n_reduces}")
        maps, m_missing = _filled(map_rows, t.map_durations)
        reds, r_missing = _filled(reduce_rows, t.reduce_durations)
        if m_missing or r_missing:
            warnings.append(f"job {t.job_id}: {m_missing + r_missing} of {t.n_tasks} task(s) have no CPU counter; "
                            "their demand is their trace duration on the CPU")
        jobs.append(t.with_changes(map_demands=maps, reduce_demands=reds, demand_resources=DEMAND_RESOURCES))
    return Workload.of(jobs, source=workload.source, warnings=warnings)
