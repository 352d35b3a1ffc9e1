"""Open job streams: jobs added to a JobTracker while it runs, and finished jobs forgotten.

A replay normally knows its whole workload up front (``JobTracker.jobs``, built from the trace). Two users add
each job only when its arrival is scheduled (:func:`add_job`) and drop it once it is done (:func:`forget_job`),
so memory grows with the jobs in flight, not with the run: a study whose jobs come from an unbounded random source
(LoTES: millions of jobs over a 200-hour horizon, ``mrsim/studies/lotes/engine.py``) and streamed replays, whose
jobs are read from a file or generator one arrival ahead (``mrsim/tracker/features/streaming.py``).

Rules the engine relies on (why these are the only two calls):

* a job's index is its position in ``jt.jobs`` and the high bits of its tasks' gids, so jobs are appended, never
  removed: a finished job's entry is replaced by one shared placeholder (:data:`DONE`), 8 bytes per job;
* the engine ends a replay when every job in ``jt.jobs`` is done (``stages.finish_job`` clears the kernel), so a
  stream adds the next job when it schedules that job's arrival, before the current one can finish;
* ``JobTracker.run`` schedules the arrivals of the jobs ``jt.jobs`` holds when it starts; :func:`add_job` is for
  jobs added while it runs (from an event handler or hook), and schedules its job's arrival itself;
* ``order`` places the arrival among the events of its instant (``mrsim/tracker/events.py``): a study that needs
  arrivals after the completions and heartbeats of the same instant passes a larger value than the default.

Cost O(1) per call plus the ``JobState`` itself (a template may be shared by many jobs: the engine reads its
durations once, at arrival, into the job's own arrays).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mrsim.tracker.events import EV_JOB_ARRIVAL, ORDER_JOB_ARRIVAL
from mrsim.tracker.state import JobState
from mrsim.model.templates import JobTemplate

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

def _forgotten_job() -> JobState:
    """The one ``JobState`` that forgotten jobs' entries point at: done (``finish_time`` 0) and without tasks, so a
    stale completion event that still indexes the entry (a killed attempt's, a backup's) is ignored by
    ``JobTracker._on_task_done``."""
    empty = np.empty(0)
    job = JobState(-1, JobTemplate("(finished job)", 0.0, empty, empty), 0.0, 1.0)
    job.finish_time = 0.0
    return job


#: What a forgotten job's entry in ``jt.jobs`` becomes (one shared object, read only by stale completion events).
DONE = _forgotten_job()


def add_job(jt: "JobTracker", template: JobTemplate, submit: float, order: int = ORDER_JOB_ARRIVAL,
            slowstart: float | None = None, *, queue: bool = True, in_job_order: bool = False) -> JobState:
    """Append a job arriving at ``submit`` (on the replay clock, not before ``jt.now``) and schedule its arrival
    at ``(submit, order)``. ``slowstart``: the fraction of maps after which its reduces may launch (default: the
    engine's Hadoop configuration). ``queue=False``: the job is added before ``JobTracker.run`` starts, which
    queues it with the others. ``in_job_order``: the arrival pops before every other event of its ``(time,
    order)`` and after the arrivals of lower job indices, whenever it is pushed
    (:meth:`mrsim.tracker.kernel.Kernel.schedule_arrival`): a stream read one arrival ahead then replays event for
    event like the same jobs held whole; without it, the arrival takes its place among the instant's events in
    push order (what LoTES's job source needs). Returns the job's state. O(log n) for the push.
    """
    fraction = jt.conf.slowstart_completed_maps if slowstart is None else slowstart
    job = JobState(len(jt.jobs), template, submit, fraction)
    jt.jobs.append(job)
    if queue:
        if in_job_order:
            jt.kernel.schedule_arrival(submit, order, EV_JOB_ARRIVAL, job.index)
        else:
            jt.schedule(submit, order, EV_JOB_ARRIVAL, job.index, 0)
    return job


def hold_open(jt: "JobTracker") -> None:
    """Keep the run going after every job added so far is done (a stream that has run dry, whose study still has
    events to come, e.g. samples until its horizon): the stand-in :data:`DONE`, which no job completion ever
    counts, is appended, so the engine never sees all its jobs done and runs until the kernel has no event left. O(1)."""
    jt.jobs.append(DONE)


def forget_job(jt: "JobTracker", job: JobState) -> None:
    """Drop a finished job (call from an ``on_job_done`` hook): its entry becomes :data:`DONE` and the job's
    objects are freed once the caller lets go of them. The engine's done count still includes it. O(1)."""
    jt.jobs[job.index] = DONE
