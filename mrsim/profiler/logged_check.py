"""Shape and range checks of a Rumen ``LoggedJob`` dict before the builder reads it.

Hand-edited or damaged Rumen traces put strings where lists belong (``"mapTasks": "three"``), numbers where
lists belong (``"attempts": 7``), times of 1e300 ms, or non-numeric text in time fields. The builder would crash
on the first two and silently replay the others as garbage (a time that is not a number was read as "unknown").
:func:`check_logged_job` walks the fields the builder reads and raises :class:`~mrsim.errors.InputError`
naming the source, job, task, attempt and field with what was expected.

What is accepted (Rumen's own rules, ``LoggedJob``/``LoggedTask``/``LoggedTaskAttempt``): a missing or null
list is empty; a time is a number or a numeric string, negative means unknown (Rumen writes -1), and must be
below :data:`MAX_TIME_MS`. Cost: linear in the job's attempts, about a tenth of building the template.
"""

from __future__ import annotations

import math
from typing import Any

from mrsim.errors import InputError
from mrsim.io.fields import show_value
from mrsim.io.limits import check_limit

#: 10**14 ms is the year 5138: a later time is damage, not a trace.
MAX_TIME_MS = 10**14

_JOB_TIMES = ("submitTime", "launchTime", "finishTime")
_TIMES = ("startTime", "finishTime")
_ATTEMPT_TIMES = ("startTime", "finishTime", "shuffleFinished", "sortFinished")
_JOB_COUNTS = ("totalMaps", "totalReduces", "jobMapMB", "jobReduceMB")


def _bad(where: str, field: str, expected: str, value: object) -> InputError:
    shown = show_value(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return InputError(f"{where}: field '{field}' must be {expected}, got {shown}")


def _check_time(obj: dict, field: str, where: str) -> None:
    value = obj.get(field)
    if value is None or type(value) is int and -MAX_TIME_MS < value < MAX_TIME_MS:
        return
    if isinstance(value, bool):
        raise _bad(where, field, "a time in ms", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value) or abs(value) >= MAX_TIME_MS:
            raise _bad(where, field, f"a time in ms below {MAX_TIME_MS:.0e}", value)
        return
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit() and len(text) < 16:
            return
    raise _bad(where, field, "a time in ms (a number)", value)


def _times(obj: dict, fields: tuple[str, ...], where_of) -> None:
    """The fast path of :func:`_check_time` over ``fields``: a missing value or an int in range costs one
    ``dict.get`` and two comparisons; anything else takes the slow path (``where_of()`` builds the location
    only then)."""
    get = obj.get
    for field in fields:
        value = get(field)
        if value is None or (type(value) is int and -MAX_TIME_MS < value < MAX_TIME_MS):
            continue
        _check_time(obj, field, where_of())


def check_logged_job(job: Any, source: str) -> None:
    """Raise :class:`InputError` when ``job`` is not a well-formed ``LoggedJob`` (see the module docstring).
    A :class:`mrsim.profiler.typed.TypedJob` is checked as the whole job its bytes hold (with its task dicts)."""
    full = getattr(job, "full", None)
    if full is not None and callable(full) and isinstance(job, dict):
        job = full()
    if not isinstance(job, dict):
        raise InputError(f"{source}: expected a JSON object (a Rumen LoggedJob), got {type(job).__name__}")
    job_id = job.get("jobID")
    if not isinstance(job_id, str) or not job_id:  # Rumen's LoggedJob.jobID is a string (JobID.toString())
        raise _bad(source, "jobID", "a job id string", job_id)
    where = f"{source}: job {job_id}"
    _times(job, _JOB_TIMES + _JOB_COUNTS, lambda: where)
    props = job.get("jobProperties")
    if props is not None and not isinstance(props, dict):
        raise _bad(where, "jobProperties", "an object", props)
    for kind in ("mapTasks", "reduceTasks", "otherTasks"):
        tasks = job.get(kind)
        if tasks is None:
            continue
        if type(tasks) is not list:
            raise _bad(where, kind, "a list of objects", tasks)
        check_limit("tasks_per_job", len(tasks), f"{where}: {kind}")
        for index, task in enumerate(tasks):
            if type(task) is not dict:
                raise _bad(where, kind, "a list of objects", task)

            def task_where(task: dict = task, index: int = index, kind: str = kind) -> str:
                return f"{where}: {kind}[{index}] ({task.get('taskID', '?')})"

            _times(task, _TIMES, task_where)
            attempts = task.get("attempts")
            if attempts is not None:
                if type(attempts) is not list:
                    raise _bad(task_where(), "attempts", "a list of objects", attempts)
                for attempt in attempts:
                    if type(attempt) is not dict:
                        raise _bad(task_where(), "attempts", "a list of objects", attempt)
                    _times(attempt, _ATTEMPT_TIMES,
                           lambda attempt=attempt, tw=task_where: f"{tw()}: attempt {attempt.get('attemptID', '?')}")
            locations = task.get("preferredLocations")
            if locations is not None:
                if type(locations) is not list:
                    raise _bad(task_where(), "preferredLocations", "a list of objects", locations)
                for loc in locations:
                    if type(loc) is not dict:
                        raise _bad(task_where(), "preferredLocations", "a list of objects", loc)
                    layers = loc.get("layers")
                    if layers is not None and type(layers) is not list:
                        raise _bad(task_where(), "preferredLocations.layers", "a list of names", layers)
