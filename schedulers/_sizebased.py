"""Shared machinery of the slot-level size-based schedulers :mod:`mrsim.schedulers.srpt`, :mod:`mrsim.schedulers.fsp` and
:mod:`mrsim.schedulers.las` (Dell'Amico, EURECOM RR-13-282, 2013, sections 2.1 and 2.3, moved from the fluid model to
Hadoop slots in the spirit of HFSP, Pastorelli et al. 2013).

**Job size** (:func:`job_work`): the template's total slot work in slot-seconds: every map duration, plus for every
reduce its reduce-phase duration and the shuffle it would take if launched after the map stage (the typical
shuffle array cycled as the engine cycles it, or the first-wave array when the template has no typical one).
**Estimate**: ``size * X`` with ``X ~ LogNormal(0, sigma^2)`` (study section 2.1). The factors come from the same
named stream as the fluid model (:data:`mrsim.studies.fluid.estimation.ESTIMATE_STREAM`), one draw per job in *trace
order* (:func:`draw_order`), so a fluid run and a slot-level run with the same seed give every job the same X.

**Work done** (:attr:`SizeJob.done`): slot-seconds (finish - start) of the job's task attempts whose completion
the JobTracker has learned, credited at the heartbeat of the tracker that reports it (what a real JobTracker can
measure; work of running attempts and of killed attempts is not credited).

**One order, two slot types.** Each policy defines one key per job and slot type (:meth:`SizeBasedScheduler.key`);
the two keys differ only in a "fewest running tasks of this type first" tie-break that policies sharing slots
equally (LAS, FSP+PS late jobs) use. A heartbeat fills the tracker's free map slots from the best job with
pending maps, then its free reduce slots from the best job with schedulable reduces (slow start met). Neither
FIFO's load cap nor delay scheduling applies: maps are taken with ``Locality.ANY`` (local ones preferred).

**Preemption** (config ``preempt: true``). When a job arrives (maps) or its reduces become schedulable
(reduces), and it has more pending tasks of that type than there are free slots of that type, the newest tasks
of the running jobs of strictly lower *rank* (:meth:`SizeBasedScheduler.rank`, the key without tie-breaks) are
killed with ``JobTracker.kill_task``, lowest rank first, until enough slots are free or no lower-ranked task runs.
The engine frees the slots at once, counts the killed attempts' slot time as wasted and wakes their trackers,
whose next heartbeats hand the slots to the best jobs. These two events are the only ones that put a pending
task ahead of running ones without freeing a slot; order changes from aging (credits, lateness) take effect as
slots free up, which avoids kill/relaunch cycles between jobs whose ranks cross repeatedly. Kills happen only at
arrival and slow-start events, which occur identically with parked and naive heartbeats.

**Costs.** Per heartbeat: O(slots of the tracker) to collect its finished attempts, then O(log jobs) per launch
and per job whose key changed (``sortedcontainers`` lists, one per slot type for jobs with pending tasks and one
for jobs with running tasks). A map of a job with split locations costs O(maps of the job) extra per launch (its
task index is found by a scan; SWIM templates have no locations). Per preemption event: O(trackers) to count free
slots plus O(log jobs) per kill.
"""

from __future__ import annotations

import enum
import json
import math
import re
import warnings
from dataclasses import dataclass
from heapq import heappop, heappush
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np
from sortedcontainers import SortedKeyList

from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate, Workload
from mrsim.studies.fluid.estimation import estimate_sizes
from mrsim.studies.fluid.fsp import LateTreatment

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState, TrackerState

__all__ = [
    "LateTreatment", "SizeBasedConfig", "SizeBasedScheduler", "SizeJob", "Slot", "VirtualPS", "draw_order",
    "error_factors", "job_work",
]


class Slot(enum.IntEnum):
    """Slot type; the value indexes the per-type queues."""

    MAP = 0
    REDUCE = 1


# ------------------------------------------------------------------------------------------------ configuration

_KNOWN_KEYS = {"sigma", "seed", "preempt", "late", "config_file"}


