"""Turn Rumen ``LoggedJob`` dicts into :class:`~mrsim.model.templates.JobTemplate` objects (SimMR III-A).

Every reader of the profiler (Rumen JSON, JobHistory logs, ``.jhist``, SLS) yields dicts in Rumen's
``LoggedJob`` shape; this module is the single place where they become templates.

Rules, in the words of the SimMR paper and Rumen's own consumers (``ZombieJob``):

* Durations come from the **successful attempt's own timestamps** only (attempt finish − attempt start). In
  0.20/1.x logs attempts use the TaskTracker clock and tasks the JobTracker clock; mixing them is wrong, so task
  times are used only as a fallback when an attempt lacks a start or finish, and that fallback is reported.
* The job's **map stage end** is the latest finish of its successful map attempts.
* A successful reduce attempt is split at its sort end (``sortFinished``; else ``shuffleFinished``; else its
  start, i.e. no shuffle). If it started before the map stage ended it is a first-wave reduce and contributes
  the **non-overlapping** part of its shuffle, sort end − map stage end (at least 0), to
  ``first_shuffle_durations``; otherwise sort end − start goes to ``typical_shuffle_durations``. Its reduce
  duration is finish − sort end.
* Out-of-order phase times (start ≤ shuffle ≤ sort ≤ finish violated, as in Rumen's branch-1 folded gold trace)
  are clamped into [start, finish] and reported as a warning naming the job and attempt.
* ``-1`` means unknown; Long.MIN/MAX sentinels (empty CDFs) are never read.

Kept in ``extra``: the job's launch delay (launchTime − submitTime: JobTracker initialisation, or the MR
ApplicationMaster's start on YARN) as ``launch_delay_s`` and its SETUP / CLEANUP task durations as ``setup_s`` /
``cleanup_s`` (from ``otherTasks``; the engine replays them, see ``mrsim.tracker.jobtracker``), the count of
unsuccessful attempts, Rumen's ``jobMapMB``/``jobReduceMB`` (heap MB from -Xmx) as
``map_mb``/``reduce_mb``, and the scheduler-relevant job properties (pools, queues, memory per task) under
``properties``.

Failed and killed work (a decision documented in the README): the FAILED/KILLED attempts of a task that later
succeeded are kept, in order, as ``extra["failed_map_attempts"]`` / ``extra["failed_reduce_attempts"]``
(task index → durations in s): the engine replays them as attempts that hold a slot and then fail, so the wasted
work is reproduced. Attempts that ran concurrently with the successful one are speculative attempts (Hadoop runs
two attempts of a task at once only when speculating): they are counted in ``extra["speculative_attempts"]`` and
not replayed as failures. When the successful attempt is a backup that started after such an attempt (the original
it beat), the time from the original's start to the backup's is kept as ``extra["backup_map_waits"]`` /
``extra["backup_reduce_waits"]`` (task index → seconds): the calibration replays it (``mrsim.calibration.feature``,
part ``backups``), because the task's successful attempt could not start before its backup was launched. Tasks without a successful attempt contribute no duration; all unsuccessful attempts are
counted in ``extra["unsuccessful_attempts"]``. A FAILED or KILLED job is replayed
with the tasks that did succeed (the work it really completed); if none did, it is skipped with a warning.
A SUCCESS job with no tasks at all is malformed input and raises :class:`~mrsim.errors.InputError`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Iterable, Iterator

import numpy as np

from mrsim.errors import InputError
from mrsim.profiler.logged_check import MAX_TIME_MS, check_logged_job
from mrsim.io.fields import show_value
from mrsim.io.limits import check_limit, limit
from mrsim.model.templates import JobTemplate, Outcome, Priority, Workload

if TYPE_CHECKING:
    from mrsim.profiler.plain import PlainJob

_MS = 1000.0


class _Malformed(ValueError):
    """A field the builder cannot read; :func:`template_from_logged_job` then runs the full
    :func:`~mrsim.profiler.logged_check.check_logged_job` to name the job, task, attempt and field."""


def _num(value: object) -> int:
    """A Rumen long field as int; ``-1`` (unknown) for missing values. A value that is not a number (or a numeric
    string), or is out of range, raises :class:`_Malformed` -- it used to read as "unknown", silently."""
    if type(value) is int:
        if -MAX_TIME_MS < value < MAX_TIME_MS:
            return value
        raise _Malformed(value)
    if value is None:
        return -1
    if isinstance(value, bool):
        raise _Malformed(value)
    if isinstance(value, float):
        if -MAX_TIME_MS < value < MAX_TIME_MS:  # False for NaN and infinities
            return int(value)
        raise _Malformed(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit() and len(text) < 16:
            return int(text)
    raise _Malformed(value)


def successful_attempt(task: dict) -> dict | None:
    for attempt in task.get("attempts") or ():
        if attempt.get("result") == "SUCCESS":
            return attempt
    return None


def attempt_window(task: dict, attempt: dict, job_id: str, warnings: list[str]) -> tuple[int, int] | None:
    start, finish = attempt.get("startTime"), attempt.get("finishTime")
    if not (type(start) is int and -MAX_TIME_MS < start < MAX_TIME_MS):  # _num's first test inline: once a task
        start = _num(start)
    if not (type(finish) is int and -MAX_TIME_MS < finish < MAX_TIME_MS):
        finish = _num(finish)
    if start > 0 and finish >= start:
        return start, finish
    t_start, t_finish = _num(task.get("startTime")), _num(task.get("finishTime"))
    aid = attempt.get("attemptID") or task.get("taskID")
    if t_start > 0 and t_finish >= t_start:
        warnings.append(f"job {job_id}: attempt {aid} has no valid start/finish; used the task's JobTracker times")
        return t_start, t_finish
    warnings.append(f"job {job_id}: attempt {aid} has no valid start/finish time; task dropped")
    return None


def _window(attempt: dict) -> tuple[int, int] | None:
    start, finish = _num(attempt.get("startTime")), _num(attempt.get("finishTime"))
    return (start, finish) if start > 0 and finish >= start else None


def _backup_wait(task: dict, success: dict) -> float:
    """Seconds from the start of the earliest attempt that ran concurrently with ``success`` and started before it
    (the original a speculative backup beat, ``JobInProgress.findSpeculativeTask``) to ``success``'s start; 0 when
    the successful attempt is not such a backup."""
    ok = _window(success)
    if ok is None:
        return 0.0
    first = ok[0]
    for attempt in task.get("attempts") or ():
        if attempt is success or attempt.get("result") not in ("FAILED", "KILLED"):
            continue
        w = _window(attempt)
        if w is not None and w[0] < ok[0] < w[1]:
            first = min(first, w[0])
    return (ok[0] - first) / _MS


def _unsuccessful_attempts(task: dict, success: dict) -> tuple[list[float], int]:
    """Split a task's FAILED/KILLED attempts with valid times into the ones that ran *before* its successful
    attempt (durations in s, log order: replayed as failures) and the number that ran *concurrently* with it.

    Hadoop runs two attempts of one task at the same time only when speculating, so an attempt whose window
    overlaps the successful one is a speculative attempt (the loser, or the original that a backup beat); it is
    marked, not replayed as a failure (``--speculative`` replays speculation itself).
    """
    attempts = task.get("attempts")
    if type(attempts) is list and len(attempts) == 1 and attempts[0] is success:
        return [], 0  # nearly every task: its one attempt succeeded (whose window attempt_window already read)
    ok = _window(success)
    before: list[float] = []
    concurrent = 0
    for attempt in task.get("attempts") or ():
        if attempt is success or attempt.get("result") not in ("FAILED", "KILLED"):
            continue
        w = _window(attempt)
        if w is None:
            continue
        if ok is not None and w[0] < ok[1] and w[1] > ok[0]:
            concurrent += 1
        else:
            before.append((w[1] - w[0]) / _MS)
    return before, concurrent


def _completed(tasks: list[dict], job_id: str, warnings: list[str]) -> Iterator[tuple[dict, dict, int, int]]:
    """``(task, successful attempt, start ms, finish ms)`` for each task that has a usable successful attempt."""
    for task in tasks:
        attempt = successful_attempt(task)
        if attempt is None:
            continue
        window = attempt_window(task, attempt, job_id, warnings)
        if window is not None:
            yield task, attempt, window[0], window[1]


def _location_strings(task: dict) -> tuple[str, ...]:
    hosts = []
    locations = task.get("preferredLocations")
    if locations is not None and type(locations) is not list:
        raise _Malformed(locations)
    for loc in locations or ():
        layers = loc.get("layers") if isinstance(loc, dict) else None
        if layers:
            hosts.append("/" + "/".join(str(x) for x in layers))
    return tuple(hosts)


#: Job configuration keys kept in ``JobTemplate.extra["properties"]`` (what schedulers read: pools, queues,
#: memory per task). The full ``jobProperties`` (~17 KB per job) is not kept.
KEPT_PROPERTY_PREFIXES = ("mapred.fairscheduler.", "mapred.job.queue.name", "mapreduce.job.queuename",
                          "mapred.job.priority", "mapreduce.job.priority", "mapred.job.map.memory.mb",
                          "mapred.job.reduce.memory.mb", "mapreduce.map.memory.mb", "mapreduce.reduce.memory.mb",
                          "mapreduce.map.cpu.vcores", "mapreduce.reduce.cpu.vcores",
                          "mapred.job.reuse.jvm.num.tasks", "mapreduce.job.jvm.numtasks",
                          "user.name", "pool.name",
                          # Hadoop 1 memory-based scheduling (mrsim.model.memory_slots): slot memory, cluster maximum
                          "mapred.cluster.map.memory.mb", "mapred.cluster.reduce.memory.mb",
                          "mapred.cluster.max.map.memory.mb", "mapred.cluster.max.reduce.memory.mb",
                          "mapreduce.cluster.mapmemory.mb", "mapreduce.cluster.reducememory.mb",
                          "mapreduce.jobtracker.maxmapmemory.mb", "mapreduce.jobtracker.maxreducememory.mb",
                          # YARN mode (mrsim.tracker.yarn.config): container sizes, AM, slow start, RM/NM settings
                          "yarn.app.mapreduce.am.resource.", "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms",
                          "yarn.scheduler.minimum-allocation-", "yarn.scheduler.maximum-allocation-",
                          "yarn.nodemanager.resource.", "yarn.resourcemanager.scheduler.class",
                          "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
                          "mapreduce.job.reduce.slowstart.completedmaps", "mapreduce.framework.name")


def _aux_duration(job: dict, kind: str, job_id: str, warnings: list[str]) -> float | None:
    """Duration (s) of the job's successful SETUP or CLEANUP attempt (Rumen ``otherTasks``), or None."""
    tasks = [t for t in job.get("otherTasks") or () if t.get("taskType") == kind]
    for _task, _attempt, start, finish in _completed(tasks, job_id, warnings):
        return (finish - start) / _MS
    return None


