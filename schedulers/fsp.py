"""FSP on Hadoop slots: serve jobs in the order they finish in a virtual processor-sharing cluster fed with the
estimates (Friedman and Henderson 2003; Dell'Amico RR-13-282, section 2.3; HFSP, Pastorelli et al. 2013).

The virtual cluster (:class:`mrsim.schedulers._sizebased.VirtualPS`) has as many slots as the real one (map + reduce
slots) and shares them equally between the jobs it holds; a job arriving at virtual time ``V`` with estimate
``e`` slot-seconds gets the tag ``F = V + e`` and leaves the virtual cluster when ``V`` reaches ``F``, whether or
not it finished for real (aging: an over-estimated job still reaches the front eventually). A job that finished
virtually but not really is *late*. Per-job caps (a job with 3 tasks cannot use 1/n of 400 slots) are not
modelled in the virtual cluster, as in the study's fluid FSP; HFSP caps them.

Ranks (smaller first):

* ``late: fifo`` (FSP+FIFO): ``F``. Late jobs have the smallest tags and became late in tag order, so "late jobs
  first, in the order they became late, then the rest by virtual finish" is exactly the tag order.
* ``late: ps`` (FSP+PS): late jobs first as one class that shares slots (fewest running tasks of the slot type
  first, then the earlier job), then the others by ``F``. Late jobs never preempt each other.

The virtual clock moves only at arrivals and virtual finishes; lateness is applied before every decision. With
``preempt: true`` an arrival kills the newest tasks of running jobs of higher rank (later tag, or not late when
the arrival is already late).

Config: ``sigma`` (default 0), ``seed`` (0), ``late`` (``ps``), ``preempt`` (false). Cost: O(log jobs) per
arrival, virtual finish, launch and reported completion; O(1) per heartbeat when no virtual finish is due.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.schedulers._sizebased import LateTreatment, SizeBasedScheduler, SizeJob, VirtualPS

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


class FspScheduler(SizeBasedScheduler):
    """Fair Sojourn Protocol with FIFO or PS treatment of late jobs."""

    name = "fsp"
    summary = "size-based: virtual-PS finish order on estimates, late jobs first (sigma, seed, late, preempt)"

    def start(self, jt: "JobTracker") -> None:  # type: ignore[override]
        super().start(jt)
        self.late_ps = self.settings.late is LateTreatment.PS
        self.virtual = VirtualPS(jt.total_map_slots + jt.total_reduce_slots)
        self.late_jobs = 0  # jobs that became late (diagnostic, reported by describe after a run)

    def describe(self) -> dict:
        out = super().describe()
        out["late"] = self.settings.late.value
        return out

    def rank(self, rec: SizeJob) -> tuple:
        if not self.late_ps:
            return (rec.tag,)
        return (0, 0.0) if rec.late else (1, rec.tag)

    def shares(self, rec: SizeJob) -> bool:
        return self.late_ps and rec.late

    def on_arrival(self, rec: SizeJob, now: float) -> None:
        rec.tag, finished = self.virtual.arrive(now, rec.index, rec.estimate)
        self._mark_late(finished)

    def before_decision(self, now: float) -> None:
        if self.virtual.next_finish() <= now:
            self._mark_late(self.virtual.finish_until(now))

    def _mark_late(self, finished: list[int]) -> None:
        records = self.records
        for j in finished:
            rec = records.get(j)
            if rec is None or rec.late:
                continue  # really finished before its virtual finish: not late
            rec.late = True
            self.late_jobs += 1
            if self.late_ps:
                self.refresh(rec)
