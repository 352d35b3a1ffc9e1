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

Cost: linear in the attempts (a plain job: about 35 numpy calls, no Python step per attempt), plus one sort of the
attempt ends in :meth:`CalibrationCollector.result`; memory: the samples as numpy columns, about 70 bytes per
attempt (a launch's eight columns, an end's three, a report lag's two), until the collector is dropped.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from itertools import repeat
from operator import getitem
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from mrsim.calibration.heartbeat_check import DEFAULT_HEARTBEATS_PER_SECOND, AssignmentBurst
from mrsim.calibration.model import KINDS, Calibration, Distribution, StalledTask, TrackerOutlier
from mrsim.model.hadoop_conf import (KEY_HB_PER_SECOND, KEY_HB_PER_SECOND_NEW, KEY_SLOWSTART, KEY_SLOWSTART_NEW,
                                     heartbeat_line)

if TYPE_CHECKING:
    from mrsim.profiler.plain import PlainJob

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
                 reduce_starts: np.ndarray, all_known: bool = False) -> tuple[int, int]:
    """``(maps, reduces)``: the instants (epoch ms, JobTracker clock) a job's maps and reduces became assignable,
    -1 when unknown (module docstring, "First-assignment bursts"). ``*_starts`` / ``map_finishes``: the tasks'
    start / finish times (ms, integer arrays; values <= 0 are missing; ``all_known``: none is, as in a plain job,
    so none is filtered out). O(tasks)."""
    setup_end = -1
    for task in job.get("otherTasks") or ():
        if (type(task) is dict or isinstance(task, Mapping)) and task.get("taskType") == "SETUP":
            setup_end = rumen_ms(task.get("finishTime"))
            break
    launch = rumen_ms(job.get("launchTime"))
    maps_ready = setup_end if setup_end > 0 else launch
    starts = map_starts if all_known else map_starts[map_starts > 0]
    if maps_ready <= 0 or (starts.size and int(starts.min()) < maps_ready):
        maps_ready = -1  # the maps started before: the instant is not known
    reduces_ready = -1
    r_starts = reduce_starts if all_known else reduce_starts[reduce_starts > 0]
    if r_starts.size:
        finishes = map_finishes if all_known else map_finishes[map_finishes > 0]
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


def _plain_reduce_slots(attempt_ids: list[str], n_maps: int) -> np.ndarray:
    """:func:`_reduce_slot` of each attempt of a plain job (maps first: the kind is ``reduce`` from ``n_maps`` on),
    as a bool array.

    When every id starts with the first id's ``attempt_<a>_<b>_``, has at least five underscores and the type
    letter then an underscore right after that prefix (``m_`` or ``r_``: the split's ``parts[3]`` is that letter),
    the letters are read without a split per id. When the ids are of one length (Hadoop pads the task number, so
    nearly every job), the ids joined by newlines are a table whose column ``j`` is one slice with a step (C-level,
    about 8 us a job against 30 for a pass per id): the separators at every step and no other newline prove the
    one length, the prefix after each separator proves the prefix, and the first id's fifth underscore found in
    every id proves the count. Otherwise C-level passes per id (``startswith``, ``count``, a slice, ``==``). Any
    other id sends the whole job to the split of :func:`_reduce_slot`. Same answers every way."""
    if attempt_ids:
        first = attempt_ids[0]
        third = -1
        for _ in range(3):
            third = first.find("_", third + 1)
            if third < 0:
                break
        if third >= 0:
            prefix, at = first[:third + 1], third + 1
            count, step = len(attempt_ids), len(first) + 1
            table = "\n".join(attempt_ids)
            if len(table) == count * step - 1 and table.count("\n") == count - 1 and \
                    table[step - 1::step] == "\n" * (count - 1):  # one length: newlines only as separators
                fifth = first.find("_", at + 2)
                letters = table[at::step]
                if table.count("\n" + prefix) == count - 1 and table[at + 1::step] == "_" * count and fifth > 0 \
                        and table[fifth::step] == "_" * count and letters.count("m") + letters.count("r") == count:
                    return np.frombuffer(letters.encode(), dtype=np.uint8) == ord("r")
            elif all(map(str.startswith, attempt_ids, repeat(prefix))) and \
                    min(map(str.count, attempt_ids, repeat("_"))) >= 5:
                pairs = list(map(getitem, attempt_ids, repeat(slice(at, at + 2))))
                if set(pairs) <= {"m_", "r_"}:
                    return np.array(list(map("r_".__eq__, pairs)), dtype=np.bool_)
    return np.array([p[3] == "r" if len(p := aid.split("_", 5)) >= 6 and p[3] in ("m", "r") else i >= n_maps
                     for i, aid in enumerate(attempt_ids)], dtype=np.bool_)


