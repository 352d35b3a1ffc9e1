"""FIFO: Hadoop 1.x's default ``org.apache.hadoop.mapred.JobQueueTaskScheduler``.

Follows ``JobQueueTaskScheduler.assignTasks`` (identical in 0.20.2, 0.21, 0.22 and 1.2.1) and
``JobQueueJobInProgressListener`` (``docs/hadoop-behaviour.md`` §2):

* Job order: priority (VERY_HIGH first), then start time, then job id (here: the trace's submit order, which
  is (submit time, job id)).
* Per-tracker load cap, spreading work when the cluster is under-loaded:
  ``cap = min(ceil(remaining / cluster_slots * tracker_slots), tracker_slots)`` with ``remaining`` = desired −
  finished tasks over running jobs (reduces only for jobs past slow start); the tracker gets at most
  ``cap − running`` maps in this heartbeat.
* Maps: repeatedly walk the queue from the head; a job's node-or-rack-local map is taken and the walk restarts;
  otherwise its non-local map is taken and **map scheduling ends** (at most one off-switch map per heartbeat).
* Padding (``mapred.jobtracker.taskalloc.capacitypad``, 0.01, only for clusters of more than 3 trackers): if
  cluster running tasks + min(tracker slots, trunc(needed × pad)) ≥ cluster capacity, where needed sums the
  desired tasks of running jobs **that have reduces** (Hadoop's filter, applied to maps too), at most one map is
  given and only the head job with reduces is tried for a reduce.
* Reduces: at most one per heartbeat.

Cost per heartbeat: O(maps assigned × log jobs): the queues of jobs with unlaunched maps and of jobs with
schedulable reduces are kept sorted incrementally, so an idle answer is O(1). The heartbeat itself runs compiled
(``mrsim/tracker/fifo_core.py``, ``FifoCore``: the rules above, the queues as ``JobQueue``); this class keeps the
plug-in interface, its flags and the admission gate, and hands the listener calls and heartbeats to it.
"""

from __future__ import annotations

from typing import Protocol

from mrsim.tracker.fifo_core import FifoCore, JobQueue
from mrsim.tracker.scheduling import JobChange, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState

MIN_CLUSTER_SIZE_FOR_PADDING = 3  # JobQueueTaskScheduler.MIN_CLUSTER_SIZE_FOR_PADDING


class Admission(Protocol):
    """An admission gate on FIFO's walk (see :attr:`FifoScheduler.admission`); CA-FIFO is the one in the tree."""

    declined: bool

    def saturated(self, tracker: TrackerState) -> bool: ...

    def new_walk(self) -> None: ...

    def admits(self, job: JobState, tracker: TrackerState, reduce: bool) -> bool: ...

    def declined_at(self, tracker: TrackerState) -> None: ...


def fifo_order(job: JobState) -> tuple[int, float, int]:
    """``JobQueueJobInProgressListener.FIFO_JOB_QUEUE_COMPARATOR``: priority, start time, job id."""
    return (job.priority, job.submit, job.index)


class FifoScheduler(TaskScheduler):
    """Hadoop's FIFO scheduler, heartbeat by heartbeat."""

    bounded_wakes_exact = True  # nothing launched, nothing changed when no task is pending (tests check)

    name = "fifo"
    summary = "Hadoop 1.x JobQueueTaskScheduler: priority then submit order, load cap, padding, 1 reduce/heartbeat"
    #: resume the map walk at the job that just launched instead of the head (same decisions; tests compare both)
    resume_walk = True
    #: never reads running tasks' predicted finishes: --contention tdam may publish them lazily (docs/tdam.md)
    reads_task_predictions = False
    #: an admission gate composed onto the FIFO walk (CA-FIFO, ``schedulers/cafifo.py``), None for plain FIFO:
    #: ``saturated(tracker)`` skips the map walk, ``admits(job, tracker, reduce)`` skips a job whose next task
    #: would not fit, ``new_walk()`` starts a walk, ``declined`` tells whether the gate refused something
    admission: "Admission | None" = None

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        self.pad = jt.conf.capacity_pad
        self.padding_enabled = len(jt.trackers) > MIN_CLUSTER_SIZE_FOR_PADDING
        # On federations and resource clusters a job's pending reduce may not run on every tracker (wrong
        # datacenter, no room): walk the queue as Hadoop does instead of trying only its head.
        self.walk_reduces = bool(jt.datacenters or jt.resource_names)
        self.core = FifoCore(jt, self.pad, self.padding_enabled, self.walk_reduces, self.resume_walk, self.admission)
        self.map_queue: JobQueue = self.core.map_queue  # running jobs with unlaunched maps
        self.reduce_queue: JobQueue = self.core.reduce_queue  # past slow start, unlaunched reduces
        self.with_reduces: JobQueue = self.core.with_reduces  # running jobs with numReduceTasks > 0
        if jt.scheduler is self and type(self) is FifoScheduler:
            # The engine's plug-in (not one composed in another, e.g. CA-FIFO's, nor a subclass, which may
            # override assign_tasks): the engine calls the compiled heartbeat, no interpreted frame.
            jt.register(self, assign_tasks=self.core)

    @property
    def needed_maps(self) -> int:
        """Sum of desired maps over running jobs with reduces (padding)."""
        return self.core.needed_maps

    @property
    def needed_reduces(self) -> int:
        return self.core.needed_reduces

    def describe(self) -> dict:
        return {"name": self.name, "capacity_pad": self.jt.conf.capacity_pad if hasattr(self, "jt") else None}

    # --------------------------------------------------------------------------------- listener hooks

    def job_added(self, job: JobState) -> None:
        self.core.job_added(job)

    def job_updated(self, job: JobState, change: JobChange) -> None:
        self.core.job_updated(job, change)

    def job_removed(self, job: JobState) -> None:
        self.core.job_removed(job)

    # --------------------------------------------------------------------------------- heartbeat

    def assign_tasks(self, tracker: TrackerState) -> int:
        """One heartbeat (``JobQueueTaskScheduler.assignTasks``): ``FifoCore.assign_tasks``."""
        return self.core.assign_tasks(tracker)