def _aux_task_time(job: dict, kind: str) -> float | None:
    """Duration (s) of the job's SETUP or CLEANUP *task* in the JobTracker's clock (assignment to recorded end:
    the attempt plus its launch and report lags), or None. Replayed by the calibration feature."""
    for task in job.get("otherTasks") or ():
        if not isinstance(task, dict) or task.get("taskType") != kind:
            continue
        start, finish = _num(task.get("startTime")), _num(task.get("finishTime"))
        if start > 0 and finish >= start:
            return (finish - start) / _MS
    return None


def _extra(job: dict, unsuccessful: int, job_id: str = "", warnings: list[str] | None = None,
           failed_maps: dict | None = None, failed_reduces: dict | None = None, speculative: int = 0,
           backup_waits: tuple[dict, dict] = ({}, {})) -> dict:
    extra: dict = {"unsuccessful_attempts": unsuccessful}
    if backup_waits[0]:
        extra["backup_map_waits"] = backup_waits[0]
    if backup_waits[1]:
        extra["backup_reduce_waits"] = backup_waits[1]
    if speculative:
        extra["speculative_attempts"] = speculative
    if failed_maps:
        extra["failed_map_attempts"] = failed_maps
    if failed_reduces:
        extra["failed_reduce_attempts"] = failed_reduces
    submit, launch = _num(job.get("submitTime")), _num(job.get("launchTime"))
    if submit > 0 and launch >= submit:
        extra["launch_delay_s"] = (launch - submit) / _MS
    scratch: list[str] = []
    for kind, name in (("SETUP", "setup_s"), ("CLEANUP", "cleanup_s")):
        value = _aux_duration(job, kind, job_id, scratch if warnings is None else warnings)
        if value is not None:
            extra[name] = value
    for kind, name in (("SETUP", "setup_task_s"), ("CLEANUP", "cleanup_task_s")):
        if name[:-7] + "_s" in extra:  # the task's own time (JobTracker clock), beside its attempt's
            value = _aux_task_time(job, kind)
            if value is not None:
                extra[name] = value
    for key, name in (("jobMapMB", "map_mb"), ("jobReduceMB", "reduce_mb")):
        value = _num(job.get(key))
        if value > 0:
            extra[name] = value
    props = job.get("jobProperties")
    if isinstance(props, dict):
        kept = {str(k): str(v) for k, v in props.items() if str(k).startswith(KEPT_PROPERTY_PREFIXES)}
        if kept:
            extra["properties"] = kept
    return extra


