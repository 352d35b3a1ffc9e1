"""FIFO's job queues and heartbeat walk, compiled with the engine core: the hot path of ``schedulers/fifo.py``.

The FIFO plug-in (``mrsim.schedulers.fifo.FifoScheduler``, Hadoop's ``JobQueueTaskScheduler``) stays a plain Python
class that users read and subclass; its per-heartbeat work (the load cap, padding, the walk of the job queue, one
reduce per heartbeat) is :meth:`FifoCore.assign_tasks` here, compiled by mypyc with the core (at 10,000
nodes a task costs about one heartbeat, and an interpreted walk is 40 % of a streamed replay's CPU). The plug-in
documents the algorithm (``JobQueueTaskScheduler.assignTasks``, ``docs/hadoop-behaviour.md`` §2); this module is
its one implementation. Nothing here is a plug-in API: other plug-ins keep their own queues.

:class:`JobQueue` replaces ``sortedcontainers.SortedKeyList(key=fifo_order)``: a Python list kept sorted by
``(priority, submit, index)`` (``JobQueueJobInProgressListener.FIFO_JOB_QUEUE_COMPARATOR``), searched by bisection
on the jobs' fields (no key tuple per comparison). Jobs arrive in submit order, so an insert is nearly always an
append; a removal moves the pointers after it (a ``memmove``: cheaper than a balanced tree up to tens of thousands
of queued jobs). Cost: O(log n) search, O(n) pointer moves worst case per insert or removal; O(1) ``len``, head and
index.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final, Iterator

from mrsim.tracker.hooks import TaskAssigner
from mrsim.tracker.scheduling import JobChange, Locality
from mrsim.tracker.state import JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: Locality caps of FIFO's two calls, bound once (an enum attribute lookup per call otherwise)
_RACK: Final = Locality.RACK
_NON_LOCAL: Final = Locality.NON_LOCAL
_REDUCES_READY: Final = JobChange.REDUCES_READY
_TASKS_REQUEUED: Final = JobChange.TASKS_REQUEUED


def exceeded_padding(running: int, capacity: int, needed: int, tracker_slots: int, pad: float,
                     padding_enabled: bool, with_reduces: bool) -> bool:
    """``JobQueueTaskScheduler.exceededPadding``: ``running`` tasks of the kind reported by the cluster, its
    ``capacity``, the tasks ``needed`` by running jobs with reduces, the tracker's slots of the kind,
    ``mapred.jobtracker.taskalloc.capacitypad`` (``pad``); False when no running job has reduces."""
    if not with_reduces:
        return False
    padding = min(tracker_slots, int(needed * pad)) if padding_enabled else 0
    return running + padding >= capacity


def _comes_before(job: JobState, priority: int, submit: float, index: int) -> bool:
    """``job`` sorts before the key ``(priority, submit, index)`` (FIFO order; indices are unique)."""
    if job.priority != priority:
        return job.priority < priority
    if job.submit != submit:
        return job.submit < submit
    return job.index < index


class JobQueue:
    """Jobs sorted in FIFO order (priority, submit time, index); see the module docstring for costs.

    Supports what the plug-ins read of a ``SortedKeyList``: ``len``, truth, iteration, indexing (``queue[0]`` is
    the head), ``in``; ``add``, ``remove`` (``ValueError`` when absent) and ``discard``."""

    def __init__(self) -> None:
        self.jobs: list[JobState] = []

    def position(self, job: JobState) -> int:
        """Index of the first queued job that does not sort before ``job`` (``job``'s own index if queued)."""
        jobs = self.jobs
        priority, submit, index = job.priority, job.submit, job.index
        hi = len(jobs)
        if hi == 0 or _comes_before(jobs[hi - 1], priority, submit, index):
            return hi  # the usual case for a new job: it goes last
        lo = 0
        while lo < hi:
            mid = (lo + hi) >> 1
            if _comes_before(jobs[mid], priority, submit, index):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def add(self, job: JobState) -> None:
        self.jobs.insert(self.position(job), job)

    def remove(self, job: JobState) -> None:
        jobs = self.jobs
        i = self.position(job)
        if i >= len(jobs) or jobs[i] is not job:
            raise ValueError(f"{job!r} is not in the queue")
        del jobs[i]

    def discard(self, job: JobState) -> None:
        jobs = self.jobs
        i = self.position(job)
        if i < len(jobs) and jobs[i] is job:
            del jobs[i]

    def drop_map_stage_done(self) -> None:
        """Remove every job whose map stage is over (FIFO keeps such jobs queued for backups under speculation)."""
        jobs = self.jobs
        if any(job.map_stage_done for job in jobs):
            self.jobs = [job for job in jobs if not job.map_stage_done]

    def __contains__(self, job: object) -> bool:
        if not isinstance(job, JobState):
            return False
        jobs = self.jobs
        i = self.position(job)
        return i < len(jobs) and jobs[i] is job

    def __len__(self) -> int:
        return len(self.jobs)

    def __bool__(self) -> bool:
        return len(self.jobs) > 0

    def __iter__(self) -> Iterator[JobState]:
        return iter(list(self.jobs))  # a snapshot: callers may launch (and so dequeue) while iterating

    def __getitem__(self, i: int) -> JobState:
        return self.jobs[i]

    def __repr__(self) -> str:
        return f"JobQueue({[job.job_id for job in self.jobs]!r})"


class FifoCore(TaskAssigner):
    """The FIFO plug-in's state and heartbeat (``JobQueueTaskScheduler``); built by ``FifoScheduler.start``.

    ``admission`` is the plug-in's admission gate (CA-FIFO) or None; ``resume_walk`` its flag (resume the map walk
    at the job that just launched: the same decisions as restarting at the head, ``schedulers/fifo.py``)."""

    def __init__(self, jt: "JobTracker", pad: float, padding_enabled: bool, walk_reduces: bool, resume_walk: bool,
                 admission: Any) -> None:
        self.jt = jt
        self.pad = pad
        self.padding_enabled = padding_enabled
        self.walk_reduces = walk_reduces
        self.resume_walk = resume_walk
        self.admission: Any = admission
        self.map_queue = JobQueue()  # running jobs with unlaunched maps
        self.reduce_queue = JobQueue()  # past slow start, with unlaunched reduces
        self.with_reduces = JobQueue()  # running jobs with numReduceTasks > 0
        self.needed_maps = 0  # sum of desired maps over running jobs with reduces (padding)
        self.needed_reduces = 0

    # --------------------------------------------------------------------------------- listener hooks

    def job_added(self, job: JobState) -> None:
        if job.n_maps:
            self.map_queue.add(job)
        if job.n_reduces:
            self.with_reduces.add(job)
            self.needed_maps += job.n_maps
            self.needed_reduces += job.n_reduces

    def job_updated(self, job: JobState, change: object) -> None:
        if change is _REDUCES_READY and job.reduces_pending:
            self.reduce_queue.add(job)
        elif change is _TASKS_REQUEUED:
            if job.maps_pending and job not in self.map_queue:
                self.map_queue.add(job)
            if job.reduces_ready and job.reduces_pending and job not in self.reduce_queue:
                self.reduce_queue.add(job)

    def job_removed(self, job: JobState) -> None:
        self.map_queue.discard(job)
        self.reduce_queue.discard(job)
        if job.n_reduces:
            self.with_reduces.remove(job)
            self.needed_maps -= job.n_maps
            self.needed_reduces -= job.n_reduces

    # --------------------------------------------------------------------------------- heartbeat

    def exceeded_padding(self, running: int, capacity: int, needed: int, tracker_slots: int) -> bool:
        """:func:`exceeded_padding` with this scheduler's pad and running jobs."""
        return exceeded_padding(running, capacity, needed, tracker_slots, self.pad, self.padding_enabled,
                                len(self.with_reduces.jobs) > 0)

    def assign_tasks(self, tracker: TrackerState) -> int:
        """One heartbeat of ``JobQueueTaskScheduler.assignTasks`` (``schedulers/fifo.py`` describes the rules);
        the number of tasks launched. Cost O(maps launched x log jobs) plus the jobs a walk passes over."""
        jt = self.jt
        assigned = 0
        gate = self.admission
        map_queue = self.map_queue
        slots = tracker.map_slots
        if map_queue.jobs and tracker.running_maps < slots:
            cap = min(math.ceil(jt.remaining_maps / jt.total_map_slots * slots), slots)
            available = cap - tracker.running_maps
            if available > 0 and gate is not None and gate.saturated(tracker):
                pass  # Algorithm 9 line 19: no map is considered on a saturated node
            elif available > 0:
                exceeded = self.exceeded_padding(jt.cluster_status_maps, jt.total_map_slots, self.needed_maps, slots)
                stop = False
                resume: JobState | None = None
                for _ in range(available):
                    launched: JobState | None = None
                    if jt.speculative_maps:  # jobs stay queued for backups until their map stage is over
                        map_queue.drop_map_stage_done()
                    # Hadoop restarts the walk at the head after every launch. The jobs ahead of the one that just
                    # launched failed both calls, and nothing they depend on (their pending maps, this tracker's
                    # hosts and racks) changed; on resource clusters the tracker's free resources only shrank.
                    # So the walk resumes at that job: the same decisions, one pass per heartbeat instead of one
                    # per launch (a backlog of jobs that do not fit would otherwise cost O(launches x backlog)).
                    i = 0 if resume is None else map_queue.position(resume)
                    if gate is not None:
                        gate.new_walk()
                    jobs = map_queue.jobs
                    while i < len(jobs):
                        job = jobs[i]
                        i += 1
                        if gate is not None and not gate.admits(job, tracker, False):
                            continue
                        if jt.obtain_new_map_task(job, tracker, _RACK):
                            launched = job
                            stop = exceeded
                            break
                        if jt.obtain_new_map_task(job, tracker, _NON_LOCAL):
                            launched = job
                            stop = True
                            break
                    if launched is None:
                        break
                    if self.resume_walk:
                        resume = launched
                    assigned += 1
                    if launched.maps_pending == 0 and not jt.speculative_maps:
                        map_queue.remove(launched)
                    if stop or not map_queue.jobs:
                        break
        slots = tracker.reduce_slots
        with_reduces = self.with_reduces.jobs
        if with_reduces and tracker.running_reduces < slots and jt.total_reduce_slots:
            cap = min(math.ceil(jt.remaining_ready_reduces / jt.total_reduce_slots * slots), slots)
            if cap - tracker.running_reduces > 0:
                exceeded = self.exceeded_padding(jt.cluster_status_reduces, jt.total_reduce_slots,
                                                 self.needed_reduces, slots)
                # Hadoop walks every running job with reduces; with padding exceeded only the head is tried.
                # Without speculation the first job that can give a reduce is the head of reduce_queue.
                reduce_queue = self.reduce_queue
                if exceeded:
                    candidates, end = with_reduces, 1
                elif jt.speculative_reduces:
                    candidates, end = with_reduces, len(with_reduces)
                elif self.walk_reduces or gate is not None:  # a gate may skip the head
                    candidates, end = reduce_queue.jobs, len(reduce_queue.jobs)
                else:
                    candidates, end = reduce_queue.jobs, min(1, len(reduce_queue.jobs))
                found: JobState | None = None
                if gate is not None:
                    gate.new_walk()
                for k in range(end):
                    candidate = candidates[k]
                    if gate is not None and not gate.admits(candidate, tracker, True):
                        continue
                    if jt.obtain_new_reduce_task(candidate, tracker):
                        found = candidate
                        break
                if found is not None:
                    assigned += 1
                    if found.reduces_pending == 0 and (not exceeded and not jt.speculative_reduces
                                                       or found in reduce_queue):
                        reduce_queue.remove(found)
                elif exceeded and reduce_queue.jobs:
                    # Blocked by padding only: it lifts when the cluster's reported reduces drop or the job
                    # queue changes; the engine wakes the tracker then (exact w.r.t. polling every heartbeat).
                    jt.park_until_change(tracker)
        if gate is not None and gate.declined:
            gate.declined_at(tracker)
        return assigned
