"""Contention-aware replay (``--contention tdam``): CA-Mumak's TDAM inside the heartbeat engine.

Follows the dissertation's Epochs algorithm (chapter 5, Algorithm 7, eq. 5.3) as TDAM and CA-Mumak apply it
(sections 6.3 and 6.5): every TaskTracker is a closed queueing network (an ``m``-core CPU by Seidmann's method plus
its disks, :class:`mrsim.contention.NodeSpec`), the scheduler under test builds each node's local task stream, and
a task's completion time follows from the contention it meets there instead of from the trace.

How the engine drives the model (``docs/tdam.md`` has the user-facing version):

* One :class:`~mrsim.contention.NodeContention` per TaskTracker, one :class:`~mrsim.contention.MixCache` per
  distinct ``(cores, disks)``, so nodes of one type share solved mixes (``engine-performance.md`` §5).
* **Launch** (``obtain_new_map_task``): the task joins its node's mix with its demand vector
  (:func:`mrsim.demands.demand_rows`: cpu + memory on the CPU, disk striped over the disks, all divided by the
  node's speed). **Completion**: the node model retires it at its exact finish instant (eq. 5.3 accrual), and the
  JobTracker hears of it as of a trace completion (task mode: at once; heartbeat mode: at the next heartbeat).
  A **kill** (preemption) takes it off the node at once.
* **Epoch boundaries** (any start or end on a node) re-solve only that node, once per engine event however many
  tasks started in it (launches in one heartbeat are batched). Each node has at most one live completion event,
  ``EV_NODE_DONE`` at the node's earliest predicted completion, tombstoned by a per-node stamp; and every running
  task's ``job.map_finish[i]`` / ``job.reduce_finish[i]`` is rewritten to its new predicted finish, so schedulers
  and ``kill_task`` read current predictions. The base class's trace-duration ``TASK_DONE`` events are stale by
  construction here and are dropped when they pop.
* **Reduces**: the shuffle stays time-based as in the base engine (SimMR's model; the dissertation does not model
  shuffle or network contention, section 6.6). A reduce holds its slot from launch but loads its node only from
  its shuffle end: first-wave reduces (SimMR's filler) from ``last map finish + first_shuffle`` once the map stage
  is done, later ones from ``launch + typical_shuffle`` (``EV_SHUFFLE_END``). Its demand is the post-shuffle work.
* **Without demands** a task's demand is its trace duration on the CPU, so alone on an idle node it takes exactly
  its trace duration; the run's warnings say how many jobs used this fallback.

Slots may exceed cores: nothing caps concurrency but the slots, and the model decides how slow tasks become
(ten 100-s CPU tasks on one core take 1000 s, section 6.6).

Costs per epoch on a node: one mix lookup (an AMVA solve on a cache miss, O(sweeps x shapes x centres)) plus
O(tasks on the node) to publish predictions; per launch O(log n + shapes); per completion O(shapes).
"""

from __future__ import annotations

from dataclasses import replace
from heapq import heappush
from typing import Callable

from mrsim.cluster import ClusterSpec
from mrsim.contention import MixCache, NodeContention, NodeSpec
from mrsim.demands import TaskKind, demand_rows, fallback_rows, has_demands
from mrsim.errors import InputError
from mrsim.hadoop_conf import HadoopConf
from mrsim.scheduling import Locality, TaskScheduler
from mrsim.templates import Workload
from mrsim.tracker.jobtracker import (
    EV_JOB_ARRIVAL,
    EV_TASK_DONE,
    ORDER_JOB_ARRIVAL,
    ORDER_TASK_DONE,
    JobTracker,
)
from mrsim.tracker.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState

# Event kinds after the base table (job arrival, task done, heartbeat, timer). Both sort with task completions
# at one instant (ORDER_TASK_DONE): after arrivals, before heartbeats; ``seq`` orders them among themselves.
EV_NODE_DONE, EV_SHUFFLE_END = 4, 5

