"""Contention-aware replay (``--contention tdam``): CA-Mumak's TDAM inside the heartbeat engine.

Follows the dissertation's Epochs algorithm (chapter 5, Algorithm 7, eq. 5.3) as TDAM and CA-Mumak apply it
(sections 6.3 and 6.5): every TaskTracker is a closed queueing network (an ``m``-core CPU by Seidmann's method plus
its disks, :class:`mrsim.contention.NodeSpec`), the scheduler under test builds each node's local task stream, and
a task's completion time follows from the contention it meets there instead of from the trace.

How the engine drives the model (``docs/tdam.md`` has the user-facing version):

* One :class:`NodeMix` per TaskTracker, one :class:`~mrsim.contention.MixCache` per distinct ``(cores, disks)``,
  so nodes of one type share solved mixes (``docs/engine.md``, "Why the engine is fast", idea 5).
* **Launch** (``obtain_new_*``): the task joins its node's mix with its demand vector
  (:func:`mrsim.demands.demand_rows`: cpu + memory on the CPU, disk striped over the disks, all divided by the
  node's speed and multiplied by the locality slowdown a plain replay would apply). **Completion**: the node
  model retires it at its exact finish instant, and the JobTracker hears of it as of a trace completion (task
  mode: at once; heartbeat mode: at the next heartbeat). A **kill** (preemption) takes it off the node at once.
* **Epoch boundaries** (any start or end on a node) re-solve only that node, once per engine event however many
  tasks started in it (launches in one heartbeat are batched). Each node has at most one live completion event,
  ``EV_NODE_DONE`` at its earliest predicted completion, tombstoned by a per-node stamp; and every running
  task's ``job.map_finish[i]`` / ``job.reduce_finish[i]`` is rewritten to its new predicted finish, so schedulers
  and ``kill_task`` read current predictions.
* **Reduces**: the shuffle stays time-based as in the base engine (SimMR's model; the dissertation does not model
  shuffle or network contention, sections 6.6 and 7.2). A reduce holds its slot from launch but loads its node
  only from its shuffle end: first-wave reduces (SimMR's filler) from ``last map finish + first_shuffle`` once
  the map stage is done, later ones from ``launch + typical_shuffle`` (``EV_SHUFFLE_END``). Its demand is the
  post-shuffle work.
* **Without demands** a task's demand is its trace duration on the CPU, so alone on an idle node it takes exactly
  its trace duration; the run's warnings say how many jobs used this fallback.

Slots may exceed cores: nothing caps concurrency but the slots, and the model decides how slow tasks become
(ten 100-s CPU tasks on one core take 1000 s, section 6.6).

**Why a node model of its own.** :class:`NodeMix` is the engine's hot-path form of
:class:`mrsim.contention.NodeContention` (same eq. 5.3 accrual by shape, same :class:`~mrsim.contention.MixCache`
solves, same tie rule; ``tests/tdam/test_nodemix.py`` checks it against both that class and the literal
:func:`mrsim.contention.epochs`). It skips what the engine does not need per call: demand re-validation (the
templates validated them), pending-task bookkeeping and versions (the engine retires finished tasks in the same
event). A task lifecycle costs about 7 µs instead of 23 µs, which is what keeps a contention-aware replay of the
1148-job benchmark within 3x of a plain one (``benchmarks/bench_tdam.py``).

Costs per epoch on a node: one mix lookup (an AMVA solve on a cache miss, O(sweeps x shapes x centres)) plus
O(tasks on the node) to publish predictions; per launch O(log n + shapes); per completion O(shapes).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import replace
from heapq import heappush
from typing import Iterator, Sequence

from mrsim.cluster import ClusterSpec
from mrsim.contention import MixCache, NodeSpec
from mrsim.demands import TaskKind, demand_rows, fallback_rows, has_demands
from mrsim.errors import InputError
from mrsim.hadoop_conf import HadoopConf
from mrsim.scheduling import Locality, TaskScheduler
from mrsim.templates import Workload
from mrsim.tracker.jobtracker import EV_TASK_DONE, ORDER_TASK_DONE, JobTracker
from mrsim.tracker.kernel import Handler, Kernel
from mrsim.tracker.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState

# Event kinds of this engine, at fixed indices past JobTracker's own table (the kernel pads the gap), so the base
# class may add kinds without renumbering these. Both sort with task completions at one instant
# (ORDER_TASK_DONE): after arrivals, before heartbeats; ``seq`` orders them among themselves.
EV_NODE_DONE, EV_SHUFFLE_END = 16, 17

#: Tasks predicted to end within this relative window of each other end together (as NodeContention's tie rule).
TIE_RTOL = 1e-10

_MODELLED = frozenset({"cpu", "disk", "memory"})


# --------------------------------------------------------------------------------------------- the node model


class _Group:
    """Running tasks of one demand shape on one node (eq. 5.3: they all lose residual size at one rate)."""

    __slots__ = ("count", "virtual", "stretch", "heap")

    def __init__(self) -> None:
        self.count = 0
        self.virtual = 0.0  # size units accomplished by every task of the shape since the group was created
        self.stretch = math.inf  # wall seconds per size unit under the current mix
        self.heap: list[tuple[float, int, int]] = []  # (virtual finish, seq, gid), stale entries pruned lazily


class NodeMix:
    """Running tasks of one node and their completions under the Epochs rule (Algorithm 7, eq. 5.3).

    A task's demand vector ``d`` (s per ``NodeSpec.resources``) is ``size * u`` with ``size = sum(d)`` and ``u``
    its shape. With one job per AMVA class the Schweitzer queue lengths do not depend on ``size``, so a mix solves
    per shape (population = count) from the shared :class:`~mrsim.contention.MixCache`, and a task's remaining
    wall time is ``residual_size * stretch[shape]``. Each shape keeps a virtual clock; a task's virtual finish is
    ``clock_at_start + size``. Time only moves forward; the caller guarantees no task finishes unseen between two
    calls (the engine queues an event at :meth:`next_completion`).

    Keys are the engine's task gids. Costs: :meth:`add`, :meth:`remove` O(log n + shapes) (plus a solve when time
    next moves after a change and the mix is not cached); :meth:`next_completion` O(shapes); :meth:`retire`
    O(shapes + finished x log n).
    """

    __slots__ = ("cache", "now", "groups", "tasks", "instant", "dirty", "seq", "util", "cpu_only", "last", "sids",
                 "digits")

    def __init__(self, cache: MixCache, shape_memo: dict[tuple[float, ...], int] | None = None) -> None:
        self.cache = cache
        # Rounded unit vector -> shape id, as MixCache.shape_of keys it; share one per cache between nodes.
        self.sids = shape_memo if shape_memo is not None else {}
        self.digits = cache.shape_digits
        # Shape id of CPU-only demands (the fallback's shape), interned once: skips shape_of's rounding.
        self.cpu_only = cache.shape_of((1.0,) + (0.0,) * cache.spec.disks)[0]
        self.last: tuple[object, ...] = ()  # (signature, entry) of the last solve with one shape
        self.now = 0.0
        self.groups: dict[int, _Group] = {}
        self.tasks: dict[int, tuple[int, float, int]] = {}  # gid -> (shape id, virtual finish, seq)
        self.instant: list[int] = []  # zero-demand tasks: they finish the moment they start
        self.dirty = False
        self.seq = 0
        self.util: tuple[float, ...] = (0.0,) * cache.spec.width

    def __len__(self) -> int:
        return len(self.tasks) + len(self.instant)

    def __contains__(self, gid: int) -> bool:
        return gid in self.tasks or gid in self.instant

    # ----------------------------------------------------------------- changes

    def add(self, gid: int, demand: Sequence[float], now: float) -> None:
        """Start task ``gid`` at ``now`` with a valid demand vector (finite, non-negative, ``spec.width`` long)."""
        self._accrue(now)
        self.seq += 1
        if not any(demand):
            self.instant.append(gid)
            return
        if demand[0] > 0.0 and not any(demand[1:]):
            sid, size = self.cpu_only, demand[0]
        else:
            sid, size = self._shape(demand)
        g = self.groups.get(sid)
        if g is None:
            g = self.groups[sid] = _Group()
        finish_v = g.virtual + size
        g.count += 1
        heappush(g.heap, (finish_v, self.seq, gid))
        self.tasks[gid] = (sid, finish_v, self.seq)
        self.dirty = True

    def remove(self, gid: int, now: float) -> float:
        """Take a running task off the node at ``now`` (a kill); return its residual size (s of demand)."""
        self._accrue(now)
        if gid in self.instant:
            self.instant.remove(gid)
            return 0.0
        sid, finish_v, _ = self.tasks.pop(gid)
        g = self.groups[sid]
        residual = max(0.0, finish_v - g.virtual)
        g.count -= 1
        if g.count == 0:
            del self.groups[sid]
        self.dirty = True  # the heap entry stays behind; next_completion prunes it
        return residual

    def retire(self, now: float) -> list[int]:
        """Advance to ``now`` and take off every task that ends by ``now`` (within :data:`TIE_RTOL`), in start
        order. The caller calls this at :meth:`next_completion` times, so they all end at ``now``."""
        self._accrue(now)
        done: list[tuple[int, int]] = []
        if self.instant:
            done = [(0, gid) for gid in self.instant]
            self.instant.clear()
        window = TIE_RTOL * max(1.0, abs(now))
        tasks = self.tasks
        finished = []
        for sid, g in self.groups.items():
            heap = g.heap
            while heap:
                finish_v, seq, gid = heap[0]
                t = tasks.get(gid)
                if t is None or t[2] != seq:
                    heapq.heappop(heap)
                    continue
                if (finish_v - g.virtual) * g.stretch > window:
                    break
                heapq.heappop(heap)
                del tasks[gid]
                g.count -= 1
                done.append((seq, gid))
            if g.count == 0:
                finished.append(sid)
        for sid in finished:
            del self.groups[sid]
        if finished or (done and done[-1][0]):  # a running task left the mix (instant ones never joined it)
            self.dirty = True
        if len(done) > 1:
            done.sort()
        return [gid for _, gid in done]

    # ----------------------------------------------------------------- queries

    def next_completion(self) -> float:
        """Earliest predicted completion under the current mix (s), ``now`` for a zero-demand task, INF if idle."""
        if self.instant:
            return self.now
        if self.dirty:
            self._solve()
        best = INF
        tasks = self.tasks
        for g in self.groups.values():
            heap = g.heap
            while True:  # a live group has at least one live entry
                finish_v, seq, gid = heap[0]
                t = tasks.get(gid)
                if t is not None and t[2] == seq:
                    break
                heapq.heappop(heap)
            when = (finish_v - g.virtual) * g.stretch
            if when < best:
                best = when
        return self.now + best if best < INF else INF

    def completion_times(self) -> Iterator[tuple[int, float]]:
        """``(gid, predicted finish)`` of every task if the mix stays as it is. O(n)."""
        if self.dirty:
            self._solve()
        now = self.now
        for gid in self.instant:
            yield gid, now
        groups = self.groups
        for gid, (sid, finish_v, _) in self.tasks.items():
            g = groups[sid]
            yield gid, now + max(0.0, finish_v - g.virtual) * g.stretch

    def utilization(self) -> tuple[float, ...]:
        """Per-resource utilization of the current mix (``spec.resources`` order; CPU = fraction of cores busy)."""
        if self.dirty:
            self._solve()
        return self.util

    def predicted_utilization(self, extra: Sequence[float]) -> tuple[float, ...]:
        """Utilization with one more task of demand ``extra`` (s): Algorithm 9's ``maxUtilizedResourceValue(
        task.demands)`` before the max. Leaves the node unchanged. O(shapes log shapes) on a cache hit."""
        if not any(extra):
            return self.utilization()
        sid, _ = self._shape(extra)
        counts = {s: g.count for s, g in self.groups.items()}
        counts[sid] = counts.get(sid, 0) + 1
        return self.cache.solve(tuple(sorted(counts.items()))).utilization

    # ----------------------------------------------------------------- internals

    def _shape(self, demand: Sequence[float]) -> tuple[int, float]:
        """``MixCache.shape_of`` with a memo in front: same key (the unit vector rounded to the cache's digits),
        hence the same shape id, without re-interning. ``a + b`` is ``fsum`` for two terms (both exactly rounded)."""
        size = demand[0] + demand[1] if len(demand) == 2 else math.fsum(demand)
        digits = self.digits
        key = tuple([round(d / size, digits) for d in demand])
        sid = self.sids.get(key)
        if sid is None:
            sid = self.sids[key] = self.cache.shape_of(demand)[0]
        return sid, size

    def _solve(self) -> None:
        self.dirty = False
        groups = self.groups
        if not groups:
            self.util = (0.0,) * self.cache.spec.width
            return
        if len(groups) == 1:
            ((sid, g),) = groups.items()
            key = (sid, g.count)
            last = self.last
            if last and last[0] == key:  # the same one-shape mix as last time (common with few slots)
                entry = last[1]
            else:
                entry = self.cache.solve((key,))
                self.last = (key, entry)
            g.stretch = entry.stretch[0]
        else:
            sig = tuple(sorted((sid, g.count) for sid, g in groups.items()))
            entry = self.cache.solve(sig)
            for (sid, _), stretch in zip(sig, entry.stretch):
                groups[sid].stretch = stretch
        self.util = entry.utilization

    def _accrue(self, now: float) -> None:
        dt = now - self.now
        if dt > 0.0:
            if self.dirty:
                self._solve()  # the mix that held since the last change
            for g in self.groups.values():
                g.virtual += dt / g.stretch  # eq. 5.3: every task of the shape accomplishes d(E)/stretch
            self.now = now
        elif dt < -1e-9 * max(1.0, abs(now)):
            raise ValueError(f"time went backwards on a node: {now!r} < {self.now!r}")

    def _check(self) -> None:
        """Invariants, for tests: counts match tasks, every task is in its heap, residuals within [0, size]."""
        per_shape: dict[int, int] = {}
        for gid, (sid, finish_v, seq) in self.tasks.items():
            per_shape[sid] = per_shape.get(sid, 0) + 1
            g = self.groups[sid]
            assert (finish_v, seq, gid) in g.heap, f"task {gid} missing from its shape heap"
            assert finish_v - g.virtual >= -1e-9 * max(1.0, finish_v), f"task {gid} ran past its demand unseen"
        assert per_shape == {sid: g.count for sid, g in self.groups.items()}, "shape counts disagree with tasks"
        assert not set(self.instant) & set(self.tasks), "a task is both instant and running"


# --------------------------------------------------------------------------------------------- the engine


def _no_such_event(now: float, order: int, a: int, b: int) -> None:
    raise RuntimeError(f"event of an unknown kind at t={now}")


class _Kernel(Kernel):
    """The engine kernel with this module's handlers at kinds ``EV_NODE_DONE``, ``EV_SHUFFLE_END`` of the table
    :meth:`JobTracker.run` passes (so ``run`` itself is inherited, not copied)."""

    __slots__ = ("extra",)

    def __init__(self, extra: tuple[Handler, ...]) -> None:
        super().__init__()
        self.extra = extra

    def run(self, handlers: Sequence[Handler], after_event=None, until: float = INF) -> None:  # type: ignore[override]
        if len(handlers) > EV_NODE_DONE:
            raise RuntimeError(f"JobTracker has {len(handlers)} event kinds; ContentionJobTracker's start at {EV_NODE_DONE}")
        padding = (_no_such_event,) * (EV_NODE_DONE - len(handlers))
        super().run((*handlers, *padding, *self.extra), after_event, until)


class ContentionJobTracker(JobTracker):
    """The heartbeat JobTracker with task durations from per-node queueing networks (TDAM, Algorithm 7)."""

    def __init__(self, workload: Workload, cluster: ClusterSpec, conf: HadoopConf, scheduler: TaskScheduler,
                 **kwargs: object) -> None:
        super().__init__(workload, cluster, conf, scheduler, **kwargs)  # type: ignore[arg-type]
        # Nothing is queued yet: swap in a kernel that also dispatches this class's event kinds.
        self.kernel = _Kernel((self._on_node_done, self._on_shuffle_end))
        caches: dict[NodeSpec, tuple[MixCache, dict[tuple[float, ...], int]]] = {}
        self.nodes: list[NodeMix] = []
        for t in cluster.trackers:
            spec = NodeSpec(t.cores, t.disks)
            shared = caches.get(spec)
            if shared is None:
                shared = caches[spec] = (MixCache(spec), {})
            self.nodes.append(NodeMix(*shared))
        self.caches: tuple[MixCache, ...] = tuple(cache for cache, _ in caches.values())
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
        self._diverted: list[tuple[float, int, int, int, int, int]] = []  # see _launch
        self._mix_waiters: set[int] = set()  # trackers parked until their node's mix changes
        self.epochs = 0  # node re-solves (ends of epochs on a node)
        self.fallback_jobs = 0
        if getattr(conf, "map_speculative", False) or getattr(conf, "reduce_speculative", False):
            # A backup attempt would be a second task of the same gid on another node's model.
            raise InputError("speculative execution is not supported with --contention tdam (turn one of them off)")
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
        self.fallback_jobs = len(fallback)
        if fallback:
            note = (f"--contention tdam: {len(fallback)} of {len(workload)} job(s) have no service demands "
                    f"(first: {fallback[0]}); their tasks' demand is their trace duration on the CPU, so a task "
                    f"alone on an idle node takes its trace duration")
            # Results carry the workload's warnings (mrsim.tracker.results), so the note reaches the output.
            self.workload = replace(workload, warnings=(*workload.warnings, note))

    # ----------------------------------------------------------------------------------------- scheduler API

    def node_model(self, tracker: TrackerState) -> NodeMix:
        """The contention model of ``tracker``'s node (schedulers use its read-only queries)."""
        return self.nodes[tracker.index]

    def next_task_demand(self, job: JobState, tracker: TrackerState, reduce: bool = False) -> tuple[float, ...] | None:
        """Demand vector on ``tracker`` (s per ``NodeSpec.resources``) of the job's next task of that kind in launch
        order (requeued tasks first), or None when none is pending. For admission control (CA-FIFO).

        With locality-aware map placement the engine may launch another of the job's maps; tasks of one job
        usually share a demand shape, which is all utilization depends on.
        """
        if reduce:
            if job.reduces_pending == 0:
                return None
            i = job.requeued_reduces[-1] if job.requeued_reduces else job.next_reduce
            cpu, disk = self._reduce_rows[job.index][i]
        else:
            if job.maps_pending == 0:
                return None
            i = job.requeued_maps[-1] if job.requeued_maps else min(job.next_map, job.n_maps - 1)
            cpu, disk = self._map_rows[job.index][i]
        return self._vector(tracker.index, cpu, disk)

    def park_until_mix_change(self, tracker: TrackerState) -> None:
        """Called by a scheduler that declined because of ``tracker``'s node mix (CA-FIFO): the tracker stays
        parked until its mix changes. Completions and kills on it already wake it (base engine); this also wakes
        it when a reduce's shuffle ends there (a new task can lower another resource's utilization). New jobs
        and requeued tasks wake trackers with free slots as usual. Exact with respect to polling every heartbeat
        for decisions that depend only on the node's mix and the jobs' pending task shapes."""
        self._mix_waiters.add(tracker.index)

    def contention_stats(self) -> dict[str, int]:
        """Model counters for run records: epochs (node re-solves), fallback jobs, mix-cache hits, AMVA solves..."""
        out = {"epochs": self.epochs, "fallback_jobs": self.fallback_jobs}
        for cache in self.caches:
            for key, value in cache.stats().items():
                out[key] = out.get(key, 0) + value
        return out

    def obtain_new_map_task(self, job: JobState, tracker: TrackerState, locality: Locality = Locality.ANY):  # type: ignore[no-untyped-def]
        """As :meth:`JobTracker.obtain_new_map_task` (same return value); the map also joins its node's mix."""
        launched, gid = self._launch(JobTracker.obtain_new_map_task, job, tracker, locality)
        if not launched:
            return launched
        assert gid >= 0, "a map launched without a completion event"
        i = gid & TASK_MASK
        cpu, disk = self._map_rows[job.index][i]
        factor = self._locality_factor(job, i)
        self._contend(tracker.index, gid, cpu * factor, disk * factor)
        return launched

    def obtain_new_reduce_task(self, job: JobState, tracker: TrackerState):  # type: ignore[no-untyped-def]
        """As :meth:`JobTracker.obtain_new_reduce_task`; the reduce joins its node's mix when its shuffle ends."""
        waiting = len(job.waiting_reduces)
        launched, gid = self._launch(JobTracker.obtain_new_reduce_task, job, tracker)
        if not launched:
            return launched
        ti = tracker.index
        self._shuffling[ti] += 1
        if gid >= 0:  # later-wave reduce: the base engine set its shuffle end (launch + typical shuffle)
            self._shuffle_until(job, gid, ti, job.reduce_shuffle_end[gid & TASK_MASK])
        else:  # a first-wave filler: _map_stage_done releases it
            assert len(job.waiting_reduces) == waiting + 1
        return launched

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
            node.remove(gid, self.kernel.now)
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

    def _on_node_done(self, now: float, order: int, ti: int, stamp: int) -> None:
        """The node's earliest predicted completion is due: retire every task that ends now, as the base engine
        retires a trace completion (task mode: applied at once; heartbeat mode: reported at the next heartbeat)."""
        if stamp != self._stamp[ti]:
            return  # the mix changed after this event was queued
        self._next[ti] = INF
        jobs = self.jobs
        done = self._on_task_done
        for gid in self.nodes[ti].retire(now):
            job = jobs[gid >> JOB_SHIFT]
            (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = now
            done(now, order, ti, gid)
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
        if ti in self._mix_waiters:
            self._mix_waiters.discard(ti)
            self.wake(self.trackers[ti])
        self._flush()

    def _on_heartbeat(self, now: float, order: int, tracker_index: int, stamp: int) -> None:
        if self._mix_waiters:
            self._mix_waiters.discard(tracker_index)  # the scheduler decides afresh (and may park it again)
        JobTracker._on_heartbeat(self, now, order, tracker_index, stamp)
        if self._dirty:
            self._flush()

    def _on_timer(self, now: float, order: int, token: int, b: int) -> None:
        JobTracker._on_timer(self, now, order, token, b)
        if self._dirty:
            self._flush()

    def _map_stage_done(self, job: JobState, now: float) -> None:
        waiting = job.waiting_reduces  # the base computes their shuffle ends, then replaces the list
        self._launch(JobTracker._map_stage_done, job, now)
        for gid in waiting:
            i = gid & TASK_MASK
            self._shuffle_until(job, gid, job.reduce_tracker[i], job.reduce_shuffle_end[i])

    def _finish_job(self, job: JobState, now: float) -> None:
        JobTracker._finish_job(self, job, now)
        self._map_rows.pop(job.index, None)
        self._reduce_rows.pop(job.index, None)

    # ----------------------------------------------------------------------------------------- the model

    def _launch(self, base_call, *args):  # type: ignore[no-untyped-def]
        """Run a base launch path with the event heap diverted; return ``(its result, gid)`` where ``gid`` names
        the task whose trace-duration ``TASK_DONE`` it queued (that event is dropped: the node model decides the
        finish), or is -1 when it queued none (nothing launched, or a first-wave reduce).

        Why: ``JobTracker`` queues each task's completion inside ``obtain_new_*``; the event names the launched
        task (with locality the engine, not the caller, picks the map). A ``JobTracker`` hook for queuing a
        task's completion would replace this diversion. Other events the call queues are forwarded.
        """
        k = self.kernel
        heap = k.heap
        diverted = self._diverted
        k.heap = diverted
        try:
            result = base_call(self, *args)
        finally:
            k.heap = heap
        gid = -1
        if diverted:
            for event in diverted:
                if event[3] == EV_TASK_DONE:
                    gid = event[5]
                else:
                    heappush(heap, event)
            diverted.clear()
        return result, gid

    def _locality_factor(self, job: JobState, i: int) -> float:
        """The duration factor a plain replay applies to this map (rack-local / off-switch slowdown), applied to
        its demand vector instead: ``1.0`` for jobs without split locations known to the cluster."""
        levels = getattr(job, "map_locality", None)
        if not levels or getattr(job, "host_cache", None) is None:
            return 1.0
        level = levels[i]
        if level == 2:
            return float(getattr(self, "rack_local_slowdown", 1.0))
        if level == 3:
            return float(getattr(self, "off_switch_slowdown", 1.0))
        return 1.0

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
        self.nodes[ti].add(gid, self._vector(ti, cpu, disk), self.kernel.now)
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
        nodes, nexts, stamps, is_dirty = self.nodes, self._next, self._stamp, self._is_dirty
        dirty = self._dirty
        self.epochs += len(dirty)
        for ti in dirty:
            is_dirty[ti] = False
            node = nodes[ti]
            t = node.next_completion()
            if t == INF:
                if nexts[ti] != INF:
                    stamps[ti] += 1
                    nexts[ti] = INF
                continue
            if t < now:
                t = now
            if t != nexts[ti]:  # an event already queued at exactly t stays valid: it retires what ends at t
                stamp = stamps[ti] + 1
                stamps[ti] = stamp
                nexts[ti] = t
                k.seq += 1
                heappush(k.heap, (t, ORDER_TASK_DONE, k.seq, EV_NODE_DONE, ti, stamp))
            tasks = node.tasks
            if len(tasks) == 1 and not node.instant:  # common with few slots: the only task ends at t
                for gid in tasks:
                    job = jobs[gid >> JOB_SHIFT]
                    (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = t
                continue
            for gid, finish in node.completion_times():
                job = jobs[gid >> JOB_SHIFT]
                (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = finish
        dirty.clear()

    # ----------------------------------------------------------------------------------------- invariants

    def check_invariants(self) -> None:
        """The base invariants plus, per node: the model's own check; every slot-holding task is in the model,
        shuffling, or awaiting its report; a node with tasks has exactly one live completion event, not in the
        past; tasks in a node's model run on that tracker. Cost O(running tasks)."""
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
            for gid, finish in node.completion_times():
                job = self.jobs[gid >> JOB_SHIFT]
                owner = (job.reduce_tracker if gid & REDUCE_BIT else job.map_tracker)[gid & TASK_MASK]
                assert owner == ti, f"task {gid} is in node {ti}'s model but runs on tracker {owner}"
                assert finish >= now - 1e-9 * max(1.0, now), f"task {gid} predicted to finish in the past"
