"""One walk over a ``LoggedJob`` dict into typed columns, for the jobs whose shape leaves nothing to decide.

Most jobs of most traces are *plain*: every map and reduce task is an object of its list's type with exactly one
attempt, that attempt succeeded, and every time the collectors read is an integer in range. For such a job every
collector of the one-pass ingest (:mod:`mrsim.profiler.ingest`: the template builder, the observation,
the slot usage, the calibration lags, the background usage) reads the same few fields of the same attempts, and
most of their branches (failed, killed, speculative and retried attempts, unknown times, malformed fields) cannot
be taken. :func:`plain_job` reads those fields once, into one list per field, and proves the shape while doing so;
the collectors' ``*_plain`` paths then work on the columns (numpy where the result is an array) instead of each
walking the attempt dicts again.

A job that is not plain -- any other shape, a missing or non-integer time, a failed attempt or a retried task -- gives ``None``, and every collector reads it through its general path, which keeps every
check of hostile input, its one-line error and every warning. Both paths give identical results on plain jobs
(``tests/ingest/test_plain_columns.py`` compares them field by field; ``benchmarks/ingest_identity.py`` on every
real input). Cost: one Python loop over the attempts, about 1 us each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mrsim.profiler.logged_check import MAX_TIME_MS


@dataclass(slots=True)
class PlainJob:
    """The columns of a plain job: one entry per task, maps first (``n_maps`` of them) then reduces, in file order.

    Times are epoch milliseconds (the trace's integers); each task's attempt is its only one and succeeded."""

    # the task objects (the template builder reads a map's ``preferredLocations``); a typed job's when some task has
    # split locations: dicts of the tasks' ``preferredLocations`` only (else its typed tasks, which nothing reads)
    maps: list[dict[str, Any]]
    reduces: list[dict[str, Any]]
    n_maps: int
    task_start: list[int]
    task_finish: list[int]
    attempt_start: list[int]
    attempt_finish: list[int]
    host_names: list[str]  # the attempt's ``hostName`` as logged (``/rack/host`` or a bare host)
    attempt_ids: list[str]
    shuffle_finished: list[int]  # reduces only (``n_reduces`` entries): -1 when not logged
    sort_finished: list[int]
    # the attempt objects (the slot usage reads a ``location`` when there is one); a typed job's
    # (mrsim.profiler.typed) when one has a location: dicts of the attempts' ``hostName`` and ``location`` only
    attempts: list[dict[str, Any]]
    map_locations_given: list[bool]  # per map: a non-empty ``preferredLocations`` list
    any_locations: bool  # some map or reduce has a non-empty ``preferredLocations`` list
    any_attempt_location: bool  # some attempt has a ``location`` (its host comes from there, not its name)

    cached: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(task start, task finish, attempt start, attempt finish)`` as int64 arrays (ms), made on the first call
        and shared by the collectors (read-only: none of them writes into them)."""
        if self.cached is None:
            made = (np.array(self.task_start, dtype=np.int64), np.array(self.task_finish, dtype=np.int64),
                    np.array(self.attempt_start, dtype=np.int64), np.array(self.attempt_finish, dtype=np.int64))
            for array in made:
                array.setflags(write=False)
            self.cached = made
        return self.cached


def _reduce_time(value: object) -> int | None:
    """A reduce attempt's ``shuffleFinished``/``sortFinished`` as the builder reads it (None: not plain)."""
    if value is None:
        return -1
    if type(value) is int and -MAX_TIME_MS < value < MAX_TIME_MS:
        return value
    return None


def plain_job(job: object) -> PlainJob | None:
    """The :class:`PlainJob` of ``job``, or None when any part of it is not plain (module docstring).

    Plain means: ``jobID`` set; ``mapTasks`` and ``reduceTasks`` are lists, not both empty; each task is an object
    whose ``taskType`` is absent or its list's (``MAP``/``REDUCE``), whose ``preferredLocations`` is absent or a
    list, whose ``startTime``/``finishTime`` are integers in ``(0, 10**14)``, and whose ``attempts`` is a list of
    one object with ``result`` ``SUCCESS``, integer ``0 < startTime <= finishTime < 10**14``, a non-empty string
    ``hostName`` and a string ``attemptID``; a reduce attempt's ``shuffleFinished`` and
    ``sortFinished`` are absent, null or integers in range."""
    if type(job) is not dict or not job.get("jobID"):
        return None
    maps, reduces = job.get("mapTasks"), job.get("reduceTasks")
    if type(maps) is not list or type(reduces) is not list or not (maps or reduces):
        return None
    t_start: list[int] = []
    t_finish: list[int] = []
    a_start: list[int] = []
    a_finish: list[int] = []
    hosts: list[str] = []
    ids: list[str] = []
    attempt_list: list[dict[str, Any]] = []
    located: list[bool] = []
    reduce_located = False
    attempt_location = False
    shuffles: list[int] = []
    sorts: list[int] = []
    top = MAX_TIME_MS
    for tasks, task_type in ((maps, "MAP"), (reduces, "REDUCE")):
        is_reduce = task_type == "REDUCE"
        for task in tasks:
            if type(task) is not dict:
                return None
            kind = task.get("taskType")
            if kind is not None and kind != task_type:
                return None
            attempts = task.get("attempts")
            if type(attempts) is not list or len(attempts) != 1:
                return None
            attempt = attempts[0]
            if type(attempt) is not dict or attempt.get("result") != "SUCCESS":
                return None
            s, f = task.get("startTime"), task.get("finishTime")
            x, y = attempt.get("startTime"), attempt.get("finishTime")
            if not (type(s) is int and type(f) is int and type(x) is int and type(y) is int
                    and 0 < s < top and 0 < f < top and 0 < x <= y < top):
                return None
            host, aid = attempt.get("hostName"), attempt.get("attemptID")
            if type(host) is not str or not host or type(aid) is not str:
                return None
            locations = task.get("preferredLocations")
            if locations is not None and type(locations) is not list:
                return None
            if not is_reduce:
                located.append(bool(locations))
            elif locations:
                reduce_located = True
            if is_reduce:
                shuffle = _reduce_time(attempt.get("shuffleFinished"))
                sort = _reduce_time(attempt.get("sortFinished"))
                if shuffle is None or sort is None:
                    return None
                shuffles.append(shuffle)
                sorts.append(sort)
            t_start.append(s)
            t_finish.append(f)
            a_start.append(x)
            a_finish.append(y)
            hosts.append(host)
            ids.append(aid)
            attempt_list.append(attempt)
            if "location" in attempt:
                attempt_location = True
    return PlainJob(maps, reduces, len(maps), t_start, t_finish, a_start, a_finish, hosts, ids, shuffles, sorts,
                    attempt_list, located, reduce_located or any(located), attempt_location)
