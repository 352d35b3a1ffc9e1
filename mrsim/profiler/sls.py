"""SLS-native job traces (YARN Scheduler Load Simulator, ``--tracetype=SLS``) -> Rumen ``LoggedJob`` dicts.

The file is a stream of concatenated JSON objects, optionally led by ``{"num.nodes": N, "num.racks": R}``.
Each job object carries ``job.id``, ``job.user``, ``job.queue.name``, ``job.start.ms``, ``job.end.ms``,
``job.count`` and ``job.tasks``; each task ``container.host`` (``/rack/host``), ``container.start.ms``,
``container.end.ms`` or a duration (``container.duration.ms``, legacy ``duration.ms``),
``container.type`` (``map``/``reduce``, default map), ``count`` and ``container.request.delay``.
Key names and defaults follow ``AMDefinitionSLS`` and ``TaskContainerDefinition`` (hadoop-sls).

Times in SLS are ms relative to the simulation start. Rumen and its consumers read a time <= 0 as
unknown (``JobBuilder`` checks ``> 0``), so every time is shifted by ``base_ms``, by default
:data:`DEFAULT_BASE_MS` (10**12 ms, 2001-09-09T01:46:40Z): the first job of a trace that starts at 0 then
has a real submit time, and all gaps are unchanged.
Every container becomes one task with one SUCCESS attempt. When only a duration is given, the attempt is
synthetic: it starts at ``job.start.ms + container.request.delay`` and lasts the duration. ``count``
repeats a task and ``job.count`` repeats a job (ids ``<job.id>_<k>``), as SLS does. Task ids are
``task_<job>_{m,r}_NNNNNN`` in file order per type; attempt ids end in ``_0``.

Memory: one job object at a time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from mrsim.errors import InputError
from mrsim.profiler.logged import (
  add_statistics,
  iter_json_objects,
  location,
  new_attempt,
  new_job,
  new_task,
  parse_host,
  report,
)
from mrsim.io.compressed import open_text
from mrsim.io.limits import check_limit

#: Largest time, duration or count accepted (10**13 ms is 317 years); a larger one is damage.
MAX_MS = 10**13

#: Epoch ms added to SLS's relative times so none is 0 (Rumen's "unknown").
DEFAULT_BASE_MS = 10**12

_SLS_KEYS = re.compile(rb'"(job\.(tasks|start\.ms|end\.ms|queue\.name|user|id|count)|num\.(nodes|racks)|am\.type|yarn\.sls\.am\.type)"\s*:')
_HADOOP_JOB = re.compile(r"job_(\d+_\d+)")


def sniff(head: bytes, name: str) -> bool:
    """True for an SLS job trace: a JSON object stream whose first object uses SLS keys (``job.tasks``...)."""
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    return _SLS_KEYS.search(text[:4096]) is not None and b'"jobID"' not in text[:4096]


def _int(obj: Mapping[str, Any], key: str, where: str) -> int | None:
    if key not in obj or obj[key] is None:
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{where}: {key} must be an integer, got {value!r}")
    try:
        out = int(str(value)) if not isinstance(value, float) else int(value)
    except (ValueError, OverflowError):
        raise InputError(f"{where}: {key} must be an integer, got {value!r}") from None
    if abs(out) > MAX_MS:
        raise InputError(f"{where}: {key} must be at most {MAX_MS:.0e} in magnitude, got {out}")
    return out


def _task_prefix(job_id: str) -> str:
    match = _HADOOP_JOB.fullmatch(job_id)
    return match.group(1) if match else job_id.removeprefix("job_")


def sls_job_to_logged(
    obj: Mapping[str, Any], *, job_id: str, where: str, base_ms: int = DEFAULT_BASE_MS, warnings: list[str] | None = None
) -> dict[str, Any]:
    """One SLS job object -> a ``LoggedJob`` dict with synthetic tasks and attempts (times + ``base_ms``)."""
    tasks = obj.get("job.tasks")
    if not isinstance(tasks, list) or not tasks:
        raise InputError(f"{where}: job {job_id}: 'job.tasks' must be a non-empty list (SLS: 'No task for the job!')")
    start = _int(obj, "job.start.ms", where)
    end = _int(obj, "job.end.ms", where)
    if start is None:
        report(warnings, f"{where}: job {job_id}: no job.start.ms; submitted at the trace's time 0 (SLS's default)")
    job = new_job(job_id)
    job["user"] = str(obj.get("job.user") or "default")
    job["queue"] = str(obj["job.queue.name"]) if obj.get("job.queue.name") is not None else None
    job["submitTime"] = job["launchTime"] = base_ms + (start if start is not None else 0)
    job["finishTime"] = base_ms + end if end is not None else -1
    job["outcome"] = "SUCCESS"
    prefix = _task_prefix(job_id)
    numbers = {"MAP": 0, "REDUCE": 0}
    latest = -1
    for index, spec in enumerate(tasks):
        here = f"{where}: job {job_id}: task {index}"
        if not isinstance(spec, dict):
            raise InputError(f"{here}: expected a JSON object")
        kind = str(spec.get("container.type", "map")).upper()
        if kind not in numbers:
            report(warnings, f"{here}: container.type {spec.get('container.type')!r} is neither map nor reduce; skipped")
            continue
        begin, finish = _container_times(spec, here, job_start=start or 0, warnings=warnings)
        if begin is None or finish is None:
            continue
        count = max(_int(spec, "count", here) or 1, 1)
        check_limit("tasks_per_job", numbers[kind] + count, f"{here}: count")  # before repeating the task
        for _ in range(count):
            task = _task(prefix, kind, numbers[kind], base_ms + begin, base_ms + finish, spec.get("container.host"))
            numbers[kind] += 1
            job["mapTasks" if kind == "MAP" else "reduceTasks"].append(task)
            latest = max(latest, base_ms + finish)
    job["totalMaps"], job["totalReduces"] = numbers["MAP"], numbers["REDUCE"]
    if job["finishTime"] < 0:
        job["finishTime"] = latest
    add_statistics(job)
    return job


def _container_times(
    spec: Mapping[str, Any], where: str, *, job_start: int, warnings: list[str] | None
) -> tuple[int | None, int | None]:
    """``(start, finish)`` in relative ms, following ``TaskContainerDefinition.validateAndGetDuration``."""
    duration = _int(spec, "container.duration.ms", where)
    if duration is None:
        duration = _int(spec, "duration.ms", where)
    begin = _int(spec, "container.start.ms", where)
    finish = _int(spec, "container.end.ms", where)
    if duration is None and begin is not None and finish is not None:
        duration = finish - begin
    if duration is None or duration <= 0:
        report(warnings, f"{where}: no positive duration (SLS rejects such a task); skipped")
        return None, None
    if begin is None:
        begin = job_start + max(_int(spec, "container.request.delay", where) or 0, 0)
    return begin, begin + duration


def _task(prefix: str, kind: str, number: int, start: int, finish: int, host: Any) -> dict[str, Any]:
    letter = "m" if kind == "MAP" else "r"
    task = new_task(f"task_{prefix}_{letter}_{number:06d}", kind)
    task["taskStatus"] = "SUCCESS"
    task["startTime"], task["finishTime"] = start, finish
    attempt = new_attempt(f"attempt_{prefix}_{letter}_{number:06d}_0")
    attempt["result"] = "SUCCESS"
    attempt["startTime"], attempt["finishTime"] = start, finish
    if isinstance(host, str) and host:
        attempt["hostName"] = host
        parsed = parse_host(host)
        if parsed is not None:
            attempt["location"] = location(*parsed)
    task["attempts"].append(attempt)
    return task


def iter_sls_jobs(
    path: str | os.PathLike[str], *, warnings: list[str] | None = None, base_ms: int = DEFAULT_BASE_MS
) -> Iterator[dict[str, Any]]:
    """Yield a Rumen ``LoggedJob`` dict per SLS job (``job.count`` copies each), in file order.

    ``base_ms`` (epoch ms) is added to every time, as SLS times are relative to the simulation start. Raises
    :class:`InputError` naming the file and line for malformed JSON or a job without tasks; tasks
    without a positive duration are skipped with a warning, as SLS refuses them.
    """
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{file}: is a directory; give the SLS trace file")
    with open_text(file) as fh:
        for index, (line, obj) in enumerate(iter_json_objects(fh, str(file))):
            where = f"{file}: line {line}"
            if not isinstance(obj, dict):
                raise InputError(f"{where}: expected a JSON object per job")
            if "job.tasks" not in obj and ("num.nodes" in obj or "num.racks" in obj):
                continue
            job_id = str(obj.get("job.id") or f"job_{index}")
            copies = max(_int(obj, "job.count", where) or 1, 1)
            check_limit("jobs", copies, f"{where}: job.count")
            for k in range(copies):
                yield sls_job_to_logged(
                    obj,
                    job_id=job_id if copies == 1 else f"{job_id}_{k}",
                    where=where,
                    base_ms=base_ms,
                    warnings=warnings,
                )
