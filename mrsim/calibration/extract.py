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
report lag says nothing about the interval). Otherwise Hadoop's cluster-size formula stays, and the notes say why.

Cost: linear in the attempts; memory: one float per attempt until :meth:`CalibrationCollector.result`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

import numpy as np

from mrsim.calibration.model import KINDS, Calibration, Distribution, TrackerOutlier

_MS = 1000.0
STALL_MIN_LAGS = 20
OUTLIER_MIN_EXCESS_S = 30.0
MIN_REPORT_SAMPLES = 20
MAX_NEGATIVE_FRACTION = 0.02
REUSE_KEYS = ("mapred.job.reuse.jvm.num.tasks", "mapreduce.job.jvm.numtasks")
OOB_KEY = "mapreduce.tasktracker.outofband.heartbeat"


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


def _kind(task: Mapping[str, Any], default: str) -> str:
    t = str(task.get("taskType") or default).lower()
    return t if t in KINDS else default


def _host(attempt: Mapping[str, Any]) -> str:
    """The TaskTracker's host name (last path component of Rumen's ``/rack/host``)."""
    return str(attempt.get("hostName") or "").rsplit("/", 1)[-1]


def _reduce_slot(attempt: Mapping[str, Any], kind: str) -> bool:
    """Whether the attempt ran in a reduce slot, i.e. was started by the TaskTracker's reduce-slot launcher: the
    attempt id's type letter (``attempt_<jt>_<job>_r_<task>_<n>``; a setup or cleanup task given a reduce slot is
    ``_r_``, ``JobTracker.getSetupAndCleanupTasks``), else its kind (only reduces use reduce slots)."""
    parts = str(attempt.get("attemptID") or "").split("_")
    if len(parts) >= 6 and parts[3] in ("m", "r"):
        return parts[3] == "r"
    return kind == "reduce"


