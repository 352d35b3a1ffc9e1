"""Speculative execution with Hadoop 1.x's rules (``TaskInProgress.hasSpeculativeTask``).

A running task (TIP) gets one backup attempt on another TaskTracker when all of these hold
(``docs/hadoop-behaviour.md`` §1.6):

* it has exactly one running attempt (``MAX_TASK_EXECS`` = 1: never more than two at once);
* the job's average progress of that task type minus the TIP's progress is at least 0.2 (``SPECULATIVE_GAP``);
* at least 60 s have passed since the TIP was created, i.e. since the job was initialised (``SPECULATIVE_LAG``);
* the asking TaskTracker is not the one running the first attempt.

Progress: a map's is the fraction of its duration elapsed; a reduce's is the elapsed fraction of its
shuffle + reduce time once its finish is known, and (finished maps / maps) / 3 while a first-wave reduce waits
in the copy phase (Hadoop's copy phase is the first third of reduce progress). The job average counts
unstarted TIPs as 0 and finished ones as 1. Among candidates the one with the least progress is chosen (Hadoop
walks its locality caches; documented approximation).

The backup runs the task's full trace duration on its own node (divided by that node's speed; maps are charged
the off-switch slowdown, since speculative maps come from the non-local path). Whichever attempt finishes first
wins; the other is killed at that moment and its slot time so far is counted as wasted. The two outcomes appear
in the summary as ``speculative_attempts``, ``speculative_wins`` and ``wasted_slot_s``.

An engine feature (:class:`SpeculationFeature`, attached by ``mrsim.tracker.replay`` when the Hadoop
configuration turns speculation on for maps or reduces): it offers backups through ``jt.offer_backup``, kills the
backup when the first attempt wins (``jt.on_attempt_end``) or the task is killed (``jt.on_kill``), queues backup
completions as its own event kind, and counts backups' slots in ``jt.held_maps`` / ``held_reduces``.

Cost: finding a candidate scans the job's launched, unreported tasks, O(running tasks of the job); it runs only
when speculation is on and the job has no pending task of that kind. Trackers with a free slot keep their
regular heartbeats while some task might become a candidate (progress moves without events), which is exactly
what the naive mode does and costs heartbeats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.events import ORDER_TASK_DONE
from mrsim.tracker.scheduling import Locality
from mrsim.tracker.state import JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

SPECULATIVE_GAP = 0.2
SPECULATIVE_LAG_S = 60.0


def _progress(job: JobState, i: int, reduce: bool, now: float) -> float:
    if reduce:
        start, finish = job.reduce_start[i], job.reduce_finish[i]
        if finish < 0.0:  # first-wave reduce still copying
            return (job.finished_maps / job.n_maps if job.n_maps else 1.0) / 3.0
    else:
        start, finish = job.map_start[i], job.map_finish[i]
    span = finish - start
    return 1.0 if span <= 0.0 else min(1.0, (now - start) / span)


def find_candidate(jt: "JobTracker", job: JobState, tracker: TrackerState, reduce: bool) -> tuple[int, bool]:
    """``(task index or -1, whether a later heartbeat might find one)`` for a backup attempt on ``tracker``."""
    now = jt.kernel.now
    running = job.running_reduces if reduce else job.running_maps
    if running == 0:
        return -1, False
    if reduce and not job.map_stage_done:
        return -1, True  # backups of reduces only once the map stage is over (shuffle model, documented)
    if now - job.submit < SPECULATIVE_LAG_S:
        return -1, True
    n = job.n_reduces if reduce else job.n_maps
    starts = job.reduce_start if reduce else job.map_start
    finishes = job.reduce_finish if reduce else job.map_finish
    trackers = job.reduce_tracker if reduce else job.map_tracker
    spec = job.spec
    base = (job.index << JOB_SHIFT) | (REDUCE_BIT if reduce else 0)
    done = job.finished_reduces if reduce else job.finished_maps
    total = float(done)
    running_tips: list[tuple[float, int]] = []
    live = job.live_reduces if reduce else job.live_maps
    for i in (sorted(live) if live is not None else range(n)):
        if starts[i] < 0.0:
            continue
        f = finishes[i]
        if 0.0 <= f <= now:
            continue  # finished (maybe not yet reported)
        p = _progress(job, i, reduce, now)
        total += p
        running_tips.append((p, i))
    average = total / n
    best = -1
    best_p = 2.0
    possible_later = False
    failing = job.failing
    placed = job.reduce_dc if reduce else job.map_dc  # federations: a backup runs in the task's datacenter
    for p, i in running_tips:
        if spec is not None and (base | i) in spec:
            continue
        if failing and (base | i) in failing:
            continue  # a replayed failing attempt: its end is a failure, not a result a backup could race
        if placed is not None and placed[i] != tracker.datacenter:
            continue
        possible_later = True
        if trackers[i] == tracker.index:
            continue
        if average - p >= SPECULATIVE_GAP and p < best_p:
            best, best_p = i, p
    return best, possible_later


def launch(jt: "JobTracker", job: JobState, tracker: TrackerState, i: int, reduce: bool, done_kind: int) -> None:
    """Start a backup attempt of task ``i`` on ``tracker`` now; its completion is an event of ``done_kind``."""
    now = jt.kernel.now
    gid = (job.index << JOB_SHIFT) | (REDUCE_BIT if reduce else 0) | i
    speed = tracker.speed
    if reduce:
        # The backup reads the next later-wave duration without taking it (the next launch draws it again).
        taken = (job.first_wave_count, job.typical_count)
        shuffle_end = now + job.next_typical_shuffle() / speed
        job.first_wave_count, job.typical_count = taken
        finish = shuffle_end + job.reduce_dur[i] / speed
        tracker.running_reduces += 1
        jt.held_reduces += 1
    else:
        shuffle_end = -1.0
        finish = now + job.map_dur[i] / speed * jt.off_switch_slowdown
        tracker.running_maps += 1
        jt.held_maps += 1
    if jt.hold_resources is not None:
        jt.hold_resources(job, tracker, reduce)
    if job.spec is None:
        job.spec = {}
    job.spec[gid] = (tracker.index, now, finish, shuffle_end)
    job.spec_running += 1
    jt.spec_attempts += 1
    jt.schedule(finish, ORDER_TASK_DONE, done_kind, tracker.index, gid)


def cancel(jt: "JobTracker", job: JobState, gid: int, now: float) -> None:
    """Kill the backup attempt of ``gid`` (the first attempt won, or the TIP was killed)."""
    assert job.spec is not None
    tracker_index, start, _finish, _shuffle = job.spec.pop(gid)
    tracker = jt.trackers[tracker_index]
    jt.release_held(tracker, job, bool(gid & REDUCE_BIT))
    job.spec_running -= 1
    wasted = now - start
    job.wasted_s += wasted
    jt.wasted_s += wasted
    jt.lost_attempts.append((job.index, gid & TASK_MASK, bool(gid & REDUCE_BIT), tracker_index, start, now, "KILLED"))
    jt.wake(tracker)


def backup_won(jt: "JobTracker", job: JobState, gid: int, now: float) -> TrackerState | None:
    """The backup of ``gid`` finished first: kill the first attempt, make the backup the TIP's attempt.

    Returns the backup's tracker (the completion is then reported by it), or None for a stale event.
    """
    spec = job.spec
    if spec is None or gid not in spec or spec[gid][2] != now:
        return None
    tracker_index, start, _finish, shuffle_end = spec.pop(gid)
    job.spec_running -= 1
    # The backup's slot becomes the task's attempt slot (counted by the job), the first attempt's is freed.
    if gid & REDUCE_BIT:
        jt.held_reduces -= 1
    else:
        jt.held_maps -= 1
    i = gid & TASK_MASK
    reduce = bool(gid & REDUCE_BIT)
    starts = job.reduce_start if reduce else job.map_start
    finishes = job.reduce_finish if reduce else job.map_finish
    trackers = job.reduce_tracker if reduce else job.map_tracker
    first = jt.trackers[trackers[i]]
    wasted = now - starts[i]
    if reduce:
        first.running_reduces -= 1
        job.reduce_shuffle_end[i] = shuffle_end
    else:
        first.running_maps -= 1
    if jt.release_resources is not None:
        jt.release_resources(job, first, reduce)
    job.wasted_s += wasted
    jt.wasted_s += wasted
    jt.lost_attempts.append((job.index, i, reduce, first.index, starts[i], now, "KILLED"))
    jt.spec_wins += 1
    starts[i] = start
    finishes[i] = now  # the first attempt's queued completion is now stale (tombstone)
    trackers[i] = tracker_index
    jt.wake(first)
    return jt.trackers[tracker_index]


class SpeculationFeature:
    """Speculative execution attached to the engine's hooks (see the module docstring)."""

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        self.maps = bool(jt.speculative_maps)
        self.reduces = bool(jt.speculative_reduces)
        self.done_kind = jt.register_event(self._on_backup_done)
        jt.register(self, offer_backup=self.offer_backup, on_job_arrival=self._job_arrived,
                    on_attempt_end=self._attempt_ended, on_kill=self._killed)

    def _job_arrived(self, job: JobState) -> None:
        # Running tasks per job, for find_candidate (the engine keeps them up to date while they exist).
        if self.maps:
            job.live_maps = set()
        if self.reduces:
            job.live_reduces = set()

    def offer_backup(self, job: JobState, tracker: TrackerState, reduce: bool, locality: Locality) -> bool:
        """A backup of one of the job's running tasks on ``tracker`` (maps only from the non-local path: ANY or
        NON_LOCAL requests), if Hadoop's rules pick one; else ask for the next heartbeat while one may qualify."""
        if reduce:
            if not self.reduces:
                return False
        elif not self.maps or not (locality == Locality.ANY or locality == Locality.NON_LOCAL):
            return False
        if (job.reduce_width if reduce else job.map_width) > 1:
            return False  # backups of multi-slot (high-RAM) tasks are not modelled (docs/hadoop-behaviour.md)
        jt = self.jt
        req = job.reduce_req if reduce else job.map_req
        if req is not None and not jt.fits(tracker, req):
            return False
        i, later = find_candidate(jt, job, tracker, reduce)
        if i < 0:
            if later:
                jt.request_heartbeat(tracker)  # progress moves on without events: keep polling
            return False
        launch(jt, job, tracker, i, reduce, self.done_kind)
        return True

    def _attempt_ended(self, job: JobState, gid: int, now: float) -> None:
        if job.spec is not None and gid in job.spec:
            cancel(self.jt, job, gid, now)  # the first attempt won: kill the backup

    def _killed(self, job: JobState, gid: int, _tracker_index: int) -> None:
        if job.spec is not None and gid in job.spec:
            cancel(self.jt, job, gid, self.jt.kernel.now)

    def _on_backup_done(self, now: float, order: int, tracker_index: int, gid: int) -> None:
        jt = self.jt
        tracker = backup_won(jt, jt.jobs[gid >> JOB_SHIFT], gid, now)
        if tracker is not None:
            jt.report_completion(tracker, gid, now)

    def check_invariants(self) -> None:
        """Backups hold exactly the slots counted in ``jt.held_maps`` / ``held_reduces`` (no other feature holds
        slots alongside speculation in the tree today; the engine checks the totals)."""
        for job in self.jt.running_jobs.values():
            if job.spec:
                assert len(job.spec) == job.spec_running, f"{job}: backup count"
