"""Replay a :class:`~mrsim.calibration.model.Calibration`: an engine feature attached to the JobTracker's hooks.

What it changes (``docs/calibration.md``; each term can be switched off for ablations):

* **Launch lag** (``JobTracker.launch_lag`` hook): a launched map or reduce holds its slot for a sampled launch lag
  before it progresses (``TaskTracker.launchTaskForJob``: localisation and child JVM start). A job whose JVMs are
  reused (``mapred.job.reuse.jvm.num.tasks`` != 1, the job's conf first, else the calibration's) starts a new JVM
  only for every N-th task of a kind on a tracker (N = the reuse count; with -1, only for the first): the others
  start at once.
* **Job localisation** (``localize``): the first task of a job that a TaskTracker starts localises the job there
  (``TaskTracker.localizeJob``: job conf, jar, distributed cache, under the job's lock) and samples the *cold* law;
  a task of the job assigned to that tracker before the localisation ends waits for it (its lag is the rest of the
  cold one); a later one samples the *warm* law. A job's SETUP task localises the job on its tracker (its task
  time holds the cold lag: task time - attempt time). Without this part, or with a calibration that has no cold
  and warm laws, every task samples the one law of its kind, as before.
* **SETUP/CLEANUP tasks** (``JobTracker.aux_duration`` hook): take their *task* time, JobTracker clock (the trace's
  ``otherTasks`` task start to finish, which contains the JVM start and the report), when the template has it
  (``setup_task_s`` / ``cleanup_task_s``); otherwise, or when their own lag was a stall (above the calibration's
  ``stall_threshold_s``: the stall is replayed by its tracker's window, once), the attempt's time plus a sampled
  lag of their own kind.
* **Report lag** (``JobTracker.report_lag`` hook): with out-of-band heartbeats, a finished attempt's heartbeat
  leaves after a sampled report lag (without them, the tracker's heartbeat grid is the report delay).
* **Stalls carried by their tasks** (``carry``): the attempts the trace shows stuck in a stalled launcher
  (``Calibration.stalled_tasks``: a map of job 0053 waited 191 s in ``host254``'s map launcher,
  ``TaskTracker.TaskLauncher``) keep their recorded launch lag wherever the replay runs them, as they keep their
  recorded durations (SimMR III-A: a template replays what each task did). The tracker windows those stalls were
  measured from are then not replayed, so which task meets a stall no longer depends on the replay's placement
  (the seed). The recorded lag holds a slot like any launch lag; it neither localises the job nor waits for its
  localisation (the launcher, not the job's files, held it). Windows not explained by a carried stall (a
  calibration written by hand, or one from another run) are replayed as below.
* **Outlier TaskTrackers** keep their stalls (by host name, so the cluster must name the trace's hosts: an
  inferred cluster or a topology does): a task assigned to one inside a stall window starts when the window ends.
* **Two launchers per TaskTracker** (``launchers``): a TaskTracker starts map-slot and reduce-slot attempts from
  two queues served by two threads (``TaskTracker.TaskLauncher``, ``mapLauncher`` / ``reduceLauncher``), and its
  heartbeats go on while a launcher is stuck (the JobTracker keeps handing it tasks while it has free slots). So a
  stall window belongs to one launcher: a reduce handed to a tracker whose map launcher is stuck starts normally,
  and a map (or a setup/cleanup task in a map slot whose own lag in the trace was a stall) waits for the map
  launcher's window to end. Without this part every window stalls every task kind, as before.
* **Speculative backups that won** (``backups``): a task whose successful attempt was a backup launched after its
  original (``JobInProgress.findSpeculativeTask``) could not finish before the backup's start plus its run. The
  template keeps, per such task, the time from the original's start to the backup's; the engine replays the
  original for that long before the successful attempt (through the failed-attempt
  replay, ``mrsim.tracker.features.failures``: the slot time counts as wasted).

Sampling uses the named streams ``calibration-launch`` and ``calibration-report`` of the replay's seed, drawn in
launch (report) order: results are deterministic per seed, and turning one term off leaves the other's draws as
they were. Cost: O(1) per launch (one table look-up and one interpolation).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mrsim.calibration.model import KIND_INDEX, KINDS, Calibration, Distribution
from mrsim.tracker.lag_core import Draws, PlainLaunchLag, ReportLag
from mrsim.rng import stream

if TYPE_CHECKING:
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState, TrackerState

_BATCH = 4096
REUSE_KEYS = ("mapred.job.reuse.jvm.num.tasks", "mapreduce.job.jvm.numtasks")


class CalibrationFeature:
    """Attach with :meth:`attach`; see the module docstring."""

    def __init__(self, calibration: Calibration, seed: int = 0, *, launch_lag: bool = True, report_lag: bool = True,
                 aux_task_time: bool = True, stalls: bool = True, launchers: bool = True,
                 backups: bool = True, localize: bool = True, carry: bool = True) -> None:
        self.calibration = calibration
        self.use_launch = launch_lag and bool(calibration.launch_lag)
        self.use_report = report_lag and bool(calibration.report_lag)
        self.use_aux = aux_task_time
        self.use_stalls = stalls
        self.use_launchers = launchers
        self.use_backups = backups
        self.use_localize = self.use_launch and localize and bool(calibration.cold_launch_lag)
        self.use_carry = stalls and carry and bool(calibration.stalled_tasks)
        # job index -> {(kind, task index): recorded lag} of the stalls its tasks carry (consumed at first launch)
        self._carried: dict[int, dict[tuple[int, int], float]] = {}
        self.carried_stalls = 0  # carried stalls replayed (map and reduce launches)
        self.carried_total = 0  # stalled tasks of the replayed jobs
        # One stream per term, so that switching a term off (ablations) leaves the others' draws unchanged.
        # (batched; compiled with the engine core, mrsim.tracker.lag_core, as the launch and report paths)
        self._launch_draws = Draws(stream(seed, "calibration-launch"), _BATCH)
        self._report_draws = Draws(stream(seed, "calibration-report"), _BATCH)
        none = Distribution.constant(0.0)
        self._launch: list[Distribution] = [calibration.launch_lag.get(k, none) for k in KINDS]
        # A setup/cleanup task without its own law uses the map law (it runs in a map slot's JVM).
        for kind in ("setup", "cleanup"):
            if kind not in calibration.launch_lag and "map" in calibration.launch_lag:
                self._launch[KIND_INDEX[kind]] = calibration.launch_lag["map"]
        self._report: list[Distribution] = [calibration.report_lag.get(k, none) for k in KINDS]
        # Cold / warm laws per kind (localize): a kind without its own law uses the map one, else its plain law.
        self._cold = [_law(calibration.cold_launch_lag, k, self._launch[i]) for i, k in enumerate(KINDS)]
        self._warm = [_law(calibration.warm_launch_lag, k, self._launch[i]) for i, k in enumerate(KINDS)]
        # job index * trackers + tracker index -> when the job's localisation on that tracker ends (replay clock)
        self._localized: dict[int, float] = {}
        self._trackers = 1
        # tracker index -> windows (replay clock) of its map-slot [0] and reduce-slot [1] launcher; without the
        # launchers part both hold every window (the whole tracker stalls).
        self._stalls: dict[int, tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]] = {}
        self._reuse: dict[int, int] = {}  # job index -> reuse (only jobs with reuse != 1)
        self._jvm_count: dict[tuple[int, int, int], int] = {}  # (job, tracker, kind) -> tasks launched there
        # launch lags drawn and their total (s), counted by the compiled sampler whichever path drew them
        self._counter = PlainLaunchLag([list(d.quantiles) for d in self._launch], self._launch_draws)

    @property
    def launches(self) -> int:
        """Launch lags drawn so far (carried stalls included)."""
        return self._counter.launches

    @property
    def lag_s(self) -> float:
        """Their total (s)."""
        return self._counter.lag_s

    def attach(self, jt: "JobTracker") -> None:
        origin = jt.workload.origin_s
        carried = self._carry(jt) if self.use_carry else []
        for state in jt.trackers:
            outlier = self.calibration.outliers.get(state.host)
            if outlier is not None and self.use_stalls:
                sides = ((outlier.windows(False), outlier.windows(True)) if self.use_launchers
                         else (outlier.all_windows(),) * 2)
                mine = [t for t in carried if t.host == state.host]
                # A window measured from stalls the tasks now carry is not replayed again (once, by its tasks).
                kept = tuple(tuple((a - origin, b - origin) for a, b in side
                                   if not any(t.within((a, b)) for t in mine)) for side in sides)
                if any(kept):
                    self._stalls[state.index] = kept  # type: ignore[assignment]
        self._now = lambda: jt.kernel.now
        self._last_task = lambda: jt.last_task
        self._trackers = max(1, len(jt.trackers))
        for job in jt.jobs:
            reuse = _job_reuse(job.template.extra.get("properties"), self.calibration.jvm_reuse)
            if reuse != 1:
                self._reuse[job.index] = reuse
        if self.use_launch:
            if self._carried or self._reuse or self._stalls or self.use_localize:
                jt.register(self, launch_lag=self.launch_lag)
            else:  # nothing per job or tracker: the compiled draw of the kind's law (what _lag would do)
                jt.register(self, launch_lag=self._counter.launch_lag)
        if self.use_report and jt.oob:
            jt.register(self, report_lag=ReportLag([list(d.quantiles) for d in self._report],
                                                   self._report_draws).report_lag)
        if self.use_aux:
            jt.register(self, aux_duration=self.aux_duration)

    def _carry(self, jt: "JobTracker") -> list:
        """Index the stalls the replayed jobs' tasks carry (by job id); the carried records, for the windows."""
        by_job: dict[str, list] = {}
        for t in self.calibration.stalled_tasks:
            by_job.setdefault(t.job, []).append(t)
        used = []
        for job in jt.jobs:
            records = by_job.get(job.template.job_id)
            if not records:
                continue
            self._carried[job.index] = {(KIND_INDEX[t.kind], t.task): t.lag_s for t in records}
            used.extend(records)
        self.carried_total = sum(len(v) for v in self._carried.values())
        return used

    def describe_run(self) -> tuple[str, dict, dict]:
        """``(spec key, spec part, summary part)`` for the replay's JSON (``mrsim.tracker.results``)."""
        c = self.calibration
        spec = {"source": c.source, "heartbeat_source": c.heartbeat_source, "jvm_reuse": c.jvm_reuse,
                "launch_lag": self.use_launch, "report_lag": self.use_report, "setup_cleanup_task_time": self.use_aux,
                "stalls_per_launcher": self.use_launchers, "backup_waits": self.use_backups,
                "job_localization": self.use_localize,
                "carried_stalls": self.carried_total,
                "outlier_trackers": sorted(o.host for o in c.outliers.values()),
                "outlier_trackers_in_cluster": self.outlier_hosts_matched(),
                "mean_launch_lag_s": {k: round(d.mean, 4) for k, d in c.launch_lag.items()}}
        if c.heartbeat_check is not None:  # a given interval tested against the replayed trace (heartbeat_check.py)
            spec["heartbeat_check"] = c.heartbeat_check.to_json()
        if c.hadoop_line is not None:
            spec["hadoop_line"] = c.hadoop_line
        if c.heartbeat_line_check is not None:  # a given interval set aside: another Hadoop line (choice.py)
            spec["heartbeat_line_check"] = dict(c.heartbeat_line_check)
        summary = {"launch_lags": self.launches, "launch_lag_s": round(self.lag_s, 6)}
        return "calibration", spec, summary

    def outlier_hosts_matched(self) -> int:
        return len(self._stalls)

    # ------------------------------------------------------------------------------------------------ hooks

    def launch_lag(self, job: "JobState", tracker: "TrackerState", kind: int) -> float:
        """Seconds the attempt spends starting before it progresses (0 for a warm reused JVM)."""
        return self._lag(job, tracker, kind, kind == 1)

    def stall_wait(self, tracker: "TrackerState", on_reduce: bool) -> float:
        """Seconds until the launcher (map-slot or reduce-slot) of ``tracker`` can start a task handed to it now:
        the rest of the stall window it is in, else 0."""
        stalls = self._stalls.get(tracker.index)
        if stalls is not None:
            now = self._now()
            for a, b in stalls[1 if on_reduce else 0]:
                if a <= now < b:
                    return b - now
        return 0.0

    def _lag(self, job: "JobState", tracker: "TrackerState", kind: int, on_reduce: bool) -> float:
        carried = self._carried.get(job.index)
        if carried is not None and kind < 2:
            # The trace shows this task's attempt stuck in a stalled launcher: it carries its recorded wait (queued
            # in TaskTracker.TaskLauncher, whatever the JVM reuse), once, at its first launch.
            lag = carried.pop((kind, self._last_task()), None)
            if lag is not None:
                self.carried_stalls += 1
                self._counter.launches += 1
                self._counter.lag_s += lag
                return lag
        reuse = self._reuse.get(job.index)
        if reuse is not None:
            key = (job.index, tracker.index, kind)
            n = self._jvm_count.get(key, 0)
            self._jvm_count[key] = n + 1
            if n > 0 and (reuse == -1 or n % reuse != 0):
                return 0.0  # the job's conf says this task runs in a warm, reused JVM
        lag = self.stall_wait(tracker, on_reduce)  # the launcher starts nothing before its stall ends
        if self.use_localize:
            lag = self._localize(job, tracker, kind, lag)
        elif lag <= 0.0:
            lag = self._launch[kind].sample(self._launch_draws.next())
        self._counter.launches += 1
        self._counter.lag_s += lag
        return lag

    def _localize(self, job: "JobState", tracker: "TrackerState", kind: int, stall: float) -> float:
        """The launch lag of a task of ``job`` handed to ``tracker`` now (``TaskTracker.localizeJob``): cold for the
        job's first task there, the rest of that localisation for a task assigned before it ended, else warm;
        ``stall``: the launcher's own wait (a stall window), which the task waits in any case."""
        now = self._now()
        key = job.index * self._trackers + tracker.index
        ready = self._localized.get(key)
        if ready is None:
            lag = stall if stall > 0.0 else self._cold[kind].sample(self._launch_draws.next())
            self._localized[key] = now + lag
            return lag
        if now < ready:
            return max(stall, ready - now)  # blocked on the job's lock until its files are local
        return stall if stall > 0.0 else self._warm[kind].sample(self._launch_draws.next())

    def report_lag(self, tracker: "TrackerState", kind: int) -> float:
        return self._report[kind].sample(self._report_draws.next())

    def aux_duration(self, job: "JobState", tracker: "TrackerState", kind: int, on_reduce: int = 0) -> float | None:
        """SETUP (kind 2) / CLEANUP (kind 3) duration in seconds in a map (``on_reduce`` 0) or reduce slot, or None
        for the engine's default."""
        extra = job.template.extra
        task_time = extra.get("setup_task_s" if kind == 2 else "cleanup_task_s")
        attempt = extra.get("setup_s" if kind == 2 else "cleanup_s")
        threshold = self.calibration.stall_threshold_s
        carried = self._carried.get(job.index)
        if task_time is not None and (
                (carried is not None and (kind, 0) in carried)  # its stall is carried: the task time holds it
                or not (self.use_stalls and threshold is not None and attempt is not None
                        and float(task_time) - float(attempt) > threshold)):
            if self.use_localize and kind == 2 and attempt is not None and not (carried and (2, 0) in carried):
                # The SETUP task is its job's first task: it localises the job on this tracker, within its task time.
                key = job.index * self._trackers + tracker.index
                self._localized.setdefault(key, self._now() + max(0.0, float(task_time) - float(attempt)))
            return float(task_time)
        # No task time, or its lag was a stall (replayed by the stalled tracker's window instead of here).
        if attempt is None:
            return None
        return float(attempt) + (self._lag(job, tracker, kind, bool(on_reduce)) if self.use_launch else 0.0)


def _law(laws: Mapping[str, Distribution], kind: str, plain: Distribution) -> Distribution:
    """``laws[kind]``, else (setup/cleanup) ``laws["map"]``, else the kind's plain launch law."""
    if kind in laws:
        return laws[kind]
    if kind in ("setup", "cleanup") and "map" in laws:
        return laws["map"]
    return plain


def _job_reuse(properties: object, default: int) -> int:
    if isinstance(properties, dict):
        for key in REUSE_KEYS:
            if key in properties:
                try:
                    value = int(str(properties[key]).strip())
                except ValueError:
                    return default
                return value if value == -1 or value >= 1 else 1
    return default