@dataclass(frozen=True)
class SizeBasedConfig:
    """Validated scheduler configuration (the constructor's dict, or a JSON file named by ``config_file``).

    Attributes:
        sigma: standard deviation of log(estimate / size); 0 gives exact sizes (default 0).
        seed: master seed of the estimation-error stream, a whole number >= 0 (default 0). Independent of the
            replay's seed, which drives heartbeat phases.
        preempt: kill lower-ranked tasks on arrivals and slow-start events (default false).
        late: FSP only, how late jobs are served: ``fifo`` or ``ps`` (default ``ps``).
    """

    sigma: float = 0.0
    seed: int = 0
    preempt: bool = False
    late: LateTreatment = LateTreatment.PS

    @classmethod
    def parse(cls, config: Mapping[str, object] | None, scheduler: str) -> "SizeBasedConfig":
        """Validate ``config``; unknown keys are warned about (``UserWarning``) and ignored."""
        values = dict(config or {})
        path = values.pop("config_file", None)
        if path is not None:
            try:
                loaded = json.loads(Path(str(path)).read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise InputError(f"{scheduler}: cannot read scheduler config {path}: {exc}") from None
            if not isinstance(loaded, dict):
                raise InputError(f"{scheduler}: scheduler config {path} must hold a JSON object")
            values = {**loaded, **values}  # explicit keys win over the file
        for key in sorted(set(values) - _KNOWN_KEYS):
            warnings.warn(f"{scheduler}: unknown scheduler config key {key!r} ignored", UserWarning, stacklevel=3)
        sigma = values.get("sigma", 0.0)
        if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not (math.isfinite(sigma) and sigma >= 0):
            raise InputError(f"{scheduler}: sigma must be a number >= 0, got {sigma!r}")
        seed = values.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InputError(f"{scheduler}: seed must be a whole number >= 0, got {seed!r}")
        preempt = values.get("preempt", False)
        if not isinstance(preempt, bool):
            raise InputError(f"{scheduler}: preempt must be true or false, got {preempt!r}")
        late = values.get("late", LateTreatment.PS)
        if not isinstance(late, LateTreatment):
            try:
                late = LateTreatment(str(late).strip().lower())
            except ValueError:
                raise InputError(f"{scheduler}: late must be 'fifo' or 'ps', got {late!r}") from None
        return cls(float(sigma), int(seed), preempt, late)


# ------------------------------------------------------------------------------------------------ sizes

def job_work(template: JobTemplate) -> float:
    """Total slot work of a job (slot-seconds): maps + reduce phases + one post-map-stage shuffle per reduce.

    The k-th reduce's shuffle is ``typical[k % len(typical)]`` (the first-wave array stands in when there is no
    typical one, 0 when neither exists), as :mod:`mrsim.model.templates` documents for replays. Cost: O(tasks).
    """
    work = float(template.map_durations.sum()) + float(template.reduce_durations.sum())
    r = template.n_reduces
    shuffle = template.typical_shuffle_durations
    if shuffle.size == 0:
        shuffle = template.first_shuffle_durations
    if r and shuffle.size:
        full, rest = divmod(r, shuffle.size)
        work += full * float(shuffle.sum()) + float(shuffle[:rest].sum())
    return work


_DIGITS = re.compile(r"(\d+)")


def _natural(job_id: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(job_id) if p)


def draw_order(jobs: Sequence[JobTemplate]) -> list[int]:
    """Positions of ``jobs`` in *trace order*: by submit time, ties by job id compared with numbers as numbers.

    A :class:`~mrsim.model.templates.Workload` breaks submit ties by plain string order (``job10`` before ``job9``);
    SWIM files list jobs ``job0, job1, ...`` and :func:`mrsim.profiler.swim.read_swim` keeps file order within
    ties, which this order reproduces. Cost: O(n log n).
    """
    return sorted(range(len(jobs)), key=lambda i: (jobs[i].submit_s, _natural(jobs[i].job_id), i))


def error_factors(workload: Workload | Sequence[JobTemplate], sigma: float, seed: int) -> np.ndarray:
    """Estimation-error factor X per job, in the workload's order (study section 2.1).

    The k-th draw of the fluid model's stream goes to the k-th job in :func:`draw_order`, exactly as
    :func:`mrsim.studies.fluid.estimation.estimate_sizes` assigns draws to a SWIM file's jobs. ``sigma == 0`` gives ones.
    Cost: O(n log n).
    """
    jobs = list(workload)
    factors_in_trace_order = estimate_sizes(np.ones(len(jobs)), float(sigma), int(seed))
    out = np.empty(len(jobs))
    out[np.asarray(draw_order(jobs), dtype=np.int64)] = factors_in_trace_order
    return out


# ------------------------------------------------------------------------------------------------ virtual PS

class VirtualPS:
    """A processor-sharing cluster of ``capacity`` slots fed with estimated sizes (FSP's virtual system).

    Virtual-time formulation (as :mod:`mrsim.studies.fluid.fsp`): clock ``V`` with ``dV/dt = capacity / n`` while ``n``
    jobs are present; a job arriving at virtual time ``V_a`` with estimate ``e`` (slot-seconds) has tag
    ``F = V_a + e`` and finishes virtually when ``V`` reaches ``F``. A heap on ``(F, job)`` gives the next
    virtual finish. The state moves only at arrivals and virtual finishes, never to an arbitrary query time, so
    it is bit-identical however often it is queried (parked and naive heartbeats agree).
    Cost: O(log n) per arrival and per virtual finish; O(1) to ask for the next finish time.
    """

    __slots__ = ("capacity", "v", "t", "heap")

    def __init__(self, capacity: float) -> None:
        if not capacity > 0:
            raise InputError("the virtual PS cluster needs a positive slot count")
        self.capacity = float(capacity)
        self.v = 0.0  # virtual time at wall time self.t
        self.t = 0.0
        self.heap: list[tuple[float, int]] = []

    def __len__(self) -> int:
        return len(self.heap)

    def next_finish(self) -> float:
        """Wall time (s) of the next virtual finish, or inf when the virtual cluster is empty."""
        heap = self.heap
        if not heap:
            return math.inf
        d = heap[0][0] - self.v
        return self.t + (d if d > 0.0 else 0.0) * len(heap) / self.capacity

    def finish_until(self, now: float) -> list[int]:
        """Process every virtual finish at or before ``now``; return the finished jobs in finishing order."""
        done: list[int] = []
        heap = self.heap
        while heap:
            t_f = self.next_finish()
            if t_f > now:
                break
            f, j = heappop(heap)
            self.t = t_f
            self.v = f if heap else 0.0
            done.append(j)
        return done

    def arrive(self, now: float, job: int, estimate: float) -> tuple[float, list[int]]:
        """Add a job at wall time ``now``; returns its tag ``F`` and the jobs that virtually finished up to now."""
        done = self.finish_until(now)
        if self.heap:
            self.v += (now - self.t) * self.capacity / len(self.heap)
        self.t = now
        tag = self.v + estimate
        heappush(self.heap, (tag, job))
        return tag, done


# ------------------------------------------------------------------------------------------------ scheduler

class SizeJob:
    """Per-job scheduler record (kept in ``JobState.sched``).

    Attributes: ``job`` (the engine's JobState), ``index`` (workload position), ``size`` and ``estimate``
    (slot-seconds), ``done`` (credited slot-seconds), ``tag`` (FSP's virtual finish tag), ``late`` (FSP),
    ``kmap``/``kred`` (current keys), membership flags of the four queues, and ``live``: running attempts
    launched by this scheduler, ``(slot, task index) -> tracker index``.
    """

    __slots__ = ("job", "index", "size", "estimate", "done", "tag", "late", "kmap", "kred",
                 "in_pm", "in_pr", "in_rm", "in_rr", "live", "gone")

    def __init__(self, job: "JobState", size: float, estimate: float) -> None:
        self.job = job
        self.index = job.index
        self.size = size
        self.estimate = estimate
        self.done = 0.0
        self.tag = 0.0
        self.late = False
        self.kmap: tuple = ()
        self.kred: tuple = ()
        self.in_pm = self.in_pr = self.in_rm = self.in_rr = False
        self.live: dict[tuple[int, int], int] = {}
        self.gone = False

    def __repr__(self) -> str:
        return f"<SizeJob {self.job.job_id} est {self.estimate:.1f} done {self.done:.1f}>"


class SizeBasedScheduler(TaskScheduler):
    """Base class: estimates, work credits, per-slot-type queues, heartbeat filling and preemption.

    Subclasses define :meth:`rank` (the policy's order, smaller first) and may override :meth:`key` (rank plus
    tie-breaks), :meth:`on_arrival`, :meth:`before_decision` and the flags below.
    """

    name = "sizebased"
    #: whether the estimate is used at all (LAS: no)
    uses_estimates = True

    def __init__(self, config: dict | None = None) -> None:
        super().__init__(config)
        self.settings = SizeBasedConfig.parse(config, self.name)

    def describe(self) -> dict:
        s = self.settings
        out: dict = {"name": self.name, "preempt": s.preempt}
        if self.uses_estimates:
            out.update(sigma=s.sigma, seed=s.seed)
        return out

    # --------------------------------------------------------------------------------- policy interface

    def rank(self, rec: SizeJob) -> tuple:
        """The policy's order without tie-breaks (smaller is served first); preemption compares ranks."""
        raise NotImplementedError

    def shares(self, rec: SizeJob) -> bool:
        """Whether equal-rank jobs share slots: then fewer running tasks of the slot type go first."""
        return False

    def key(self, rec: SizeJob, slot: int) -> tuple:
        """Full order for one slot type: rank, then (if sharing) running tasks of that type, then job index."""
        job = rec.job
        if self.shares(rec):
            running = job.running_reduces if slot else job.running_maps
            return (*self.rank(rec), running, rec.index)
        return (*self.rank(rec), 0, rec.index)

    def on_arrival(self, rec: SizeJob, now: float) -> None:
        """Policy state for a new job (FSP: virtual arrival)."""

    def before_decision(self, now: float) -> None:
        """Bring time-driven policy state up to ``now`` before a decision (FSP: virtual finishes, lateness)."""

    # --------------------------------------------------------------------------------- engine hooks

    def start(self, jt: "JobTracker") -> None:  # type: ignore[override]
        super().start(jt)
        s = self.settings
        self.factors = error_factors(jt.workload, s.sigma, s.seed) if self.uses_estimates else np.ones(len(jt.jobs))
        self.records: dict[int, SizeJob] = {}
        self.pending = (SortedKeyList(key=attrgetter("kmap")), SortedKeyList(key=attrgetter("kred")))
        self.running = (SortedKeyList(key=attrgetter("kmap")), SortedKeyList(key=attrgetter("kred")))
        self.attempts: list[list[tuple[SizeJob, int, int, float]]] = [[] for _ in jt.trackers]
        self.trackers = jt.trackers

    def job_added(self, job: "JobState") -> None:
        size = job_work(job.template)
        rec = SizeJob(job, size, size * float(self.factors[job.index]))
        job.sched = rec
        self.records[job.index] = rec
        now = self.jt.now
        self.on_arrival(rec, now)
        self.before_decision(now)
        self.refresh(rec)
        if self.settings.preempt:
            self._preempt(rec, Slot.MAP)

    def job_updated(self, job: "JobState", change: JobChange) -> None:
        rec = job.sched
        if not isinstance(rec, SizeJob) or rec.gone:
            return
        self.refresh(rec)
        if change is JobChange.REDUCES_READY and self.settings.preempt:
            self.before_decision(self.jt.now)
            self._preempt(rec, Slot.REDUCE)

    def job_removed(self, job: "JobState") -> None:
        rec = job.sched
        if not isinstance(rec, SizeJob):
            return
        rec.gone = True
        self._unlist(rec)
        del self.records[rec.index]

    # --------------------------------------------------------------------------------- queues

    def _unlist(self, rec: SizeJob) -> None:
        pm, pr = self.pending
        rm, rr = self.running
        if rec.in_pm:
            pm.remove(rec)
            rec.in_pm = False
        if rec.in_rm:
            rm.remove(rec)
            rec.in_rm = False
        if rec.in_pr:
            pr.remove(rec)
            rec.in_pr = False
        if rec.in_rr:
            rr.remove(rec)
            rec.in_rr = False

    def refresh(self, rec: SizeJob) -> None:
        """Recompute the job's keys and queue memberships from its state. O(log jobs)."""
        job = rec.job
        pm, pr = self.pending
        rm, rr = self.running
        kmap = self.key(rec, 0)
        if kmap != rec.kmap:
            if rec.in_pm:
                pm.remove(rec)
                rec.in_pm = False
            if rec.in_rm:
                rm.remove(rec)
                rec.in_rm = False
            rec.kmap = kmap
        want = job.maps_pending > 0
        if want != rec.in_pm:
            pm.add(rec) if want else pm.remove(rec)
            rec.in_pm = want
        want = job.running_maps > 0
        if want != rec.in_rm:
            rm.add(rec) if want else rm.remove(rec)
            rec.in_rm = want
        kred = self.key(rec, 1)
        if kred != rec.kred:
            if rec.in_pr:
                pr.remove(rec)
                rec.in_pr = False
            if rec.in_rr:
                rr.remove(rec)
                rec.in_rr = False
            rec.kred = kred
        want = job.reduces_ready and job.reduces_pending > 0
        if want != rec.in_pr:
            pr.add(rec) if want else pr.remove(rec)
            rec.in_pr = want
        want = job.running_reduces > 0
        if want != rec.in_rr:
            rr.add(rec) if want else rr.remove(rec)
            rec.in_rr = want

    # --------------------------------------------------------------------------------- heartbeat

    def _collect(self, tracker: "TrackerState", now: float) -> None:
        """Credit the attempts of this tracker whose completion its heartbeat just reported. O(its slots)."""
        attempts = self.attempts[tracker.index]
        if not attempts:
            return
        keep = []
        changed = []
        for a in attempts:
            rec, slot, i, start = a
            if rec.gone:
                continue
            job = rec.job
            if (job.reduce_start[i] if slot else job.map_start[i]) != start:
                # The engine stopped this attempt (a replayed failure, or reducer preemption on a resource
                # cluster): it did no useful work; a relaunch is recorded as a new attempt.
                if (job.reduce_start[i] if slot else job.map_start[i]) < 0.0:
                    rec.live.pop((slot, i), None)
                changed.append(rec)
                continue
            finish = job.reduce_finish[i] if slot else job.map_finish[i]
            if 0.0 <= finish <= now:
                rec.done += finish - start
                del rec.live[(slot, i)]
                changed.append(rec)
            else:
                keep.append(a)
        if len(keep) != len(attempts):
            self.attempts[tracker.index] = keep
        for rec in changed:
            if not rec.gone:
                self.refresh(rec)

    def assign_tasks(self, tracker: "TrackerState") -> int:
        now = self.jt.now
        self._collect(tracker, now)
        pm, pr = self.pending
        free_m = tracker.map_slots - tracker.running_maps
        free_r = tracker.reduce_slots - tracker.running_reduces
        if not ((pm and free_m > 0) or (pr and free_r > 0)):
            return 0
        self.before_decision(now)
        jt = self.jt
        attempts = self.attempts[tracker.index]
        assigned = 0
        while free_m > 0 and pm:
            # Highest-ranked job whose map can run here: always the head on one-site slot clusters; on federations
            # and resource clusters a job may have nothing placed in this datacenter or nothing that fits.
            for rec in pm:
                if jt.obtain_new_map_task(rec.job, tracker, Locality.ANY):
                    break
            else:
                break
            i = jt.last_task
            attempts.append((rec, 0, i, now))
            rec.live[(0, i)] = tracker.index
            self.refresh(rec)
            assigned += 1
            free_m -= 1
        while free_r > 0 and pr:
            for rec in pr:
                if jt.obtain_new_reduce_task(rec.job, tracker):
                    break
            else:
                break
            i = jt.last_task
            attempts.append((rec, 1, i, now))
            rec.live[(1, i)] = tracker.index
            self.refresh(rec)
            assigned += 1
            free_r -= 1
        return assigned

    # --------------------------------------------------------------------------------- preemption

    def _preempt(self, rec: SizeJob, slot: Slot) -> None:
        """Kill lower-ranked running tasks so ``rec``'s pending tasks of ``slot`` type find free slots."""
        job = rec.job
        if slot is Slot.MAP:
            want = job.maps_pending
            free = sum(t.map_slots - t.running_maps for t in self.trackers)
        else:
            want = job.reduces_pending if job.reduces_ready else 0
            free = sum(t.reduce_slots - t.running_reduces for t in self.trackers)
        need = want - free
        if need <= 0:
            return
        running = self.running[slot]
        mine = self.rank(rec)
        reduce = slot is Slot.REDUCE
        requeued_of = attrgetter("requeued_reduces" if reduce else "requeued_maps")
        skip = 0  # lowest-ranked jobs whose running tasks all finished (awaiting their report): nothing to kill
        while need > 0 and skip < len(running):
            victim = running[len(running) - 1 - skip]
            if victim is rec or not self.rank(victim) > mine:
                break
            if self.jt.kill_task(victim.job, reduce) < 0.0:
                skip += 1
                continue
            i = requeued_of(victim.job)[-1]
            where = victim.live.pop((int(slot), i))
            attempts = self.attempts[where]
            for k, a in enumerate(attempts):
                if a[0] is victim and a[1] == slot and a[2] == i:
                    del attempts[k]
                    break
            self.refresh(victim)
            need -= 1
