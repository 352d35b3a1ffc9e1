"""The :class:`Calibration` of a cluster and its empirical distributions (TOML in, TOML out).

A :class:`Distribution` is an empirical law kept as ``QUANTILES`` evenly spaced quantiles (0, 1/100, ..., 1) of
the observed samples, so a calibration stays small whatever the trace size, and sampling is inverse-CDF with
linear interpolation between quantiles (cost O(1) per draw). A distribution of one value is a constant.

Task kinds are Hadoop's task types: ``map``, ``reduce``, ``setup``, ``cleanup`` (``TaskType`` in
``org.apache.hadoop.mapreduce``; the last two are the job's SETUP and CLEANUP tasks, Rumen ``otherTasks``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from mrsim.calibration.heartbeat_check import BURST_KEYS, AssignmentBurst, HeartbeatCheck
from mrsim.tracker.lag_core import sample as _inverse_cdf
from mrsim.errors import InputError
from mrsim.wording import counted
from mrsim.model.hadoop_conf import HADOOP_LINES

KINDS = ("map", "reduce", "setup", "cleanup")
KIND_INDEX = {k: i for i, k in enumerate(KINDS)}
QUANTILES = 101
#: Tables of per-kind laws in a calibration TOML (``[launch_lag.map]`` ...).
LAW_TABLES = ("launch_lag", "cold_launch_lag", "warm_launch_lag", "report_lag")
_STARTED = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
OUTLIER_KEYS = ("host", "reason", "stalls", "map_stalls", "reduce_stalls")
STALLED_TASK_KEYS = ("job", "kind", "task", "host", "reduce_slot", "assigned", "lag_s")


@dataclass(frozen=True)
class Distribution:
    """An empirical distribution of a non-negative duration in seconds, kept as quantiles.

    Attributes:
        quantiles: ``QUANTILES`` values (or one value for a constant), non-decreasing, seconds.
        samples: how many observations it was built from (0 for a default or a hand-written constant).
    """

    quantiles: tuple[float, ...]
    samples: int = 0
    _q: list[float] = field(init=False, repr=False, compare=False)  # the quantiles as the compiled draw takes them

    def __post_init__(self) -> None:
        object.__setattr__(self, "_q", list(self.quantiles))

    @classmethod
    def of(cls, values: Sequence[float]) -> "Distribution":
        arr = np.asarray(values, dtype=float)
        if arr.size == 0:
            raise ValueError("a distribution needs at least one sample")
        arr = np.clip(arr, 0.0, None)
        if arr.size == 1 or float(arr.min()) == float(arr.max()):
            return cls((round(float(arr[0]), 6),), int(arr.size))
        q = np.quantile(arr, np.linspace(0.0, 1.0, QUANTILES))
        return cls(tuple(round(float(x), 6) for x in q), int(arr.size))

    @classmethod
    def constant(cls, value: float) -> "Distribution":
        return cls((float(value),), 0)

    @property
    def mean(self) -> float:
        q = self.quantiles
        if len(q) == 1:
            return q[0]
        # Mean of the piecewise-linear inverse CDF: trapezoid rule over equal probability steps.
        return (sum(q) - 0.5 * (q[0] + q[-1])) / (len(q) - 1)

    @property
    def median(self) -> float:
        q = self.quantiles
        return q[len(q) // 2]

    def is_zero(self) -> bool:
        return self.quantiles[-1] == 0.0

    def sample(self, u: float) -> float:
        """The value at probability ``u`` in [0, 1) (inverse CDF, linear between quantiles). O(1)."""
        return _inverse_cdf(self._q, u)

    def to_toml(self) -> dict[str, Any]:
        return {"quantiles": list(self.quantiles), "samples": self.samples}

    def describe(self) -> str:
        q = self.quantiles
        if len(q) == 1:
            return f"{q[0]:.2f} s (constant)"
        return (f"mean {self.mean:.2f} s, p10 {q[10]:.2f}, p50 {q[50]:.2f}, p90 {q[90]:.2f}, max {q[-1]:.2f} "
                f"({self.samples} samples)")


def _union(a: tuple[tuple[float, float], ...], b: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
    """Both sets of stall windows, sorted, each once."""
    return tuple(sorted(set(a) | set(b)))


@dataclass(frozen=True)
class TrackerOutlier:
    """A TaskTracker that stalled: attempts assigned to it started far later than the cluster's launch lags allow.

    Windows are ``(from_s, until_s)`` in the trace's clock (epoch seconds): from the first stalled assignment to
    the latest start of a stalled attempt. A TaskTracker launches map-slot and reduce-slot attempts from two
    separate queues, each served by its own thread (``TaskTracker.TaskLauncher``: ``mapLauncher`` and
    ``reduceLauncher``), so a stall is a stall of one launcher: ``map_stalls`` hold the map-slot launcher (maps and
    the setup/cleanup tasks given a map slot), ``reduce_stalls`` the reduce-slot one; ``stalls`` (calibrations
    written before launchers were told apart, or by hand) hold both. A task the replay hands to a stalled launcher
    inside a window starts at its end; outside the windows the cluster's law applies.
    """

    host: str
    stalls: tuple[tuple[float, float], ...]
    reason: str = ""
    map_stalls: tuple[tuple[float, float], ...] = ()
    reduce_stalls: tuple[tuple[float, float], ...] = ()

    def windows(self, reduce_launcher: bool) -> tuple[tuple[float, float], ...]:
        """The stall windows of one launcher (trace clock), sorted."""
        return tuple(sorted(self.stalls + (self.reduce_stalls if reduce_launcher else self.map_stalls)))

    def all_windows(self) -> tuple[tuple[float, float], ...]:
        """Every window of either launcher, sorted (the whole tracker stalled: the model before launchers)."""
        return tuple(sorted(self.stalls + self.map_stalls + self.reduce_stalls))


@dataclass(frozen=True)
class StalledTask:
    """One attempt the trace shows stuck in a stalled TaskTracker launcher (``TaskTracker.TaskLauncher``): its task
    was assigned at ``assigned`` (epoch s, trace clock) to ``host`` and its attempt started ``lag_s`` seconds later.

    ``kind`` is the task kind (``map``, ``reduce``, ``setup``, ``cleanup``); ``task`` the task's index among the
    job's completed tasks of that kind in trace order (the template's index, ``mrsim.profiler.builder``; 0 for
    setup/cleanup); ``reduce_slot`` whether it queued in the reduce-slot launcher. The replay gives the task its
    recorded ``lag_s`` wherever it runs (part ``carry``, ``mrsim.calibration.feature``)."""

    job: str
    kind: str
    task: int
    host: str
    reduce_slot: bool
    assigned: float
    lag_s: float

    def to_toml(self) -> str:
        return (f"{{job = {_toml_str(self.job)}, kind = {_toml_str(self.kind)}, task = {self.task}, "
                f"host = {_toml_str(self.host)}, reduce_slot = {'true' if self.reduce_slot else 'false'}, "
                f"assigned = {self.assigned!r}, lag_s = {self.lag_s!r}}}")

    def within(self, window: tuple[float, float]) -> bool:
        """Whether this stall lies in ``window`` (trace clock): the window was measured from it."""
        return window[0] <= self.assigned and self.assigned + self.lag_s <= window[1] + 1e-3


@dataclass(frozen=True)
class Calibration:
    """What a real cluster adds around each task attempt (see ``docs/calibration.md``).

    Attributes:
        launch_lag: per task kind, the time from the JobTracker assigning a task (task start, JobTracker clock)
            to its attempt starting (TaskTracker clock): JVM start, localisation. The slot is held meanwhile.
        cold_launch_lag / warm_launch_lag: per task kind, the launch lags of the first attempt of a job that
            started on a TaskTracker (it localised the job there, ``TaskTracker.localizeJob``) and of attempts
            assigned after it had started (the job's files already local); tasks assigned in between waited for the
            cold one and are in neither law. Empty in calibrations written before they were told apart: the
            ``localize`` part then replays ``launch_lag`` for every task.
        report_lag: per task kind, the time from an attempt's end to the JobTracker recording its task's end.
            Replayed only with out-of-band heartbeats (then it is the TaskTracker's own delay before its
            out-of-band heartbeat); without them the heartbeat grid itself produces the wait, and the interval
            below is what the trace's report lags imply.
        job_init_delay: ``launchTime - submitTime`` over the jobs (JobTracker initialisation); per-job values in
            the templates win, this is for jobs that lack one.
        heartbeat_interval_s: the interval the JobTracker ran at as the trace shows it, or None to use Hadoop's
            cluster-size formula. ``heartbeat_source`` says which.
        hadoop_line: the Hadoop line whose JobTracker computed that interval, as the job confs name it
            (:func:`mrsim.model.hadoop_conf.heartbeat_line`: ``"0.20/1.x"`` or ``"0.21/0.22"``; None unknown). A
            heartbeat interval given with ``--calibration-from`` is not applied to a trace of the other line
            (:func:`mrsim.calibration.choice.choose`).
        jobtracker_started: when the earliest JobTracker the job ids name was started (``YYYY-MM-DD HH:MM``: a
            Hadoop 0.20/1.x job id is ``job_<yyyyMMddHHmm>_<n>``, the JobTracker's start, ``JobTracker.getDateFormat``);
            None when no job id has that form (YARN's ids hold the RM's start in ms). Evidence of the Hadoop line
            (:mod:`mrsim.whatif.heartbeat`): no JobTracker started before Hadoop 1.1.0 ran its 0.3-s formula.
        jvm_reuse: ``mapred.job.reuse.jvm.num.tasks`` most jobs ran with (1: a new JVM per task; -1: unlimited);
            a job's own conf value wins.
        map_slots / reduce_slots: the most common slots per TaskTracker (informative; the cluster comes from the
            cluster inference or the user).
        outliers: TaskTrackers that stalled, with their stall windows (by host name).
        stall_threshold_s: the launch lag above which an attempt counted as a stall (None: too few lags to tell). A
            setup/cleanup task whose own lag exceeded it and is not a carried stall is replayed with its attempt
            time plus a normal lag, so that the stall is replayed once, through its tracker's window, not also
            inside the task's time.
        stalled_tasks: the attempts the trace shows stuck in a stalled launcher (:class:`StalledTask`), by job id
            and task: the replay carries each one's recorded lag with its task (part ``carry``) instead of
            stalling whichever task its own placement sends to the tracker's window.
        assignment_bursts: the first assignments of each job's maps (reduces) on fresh TaskTrackers, the
            evidence a *given* heartbeat interval is tested against when this trace is replayed
            (:mod:`mrsim.calibration.heartbeat_check`); like the stalled tasks, what the replayed trace records.
        heartbeat_check: the outcome of that test in a run (never written to TOML; None when not tested).
        heartbeat_line_check: in a run, when a given heartbeat interval was set aside because the replayed trace
            names another Hadoop line: the two lines and the interval (never written to TOML).
        source: where it was measured; jobs / attempts / hosts: how much it was measured from (hosts: distinct
            TaskTrackers that ran attempts; a measured heartbeat interval belongs to a cluster of that size).
        notes: what the extraction decided and why (one line each), shown by ``mrsim calibrate``.
    """

    launch_lag: Mapping[str, Distribution] = field(default_factory=dict)
    report_lag: Mapping[str, Distribution] = field(default_factory=dict)
    cold_launch_lag: Mapping[str, Distribution] = field(default_factory=dict)
    warm_launch_lag: Mapping[str, Distribution] = field(default_factory=dict)
    job_init_delay: Distribution | None = None
    heartbeat_interval_s: float | None = None
    heartbeat_source: str = "formula"
    hadoop_line: str | None = None
    jobtracker_started: str | None = None
    jvm_reuse: int = 1
    map_slots: int | None = None
    reduce_slots: int | None = None
    outliers: Mapping[str, TrackerOutlier] = field(default_factory=dict)
    stall_threshold_s: float | None = None
    stalled_tasks: tuple[StalledTask, ...] = ()
    assignment_bursts: tuple[AssignmentBurst, ...] = ()
    heartbeat_check: HeartbeatCheck | None = None
    heartbeat_line_check: Mapping[str, Any] | None = None
    source: str = ""
    jobs: int = 0
    attempts: int = 0
    hosts: int = 0
    notes: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """True when it changes nothing in a replay (e.g. a synthetic trace whose attempts start with their task)."""
        return (all(d.is_zero() for d in self.launch_lag.values())
                and all(d.is_zero() for d in self.report_lag.values())
                and self.heartbeat_interval_s is None and not self.outliers)

    def merged(self, other: "Calibration") -> "Calibration":
        """Both calibrations as one (a trace store profiled in several runs). Laws are mixed in proportion to their
        samples (approximate: each law is re-sampled at up to 1,000 evenly spaced probabilities); the measured
        heartbeat interval of the larger sample wins; outliers are united."""
        def mix(a: Distribution | None, b: Distribution | None) -> Distribution | None:
            if a is None or b is None:
                return a or b
            pts: list[float] = []
            for d in (a, b):
                n = max(1, min(d.samples, 1000))
                pts.extend(d.sample((i + 0.5) / n) for i in range(n))
            return Distribution(Distribution.of(pts).quantiles, a.samples + b.samples)

        def mix_all(x: Mapping[str, Distribution], y: Mapping[str, Distribution]) -> dict[str, Distribution]:
            return {k: d for k in KINDS if (d := mix(x.get(k), y.get(k))) is not None}

        big, small = (self, other) if self.attempts >= other.attempts else (other, self)
        interval, source = (big.heartbeat_interval_s, big.heartbeat_source) if big.heartbeat_interval_s is not None \
            else (small.heartbeat_interval_s, small.heartbeat_source)
        return Calibration(
            launch_lag=mix_all(self.launch_lag, other.launch_lag), report_lag=mix_all(self.report_lag, other.report_lag),
            cold_launch_lag=mix_all(self.cold_launch_lag, other.cold_launch_lag),
            warm_launch_lag=mix_all(self.warm_launch_lag, other.warm_launch_lag),
            job_init_delay=mix(self.job_init_delay, other.job_init_delay), heartbeat_interval_s=interval,
            heartbeat_source=source, hadoop_line=self.hadoop_line if self.hadoop_line == other.hadoop_line else None,
            jobtracker_started=min((d for d in (self.jobtracker_started, other.jobtracker_started) if d), default=None),
            jvm_reuse=big.jvm_reuse, map_slots=big.map_slots, reduce_slots=big.reduce_slots,
            outliers={**small.outliers, **big.outliers}, stall_threshold_s=big.stall_threshold_s,
            stalled_tasks=tuple(dict.fromkeys(self.stalled_tasks + other.stalled_tasks)),
            assignment_bursts=tuple(dict.fromkeys(self.assignment_bursts + other.assignment_bursts)),
            source=f"{self.source}; {other.source}",
            jobs=self.jobs + other.jobs, attempts=self.attempts + other.attempts, hosts=max(self.hosts, other.hosts),
            notes=tuple(dict.fromkeys(self.notes + other.notes)))

    def with_recorded_stalls(self, replayed: "Calibration") -> "Calibration":
        """This calibration with the stalls the *replayed* trace recorded added (``--calibration-from``).

        A stall window is an event of one run in that run's clock (``TaskTracker.TaskLauncher`` stuck from one time
        to another), not a property of the cluster: the windows measured from another log lie outside the replayed
        trace's time span and can never meet one of its tasks, while the replayed trace's own stalls happened in the
        run being replayed (what the replayed trace records is not calibration). So the replayed trace's windows
        are united with this calibration's, host by host (windows given by hand in the replayed trace's clock are
        kept), and its stall threshold, under which those windows were measured, decides which SETUP/CLEANUP lags
        were stalls. Laws, heartbeat and JVM reuse stay this calibration's. Cost: O(windows)."""
        if not replayed.outliers:
            return self
        # The stalled tasks are what the replayed trace records of its run, like its windows (part ``carry``).
        carried = tuple(dict.fromkeys(self.stalled_tasks + replayed.stalled_tasks))
        outliers = dict(self.outliers)
        for host, seen in replayed.outliers.items():
            mine = outliers.get(host)
            if mine is None:
                outliers[host] = seen
                continue
            outliers[host] = TrackerOutlier(
                host=host, stalls=_union(mine.stalls, seen.stalls), reason=f"{mine.reason}; {seen.reason}",
                map_stalls=_union(mine.map_stalls, seen.map_stalls),
                reduce_stalls=_union(mine.reduce_stalls, seen.reduce_stalls))
        threshold = replayed.stall_threshold_s if replayed.stall_threshold_s is not None else self.stall_threshold_s
        return replace(self, outliers=outliers, stall_threshold_s=threshold, stalled_tasks=carried)

    def describe(self) -> list[str]:
        """Human-readable lines (``mrsim calibrate``)."""
        lines = [f"calibration from {self.source or '(unknown)'}: {self.jobs} jobs, {self.attempts} attempts, "
                 f"{counted(self.hosts, 'host')}"]
        for kind in KINDS:
            if kind in self.launch_lag:
                lines.append(f"  launch lag  {kind:8s} {self.launch_lag[kind].describe()}")
        for label, laws in (("cold", self.cold_launch_lag), ("warm", self.warm_launch_lag)):
            for kind in KINDS:
                if kind in laws:
                    lines.append(f"  launch lag  {kind:8s} {label}: {laws[kind].describe()}")
        for kind in KINDS:
            if kind in self.report_lag:
                lines.append(f"  report lag  {kind:8s} {self.report_lag[kind].describe()}")
        if self.job_init_delay is not None:
            lines.append(f"  job init delay     {self.job_init_delay.describe()}")
        hb = "Hadoop's formula" if self.heartbeat_interval_s is None else f"{self.heartbeat_interval_s:.3f} s"
        lines.append(f"  heartbeat interval {hb} ({self.heartbeat_source})")
        if self.hadoop_line is not None:
            lines.append(f"  Hadoop line        {self.hadoop_line} (the job confs' heartbeat-rate key)")
        if self.jobtracker_started is not None:
            lines.append(f"  JobTracker started {self.jobtracker_started} (the earliest job id)")
        lines.append(f"  JVM reuse          {self.jvm_reuse} task(s) per JVM" if self.jvm_reuse != -1
                     else "  JVM reuse          unlimited")
        if self.map_slots is not None:
            lines.append(f"  slots per tracker  {self.map_slots} map, {self.reduce_slots} reduce (most common)")
        for o in self.outliers.values():
            parts = [f"{name} {len(w)} time(s) ({', '.join(f'{b - a:.0f} s' for a, b in w)})"
                     for name, w in (("whole tracker", o.stalls), ("map launcher", o.map_stalls),
                                     ("reduce launcher", o.reduce_stalls)) if w]
            lines.append(f"  outlier tracker    {o.host}: stalled: {'; '.join(parts)}; {o.reason}")
        for t in self.stalled_tasks:
            lines.append(f"  stalled task       {t.job} {t.kind} {t.task} on {t.host} "
                         f"({'reduce' if t.reduce_slot else 'map'} launcher): started {t.lag_s:.1f} s after assignment")
        if self.assignment_bursts:
            lines.append(f"  first assignments  {len(self.assignment_bursts)} burst(s) on "
                         f"{sum(len(b.offsets_s) for b in self.assignment_bursts)} fresh tracker(s) (tested against "
                         "a given heartbeat interval)")
        lines.extend(f"  note: {n}" for n in self.notes)
        return lines

    # ------------------------------------------------------------------------------------------------ TOML

    def to_toml(self) -> str:
        """The calibration as a TOML document (edit it and pass it back with ``--calibration-from``)."""
        out = ["# mrsim cluster calibration (docs/calibration.md). Times in seconds.",
               f"source = {_toml_str(self.source)}", f"jobs = {self.jobs}", f"attempts = {self.attempts}", f"hosts = {self.hosts}",
               f"heartbeat_source = {_toml_str(self.heartbeat_source)}", f"jvm_reuse = {self.jvm_reuse}"]
        if self.heartbeat_interval_s is not None:
            out.append(f"heartbeat_interval_s = {self.heartbeat_interval_s!r}")
        if self.hadoop_line is not None:
            out.append(f"hadoop_line = {_toml_str(self.hadoop_line)}")
        if self.jobtracker_started is not None:
            out.append(f"jobtracker_started = {_toml_str(self.jobtracker_started)}")
        if self.map_slots is not None:
            out.append(f"map_slots = {self.map_slots}")
        if self.stall_threshold_s is not None:
            out.append(f"stall_threshold_s = {self.stall_threshold_s!r}")
        if self.reduce_slots is not None:
            out.append(f"reduce_slots = {self.reduce_slots}")
        if self.notes:
            out.append("notes = [" + ", ".join(_toml_str(n) for n in self.notes) + "]")
        if self.stalled_tasks:
            out.append("stalled_tasks = [")
            out.extend(f"  {t.to_toml()}," for t in self.stalled_tasks)
            out.append("]")
        if self.assignment_bursts:
            out.append("assignment_bursts = [")
            out.extend(f"  {b.to_toml()}," for b in self.assignment_bursts)
            out.append("]")
        for table, dists in ((t, getattr(self, t)) for t in LAW_TABLES):
            for kind in KINDS:
                if kind in dists:
                    out += ["", f"[{table}.{kind}]", *_dist_lines(dists[kind])]
        if self.job_init_delay is not None:
            out += ["", "[job_init_delay]", *_dist_lines(self.job_init_delay)]
        for o in self.outliers.values():
            out += ["", "[[outliers]]", f"host = {_toml_str(o.host)}", f"reason = {_toml_str(o.reason)}"]
            for key, windows in (("stalls", o.stalls), ("map_stalls", o.map_stalls), ("reduce_stalls", o.reduce_stalls)):
                if windows or key == "stalls":
                    out.append(f"{key} = [" + ", ".join(f"[{a!r}, {b!r}]" for a, b in windows) + "]")
        return "\n".join(out) + "\n"

    @classmethod
    def from_toml(cls, text: str, source: str) -> "Calibration":
        """Parse a calibration TOML; any unknown key, negative, NaN or non-monotone value is an InputError naming
        the key."""
        import tomllib  # here: a replay without a calibration file never parses TOML (about 10 ms of imports)

        try:
            doc = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise InputError(f"{source}: not a valid TOML calibration ({exc})") from None
        return cls.from_mapping(doc, source)

    @classmethod
    def from_mapping(cls, doc: Mapping[str, Any], source: str) -> "Calibration":
        known = {"source", "jobs", "attempts", "hosts", "heartbeat_source", "jvm_reuse", "heartbeat_interval_s", "map_slots",
                 "reduce_slots", "notes", *LAW_TABLES, "stall_threshold_s", "job_init_delay", "outliers",
                 "stalled_tasks", "assignment_bursts", "hadoop_line", "jobtracker_started"}
        for key in doc:
            if key not in known:
                raise InputError(f"{source}: unknown calibration key {key!r} (known: {', '.join(sorted(known))})")
        dists: dict[str, dict[str, Distribution]] = {}
        for table in LAW_TABLES:
            section = doc.get(table, {})
            if not isinstance(section, Mapping):
                raise InputError(f"{source}: {table}: expected a table of task kinds")
            dists[table] = {}
            for kind, value in section.items():
                if kind not in KIND_INDEX:
                    raise InputError(f"{source}: unknown calibration key {table}.{kind!r} (task kinds: {', '.join(KINDS)})")
                dists[table][kind] = _dist_from(value, f"{source}: {table}.{kind}")
        init = doc.get("job_init_delay")
        outliers: dict[str, TrackerOutlier] = {}
        for where, item in _tables(doc.get("outliers", []), f"{source}: outliers", OUTLIER_KEYS,
                                   " ([[outliers]])"):
            host = item.get("host")
            if not isinstance(host, str) or not host:
                raise InputError(f"{where}.host: expected a host name")
            windows = {key: _windows(item.get(key, []), f"{where}.{key}") for key in OUTLIER_KEYS[2:]}
            outliers[host] = TrackerOutlier(host, windows["stalls"], str(item.get("reason", "")),
                                            windows["map_stalls"], windows["reduce_stalls"])
        stalled = _stalled_tasks(doc.get("stalled_tasks", []), f"{source}: stalled_tasks")
        bursts = _bursts(doc.get("assignment_bursts", []), f"{source}: assignment_bursts")
        interval = doc.get("heartbeat_interval_s")
        if interval is not None:
            interval = _number(interval, f"{source}: heartbeat_interval_s")
            if interval <= 0:
                raise InputError(f"{source}: heartbeat_interval_s: expected a positive number of seconds, got {interval}")
        threshold = doc.get("stall_threshold_s")
        if threshold is not None:
            threshold = _number(threshold, f"{source}: stall_threshold_s")
            if threshold < 0:
                raise InputError(f"{source}: stall_threshold_s: expected a non-negative number of seconds, got {threshold}")
        line = doc.get("hadoop_line")
        if line is not None and line not in HADOOP_LINES:
            raise InputError(f"{source}: hadoop_line: expected one of {', '.join(map(repr, HADOOP_LINES))}, got {line!r}")
        started = doc.get("jobtracker_started")
        if started is not None and (not isinstance(started, str) or not _STARTED.fullmatch(started)):
            raise InputError(f"{source}: jobtracker_started: expected \"YYYY-MM-DD HH:MM\", got {started!r}")
        reuse = doc.get("jvm_reuse", 1)
        if isinstance(reuse, bool) or not isinstance(reuse, int) or reuse == 0 or reuse < -1:
            raise InputError(f"{source}: jvm_reuse: expected -1 (unlimited) or a positive number of tasks, got {reuse!r}")
        slots = {}
        for key in ("map_slots", "reduce_slots", "jobs", "attempts", "hosts"):
            v = doc.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise InputError(f"{source}: {key}: expected a non-negative integer, got {v!r}")
            slots[key] = v
        notes = doc.get("notes", [])
        if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
            raise InputError(f"{source}: notes: expected an array of strings")
        return cls(launch_lag=dists["launch_lag"], report_lag=dists["report_lag"],
                   cold_launch_lag=dists["cold_launch_lag"], warm_launch_lag=dists["warm_launch_lag"],
                   job_init_delay=None if init is None else _dist_from(init, f"{source}: job_init_delay"),
                   heartbeat_interval_s=interval, heartbeat_source=str(doc.get("heartbeat_source", "file")),
                   hadoop_line=line, jobtracker_started=started,
                   jvm_reuse=reuse, map_slots=slots["map_slots"], reduce_slots=slots["reduce_slots"],
                   outliers=outliers, stall_threshold_s=threshold, stalled_tasks=stalled, assignment_bursts=bursts,
                   source=str(doc.get("source", source)), jobs=slots["jobs"] or 0,
                   attempts=slots["attempts"] or 0, hosts=slots["hosts"] or 0, notes=tuple(notes))

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{p}: cannot read calibration ({exc.__class__.__name__}: {exc})") from None
        return cls.from_toml(text, str(p))


