"""Live running-task counts for schedulers that keep incremental orderings (Fair, Capacity).

Hadoop's Fair and Capacity schedulers read each job's running maps/reduces live. The mrsim engine updates
``JobState.running_maps`` when a heartbeat applies a completion but calls no scheduler hook then, so a scheduler
that keys sorted structures by running counts must notice the change itself. :class:`LiveCounts` does that in
O(jobs with tasks on the tracker) per heartbeat instead of O(all jobs):

* each job's counts are mirrored (``seen_maps``, ``seen_reduces``) in the scheduler's per-job object;
* launches and kills are reported by the scheduler (``sync``); completions are found at the start of
  ``assign_tasks(tracker)`` by re-reading only the jobs that launched tasks on that tracker: in heartbeat mode a
  completion is applied in its own tracker's heartbeat, just before that tracker's ``assign_tasks``;
* a global check (``JobTracker.tasks_done`` against the completions accounted for) catches anything else
  (task-completion-driven mode, other engines) with one full pass.

Kept here, next to the configuration types, because both schedulers share it; a ``task_finished`` hook in
``mrsim.tracker.scheduling.TaskScheduler`` would make it unnecessary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState, TrackerState


class JobMirror:
    """Base of a scheduler's per-job object (stored in ``JobState.sched``): the counts last seen."""

    __slots__ = ("job", "seen_maps", "seen_reduces", "seen_fin_maps", "seen_fin_reduces", "removed")

    def __init__(self, job: "JobState") -> None:
        self.job = job
        self.seen_maps = 0
        self.seen_reduces = 0
        self.seen_fin_maps = 0
        self.seen_fin_reduces = 0
        self.removed = False


#: ``on_change(mirror, d_running_maps, d_running_reduces, d_finished_maps, d_finished_reduces)``
ChangeHandler = Callable[[JobMirror, int, int, int, int], None]


class LiveCounts:
    """Tells the scheduler (``on_change``) whenever a job's running or finished counts moved."""

    def __init__(self, jt: "JobTracker", on_change: ChangeHandler) -> None:
        self.jt = jt
        self.on_change = on_change
        # per tracker: job -> tasks launched there and not yet seen to finish (or be killed); and their sum
        self.by_tracker: list[dict[JobMirror, int]] = [{} for _ in jt.trackers]
        self.on_tracker = [0] * len(jt.trackers)
        self.jobs: dict[int, JobMirror] = {}
        self.accounted = jt.tasks_done  # completions reflected in the mirrors
        self.full_passes = 0

    def add(self, m: JobMirror) -> None:
        self.jobs[m.job.index] = m
        job = m.job
        m.seen_maps, m.seen_reduces = job.running_maps, job.running_reduces
        m.seen_fin_maps, m.seen_fin_reduces = job.finished_maps, job.finished_reduces
        self.accounted += job.finished_maps + job.finished_reduces

    def remove(self, m: JobMirror) -> None:
        self.sync(m)
        m.removed = True
        del self.jobs[m.job.index]

    def launched(self, m: JobMirror, tracker: "TrackerState") -> None:
        """A task of ``m`` was launched on ``tracker`` by the scheduler."""
        jobs = self.by_tracker[tracker.index]
        jobs[m] = jobs.get(m, 0) + 1
        self.on_tracker[tracker.index] += 1
        self.sync(m)

    def killed(self, m: JobMirror, tracker_index: int) -> None:
        """A task of ``m`` on tracker ``tracker_index`` is about to be killed (keeps the per-tracker counts exact)."""
        jobs = self.by_tracker[tracker_index]
        n = jobs.get(m, 0)
        if n:
            if n == 1:
                del jobs[m]
            else:
                jobs[m] = n - 1
            self.on_tracker[tracker_index] -= 1

    def sync(self, m: JobMirror) -> None:
        """Re-read one job's counts; O(1)."""
        job = m.job
        dm = job.running_maps - m.seen_maps
        dr = job.running_reduces - m.seen_reduces
        dfm = job.finished_maps - m.seen_fin_maps
        dfr = job.finished_reduces - m.seen_fin_reduces
        if dm or dr or dfm or dfr:
            self.accounted += dfm + dfr
            m.seen_maps += dm
            m.seen_reduces += dr
            m.seen_fin_maps += dfm
            m.seen_fin_reduces += dfr
            self.on_change(m, dm, dr, dfm, dfr)

    def sync_tracker(self, tracker: "TrackerState") -> None:
        """Bring every mirror up to date before ``tracker``'s ``assign_tasks``.

        O(1) when nothing finished anywhere or nothing finished on this tracker; else O(jobs with tasks on it).
        Completions are attributed to this tracker (exact in heartbeat mode, where each tracker's completions are
        applied in its own heartbeat); anything left unexplained triggers one O(jobs) pass.
        """
        if self.accounted == self.jt.tasks_done:
            return
        t = tracker.index
        if self.on_tracker[t] != tracker.running_maps + tracker.running_reduces:
            jobs = self.by_tracker[t]
            for m, n in list(jobs.items()):
                before = m.seen_fin_maps + m.seen_fin_reduces
                if not m.removed:
                    self.sync(m)
                done = m.job.finished_maps + m.job.finished_reduces - before
                if m.removed or done >= n:
                    del jobs[m]
                    self.on_tracker[t] -= n
                elif done > 0:
                    jobs[m] = n - done
                    self.on_tracker[t] -= done
        if self.accounted != self.jt.tasks_done:
            self.full_passes += 1
            for m in list(self.jobs.values()):
                self.sync(m)
