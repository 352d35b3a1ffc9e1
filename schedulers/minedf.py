"""MinEDF: earliest deadline first, each job limited to the fewest slots that meet its deadline (SimMR V-A).

SimMR: "This policy calculates the minimum number of map and reduce slots that need to be allocated for the job
to be completed within the user specified deadline, when the job arrives into the system ... It also keeps
track of the number of running and scheduled map and reduce tasks so that they are always less than the
'wanted' number of slots"; the spare slots are left to the next jobs.

* **Wanted slots**, computed once when the job arrives: :func:`mrsim.models.aria.min_slots_for_deadline` on the
  job's ARIA profile with its relative deadline ``D = deadline − submit`` (s) and the cluster's total slots
  (config ``bound``: ``average`` (default, SimMR's estimate), ``lower`` or ``upper``). If no allocation meets D
  in the model, or the job has no deadline, the job wants every slot it can use (MaxEDF behaviour).
* **Allocation:** as :class:`schedulers.maxedf.MaxEdfScheduler` (EDF order, every free slot of the tracker is
  offered), but a job is skipped while ``running maps ≥ wanted maps`` (reduces alike; running counts include
  tasks launched in this heartbeat and reduces waiting for the map stage). Spare slots go to the next jobs in
  EDF order; slots nobody may take stay idle until a job arrives or a quota frees (SimMR's semantics; not
  work-conserving).

**Parked trackers.** A job's quota frees when one of its tasks finishes, which the JobTracker applies in the
heartbeat of the tracker that ran it; that tracker has just got a free slot and is offered work in the same
heartbeat, so no other tracker needs waking. To notice those completions without a hook, the scheduler keeps per
tracker the tasks it launched there and, on that tracker's heartbeat, re-checks the jobs whose tasks are gone.
Tests compare parked with naive heartbeats. Cost per heartbeat: O(1) when none of the tracker's tasks has
finished since its last offer, else O(tasks launched on the tracker); plus O(tasks launched × log jobs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mrsim.models.aria import Bound, JobProfile, SlotAllocation, completion_model, min_slots_for_deadline
from mrsim.tracker.state import JobState, TrackerState
from schedulers.maxedf import EdfScheduler


@dataclass
class Wanted:
    """MinEDF's per-job quota (kept in ``JobState.sched``)."""

    maps: int
    reduces: int
    allocation: SlotAllocation | None  # None when the job has no deadline


class MinEdfScheduler(EdfScheduler):
    """SimMR's MinEDF (see the module docstring). Config: ``{"bound": "average" | "lower" | "upper"}``."""

    name = "minedf"
    summary = "SimMR MinEDF: earliest deadline first, each job capped at the ARIA-model minimum slots for its deadline"

    def __init__(self, config: dict | None = None) -> None:
        super().__init__(config)
        self.bound = Bound.parse(self.config.get("bound", Bound.AVERAGE))

    def describe(self) -> dict:
        return {"name": self.name, "bound": self.bound.value}

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        # Per tracker: (job, is_reduce, task index, launch time) of tasks launched there and not yet seen gone.
        self.on_tracker: list[list[tuple[JobState, bool, int, float]]] = [[] for _ in jt.trackers]

    # --------------------------------------------------------------------------------- quota

    def wanted_for(self, job: JobState) -> Wanted:
        """Compute the job's wanted slots from its template and relative deadline. O(tasks of the job)."""
        jt = self.jt
        if not math.isfinite(job.deadline):
            return Wanted(jt.total_map_slots, jt.total_reduce_slots, None)
        model = completion_model(JobProfile.from_template(job.template), self.bound)
        alloc = min_slots_for_deadline(model, job.deadline - job.submit, jt.total_map_slots, jt.total_reduce_slots)
        return Wanted(alloc.map_slots, alloc.reduce_slots, alloc)

    def wanted(self, job: JobState) -> Wanted:
        """The quota of a job that has arrived."""
        return job.sched  # type: ignore[return-value]

    def may_run_map(self, job: JobState) -> bool:
        return job.maps_pending > 0 and job.running_maps < job.sched.maps  # type: ignore[union-attr]

    def may_run_reduce(self, job: JobState) -> bool:
        return job.reduces_ready and job.reduces_pending > 0 and job.running_reduces < job.sched.reduces  # type: ignore[union-attr]

    # --------------------------------------------------------------------------------- hooks

    def job_added(self, job: JobState) -> None:
        job.sched = self.wanted_for(job)
        self.refresh_job(job)

    def launched(self, job: JobState, tracker: TrackerState, reduce: bool, task: int) -> None:
        self.on_tracker[tracker.index].append((job, reduce, task, self.jt.now))
        self.refresh_job(job)

    def assign_tasks(self, tracker: TrackerState) -> int:
        entries = self.on_tracker[tracker.index]
        # Every task on a tracker was launched by us, so equal counts mean none of them has gone: O(1) check.
        if len(entries) != tracker.running_maps + tracker.running_reduces:
            self._forget_finished(tracker, entries)
        if not (self.map_queue or self.reduce_queue):
            return 0
        return super().assign_tasks(tracker)

    def _forget_finished(self, tracker: TrackerState, entries: list[tuple[JobState, bool, int, float]]) -> None:
        """Drop tasks that finished (or were killed) on ``tracker``; re-check their jobs' quotas. O(len(entries))."""
        now = self.jt.now
        keep = []
        touched: dict[int, JobState] = {}
        for entry in entries:
            job, reduce, i, start = entry
            if reduce:
                # A reduce waiting for its map stage has finish -1: still running.
                gone = job.reduce_start[i] != start or 0.0 <= job.reduce_finish[i] <= now
            else:
                gone = job.map_start[i] != start or job.map_finish[i] <= now
            if gone:
                touched[job.index] = job
            else:
                keep.append(entry)
        if touched:
            entries[:] = keep
            for job in touched.values():
                self.refresh_job(job)
