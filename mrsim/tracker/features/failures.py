"""Failed-attempt replay (an engine feature): a task's logged FAILED/KILLED attempts that ran before its successful
one are replayed as attempts that hold a slot for their logged duration and then fail; the task goes back to the
front of its job's queue (``JobInProgress.findNewMapTask`` step 1: failed TIPs first) and its slot time counts as
wasted (``docs/hadoop-behaviour.md``).

:class:`FailedAttemptsFeature` attaches to the hooks ``on_job_arrival`` (plan), ``attempt_length`` (a launched
attempt that will fail runs for its logged duration), ``attempt_failed`` (its report requeues the task) and
``on_kill`` (a killed attempt is not the replayed failure). ``mrsim.tracker.replay`` attaches it unless
``--no-failed-attempts``; it sets the hooks only when some job logged failed attempts. Cost: O(1) per launch and
per completion of a job with failures; one dict look-up per launch of other jobs in such a replay.

With ``backup_waits`` (the calibration's part ``backups``, ``docs/calibration.md``), a task whose successful
attempt was a speculative backup also replays its original, for the time from the original's start to the
backup's (``extra["backup_map_waits"]`` / ``extra["backup_reduce_waits"]``), the same way as a failed attempt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.state import JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

_KEYS = (("failed_map_attempts", 0), ("failed_reduce_attempts", REDUCE_BIT))
_BACKUP_KEYS = (("backup_map_waits", 0), ("backup_reduce_waits", REDUCE_BIT))


class FailedAttemptsFeature:
    """Replays the trace's failed attempts (see the module docstring).

    Args:
        failed_attempts: replay the logged FAILED/KILLED attempts (off with ``--no-failed-attempts``).
        backup_waits: replay the originals of speculative backups that won, until the backup's start.
    """

    def __init__(self, failed_attempts: bool = True, backup_waits: bool = False) -> None:
        self.keys = (_KEYS if failed_attempts else ()) + (_BACKUP_KEYS if backup_waits else ())

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        if not any(job.template.extra.get(key) for job in jt.jobs for key, _ in self.keys):
            return  # nothing to replay: leave the hooks unset
        jt.register(self, on_job_arrival=self._plan, attempt_length=self._attempt_length,
                    attempt_failed=self._attempt_failed, on_kill=self._killed)

    def _plan(self, job: JobState) -> None:
        extra = job.template.extra
        plan: dict[int, list[float]] = {}
        base = job.index << JOB_SHIFT
        for key, bit in self.keys:
            for index, value in (extra.get(key) or {}).items():
                i = int(index)
                if i >= (job.n_reduces if bit else job.n_maps):
                    continue
                if isinstance(value, list):  # failed attempts: their logged durations, in order
                    if value:
                        plan.setdefault(base | bit | i, []).extend(float(d) for d in value)
                elif value > 0:  # a backup's wait: the original runs until the backup starts, after any failures
                    plan.setdefault(base | bit | i, []).append(float(value))
        if plan:
            job.fail_plan = plan
            job.failing = set()

    def _attempt_length(self, job: JobState, gid: int) -> float:
        """Duration (s) of the failed attempt task ``gid`` replays now, or -1 when this attempt succeeds."""
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

    def _attempt_failed(self, tracker: TrackerState, job: JobState, gid: int, now: float) -> bool:
        """A reported attempt: if it was a replayed failure, its slot time is wasted and the task goes back to the
        front of the job's queue (``findNewMapTask`` step 1: failed TIPs first)."""
        if not job.failing or gid not in job.failing:
            return False
        job.failing.discard(gid)
        i = gid & TASK_MASK
        reduce = bool(gid & REDUCE_BIT)
        starts = job.reduce_start if reduce else job.map_start
        wasted = now - starts[i] if starts[i] >= 0.0 else 0.0
        self.jt.failed_attempts_replayed += 1
        self.jt.requeue_task(tracker, job, i, reduce, wasted, "FAILED")
        return True

    def _killed(self, job: JobState, gid: int, _tracker_index: int) -> None:
        if job.failing:
            job.failing.discard(gid)  # a killed attempt does not count as the replayed failure
