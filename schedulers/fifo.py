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

Cost per heartbeat: O(maps assigned × log jobs) — the queues of jobs with unlaunched maps and of jobs with
schedulable reduces are kept sorted incrementally (``sortedcontainers``), so an idle answer is O(1).
"""

from __future__ import annotations

import math

from sortedcontainers import SortedKeyList

from typing import Protocol

from mrsim.engine.scheduling import JobChange, Locality, TaskScheduler
from mrsim.engine.state import JobState, TrackerState

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
        self.map_queue: SortedKeyList = SortedKeyList(key=fifo_order)  # running jobs with unlaunched maps
        self.reduce_queue: SortedKeyList = SortedKeyList(key=fifo_order)  # past slow start, unlaunched reduces
        self.with_reduces: SortedKeyList = SortedKeyList(key=fifo_order)  # running jobs with numReduceTasks > 0
        # On federations and resource clusters a job's pending reduce may not run on every tracker (wrong
        # datacenter, no room): walk the queue as Hadoop does instead of trying only its head.
        self.walk_reduces = bool(jt.datacenters or jt.resource_names)
        self.needed_maps = 0  # sum of desired maps over running jobs with reduces (padding)
        self.needed_reduces = 0

    def describe(self) -> dict:
        return {"name": self.name, "capacity_pad": self.jt.conf.capacity_pad if hasattr(self, "jt") else None}

    # --------------------------------------------------------------------------------- listener hooks

    def job_added(self, job: JobState) -> None:
        if job.n_maps:
            self.map_queue.add(job)
        if job.n_reduces:
            self.with_reduces.add(job)
            self.needed_maps += job.n_maps
            self.needed_reduces += job.n_reduces

    def job_updated(self, job: JobState, change: JobChange) -> None:
        if change is JobChange.REDUCES_READY and job.reduces_pending:
            self.reduce_queue.add(job)
        elif change is JobChange.TASKS_REQUEUED:
            if job.maps_pending and job not in self.map_queue:
                self.map_queue.add(job)
            if job.reduces_ready and job.reduces_pending and job not in self.reduce_queue:
                self.reduce_queue.add(job)

    def job_removed(self, job: JobState) -> None:
        if job in self.map_queue:
            self.map_queue.remove(job)
        if job in self.reduce_queue:
            self.reduce_queue.remove(job)
        if job.n_reduces:
            self.with_reduces.remove(job)
            self.needed_maps -= job.n_maps
            self.needed_reduces -= job.n_reduces

    # --------------------------------------------------------------------------------- heartbeat

    def _exceeded_padding(self, running: int, capacity: int, needed: int, tracker_slots: int) -> bool:
        """``JobQueueTaskScheduler.exceededPadding``; False when no running job has reduces."""
        if not self.with_reduces:
            return False
        padding = min(tracker_slots, int(needed * self.pad)) if self.padding_enabled else 0
        return running + padding >= capacity

    def assign_tasks(self, tracker: TrackerState) -> int:
        jt = self.jt
        assigned = 0
        gate = self.admission
        map_queue = self.map_queue
        slots = tracker.map_slots
        if map_queue and tracker.running_maps < slots:
            cap = min(math.ceil(jt.remaining_maps / jt.total_map_slots * slots), slots)
            available = cap - tracker.running_maps
            if available > 0 and gate is not None and gate.saturated(tracker):
                pass  # Algorithm 9 line 19: no map is considered on a saturated node
            elif available > 0:
                exceeded = self._exceeded_padding(jt.cluster_status_maps, jt.total_map_slots, self.needed_maps, slots)
                obtain = jt.obtain_new_map_task
                stop = False
                speculative = jt.speculative_maps
                resume = None
                for _ in range(available):
                    launched = None
                    if speculative:  # jobs stay queued for backups until their map stage is over
                        for job in [j for j in map_queue if j.map_stage_done]:
                            map_queue.remove(job)
                    # Hadoop restarts the walk at the head after every launch. The jobs ahead of the one that just
                    # launched failed both calls, and nothing they depend on (their pending maps, this tracker's
                    # hosts and racks) changed; on resource clusters the tracker's free resources only shrank.
                    # So the walk resumes at that job: the same decisions, one pass per heartbeat instead of one
                    # per launch (a backlog of jobs that do not fit would otherwise cost O(launches x backlog)).
                    walk = map_queue if resume is None else map_queue.irange_key(min_key=resume)
                    if gate is not None:
                        gate.new_walk()
                    for job in walk:
                        if gate is not None and not gate.admits(job, tracker, False):
                            continue
                        if obtain(job, tracker, Locality.RACK):
                            launched = job
                            stop = exceeded
                            break
                        if obtain(job, tracker, Locality.NON_LOCAL):
                            launched = job
                            stop = True
                            break
                    if launched is None:
                        break
                    if self.resume_walk:
                        resume = fifo_order(launched)
                    assigned += 1
                    if launched.maps_pending == 0 and not jt.speculative_maps:
                        map_queue.remove(launched)
                    if stop or not map_queue:
                        break
        slots = tracker.reduce_slots
        if self.with_reduces and tracker.running_reduces < slots and jt.total_reduce_slots:
            cap = min(math.ceil(jt.remaining_ready_reduces / jt.total_reduce_slots * slots), slots)
            if cap - tracker.running_reduces > 0:
                exceeded = self._exceeded_padding(jt.cluster_status_reduces, jt.total_reduce_slots,
                                                  self.needed_reduces, slots)
                # Hadoop walks every running job with reduces; with padding exceeded only the head is tried.
                # Without speculation the first job that can give a reduce is the head of reduce_queue.
                reduce_queue = self.reduce_queue
                if exceeded:
                    candidates = (self.with_reduces[0],)
                elif jt.speculative_reduces:
                    candidates = tuple(self.with_reduces)
                elif self.walk_reduces or gate is not None:  # a gate may skip the head
                    candidates = reduce_queue
                else:
                    candidates = (reduce_queue[0],) if reduce_queue else ()
                job = None
                if gate is not None:
                    gate.new_walk()
                for candidate in candidates:
                    if gate is not None and not gate.admits(candidate, tracker, True):
                        continue
                    if jt.obtain_new_reduce_task(candidate, tracker):
                        job = candidate
                        break
                if job is not None:
                    assigned += 1
                    if job.reduces_pending == 0 and (not exceeded and not jt.speculative_reduces or job in reduce_queue):
                        reduce_queue.remove(job)
                elif exceeded and self.reduce_queue:
                    # Blocked by padding only: it lifts when the cluster's reported reduces drop or the job
                    # queue changes; the engine wakes the tracker then (exact w.r.t. polling every heartbeat).
                    jt.park_until_change(tracker)
        if gate is not None and gate.declined:
            gate.declined_at(tracker)
        return assigned