_MODELLED = frozenset({"cpu", "disk", "memory"})


class ContentionJobTracker(JobTracker):
    """The heartbeat JobTracker with task durations from per-node queueing networks (TDAM, Algorithm 7)."""

    def __init__(self, workload: Workload, cluster: ClusterSpec, conf: HadoopConf, scheduler: TaskScheduler,
                 **kwargs: object) -> None:
        super().__init__(workload, cluster, conf, scheduler, **kwargs)  # type: ignore[arg-type]
        caches: dict[NodeSpec, MixCache] = {}
        self.nodes: list[NodeContention] = []
        for t in cluster.trackers:
            spec = NodeSpec(t.cores, t.disks)
            cache = caches.get(spec)
            if cache is None:
                cache = caches[spec] = MixCache(spec)
            self.nodes.append(NodeContention(cache))
        self.caches: tuple[MixCache, ...] = tuple(caches.values())
        n = len(self.trackers)
        self._speed = [t.speed for t in cluster.trackers]
        self._disks = [t.disks for t in cluster.trackers]
        self._stamp = [0] * n  # tombstone of each node's completion event
        self._next = [INF] * n  # time of each node's live completion event (INF: none)
        self._dirty: list[int] = []  # nodes whose mix changed in the current engine event
        self._is_dirty = [False] * n
        self._shuffling = [0] * n  # reduces holding a slot but not yet loading the node
        self._shuffle_pending: set[int] = set()  # reduce gids with a live EV_SHUFFLE_END event
        self._map_rows: dict[int, list[tuple[float, float]]] = {}  # job index -> per task (cpu_s, disk_s)
        self._reduce_rows: dict[int, list[tuple[float, float]]] = {}
        self.epochs = 0  # node re-solves (flushes of a changed mix)
        self._diverted: list[tuple[float, int, int, int, int, int]] = []  # see _drop_diverted
        self._validate(workload)

    # ----------------------------------------------------------------------------------------- set-up

    def _validate(self, workload: Workload) -> None:
        diskless = [t.name for t in self.cluster.trackers if t.disks == 0]
        fallback: list[str] = []
        for t in workload:
            bad = set(t.demand_resources) - _MODELLED
            if (t.map_demands is not None or t.reduce_demands is not None) and bad:
                raise InputError(f"job {t.job_id}: demand resource(s) {', '.join(sorted(bad))} are not in the node "
                                 f"model (expected cpu, disk, memory)")
            if diskless and "disk" in t.demand_resources:
                col = t.demand_resources.index("disk")
                for arr in (t.map_demands, t.reduce_demands):
                    if arr is not None and arr.size and float(arr[:, col].max()) > 0.0:
                        raise InputError(f"job {t.job_id} has disk demand but node {diskless[0]} has no disk")
            if not has_demands(t):
                fallback.append(t.job_id)
        if fallback:
            note = (f"--contention tdam: {len(fallback)} of {len(workload)} job(s) have no service demands "
                    f"(first: {fallback[0]}); their tasks' demand is their trace duration on the CPU, so a task "
                    f"alone on an idle node takes its trace duration")
            # Results carry the workload's warnings (mrsim.tracker.results), so the note reaches the output.
            self.workload = replace(workload, warnings=(*workload.warnings, note))
        self.fallback_jobs = len(fallback)

    def run(self, after_event: Callable[[], None] | None = None) -> None:
        """Replay the whole workload (as :meth:`JobTracker.run`, with the node-model event kinds added)."""
        kernel = self.kernel
        for job in self.jobs:
            kernel.schedule(job.submit, ORDER_JOB_ARRIVAL, EV_JOB_ARRIVAL, job.index, 0)
        if self.naive:
            for t in self.trackers:
                self._schedule_heartbeat(t, t.phase)
        self.scheduler.start(self)
        kernel.run((self._on_job_arrival, self._drop_trace_completion, self._on_heartbeat, self._on_timer,
                    self._on_node_done, self._on_shuffle_end), after_event)

    # ----------------------------------------------------------------------------------------- scheduler API

    def node_model(self, tracker: TrackerState) -> NodeContention:
        """The contention model of ``tracker``'s node (read-only for schedulers: use its what-if queries)."""
        return self.nodes[tracker.index]

    def next_task_demand(self, job: JobState, tracker: TrackerState, reduce: bool = False) -> tuple[float, ...] | None:
        """Demand vector on ``tracker`` (s per ``NodeSpec.resources``) of the task ``obtain_new_*`` would launch
        next for ``job``, or None when it has none pending. For admission control (CA-FIFO, Algorithm 9)."""
        if reduce:
            if job.reduces_pending == 0:
                return None
            i = job.requeued_reduces[-1] if job.requeued_reduces else job.next_reduce
            cpu, disk = self._reduce_rows[job.index][i]
        else:
            if job.maps_pending == 0:
                return None
            i = job.requeued_maps[-1] if job.requeued_maps else job.next_map
            cpu, disk = self._map_rows[job.index][i]
        return self._vector(tracker.index, cpu, disk)

    def contention_stats(self) -> dict[str, int]:
        """Model counters for the run record: epochs (node re-solves), mix-cache hits and AMVA solves, etc."""
        out = {"epochs": self.epochs, "fallback_jobs": self.fallback_jobs}
        for cache in self.caches:
            for key, value in cache.stats().items():
                out[key] = out.get(key, 0) + value
        return out

    def obtain_new_map_task(self, job: JobState, tracker: TrackerState, locality: Locality = Locality.ANY) -> bool:
        requeued = job.requeued_maps
        i = requeued[-1] if requeued else job.next_map  # the index JobTracker.obtain_new_map_task launches
        k = self.kernel
        heap = k.heap
        k.heap = self._diverted
        try:
            launched = JobTracker.obtain_new_map_task(self, job, tracker, locality)
        finally:
            k.heap = heap
        if self._diverted:
            self._drop_diverted()
        if not launched:
            return False
        cpu, disk = self._map_rows[job.index][i]
        self._contend(tracker.index, (job.index << JOB_SHIFT) | i, cpu, disk)
        return True

    def obtain_new_reduce_task(self, job: JobState, tracker: TrackerState) -> bool:
        requeued = job.requeued_reduces
        i = requeued[-1] if requeued else job.next_reduce
        k = self.kernel
        heap = k.heap
        k.heap = self._diverted
        try:
            launched = JobTracker.obtain_new_reduce_task(self, job, tracker)
        finally:
            k.heap = heap
        if self._diverted:
            self._drop_diverted()
        if not launched:
            return False
        self._shuffling[tracker.index] += 1
        if job.map_stage_done:  # later-wave reduce: the base engine set its shuffle end (launch + typical)
            self._shuffle_until(job, (job.index << JOB_SHIFT) | REDUCE_BIT | i, tracker.index, job.reduce_shuffle_end[i])
        # else: a first-wave filler; _map_stage_done releases it
        return True

    def kill_task(self, job: JobState, reduce: bool) -> float:
        where = list(job.reduce_tracker if reduce else job.map_tracker)  # the base clears the victim's tracker
        wasted = JobTracker.kill_task(self, job, reduce)
        if wasted < 0.0:
            return wasted
        i = (job.requeued_reduces if reduce else job.requeued_maps)[-1]
        ti = where[i]
        gid = (job.index << JOB_SHIFT) | (REDUCE_BIT if reduce else 0) | i
        node = self.nodes[ti]
        if gid in node:
            node.remove_task(gid, self.kernel.now)
            self._mark(ti)
        else:  # a reduce still in its shuffle: it never loaded the node
            self._shuffling[ti] -= 1
            self._shuffle_pending.discard(gid)
        return wasted

    # ----------------------------------------------------------------------------------------- handlers

    def _on_job_arrival(self, now: float, order: int, index: int, b: int) -> None:
        t = self.jobs[index].template
        self._map_rows[index] = demand_rows(t, TaskKind.MAP) or fallback_rows(t.map_durations.tolist())
        self._reduce_rows[index] = demand_rows(t, TaskKind.REDUCE) or fallback_rows(t.reduce_durations.tolist())
        JobTracker._on_job_arrival(self, now, order, index, b)
        if self._dirty:
            self._flush()

    def _drop_trace_completion(self, now: float, order: int, tracker_index: int, gid: int) -> None:
        """A trace-duration completion: never valid under the node model (none is queued; see _drop_diverted)."""

    def _drop_diverted(self) -> None:
        """Forward what the base launch path pushed while the heap was diverted, except its trace-duration
        ``TASK_DONE`` events: those would only be stale events costing a push and a pop per task. (A hook in
        ``JobTracker`` for queueing a task's completion would make this diversion unnecessary.)"""
        heap = self.kernel.heap
        for event in self._diverted:
            if event[3] != EV_TASK_DONE:
                heappush(heap, event)
        self._diverted.clear()

    def _on_node_done(self, now: float, order: int, ti: int, stamp: int) -> None:
        """The node's earliest predicted completion is due: retire every task that ends now, as the base engine
        retires a trace completion (task mode: applied at once; heartbeat mode: reported at the next heartbeat)."""
        if stamp != self._stamp[ti]:
            return  # the mix changed after this event was queued
        self._next[ti] = INF
        jobs = self.jobs
        for _, gid in self.nodes[ti].advance(now):
            job = jobs[gid >> JOB_SHIFT]
            (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = now
            self._on_task_done(now, order, ti, gid)
        self._mark(ti)
        self._flush()

    def _on_shuffle_end(self, now: float, order: int, ti: int, gid: int) -> None:
        """A reduce's shuffle ended: its post-shuffle demand joins the node's mix."""
        job = self.jobs[gid >> JOB_SHIFT]
        i = gid & TASK_MASK
        if gid not in self._shuffle_pending or job.reduce_shuffle_end[i] != now or job.reduce_tracker[i] != ti:
            return  # killed (and maybe relaunched with another shuffle end)
        self._shuffle_pending.discard(gid)
        self._shuffling[ti] -= 1
        cpu, disk = self._reduce_rows[job.index][i]
        self._contend(ti, gid, cpu, disk)
        self._flush()

    def _on_heartbeat(self, now: float, order: int, tracker_index: int, stamp: int) -> None:
        JobTracker._on_heartbeat(self, now, order, tracker_index, stamp)
        if self._dirty:
            self._flush()

    def _on_timer(self, now: float, order: int, token: int, b: int) -> None:
        JobTracker._on_timer(self, now, order, token, b)
        if self._dirty:
            self._flush()

    def _map_stage_done(self, job: JobState, now: float) -> None:
        waiting = job.waiting_reduces  # the base computes their shuffle ends, then replaces the list
        k = self.kernel
        heap = k.heap
        k.heap = self._diverted
        try:
            JobTracker._map_stage_done(self, job, now)
        finally:
            k.heap = heap
        if self._diverted:
            self._drop_diverted()
        for gid in waiting:
            i = gid & TASK_MASK
            self._shuffle_until(job, gid, job.reduce_tracker[i], job.reduce_shuffle_end[i])

    def _finish_job(self, job: JobState, now: float) -> None:
        JobTracker._finish_job(self, job, now)
        self._map_rows.pop(job.index, None)
        self._reduce_rows.pop(job.index, None)

    # ----------------------------------------------------------------------------------------- the model

    def _vector(self, ti: int, cpu: float, disk: float) -> tuple[float, ...]:
        """Demand vector ``(cpu, disk0, ...)`` on node ``ti``: disk striped evenly, everything divided by speed."""
        speed = self._speed[ti]
        d = self._disks[ti]
        if d == 1:
            return (cpu / speed, disk / speed)
        if d == 0:
            return (cpu / speed,)  # _validate rejected disk demand on diskless nodes
        share = disk / d / speed
        return (cpu / speed,) + (share,) * d

    def _contend(self, ti: int, gid: int, cpu: float, disk: float) -> None:
        self.nodes[ti].add_task(gid, self._vector(ti, cpu, disk), self.kernel.now)
        self._mark(ti)

    def _shuffle_until(self, job: JobState, gid: int, ti: int, shuffle_end: float) -> None:
        """A reduce counted in ``_shuffling`` loads its node from ``shuffle_end`` on (now, or by an event)."""
        k = self.kernel
        if shuffle_end <= k.now:
            self._shuffling[ti] -= 1
            cpu, disk = self._reduce_rows[job.index][gid & TASK_MASK]
            self._contend(ti, gid, cpu, disk)
            return
        self._shuffle_pending.add(gid)
        k.seq += 1
        heappush(k.heap, (shuffle_end, ORDER_TASK_DONE, k.seq, EV_SHUFFLE_END, ti, gid))

    def _mark(self, ti: int) -> None:
        if not self._is_dirty[ti]:
            self._is_dirty[ti] = True
            self._dirty.append(ti)

    def _flush(self) -> None:
        """End of an epoch on every changed node: re-solve, queue its next completion, publish predictions."""
        k = self.kernel
        now = k.now
        jobs = self.jobs
        for ti in self._dirty:
            self._is_dirty[ti] = False
            self.epochs += 1
            node = self.nodes[ti]
            nxt = node.next_completion()
            if nxt is None:
                if self._next[ti] != INF:
                    self._stamp[ti] += 1
                    self._next[ti] = INF
                continue
            t = nxt[0] if nxt[0] > now else now
            if t != self._next[ti]:  # an event already queued at exactly t stays valid: it retires what ends at t
                stamp = self._stamp[ti] + 1
                self._stamp[ti] = stamp
                self._next[ti] = t
                k.seq += 1
                heappush(k.heap, (t, ORDER_TASK_DONE, k.seq, EV_NODE_DONE, ti, stamp))
            if len(node) == 1:  # the common case with few slots: the next completion is the only task
                gid = nxt[1]
                job = jobs[gid >> JOB_SHIFT]  # type: ignore[operator]
                (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = nxt[0]  # type: ignore[operator]
                continue
            for gid, finish in node.completion_times().items():
                job = jobs[gid >> JOB_SHIFT]
                (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = finish
        self._dirty.clear()

    # ----------------------------------------------------------------------------------------- invariants

    def check_invariants(self) -> None:
        """The base invariants plus, per node: the model's own check; every slot-holding task is in the model,
        shuffling, or awaiting its report; a node with tasks has exactly one live completion event in the
        future; tasks in the model belong to this tracker. Cost O(running tasks)."""
        super().check_invariants()
        now = self.kernel.now
        assert not self._dirty, "a changed node was not re-solved within its event"
        for t in self.trackers:
            ti = t.index
            node = self.nodes[ti]
            node._check()
            held = t.running_maps + t.running_reduces
            assert len(node) + self._shuffling[ti] + len(t.reports) == held, f"{t}: model and slots disagree"
            assert self._shuffling[ti] >= 0
            assert (self._next[ti] != INF) == (len(node) > 0), f"{t}: completion event missing or stale"
            assert self._next[ti] == INF or self._next[ti] >= now, f"{t}: completion event in the past"
            for gid, finish in node.completion_times().items():
                job = self.jobs[gid >> JOB_SHIFT]
                i = gid & TASK_MASK
                owner = (job.reduce_tracker if gid & REDUCE_BIT else job.map_tracker)[i]
                assert owner == ti, f"task {gid} is in node {ti}'s model but runs on {owner}"
                assert finish >= now - 1e-9 * max(1.0, now), f"task {gid} predicted to finish in the past"