def _completed_in_template(task: Mapping[str, Any], default: str) -> bool:
    """Whether the template builder keeps this map (reduce) task, i.e. counts it in the job's task indices
    (``mrsim.profiler.builder``: its type is the list's, it has a SUCCESS attempt, and that attempt, else the task,
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


#: A launch's kind as a sample column holds it: its position in KINDS.
_KIND_CODE: dict[str, int] = {kind: code for code, kind in enumerate(KINDS)}
_NOT_STARTED = np.iinfo(np.int64).max  # the per-host first start of a job with no attempt on that host (yet)


#: A sample column's first capacity (rows) and growth factor. Large steps: an array's pages cost nothing until
#: written (the unused end of the last step is address space, not memory), but each step copies the rows held, and
#: writing into new pages (page faults) is most of the columns' cost: doubling from 1,024 rows cost 6 to 14 ms
#: more than this over the 1148-job trace's 300,000 rows.
_FIRST_CAPACITY, _GROWTH = 1 << 16, 8


class _Columns:
    """Append-only sample columns of fixed dtypes, kept in one growing array per column.

    A column path adds a whole chunk per call (:meth:`extend`, copied in; or :meth:`block`, views the caller fills
    in place); the per-attempt path appends rows (tuples, one value per column) to :attr:`rows`, copied in as one
    chunk when a chunk comes next or the columns are read, so the samples keep the order in which they were added
    either way. The arrays grow in steps of ``_GROWTH``, so the copying happens while the samples arrive (during a
    forked read, while this process waits for the next batch), not when :meth:`arrays` reads them: that is a view
    per column, whatever the number of chunks (concatenating 1,148 chunks of 13 columns took 20 to 30 ms after the
    last job of the 1148-job trace). Cost: O(chunk) per chunk (amortised: a row is copied about 1.15 times),
    O(1) per row, O(rows since the last chunk) per read; memory: the samples', plus address space up to
    ``_GROWTH`` times that."""

    __slots__ = ("dtypes", "record", "buffers", "size", "rows")

    def __init__(self, *dtypes: type) -> None:
        self.dtypes = dtypes
        self.record = np.dtype([(f"c{i}", dtype) for i, dtype in enumerate(dtypes)])  # a row, for the rows' chunk
        self.buffers: tuple[np.ndarray, ...] = tuple(np.empty(0, dtype=dtype) for dtype in dtypes)
        self.size = 0  # rows held in the buffers (their first ``size`` elements)
        self.rows: list[tuple[Any, ...]] = []  # the per-attempt path's rows since the last chunk

    def _take(self, count: int) -> int:
        """Room for ``count`` more rows after those held (the buffers doubled when full); returns where they
        start. The caller fills ``[start, start + count)`` of every buffer."""
        start, capacity = self.size, self.buffers[0].size
        if start + count > capacity:
            capacity = max(_GROWTH * capacity, start + count, _FIRST_CAPACITY)
            grown = []
            for buffer in self.buffers:
                bigger = np.empty(capacity, dtype=buffer.dtype)
                bigger[:start] = buffer[:start]
                grown.append(bigger)
            self.buffers = tuple(grown)
        self.size = start + count
        return start

    def extend(self, *columns: np.ndarray) -> None:
        """Add one chunk: an array per column, all of one length (copied: the caller may reuse them)."""
        if self.rows:
            self._flush()
        count = len(columns[0])
        start = self._take(count)
        for buffer, column in zip(self.buffers, columns):
            buffer[start:start + count] = column

    def block(self, count: int) -> tuple[np.ndarray, ...]:
        """Add one chunk of ``count`` rows that the caller fills in place, right away: a writable view per column
        (unset values until filled; ``np.take(..., out=view)`` and the like write there without a temporary)."""
        if self.rows:
            self._flush()
        start = self._take(count)
        return tuple(buffer[start:start + count] for buffer in self.buffers)

    def _flush(self) -> None:
        # One record array, its fields the columns: not zip(*rows), whose iterator per row (GC-tracked objects)
        # would set off the cyclic GC's full collections over everything the process holds (0.8 s for 300,000
        # rows beside the decoded jobs of the 1148-job trace).
        table = np.array(self.rows, dtype=self.record)
        self.rows.clear()  # in place: the per-attempt path holds this list while it walks a job
        start = self._take(table.size)
        for buffer, name in zip(self.buffers, self.record.names):
            buffer[start:start + table.size] = table[name]

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Every column, all rows in the order added (an empty array of the column's dtype when there are none):
        read-only views of the buffers, valid however many rows are added later."""
        if self.rows:
            self._flush()
        views = tuple(buffer[:self.size] for buffer in self.buffers)
        for view in views:
            view.flags.writeable = False
        return views


