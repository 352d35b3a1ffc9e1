"""Job overheads the trace recorded beyond the tasks: launch delays and job setup/cleanup tasks (an engine feature).

* Launch delay: a job whose trace records one (``launch_delay_s``: submit to ``JobInProgress.initTasks``, or the
  MR AM's start) is initialised that long after it arrives.
* Setup and cleanup (``JobTracker.getSetupAndCleanupTasks``, ``docs/hadoop-behaviour.md`` §1.1, §1.4): a job
  whose trace has a SETUP task becomes RUNNING only when it finishes; one with a CLEANUP task finishes only after
  it. At a heartbeat, before the scheduler is asked, a free map slot (else a free reduce slot) takes the first
  pending cleanup task, else the first pending setup task, in job-id order; at most one per heartbeat, and the
  scheduler is then not called.

:class:`JobOverheadsFeature` attaches to the engine's hooks (``hold_job_start``, ``hold_job_finish``,
``assign_first``, ``apply_aux``) and two event kinds of its own; its tasks' slots are counted in
``jt.held_maps`` / ``held_reduces``. ``mrsim.tracker.replay`` attaches it unless ``--no-job-overheads``; it sets
the hooks only when some job of the workload has one of these overheads, so other replays pay nothing. Cost per
setup/cleanup task: O(log jobs) for its queue plus one event.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING

from mrsim.tracker.events import ORDER_JOB_ARRIVAL, ORDER_TASK_DONE
from mrsim.tracker.state import JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: report-lag kinds of setup and cleanup tasks (``JobTracker.report_lag``, ``launch_lag``: 2 setup, 3 cleanup)
SETUP_KIND, CLEANUP_KIND = 2, 3


class JobOverheadsFeature:
    """Launch delays and setup/cleanup tasks (see the module docstring)."""

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        self.setup_queue: list[int] = []  # job indices (job-id order) waiting for a setup task
        self.cleanup_queue: list[int] = []
        extras = [job.template.extra for job in jt.jobs]
        if not any("launch_delay_s" in e or "setup_s" in e or "cleanup_s" in e for e in extras):
            return  # nothing to replay: leave the hooks unset
        self.ev_inited = jt.register_event(self._on_job_inited)
        self.ev_aux_done = jt.register_event(self._on_aux_done)
        jt.register(self, hold_job_start=self._hold_start)
        if any("setup_s" in e or "cleanup_s" in e for e in extras):
            # Only setup/cleanup tasks need a say at heartbeats; launch delays alone leave heartbeats to the
            # scheduler (and so allow bounded wake-ups, mrsim/tracker/wakeups.py).
            jt.register(self, hold_job_finish=self._hold_finish, assign_first=self._assign_setup_or_cleanup,
                        apply_aux=self._apply_aux)

    def _hold_start(self, job: JobState, now: float) -> bool:
        delay = job.template.extra.get("launch_delay_s")
        if delay:
            self.jt.schedule(now + float(delay), ORDER_JOB_ARRIVAL, self.ev_inited, job.index, 0)
            return True
        return self._needs_setup(job)

    def _on_job_inited(self, now: float, order: int, index: int, _b: int) -> None:
        """``JobInProgress.initTasks`` done: the job needs its setup task (if the trace had one), else runs."""
        job = self.jt.jobs[index]
        if not self._needs_setup(job):
            self.jt.job_running(job, now)

    def _needs_setup(self, job: JobState) -> bool:
        if "setup_s" not in job.template.extra:
            return False
        heappush(self.setup_queue, job.index)
        self.jt.wake_all()
        return True

    def _hold_finish(self, job: JobState, now: float) -> bool:
        if "cleanup_s" not in job.template.extra:
            return False
        heappush(self.cleanup_queue, job.index)
        self.jt.wake_all()
        return True

    def _assign_setup_or_cleanup(self, tracker: TrackerState, now: float) -> bool:
        """``JobTracker.getSetupAndCleanupTasks``: a free map slot (else a free reduce slot) takes the first job
        cleanup task, else the first job setup task, in job-id order; at most one per heartbeat."""
        queue = self.cleanup_queue or self.setup_queue
        if not queue:
            return False
        jt = self.jt
        job = jt.jobs[queue[0]]
        # Resource clusters: the setup/cleanup task runs in a container of the job's map (reduce) size.
        if tracker.running_maps < tracker.map_slots and (job.map_req is None or jt.fits(tracker, job.map_req)):
            on_reduce = 0
        elif tracker.running_reduces < tracker.reduce_slots and (job.reduce_req is None
                                                                  or jt.fits(tracker, job.reduce_req)):
            on_reduce = 1
        else:
            return False
        if self.cleanup_queue:
            index, kind, key = heappop(self.cleanup_queue), 1, "cleanup_s"
        else:
            index, kind, key = heappop(self.setup_queue), 0, "setup_s"
        if jt.hold_resources is not None:
            jt.hold_resources(job, tracker, bool(on_reduce))
        if on_reduce:
            tracker.running_reduces += 1
            jt.held_reduces += 1
        else:
            tracker.running_maps += 1
            jt.held_maps += 1
        duration = jt.aux_duration(job, tracker, SETUP_KIND + kind, on_reduce) if jt.aux_duration is not None else None
        if duration is None:
            duration = float(job.template.extra[key])
        finish = now + duration / tracker.speed
        jt.schedule(finish, ORDER_TASK_DONE, self.ev_aux_done, tracker.index, (index << 2) | (kind << 1) | on_reduce)
        return True

    def _on_aux_done(self, now: float, order: int, tracker_index: int, code: int) -> None:
        jt = self.jt
        jt.report_completion(jt.trackers[tracker_index], code, now, SETUP_KIND + ((code >> 1) & 1))

    def _apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        jt = self.jt
        job = jt.jobs[code >> 2]
        jt.release_held(tracker, job, bool(code & 1))
        if code & 2:
            jt.finish_job(job, now)
        else:
            jt.job_running(job, now)
