"""Streamed replays: jobs arrive from an iterator, and a finished job leaves only its row (an engine feature).

:class:`StreamedArrivals` feeds a :class:`mrsim.model.streamed.StreamedWorkload` to the engine one job at a time.
The JobTracker is built with no job; the feature reads the first template at attach and queues its arrival; each
arrival (the ``on_job_arrival`` hook) reads the next one. So exactly one arrival is pending at any time, and only
the jobs that have arrived and not finished (plus the next one) hold a :class:`JobState`, their template and
their per-task arrays. Arrivals are queued with :meth:`mrsim.tracker.kernel.Kernel.schedule_arrival`, which pops
them in the order that queuing every arrival before the run gives, so a streamed replay is event for event the
replay of the same workload held whole (``tests/tracker/test_streaming.py`` compares the ``--json`` objects).

When a job finishes (``on_job_done``) its row (ids, submit, start and finish times, task counts, the trace's
completion time, deadline) goes into :class:`JobRows`, compact typed columns of about 100 bytes per job plus its
id and name strings, and the engine's slot for it (``jt.jobs[index]``, which stale completion events still
index) points at the one shared finished stand-in of :mod:`mrsim.tracker.arrivals`. ``mrsim.tracker.results.collect_result`` reads the job table and the
summary from these columns.

What a streamed replay cannot do (each refused with a one-line error, ``check_streamable``): per-task results
(``--out``, ``--report``), the features that read every job before the run starts (job overheads, failed attempts,
memory-based scheduling: a streamed job whose template carries them is refused, naming it), contention, calibration,
background work, speculation, federations, resource-vector clusters, and the size-based scheduler plug-ins
(``srpt``, ``fsp``, ``las``: they draw size estimates for every job when the run starts).
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Iterator

import numpy as np

from mrsim.tracker.arrivals import add_job, forget_job
from mrsim.tracker.state import JobState
from mrsim.errors import InputError, OptionError
from mrsim.model.streamed import StreamedWorkload
from mrsim.model.templates import JobTemplate

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: ``JobTemplate.extra`` keys of features that read every job before the run (job overheads, failed attempts,
#: memory-based scheduling): a streamed job carrying one is refused rather than replayed without it.
UNSTREAMABLE_EXTRAS = ("launch_delay_s", "setup_s", "cleanup_s", "failed_map_attempts", "failed_reduce_attempts",
                       "backup_map_waits", "backup_reduce_waits", "properties")


class JobRows:
    """Per-job results of a streamed replay, as compact columns in job (submit) order.

    A row is opened when the job is read (``add``) and completed when it finishes (``finish``). Floats are
    ``array('d')`` (8 bytes), counts ``array('q')``; users and queues are interned (a few distinct strings).
    """

    def __init__(self) -> None:
        self.job_id: list[str] = []
        self.name: list[str] = []
        self.user: list[str] = []
        self.queue: list[str] = []
        self.submit = array("d")
        self.start = array("d")
        self.finish = array("d")
        self.actual = array("d")
        self.deadline = array("d")
        self.maps = array("q")
        self.reduces = array("q")
        self._names: dict[str, str] = {}

    def add(self, job: JobState) -> None:
        t = job.template
        intern = self._names.setdefault
        self.job_id.append(job.job_id)
        self.name.append(t.name)
        self.user.append(intern(job.user, job.user))
        self.queue.append(intern(job.queue, job.queue))
        self.submit.append(job.submit)
        self.start.append(-1.0)
        self.finish.append(-1.0)
        self.actual.append(t.actual_completion_s if t.actual_completion_s is not None else np.nan)
        self.deadline.append(job.deadline)
        self.maps.append(job.n_maps)
        self.reduces.append(job.n_reduces)

    def finish_job(self, job: JobState) -> None:
        self.start[job.index] = job.start_time
        self.finish[job.index] = job.finish_time

    def __len__(self) -> int:
        return len(self.job_id)

    def columns(self) -> dict:
        """The job table's columns, with the names and types ``collect_result`` gives a replay held whole."""
        submit = np.frombuffer(self.submit, dtype=np.float64).copy()
        finish = np.frombuffer(self.finish, dtype=np.float64).copy()
        deadline = np.frombuffer(self.deadline, dtype=np.float64)
        return {
            "job_id": self.job_id,
            "name": self.name,
            "user": self.user,
            "queue": self.queue,
            "submit_s": submit,
            "start_s": np.frombuffer(self.start, dtype=np.float64).copy(),
            "finish_s": finish,
            "completion_s": finish - submit,
            "maps": self.maps.tolist(),
            "reduces": self.reduces.tolist(),
            "actual_completion_s": np.frombuffer(self.actual, dtype=np.float64).copy(),
            "deadline_s": np.where(np.isfinite(deadline), deadline, np.nan),
        }

    def deadlines(self) -> np.ndarray:
        """Absolute deadlines (s), ``inf`` where a job has none."""
        return np.frombuffer(self.deadline, dtype=np.float64).copy()