def _median(values: np.ndarray) -> float:
    """``float(np.median(values))`` of a 1-D float64 array: the same partition's middle value(s) and the same
    ``np.mean`` of them. Not ``np.median`` itself: after the mean it checks for NaN through ``np.ma``, whose first
    use in a process imports ``numpy.ma`` (15-20 ms, right before a replay starts; the samples are differences of
    integer milliseconds, never NaN). O(n)."""
    n = values.size
    half = n // 2
    if n % 2:
        return float(np.mean(np.partition(values, half)[half:half + 1]))
    return float(np.mean(np.partition(values, (half - 1, half))[half - 1:half + 1]))


def _stall_limit(lags: np.ndarray) -> tuple[float, float]:
    """``(max(p99, median + OUTLIER_MIN_EXCESS_S), median)`` of non-negative launch lags (s; at least two, never
    NaN), with ``p99 = float(np.quantile(lags, 0.99))`` and ``median = float(np.median(lags))`` (module docstring,
    "Stalled trackers").

    One partition gives the median and an order statistic at or above the 99th percentile's position (numpy's
    linear interpolation lies between the two order statistics around ``0.99 (n - 1)``, the upper one at most that
    position + 1): when it is at most ``median + OUTLIER_MIN_EXCESS_S``, so is p99, and the limit is that sum;
    only otherwise (a trace whose slowest 1 % of launches are 30 s above the median) is the quantile computed,
    by numpy. Nearly every trace (and every synthetic one, whose lags are all 0) skips it and its import of
    ``numpy.ma`` (see :func:`_median`). O(n)."""
    n = lags.size
    half = n // 2
    top = min(n - 1, math.ceil(0.99 * (n - 1)) + 1)
    middle = [half] if n % 2 else [half - 1, half]
    part = np.partition(lags, [*middle, top])
    median = float(np.mean(part[middle[0]:half + 1]))
    limit = median + OUTLIER_MIN_EXCESS_S
    if float(part[top]) > limit:
        limit = max(float(np.quantile(lags, 0.99)), limit)
    return limit, median