def _tables(raw: Any, where: str, known: tuple[str, ...], hint: str = "", *, required: bool = False
            ) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(where[n], table)`` of a TOML array of tables whose keys are all in ``known`` (and, if ``required``, has
    every one of them); a one-line InputError naming the entry and key otherwise."""
    if not isinstance(raw, list):
        raise InputError(f"{where}: expected an array of tables{hint}")
    for n, item in enumerate(raw):
        at = f"{where}[{n}]"
        if not isinstance(item, Mapping):
            raise InputError(f"{at}: expected a table")
        for key in item:
            if key not in known:
                raise InputError(f"{at}: unknown calibration key {key!r} (known: {', '.join(known)})")
        missing = [key for key in known if key not in item] if required else []
        if missing:
            raise InputError(f"{at}: missing key {missing[0]!r}")
        yield at, item


def _stalled_tasks(raw: Any, where: str) -> tuple[StalledTask, ...]:
    """``stalled_tasks = [{job = ..., kind = ..., task = n, host = ..., reduce_slot = b, assigned = s, lag_s = s}]``,
    checked (a one-line error naming the entry and key)."""
    out = []
    for at, item in _tables(raw, where, STALLED_TASK_KEYS, required=True):
        job, kind, host = item["job"], item["kind"], item["host"]
        if not isinstance(job, str) or not job or not isinstance(host, str):
            raise InputError(f"{at}.job / host: expected a job id and a host name")
        if kind not in KIND_INDEX:
            raise InputError(f"{at}.kind: expected one of {', '.join(KINDS)}, got {kind!r}")
        task = item["task"]
        if isinstance(task, bool) or not isinstance(task, int) or task < 0:
            raise InputError(f"{at}.task: expected a non-negative task index, got {task!r}")
        if not isinstance(item["reduce_slot"], bool):
            raise InputError(f"{at}.reduce_slot: expected true or false")
        assigned, lag = _number(item["assigned"], f"{at}.assigned"), _number(item["lag_s"], f"{at}.lag_s")
        if lag < 0 or assigned < 0:
            raise InputError(f"{at}.lag_s: expected non-negative seconds, got {min(lag, assigned)}")
        out.append(StalledTask(job, kind, task, host, item["reduce_slot"], assigned, lag))
    return tuple(out)


def _bursts(raw: Any, where: str) -> tuple[AssignmentBurst, ...]:
    """``assignment_bursts = [{job = ..., kind = ..., fresh_trackers = n, resolution_s = s, offsets_s = [...]}]``,
    checked (a one-line error naming the entry and key)."""
    out = []
    for at, item in _tables(raw, where, BURST_KEYS, required=True):
        job, kind, n = item["job"], item["kind"], item["fresh_trackers"]
        if not isinstance(job, str) or not job:
            raise InputError(f"{at}.job: expected a job id")
        if kind not in ("map", "reduce"):
            raise InputError(f"{at}.kind: expected map or reduce, got {kind!r}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError(f"{at}.fresh_trackers: expected a non-negative integer, got {n!r}")
        resolution = _number(item["resolution_s"], f"{at}.resolution_s")
        if resolution < 0:
            raise InputError(f"{at}.resolution_s: expected non-negative seconds, got {resolution}")
        offsets = item["offsets_s"]
        if not isinstance(offsets, list):
            raise InputError(f"{at}.offsets_s: expected an array of seconds")
        values = [_number(x, f"{at}.offsets_s") for x in offsets]
        if any(x < 0 for x in values):
            raise InputError(f"{at}.offsets_s: expected non-negative seconds, got {min(values)}")
        out.append(AssignmentBurst(job, kind, n, resolution, tuple(sorted(values))))
    return tuple(out)


def _windows(raw: Any, where: str) -> tuple[tuple[float, float], ...]:
    """Stall windows ``[[from, until], ...]`` (seconds, trace clock), checked."""
    if not isinstance(raw, list):
        raise InputError(f"{where}: expected an array of [from, until] pairs (seconds)")
    out = []
    for pair in raw:
        if not isinstance(pair, list) or len(pair) != 2:
            raise InputError(f"{where}: expected [from, until] pairs (seconds), got {pair!r}")
        a, b = (_number(x, where) for x in pair)
        if a < 0 or b < a:
            raise InputError(f"{where}: expected 0 <= from <= until, got [{a}, {b}]")
        out.append((a, b))
    return tuple(out)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: expected a number, got {value!r}")
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        raise InputError(f"{where}: expected a finite number, got {value!r}")
    return x


def _dist_from(value: Any, where: str) -> Distribution:
    """A distribution from a number (a constant) or a table ``{quantiles = [...], samples = n}``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        x = _number(value, where)
        if x < 0:
            raise InputError(f"{where}: expected a non-negative number of seconds, got {x}")
        return Distribution.constant(x)
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected seconds or a table with 'quantiles'")
    for key in value:
        if key not in ("quantiles", "samples"):
            raise InputError(f"{where}: unknown calibration key {key!r} (known: quantiles, samples)")
    q = value.get("quantiles")
    if not isinstance(q, list) or not q:
        raise InputError(f"{where}.quantiles: expected a non-empty array of seconds")
    values = [_number(x, f"{where}.quantiles") for x in q]
    if any(x < 0 for x in values):
        raise InputError(f"{where}.quantiles: expected non-negative seconds, got {min(values)}")
    if any(b < a for a, b in zip(values, values[1:])):
        raise InputError(f"{where}.quantiles: expected non-decreasing values (quantiles of a distribution)")
    if len(values) not in (1, QUANTILES):
        raise InputError(f"{where}.quantiles: expected 1 value (a constant) or {QUANTILES} quantiles, got {len(values)}")
    samples = value.get("samples", 0)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise InputError(f"{where}.samples: expected a non-negative integer")
    return Distribution(tuple(values), samples)


def _toml_str(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _dist_lines(d: Distribution) -> list[str]:
    return [f"samples = {d.samples}", "quantiles = [" + ", ".join(repr(x) for x in d.quantiles) + "]"]
