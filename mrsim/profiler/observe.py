"""One pass over profiled inputs: templates, per-job observations of the real run, and the cluster's slot usage.

Both ``mrsim profile`` and ``mrsim validate`` read their inputs through :class:`Profiler`. For every Rumen
``LoggedJob`` (from any reader in :mod:`mrsim.profiler.detect`) it

* builds the :class:`~mrsim.model.templates.JobTemplate` with :func:`mrsim.profiler.builder.template_from_logged_job`
  (the SimMR rules), renaming a job id repeated *within one input* to ``<id>#2``, ``#3`` ... exactly as
  :func:`~mrsim.profiler.builder.workload_from_logged_jobs` does, so a store equals ``load_workload`` of its input;
* records a :class:`JobObservation`: what the real run did that a template does not carry (time from submit to
  the first task, setup/cleanup tasks, the tail after the last task, wasted failed attempts, peak slots held);
* feeds the attempts to :class:`~mrsim.profiler.topology_infer.SlotUsage` (the cluster's hosts and slots) and
  the job conf to :class:`~mrsim.profiler.trace_conf.TraceConf` (the engine keys the trace recorded).

A job id already taken by an earlier input is skipped (the first one is kept) and counted. SWIM files (no task
logs) and trace stores (already templates) contribute templates only, plus the store's saved observations and
hosts.

Clock domains (``docs/formats.md``): job and task times come from the JobTracker (or MR AM) clock, attempt times
from the TaskTracker clock on 0.20/1.x logs. Observations that are compared with the job's submit and finish
(launch delay, task span, tail, setup, cleanup) therefore use **task** times; attempt times are used only within
one attempt (failed-attempt durations) or one host (peaks, see topology_infer). The identity
``actual completion = launch delay + task span + tail`` holds exactly in the JobTracker clock.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from mrsim.profiler.trace_conf import TraceConf
from mrsim.calibration.background import Background, BackgroundCollector
from mrsim.calibration.extract import CalibrationCollector
from mrsim.calibration.model import Calibration
from mrsim.errors import InputError
from mrsim.profiler.builder import template_from_logged_job
from mrsim.profiler.detect import Format, detect_format, iter_logged_jobs
from mrsim.profiler.topology_infer import HostSlots, SlotUsage, iter_attempt_windows, job_slot_peaks, plain_slot_peaks
from mrsim.model.templates import JobTemplate

if TYPE_CHECKING:
    from mrsim.profiler.plain import PlainJob
    from mrsim.profiler.store import StoredBackground

_MS = 1000.0


@dataclass(frozen=True)
class JobObservation:
    """What the real run of one job did beyond its task durations. Seconds; None when the trace lacks it.

    Attributes:
        peak_maps / peak_reduces: most map / reduce attempts (any result) running at once, across hosts.
        launch_delay_s: first map/reduce task start − submit (job init, setup task, queueing, heartbeats).
        task_span_s: last map/reduce task finish − first map/reduce task start.
        tail_s: job finish − last map/reduce task finish (cleanup task, job commit).
        setup_s / cleanup_s: summed durations of the job's SETUP / CLEANUP tasks (``otherTasks``).
        failed_attempt_s: summed durations of FAILED and KILLED map/reduce attempts (slot time the template drops).
        failed_attempts: their number.
        start_lag_s: mean over successful map/reduce attempts of attempt start − task start: the time between the
            JobTracker (or MR AM) scheduling a task and the task running (JVM or container launch, and on YARN the
            wait for a container). Templates time tasks from the attempt start, so the replay does not see it.
        finish_lag_s: mean of task finish − successful attempt finish (the completion reaching the JobTracker).
            Both lags mix two clocks on 0.20/1.x logs (TaskTracker vs JobTracker) and so include their skew.
    """

    peak_maps: int | None = None
    peak_reduces: int | None = None
    launch_delay_s: float | None = None
    task_span_s: float | None = None
    tail_s: float | None = None
    setup_s: float | None = None
    cleanup_s: float | None = None
    failed_attempt_s: float | None = None
    failed_attempts: int | None = None
    start_lag_s: float | None = None
    finish_lag_s: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        # The fields are flat numbers: getattr, not dataclasses.asdict's recursive deep copy (5x the cost).
        return {k: (None if (v := getattr(self, k)) is None else float(v)) for k in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, values: Mapping[str, float | None]) -> "JobObservation":
        kwargs: dict[str, Any] = {}
        for name in cls.__dataclass_fields__:
            v = values.get(name)
            if v is not None and name in ("peak_maps", "peak_reduces", "failed_attempts"):
                v = int(v)
            kwargs[name] = v
        return cls(**kwargs)


def _ms(value: object) -> int:
    if type(value) is int:  # nearly every value: one test instead of three
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return -1
    return int(value)


def _task_durations(job: Mapping[str, Any], task_type: str) -> float | None:
    total = None
    for task in job.get("otherTasks") or ():
        if task.get("taskType") != task_type:
            continue
        start, finish = _ms(task.get("startTime")), _ms(task.get("finishTime"))
        if start > 0 and finish >= start:
            total = (total or 0.0) + (finish - start) / _MS
    return total


def observe_job(job: Mapping[str, Any], windows: Any = None) -> JobObservation:
    """The :class:`JobObservation` of one ``LoggedJob`` dict (``windows``: its
    :func:`~mrsim.profiler.topology_infer.iter_attempt_windows` as a list, when the caller has them). Cost: linear
    in its attempts."""
    if windows is None:
        windows = list(iter_attempt_windows(job))
    submit = _ms(job.get("submitTime"))
    if submit <= 0:
        submit = _ms(job.get("launchTime"))
    finish = _ms(job.get("finishTime"))
    first_start, last_finish = -1, -1
    start_lags: list[int] = []
    finish_lags: list[int] = []
    for key in ("mapTasks", "reduceTasks"):
        for task in job.get(key) or ():
            start, end = task.get("startTime"), task.get("finishTime")
            if type(start) is not int:  # _ms only for what is not already an int (nearly every value is)
                start = _ms(start)
            if type(end) is not int:
                end = _ms(end)
            if start > 0 and (first_start < 0 or start < first_start):
                first_start = start
            if end > 0 and end > last_finish:
                last_finish = end
            for attempt in task.get("attempts") or ():
                if attempt.get("result") != "SUCCESS":
                    continue
                a_start, a_end = attempt.get("startTime"), attempt.get("finishTime")
                if type(a_start) is not int:
                    a_start = _ms(a_start)
                if type(a_end) is not int:
                    a_end = _ms(a_end)
                if start > 0 and a_start > 0:
                    start_lags.append(a_start - start)
                if end > 0 and a_end > 0:
                    finish_lags.append(end - a_end)
    failed_s, failed_n = 0.0, 0
    for _kind, attempt, start, end in windows:
        if attempt.get("result") in ("FAILED", "KILLED"):
            failed_s += (end - start) / _MS
            failed_n += 1
    peak_maps, peak_reduces = job_slot_peaks(job, windows)
    return JobObservation(
        peak_maps=peak_maps,
        peak_reduces=peak_reduces,
        launch_delay_s=(first_start - submit) / _MS if submit > 0 and first_start > 0 else None,
        task_span_s=(last_finish - first_start) / _MS if first_start > 0 and last_finish >= first_start else None,
        tail_s=(finish - last_finish) / _MS if finish > 0 and last_finish > 0 else None,
        setup_s=_task_durations(job, "SETUP"),
        cleanup_s=_task_durations(job, "CLEANUP"),
        failed_attempt_s=failed_s,
        failed_attempts=failed_n,
        start_lag_s=sum(start_lags) / len(start_lags) / _MS if start_lags else None,
        finish_lag_s=sum(finish_lags) / len(finish_lags) / _MS if finish_lags else None,
    )


def observe_plain(job: Mapping[str, Any], plain: "PlainJob") -> JobObservation:
    """:func:`observe_job` of a plain job (:mod:`mrsim.profiler.plain`), from its columns: every task time and attempt
    time is a positive integer and every attempt succeeded, so the first start and last finish are plain minima and
    maxima, every attempt has both lags, and no attempt failed. The same values (integer sums, then one division)."""
    submit = _ms(job.get("submitTime"))
    if submit <= 0:
        submit = _ms(job.get("launchTime"))
    finish = _ms(job.get("finishTime"))
    first_start, last_finish = min(plain.task_start), max(plain.task_finish)
    n = len(plain.task_start)
    start_lag = sum(plain.attempt_start) - sum(plain.task_start)  # sum of (attempt start - task start): exact ints
    finish_lag = sum(plain.task_finish) - sum(plain.attempt_finish)
    peak_maps, peak_reduces = plain_slot_peaks(plain)
    return JobObservation(
        peak_maps=peak_maps,
        peak_reduces=peak_reduces,
        launch_delay_s=(first_start - submit) / _MS if submit > 0 else None,
        task_span_s=(last_finish - first_start) / _MS if last_finish >= first_start else None,
        tail_s=(finish - last_finish) / _MS if finish > 0 else None,
        setup_s=_task_durations(job, "SETUP"),
        cleanup_s=_task_durations(job, "CLEANUP"),
        failed_attempt_s=0.0,
        failed_attempts=0,
        start_lag_s=start_lag / n / _MS,
        finish_lag_s=finish_lag / n / _MS,
    )


@dataclass
class InputReport:
    """What one input contributed."""

    path: str
    format: str
    jobs_read: int = 0
    jobs_added: int = 0
    duplicates_skipped: int = 0
    jobs_without_work: int = 0
    warnings: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Profiler:
    """Accumulates templates, observations and slot usage over several inputs (see the module docstring)."""

    fmt: Format | None = None
    templates: list[JobTemplate] = field(default_factory=list)
    observations: dict[str, JobObservation] = field(default_factory=dict)
    usage: SlotUsage = field(default_factory=SlotUsage)
    trace_conf: TraceConf = field(default_factory=TraceConf)
    calibration: CalibrationCollector = field(default_factory=CalibrationCollector)
    background: BackgroundCollector = field(default_factory=BackgroundCollector)
    stored_calibration: Calibration | None = None
    stored_backgrounds: list[BackgroundCollector] = field(default_factory=list)
    stored_hosts: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[InputReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cache_use: Any = None  # mrsim.profiler.cache.CacheUse when built by mrsim.profiler.ingest
    _seen: set[str] = field(default_factory=set)
    _seen_without_work: set[str] = field(default_factory=set)

    def exclude(self, job_ids: set[str]) -> None:
        """Treat ``job_ids`` as already taken (e.g. the ids of the store being extended)."""
        self._seen.update(job_ids)

    @property
    def duplicates_skipped(self) -> int:
        return sum(r.duplicates_skipped for r in self.inputs)

    def input_format(self, path: str | os.PathLike[str]) -> str:
        """``store`` for a trace store, else the detected (or forced) :class:`Format` value."""
        from mrsim.profiler.store import is_store

        if is_store(path):
            return "store"
        return (self.fmt or detect_format(path)).value

    def add(self, path: str | os.PathLike[str]) -> InputReport:
        """Read one input completely."""
        for _ in self.logged_jobs(path):
            pass
        return self.inputs[-1]

    def logged_jobs(self, path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
        """Read one input, yielding each new ``LoggedJob`` dict (for a Rumen writer) as it is profiled.

        Stores and SWIM files yield nothing (they hold no ``LoggedJob``), but are profiled all the same.
        """
        p = Path(path)
        kind = self.input_format(p)
        report = InputReport(str(p), kind)
        self.inputs.append(report)
        if kind == "store":
            self._add_store(p, report)
            return
        if kind == Format.SWIM.value:
            self._add_swim(p, report)
            return
        warnings: list[str] = []
        occurrences: dict[str, int] = {}
        try:
            for logged in iter_logged_jobs(p, Format(kind), warnings=warnings):
                report.jobs_read += 1
                template = template_from_logged_job(logged, source=str(p), warnings=warnings)
                if template is None:
                    report.jobs_without_work += 1
                    raw_id = str(logged.get("jobID"))
                    if raw_id not in self._seen_without_work:  # still written to a Rumen trace, once
                        self._seen_without_work.add(raw_id)
                        self.usage.add_job(logged)  # its attempts held slots all the same
                        self.calibration.add_job(logged)
                        self.background.add_job(logged, raw_id)
                        yield logged
                    continue
                count = occurrences.get(template.job_id, 0) + 1
                occurrences[template.job_id] = count
                if count > 1:  # the builder's rule for folded traces (workload_from_logged_jobs)
                    new_id = f"{template.job_id}#{count}"
                    warnings.append(f"job {template.job_id}: duplicate job id; occurrence {count} replayed as {new_id}")
                    template = template.with_changes(job_id=new_id)
                if template.job_id in self._seen:
                    report.duplicates_skipped += 1
                    continue
                self._seen.add(template.job_id)
                self.templates.append(template)
                self.observations[template.job_id] = observe_job(logged)
                self.usage.add_job(logged)
                self.trace_conf.add_job(logged)
                self.calibration.add_job(logged)
                self.background.add_job(logged, template.job_id)
                report.jobs_added += 1
                yield logged
        finally:
            report.warnings = len(warnings)
            self.warnings.extend(warnings)

    def _add_templates(self, templates: list[JobTemplate], report: InputReport,
                       observations: Mapping[str, Mapping[str, float | None]] | None = None) -> None:
        for template in templates:
            report.jobs_read += 1
            if template.job_id in self._seen:
                report.duplicates_skipped += 1
                continue
            self._seen.add(template.job_id)
            self.templates.append(template)
            if observations and template.job_id in observations:
                self.observations[template.job_id] = JobObservation.from_dict(observations[template.job_id])
            report.jobs_added += 1

    def _add_store(self, p: Path, report: InputReport) -> None:
        # One read of the store (manifest, data files and their checksums once: it was five reads), and the
        # background's usage kept as its columns until read (a replay without --background trace never does).
        from mrsim.profiler.column_background import ColumnBackground
        from mrsim.profiler.store import load_store_contents
        from mrsim.io.policy import verify_checksums

        contents = load_store_contents(p, checksums=verify_checksums())  # (--no-verify skips them, as before)
        manifest = contents.manifest
        self._add_templates(list(contents.workload.jobs), report, contents.observations())
        self.stored_hosts.extend(contents.hosts or ())
        self.trace_conf.add_counts({k: dict(v) for k, v in manifest.get("conf_values", {}).items()})
        if manifest.get("calibration_toml"):
            stored = Calibration.from_toml(str(manifest["calibration_toml"]), f"{p} (calibration)")
            self.stored_calibration = stored if self.stored_calibration is None else self.stored_calibration.merged(stored)
        backgrounds = contents.backgrounds()
        self.stored_backgrounds.extend(ColumnBackground.of_stored(b) for b in backgrounds)
        if any(b.approximate for b in backgrounds):
            self.warnings.append(f"{p}: trace store of format 1 (an older mrsim): its background inputs are "
                                 "approximate, so --background trace may differ from the trace's; profile the "
                                 "trace again for an exact one")

    def _add_swim(self, p: Path, report: InputReport) -> None:
        from mrsim.profiler.swim import swim_to_templates

        workload = swim_to_templates(p)
        self._add_templates(list(workload.jobs), report)
        report.warnings = len(workload.warnings)
        self.warnings.extend(workload.warnings)

    def measured_calibration(self, oob_heartbeat: bool | None = None) -> Calibration | None:
        """The calibration of the logs read (None when they recorded no attempt times), else a store's saved one."""
        measured = None
        if self.calibration.attempts:
            sources = ", ".join(r.path for r in self.inputs if r.format != "store")
            measured = self.calibration.result(sources, oob_heartbeat)
        if measured is not None and self.stored_calibration is not None:
            return self.stored_calibration.merged(measured)
        return measured or self.stored_calibration

    def background_inputs(self) -> list["StoredBackground"]:
        """What a trace store made from this profiler keeps: the background inputs of the stores read, then the
        logs' (when a job waited); complete, so the store estimates the same background."""
        out = [c.stored() for c in self.stored_backgrounds]
        if self.background.waits or self.background.reduce_ready:
            out.append(self.background.stored())
        return out

    def measured_background(self, total_map_slots: int, heartbeat_interval_s: float,
                            total_reduce_slots: int = 0) -> Background:
        """Outside work estimated from the logs read (:mod:`mrsim.calibration.background`), else a store's; the
        reduce side only when ``total_reduce_slots`` is given."""
        parts = [c.estimate(total_map_slots, heartbeat_interval_s, total_reduce_slots)
                 for c in (self.background, *self.stored_backgrounds) if c.has_inputs()]
        return Background.combined(parts)

    def hosts(self) -> list[dict[str, Any]] | None:
        """The cluster's hosts inferred from the attempts read, merged with hosts saved in input stores."""
        from mrsim.profiler.store import merge_hosts

        inferred: list[HostSlots] = self.usage.hosts()
        if not inferred and not self.stored_hosts:
            return None
        return merge_hosts(self.stored_hosts or None, [h.as_dict() for h in inferred] or None)


def require_templates(profiler: Profiler, what: str) -> None:
    """InputError when nothing replayable was read (every job failed, or only duplicates)."""
    if not profiler.templates:
        raise InputError(f"{what}: no replayable job (every job failed or was killed before doing any work, "
                         "or every job id was already present)")