def _stable_order(keys: np.ndarray, bound: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of non-negative integer keys below ``bound``: as int16 when they fit, which
    numpy sorts by radix (O(n), about six times faster than the merge sort of int64 keys on 300,000 rows)."""
    if bound <= np.iinfo(np.int16).max and keys.dtype != np.int16:
        keys = keys.astype(np.int16)
    return np.argsort(keys, kind="stable")


def _slot_keys(codes: np.ndarray, sides: np.ndarray, bound: int) -> np.ndarray:
    """``codes * 2 + sides`` (host code, reduce slot: a launcher's key, below ``bound``), as int16 when the keys fit
    (what :func:`_stable_order` sorts by radix; one array made, not three of int64)."""
    keys = codes.astype(np.int16 if bound <= np.iinfo(np.int16).max else np.int64)
    keys *= 2
    keys += sides
    return keys


class _Launches(NamedTuple):
    """The launches as :meth:`CalibrationCollector.result` reads them: every column in the order added, and per kind
    (in KINDS order, kinds with launches only) the rows of its launches in that order (``rows[kind][n]``: the
    kind's ``n``-th launch)."""

    kind: np.ndarray  # int8: the position in KINDS
    code: np.ndarray  # int64: the host's code (CalibrationCollector.hosts)
    lag: np.ndarray  # float64, s: attempt start - task start
    assigned: np.ndarray  # float64, s: the task start (the JobTracker's assignment)
    started: np.ndarray  # float64, s: the attempt start
    side: np.ndarray  # bool: started by the reduce-slot launcher
    phase: np.ndarray  # int8: COLD, IN_FLIGHT or WARM
    ref: np.ndarray  # int64: job ordinal << TASK_BITS | the task's template index
    rows: dict[str, np.ndarray]


_JOBTRACKER_ID = re.compile(r"job_(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})_\d+")


def jobtracker_started(job_ids: Sequence[str]) -> str | None:
    """The earliest JobTracker start the Hadoop 0.20/1.x job ids name (``job_<yyyyMMddHHmm>_<n>``: the JobTracker's
    identifier is its start time, ``JobTracker.getDateFormat``), as ``YYYY-MM-DD HH:MM``; None when no id has that
    form (YARN ids hold the RM's start in milliseconds, 13 digits). Cost O(jobs)."""
    found = [m.groups() for i in job_ids if (m := _JOBTRACKER_ID.match(i))]
    if not found:
        return None
    y, mo, d, h, mi = min(found)
    return f"{y}-{mo}-{d} {h}:{mi}"


class CalibrationCollector:
    """Accumulates lag samples over ``LoggedJob`` dicts (:meth:`add_job`, or :meth:`add_plain` from a plain job's
    columns), then builds a :class:`Calibration` (:meth:`result`).

    The per-attempt samples are columns (:class:`_Columns`): the column path adds one chunk per job, the
    per-attempt path rows, and the samples keep the order in which they were added. Hosts are codes into
    :attr:`hosts` (in order of first appearance), the empty name included (an attempt without a host name):

    * :attr:`launches`: per launch (a task's first attempt, successful, with its task's and its own start known),
      its kind (position in KINDS), host code, launch lag (s), assignment and attempt start (s), whether the
      reduce-slot launcher started it, its phase (COLD, IN_FLIGHT or WARM: ``TaskTracker.localizeJob``) and its task
      reference (job ordinal << TASK_BITS | the task's template index: ``StalledTask.task``);
    * :attr:`ends`: per attempt end (any result, its start and end known): host code, slot side (reduce slot), time
      (s). The ends and the launches' assignments are the hosts' heartbeat events (the interval with out-of-band
      heartbeats). Their order is not kept: :meth:`add_plain` adds a job's in time order (every reader sorts them);
    * :attr:`reports`: per report lag (a successful attempt whose task has a finish): kind and lag (s).
    """

    def __init__(self) -> None:
        self.launches = _Columns(np.int8, np.int64, np.float64, np.float64, np.float64, np.bool_, np.int8, np.int64)
        self.ends = _Columns(np.int64, np.bool_, np.float64)
        self.reports = _Columns(np.int8, np.float64)
        self.hosts: list[str] = []  # by code
        self.host_code: dict[str, int] = {}
        self._name_code: dict[str, int] = {}  # a plain job's hostName as logged (/rack/host) -> its host's code
        # Per host code, the current plain job's first attempt start there (ms), _NOT_STARTED elsewhere: reset after
        # each job, so a job costs O(its attempts), not O(hosts).
        self._first_start = np.empty(0, dtype=np.int64)
        self.job_ids: list[str] = []
        self.occurrences: dict[str, int] = {}  # job id -> times seen among the jobs the template builder keeps
        self.init_delays: list[float] = []
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

    def _code(self, host: str) -> int:
        """The host's code, given on first sight."""
        code = self.host_code.get(host)
        if code is None:
            code = self.host_code[host] = len(self.hosts)
            self.hosts.append(host)
        return code

    def _add_job_fields(self, job: Mapping[str, Any]) -> int:
        """The job-level fields; returns the job's reference (its ordinal << TASK_BITS) for the task references."""
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
        (mrsim.profiler.builder.workload_from_logged_jobs), and its stalled tasks are named so."""
        raw = self.job_ids[-1]
        n = self.occurrences[raw] = self.occurrences.get(raw, 0) + 1
        if n > 1:
            self.job_ids[-1] = f"{raw}#{n}"

    def add_plain(self, job: Mapping[str, Any], plain: "PlainJob") -> None:
        """:meth:`add_job` of a plain job (:mod:`mrsim.profiler.plain`), from its columns: each map and reduce task
        has one successful attempt with positive integer times (so it is the task's first attempt, has both lags
        and a launch) and a host name string; ``otherTasks`` go through the per-attempt code. One chunk per job and
        column, the same values in the same order as :meth:`add_job` gives: about 35 numpy calls per job, no Python
        step per attempt but C-level passes over the host names and attempt ids. Every map and reduce of a plain job
        is in the template, so its template index is its position in its list."""
        job_ref = self._add_job_fields(job)
        n, names = plain.n_maps, plain.host_names
        total = len(names)
        # hostName -> host code: per attempt by a C-level lookup (map of the dict's get); a name is parsed once, when
        # first seen in the trace (a second lookup for that job only).
        name_code = self._name_code
        codes = np.fromiter(map(name_code.get, names, repeat(-1)), dtype=np.int64, count=total)
        if total and codes.min() < 0:  # a name not seen before
            for name in dict.fromkeys(names):
                if name not in name_code:
                    name_code[name] = self._code(name.rpartition("/")[2])
            codes = np.fromiter(map(name_code.__getitem__, names), dtype=np.int64, count=total)
        sides = _plain_reduce_slots(plain.attempt_ids, n)
        task_start, task_finish, a_starts, a_finishes = plain.arrays()
        self.ready_ms.append(_ready_times(job, task_start[:n], task_finish[:n], task_start[n:], all_known=True))
        kinds = np.zeros(total, dtype=np.int8)
        kinds[n:] = _KIND_CODE["reduce"]
        # The job's attempt ends in time order (any order is as good to the readers of the ends: the slot waits
        # sort each host's ends, the out-of-band gaps sort the heartbeat events). Sorted runs make those sorts in
        # result() about four times cheaper (a stable sort merges runs), for a small sort per job here, while this
        # process waits for the reader's next batch.
        order = np.argsort(a_finishes, kind="stable")
        end_codes, end_sides, end_times = self.ends.block(total)
        np.take(codes, order, out=end_codes)
        np.take(sides, order, out=end_sides)
        np.divide(a_finishes[order], _MS, out=end_times)
        self.reports.extend(kinds, (task_finish - a_finishes) / _MS)
        self.attempts += total
        if total:
            self._name_repeated()
        # Per host, the job's first attempt start there (TaskTracker.localizeJob: the cold launch), the SETUP and
        # CLEANUP attempts' included (their general code reads and lowers it as a host -> ms dict).
        first = self._first_start
        if first.size < len(self.hosts):
            first = self._first_start = np.concatenate(
                (first, np.full(len(self.hosts) - first.size, _NOT_STARTED, dtype=np.int64)))
        np.minimum.at(first, codes, a_starts)
        other_launches: list[tuple[int, int, str, int, bool, int]] = []
        localised: dict[str, int] = {}
        others = job.get("otherTasks")
        if isinstance(others, list) and others:
            present = np.unique(codes)
            hosts = self.hosts
            localised = dict(zip(map(hosts.__getitem__, present.tolist()), first[present].tolist()))
            for task in others:
                if type(task) is dict or isinstance(task, Mapping):
                    self._add_task(task, "setup", localised, other_launches, 0)
            first[present] = [localised[hosts[code]] for code in present.tolist()]
        ready = first[codes]
        first[codes] = _NOT_STARTED
        phases = np.full(total, WARM, dtype=np.int8)
        phases[task_start < ready] = IN_FLIGHT
        phases[a_starts <= ready] = COLD
        lags = (a_starts - task_start) / _MS
        refs = np.arange(job_ref, job_ref + total, dtype=np.int64)
        refs[n:] -= n  # a reduce's template index counts the reduces only
        self.launches.extend(kinds, codes, lags, task_start / _MS, a_starts / _MS, sides, phases, refs)
        if other_launches:
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
        # (attempt start, task start, host, kind code, reduce slot, task index in the template)
        launches: list[tuple[int, int, str, int, bool, int]] = []
        localised: dict[str, int] = {}  # host -> first attempt start of this job there (any result), epoch ms
        kept = False  # whether the template builder keeps the job (it has a completed map or reduce)
        for key, default in (("mapTasks", "map"), ("reduceTasks", "reduce"), ("otherTasks", "setup")):
            tasks = job.get(key)
            if not isinstance(tasks, list):
                continue
            completed = -1  # the template's index of the current task (mrsim.profiler.builder: completed tasks only)
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
                  launches: list[tuple[int, int, str, int, bool, int]], index: int) -> None:
        """One task of :meth:`add_job`: its attempts' ends, report lags and launches as rows (``index``: the task's
        index in the template, TASK_MASK for a task the template builder drops)."""
        host_code, end_rows, report_rows = self.host_code, self.ends.rows, self.reports.rows
        kind = _kind(task, default)
        kind_code = _KIND_CODE[kind]
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
                    reduce_slot = _reduce_slot(attempt, kind)
                    code = host_code.get(host)
                    end_rows.append((self._code(host) if code is None else code, reduce_slot, a_end / _MS))
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
                launches.append((a_start, start, host, kind_code, reduce_slot, index))
            if end > 0 and a_end > 0:
                report_rows.append((kind_code, (end - a_end) / _MS))

    def _add_launches(self, launches: list[tuple[int, int, str, int, bool, int]], localised: dict[str, int],
                      job_ref: int) -> None:
        """The job's launches in task order as rows: lags, spans, slot sides, cold/warm phases, task references."""
        host_code, rows = self.host_code, self.launches.rows
        for a_start, start, host, kind_code, reduce_slot, index in launches:
            code = host_code.get(host)
            ready = localised.get(host, a_start)
            rows.append((kind_code, self._code(host) if code is None else code, (a_start - start) / _MS, start / _MS,
                         a_start / _MS, reduce_slot, COLD if a_start <= ready else IN_FLIGHT if start < ready else WARM,
                         job_ref | index))

    def _launch_columns(self) -> _Launches:
        """The launch columns, and each kind's rows."""
        columns = self.launches.arrays()
        kinds = columns[0]
        rows = {kind: r for k, kind in enumerate(KINDS) if (r := np.flatnonzero(kinds == k)).size}
        return _Launches(*columns, rows=rows)

    def result(self, source: str = "", oob_heartbeat: bool | None = None,
               slots: tuple[int | None, int | None] = (None, None)) -> Calibration:
        """The calibration. ``oob_heartbeat``: whether the replay will use out-of-band heartbeats (None: as the
        trace's job confs say). Cost: O(attempts) array passes plus one sort of the attempt ends (the slot waits;
        with out-of-band heartbeats one more of the heartbeat events), once."""
        notes: list[str] = []
        launches = self._launch_columns()
        negative_launch = int(np.count_nonzero(launches.lag < 0))
        if negative_launch:
            notes.append(f"{negative_launch} launch lag(s) were negative (TaskTracker clock behind the "
                         "JobTracker's) and were counted as 0")
        outliers, stalled, stall_threshold = self._outliers(launches)
        stalled_tasks = self._stalled_tasks(launches, stalled)
        normal_rows = np.ones(launches.lag.size, dtype=bool)
        for kind, n in stalled:
            normal_rows[launches.rows[kind][n]] = False
        usable_rows = normal_rows & ~self._slot_waits(launches)
        launch: dict[str, Distribution] = {}
        by_phase: tuple[dict[str, Distribution], dict[str, Distribution]] = ({}, {})  # cold, warm
        for kind, rows in launches.rows.items():
            # The kind's lags in launch order, masked (the laws are built from the same values in the same order).
            lags, normal = launches.lag[rows], normal_rows[rows]
            if normal.any():
                launch[kind] = Distribution.of(lags[normal])
            phases, usable = launches.phase[rows], usable_rows[rows]
            for law, phase in zip(by_phase, (COLD, WARM)):
                chosen = usable & (phases == phase)
                if chosen.any():
                    law[kind] = Distribution.of(lags[chosen])
        report_kinds, report_lags = self.reports.arrays()
        reports = {kind: report_lags[report_kinds == k] for k, kind in enumerate(KINDS)}  # each in the order added
        report = {kind: Distribution.of(lags) for kind, lags in reports.items() if lags.size}
        if oob_heartbeat is None and self.oob:
            oob_heartbeat = self.oob.most_common(1)[0][0] == "true"
        values = np.concatenate((reports["map"], reports["reduce"]))
        interval, hb_source = self._heartbeat(bool(oob_heartbeat), values, launches)
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
        launched = np.zeros(len(self.hosts), dtype=bool)
        launched[launches.code] = True
        if "" in self.host_code:
            launched[self.host_code[""]] = False  # an attempt without a host name is no host
        return Calibration(
            launch_lag=launch, report_lag=report, cold_launch_lag=by_phase[0], warm_launch_lag=by_phase[1],
            job_init_delay=Distribution.of(self.init_delays) if self.init_delays else None,
            heartbeat_interval_s=interval, heartbeat_source=hb_source, hadoop_line=hadoop_line,
            jobtracker_started=jobtracker_started(self.job_ids), jvm_reuse=reuse,
            map_slots=slots[0], reduce_slots=slots[1], outliers=outliers, stall_threshold_s=stall_threshold,
            stalled_tasks=stalled_tasks, assignment_bursts=self._assignment_bursts(launches), source=source,
            jobs=self.jobs, attempts=self.attempts, hosts=int(np.count_nonzero(launched)), notes=tuple(notes))

    def _assignment_bursts(self, launches: _Launches) -> tuple[AssignmentBurst, ...]:
        """Per job and kind (map, reduce), the first assignments of the hosts whose first traced assignment is one
        of its tasks, as offsets from the instant the tasks became assignable (module docstring). A host's first
        assignment is its earliest; of equal ones, the first kind in KINDS order, then the first launch added. Cost
        O(launches) (two ``np.minimum.at`` passes, no sort), once."""
        first: dict[str, tuple[float, int, int]] = {}  # host -> (first assignment s, kind index, job ordinal)
        size = launches.code.size
        if size:
            codes, assigned = launches.code, launches.assigned
            earliest = np.full(len(self.hosts), np.inf)
            np.minimum.at(earliest, codes, assigned)
            tied = np.flatnonzero(assigned == earliest[codes])  # per host, its launches at its earliest assignment
            rank = launches.kind[tied].astype(np.int64) * size + tied  # KINDS order, then the order added
            head = np.full(len(self.hosts), len(KINDS) * size, dtype=np.int64)
            np.minimum.at(head, codes[tied], rank)
            heads = (head[head < len(KINDS) * size] % size).tolist()
            hosts = self.hosts
            for code, t, ki, ref in zip(codes[heads].tolist(), assigned[heads].tolist(),
                                        launches.kind[heads].tolist(), launches.ref[heads].tolist()):
                if hosts[code]:
                    first[hosts[code]] = (t, ki, ref >> TASK_BITS)
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

    def _stalled_tasks(self, launches: _Launches, stalled: set[tuple[str, int]]) -> tuple[StalledTask, ...]:
        """The stalled launches as :class:`StalledTask` records (the tasks that carry their stall), in trace order."""
        def window(kn: tuple[str, int]) -> tuple[float, float]:
            row = launches.rows[kn[0]][kn[1]]
            return float(launches.assigned[row]), float(launches.started[row])

        out = []
        # The kind and index break ties between equal windows: a set's order changes with PYTHONHASHSEED.
        for kind, n in sorted(stalled, key=lambda kn: (window(kn), kn[0], kn[1])):
            row = launches.rows[kind][n]
            ref = int(launches.ref[row])
            if ref & TASK_MASK == TASK_MASK:
                continue  # a task the template builder drops
            out.append(StalledTask(self.job_ids[ref >> TASK_BITS], kind, ref & TASK_MASK,
                                   self.hosts[int(launches.code[row])], bool(launches.side[row]),
                                   round(float(launches.assigned[row]), 3), round(float(launches.lag[row]), 3)))
        return tuple(out)

    def _slot_waits(self, launches: _Launches) -> np.ndarray:
        """A mask over the launches: True for those that waited for their slot to be free (see the module
        docstring): an attempt end on the launch's host and slot side in ``(max(start - SLOT_WAIT_S, assignment),
        start + SLOT_WAIT_S]``. The ends and the launches are grouped by (host, side) with one stable radix sort
        each; then one sort of a group's ends and one ``searchsorted`` per group, not per launch."""
        mask = np.zeros(launches.code.size, dtype=bool)
        end_codes, end_sides, end_times = self.ends.arrays()
        if not mask.size or not end_times.size:
            return mask
        bound = 2 * len(self.hosts)
        end_keys = _slot_keys(end_codes, end_sides, bound)
        end_order = _stable_order(end_keys, bound)
        end_keys = end_keys[end_order]
        keys = _slot_keys(launches.code, launches.side, bound)
        order = _stable_order(keys, bound)
        ordered = keys[order]
        starts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        starts = np.concatenate((np.zeros(1, dtype=starts.dtype), starts))  # (np.diff's prepend is ~50x slower)
        group_keys = ordered[starts]
        lows = np.searchsorted(end_keys, group_keys, side="left").tolist()
        highs = np.searchsorted(end_keys, group_keys, side="right").tolist()
        for lo, hi, end_lo, end_hi in zip(starts.tolist(), [*starts[1:].tolist(), mask.size], lows, highs):
            if end_lo == end_hi:
                continue  # no attempt of that slot side ended on the host
            # The group's ends sorted (a stable sort merges the runs add_plain sorted), then +inf: the end after the
            # last, never a hit. Temporaries written in place: each new array of 300,000 rows is page faults too.
            count = end_hi - end_lo
            side = np.empty(count + 1)
            np.take(end_times, end_order[end_lo:end_hi], out=side[:count])
            side[:count].sort(kind="stable")
            side[count] = np.inf
            index = order[lo:hi]
            started = launches.started[index]
            low = started - SLOT_WAIT_S
            np.maximum(low, launches.assigned[index], out=low)
            after = np.searchsorted(side[:count], low, side="right")  # the first end after the window opens
            started += SLOT_WAIT_S
            mask[index] = side[after] <= started
        return mask

    def _outliers(self, launches: _Launches) -> tuple[dict[str, TrackerOutlier], set[tuple[str, int]], float | None]:
        """The stalled trackers (module docstring) and the stalled launches as (kind, n: the kind's n-th launch)."""
        if launches.lag.size < STALL_MIN_LAGS:
            return {}, set(), None
        limit, median = _stall_limit(np.maximum(launches.lag, 0.0))  # max(lag, 0.0): the same quantile and median
        stalled: set[tuple[str, int]] = set()
        windows: dict[tuple[str, bool], list[tuple[float, float]]] = defaultdict(list)  # (host, reduce launcher)
        for kind, rows in launches.rows.items():
            for n in np.flatnonzero(launches.lag[rows] > limit).tolist():  # in launch order
                row = rows[n]
                host = self.hosts[int(launches.code[row])]
                if host:
                    stalled.add((kind, n))
                    windows[host, bool(launches.side[row])].append(
                        (float(launches.assigned[row]), float(launches.started[row])))
        found: dict[str, TrackerOutlier] = {}
        for host in sorted({h for h, _side in windows}):
            maps, reduces = _merged(windows.get((host, False), [])), _merged(windows.get((host, True), []))
            count = len(windows.get((host, False), [])) + len(windows.get((host, True), []))
            found[host] = TrackerOutlier(host, (), f"{count} attempt(s) started {limit:.1f}+ s after assignment "
                                         f"against the cluster's median {median:.2f} s", maps, reduces)
        return found, stalled, round(limit, 6)

    def _heartbeat(self, oob: bool, values: np.ndarray, launches: _Launches) -> tuple[float | None, str]:
        """The heartbeat interval and where it came from (module docstring); ``values``: the map and reduce report
        lags (s)."""
        if not values.size:
            return None, "formula: the trace records no report lags"
        if oob:
            return self._heartbeat_from_assignments(launches)
        if values.size < MIN_REPORT_SAMPLES:
            return self._heartbeat_version_minimum(values, launches)
        negative = int(np.count_nonzero(values < 0)) / values.size
        if negative >= MAX_NEGATIVE_FRACTION:
            return None, (f"formula: {100 * negative:.0f} % of report lags are negative (TaskTracker and JobTracker "
                          "clocks differ)")
        median = _median(values)
        if median <= 0.0:
            return None, "formula: report lags are zero (no heartbeat wait recorded)"
        return round(2.0 * median, 6), f"trace: 2 x median report lag of {values.size} map/reduce attempts"

    def _heartbeat_version_minimum(self, values: np.ndarray, launches: _Launches) -> tuple[float | None, str]:
        """Too few report lags for ``2 x median``, but enough to rule out Hadoop 1.1+'s cluster-size formula.

        A TaskTracker reports an attempt's end in its next heartbeat, so a report lag (one clock: none negative) is
        below the interval (plus the heartbeat's RPC time). When the median of at least ``MIN_VERSION_SAMPLES``
        lags exceeds twice what Hadoop 1.1+'s formula gives for the trace's hosts (``max(0.3 s, N / 100 s)``,
        MAPREDUCE-1906; twice, so that RPC time cannot explain it), the JobTracker ran an older formula: Hadoop
        0.20-1.0's ``max(3 s, ceil(N / 100) s)`` (``MRConstants.HEARTBEAT_INTERVAL_MIN``), used when the median is
        within it. Otherwise the formula stays. N: the hosts with an attempt end or a launch (an attempt without a
        host name counts as one)."""
        few = f"formula: only {values.size} report lags (fewer than {MIN_REPORT_SAMPLES})"
        if values.size < MIN_VERSION_SAMPLES or bool((values < 0).any()):
            return None, few
        seen = np.zeros(len(self.hosts), dtype=bool)
        seen[self.ends.arrays()[0]] = True
        seen[launches.code] = True
        hosts = max(1, int(np.count_nonzero(seen)))
        median = _median(values)
        newest = max(0.3, hosts / 100.0)
        older = float(max(3, math.ceil(hosts / 100)))
        if median <= 2.0 * newest or median > older:
            return None, few
        return older, (f"trace: the median of {values.size} report lags, {median:.2f} s, rules out Hadoop 1.1+'s "
                       f"{newest:g} s for {hosts} host(s): Hadoop 0.20-1.0's minimum "
                       "(HEARTBEAT_INTERVAL_MIN), max(3 s, ceil(N/100) s)")

    def _heartbeat_from_assignments(self, launches: _Launches) -> tuple[float | None, str]:
        """The interval as the mode of the gaps before regular heartbeats that assigned a task (module docstring).

        A host's events are its attempt ends and its launches' assignments, in time order (an end before an
        assignment at the same instant); a gap is an assignment's distance to the host's previous event. One stable
        sort by time, then one by host."""
        end_codes, _sides, end_times = self.ends.arrays()
        codes = np.concatenate((end_codes, launches.code))
        times = np.concatenate((end_times, launches.assigned))
        assignment = np.arange(codes.size) >= end_codes.size
        order = np.argsort(times, kind="stable")  # ends first at equal times: they come first in the columns
        order = order[_stable_order(codes[order], len(self.hosts))]
        codes, times, assignment = codes[order], times[order], assignment[order]
        steps = np.diff(times)
        gaps = steps[assignment[1:] & (codes[1:] == codes[:-1]) & (steps > OOB_WINDOW_S)]
        kept = gaps[(gaps >= MIN_INTERVAL_S) & (gaps < MAX_GAP_S)]
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