def _first_start(attempts: list) -> int:
    """The earliest start (epoch ms) of a task's attempts of any result, or -1."""
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
        self.init_delays: list[float] = []
        self.negative_launch = 0
        self.negative_report = 0
        self.reuse: Counter[str] = Counter()
        self.oob: Counter[str] = Counter()
        self.jobs = 0
        self.attempts = 0
        self.later_attempts = 0

    def add_job(self, job: Mapping[str, Any]) -> None:
        self.jobs += 1
        submit, launch = rumen_ms(job.get("submitTime")), rumen_ms(job.get("launchTime"))
        if submit > 0 and launch >= submit:
            self.init_delays.append((launch - submit) / _MS)
        props = job.get("jobProperties")
        if type(props) is dict or isinstance(props, Mapping):
            for key in REUSE_KEYS:
                if key in props:
                    self.reuse[str(props[key]).strip()] += 1
                    break
            if OOB_KEY in props:
                self.oob[str(props[OOB_KEY]).strip().lower()] += 1
        launches: list[tuple[int, int, str, str, bool]] = []  # (attempt start, task start, host, kind, reduce slot)
        for key, default in (("mapTasks", "map"), ("reduceTasks", "reduce"), ("otherTasks", "setup")):
            tasks = job.get(key)
            if not isinstance(tasks, list):
                continue
            for task in tasks:
                if not (type(task) is dict or isinstance(task, Mapping)):
                    continue
                kind = _kind(task, default)
                start, end = rumen_ms(task.get("startTime")), rumen_ms(task.get("finishTime"))
                attempts = task.get("attempts")
                if not isinstance(attempts, list):
                    continue
                first = _first_start(attempts)
                for attempt in attempts:
                    if not (type(attempt) is dict or isinstance(attempt, Mapping)) or attempt.get("result") != "SUCCESS":
                        continue
                    a_start, a_end = rumen_ms(attempt.get("startTime")), rumen_ms(attempt.get("finishTime"))
                    self.attempts += 1
                    if a_start > first > 0:
                        # Not the task's first attempt (a retry or a speculative backup): the task start is the
                        # first attempt's assignment, so attempt start - task start is not this attempt's launch lag.
                        self.later_attempts += 1
                    elif start > 0 and a_start > 0:
                        launches.append((a_start, start, _host(attempt), kind, _reduce_slot(attempt, kind)))
                    if end > 0 and a_end > 0:
                        lag = (end - a_end) / _MS
                        if lag < 0:
                            self.negative_report += 1
                        self.report[kind].append(lag)
        for a_start, start, host, kind, reduce_slot in launches:
            lag = (a_start - start) / _MS
            if lag < 0:
                self.negative_launch += 1
            self.host_launch[kind].append((host, lag))
            self.windows[kind].append((start / _MS, a_start / _MS))
            self.reduce_side[kind].append(reduce_slot)

    def result(self, source: str = "", oob_heartbeat: bool | None = None,
               slots: tuple[int | None, int | None] = (None, None)) -> Calibration:
        """The calibration. ``oob_heartbeat``: whether the replay will use out-of-band heartbeats (None: as the
        trace's job confs say)."""
        notes: list[str] = []
        if self.negative_launch:
            notes.append(f"{self.negative_launch} launch lag(s) were negative (TaskTracker clock behind the "
                         "JobTracker's) and were counted as 0")
        outliers, stalled, stall_threshold = self._outliers()
        launch: dict[str, Distribution] = {}
        for kind in KINDS:
            values = [lag for n, (_h, lag) in enumerate(self.host_launch.get(kind, ())) if (kind, n) not in stalled]
            if values:
                launch[kind] = Distribution.of(values)
        report = {kind: Distribution.of(self.report[kind]) for kind in KINDS if self.report.get(kind)}
        if oob_heartbeat is None and self.oob:
            oob_heartbeat = self.oob.most_common(1)[0][0] == "true"
        interval, hb_source = self._heartbeat(bool(oob_heartbeat), notes)
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
            launch_lag=launch, report_lag=report,
            job_init_delay=Distribution.of(self.init_delays) if self.init_delays else None,
            heartbeat_interval_s=interval, heartbeat_source=hb_source, jvm_reuse=reuse,
            map_slots=slots[0], reduce_slots=slots[1], outliers=outliers, stall_threshold_s=stall_threshold, source=source, jobs=self.jobs,
            attempts=self.attempts, hosts=len({h for rows in self.host_launch.values() for h, _l in rows if h}),
            notes=tuple(notes))

    def _outliers(self) -> tuple[dict[str, TrackerOutlier], set[tuple[str, int]], float | None]:
        everything = [max(lag, 0.0) for kind in KINDS for _h, lag in self.host_launch.get(kind, ())]
        if len(everything) < STALL_MIN_LAGS:
            return {}, set(), None
        arr = np.asarray(everything)
        p99, median = float(np.quantile(arr, 0.99)), float(np.median(arr))
        limit = max(p99, median + OUTLIER_MIN_EXCESS_S)
        stalled: set[tuple[str, int]] = set()
        windows: dict[tuple[str, bool], list[tuple[float, float]]] = defaultdict(list)  # (host, reduce launcher)
        for kind in KINDS:
            for n, (host, lag) in enumerate(self.host_launch.get(kind, ())):
                if host and lag > limit:
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
            return None, "formula: out-of-band heartbeats report completions at once, so report lags do not show the interval"
        if len(values) < MIN_REPORT_SAMPLES:
            return None, f"formula: only {len(values)} report lags (fewer than {MIN_REPORT_SAMPLES})"
        negative = sum(1 for v in values if v < 0) / len(values)
        if negative >= MAX_NEGATIVE_FRACTION:
            return None, (f"formula: {100 * negative:.0f} % of report lags are negative (TaskTracker and JobTracker "
                          "clocks differ)")
        median = float(np.median(values))
        if median <= 0.0:
            return None, "formula: report lags are zero (no heartbeat wait recorded)"
        return round(2.0 * median, 6), f"trace: 2 x median report lag of {len(values)} map/reduce attempts"
