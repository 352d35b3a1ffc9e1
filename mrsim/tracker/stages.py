"""Job-stage transitions of the JobTracker core (``JobInProgress``'s state machine, counters only).

A job arrives (:func:`job_arrived`), becomes RUNNING (:func:`job_running`: the scheduler sees it), passes slow
start (:func:`reduces_ready`: its reduces may launch), ends its map stage (:func:`map_stage_done`: first-wave
reduces learn when their shuffle ends), has every task reported (:func:`tasks_done`: the scheduler forgets it)
and finishes (:func:`finish_job`). Features may hold a job between arrival and RUNNING (``hold_job_start``) and
between its last task and its end (``hold_job_finish``): setup and cleanup tasks.

**Reduce model** (SimMR III-B). A reduce occupies its slot from launch. If it launched before its job's map
stage ended, its shuffle ends ``first_shuffle`` seconds after the job's last map *finished* (not after the
heartbeat that reported it: the profiled first-shuffle is measured from the last map's own finish, so it already
contains the reporting delay; the end is never earlier than the moment the map stage is known to be complete).
Later reduces take ``typical_shuffle`` from launch (``mrsim/tracker/assignment.py``). Then the reduce phase.
Durations are divided by the node's speed factor.

Each transition runs once per job, so none of this is on the per-heartbeat path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.events import EV_TASK_DONE, ORDER_TASK_DONE
from mrsim.tracker.heartbeats import wake_change_waiters
from mrsim.tracker.locality import setup_locality
from mrsim.tracker.scheduling import JobChange
from mrsim.tracker.state import INF, TASK_MASK, JobState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


def job_arrived(jt: "JobTracker", job: JobState, now: float) -> None:
    """A job arrived: materialise it, run the arrival hooks (a federation places its tasks), set up its locality
    caches, run the set-up hooks (the resources feature's requests, which read the placement), then make it
    RUNNING unless a feature holds its start (``hold_job_start``)."""
    job.materialize()
    if jt.on_job_arrival:
        for hook in jt.on_job_arrival:
            hook(job)
    if job.map_dc is None:  # placed in a datacenter: no locality
        setup_locality(jt, job)
    if jt.on_job_setup:
        for setup_hook in jt.on_job_setup:
            setup_hook(job)
    if jt.hold_job_start is None or not jt.hold_job_start(job, now):
        job_running(jt, job, now)


def job_running(jt: "JobTracker", job: JobState, now: float) -> None:
    """The job is RUNNING: the scheduler sees it from now on."""
    index = job.index
    jt.running_jobs[index] = job
    job.last_map_launch = now
    jt.remaining_maps += job.n_maps
    jt.pending_maps += job.maps_pending
    jt.scheduler.job_added(job)
    if jt.change_waiters:
        wake_change_waiters(jt)
    if job.finished_maps >= job.slowstart_threshold and job.n_reduces:
        reduces_ready(jt, job)
    if job.n_maps:
        jt.wake_for_maps()
    if job.n_maps == 0 and job.n_reduces == 0:  # nothing to run (builders reject this; be safe)
        tasks_done(jt, job, now)


def map_stage_done(jt: "JobTracker", job: JobState, now: float) -> None:
    """Release first-wave reduces (SimMR's filler reduce gets its real first-shuffle duration)."""
    job.map_stage_done = True
    base = job.last_map_finish
    trackers = jt.trackers
    kernel = jt.kernel  # a direct (compiled) call, no bound method
    model = jt.finish_model
    for gid in job.waiting_reduces:
        i = gid & TASK_MASK
        tracker = trackers[job.reduce_tracker[i]]
        speed = tracker.speed
        shuffle_end = base + job.next_first_shuffle() / speed
        if shuffle_end < now:
            shuffle_end = now
        if shuffle_end < job.reduce_shuffle_end[i]:  # a launch lag still running (see assignment.launch_reduce)
            shuffle_end = job.reduce_shuffle_end[i]
        finish = shuffle_end + job.reduce_dur[i] / speed
        job.reduce_shuffle_end[i] = shuffle_end
        job.reduce_finish[i] = finish
        if model is None:
            kernel.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
        else:
            model.finish_model(job, tracker, gid)
    job.waiting_reduces = []


def reduces_ready(jt: "JobTracker", job: JobState) -> None:
    """Slow start is met (``finished_maps >= slowstart_threshold``): the job's reduces may launch."""
    job.reduces_ready = True
    jt.remaining_ready_reduces += job.n_reduces - job.finished_reduces
    jt.pending_ready_reduces += job.reduces_pending
    jt.scheduler.job_updated(job, JobChange.REDUCES_READY)
    if jt.change_waiters:
        wake_change_waiters(jt)
    jt.wake_for_reduces()


def tasks_done(jt: "JobTracker", job: JobState, now: float) -> None:
    """Every map and reduce is reported: the scheduler forgets the job; it runs its cleanup task if the trace
    had one (``JobInProgress`` launches it once all TIPs are complete), else it is done."""
    if job.reduces_ready:
        jt.remaining_ready_reduces -= job.n_reduces - job.finished_reduces
        jt.pending_ready_reduces -= job.reduces_pending
    jt.remaining_maps -= job.n_maps - job.finished_maps
    jt.pending_maps -= job.maps_pending
    del jt.running_jobs[job.index]
    jt.scheduler.job_removed(job)
    if jt.change_waiters:
        wake_change_waiters(jt)
    if jt.hold_job_finish is None or not jt.hold_job_finish(job, now):
        finish_job(jt, job, now)


def finish_job(jt: "JobTracker", job: JobState, now: float) -> None:
    """The job is done at ``now``; after the last job the queue is cleared."""
    job.finish_time = now
    jt.jobs_done += 1
    if jt.progress is not None:
        jt.progress(jt.jobs_done)
    for hook in jt.on_job_done:
        hook(job)
    if not jt.keep_task_results:  # ReplayOptions.task_results: tally the maps' final locality, drop the arrays
        job.release_tasks(jt.locality_counts)
    if jt.jobs_done == len(jt.jobs):
        # Only idle heartbeats can remain (naive mode): the replay is over.
        jt.kernel.clear()
        for t in jt.trackers:
            t.next_hb = INF