def template_from_logged_job(job: dict, *, source: str = "", warnings: list[str] | None = None,
                             plain: "PlainJob | None" = None) -> JobTemplate | None:
    """Build one template from a ``LoggedJob`` dict; ``None`` when a failed/killed job did no usable work.

    Malformed input (a list that is a string, a time that is not a number or is out of range) is an
    :class:`InputError` naming the job, task, attempt and field. The builder reads fields defensively and, on
    the first anomaly, runs the full :func:`~mrsim.profiler.logged_check.check_logged_job` for the precise
    message, so well-formed traces pay only for the type tests of the fields the builder reads anyway.
    Cost: linear in the job's attempts. ``plain``: the job's :func:`mrsim.profiler.plain.plain_job` columns, when the
    caller has them (the same template, from the columns: :func:`_template_plain`).
    """
    warns: list[str] = warnings if warnings is not None else []
    if not isinstance(job, dict) or not job.get("jobID"):
        raise InputError(f"{source}: an object without a jobID is not a Rumen LoggedJob (is this a job trace?)")
    if type(job.get("jobID")) is not str:
        check_logged_job(job, source)  # the precise InputError: the job id must be a string
    mark = len(warns)
    try:
        return _template(job, source, warns) if plain is None else _template_plain(job, plain, source, warns)
    except (TypeError, AttributeError, ValueError, OverflowError, KeyError) as exc:
        del warns[mark:]
        check_logged_job(job, source)  # raises the precise InputError
        job_id = job.get("jobID")
        raise InputError(f"{source}: job {job_id}: malformed LoggedJob ({type(exc).__name__}: "
                         f"{show_value(exc.args[0]) if exc.args else ''})") from None


