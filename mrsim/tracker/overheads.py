"""Work the trace recorded beyond the tasks themselves: job setup/cleanup tasks and failed attempts.

* Setup and cleanup (``JobTracker.getSetupAndCleanupTasks``, ``docs/hadoop-behaviour.md`` §1.1, §1.4): a job
  whose trace has a SETUP task becomes RUNNING only when it finishes; one with a CLEANUP task finishes only after
  it. At a heartbeat, before the scheduler is asked, a free map slot (else a free reduce slot) takes the first
  pending cleanup task, else the first pending setup task, in job-id order; at most one per heartbeat, and the scheduler
  is then not called.
* Failed attempts: a task's logged FAILED/KILLED attempts that ran before its successful one are replayed as
  attempts that hold a slot for their logged duration and then fail; the task goes back to the front of its job's
  queue (``findNewMapTask`` step 1) and its slot time counts as wasted.

A mixin of :class:`mrsim.tracker.jobtracker.JobTracker` (it uses the engine's state and helpers).
"""

from __future__ import annotations

from heapq import heappop

from mrsim.tracker.events import EV_AUX_DONE, ORDER_TASK_DONE
from mrsim.tracker.state import JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState


class RecordedOverheads:
    """Setup/cleanup tasks and replayed failed attempts (see the module docstring)."""

    def _plan_failures(self, job: JobState) -> None:
        extra = job.template.extra
        plan: dict[int, list[float]] = {}
        base = job.index << JOB_SHIFT
        for key, bit in (("failed_map_attempts", 0), ("failed_reduce_attempts", REDUCE_BIT)):
            for index, durations in (extra.get(key) or {}).items():
                i = int(index)
                if durations and i < (job.n_reduces if bit else job.n_maps):
                    plan[base | bit | i] = [float(d) for d in durations]
        if plan:
            job.fail_plan = plan
            job.failing = set()

    def _next_failure(self, job: JobState, gid: int) -> float:
        """Duration (s) of the failed attempt task ``gid`` must replay next, or -1 when its next attempt succeeds."""
        plan = job.fail_plan
        if plan is None:
            return -1.0
        durations = plan.get(gid)
        if not durations:
            if job.failing:
                job.failing.discard(gid)
            return -1.0
        assert job.failing is not None
        job.failing.add(gid)
        return durations.pop(0)

    def _attempt_failed(self, tracker: TrackerState, job: JobState, gid: int, now: float) -> None:
        """A replayed failed attempt was reported: its slot time is wasted and the task goes back to the front of
        the job's queue (``findNewMapTask`` step 1: failed TIPs first)."""
        assert job.failing is not None
        job.failing.discard(gid)
        i = gid & TASK_MASK
        reduce = bool(gid & REDUCE_BIT)
        starts = job.reduce_start if reduce else job.map_start
        wasted = now - starts[i] if starts[i] >= 0.0 else 0.0
        self.failed_attempts_replayed += 1
        self.requeue_task(tracker, job, i, reduce, wasted, "FAILED")  # type: ignore[attr-defined]

    def _assign_setup_or_cleanup(self, tracker: TrackerState, now: float) -> bool:
        """``JobTracker.getSetupAndCleanupTasks``: a free map slot (else a free reduce slot) takes the first job
        cleanup task, else the first job setup task, in job-id order; at most one per heartbeat."""
        queue = self.cleanup_queue or self.setup_queue
        job = self.jobs[queue[0]]
        # Resource clusters: the setup/cleanup task runs in a container of the job's map (reduce) size.
        if tracker.running_maps < tracker.map_slots and (job.map_req is None or self.fits(tracker, job.map_req)):
            on_reduce = 0
        elif tracker.running_reduces < tracker.reduce_slots and (job.reduce_req is None
                                                                  or self.fits(tracker, job.reduce_req)):
            on_reduce = 1
        else:
            return False
        if self.cleanup_queue:
            index, kind, key = heappop(self.cleanup_queue), 1, "cleanup_s"
        else:
            index, kind, key = heappop(self.setup_queue), 0, "setup_s"
        req = job.reduce_req if on_reduce else job.map_req
        if req is not None:
            self.hold(tracker, req)
        if on_reduce:
            tracker.running_reduces += 1
            self.aux_running_reduces += 1
        else:
            tracker.running_maps += 1
            self.aux_running_maps += 1
        duration = self.aux_duration(job, tracker, 2 + kind) if self.aux_duration is not None else None
        if duration is None:
            duration = float(job.template.extra[key])
        finish = now + duration / tracker.speed
        self.kernel.schedule(finish, ORDER_TASK_DONE, EV_AUX_DONE, tracker.index, (index << 2) | (kind << 1) | on_reduce)
        return True

    def _on_aux_done(self, now: float, order: int, tracker_index: int, code: int) -> None:
        self._completed_on(self.trackers[tracker_index], code, now, aux=True)

    def _apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        job = self.jobs[code >> 2]
        if code & 1:
            tracker.running_reduces -= 1
            self.aux_running_reduces -= 1
            req = job.reduce_req
        else:
            tracker.running_maps -= 1
            self.aux_running_maps -= 1
            req = job.map_req
        if req is not None:
            self.release(tracker, req)
        if code & 2:
            self._finish_job(job, now)
        else:
            self._job_running(job, now)
