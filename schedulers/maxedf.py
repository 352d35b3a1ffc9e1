"""MaxEDF: earliest deadline first, each job takes every free slot it can use (SimMR sections III-C and V-A).

SimMR: "Similar to FIFO, this policy finds the job with the earliest deadline which has an unscheduled map (or
reduce) task"; "apart from the EDF job ordering, the resource allocation per job is the same as under the FIFO
policy". On mrsim's heartbeat engine that reads as follows (choices documented in ``docs/deadline-scheduling.md``):

* **Job order:** absolute deadline (``JobState.deadline``, replay clock, s), earliest first; ties by submit order
  (``JobState.index``). A job without a deadline has ``deadline = inf`` and so runs after every deadlined job,
  in submit order among themselves. Hadoop job priorities are ignored (SimMR's policies have none).
* **Allocation:** on a heartbeat every free map slot of the tracker gets a map of the first job in that order
  with an unlaunched map, and every free reduce slot a reduce of the first job past slow start with an
  unlaunched reduce. This is SimMR's narrow interface (one ``choose_next_*_task`` per free slot). Hadoop's FIFO
  per-heartbeat details (load cap, capacity padding, one reduce per heartbeat, one off-switch map) are *not*
  applied: SimMR's FIFO and EDF policies have none of them, and they would only add heartbeat latency.
* **Locality:** no preference between jobs; within the chosen job the engine hands out a node-local, then
  rack-local, then any map (``Locality.ANY``). No delay scheduling.
* **No preemption:** a running task keeps its slot when a more urgent job arrives (SimMR V-B's "bump").
* **No speculative attempts:** a job leaves the queue when it has no task waiting, so these schedulers never ask
  for backup attempts even when speculation is configured (SimMR ran with speculation disabled).

:class:`EdfScheduler` is the shared machinery; :class:`mrsim.schedulers.minedf.MinEdfScheduler` adds per-job slot
quotas. Cost per heartbeat: O(1) when nothing can run, O(tasks launched × log jobs) otherwise (sorted queues of
runnable jobs kept incrementally with ``sortedcontainers``).
"""

from __future__ import annotations

from sortedcontainers import SortedKeyList

from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState


def edf_order(job: JobState) -> tuple[float, int]:
    """EDF sort key: absolute deadline (inf when none), then submit order."""
    return (job.deadline, job.index)


class EdfScheduler(TaskScheduler):
    """EDF queues of runnable jobs; subclasses restrict which jobs are runnable through :meth:`may_run_map`
    and :meth:`may_run_reduce` and re-check a job with :meth:`refresh_job` when its counts change."""

    name = "edf"

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        self.map_queue: SortedKeyList = SortedKeyList(key=edf_order)  # jobs that may launch a map now
        self.reduce_queue: SortedKeyList = SortedKeyList(key=edf_order)  # jobs that may launch a reduce now
        self.in_map_queue: set[int] = set()  # job indices, for O(1) membership tests
        self.in_reduce_queue: set[int] = set()

    # --------------------------------------------------------------------------------- eligibility

    def may_run_map(self, job: JobState) -> bool:
        return job.maps_pending > 0

    def may_run_reduce(self, job: JobState) -> bool:
        return job.reduces_ready and job.reduces_pending > 0

    def refresh_job(self, job: JobState) -> None:
        """Put ``job`` into (or take it out of) the queues according to its current counts. O(log jobs)."""
        index = job.index
        alive = job.finish_time < 0.0
        ok = alive and self.may_run_map(job)
        if ok != (index in self.in_map_queue):
            if ok:
                self.map_queue.add(job)
                self.in_map_queue.add(index)
            else:
                self.map_queue.remove(job)
                self.in_map_queue.discard(index)
        ok = alive and self.may_run_reduce(job)
        if ok != (index in self.in_reduce_queue):
            if ok:
                self.reduce_queue.add(job)
                self.in_reduce_queue.add(index)
            else:
                self.reduce_queue.remove(job)
                self.in_reduce_queue.discard(index)

    # --------------------------------------------------------------------------------- listener hooks

    def job_added(self, job: JobState) -> None:
        self.refresh_job(job)

    def job_updated(self, job: JobState, change: JobChange) -> None:
        self.refresh_job(job)  # slow start met, or killed tasks back in the queue

    def job_removed(self, job: JobState) -> None:
        self.refresh_job(job)  # finished: leaves both queues

    # --------------------------------------------------------------------------------- heartbeat

    def launched(self, job: JobState, tracker: TrackerState) -> None:
        """Hook after each launch on ``tracker``; the base class only re-checks the job."""
        self.refresh_job(job)

    def assign_tasks(self, tracker: TrackerState) -> int:
        jt = self.jt
        assigned = 0
        queue = self.map_queue
        free = tracker.map_slots - tracker.running_maps
        while free > 0 and queue:
            # The most urgent job whose map can run here: on one-site slot clusters that is always the head;
            # on federations and resource clusters a job may have nothing placed or fitting on this tracker.
            for job in queue:
                if jt.obtain_new_map_task(job, tracker, Locality.ANY):
                    break
            else:
                break
            assigned += 1
            free -= 1
            self.launched(job, tracker)
        queue = self.reduce_queue
        free = tracker.reduce_slots - tracker.running_reduces
        while free > 0 and queue:
            for job in queue:
                if jt.obtain_new_reduce_task(job, tracker):
                    break
            else:
                break
            assigned += 1
            free -= 1
            self.launched(job, tracker)
        return assigned


class MaxEdfScheduler(EdfScheduler):
    """SimMR's MaxEDF: EDF order, each job as many slots as are free (see the module docstring)."""

    name = "maxedf"
    summary = "SimMR MaxEDF: earliest deadline first, every free slot to the most urgent job (no preemption)"