def _outcome(job: dict) -> Outcome:
    outcome_raw = job.get("outcome")
    try:
        return Outcome(str(outcome_raw).upper()) if outcome_raw else Outcome.UNKNOWN
    except ValueError:
        return Outcome.UNKNOWN


def _check_task_limits(job: dict, job_id: str, source: str) -> None:
    """The ``tasks_per_job`` limit of each task list. The limit is looked up once (an environment read) and the
    message built only when a list exceeds it: this runs once per job of every trace."""
    cap = -1
    for kind in ("mapTasks", "reduceTasks"):
        tasks = job.get(kind)
        if type(tasks) is list:
            if cap < 0:
                cap = limit("tasks_per_job")
            if len(tasks) > cap:
                check_limit("tasks_per_job", len(tasks), f"{source}: job {job_id}: {kind}")


def _template_plain(job: dict, plain: "PlainJob", source: str, warns: list[str]) -> JobTemplate | None:
    """:func:`_template` of a plain job (:mod:`mrsim.profiler.plain`), column-wise: every task has one successful
    attempt with valid integer times, so there are no failed, speculative or backup attempts, no task-time
    fallback and no dropped task; the reduces' shuffle/sort rule runs on arrays (same values, same warnings in the
    same order)."""
    job_id = str(job["jobID"])
    _check_task_limits(job, job_id, source)
    outcome = _outcome(job)
    n = plain.n_maps
    _ts, _tf, a_start, a_finish = plain.arrays()
    map_finish = a_finish[:n]
    map_durations = (map_finish - a_start[:n]) / _MS
    # Only a map with a non-empty preferredLocations list can give a location (_location_strings of any other map
    # is ()): without one, no per-map list (what _assemble reads of it is whether any is non-empty).
    map_locations = [_location_strings(task) if given else () for task, given in zip(plain.maps,
                                                                                      plain.map_locations_given)] \
        if True in plain.map_locations_given else []
    map_stage_end = int(map_finish.max()) if n else -1
    if n == len(a_start):  # no reduce: its five arrays are empty (what the rule below gives on no element)
        empty = a_start[:0] / _MS
        return _assemble(job, job_id, source, outcome, warns, map_durations, map_locations, empty, empty, empty,
                         lambda: _extra(job, 0, job_id, warns))
    start, finish = a_start[n:], a_finish[n:]
    shuffle_end = np.array(plain.shuffle_finished, dtype=np.int64)
    sort_end = np.array(plain.sort_finished, dtype=np.int64)
    shuffle_or_start = np.where(shuffle_end > 0, shuffle_end, start)
    sort_end = np.where(sort_end <= 0, shuffle_or_start, sort_end)
    ordered = (start <= shuffle_or_start) & (shuffle_or_start <= sort_end) & (sort_end <= finish)
    if not ordered.all():
        for i in np.flatnonzero(~ordered).tolist():
            warns.append(
                f"job {job_id}: reduce attempt {plain.attempt_ids[n + i]} has shuffle/sort times out of order "
                f"(start {int(start[i])}, shuffle {int(shuffle_end[i])}, sort {int(sort_end[i])}, finish "
                f"{int(finish[i])}); clamped into [start, finish]"
            )
        sort_end = np.where(ordered, sort_end, np.minimum(np.maximum(sort_end, start), finish))
    first_wave = (start < map_stage_end) if map_stage_end > 0 else np.zeros(start.shape, dtype=bool)
    first_shuffle = np.maximum(0, sort_end[first_wave] - map_stage_end) / _MS
    later = ~first_wave
    typical_shuffle = (sort_end[later] - start[later]) / _MS
    reduce_durations = (finish - sort_end) / _MS
    return _assemble(job, job_id, source, outcome, warns, map_durations, map_locations, reduce_durations,
                     first_shuffle, typical_shuffle, lambda: _extra(job, 0, job_id, warns))


