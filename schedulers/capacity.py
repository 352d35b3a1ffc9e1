"""Capacity Scheduler: Hadoop 1.x ``org.apache.hadoop.mapred.CapacityTaskScheduler`` (0.20.203-1.2 design),
heartbeat by heartbeat. ``docs/hadoop-behaviour.md`` §4.

Followed, by Hadoop class and method (1.2.1):

* **Queues** (``QueueManager``, ``CapacitySchedulerConf``): names from ``mapred.queue.names``; a job's queue is
  ``JobTemplate.queue`` (``mapred.job.queue.name``); a job naming an unknown queue is an InputError (Hadoop rejects
  the submission). capacitySlots = trunc(capacity% x cluster slots), per kind; ``maximum-capacity`` a hard cap.
* **Per-queue accounting** (``CapacitySchedulerQueue.updateAll``, kept incrementally here): occupied slots =
  (running tasks + trackers reserved) x slots per task, per queue and per user; a user is active for a kind while
  one of their jobs has pending tasks of it (reduces: after slow start).
* **User limit** (``CapacitySchedulerQueue.assignSlotsToJob``, :func:`user_limit`): qCap = max(capacitySlots, n);
  cur = qCap if occupied + n <= qCap else occupied + n; limit = min(max(ceil(cur / activeUsers), ceil(u% x cur)),
  trunc(qCap x user-limit-factor)); the job may take n more slots if its user's occupied + n <= limit.
* **assignTasks** (``CapacityTaskScheduler.assignTasks``, ``addMapTasks``, ``addReduceTask``): maps first, as many
  as the tracker has free slots; before each map the queues are ordered by occupied / capacity; the first
  off-switch map ends the map pass (``maximum-tasks-after-offswitch``, 0), ``maximum-tasks-per-heartbeat`` caps the
  total; then at most **one reduce**. Jobs in a queue in start-time order (priority first with
  ``supports-priority``).
* **Asking a job for a map** (``MapSchedulingMgr.obtainNewTask``): the job's missed-opportunity counter +1; a
  node-or-rack-local map (counter reset); otherwise an off-switch map only if the job is high-memory or
  ``JobInProgress.scheduleOffSwitch``: min(remaining maps, trackers) x ``mapreduce.job.locality.wait.factor`` <
  missed opportunities.
* **High-memory jobs** (``JobConf.computeNumSlotsPerMap``, ``MemoryMatcher``, tracker reservations): with all four
  ``mapred.cluster.{,max.}{map,reduce}.memory.mb`` set, a task takes ceil(job MB / slot MB) slots. The job's MB
  comes from ``JobTemplate.extra["mapred.job.map.memory.mb"]`` / ``["mapred.job.reduce.memory.mb"]`` (or
  ``map_memory_mb`` / ``reduce_memory_mb``); trace builders do not fill these yet, so on real traces every task
  takes one slot and this never triggers. A job that does not fit the tracker's free slots reserves the
  tracker's slots of that kind (while it has fewer reserved trackers than pending tasks) until they do.

Approximations (also in ``describe()["approximations"]``): jobs are initialized and RUNNING at submission (no
``JobInitializationPoller``; the init/accept limits and ``maximum-system-jobs`` are read but not modelled); queues
with equal occupied/capacity ratios are ordered by their position in ``mapred.queue.names`` (Hadoop keeps the
previous order of a stable sort, initially HashMap order); the memory match compares slots, not MB; jobs with
no pending task of a kind are not asked for one (their missed-opportunity counter does not grow; Hadoop asks them).

Cost: ``assign_tasks`` is O(log queues + jobs skipped by user limits) per task; queue order is a ``SortedList``
re-keyed when a queue's occupied slots change.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sortedcontainers import SortedList

from mrsim.tracker.plugin_helpers import keep_polling, rekey
from mrsim.tracker.schedconf.capacity_conf import QueueConf, load_capacity_conf
from mrsim.tracker.schedconf.livecounts import JobMirror, LiveCounts
from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState, TrackerState

MAP, REDUCE = 0, 1
KINDS = (MAP, REDUCE)
MEMORY_KEYS = (("mapred.job.map.memory.mb", "map_memory_mb"), ("mapred.job.reduce.memory.mb", "reduce_memory_mb"))
_MISMATCH = "memory mismatch"  # TaskLookupResult.LookUpStatus.TASK_FAILING_MEMORY_REQUIREMENT


def user_limit(capacity_slots: int, occupied: int, n: int, active_users: int, min_user_limit_pct: int,
               user_limit_factor: float) -> int:
    """``CapacitySchedulerQueue.assignSlotsToJob``'s limit on one user's occupied slots (1.2.1). O(1)."""
    q_cap = max(capacity_slots, n)
    cur = q_cap if occupied + n <= q_cap else occupied + n
    active = max(1, active_users)
    fair = max(-(-cur // active), -(-(min_user_limit_pct * cur) // 100))
    return min(fair, int(q_cap * user_limit_factor))


class CapJob(JobMirror):
    """Per-job scheduler data, kept in ``JobState.sched``."""

    __slots__ = ("queue", "slots", "order", "key", "pending", "reserved", "opportunities")

    def __init__(self, job: "JobState", queue: "CapQueue", slots: tuple[int, int]) -> None:
        super().__init__(job)
        self.queue = queue
        self.slots = slots
        # JobQueuesManager comparator: (priority,) start time, job id
        self.order = (job.priority, job.submit, job.index) if queue.conf.supports_priority else (job.submit, job.index)
        self.key: list[tuple | None] = [None, None]
        self.pending = [False, False]  # counted as an active user's job with pending tasks of this kind
        self.reserved = [0, 0]  # trackers reserved for this job
        self.opportunities = 0  # JobInProgress.numSchedulingOpportunities


class CapQueue:
    """One queue: capacity in slots, occupied slots (queue and per user), active users, its jobs."""

    __slots__ = ("conf", "name", "position", "capacity_slots", "max_slots", "occupied", "user_occupied",
                 "active", "jobs", "key", "blocked")

    def __init__(self, conf: QueueConf, position: int, map_slots: int, reduce_slots: int) -> None:
        self.conf = conf
        self.name = conf.name
        self.position = position
        totals = (map_slots, reduce_slots)
        self.capacity_slots = [int(conf.capacity_pct * t / 100.0) for t in totals]
        mx = conf.maximum_capacity_pct
        self.max_slots = [int(mx * t / 100.0) if mx is not None else -1 for t in totals]
        self.occupied = [0, 0]
        self.user_occupied: list[dict[str, int]] = [{}, {}]
        self.active: list[dict[str, int]] = [{}, {}]  # user -> jobs with pending tasks of the kind
        self.jobs = [SortedList(), SortedList()]  # jobs with pending tasks, in queue job order
        self.key: list[tuple | None] = [None, None]
        self.blocked = [False, False]  # a job was refused for user limit / maximum-capacity since the last change

    def sort_key(self, kind: int) -> tuple:
        """``CapacityTaskScheduler.queueComparator``: occupied / capacity (capacity 0 counts as 1.0)."""
        cap = self.capacity_slots[kind]
        ratio = self.occupied[kind] / cap if cap else 1.0
        return (ratio, self.position, self)

    def fits_queue(self, kind: int, n: int) -> bool:
        """``assignSlotsToQueue``: maximum-capacity."""
        mx = self.max_slots[kind]
        return mx < 0 or self.occupied[kind] + n <= mx

    def fits_user(self, kind: int, user: str, n: int) -> bool:
        if not self.fits_queue(kind, n):
            return False
        limit = user_limit(self.capacity_slots[kind], self.occupied[kind], n, len(self.active[kind]),
                           self.conf.minimum_user_limit_percent, self.conf.user_limit_factor)
        return self.user_occupied[kind].get(user, 0) + n <= limit


class CapacityScheduler(TaskScheduler):
    """Hadoop 1.x Capacity Scheduler on the mrsim heartbeat engine (see the module docstring)."""

    bounded_wakes_exact = True  # nothing launched, nothing changed when no task is pending (tests check)

    name = "capacity"
    summary = "Hadoop 1.x CapacityTaskScheduler: queue capacities, user limits, max capacity, high-memory slots"

    def __init__(self, config: dict | None = None) -> None:
        super().__init__(config)
        self.cconf = load_capacity_conf(self.config)  # parse now: configuration errors surface before the replay

    def start(self, jt: "JobTracker") -> None:
        super().start(jt)
        if jt.conf.source:  # mapred.queue.names lives in mapred-site.xml in Hadoop
            self.cconf = load_capacity_conf(self.config, jt.conf.source)
        conf = self.cconf
        self.queues = [CapQueue(q, i, jt.total_map_slots, jt.total_reduce_slots) for i, q in enumerate(conf.queues)]
        self.queue_index = conf.queue_index()
        self.order = [SortedList(), SortedList()]  # queues with pending work, by occupied / capacity
        self.live = LiveCounts(jt, self._on_change)
        self.reservations: list[dict[int, CapJob]] = [{}, {}]  # tracker index -> job holding its slots
        self.high_memory: list[dict[int, dict[CapJob, None]]] = [{}, {}]  # tracker -> multi-slot jobs run there
        self.loosened: set[tuple[CapQueue, int]] = set()  # blocked queues whose limits moved in this event
        self.waiting = False  # a job was refused an off-switch map for want of missed opportunities
        self.off_switch_refused = False
        self.memory_scheduling = conf.memory.enabled
        self.routed: dict[str, int] = {}  # queue -> jobs submitted to it (routes())

    def describe(self) -> dict:
        out = {"name": self.name, **self.cconf.describe(), "warnings": list(self.cconf.warnings)}
        out["approximations"] = [
            "jobs are initialized and RUNNING at submission (no init poller; init/accept limits not modelled)",
            "queues with equal occupied/capacity are ordered as in mapred.queue.names (Hadoop: previous sort order)",
            "memory matching compares slots, not MB; job MB from JobTemplate.extra (absent in traces: 1 slot)",
            "jobs with no pending task of a kind are not asked for one",
            "YARN files: leaf queues with absolute capacities, flat",
        ]
        return out

    def routes(self) -> list[tuple[str, int]]:
        """Jobs per queue with the queue's capacity and user-limit-factor."""
        from mrsim.tracker.routing import ordered

        by_name = {q.name: q.conf for q in getattr(self, "queues", ())}
        return [(f"{name} (capacity {by_name[name].capacity_pct:g} %, user-limit-factor "
                 f"{by_name[name].user_limit_factor:g})", n) for name, n in ordered(getattr(self, "routed", {}))]

    # ------------------------------------------------------------------------------------------- jobs

    def _slots_per_task(self, job: "JobState") -> tuple[int, int]:
        """``JobConf.computeNumSlotsPerMap/Reduce``: 1 unless memory-based scheduling is on."""
        mem = self.cconf.memory
        if not mem.enabled:
            return (1, 1)
        out = []
        extra = job.template.extra or {}
        for (key, alt), slot_mb, max_mb in zip(MEMORY_KEYS, (mem.map_slot_mb, mem.reduce_slot_mb),
                                               (mem.max_map_mb, mem.max_reduce_mb)):
            value = extra.get(key, extra.get(alt))
            if value is None:
                out.append(1)
                continue
            mb = float(value)  # type: ignore[arg-type]
            if mb > max_mb:
                raise InputError(f"job {job.job_id}: {key} = {mb:g} MB exceeds the cluster maximum {max_mb:g} MB "
                                 f"(Hadoop rejects the job)")
            out.append(max(1, math.ceil(mb / slot_mb)))
        return (out[0], out[1])

    def job_added(self, job: "JobState") -> None:
        pos = self.queue_index.get(job.queue)
        if pos is None:
            names = ", ".join(q.name for q in self.cconf.queues)
            raise InputError(f"job {job.job_id}: queue {job.queue!r} is not one of the configured queues ({names}); "
                             f"Hadoop rejects the submission")
        name = self.queues[pos].name
        self.routed[name] = self.routed.get(name, 0) + 1
        cj = CapJob(job, self.queues[pos], self._slots_per_task(job))
        job.sched = cj
        self.live.add(cj)
        for kind in KINDS:
            self._refresh(cj, kind)
        self._flush_loosened()

    def job_updated(self, job: "JobState", change: JobChange) -> None:
        cj: CapJob = job.sched  # type: ignore[assignment]
        if change is JobChange.TASKS_REQUEUED:
            self.live.sync(cj)
        for kind in KINDS:
            self._refresh(cj, kind)
        self._flush_loosened()

    def job_removed(self, job: "JobState") -> None:
        cj: CapJob = job.sched  # type: ignore[assignment]
        self.live.remove(cj)
        for kind in KINDS:
            for t, holder in list(self.reservations[kind].items()):
                if holder is cj:
                    self._unreserve(kind, t)
            for jobs in self.high_memory[kind].values():
                jobs.pop(cj, None)
            self._refresh(cj, kind)
        self._flush_loosened()

    # ------------------------------------------------------------------------------------------- accounting

    def _add_occupied(self, cj: CapJob, kind: int, slots: int) -> None:
        q = cj.queue
        q.occupied[kind] += slots
        users = q.user_occupied[kind]
        users[cj.job.user] = users.get(cj.job.user, 0) + slots
        self._rekey_queue(q, kind)
        self._limits_changed(q, kind)

    def _limits_changed(self, q: CapQueue, kind: int) -> None:
        """A queue's occupancy or active users moved: a job refused for limits may fit now, on any tracker."""
        if q.blocked[kind]:
            q.blocked[kind] = False
            self.loosened.add((q, kind))

    def _flush_loosened(self) -> None:
        """At the end of an event: wake parked trackers for queues where a job refused for its limits now fits
        (the tracker that freed the slot often refills it first); else keep watching the queue. O(its jobs)."""
        for q, kind in self.loosened:
            if q.fits_queue(kind, 1) and any(q.fits_user(kind, e[-1].job.user, e[-1].slots[kind]) for e in q.jobs[kind]):
                (self.jt.wake_for_maps if kind == MAP else self.jt.wake_for_reduces)()
            elif q.jobs[kind]:
                q.blocked[kind] = True
        self.loosened.clear()

    def _on_change(self, m: JobMirror, d_maps: int, d_reduces: int, _fm: int, _fr: int) -> None:
        cj: CapJob = m  # type: ignore[assignment]
        if d_maps:
            self._add_occupied(cj, MAP, d_maps * cj.slots[MAP])
        if d_reduces:
            self._add_occupied(cj, REDUCE, d_reduces * cj.slots[REDUCE])

    def _refresh(self, cj: CapJob, kind: int) -> None:
        """Re-derive the job's membership in its queue's job list and the queue's active users."""
        job = cj.job
        if kind == MAP:
            pending = not cj.removed and job.maps_pending > 0
        else:
            pending = not cj.removed and job.reduces_ready and job.reduces_pending > 0
        q = cj.queue
        if pending != cj.pending[kind]:
            cj.pending[kind] = pending
            active = q.active[kind]
            user = job.user
            if pending:
                active[user] = active.get(user, 0) + 1
                cj.key[kind] = cj.order + (cj,)
                q.jobs[kind].add(cj.key[kind])
            else:
                if active[user] == 1:
                    del active[user]
                else:
                    active[user] -= 1
                q.jobs[kind].remove(cj.key[kind])
                cj.key[kind] = None
            self._limits_changed(q, kind)
        self._rekey_queue(q, kind)

    def _rekey_queue(self, q: CapQueue, kind: int) -> None:
        new = q.sort_key(kind) if q.jobs[kind] else None
        old = q.key[kind]
        if new != old:
            rekey(self.order[kind], old, new)
            q.key[kind] = new

    def _reserve(self, cj: CapJob, kind: int, tracker: "TrackerState") -> None:
        self.reservations[kind][tracker.index] = cj
        cj.reserved[kind] += 1
        self._add_occupied(cj, kind, cj.slots[kind])

    def _unreserve(self, kind: int, tracker_index: int) -> None:
        cj = self.reservations[kind].pop(tracker_index)
        cj.reserved[kind] -= 1
        self._add_occupied(cj, kind, -cj.slots[kind])

    def used_slots(self, tracker: "TrackerState", kind: int) -> int:
        """Slots occupied on ``tracker`` (``TaskTrackerStatus.countOccupied*Slots``). O(1) unless multi-slot jobs
        ran there (then O(their tasks))."""
        used = tracker.running_maps if kind == MAP else tracker.running_reduces
        hm = self.high_memory[kind].get(tracker.index)
        if hm:
            now = self.jt.now
            t = tracker.index
            for cj in list(hm):
                job = cj.job
                where = job.map_tracker if kind == MAP else job.reduce_tracker
                finishes = job.map_finish if kind == MAP else job.reduce_finish
                count = sum(1 for i, w in enumerate(where)
                            if w == t and (finishes[i] > now or (kind == REDUCE and finishes[i] < 0.0)))
                if count == 0:
                    del hm[cj]
                # The engine already counts the job's own conf width (mrsim.model.memory_slots) in running_*.
                width = job.map_width if kind == MAP else job.reduce_width
                used += count * max(0, cj.slots[kind] - width)
        return used

    # ------------------------------------------------------------------------------------------- heartbeat

    def _obtain(self, cj: CapJob, kind: int, tracker: "TrackerState", off_switch_ok: bool) -> bool | None:
        """``MapSchedulingMgr/ReduceSchedulingMgr.obtainNewTask``: True local, False off-switch, None nothing."""
        jt = self.jt
        job = cj.job
        if kind == REDUCE:
            return True if jt.obtain_new_reduce_task(job, tracker) else None
        cj.opportunities += 1  # JobInProgress.schedulingOpportunity
        if jt.obtain_new_map_task(job, tracker, Locality.RACK):
            cj.opportunities = 0
            return True
        allowed = cj.slots[MAP] > 1
        if not allowed and off_switch_ok:
            # JobInProgress.scheduleOffSwitch
            wait = min(job.n_maps - job.finished_maps, len(jt.trackers)) * self.cconf.locality_wait_factor
            allowed = wait < cj.opportunities
            if not allowed and job.maps_pending:
                self.off_switch_refused = True
        if allowed and jt.obtain_new_map_task(job, tracker, Locality.NON_LOCAL):
            return False
        return None

    def _lookup(self, kind: int, tracker: "TrackerState", avail: int, off_switch_ok: bool):
        """``TaskSchedulingMgr.assignTasks``: (job, local?) for a launched task, ``_MISMATCH``, or None."""
        reserved = self.reservations[kind].get(tracker.index)
        if reserved is not None:
            if avail >= reserved.slots[kind]:
                self._unreserve(kind, tracker.index)
                if kind == MAP:
                    reserved.opportunities = 1 << 30  # forced high: an off-switch map is allowed
                got = self._obtain(reserved, kind, tracker, True)
                return None if got is None else (reserved, got)
            return _MISMATCH
        max_slots = tracker.map_slots if kind == MAP else tracker.reduce_slots
        for qkey in self.order[kind]:
            q: CapQueue = qkey[-1]
            if not q.fits_queue(kind, 1):
                q.blocked[kind] = True
                continue
            for jkey in q.jobs[kind]:
                cj: CapJob = jkey[-1]
                n = cj.slots[kind]
                if not q.fits_user(kind, cj.job.user, n):
                    q.blocked[kind] = True
                    continue
                if n <= avail:
                    got = self._obtain(cj, kind, tracker, off_switch_ok)
                    if got is not None:
                        return (cj, got)
                    continue
                pending = cj.job.maps_pending if kind == MAP else cj.job.reduces_pending
                if pending and cj.reserved[kind] < pending and n <= max_slots:
                    self._reserve(cj, kind, tracker)
                    return _MISMATCH
        return None

    def _launched(self, cj: CapJob, kind: int, tracker: "TrackerState") -> None:
        self.live.launched(cj, tracker)
        self._refresh(cj, kind)
        if cj.slots[kind] > 1:
            self.high_memory[kind].setdefault(tracker.index, {})[cj] = None

    def assign_tasks(self, tracker: "TrackerState") -> int:
        jt = self.jt
        self.live.sync_tracker(tracker)
        self.off_switch_refused = False
        conf = self.cconf
        assigned = 0
        # addMapTasks
        avail = tracker.map_slots - self.used_slots(tracker, MAP)
        off_switch_ok = True
        after = conf.maximum_tasks_after_offswitch
        while avail > 0 and self.order[MAP] or (avail > 0 and tracker.index in self.reservations[MAP]):
            got = self._lookup(MAP, tracker, avail, off_switch_ok)
            if got is None or got is _MISMATCH:
                break
            cj, local = got
            self._launched(cj, MAP, tracker)
            assigned += 1
            if assigned >= conf.maximum_tasks_per_heartbeat:
                break
            if not local:
                off_switch_ok = False
            if not off_switch_ok:
                if after == 0:
                    break
                after -= 1
            avail -= cj.slots[MAP]
        # addReduceTask: at most one reduce per heartbeat
        free = tracker.reduce_slots - self.used_slots(tracker, REDUCE)
        if free > 0 and (self.order[REDUCE] or tracker.index in self.reservations[REDUCE]):
            got = self._lookup(REDUCE, tracker, free, True)
            if got is not None and got is not _MISMATCH:
                cj, _ = got
                self._launched(cj, REDUCE, tracker)
                assigned += 1
        # Missed-opportunity counters grow only with lookups: keep every free tracker heartbeating meanwhile.
        self.waiting = keep_polling(jt, tracker, self.off_switch_refused, self.waiting)
        self._flush_loosened()
        return assigned
