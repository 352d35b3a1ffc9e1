"""Contention-aware replay (``--contention tdam``): CA-Mumak's TDAM inside the heartbeat engine.

Follows the dissertation's Epochs algorithm (chapter 5, Algorithm 7, eq. 5.3) as TDAM and CA-Mumak apply it
(sections 6.3 and 6.5): every TaskTracker is a closed queueing network (an ``m``-core CPU by Seidmann's method plus
its disks, :class:`mrsim.contention.NodeSpec`), the scheduler under test builds each node's local task stream, and
a task's completion time follows from the contention it meets there instead of from the trace.

How the engine drives the model (``docs/tdam.md`` has the user-facing version):

* One :class:`NodeMix` per TaskTracker, one :class:`~mrsim.contention.MixCache` per distinct node model
  (:func:`node_spec`: cores, disks, ``cpu_model``, ``memory_architecture``, ``numa_ratio``), so nodes of one type
  share solved mixes across nodes and epochs, looked up by the node's dense count vector. The model is Seidmann's
  CPU by default, an exact multi-server CPU, or chapter 4's memory layer (:func:`mrsim.contention.node.solve_rows`).
* **Launch** (``obtain_new_*``): the task joins its node's mix with its demand vector
  (:func:`mrsim.model.demands.demand_rows` through :func:`mrsim.contention.node.layout_vector`: without a memory layer
  cpu + memory on the CPU and disk striped over the disks; with one, core, memory (local, remote) and disk; all
  divided by the node's speed and multiplied by the locality slowdown a plain replay would apply). **Completion**: the node
  model retires it at its exact finish instant, and the JobTracker hears of it as of a trace completion (task
  mode: at once; heartbeat mode: at the next heartbeat). A **kill** (preemption) takes it off the node at once.
* **Epoch boundaries** (any start or end on a node) re-solve only that node, once per engine event however many
  tasks started in it (launches in one heartbeat are batched). Each node has at most one live completion event,
  a node-done event at its earliest predicted completion, tombstoned by a per-node stamp; and every running
  task's ``job.map_finish[i]`` / ``job.reduce_finish[i]`` is rewritten to its new predicted finish, so schedulers
  and ``kill_task`` read current predictions (for a scheduler declaring ``reads_task_predictions = False`` only
  on demand: before a kill, or through :meth:`ContentionFeature.publish_predictions`).
* **Reduces**: the shuffle stays time-based as in the base engine (SimMR's model; the dissertation does not model
  shuffle or network contention, sections 6.6 and 7.2). A reduce holds its slot from launch but loads its node
  only from its shuffle end: first-wave reduces (SimMR's filler) from ``last map finish + first_shuffle`` once
  the map stage is done, later ones from ``launch + typical_shuffle`` (a shuffle-end event). Its demand is the
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
from typing import TYPE_CHECKING, Iterator, Sequence

from mrsim.contention import MixCache, NodeSpec
from mrsim.contention.node import layout_vector
from mrsim.engine.events import ORDER_TASK_DONE
from mrsim.engine.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState
from mrsim.errors import InputError
from mrsim.model.cluster import TrackerSpec
from mrsim.model.demands import TaskKind, demand_rows, fallback_rows, has_demands

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.engine.jobtracker import JobTracker

#: Tasks predicted to end within this relative window of each other end together (as NodeContention's tie rule).
TIE_RTOL = 1e-10

_MODELLED = frozenset({"cpu", "disk", "memory"})

#: Entries of a node type's shape memo (unit vectors -> shape id) before it is cleared (per-task counter
#: demands make every unrounded unit vector new).
_SHAPE_MEMO_LIMIT = 100_000


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
                 "digits", "stale", "counts")

    def __init__(self, cache: MixCache, shape_memo: dict[tuple[float, ...], int] | None = None) -> None:
        self.cache = cache
        # Rounded unit vector -> shape id, as MixCache.shape_of keys it; share one per cache between nodes.
        self.sids = shape_memo if shape_memo is not None else {}
        self.digits = cache.shape_digits
        # Shape id of CPU-only demands (the fallback's shape), interned once: skips shape_of's rounding.
        self.cpu_only = cache.shape_of((1.0,) + (0.0,) * (cache.spec.width - 1))[0]
        self.last: tuple[object, ...] = ()  # (signature, entry) of the last solve with one shape
        self.now = 0.0
        self.groups: dict[int, _Group] = {}
        self.tasks: dict[int, tuple[int, float, int]] = {}  # gid -> (shape id, virtual finish, seq)
        self.instant: list[int] = []  # zero-demand tasks: they finish the moment they start
        self.dirty = False
        self.seq = 0
        self.stale = 0  # heap entries of killed tasks not yet pruned: while 0, every heap top is a live task
        # Running tasks per shape id, dense, no trailing zeros: the canonical mix key of MixCache.solve_counts.
        self.counts: list[int] = []
        self.util: tuple[float, ...] = (0.0,) * cache.spec.n_resources

    def __len__(self) -> int:
        return len(self.tasks) + len(self.instant)

    def __contains__(self, gid: int) -> bool:
        return gid in self.tasks or gid in self.instant

    # ----------------------------------------------------------------- changes

    def add(self, gid: int, demand: Sequence[float], now: float) -> None:
        """Start task ``gid`` at ``now`` with a valid demand vector (finite, non-negative, ``spec.width`` long)."""
        if now != self.now:
            self._accrue(now)
        self.seq += 1
        if len(demand) == 2:  # (cpu, disk): the default node with one disk
            if demand[1] == 0.0:
                if demand[0] == 0.0:
                    self.instant.append(gid)
                    return
                sid, size = self.cpu_only, demand[0]
            else:
                sid, size = self._shape(demand)
        elif not any(demand):
            self.instant.append(gid)
            return
        elif demand[0] > 0.0 and not any(demand[1:]):
            sid, size = self.cpu_only, demand[0]
        else:
            sid, size = self._shape(demand)
        g = self.groups.get(sid)
        if g is None:
            g = self.groups[sid] = _Group()
        finish_v = g.virtual + size
        g.count += 1
        counts = self.counts
        if sid >= len(counts):
            counts.extend([0] * (sid + 1 - len(counts)))
        counts[sid] += 1
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
        self._uncount(sid)
        if g.count == 0:
            del self.groups[sid]
            self.stale -= len(g.heap) - 1  # the heap goes with the group: its other entries were stale already
        else:
            self.stale += 1  # the heap entry stays behind; next_completion prunes it
        self.dirty = True
        return residual

    def retire(self, now: float) -> list[int]:
        """Advance to ``now`` and take off every task that ends by ``now`` (within :data:`TIE_RTOL`), in start
        order. The caller calls this at :meth:`next_completion` times, so they all end at ``now``."""
        self._accrue(now)
        if not self.stale and not self.instant:  # the common case: every heap top is a live task
            window = TIE_RTOL * max(1.0, abs(now))
            tasks, counts, groups = self.tasks, self.counts, self.groups
            ended: list[tuple[int, int]] = []
            emptied = []
            for sid, g in groups.items():
                heap = g.heap
                virtual, stretch = g.virtual, g.stretch
                if (heap[0][0] - virtual) * stretch > window:
                    continue
                while heap and (heap[0][0] - virtual) * stretch <= window:
                    _, seq, gid = heapq.heappop(heap)
                    del tasks[gid]
                    ended.append((seq, gid))
                    g.count -= 1
                    counts[sid] -= 1
                if not g.count:
                    emptied.append(sid)
            if not ended:
                return []
            for sid in emptied:
                del groups[sid]
            while counts and not counts[-1]:
                counts.pop()
            self.dirty = True
            if len(ended) == 1:
                return [ended[0][1]]
            ended.sort()
            return [gid for _, gid in ended]
        done: list[tuple[int, int]] = []
        if self.instant:
            done = [(0, gid) for gid in self.instant]
            self.instant.clear()
        window = TIE_RTOL * max(1.0, abs(now))
        tasks = self.tasks
        counts = self.counts
        finished = []
        for sid, g in self.groups.items():
            heap = g.heap
            virtual, stretch = g.virtual, g.stretch
            while heap:
                finish_v, seq, gid = heap[0]
                if self.stale:
                    t = tasks.get(gid)
                    if t is None or t[2] != seq:
                        heapq.heappop(heap)
                        self.stale -= 1
                        continue
                if (finish_v - virtual) * stretch > window:
                    break
                heapq.heappop(heap)
                del tasks[gid]
                g.count -= 1
                counts[sid] -= 1
                done.append((seq, gid))
            if g.count == 0:
                finished.append(sid)
                self.stale -= len(heap)  # whatever is left behind belonged to killed tasks
        while counts and not counts[-1]:
            counts.pop()
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
            while self.stale:  # a live group has at least one live entry
                finish_v, seq, gid = heap[0]
                t = tasks.get(gid)
                if t is not None and t[2] == seq:
                    break
                heapq.heappop(heap)
                self.stale -= 1
            when = (heap[0][0] - g.virtual) * g.stretch
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
        if len(demand) == 2:
            size = demand[0] + demand[1]
            raw = (demand[0] / size, demand[1] / size)
        else:
            size = math.fsum(demand)
            raw = tuple([d / size for d in demand])
        sids = self.sids
        # The unrounded unit vector first: rounding is a function of it, so the answer is the same, and a lookup
        # costs a tenth of rounding every entry (tasks of a job usually share their unit vector exactly).
        sid = sids.get(raw)
        if sid is None:
            key = tuple([round(x, self.digits) for x in raw])
            sid = sids.get(key)
            if sid is None:
                sid = self.cache.shape_of(demand)[0]
            if len(sids) >= _SHAPE_MEMO_LIMIT:
                sids.clear()  # a memo only: MixCache keeps the shape ids
            sids[key] = sids[raw] = sid
        return sid, size

    def _solve(self) -> None:
        self.dirty = False
        groups = self.groups
        if not groups:
            self.util = (0.0,) * self.cache.spec.n_resources
            return
        if len(groups) == 1:
            ((sid, g),) = groups.items()
            key = (sid, g.count)
            last = self.last
            if last and last[0] == key:  # the same one-shape mix as last time (common with few slots)
                entry = last[1]
            else:
                entry = self.cache.solve((key,))
                if self.cache.memoize:
                    self.last = (key, entry)
            g.stretch = entry.stretch[0]
        else:
            cache = self.cache
            key = tuple(self.counts)  # canonical mix, built in C: no sort, no pairs
            hit = cache.by_counts.get(key)  # MixCache.solve_counts without the call on a hit (the common case)
            if hit is None:
                hit = cache.solve_counts(key)
            else:
                cache.hits += 1
            sids, entry = hit
            for sid, stretch in zip(sids, entry.stretch):
                groups[sid].stretch = stretch
        self.util = entry.utilization

    def _solve_next(self) -> float:
        """:meth:`_solve`, then the wall time from :attr:`now` to the earliest completion (INF when idle), found in
        the same pass over the shapes. Only when no heap holds stale entries and no zero-demand task waits."""
        self.dirty = False
        groups = self.groups
        if not groups:
            self.util = (0.0,) * self.cache.spec.n_resources
            return INF
        if len(groups) == 1:
            ((sid, g),) = groups.items()
            key = (sid, g.count)
            last = self.last
            if last and last[0] == key:
                entry = last[1]
            else:
                entry = self.cache.solve((key,))
                if self.cache.memoize:
                    self.last = (key, entry)
            g.stretch = stretch = entry.stretch[0]
            self.util = entry.utilization
            return (g.heap[0][0] - g.virtual) * stretch
        cache = self.cache
        key = tuple(self.counts)
        hit = cache.by_counts.get(key)
        if hit is None:
            hit = cache.solve_counts(key)
        else:
            cache.hits += 1
        sids, entry = hit
        best = INF
        for sid, stretch in zip(sids, entry.stretch):
            g = groups[sid]
            g.stretch = stretch
            w = (g.heap[0][0] - g.virtual) * stretch
            if w < best:
                best = w
        self.util = entry.utilization
        return best

    def _uncount(self, sid: int) -> None:
        counts = self.counts
        counts[sid] -= 1
        while counts and not counts[-1]:
            counts.pop()

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
        assert per_shape == {sid: n for sid, n in enumerate(self.counts) if n}, "dense counts disagree with tasks"
        assert not self.counts or self.counts[-1], "dense counts end with a zero"
        assert not set(self.instant) & set(self.tasks), "a task is both instant and running"
        live = sum(len(g.heap) for g in self.groups.values())
        assert live - len(self.tasks) == self.stale, "stale heap entries miscounted"


# --------------------------------------------------------------------------------------------- the engine


def node_spec(tracker: TrackerSpec) -> NodeSpec:
    """The contention model's view of a TaskTracker: cores, disks, CPU model and memory architecture (cluster-file
    keys ``cpu_model``, ``memory_architecture``, ``numa_ratio``; docs/cluster.md)."""
    return NodeSpec(tracker.cores, tracker.disks, tracker.cpu_model, tracker.memory_architecture, tracker.numa_ratio)



class ContentionFeature:
    """TDAM as an engine feature (Algorithm 7): task durations from per-node queueing networks.

    Attach with ``jt.attach(ContentionFeature())`` before ``jt.run()`` (``mrsim.engine.replay`` does it for
    ``--contention tdam``). Hooks it sets (docs/architecture.md): ``finish_model`` (the node model, not the trace,
    decides when a launched task ends), ``on_launch`` (reduces hold a slot while they shuffle), ``on_job_arrival`` /
    ``on_job_done`` (per-task demand rows), ``on_heartbeat`` (mix waiters decide afresh), ``before_kill`` /
    ``on_kill`` (publish predictions, take the victim off its node), ``after_event`` (one re-solve per changed node
    per engine event) and two event kinds of its own (``register_event``). Plug-ins reach it with
    ``jt.feature(ContentionFeature)`` (CA-FIFO reads node models and next-task demands).
    """

    def __init__(self, cache_mixes: bool = True) -> None:
        # cache_mixes=False solves every epoch's mix afresh (tests and bench_tdam.py: identical results, slower).
        self.cache_mixes = cache_mixes

    def attach(self, jt: JobTracker) -> None:
        conf, cluster = jt.conf, jt.cluster
        if getattr(conf, "map_speculative", False) or getattr(conf, "reduce_speculative", False):
            # A backup attempt would be a second task of the same gid on another node's model.
            raise InputError("speculative execution is not supported with --contention tdam (turn one of them off)")
        self.jt = jt
        self.jobs = jt.jobs
        self.trackers = jt.trackers
        self.kernel = jt.kernel
        self.schedule = jt.schedule
        caches: dict[NodeSpec, tuple[MixCache, dict[tuple[float, ...], int]]] = {}
        self.nodes: list[NodeMix] = []
        for t in cluster.trackers:
            spec = node_spec(t)
            shared = caches.get(spec)
            if shared is None:
                shared = caches[spec] = (MixCache(spec, memoize=self.cache_mixes), {})
            self.nodes.append(NodeMix(*shared))
        self.caches: tuple[MixCache, ...] = tuple(cache for cache, _ in caches.values())
        n = len(jt.trackers)
        self._speed = [t.speed for t in cluster.trackers]
        self._disks = [t.disks for t in cluster.trackers]
        # Nodes with a memory layer or another layout build their vectors through layout_vector.
        self._layout: list[NodeSpec | None] = [node.cache.spec if node.cache.spec.memory != "none" else None
                                               for node in self.nodes]
        self._stamp = [0] * n  # tombstone of each node's completion event
        self._next = [INF] * n  # time of each node's live completion event (INF: none)
        self._dirty: list[int] = []  # nodes whose mix changed in the current engine event
        self._is_dirty = [False] * n
        self._shuffling = [0] * n  # reduces holding a slot but not yet loading the node
        self._shuffle_pending: set[int] = set()  # reduce gids with a live shuffle-end event
        # job index -> per task (cpu_s, disk_s, memory_s)
        self._map_rows: dict[int, list[tuple[float, float, float]]] = {}
        self._reduce_rows: dict[int, list[tuple[float, float, float]]] = {}
        self._mix_waiters: set[int] = set()  # trackers parked until their node's mix changes
        # Predicted finishes of running tasks are written into job.map_finish / reduce_finish at every epoch for
        # schedulers that read them (preemption, size estimates). A scheduler that declares
        # ``reads_task_predictions = False`` (FIFO, CA-FIFO) gets them only on demand: the nodes changed since
        # they were last published are kept here and published before a kill (the one engine path reading them).
        self._eager = bool(getattr(jt.scheduler, "reads_task_predictions", True))
        self._unpublished: set[int] = set()
        self.epochs = 0  # node re-solves (ends of epochs on a node)
        self.fallback_jobs = 0
        self._validate(jt)
        # Both event kinds sort with task completions at one instant (ORDER_TASK_DONE): after arrivals, before
        # heartbeats; ``seq`` orders them among themselves.
        self.ev_node_done = jt.register_event(self._on_node_done)
        self.ev_shuffle_end = jt.register_event(self._on_shuffle_end)
        jt.finish_model = self._finish_model
        jt.on_launch.append(self._launched)
        jt.on_job_arrival.append(self._job_arrived)
        jt.on_job_done.append(self._job_done)
        jt.on_heartbeat.append(self._heartbeat)
        jt.before_kill.append(self.publish_predictions)  # the engine picks its victim among tasks whose finish lies ahead
        jt.on_kill.append(self._killed)
        jt.after_event.append(self._end_of_event)

    # ----------------------------------------------------------------------------------------- set-up

    def _validate(self, jt: JobTracker) -> None:
        workload = jt.workload
        diskless = [t.name for t in jt.cluster.trackers if t.disks == 0]
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
            # Results carry the workload's warnings (mrsim.engine.results), so the note reaches the output.
            jt.workload = replace(workload, warnings=(*workload.warnings, note))

    # ----------------------------------------------------------------------------------------- plug-in API

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
            cpu, disk, mem = self._reduce_rows[job.index][i]
        else:
            if job.maps_pending == 0:
                return None
            i = job.requeued_maps[-1] if job.requeued_maps else min(job.next_map, job.n_maps - 1)
            cpu, disk, mem = self._map_rows[job.index][i]
        return self._vector(tracker.index, cpu, disk, mem)

    def park_until_mix_change(self, tracker: TrackerState) -> None:
        """Called by a scheduler that declined because of ``tracker``'s node mix (CA-FIFO): the tracker stays
        parked until its mix changes. Completions and kills on it already wake it (base engine); this also wakes
        it when a reduce's shuffle ends there (a new task can lower another resource's utilization). New jobs
        and requeued tasks wake trackers with free slots as usual. Exact with respect to polling every heartbeat
        for decisions that depend only on the node's mix and the jobs' pending task shapes."""
        self._mix_waiters.add(tracker.index)

    def contention_stats(self) -> dict[str, object]:
        """Model counters for run records: epochs (node re-solves), fallback jobs, mix-cache hits, AMVA solves...,
        and ``node_models``: how many nodes use each model (``seidmann``, ``exact``, ``smp``, ``numa``), so a run
        record says which node model produced it, default or not."""
        out: dict[str, object] = {"epochs": self.epochs, "fallback_jobs": self.fallback_jobs}
        for cache in self.caches:
            for key, value in cache.stats().items():
                out[key] = int(out.get(key, 0)) + value  # type: ignore[call-overload]
        models: dict[str, int] = {}
        for node in self.nodes:
            spec = node.cache.spec
            name = spec.memory if spec.memory != "none" else spec.cpu_model
            models[name] = models.get(name, 0) + 1
        out["node_models"] = dict(sorted(models.items()))
        return out

    # ----------------------------------------------------------------------------------------- hooks

    def _finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        """Instead of the trace completion the engine would queue: a map joins its node's mix now; a reduce from
        its shuffle end (the engine set ``reduce_shuffle_end``: launch + typical shuffle, or the map stage's
        first-shuffle end)."""
        i = gid & TASK_MASK
        ti = tracker.index
        if gid & REDUCE_BIT:
            self._shuffle_until(job, gid, ti, job.reduce_shuffle_end[i])
            return
        cpu, disk, mem = self._map_rows[job.index][i]
        if job.host_cache is not None:  # split locations known: the plain replay's locality slowdown applies
            factor = self._locality_factor(job, i)
            cpu, disk, mem = cpu * factor, disk * factor, mem * factor
        self._contend(ti, gid, cpu, disk, mem)

    def _launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        if gid & REDUCE_BIT:
            self._shuffling[tracker.index] += 1  # holds its slot; loads the node from its shuffle end

    def _job_arrived(self, job: JobState) -> None:
        t = job.template
        index = job.index
        self._map_rows[index] = demand_rows(t, TaskKind.MAP) or fallback_rows(t.map_durations.tolist())
        self._reduce_rows[index] = demand_rows(t, TaskKind.REDUCE) or fallback_rows(t.reduce_durations.tolist())

    def _job_done(self, job: JobState) -> None:
        self._map_rows.pop(job.index, None)
        self._reduce_rows.pop(job.index, None)

    def _heartbeat(self, tracker: TrackerState) -> None:
        if self._mix_waiters:
            self._mix_waiters.discard(tracker.index)  # the scheduler decides afresh (and may park it again)

    def _killed(self, job: JobState, gid: int, ti: int) -> None:
        node = self.nodes[ti]
        if gid in node:
            node.remove(gid, self.kernel.now)
            self._mark(ti)
        else:  # a reduce still in its shuffle: it never loaded the node
            self._shuffling[ti] -= 1
            self._shuffle_pending.discard(gid)

    def _end_of_event(self) -> None:
        if self._dirty:
            self._flush()

    # ----------------------------------------------------------------------------------------- events

    def _on_node_done(self, now: float, order: int, ti: int, stamp: int) -> None:
        """The node's earliest predicted completion is due: retire every task that ends now, as the engine
        retires a trace completion (task mode: applied at once; heartbeat mode: reported at the next heartbeat)."""
        if stamp != self._stamp[ti]:
            return  # the mix changed after this event was queued
        self._next[ti] = INF
        jobs = self.jobs
        done = self.jt.task_done
        for gid in self.nodes[ti].retire(now):
            job = jobs[gid >> JOB_SHIFT]
            (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = now
            done(now, order, ti, gid)
        self._mark(ti)

    def _on_shuffle_end(self, now: float, order: int, ti: int, gid: int) -> None:
        """A reduce's shuffle ended: its post-shuffle demand joins the node's mix."""
        job = self.jobs[gid >> JOB_SHIFT]
        i = gid & TASK_MASK
        if gid not in self._shuffle_pending or job.reduce_shuffle_end[i] != now or job.reduce_tracker[i] != ti:
            return  # killed (and maybe relaunched with another shuffle end)
        self._shuffle_pending.discard(gid)
        self._shuffling[ti] -= 1
        cpu, disk, mem = self._reduce_rows[job.index][i]
        self._contend(ti, gid, cpu, disk, mem)
        if ti in self._mix_waiters:
            self._mix_waiters.discard(ti)
            self.jt.wake(self.trackers[ti])

    # ----------------------------------------------------------------------------------------- the model

    def _locality_factor(self, job: JobState, i: int) -> float:
        """The duration factor a plain replay applies to this map (rack-local / off-switch slowdown), applied to
        its demand vector instead: ``1.0`` for jobs without split locations known to the cluster."""
        levels = job.map_locality
        if not levels or job.host_cache is None:
            return 1.0
        level = levels[i]
        if level == 2:
            return self.jt.rack_local_slowdown
        if level == 3:
            return self.jt.off_switch_slowdown
        return 1.0

    def _vector(self, ti: int, cpu: float, disk: float, mem: float) -> tuple[float, ...]:
        """Demand vector on node ``ti`` (``NodeSpec.demand_names``): without a memory layer ``(cpu + memory,
        disk0, ...)``, disk striped evenly, everything divided by speed (:func:`layout_vector`, inlined)."""
        speed = self._speed[ti]
        layout = self._layout[ti]
        if layout is not None:
            return layout_vector(layout, cpu, disk, mem, speed)
        if mem:
            cpu = cpu + mem
        d = self._disks[ti]
        if d == 1:
            return (cpu / speed, disk / speed)
        if d == 0:
            return (cpu / speed,)  # _validate rejected disk demand on diskless nodes
        share = disk / d / speed
        return (cpu / speed,) + (share,) * d

    def _contend(self, ti: int, gid: int, cpu: float, disk: float, mem: float) -> None:
        if self._layout[ti] is None and self._disks[ti] == 1:  # _vector's common case, inlined
            speed = self._speed[ti]
            vector: tuple[float, ...] = ((cpu + mem if mem else cpu) / speed, disk / speed)
        else:
            vector = self._vector(ti, cpu, disk, mem)
        self.nodes[ti].add(gid, vector, self.kernel.now)
        if not self._is_dirty[ti]:  # _mark, inlined
            self._is_dirty[ti] = True
            self._dirty.append(ti)

    def _shuffle_until(self, job: JobState, gid: int, ti: int, shuffle_end: float) -> None:
        """A reduce counted in ``_shuffling`` loads its node from ``shuffle_end`` on (now, or by an event)."""
        if shuffle_end <= self.kernel.now:
            self._shuffling[ti] -= 1
            cpu, disk, mem = self._reduce_rows[job.index][gid & TASK_MASK]
            self._contend(ti, gid, cpu, disk, mem)
            return
        self._shuffle_pending.add(gid)
        self.schedule(shuffle_end, ORDER_TASK_DONE, self.ev_shuffle_end, ti, gid)

    def _mark(self, ti: int) -> None:
        if not self._is_dirty[ti]:
            self._is_dirty[ti] = True
            self._dirty.append(ti)

    def publish_predictions(self) -> None:
        """Write the current predicted finish of every running task on the nodes changed since their last
        publication into ``job.map_finish`` / ``job.reduce_finish`` (only needed when the scheduler declared
        ``reads_task_predictions = False``; otherwise every epoch publishes). O(tasks on those nodes)."""
        jobs = self.jobs
        for ti in self._unpublished:
            for gid, finish in self.nodes[ti].completion_times():
                job = jobs[gid >> JOB_SHIFT]
                (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] = finish
        self._unpublished.clear()

    def _flush(self) -> None:
        """End of an epoch on every changed node: re-solve, queue its next completion, publish predictions (or
        leave them for :meth:`publish_predictions` when the scheduler does not read them)."""
        now = self.kernel.now
        schedule = self.schedule
        ev_node_done = self.ev_node_done
        jobs = self.jobs
        nodes, nexts, stamps, is_dirty = self.nodes, self._next, self._stamp, self._is_dirty
        dirty = self._dirty
        self.epochs += len(dirty)
        eager = self._eager
        for ti in dirty:
            is_dirty[ti] = False
            node = nodes[ti]
            if node.instant or node.stale:
                t = node.next_completion()
            elif node.dirty:  # re-solve and find the next completion in one pass (every heap top is live)
                best = node._solve_next()
                t = node.now + best if best < INF else INF
            else:  # next_completion inlined
                best = INF
                for g in node.groups.values():
                    w = (g.heap[0][0] - g.virtual) * g.stretch
                    if w < best:
                        best = w
                t = node.now + best if best < INF else INF
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
                schedule(t, ORDER_TASK_DONE, ev_node_done, ti, stamp)
            if not eager:
                self._unpublished.add(ti)
                continue
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
        """Per node (the engine's own checks run first): the model's own check; every slot-holding task is in the
        model, shuffling, or awaiting its report; a node with tasks has exactly one live completion event, not in
        the past; tasks in a node's model run on that tracker. Cost O(running tasks)."""
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