def _template(job: dict, source: str, warns: list[str]) -> JobTemplate | None:
    job_id = str(job["jobID"])
    _check_task_limits(job, job_id, source)
    outcome = _outcome(job)

    map_tasks = _listed_tasks(job, "mapTasks", "MAP", job_id, source, warns)
    reduce_tasks = _listed_tasks(job, "reduceTasks", "REDUCE", job_id, source, warns)

    unsuccessful = sum(1 for task in (*map_tasks, *reduce_tasks) for a in task.get("attempts") or ()
                       if a.get("result") in ("FAILED", "KILLED"))

    map_durations: list[float] = []
    map_locations: list[tuple[str, ...]] = []
    map_stage_end = -1
    failed_maps: dict[str, list[float]] = {}
    failed_reduces: dict[str, list[float]] = {}
    speculative = 0
    backup_maps: dict[str, float] = {}
    backup_reduces: dict[str, float] = {}
    for task, attempt, start, finish in _completed(map_tasks, job_id, warns):
        lost, concurrent = _unsuccessful_attempts(task, attempt)
        speculative += concurrent
        if lost:
            failed_maps[str(len(map_durations))] = lost
        if concurrent and (wait := _backup_wait(task, attempt)) > 0:
            backup_maps[str(len(map_durations))] = wait
        map_durations.append((finish - start) / _MS)
        map_locations.append(_location_strings(task))
        map_stage_end = max(map_stage_end, finish)

    first_shuffle: list[float] = []
    typical_shuffle: list[float] = []
    reduce_durations: list[float] = []
    for task, attempt, start, finish in _completed(reduce_tasks, job_id, warns):
        lost, concurrent = _unsuccessful_attempts(task, attempt)
        speculative += concurrent
        if lost:
            failed_reduces[str(len(reduce_durations))] = lost
        if concurrent and (wait := _backup_wait(task, attempt)) > 0:
            backup_reduces[str(len(reduce_durations))] = wait
        shuffle_end, sort_end = _num(attempt.get("shuffleFinished")), _num(attempt.get("sortFinished"))
        if sort_end <= 0:
            sort_end = shuffle_end if shuffle_end > 0 else start
        ordered = start <= (shuffle_end if shuffle_end > 0 else start) <= sort_end <= finish
        if not ordered:
            warns.append(
                f"job {job_id}: reduce attempt {attempt.get('attemptID')} has shuffle/sort times out of order "
                f"(start {start}, shuffle {shuffle_end}, sort {sort_end}, finish {finish}); clamped into [start, finish]"
            )
            sort_end = min(max(sort_end, start), finish)
        if map_stage_end > 0 and start < map_stage_end:
            first_shuffle.append(max(0, sort_end - map_stage_end) / _MS)
        else:
            typical_shuffle.append((sort_end - start) / _MS)
        reduce_durations.append((finish - sort_end) / _MS)

    _report_dropped(job_id, outcome, "map", map_tasks, warns)
    _report_dropped(job_id, outcome, "reduce", reduce_tasks, warns)
    has_work = bool(map_tasks or reduce_tasks or _num(job.get("totalMaps")) > 0)
    return _assemble(job, job_id, source, outcome, warns, map_durations, map_locations, reduce_durations,
                     first_shuffle, typical_shuffle,
                     lambda: _extra(job, unsuccessful, job_id, warns, failed_maps, failed_reduces, speculative,
                                    (backup_maps, backup_reduces)), has_work)