class StreamedArrivals:
    """Feeds a streamed workload to the engine one arrival ahead (see the module docstring)."""

    def __init__(self, workload: StreamedWorkload) -> None:
        self.workload = workload
        self.rows = JobRows()
        self._templates: Iterator[JobTemplate] = iter(())
        self._group: list[JobTemplate] = []  # the rest of the current same-instant group, last job first
        self._lookahead: JobTemplate | None = None
        self._origin = 0.0

    def attach(self, jt: "JobTracker") -> None:
        if jt.jobs:
            raise ValueError("StreamedArrivals needs an engine built with no job (a StreamedWorkload)")
        self.jt = jt
        self._templates = self.workload.stream()
        first = self._next_template()
        if first is None:
            raise InputError(f"{self.workload.source or 'workload'}: no jobs to replay")
        self._origin = first.submit_s
        jt.register(self, on_job_arrival=self._arrived, on_job_done=self._done)
        self._queue(first, pushed_by_run=True)

    # -------------------------------------------------------------------------------------- reading

    def _next_template(self) -> JobTemplate | None:
        """The next job in (submit, job id) order: jobs of one instant are read as a group and sorted by id."""
        if not self._group:
            head = self._lookahead if self._lookahead is not None else next(self._templates, None)
            self._lookahead = None
            if head is None:
                return None
            group = [head]
            for template in self._templates:
                if template.submit_s == head.submit_s:
                    group.append(template)
                    continue
                if template.submit_s < head.submit_s:
                    raise OptionError(f"{self.workload.source}: job {template.job_id} is submitted at "
                                     f"{template.submit_s:g} s, before job {head.job_id} ({head.submit_s:g} s) read "
                                     f"before it: a streamed trace must be in submit order (replay it without "
                                     f"{{stream}} to sort it)")
                self._lookahead = template
                break
            group.sort(key=lambda t: t.job_id, reverse=True)
            self._group = group
        return self._group.pop()

    def _queue(self, template: JobTemplate, pushed_by_run: bool = False) -> None:
        """Make the job's ``JobState`` and queue its arrival (the first job's is queued by ``JobTracker.run``,
        which queues the arrival of every job the engine holds when it starts)."""
        jt = self.jt
        _check_template(template, jt, self.workload.source)
        job = add_job(jt, template, template.submit_s - self._origin, queue=not pushed_by_run, in_job_order=True)
        self.rows.add(job)

    # -------------------------------------------------------------------------------------- hooks

    def _arrived(self, job: JobState) -> None:
        template = self._next_template()
        if template is not None:
            self._queue(template)

    def _done(self, job: JobState) -> None:
        self.rows.finish_job(job)
        forget_job(self.jt, job)  # the JobState, its template and its arrays can go

    # -------------------------------------------------------------------------------------- results

    def job_columns(self) -> dict:
        """The job table (``collect_result`` reads it instead of ``jt.jobs``)."""
        return self.rows.columns()


def _check_template(template: JobTemplate, jt: "JobTracker", source: str) -> None:
    """A streamed job must need nothing that the engine sets up before the run (module docstring)."""
    extra = template.extra
    if extra:
        for key in UNSTREAMABLE_EXTRAS:
            if extra.get(key):
                raise OptionError(f"{source}: job {template.job_id}: its trace records {key!r}, which a streamed "
                                 f"replay cannot replay (replay without {{stream}})")
    if template.n_maps and jt.total_map_slots == 0:
        raise InputError(f"{source}: job {template.job_id} has map tasks but the cluster has no map slots")
    if template.n_reduces and jt.total_reduce_slots == 0:
        raise InputError(f"{source}: job {template.job_id} has reduce tasks but the cluster has no reduce slots")


def check_streamable(options: object, jt: "JobTracker") -> None:
    """Refuse, with one line, what a streamed replay cannot do (module docstring). ``options``: ReplayOptions."""
    reasons = []
    if getattr(options, "task_results", False):
        reasons.append("per-task results (--out, --report)")
    if str(getattr(options, "contention", "none")) != "none":
        reasons.append("--contention")
    calibration = getattr(options, "calibration", None)
    if calibration is not None and not calibration.is_empty():
        reasons.append("a calibration")
    background = getattr(options, "background", None)
    if background is not None and not background.is_empty():
        reasons.append("background work")
    if jt.speculative_maps or jt.speculative_reduces:
        reasons.append("speculative execution")
    if jt.datacenters:
        reasons.append("a federation")
    if jt.resource_names:
        reasons.append("a resource-vector cluster")
    if hasattr(jt.scheduler, "uses_estimates"):  # the size-based plug-ins draw per-job estimates for the whole
        reasons.append(f"the {jt.scheduler.name!r} scheduler (it reads every job at start)")  # workload at start
    if reasons:
        raise OptionError(f"a streamed replay ({{stream}}) does not support {', '.join(reasons)}; replay without "
                         f"{{stream}}")
