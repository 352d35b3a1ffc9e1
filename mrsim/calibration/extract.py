"""Measure a :class:`~mrsim.calibration.model.Calibration` from Rumen ``LoggedJob`` records.

For every *successful* attempt of a task of kind *k* (map, reduce, setup, cleanup):

* **launch lag** = attempt start - task start: the task start is the JobTracker's assignment (the heartbeat that
  handed the task out, ``TaskInProgress.getExecStartTime``); the attempt start is when the child JVM began the
  task on the TaskTracker. On 0.20/1.x logs the two come from different clocks, so a lag includes the
  TaskTracker's clock skew; negative values (skew larger than the lag) are counted, reported and clamped to 0.
  Only a task's *first* attempt has a launch lag here: Rumen's task start is its first attempt's assignment, so
  for a retry or a speculative backup the difference also holds the earlier attempt's run (up to 59 s on the 2009
  logs, 24 s on the 2010 ones); those waits are kept per task by the template builder and replayed there
  (``extra["backup_*_waits"]``).
* **report lag** = task finish - attempt finish: the completion reaching the JobTracker.

**Cold and warm launches** (``TaskTracker.localizeJob``). The first task of a job that a TaskTracker starts
localises the job there (job conf, jar, distributed cache, the job's directories) while holding the job's lock;
later tasks of the job on that tracker skip it. So each launch lag above is also classed by the job's state on its
host (all of the job's attempts counted, any result, the SETUP task included): *cold* (the attempt that started
first there), *in flight* (assigned before that start, so it waited on the lock: on the Gridmix traces such a lag
equals the wait for the cold attempt's start within 0.01 s at the 90th percentile) and *warm* (assigned after it).
The cold and warm lags make two more laws per kind; in-flight lags are in neither, since the replay produces them
from the cold launch it waits for. Neither law holds a *slot wait* either: a launch whose attempt started within
``SLOT_WAIT_S`` of the end of another attempt in a slot of the same type on its host that was still running when
the task was assigned. The JobTracker counts a task that is done but not yet committed (COMMIT_PENDING) or in its
cleanup phase as no longer holding its slot (``TaskTrackerStatus.countOccupiedMapSlots`` / ``...ReduceSlots``) and
hands the slot on; the TaskTracker's launcher then waits for the slot to be free (``TaskTracker.TaskLauncher``).
On the Gridmix traces 1,009 of the 2,087 lags above 0.5 s are such waits. The replay frees a slot only when its
task's end is reported and hands it on then, so it has no such wait to sample.

**Stalled trackers.** An attempt whose launch lag exceeds the cluster's 99th percentile and is at least
``OUTLIER_MIN_EXCESS_S`` above the cluster's median is a *stall* of its host (with at least ``STALL_MIN_LAGS``
lags measured, so that percentiles mean something): the host is an outlier with a stall window from the stalled
task's assignment to its attempt's start (overlapping windows of one host's launcher merge). Windows are kept per
launcher (``TaskTracker.TaskLauncher``: map-slot or reduce-slot, read from the attempt id's ``_m_`` / ``_r_``),
because one launcher can be stuck while the other starts tasks normally. Stalled attempts are left out of the
cluster-wide laws, which describe normal launches.

**Heartbeat interval.** Without out-of-band heartbeats a TaskTracker reports a finished attempt only in its next
heartbeat, so report lags are the wait to the next grid point, uniform on [0, interval) when attempts end at
random instants: the median report lag is half the interval. The estimate is ``2 x median`` of map and reduce
report lags, used when (a) at least ``MIN_REPORT_SAMPLES`` are known, (b) fewer than ``MAX_NEGATIVE_FRACTION`` are
negative (one clock, or negligible skew), and (c) the trace does not record out-of-band heartbeats (with them a
report lag says nothing about the interval).

With out-of-band heartbeats the interval shows in the *assignments* instead (``TaskTracker.offerService``: the next
regular heartbeat leaves ``interval`` after the previous one, a finishing task sends one at once). Per host, every
task assignment (task start, JobTracker clock) more than ``OOB_WINDOW_S`` after the host's previous heartbeat (an
attempt's end, which an out-of-band heartbeat reports at once, or an earlier assignment) is a regular heartbeat
that found work, and its gap to that previous heartbeat is a multiple of the interval (or the interval itself when
the tracker was idle one heartbeat earlier). The interval is the mode of those gaps: the densest ``GAP_BIN_S`` bin
between ``MIN_INTERVAL_S`` (no Hadoop 1 JobTracker runs faster) and ``MAX_GAP_S``, refined to the median of the gaps within one bin of its centre, used
when at least ``MIN_GAP_PEAK`` gaps and ``MIN_GAP_PEAK_FRACTION`` of them fall there and they are as regular as a
timer's (interquartile range at most ``MAX_PEAK_IQR_S``). On the Gridmix traces 504 of
1,770 such gaps lie in 3.00-3.25 s (median 3.006 s): the 3 s ``HEARTBEAT_INTERVAL_MIN`` of Hadoop 0.20.203-1.0
and 0.21/0.22 (``docs/hadoop-behaviour.md`` §1.3), not the 0.3 s of 1.1+. Otherwise Hadoop's cluster-size formula
stays, and the notes say why.

**First-assignment bursts** (:mod:`mrsim.calibration.heartbeat_check`). Per job, the instant its maps became
assignable (the SETUP task's end, else its launch) and its reduces (the end of the map that met slow start,
``JobInProgress.scheduleReduces``), JobTracker clock; when the kind's first assignment precedes it, the instant is
unknown and the job gives no burst. A host's first traced assignment (any kind) makes it *fresh* for that burst:
the offsets of the fresh hosts' first assignments of a job's maps (reduces) from that instant, and how many hosts
had no traced assignment before it, are the evidence a given heartbeat interval is tested against.

Cost: linear in the attempts; memory: three floats per attempt until :meth:`CalibrationCollector.result`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import chain, repeat
from operator import getitem, itemgetter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from mrsim.calibration.heartbeat_check import DEFAULT_HEARTBEATS_PER_SECOND, AssignmentBurst
from mrsim.calibration.model import KINDS, Calibration, Distribution, StalledTask, TrackerOutlier
from mrsim.model.hadoop_conf import (KEY_HB_PER_SECOND, KEY_HB_PER_SECOND_NEW, KEY_SLOWSTART, KEY_SLOWSTART_NEW,
                                     heartbeat_line)

if TYPE_CHECKING:
    from mrsim.ingest.plain import PlainJob

_MS = 1000.0
STALL_MIN_LAGS = 20
OUTLIER_MIN_EXCESS_S = 30.0
MIN_REPORT_SAMPLES = 20
MIN_VERSION_SAMPLES = 3  # report lags whose median may rule out Hadoop 1.1+'s formula
MAX_NEGATIVE_FRACTION = 0.02
OOB_WINDOW_S = 0.15
SLOT_WAIT_S = 0.1
MIN_INTERVAL_S = 0.3  # the smallest HEARTBEAT_INTERVAL_MIN of any Hadoop 1 version (1.1+)
GAP_BIN_S = 0.1
MAX_GAP_S = 10.0
MIN_GAP_PEAK = 10
MIN_GAP_PEAK_FRACTION = 0.1
MAX_PEAK_IQR_S = 0.05  # a timer's heartbeats are regular to the RPC time (Gridmix: 3.004-3.079 s, p10-p90)
REUSE_KEYS = ("mapred.job.reuse.jvm.num.tasks", "mapreduce.job.jvm.numtasks")
OOB_KEY = "mapreduce.tasktracker.outofband.heartbeat"
TASK_BITS = 24  # a launch's task reference: job ordinal << TASK_BITS | task index (tasks_per_job is far below 2**24)
TASK_MASK = (1 << TASK_BITS) - 1
#: A launch's state of its job on its TaskTracker (``TaskTracker.localizeJob``, see the module docstring).
COLD, IN_FLIGHT, WARM = 0, 1, 2


def rumen_ms(value: object) -> int:
    """A Rumen time field (epoch milliseconds) as int; -1 when missing, not a number, NaN or out of range."""
    if type(value) is int:  # nearly every value: one test instead of three
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return -1
    try:
        return int(value)
    except (OverflowError, ValueError):
        return -1


_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_KIND_OF: dict[tuple[str, str], str] = {}  # (taskType, default) -> kind: a handful of distinct values per trace


def _conf_number(props: Any, keys: tuple[str, ...], low: float, high: float) -> float | None:
    """The first of ``keys`` in a job conf whose value is a number in ``[low, high]``, else None (a key with another
    value is skipped, as Hadoop's ``Configuration.getFloat`` falls back on a bad value)."""
    if type(props) is dict or isinstance(props, Mapping):
        for key in keys:
            value = props.get(key)
            if value is not None:
                try:
                    number = float(value)
                except (TypeError, ValueError):
                    continue
                if low <= number <= high:
                    return number
    return None


def job_slowstart(job: Mapping[str, Any]) -> float:
    """The job conf's reduce slow start (``mapred.reduce.slowstart.completed.maps``, 0.21+ name first), else
    Hadoop's default 0.05."""
    value = _conf_number(job.get("jobProperties"), (KEY_SLOWSTART_NEW, KEY_SLOWSTART), 0.0, 1.0)
    return 0.05 if value is None else value


def _phase_resolution(props: Any) -> float:
    """``1 / mapred.heartbeats.in.second`` of a job conf (seconds): the JobTracker's budget per heartbeat."""
    rate = _conf_number(props, (KEY_HB_PER_SECOND_NEW, KEY_HB_PER_SECOND), 1.0, math.inf)
    return 1.0 / (DEFAULT_HEARTBEATS_PER_SECOND if rate is None else rate)


def _ready_times(job: Mapping[str, Any], map_starts: np.ndarray, map_finishes: np.ndarray,
                 reduce_starts: np.ndarray) -> tuple[int, int]:
    """``(maps, reduces)``: the instants (epoch ms, JobTracker clock) a job's maps and reduces became assignable,
    -1 when unknown (module docstring, "First-assignment bursts"). ``*_starts`` / ``map_finishes``: the tasks'
    start / finish times (ms, integer arrays; values <= 0 are missing). O(tasks)."""
    setup_end = -1
    for task in job.get("otherTasks") or ():
        if (type(task) is dict or isinstance(task, Mapping)) and task.get("taskType") == "SETUP":
            setup_end = rumen_ms(task.get("finishTime"))
            break
    launch = rumen_ms(job.get("launchTime"))
    maps_ready = setup_end if setup_end > 0 else launch
    starts = map_starts[map_starts > 0]
    if maps_ready <= 0 or (starts.size and int(starts.min()) < maps_ready):
        maps_ready = -1  # the maps started before: the instant is not known
    reduces_ready = -1
    r_starts = reduce_starts[reduce_starts > 0]
    if r_starts.size:
        finishes = map_finishes[map_finishes > 0]
        needed = math.ceil(job_slowstart(job) * map_finishes.size)  # JobInProgress: completedMapsForReduceSlowstart
        ready = maps_ready
        if needed > 0:
            ready = int(np.partition(finishes, needed - 1)[needed - 1]) if finishes.size >= needed else -1
        if ready > 0 and int(r_starts.min()) >= ready:
            reduces_ready = ready
    return maps_ready, reduces_ready


def _kind(task: Mapping[str, Any], default: str) -> str:
    raw = task.get("taskType")
    if type(raw) is str and (known := _KIND_OF.get((raw, default))) is not None:
        return known
    t = str(raw or default).lower()
    kind = t if t in KINDS else default
    if type(raw) is str and len(_KIND_OF) < 64:
        _KIND_OF[raw, default] = kind
    return kind


def _host(attempt: Mapping[str, Any]) -> str:
    """The TaskTracker's host name (last path component of Rumen's ``/rack/host``)."""
    name = attempt.get("hostName")
    if type(name) is str:  # nearly every value: no str() copy; rpartition == rsplit("/", 1)[-1]
        return name.rpartition("/")[2]
    return str(name or "").rsplit("/", 1)[-1]


def _reduce_slot(attempt: Mapping[str, Any], kind: str) -> bool:
    """Whether the attempt ran in a reduce slot, i.e. was started by the TaskTracker's reduce-slot launcher: the
    attempt id's type letter (``attempt_<jt>_<job>_r_<task>_<n>``; a setup or cleanup task given a reduce slot is
    ``_r_``, ``JobTracker.getSetupAndCleanupTasks``), else its kind (only reduces use reduce slots)."""
    # maxsplit 5: the same parts[3], and len(parts) >= 6 exactly when the full split has 6 or more parts
    parts = str(attempt.get("attemptID") or "").split("_", 5)
    if len(parts) >= 6 and parts[3] in ("m", "r"):
        return parts[3] == "r"
    return kind == "reduce"


def _plain_reduce_slots(attempt_ids: list[str], n_maps: int) -> list[bool]:
    """:func:`_reduce_slot` of each attempt of a plain job (maps first: the kind is ``reduce`` from ``n_maps`` on).

    When every id starts with the first id's ``attempt_<a>_<b>_``, has at least five underscores and the type
    letter then an underscore right after that prefix (``m_`` or ``r_``: the split's ``parts[3]`` is that letter),
    the letters are read by C-level passes (``startswith``, ``count``, a slice, ``==``) instead of one split per id;
    any other id sends the whole job to the split of :func:`_reduce_slot`. Same answers either way."""
    if attempt_ids:
        first = attempt_ids[0]
        third = -1
        for _ in range(3):
            third = first.find("_", third + 1)
            if third < 0:
                break
        if third >= 0:
            prefix, at = first[:third + 1], third + 1
            if all(map(str.startswith, attempt_ids, repeat(prefix))) and \
                    min(map(str.count, attempt_ids, repeat("_"))) >= 5:
                letters = list(map(getitem, attempt_ids, repeat(slice(at, at + 2))))
                if set(letters) <= {"m_", "r_"}:
                    return list(map("r_".__eq__, letters))
    return [p[3] == "r" if len(p := aid.split("_", 5)) >= 6 and p[3] in ("m", "r") else i >= n_maps
            for i, aid in enumerate(attempt_ids)]


def _completed_in_template(task: Mapping[str, Any], default: str) -> bool:
    """Whether the template builder keeps this map (reduce) task, i.e. counts it in the job's task indices
    (``mrsim.ingest.builder``: its type is the list's, it has a SUCCESS attempt, and that attempt, else the task,
    has a valid start and finish)."""
    if str(task.get("taskType") or default.upper()) != default.upper():
        return False
    for attempt in task.get("attempts") or ():
        if isinstance(attempt, Mapping) and attempt.get("result") == "SUCCESS":
            a, b = rumen_ms(attempt.get("startTime")), rumen_ms(attempt.get("finishTime"))
            if a > 0 and b >= a:
                return True
            a, b = rumen_ms(task.get("startTime")), rumen_ms(task.get("finishTime"))
            return a > 0 and b >= a
    return False


def _first_start(attempts: list) -> int:
    """The earliest start (epoch ms) of a task's attempts of any result, or -1."""
    if len(attempts) == 1 and type(attempts[0]) is dict:  # nearly every task: one attempt
        first = rumen_ms(attempts[0].get("startTime"))
        return first if first > 0 else -1
    starts = [rumen_ms(a.get("startTime")) for a in attempts if isinstance(a, Mapping)]
    return min((x for x in starts if x > 0), default=-1)


def _merged(spans: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """Overlapping windows of one launcher as one, rounded to the millisecond."""
    merged: list[list[float]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return tuple((round(a, 3), round(b, 3)) for a, b in merged)


class CalibrationCollector:
    """Accumulates lag samples over ``LoggedJob`` dicts (:meth:`add_job`), then builds a :class:`Calibration`."""

    def __init__(self) -> None:
        self.report: dict[str, list[float]] = defaultdict(list)
        self.host_launch: dict[str, list[tuple[str, float]]] = defaultdict(list)  # (host, lag)
        self.windows: dict[str, list[tuple[float, float]]] = defaultdict(list)  # (assignment, attempt start), s
        self.reduce_side: dict[str, list[bool]] = defaultdict(list)  # launched by the reduce-slot launcher
        self.phase: dict[str, list[int]] = defaultdict(list)  # COLD, IN_FLIGHT or WARM (TaskTracker.localizeJob)
        # Per launch, which task it was: job ordinal << TASK_BITS | the task's template index (StalledTask.task).
        self.task_ref: dict[str, list[int]] = defaultdict(list)
        self.job_ids: list[str] = []
        self.occurrences: dict[str, int] = {}  # job id -> times seen among the jobs the template builder keeps
        self.slot_ends: dict[tuple[str, bool], list[float]] = defaultdict(list)  # (host, reduce slot) -> attempt ends, s
        self.init_delays: list[float] = []
        # host -> (time s, is an assignment) of task assignments and attempt ends (the heartbeat estimate with OOB)
        self.host_events: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        self.negative_launch = 0
        self.negative_report = 0
        self.reuse: Counter[str] = Counter()
        self.oob: Counter[str] = Counter()
        self.lines: Counter[str] = Counter()  # the Hadoop line each job conf names (hadoop_conf.heartbeat_line)
        self.jobs = 0
        self.attempts = 0
        self.later_attempts = 0
        # Per job ordinal: when its maps and reduces became assignable (epoch ms, -1 unknown), and the phase
        # resolution of its conf (s): the first-assignment bursts (mrsim.calibration.heartbeat_check).
        self.ready_ms: list[tuple[int, int]] = []
        self.resolution: list[float] = []

    def _add_job_fields(self, job: Mapping[str, Any]) -> int:
        """The job-level fields; returns the job's reference (its ordinal << TASK_BITS) for :attr:`task_ref`."""
        self.jobs += 1
        submit, launch = rumen_ms(job.get("submitTime")), rumen_ms(job.get("launchTime"))
        if submit > 0 and launch >= submit:
            self.init_delays.append((launch - submit) / _MS)
        props = job.get("jobProperties")
        self.resolution.append(_phase_resolution(props))
        line = heartbeat_line(props)
        if line is not None:
            self.lines[line] += 1
        if type(props) is dict or isinstance(props, Mapping):
            for key in REUSE_KEYS:
                if key in props:
                    self.reuse[str(props[key]).strip()] += 1
                    break
            if OOB_KEY in props:
                self.oob[str(props[OOB_KEY]).strip().lower()] += 1
        job_ref = len(self.job_ids) << TASK_BITS
        self.job_ids.append(str(job.get("jobID") or ""))
        return job_ref

    def _name_repeated(self) -> None:
        """The last job is kept by the template builder: a repeated job id is replayed as "<id>#<n>"
        (mrsim.ingest.builder.workload_from_logged_jobs), and its stalled tasks are named so."""
        raw = self.job_ids[-1]
        n = self.occurrences[raw] = self.occurrences.get(raw, 0) + 1
        if n > 1:
            self.job_ids[-1] = f"{raw}#{n}"

    def add_plain(self, job: Mapping[str, Any], plain: "PlainJob") -> None:
        """:meth:`add_job` of a plain job (:mod:`mrsim.ingest.plain`), from its columns: each map and reduce task
        has one successful attempt with positive integer times (so it is the task's first attempt, has both lags
        and a launch) and a host name string; ``otherTasks`` go through the general code. The lags and cold/warm
        phases are computed on arrays; the lists get the same values in the same order as :meth:`add_job`'s.
        Every map and reduce of a plain job is in the template, so its template index is its position."""
        job_ref = self._add_job_fields(job)
        host_events, slot_ends = self.host_events, self.slot_ends
        n = plain.n_maps
        # hostName -> host, parsed once per distinct name; then per attempt by C-level lookups (map of a dict's
        # __getitem__), not a Python step per attempt. Host codes in order of first appearance, as setdefault gives.
        names = plain.host_names
        host_of = {name: name.rpartition("/")[2] for name in dict.fromkeys(names)}
        hosts = list(map(host_of.__getitem__, names))
        sides = _plain_reduce_slots(plain.attempt_ids, n)
        # Per host (and per host and slot side), the attempts' ends in attempt order: the lists the general path
        # appends to one attempt at a time, extended once per group (a stable sort keeps the order within one).
        code_of: dict[str, int] = {}
        name_code = {name: code_of.setdefault(host, len(code_of)) for name, host in host_of.items()}
        codes = np.fromiter(map(name_code.__getitem__, names), dtype=np.int64, count=len(names))
        distinct = list(code_of)
        task_start, task_finish, a_starts, a_finishes = plain.arrays()
        self.ready_ms.append(_ready_times(job, task_start[:n], task_finish[:n], task_start[n:]))
        ends_s = a_finishes / _MS
        by_host = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[by_host], np.arange(len(distinct) + 1)).tolist()
        sorted_ends = ends_s[by_host].tolist()
        first_starts = np.minimum.reduceat(a_starts[by_host], bounds[:-1]).tolist() if hosts else []
        localised: dict[str, int] = {}
        for g, host in enumerate(distinct):
            localised[host] = first_starts[g]
            host_events[host].extend(zip(sorted_ends[bounds[g]:bounds[g + 1]], repeat(False)))
        side_codes = codes * 2 + np.array(sides, dtype=np.int64)
        order = np.argsort(side_codes, kind="stable")
        ordered_codes = side_codes[order]
        cuts = np.flatnonzero(np.diff(ordered_codes)) + 1
        sorted_ends = ends_s[order].tolist()
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(hosts)]):
            if hi > lo:
                code = int(ordered_codes[lo])
                slot_ends[distinct[code >> 1], bool(code & 1)].extend(sorted_ends[lo:hi])
        reports = (task_finish - a_finishes) / _MS
        self.negative_report += int((reports < 0).sum())
        self.attempts += len(hosts)
        for kind, part in (("map", slice(0, n)), ("reduce", slice(n, None))):
            if reports[part].size:
                self.report[kind].extend(reports[part].tolist())
        if hosts:
            self._name_repeated()
        other_launches: list[tuple[int, int, str, str, bool, int]] = []
        others = job.get("otherTasks")
        if isinstance(others, list):
            for task in others:
                if type(task) is dict or isinstance(task, Mapping):
                    self._add_task(task, "setup", localised, other_launches, 0)
        ready_of = np.array([localised[host] for host in distinct], dtype=np.int64)  # after the SETUP/CLEANUP tasks
        sorted_starts = (task_start[by_host] / _MS).tolist()  # every plain attempt is a launch, in task order
        for g, host in enumerate(distinct):
            host_events[host].extend(zip(sorted_starts[bounds[g]:bounds[g + 1]], repeat(True)))
        for kind, part in (("map", slice(0, n)), ("reduce", slice(n, None))):
            starts, attempt_starts = task_start[part], a_starts[part]
            if not starts.size:
                continue
            lags = (attempt_starts - starts) / _MS
            self.negative_launch += int((lags < 0).sum())
            part_hosts = hosts[part]
            starts_s = (starts / _MS).tolist()
            self.host_launch[kind].extend(zip(part_hosts, lags.tolist()))
            self.windows[kind].extend(zip(starts_s, (attempt_starts / _MS).tolist()))
            self.reduce_side[kind].extend(sides[part])
            self.task_ref[kind].extend(range(job_ref, job_ref + starts.size))
            ready = ready_of[codes[part]]
            self.phase[kind].extend(np.where(attempt_starts <= ready, COLD,
                                             np.where(starts < ready, IN_FLIGHT, WARM)).tolist())
        self._add_launches(other_launches, localised, job_ref)

    def add_job(self, job: Mapping[str, Any]) -> None:
        job_ref = self._add_job_fields(job)
        maps = [t for t in job.get("mapTasks") or () if type(t) is dict or isinstance(t, Mapping)]
        reduces = job.get("reduceTasks") or ()
        self.ready_ms.append(_ready_times(
            job, np.array([rumen_ms(t.get("startTime")) for t in maps], dtype=np.int64),
            np.array([rumen_ms(t.get("finishTime")) for t in maps], dtype=np.int64),
            np.array([rumen_ms(t.get("startTime")) for t in reduces if type(t) is dict or isinstance(t, Mapping)],
                     dtype=np.int64)))
        # (attempt start, task start, host, kind, reduce slot, task index in the template)
        launches: list[tuple[int, int, str, str, bool, int]] = []
        localised: dict[str, int] = {}  # host -> first attempt start of this job there (any result), epoch ms
        kept = False  # whether the template builder keeps the job (it has a completed map or reduce)
        for key, default in (("mapTasks", "map"), ("reduceTasks", "reduce"), ("otherTasks", "setup")):
            tasks = job.get(key)
            if not isinstance(tasks, list):
                continue
            completed = -1  # the template's index of the current task (mrsim.ingest.builder: completed tasks only)
            for task in tasks:
                if not (type(task) is dict or isinstance(task, Mapping)):
                    continue
                index = 0  # setup/cleanup: one task of its kind per job
                if key != "otherTasks":
                    if _completed_in_template(task, default):
                        completed += 1
                        index = completed
                        kept = True
                    else:
                        index = TASK_MASK  # not in the template: nothing to carry a stall
                self._add_task(task, default, localised, launches, index)
        if kept:
            self._name_repeated()
        self._add_launches(launches, localised, job_ref)

    def _add_task(self, task: Mapping[str, Any], default: str, localised: dict[str, int],
                  launches: list[tuple[int, int, str, str, bool, int]], index: int) -> None:
        """One task of :meth:`add_job`: its attempts' host events, slot ends, report lags and launches (``index``:
        the task's index in the template, TASK_MASK for a task the template builder drops)."""
        host_events, slot_ends = self.host_events, self.slot_ends
        kind = _kind(task, default)
        start, end = rumen_ms(task.get("startTime")), rumen_ms(task.get("finishTime"))
        attempts = task.get("attempts")
        if not isinstance(attempts, list):
            return
        first = _first_start(attempts)
        for attempt in attempts:
            if not (type(attempt) is dict or isinstance(attempt, Mapping)):
                continue
            a_start, a_end = attempt.get("startTime"), attempt.get("finishTime")
            if type(a_start) is not int:  # rumen_ms only for what is not already an int
                a_start = rumen_ms(a_start)
            if type(a_end) is not int:
                a_end = rumen_ms(a_end)
            host, reduce_slot = "", None  # each worked out once per attempt, when needed
            if a_start > 0:
                name = attempt.get("hostName")
                host = name.rpartition("/")[2] if type(name) is str else _host(attempt)
                if a_start < localised.get(host, a_start + 1):
                    localised[host] = a_start
                if a_end > 0:
                    host_events[host].append((a_end / _MS, False))
                    reduce_slot = _reduce_slot(attempt, kind)
                    slot_ends[host, reduce_slot].append(a_end / _MS)
            if attempt.get("result") != "SUCCESS":
                continue
            self.attempts += 1
            if a_start > first > 0:
                # Not the task's first attempt (a retry or a speculative backup): the task start is the
                # first attempt's assignment, so attempt start - task start is not this attempt's launch lag.
                self.later_attempts += 1
            elif start > 0 and a_start > 0:
                if reduce_slot is None:
                    reduce_slot = _reduce_slot(attempt, kind)
                launches.append((a_start, start, host, kind, reduce_slot, index))
            if end > 0 and a_end > 0:
                lag = (end - a_end) / _MS
                if lag < 0:
                    self.negative_report += 1
                self.report[kind].append(lag)

    def _add_launches(self, launches: list[tuple[int, int, str, str, bool, int]], localised: dict[str, int],
                      job_ref: int) -> None:
        """The job's launches in task order: lags, spans, slot sides, task references, host events and cold/warm
        phases."""
        host_events = self.host_events
        kind_lists = None
        last_kind = ""
        for a_start, start, host, kind, reduce_slot, index in launches:
            if kind != last_kind:  # launches come task list by task list: the kind's five lists fetched once a run
                last_kind = kind
                kind_lists = (self.host_launch[kind], self.windows[kind], self.reduce_side[kind], self.phase[kind],
                              self.task_ref[kind])
            host_lags, spans, sides, phases, refs = kind_lists  # type: ignore[misc]
            refs.append(job_ref | index)
            lag = (a_start - start) / _MS
            if lag < 0:
                self.negative_launch += 1
            host_lags.append((host, lag))
            spans.append((start / _MS, a_start / _MS))
            sides.append(reduce_slot)
            host_events[host].append((start / _MS, True))
            ready = localised.get(host, a_start)
            phases.append(COLD if a_start <= ready else IN_FLIGHT if start < ready else WARM)

    def result(self, source: str = "", oob_heartbeat: bool | None = None,
               slots: tuple[int | None, int | None] = (None, None)) -> Calibration:
        """The calibration. ``oob_heartbeat``: whether the replay will use out-of-band heartbeats (None: as the
        trace's job confs say)."""
        notes: list[str] = []
        if self.negative_launch:
            notes.append(f"{self.negative_launch} launch lag(s) were negative (TaskTracker clock behind the "
                         "JobTracker's) and were counted as 0")
        # Per kind, the launches' hosts and lags as columns, in launch order (read by the outliers, the slot waits
        # and the laws: once, not once each).
        columns = {kind: (list(map(_FIRST, rows)), np.fromiter(map(_SECOND, rows), dtype=np.float64, count=len(rows)))
                   for kind in KINDS if (rows := self.host_launch.get(kind))}
        outliers, stalled, stall_threshold = self._outliers(columns)
        stalled_tasks = self._stalled_tasks(stalled)
        launch: dict[str, Distribution] = {}
        by_phase: tuple[dict[str, Distribution], dict[str, Distribution]] = ({}, {})  # cold, warm
        launches = self._launch_arrays(columns)
        waits = self._slot_waits(launches)
        for kind in KINDS:
            # Column-wise: the lags in launch order, masked (the laws are built from the same values in the same order).
            rows = self.host_launch.get(kind, ())
            if not rows:
                continue
            lags = columns[kind][1]
            normal = np.ones(len(rows), dtype=bool)
            for stalled_kind, n in stalled:
                if stalled_kind == kind:
                    normal[n] = False
            if normal.any():
                launch[kind] = Distribution.of(lags[normal])
            phases = np.asarray(self.phase[kind], dtype=np.int8)
            usable = normal & ~waits[kind]
            for law, phase in zip(by_phase, (COLD, WARM)):
                chosen = usable & (phases == phase)
                if chosen.any():
                    law[kind] = Distribution.of(lags[chosen])
        report = {kind: Distribution.of(self.report[kind]) for kind in KINDS if self.report.get(kind)}
        if oob_heartbeat is None and self.oob:
            oob_heartbeat = self.oob.most_common(1)[0][0] == "true"
        interval, hb_source = self._heartbeat(bool(oob_heartbeat), notes)
        hadoop_line = next(iter(self.lines)) if len(self.lines) == 1 else None
        if len(self.lines) > 1:
            notes.append("the job confs name two Hadoop lines (" + ", ".join(f"{line}: {n} job(s)" for line, n in
                         sorted(self.lines.items())) + "): the JobTracker's line is left unknown")
        reuse = 1
        if self.reuse:
            text = self.reuse.most_common(1)[0][0]
            try:
                reuse = int(text)
            except ValueError:
                notes.append(f"mapred.job.reuse.jvm.num.tasks = {text!r} is not a number; no JVM reuse assumed")
            if reuse == 0 or reuse < -1:
                reuse = 1
        return Calibration(
            launch_lag=launch, report_lag=report, cold_launch_lag=by_phase[0], warm_launch_lag=by_phase[1],
            job_init_delay=Distribution.of(self.init_delays) if self.init_delays else None,
            heartbeat_interval_s=interval, heartbeat_source=hb_source, hadoop_line=hadoop_line, jvm_reuse=reuse,
            map_slots=slots[0], reduce_slots=slots[1], outliers=outliers, stall_threshold_s=stall_threshold,
            stalled_tasks=stalled_tasks, assignment_bursts=self._assignment_bursts(launches), source=source,
            jobs=self.jobs,
            attempts=self.attempts, hosts=len({h for hosts, _lags in columns.values() for h in set(hosts) if h}),
            notes=tuple(notes))

    def _assignment_bursts(self, launches: dict[str, tuple[np.ndarray, list[str], np.ndarray]]
                           ) -> tuple[AssignmentBurst, ...]:
        """Per job and kind (map, reduce), the first assignments of the hosts whose first traced assignment is one
        of its tasks, as offsets from the instant the tasks became assignable (module docstring). Cost
        O(launches log launches), once."""
        first: dict[str, tuple[float, int, int]] = {}  # host -> (first assignment s, kind index, job ordinal)
        for ki, kind in enumerate(KINDS):
            if kind not in launches:
                continue
            codes, hosts, spans = launches[kind]
            assigned = spans[:, 0]
            order = np.lexsort((assigned, codes))  # by host, then by assignment
            heads = order[np.flatnonzero(np.diff(codes[order], prepend=-1))].tolist()
            refs = self.task_ref[kind]
            for i in heads:
                host, t = hosts[int(codes[i])], float(assigned[i])
                if host and (host not in first or t < first[host][0]):
                    first[host] = (t, ki, refs[i] >> TASK_BITS)
        firsts = np.sort(np.fromiter((t for t, _k, _j in first.values()), dtype=np.float64, count=len(first)))
        offsets: dict[tuple[int, int], list[float]] = defaultdict(list)
        for t, ki, job in first.values():
            if KINDS[ki] in ("map", "reduce") and job < len(self.ready_ms):
                ready = self.ready_ms[job][0 if KINDS[ki] == "map" else 1]
                if ready > 0 and t >= ready / _MS - 1e-9:
                    offsets[job, ki].append(round(t - ready / _MS, 3))
        bursts = []
        for (job, ki), values in sorted(offsets.items()):
            ready_s = self.ready_ms[job][0 if KINDS[ki] == "map" else 1] / _MS
            fresh = int(firsts.size - np.searchsorted(firsts, ready_s - 1e-9, side="left"))
            bursts.append(AssignmentBurst(self.job_ids[job], KINDS[ki], fresh, self.resolution[job],
                                          tuple(sorted(max(0.0, x) for x in values))))
        return tuple(bursts)

    def _stalled_tasks(self, stalled: set[tuple[str, int]]) -> tuple[StalledTask, ...]:
        """The stalled launches as :class:`StalledTask` records (the tasks that carry their stall), in trace order."""
        out = []
        # The kind and index break ties between equal windows: a set's order changes with PYTHONHASHSEED.
        for kind, n in sorted(stalled, key=lambda kn: (self.windows[kn[0]][kn[1]], kn[0], kn[1])):
            ref = self.task_ref[kind][n]
            if ref & TASK_MASK == TASK_MASK:
                continue  # a task the template builder drops
            host, lag = self.host_launch[kind][n]
            assigned = self.windows[kind][n][0]
            out.append(StalledTask(self.job_ids[ref >> TASK_BITS], kind, ref & TASK_MASK, host,
                                   bool(self.reduce_side[kind][n]), round(assigned, 3), round(lag, 3)))
        return tuple(out)

    def _launch_arrays(self, columns: dict[str, tuple[list[str], np.ndarray]]
                       ) -> dict[str, tuple[np.ndarray, list[str], np.ndarray]]:
        """Per kind, its launches' host codes, the hosts by code, and the (assignment, attempt start) spans in s, as
        arrays (read by the slot waits and the first-assignment bursts: built once)."""
        out = {}
        for kind, (hosts, _lags) in columns.items():
            # codes in order of first appearance; C-level passes (map of a dict's __getitem__, fromiter of a chain)
            code_of = {host: code for code, host in enumerate(dict.fromkeys(hosts))}
            codes = np.fromiter(map(code_of.__getitem__, hosts), dtype=np.int64, count=len(hosts))
            spans = self.windows[kind]
            out[kind] = (codes, list(code_of), np.fromiter(chain.from_iterable(spans), dtype=np.float64,
                                                           count=2 * len(spans)).reshape(-1, 2))
        return out

    def _slot_waits(self, launches: dict[str, tuple[np.ndarray, list[str], np.ndarray]]) -> dict[str, np.ndarray]:
        """Per kind, a mask over its launches: True for those that waited for their slot to be free (see the module
        docstring): an attempt end on the launch's host and slot side in ``(max(start - SLOT_WAIT_S, assignment),
        start + SLOT_WAIT_S]``. One ``searchsorted`` per (host, side), not per launch; the launches are grouped by
        (host, side) with one stable sort of their codes."""
        ends = {key: np.sort(np.asarray(v)) for key, v in self.slot_ends.items()}
        waits: dict[str, np.ndarray] = {}
        for kind in KINDS:
            rows = self.host_launch.get(kind, ())
            mask = np.zeros(len(rows), dtype=bool)
            waits[kind] = mask
            if not rows:
                continue
            codes, hosts, spans = launches[kind]  # spans: (assignment, attempt start), s
            keys = codes * 2 + np.asarray(self.reduce_side[kind], dtype=np.int64)
            order = np.argsort(keys, kind="stable")
            ordered = keys[order]
            cuts = (np.flatnonzero(np.diff(ordered)) + 1).tolist()
            for lo, hi in zip([0, *cuts], [*cuts, len(rows)]):
                code = int(ordered[lo])
                side = ends.get((hosts[code >> 1], bool(code & 1)))
                if side is None:
                    continue
                index = order[lo:hi]
                assigned, started = spans[index, 0], spans[index, 1]
                after = np.searchsorted(side, np.maximum(started - SLOT_WAIT_S, assigned), side="right")
                inside = after < side.size
                hit = np.zeros(index.size, dtype=bool)
                hit[inside] = side[after[inside]] <= started[inside] + SLOT_WAIT_S
                mask[index] = hit
        return waits

    def _outliers(self, columns: dict[str, tuple[list[str], np.ndarray]]
                  ) -> tuple[dict[str, TrackerOutlier], set[tuple[str, int]], float | None]:
        lag_columns = [columns[kind][1] for kind in KINDS if kind in columns]
        if sum(c.size for c in lag_columns) < STALL_MIN_LAGS:
            return {}, set(), None
        arr = np.maximum(np.concatenate(lag_columns), 0.0)  # max(lag, 0.0): the same quantile and median
        p99, median = float(np.quantile(arr, 0.99)), float(np.median(arr))
        limit = max(p99, median + OUTLIER_MIN_EXCESS_S)
        stalled: set[tuple[str, int]] = set()
        windows: dict[tuple[str, bool], list[tuple[float, float]]] = defaultdict(list)  # (host, reduce launcher)
        for kind in KINDS:
            if kind not in columns:
                continue
            hosts, lags = columns[kind]
            for n in np.flatnonzero(lags > limit).tolist():  # in launch order, as a walk of every launch would
                host = hosts[n]
                if host:
                    stalled.add((kind, n))
                    windows[host, self.reduce_side[kind][n]].append(self.windows[kind][n])
        found: dict[str, TrackerOutlier] = {}
        for host in sorted({h for h, _side in windows}):
            maps, reduces = _merged(windows.get((host, False), [])), _merged(windows.get((host, True), []))
            count = len(windows.get((host, False), [])) + len(windows.get((host, True), []))
            found[host] = TrackerOutlier(host, (), f"{count} attempt(s) started {limit:.1f}+ s after assignment "
                                         f"against the cluster's median {median:.2f} s", maps, reduces)
        return found, stalled, round(limit, 6)

    def _heartbeat(self, oob: bool, notes: list[str]) -> tuple[float | None, str]:
        values = self.report.get("map", []) + self.report.get("reduce", [])
        if not values:
            return None, "formula: the trace records no report lags"
        if oob:
            return self._heartbeat_from_assignments()
        if len(values) < MIN_REPORT_SAMPLES:
            return self._heartbeat_version_minimum(values)
        negative = sum(1 for v in values if v < 0) / len(values)
        if negative >= MAX_NEGATIVE_FRACTION:
            return None, (f"formula: {100 * negative:.0f} % of report lags are negative (TaskTracker and JobTracker "
                          "clocks differ)")
        median = float(np.median(values))
        if median <= 0.0:
            return None, "formula: report lags are zero (no heartbeat wait recorded)"
        return round(2.0 * median, 6), f"trace: 2 x median report lag of {len(values)} map/reduce attempts"

    def _heartbeat_version_minimum(self, values: list[float]) -> tuple[float | None, str]:
        """Too few report lags for ``2 x median``, but enough to rule out Hadoop 1.1+'s cluster-size formula.

        A TaskTracker reports an attempt's end in its next heartbeat, so a report lag (one clock: none negative) is
        below the interval (plus the heartbeat's RPC time). When the median of at least ``MIN_VERSION_SAMPLES``
        lags exceeds twice what Hadoop 1.1+'s formula gives for the trace's hosts (``max(0.3 s, N / 100 s)``,
        MAPREDUCE-1906; twice, so that RPC time cannot explain it), the JobTracker ran an older formula: Hadoop
        0.20-1.0's ``max(3 s, ceil(N / 100) s)`` (``MRConstants.HEARTBEAT_INTERVAL_MIN``), used when the median is
        within it. Otherwise the formula stays."""
        few = f"formula: only {len(values)} report lags (fewer than {MIN_REPORT_SAMPLES})"
        if len(values) < MIN_VERSION_SAMPLES or any(v < 0 for v in values):
            return None, few
        hosts = max(1, len(self.host_events))
        median = float(np.median(values))
        newest = max(0.3, hosts / 100.0)
        older = float(max(3, math.ceil(hosts / 100)))
        if median <= 2.0 * newest or median > older:
            return None, few
        return older, (f"trace: the median of {len(values)} report lags, {median:.2f} s, rules out Hadoop 1.1+'s "
                       f"{newest:g} s for {hosts} host(s): Hadoop 0.20-1.0's minimum "
                       "(HEARTBEAT_INTERVAL_MIN), max(3 s, ceil(N/100) s)")

    def _heartbeat_from_assignments(self) -> tuple[float | None, str]:
        """The interval as the mode of the gaps before regular heartbeats that assigned a task (module docstring)."""
        gaps: list[float] = []
        for events in self.host_events.values():
            last = None
            for t, assignment in sorted(events):
                if assignment and last is not None and t - last > OOB_WINDOW_S:
                    gaps.append(t - last)
                last = t
        kept = np.asarray([g for g in gaps if MIN_INTERVAL_S <= g < MAX_GAP_S])
        why = "out-of-band heartbeats report completions at once, so report lags do not show the interval"
        if kept.size < MIN_GAP_PEAK:
            return None, f"formula: {why}, and only {kept.size} regular heartbeats assigned a task"
        counts, edges = np.histogram(kept, bins=np.arange(MIN_INTERVAL_S, MAX_GAP_S + GAP_BIN_S, GAP_BIN_S))
        peak = int(np.argmax(counts))
        centre = 0.5 * (edges[peak] + edges[peak + 1])
        near = kept[np.abs(kept - centre) <= GAP_BIN_S]
        iqr = float(np.subtract(*np.percentile(near, [75, 25]))) if near.size else 0.0
        if near.size < MIN_GAP_PEAK or near.size < MIN_GAP_PEAK_FRACTION * kept.size or iqr > MAX_PEAK_IQR_S:
            return None, (f"formula: {why}, and the {kept.size} gaps before regular heartbeats have no clear mode "
                          f"({near.size} near {centre:.2f} s, interquartile range {iqr:.3f} s)")
        return round(float(np.median(near)), 3), (f"trace: mode of the gaps before {kept.size} regular heartbeats "
                                                   f"that assigned a task ({near.size} near it; out-of-band "
                                                   "heartbeats on)")
