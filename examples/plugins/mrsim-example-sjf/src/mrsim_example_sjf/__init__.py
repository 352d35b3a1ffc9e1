"""Smallest job first: an example mrsim scheduler plug-in (see docs/writing-a-scheduler.md).

Job order: fewest tasks (maps + reduces) first, ties by submit order. Every free slot of the heartbeating
tracker gets a task of the first job in that order that has one waiting. Cost per heartbeat: O(1) when no job
waits, O(tasks launched x log jobs) otherwise.

Parked trackers: this scheduler declines only when no job has a task waiting, and that changes only on a job
arrival, slow start being met or tasks being requeued; the engine wakes trackers on all three, so it never needs
``jt.request_heartbeat``.
"""

from __future__ import annotations

from sortedcontainers import SortedKeyList

from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState


def size_order(job: JobState) -> tuple[int, int]:
    return (job.n_maps + job.n_reduces, job.index)


class SmallestJobFirstScheduler(TaskScheduler):
    name = "sjf"
    summary = "example plug-in: smallest job (fewest tasks) first, every free slot"

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        self.maps: SortedKeyList = SortedKeyList(key=size_order)  # jobs with maps waiting for a slot
        self.reduces: SortedKeyList = SortedKeyList(key=size_order)  # past slow start, reduces waiting

    def job_added(self, job: JobState) -> None:
        self._enqueue(job)

    def job_updated(self, job: JobState, change: JobChange) -> None:
        self._enqueue(job)  # REDUCES_READY (slow start met) or TASKS_REQUEUED (killed tasks)

    def job_removed(self, job: JobState) -> None:
        for queue in (self.maps, self.reduces):
            if job in queue:
                queue.remove(job)

    def _enqueue(self, job: JobState) -> None:
        if job.maps_pending and job not in self.maps:
            self.maps.add(job)
        if job.reduces_ready and job.reduces_pending and job not in self.reduces:
            self.reduces.add(job)

    def assign_tasks(self, tracker: TrackerState) -> int:
        jt = self.jt
        launched = 0
        for _ in range(tracker.map_slots - tracker.running_maps):
            if not self.maps:
                break
            job = self.maps[0]
            if not jt.obtain_new_map_task(job, tracker, Locality.ANY):
                break
            launched += 1
            if job.maps_pending == 0:
                self.maps.remove(job)
        for _ in range(tracker.reduce_slots - tracker.running_reduces):
            if not self.reduces:
                break
            job = self.reduces[0]
            if not jt.obtain_new_reduce_task(job, tracker):
                break
            launched += 1
            if job.reduces_pending == 0:
                self.reduces.remove(job)
        return launched
