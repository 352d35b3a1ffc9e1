"""MinEDF: earliest deadline first, each job limited to the fewest slots that meet its deadline (SimMR V-A).

SimMR: "This policy calculates the minimum number of map and reduce slots that need to be allocated for the job
to be completed within the user specified deadline, when the job arrives into the system ... It also keeps
track of the number of running and scheduled map and reduce tasks so that they are always less than the
'wanted' number of slots"; the spare slots are left to the next jobs.

* **Wanted slots**, computed once when the job arrives: :func:`mrsim.model.aria.min_slots_for_deadline` on the
  job's ARIA profile with its relative deadline ``D = deadline − submit`` (s) and the cluster's total slots
  (config ``bound``: ``average`` (default, SimMR's estimate), ``lower`` or ``upper``). If no allocation meets D
  in the model, or the job has no deadline, the job wants every slot it can use (MaxEDF behaviour).
* **Allocation:** as :class:`mrsim.schedulers.maxedf.MaxEdfScheduler` (EDF order, every free slot of the tracker is
  offered), but a job is skipped while ``running maps ≥ wanted maps`` (reduces alike; running counts include
  tasks launched in this heartbeat and reduces waiting for the map stage). Spare slots go to the next jobs in
  EDF order; slots nobody may take stay idle until a job arrives or a quota frees (SimMR's semantics; not
  work-conserving).

**Parked trackers.** A job's quota frees when one of its tasks finishes, which the JobTracker applies in the
heartbeat of the tracker that ran it; that tracker has just got a free slot and is offered work in the same
heartbeat, so no other tracker needs waking. To notice those completions without a hook, the scheduler keeps,
per tracker, the jobs it launched tasks on there and the tracker's running-task count after its last offer;
when the count has dropped, it re-checks those jobs' quotas (and forgets jobs with nothing running). Tests
compare parked with naive heartbeats. Cost per heartbeat: O(1) when no task of the tracker finished since its
last offer, else O(jobs launched there and still running × log jobs); plus O(tasks launched × log jobs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mrsim.tracker.state import JobState, TrackerState
from mrsim.model.aria import Bound, JobProfile, SlotAllocation, completion_model, min_slots_for_deadline
from mrsim.schedulers.maxedf import EdfScheduler


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
        # Per tracker: jobs that launched tasks there and may still run some (by job index), and the tracker's
        # running maps + reduces right after our last offer (a drop means some of its tasks finished).
        self.jobs_on: list[dict[int, JobState]] = [{} for _ in jt.trackers]
        self.running_after: list[int] = [0] * len(jt.trackers)

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

    def launched(self, job: JobState, tracker: TrackerState) -> None:
        self.jobs_on[tracker.index][job.index] = job
        self.refresh_job(job)

    def assign_tasks(self, tracker: TrackerState) -> int:
        index = tracker.index
        if tracker.running_maps + tracker.running_reduces < self.running_after[index]:
            self._recheck_jobs_on(index)
        assigned = super().assign_tasks(tracker) if (self.map_queue or self.reduce_queue) else 0
        self.running_after[index] = tracker.running_maps + tracker.running_reduces
        return assigned

    def _recheck_jobs_on(self, index: int) -> None:
        """Some task on tracker ``index`` finished: re-check the quotas of the jobs that ran there."""
        jobs = self.jobs_on[index]
        for key, job in list(jobs.items()):
            self.refresh_job(job)
            if job.finish_time >= 0.0 or job.running_maps + job.running_reduces == 0:
                del jobs[key]  # nothing of it left running anywhere, so nothing on this tracker either
