"""Stopping running attempts: kills and requeues (helpers of the JobTracker core; ``JobTracker.kill_task`` and
``JobTracker.requeue_task`` are the public entry points plug-ins and features call).

* :func:`kill_task`: a scheduler preempts (the Fair Scheduler's and the size-based schedulers' kills), the newest
  running attempt of a job goes.
* :func:`requeue_task`: the tail every stop shares (a kill, a replayed failed attempt): the slot and resources
  come back, the task is pending again and relaunched first.

The reducer preemption of resource clusters kills through :func:`kill_task` too; it is a feature
(``mrsim/tracker/features/reducer_preemption.py``).

All of it is off the heartbeat path: a replay that kills nothing never calls in here. Cancellation of a killed
attempt's queued completion is by tombstone (its start and finish are reset, so the event no longer matches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.heartbeats import wake_change_waiters
from mrsim.tracker.scheduling import JobChange
from mrsim.tracker.state import JOB_SHIFT, REDUCE_BIT, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


def requeue_task(jt: "JobTracker", tracker: TrackerState, job: JobState, i: int, reduce: bool, wasted: float,
                 result: str = "KILLED") -> None:
    """The tail shared by every path that stops task ``i``'s running attempt on ``tracker`` and puts the task
    back at the front of its job's queue (a kill, a replayed failed attempt): free the slot and the resources,
    count the task pending again (``on_requeue``: in its datacenter too), charge ``wasted`` seconds, tell the scheduler and
    wake the trackers that may now run it. The attempt is recorded in :attr:`JobTracker.lost_attempts` as ``result``.
    Cost O(1) plus the wake-ups."""
    now = jt.kernel.now
    jt.lost_attempts.append((job.index, i, reduce, tracker.index, now - wasted, now, result))
    if reduce:
        tracker.running_reduces -= job.reduce_width
        job.running_reduces -= 1
        job.reduces_pending += 1
        jt.pending_ready_reduces += 1
        job.requeued_reduces.append(i)
        job.reduce_start[i] = job.reduce_finish[i] = job.reduce_shuffle_end[i] = -1.0
        live = job.live_reduces
    else:
        tracker.running_maps -= job.map_width
        job.running_maps -= 1
        job.maps_pending += 1
        jt.pending_maps += 1
        job.requeued_maps.append(i)
        job.map_start[i] = job.map_finish[i] = -1.0
        live = job.live_maps
    if jt.on_requeue:
        for hook in jt.on_requeue:
            hook(job, i, reduce)
    if live is not None:
        live.discard(i)
    if jt.release_resources is not None:
        jt.release_resources(job, tracker, reduce)
    job.wasted_s += wasted
    jt.wasted_s += wasted
    jt.scheduler.job_updated(job, JobChange.TASKS_REQUEUED)
    if jt.change_waiters:
        wake_change_waiters(jt)
    if reduce:
        jt.wake_for_reduces()
    else:
        jt.wake_for_maps()


def kill_task(jt: "JobTracker", job: JobState, reduce: bool) -> float:
    """Kill the job's most recently launched running map (or reduce) and put it back in the job's queue.

    Used for preemption (the Fair Scheduler kills the newest tasks of over-share pools). The slot is free at
    once (Hadoop frees it when the TaskTracker confirms the kill in its next heartbeat; approximation), the
    attempt's slot time so far is counted as wasted, and the task will run again from scratch. Returns the
    wasted seconds, or -1.0 when the job has no running task of that kind. Cost: O(tasks of the job) in the
    worst case (scans from the newest launch backwards); preemption is rare.
    """
    for before in jt.before_kill:
        before()
    now = jt.kernel.now
    starts = job.reduce_start if reduce else job.map_start
    finishes = job.reduce_finish if reduce else job.map_finish
    if reduce:
        top = job.n_reduces if job.reduce_dc is not None else job.next_reduce
    else:
        top = job.n_maps if job.map_launched is not None or job.map_dc is not None else job.next_map
    requeued = job.requeued_reduces if reduce else job.requeued_maps  # skipped: not running
    victim = -1
    newest = -1.0
    for i in range(top - 1, -1, -1):
        start = starts[i]
        if start > newest and start >= 0.0 and (finishes[i] > now or (reduce and finishes[i] < 0.0)):
            if i in requeued:
                continue
            victim, newest = i, start
    if victim < 0:
        return -1.0
    i = victim
    victim_gid = (job.index << JOB_SHIFT) | (REDUCE_BIT if reduce else 0) | i
    tracker_list = job.reduce_tracker if reduce else job.map_tracker
    tracker = jt.trackers[tracker_list[i]]
    for hook in jt.on_kill:
        hook(job, victim_gid, tracker.index)
    wasted = now - starts[i]
    tracker_list[i] = -1
    if reduce and victim_gid in job.waiting_reduces:
        job.waiting_reduces.remove(victim_gid)
    job.killed_tasks += 1
    jt.killed_tasks += 1
    requeue_task(jt, tracker, job, i, reduce, wasted)  # resets start/finish: tombstones the completion event
    jt.wake(tracker)
    return wasted