def _assemble(job: dict, job_id: str, source: str, outcome: Outcome, warns: list[str], map_durations: Any,
              map_locations: list[tuple[str, ...]], reduce_durations: Any, first_shuffle: Any, typical_shuffle: Any,
              extra: Any, has_work: bool = True) -> JobTemplate | None:
    """The end of :func:`_template`, shared with :func:`_template_plain`: the job-level checks and warnings, then
    the template (``extra``: the dict, or a function making it, called after the job-level warnings)."""
    n_tasks = len(map_durations) + len(reduce_durations)
    if n_tasks == 0:
        if outcome is Outcome.SUCCESS or not has_work:
            if outcome in (Outcome.FAILED, Outcome.KILLED):
                warns.append(f"job {job_id}: {outcome.value} job with no completed task skipped")
                return None
            raise InputError(f"{source}: job {job_id} has no tasks with a usable successful attempt")
        warns.append(f"job {job_id}: {outcome.value} job with no completed task skipped")
        return None
    if outcome in (Outcome.FAILED, Outcome.KILLED):
        warns.append(f"job {job_id}: {outcome.value} job replayed with its {n_tasks} completed tasks only")

    submit_ms = _num(job.get("submitTime"))
    if submit_ms <= 0:
        launch_ms = _num(job.get("launchTime"))
        if launch_ms <= 0:
            raise InputError(f"{source}: job {job_id} has no submitTime")
        warns.append(f"job {job_id}: no submitTime; used launchTime")
        submit_ms = launch_ms
    finish_ms = _num(job.get("finishTime"))
    actual = (finish_ms - submit_ms) / _MS if finish_ms > 0 and finish_ms >= submit_ms else None
    if finish_ms > 0 and finish_ms < submit_ms:
        warns.append(f"job {job_id}: finishTime {finish_ms} is before submitTime {submit_ms}; "
                     "actual completion time unknown")
    has_locations = any(map_locations)

    return JobTemplate(
        job_id=job_id,
        submit_s=submit_ms / _MS,
        map_durations=np.asarray(map_durations, dtype=np.float64),
        reduce_durations=np.asarray(reduce_durations, dtype=np.float64),
        first_shuffle_durations=np.asarray(first_shuffle, dtype=np.float64),
        typical_shuffle_durations=np.asarray(typical_shuffle, dtype=np.float64),
        name=str(job.get("jobName") or ""),
        user=str(job.get("user") or "default"),
        queue=str(job.get("queue") or "default"),
        priority=Priority.parse(job.get("priority")),
        outcome=outcome,
        actual_completion_s=actual,
        map_locations=tuple(map_locations) if has_locations else None,
        extra=extra() if callable(extra) else extra,
    )


_DECLARED = {"mapTasks": "totalMaps", "reduceTasks": "totalReduces"}


def _listed_tasks(job: dict, key: str, kind: str, job_id: str, source: str, warns: list[str]) -> list[dict]:
    """The tasks of ``job[key]`` (``mapTasks`` or ``reduceTasks``) whose ``taskType`` is ``kind`` or absent.

    A null or missing list is empty (Rumen's ``LoggedJob``), announced with the count when the job declares tasks
    of the kind (``totalMaps``/``totalReduces`` above 0): they have no record to replay. Any other value that is not
    a list (``0``, ``false``, ``""``) is an :class:`InputError` naming the job and field. A task whose ``taskType``
    names another kind is not replayed as this kind, and the warning counts them by type."""
    tasks = job.get(key)
    if tasks is None:
        declared = _num(job.get(_DECLARED[key]))
        if declared > 0:
            warns.append(f"job {job_id}: {key} is {'null' if key in job else 'missing'} although "
                         f"{_DECLARED[key]} is {declared}: {declared} {kind.lower()} task{'s' if declared > 1 else ''}"
                         " with no record, not replayed")
        return []
    if type(tasks) is not list:
        check_logged_job(job, source)  # raises the precise InputError (a list of objects expected)
        raise InputError(f"{source}: job {job_id}: field '{key}' must be a list of objects, got {show_value(tasks)}")
    kept = [t for t in tasks if (t.get("taskType") or kind) == kind]
    if len(kept) < len(tasks):
        others: dict[str, int] = {}
        for t in tasks:
            if (t.get("taskType") or kind) != kind:
                name = show_value(t.get("taskType"))
                others[name] = others.get(name, 0) + 1
        listed = ", ".join(f"{count} {name}" for name, count in others.items())
        dropped = len(tasks) - len(kept)
        warns.append(f"job {job_id}: {dropped} task{'s' if dropped > 1 else ''} of {key} with another taskType "
                     f"({listed}; expected {kind}) not replayed")
    return kept


def _report_dropped(job_id: str, outcome: Outcome, kind: str, tasks: list[dict], warns: list[str]) -> None:
    """Warn, with counts, about tasks that contribute nothing: no attempt logged at all (a log missing its
    attempt lines), or -- in a job that succeeded -- attempts of which none succeeded."""
    bare = sum(1 for t in tasks if not t.get("attempts"))
    unfinished = 0
    if outcome is Outcome.SUCCESS:
        unfinished = sum(1 for t in tasks if t.get("attempts") and successful_attempt(t) is None)
    if bare:
        warns.append(f"job {job_id}: {bare} {kind} task{'s' if bare > 1 else ''} dropped: no attempt recorded")
    if unfinished:
        warns.append(f"job {job_id}: {unfinished} {kind} task{'s' if unfinished > 1 else ''} of a successful job "
                     "dropped: no successful attempt recorded")


def workload_from_logged_jobs(jobs: Iterable[dict], *, source: str = "") -> Workload:
    """Build a :class:`Workload` from ``LoggedJob`` dicts, sorting by submit time and renaming duplicate ids.

    Duplicate job ids (Rumen's Folder repeats jobs) are kept as separate jobs named ``<id>#2``, ``#3``, ...
    with a warning, because a folded trace really submits them again.
    """
    warnings: list[str] = []
    templates: list[JobTemplate] = []
    seen: dict[str, int] = {}
    total_tasks = 0
    for logged in jobs:
        template = template_from_logged_job(logged, source=source, warnings=warnings)
        if template is None:
            continue
        count = seen.get(template.job_id, 0) + 1
        seen[template.job_id] = count
        if count > 1:
            new_id = f"{template.job_id}#{count}"
            warnings.append(f"job {template.job_id}: duplicate job id; occurrence {count} replayed as {new_id}")
            template = template.with_changes(job_id=new_id)
        templates.append(template)
        check_limit("jobs", len(templates), source or "workload")
        total_tasks += len(template.map_durations) + len(template.reduce_durations)
        check_limit("tasks", total_tasks, source or "workload")
    if not templates:
        raise InputError(f"{source}: no replayable job (every job failed or was killed before doing any work)")
    return Workload.of(templates, source=source, warnings=warnings)


def load_rumen_workload(path: str | os.PathLike[str]) -> Workload:
    """Read a Rumen trace file into a workload (see :func:`mrsim.profiler.rumen.iter_rumen_jobs`)."""
    from mrsim.profiler.rumen import iter_rumen_jobs

    return workload_from_logged_jobs(iter_rumen_jobs(path), source=str(path))


def iter_templates(jobs: Iterable[dict], *, source: str = "", warnings: list[str] | None = None) -> Iterator[JobTemplate]:
    """Lazily convert ``LoggedJob`` dicts; skipped jobs are left out."""
    for logged in jobs:
        template = template_from_logged_job(logged, source=source, warnings=warnings)
        if template is not None:
            yield template
