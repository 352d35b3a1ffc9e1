"""The TDAM feature's hot path, compiled with the engine core: the per-node model and the epoch bookkeeping.

:class:`NodeMix` (one TaskTracker's running tasks under the Epochs rule, dissertation chapter 5, Algorithm 7,
eq. 5.3) and :class:`EpochCore` (each node's one live completion event, the end-of-event re-solve of changed
nodes, the retirement of finished tasks, the event dispatch of the feature's two event kinds) are what ``--contention tdam`` runs per task and per epoch. The feature
itself (:class:`mrsim.tracker.features.contention.ContentionFeature`: set-up, validation, the plug-in API, reduces'
shuffles, kills) stays a plain Python class that users read; this module is its hot path, compiled by mypyc like
``fifo_core`` serves the FIFO plug-in (with the engine compiled, an interpreted model costs about 9x a
plain replay with six demand shapes; ``docs/performance.md``, "TDAM"). Nothing here is a plug-in API beyond what
:class:`NodeMix` documents as queries.

Solved mixes are looked up by the node's dense count vector in :class:`MixTable`, which also solves a mix it does
not hold (about one epoch in fifty) with the compiled AMVA for the default node model, keeping the statistics and
memo of :class:`mrsim.contention.MixCache` as that class would; other node models go through the cache itself.

Compiled-code habits here (``docs/tdam.md``): a list item is updated as ``a[i] = a[i] + 1`` (mypyc
compiles ``a[i] += 1`` to a generic, boxed in-place add), and the shape heaps have their own push and pop
(``heapq``'s are a Python-level call each, comparing tuples generically).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final, Iterator, Sequence

from mrsim.contention.amva import amva_lists, total
from mrsim.contention.incremental import MixEntry
from mrsim.contention.node import layout_vector
from mrsim.tracker.events import ORDER_TASK_DONE
from mrsim.tracker.hooks import FeatureHook
from mrsim.tracker.kernel import EventSink
from mrsim.tracker.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: Tasks predicted to end within this relative window of each other end together (as NodeContention's tie rule).
TIE_RTOL: Final = 1e-10

#: Entries of a node type's shape memo (unit vectors -> shape id) before it is cleared (per-task counter
#: demands make every unrounded unit vector new).
_SHAPE_MEMO_LIMIT: Final = 100_000


class Solved:
    """A solved mix as the hot path reads it: the shape ids present (ascending), the stretch of each (wall s per s
    of demand) and the per-resource utilization (``NodeSpec.resources`` order)."""

    def __init__(self, sids: list[int], stretch: list[float], util: tuple[float, ...]) -> None:
        self.sids = sids
        self.stretch = stretch
        self.util = util
        #: the mixes one task more or less away, as nodes have moved between them: index ``2 sid`` (a task of
        #: shape ``sid`` joins) or ``2 sid + 1`` (one leaves) -> that mix's entry, None where no node took that
        #: step yet (a list indexed by the step, where the dense count vector costs a tuple and its hash per
        #: epoch, and an int-keyed dict a boxed key and a hash per step)
        self.nxt: list[Solved | None] = []
        #: the table's generation when this entry was stored (-1: not stored); a step reaching an entry of an
        #: older generation looks the mix up again, as the cleared table would have to
        self.gen = -1


class MixTable:
    """The solved mixes of one node type, keyed as the engine holds them, in compiled dicts: ``(shape id, count)``
    for a one-shape mix, the dense count vector otherwise. :attr:`hits` counts the lookups answered here. A miss
    looks in the type's :class:`~mrsim.contention.MixCache` memo (by signature; a hit there counts as the cache's)
    and otherwise solves the mix: the default Seidmann node here, with the compiled AMVA on typed lists
    (:func:`~mrsim.contention.amva.amva_lists`, the arithmetic of ``MixCache.solve``), the other node models
    through ``MixCache.solve``. Either way the cache's counters (solves, sweeps, non-converged) and its memo
    are kept as ``MixCache.solve`` keeps them, so the statistics and later plug-in queries (CA-FIFO's predicted
    utilization) see the same cache. With ``memoize=False`` nothing is kept (every lookup solves afresh). Cleared,
    like the cache's memo, when it holds ``max_entries`` mixes."""

    def __init__(self, cache: Any) -> None:
        self.cache: Any = cache
        self.memoize: bool = bool(cache.memoize)
        self.limit: int = int(cache.max_entries)
        self.one: dict[tuple[int, int], Solved] = {}
        self.many: dict[tuple[int, ...], Solved] = {}
        self.hits = 0
        self.gen = 0  # bumped when one or many is cleared (see Solved.gen)
        self.empty = Solved([], [], ())  # the idle node's mix: only its steps (to one-task mixes) are read
        # The default model (Seidmann CPU, no memory layer) is solved here; the cache's unit rows (the same list
        # object: it grows as shapes are interned) and centre kinds, read natively.
        self.seidmann: bool = bool(cache._seidmann)
        self.shape_rows: list[list[float]] = cache._shape_rows
        self.is_queue: list[bool] = [bool(b) for b in cache._is_queue]
        self.tol: float = float(cache.tol)
        self.max_iter: int = int(cache.max_iter)
        self.util_from: int = 2 if int(cache.spec.cores) > 1 else 1  # first disk centre (after Seidmann's delay)
        # The unit vector (cpu, disk) of the last two-entry launch on a node of this type and its shape id (-1.0:
        # none yet; a unit vector's entries are never negative): NodeMix.add_cpu_disk's memo in front of the memo.
        self.last_cpu: float = -1.0
        self.last_disk: float = -1.0
        self.last_sid: int = -1

    def solve_one(self, sid: int, count: int) -> Solved:
        """The mix of ``count`` tasks of shape ``sid``."""
        key = (sid, count)
        hit = self.one.get(key)
        if hit is not None:
            self.hits += 1
            return hit
        solved = self._solve((key,))
        if self.memoize:
            if len(self.one) >= self.limit:
                self.one.clear()
                self.gen += 1
            self.one[key] = solved
            solved.gen = self.gen
        return solved

    def solve_counts(self, counts: tuple[int, ...]) -> Solved:
        """The mix of ``counts[sid]`` tasks of each shape ``sid`` (no trailing zeros, two shapes or more)."""
        hit = self.many.get(counts)
        if hit is not None:
            self.hits += 1
            return hit
        pairs: list[tuple[int, int]] = []
        for sid in range(len(counts)):
            n = counts[sid]
            if n:
                pairs.append((sid, n))
        solved = self._solve(tuple(pairs))
        if self.memoize:
            if len(self.many) >= self.limit:
                self.many.clear()
                self.gen += 1
            self.many[counts] = solved
            solved.gen = self.gen
        return solved

    def _solve(self, sig: tuple[tuple[int, int], ...]) -> Solved:
        """A mix this table does not hold: ``MixCache.solve(sig)``'s answer (memo hit, or a solve counted in the
        cache's statistics and kept in its memo), as the hot path reads it. O(sweeps x shapes x centres) on a
        solve."""
        cache = self.cache
        sids = [sid for sid, _ in sig]
        if not self.seidmann:
            entry = cache.solve(sig)
            return Solved(sids, [float(v) for v in entry.stretch], tuple([float(v) for v in entry.utilization]))
        memo = cache.memo
        entry = memo.get(sig)
        if entry is not None:
            cache.hits += 1
            return Solved(sids, [float(v) for v in entry.stretch], tuple([float(v) for v in entry.utilization]))
        shape_rows = self.shape_rows
        rows = [shape_rows[sid] for sid in sids]
        pops = [float(n) for _, n in sig]
        _, r, _, centre_util, sweeps, converged = amva_lists(rows, pops, self.is_queue, [0.0] * len(rows), self.tol,
                                                             self.max_iter)
        stretch = [total(rc) for rc in r]
        # MixCache's resource utilization: the Seidmann queue carries D/m per job, so its utilization is already
        # the per-core busy fraction; then the disks.
        util = (centre_util[0],) + tuple(centre_util[self.util_from:])
        cache.sweeps += sweeps
        cache.solves += 1
        cache.nonconverged += not converged
        if cache.memoize:
            if len(memo) >= cache.max_entries:
                memo.clear()
            memo[sig] = MixEntry(tuple(stretch), util, converged)
        return Solved(sids, stretch, util)


#: A heap entry ``(virtual finish, seq, gid)``: typed as a variable-length tuple so that compiled code keeps it one
#: boxed object (a ``tuple[float, int, int]`` would be unboxed into its three fields, and boxed into a new tuple,
#: at every read and store); its fields are read through :func:`_vfinish`, :func:`_seq` and :func:`_gid`.
Entry = tuple[Any, ...]


class TaskDemands:
    """One job's per-task demands of one kind (s, before the node's speed): three lists indexed by task.

    Made once per job arrival from :func:`mrsim.model.demands.demand_columns` (or ``fallback_columns``), read at
    each launch (``cpu[i]``, ``disk[i]``, ``memory[i]``, unboxed by compiled code). One tuple per task, built in
    the interpreter at the job's arrival, cost about 22 M instructions of a 25,200-task replay (``docs/performance.md``,
    "TDAM after the engine round"); the lists come from numpy's ``tolist`` in C. Read only (lists may be shared).
    """

    def __init__(self, cpu: list[float], disk: list[float], memory: list[float]) -> None:
        self.cpu: list[float] = cpu
        self.disk: list[float] = disk
        self.memory: list[float] = memory

    def row(self, i: int) -> tuple[float, float, float]:
        """Task ``i``'s ``(cpu_s, disk_s, memory_s)`` (for the interpreted callers; compiled code reads the lists)."""
        return (self.cpu[i], self.disk[i], self.memory[i])


class _Group:
    """Running tasks of one demand shape on one node (eq. 5.3: they all lose residual size at one rate)."""

    def __init__(self, sid: int = -1) -> None:
        self.sid: int = sid  # the shape id
        self.count: int = 0
        self.virtual: float = 0.0  # size units accomplished by every task of the shape since the group was created
        self.stretch: float = math.inf  # wall seconds per size unit under the current mix
        # (virtual finish, seq, gid): a binary heap by (virtual finish, seq) (_push, _pop); entries of killed tasks
        # stay until they reach the top
        self.heap: list[Entry] = []


#: ``NodeMix.by_sid``'s entry for a shape with no running task on the node (never read for its fields)
_NO_GROUP: Final = _Group()

#: ``NodeMix.by_sid`` is trimmed of trailing empty entries only past this length (memory is bounded by it or by the
#: largest shape id running on the node, whichever is larger)
#: what :meth:`NodeMix.retire_into` answers for a single completion (its gid in ``NodeMix.retired``); never filled
_ONE: Final[list[int]] = []
_BY_SID_KEEP: Final = 64


def _vfinish(entry: Entry) -> float:
    """Virtual finish (size units of the shape's clock)."""
    v: float = entry[0]
    return v


def _seq(entry: Entry) -> int:
    """Start order on the node (unique on it)."""
    v: int = entry[1]
    return v


def _gid(entry: Entry) -> int:
    """The engine's task gid."""
    v: int = entry[2]
    return v


def _before(a: Entry, b: Entry) -> bool:
    """``a < b`` for two heap entries of one node: by virtual finish, then start order (``seq`` is unique on a
    node, so the gid is never compared; the order ``heapq`` gives the tuples)."""
    fa: float = a[0]  # _vfinish and _seq inlined (a compiled call each costs more than the read)
    fb: float = b[0]
    if fa < fb:
        return True
    if fa == fb:
        sa: int = a[1]
        sb: int = b[1]
        return sa < sb
    return False


def _push(heap: list[Entry], entry: Entry) -> None:
    """``heapq.heappush`` for entries (:func:`_before` order), compiled: no Python-level call and no generic tuple
    comparison per step. O(log n)."""
    heap.append(entry)
    pos = len(heap) - 1
    while pos > 0:
        parent = (pos - 1) >> 1
        up = heap[parent]
        if not _before(entry, up):
            break
        heap[pos] = up
        pos = parent
    heap[pos] = entry


def _pop(heap: list[Entry]) -> Entry:
    """``heapq.heappop`` for entries (:func:`_before` order): remove and return the first. Any valid heap pops
    the same sequence (the order is total), so results do not depend on the layout. O(log n)."""
    last = heap.pop()
    n = len(heap)
    if n == 0:
        return last
    first = heap[0]
    pos = 0
    child = 1
    while child < n:
        right = child + 1
        if right < n and _before(heap[right], heap[child]):
            child = right
        low = heap[child]
        if not _before(low, last):
            break
        heap[pos] = low
        pos = child
        child = 2 * pos + 1
    heap[pos] = last
    return first


def _start_order(entry: Entry) -> int:
    return _seq(entry)


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

    def __init__(self, cache: Any, shape_memo: dict[tuple[float, ...], int] | None = None,
                 table: MixTable | None = None) -> None:
        #: the node type's :class:`~mrsim.contention.MixCache` (shared by every node of that type)
        self.cache: Any = cache
        #: its solved mixes in the engine's keys (share one per cache between nodes, like ``shape_memo``)
        self.table: MixTable = table if table is not None else MixTable(cache)
        self.memoize: bool = bool(cache.memoize)
        # Rounded unit vector -> shape id, as MixCache.shape_of keys it; share one per cache between nodes.
        self.sids: dict[tuple[float, ...], int] = shape_memo if shape_memo is not None else {}
        self.digits: int = cache.shape_digits
        # Shape id of CPU-only demands (the fallback's shape), interned once: skips shape_of's rounding.
        self.cpu_only: int = cache.shape_of((1.0,) + (0.0,) * (cache.spec.width - 1))[0]
        # The last solve with one shape: (shape id, count) and its entry (-1: none yet)
        self.last_sid: int = -1
        self.last_count: int = 0
        self.last_entry: Solved | None = None
        # The entry of the current mix when known by steps from a solved one (None: look it up), and the last step
        # that left a known mix for an unknown one (recorded in that mix's Solved.nxt once the new one is found).
        self.mix: Solved | None = None
        self.from_mix: Solved | None = None
        self.from_code: int = 0
        self.now: float = 0.0
        # The unit vector (cpu, disk) of this node's last two-entry launch with disk demand and its shape id (-1.0:
        # none): add_cpu_disk's memo after the node type's (MixTable.last_cpu)
        self.last_cpu: float = -1.0
        self.last_disk: float = -1.0
        self.last_unit_sid: int = -1
        self.retired: int = -1  # the gid of a single completion (retire_into answered _ONE)
        self.groups: dict[int, _Group] = {}
        #: the same groups indexed by shape id (:data:`_NO_GROUP` where a shape has none): a list read where the
        #: dict costs a boxed key and a hash per lookup (a re-solve looks up every shape of the mix)
        self.by_sid: list[_Group] = []
        #: the same groups in a list, in the dict's order (insertion: a group is appended when created and removed
        #: when it empties): the passes over every shape iterate it, where a dict's items cost a call and a boxed
        #: key each
        self.live: list[_Group] = []
        self.running: int = 0  # tasks in the groups' heaps that are live (not killed)
        self.instant: list[int] = []  # zero-demand tasks: they finish the moment they start
        self.dirty: bool = False
        self.seq: int = 0
        # Heap entries of killed tasks not yet pruned, and their seqs (a task's seq is unique on the node; a task
        # relaunched here gets a new one): while ``stale`` is 0, every heap top is a live task. A task lives only
        # in its shape's heap (no map from gid: a launch and a completion cost no dict operation; a kill, rare,
        # finds its entry by a scan).
        self.stale: int = 0
        self.dead: set[int] = set()
        # Running tasks per shape id, dense, no trailing zeros: the canonical mix key of MixCache.solve_counts.
        self.counts: list[int] = []
        self.util: tuple[float, ...] = (0.0,) * cache.spec.n_resources
        # EpochCore's per-node event state, kept here as native attributes (an unboxed float, int or bool each):
        # in lists indexed by node, every read unboxed a float and every store boxed a new one, several times per
        # epoch (EpochCore.flush). The time of the node's live completion event (INF: none) and its tombstone
        # stamp, the next completion held back until the tracker's heartbeat (INF: none held), and whether a
        # task of the node ended in the current engine event.
        self.event_at: float = INF
        self.event_stamp: int = 0
        self.held: float = INF
        self.just_done: bool = False

    def __len__(self) -> int:
        return self.running + len(self.instant)

    def __contains__(self, gid: int) -> bool:
        """Whether task ``gid`` runs here. O(tasks on the node) (kills and checks only)."""
        return gid in self.instant or self._find(gid) >= 0

    def _find(self, gid: int) -> int:
        """Shape id of running task ``gid``'s live heap entry, -1 if it does not run here. O(tasks on the node)."""
        dead = self.dead
        for sid, g in self.groups.items():
            for entry in g.heap:
                if _gid(entry) == gid and not (dead and _seq(entry) in dead):
                    return sid
        return -1

    # ----------------------------------------------------------------- changes

    def add(self, gid: int, demand: Sequence[float], now: float) -> None:
        """Start task ``gid`` at ``now`` with a valid demand vector (finite, non-negative, ``spec.width`` long)."""
        if len(demand) == 2:  # (cpu, disk): the default node with one disk
            self.add_cpu_disk(gid, demand[0], demand[1], now)
            return
        if now != self.now:
            self._accrue(now)
        self.seq += 1
        if not any(demand):
            self.instant.append(gid)
            return
        elif demand[0] > 0.0 and not any(demand[1:]):
            sid, size = self.cpu_only, demand[0]
        else:
            sid, size = self._shape(demand)
        self._join(gid, sid, size)

    def add_cpu_disk(self, gid: int, cpu: float, disk: float, now: float) -> None:
        """:meth:`add` of the vector ``(cpu, disk)`` (a node with one disk and no memory layer) without building it:
        the engine's common case."""
        if now != self.now:
            self._accrue(now)
        self.seq += 1
        if disk == 0.0:
            if cpu == 0.0:
                self.instant.append(gid)
                return
            sid, size = self.cpu_only, cpu
        else:
            size = cpu + disk  # fsum for two terms (both exactly rounded)
            r_cpu, r_disk = cpu / size, disk / size
            table = self.table
            if r_cpu == table.last_cpu and r_disk == table.last_disk:
                # The unit vector of the last launch of this node type (tasks of one job share it exactly): the
                # memo would answer the same shape id, without hashing two floats and a tuple.
                sid = table.last_sid
            elif r_cpu == self.last_cpu and r_disk == self.last_disk:
                # The last one launched on this node (nodes interleave jobs' launches, so the type's last misses
                # about a third of the time with six shapes; this answers a quarter of those).
                sid = self.last_unit_sid
                table.last_cpu, table.last_disk, table.last_sid = r_cpu, r_disk, sid
            else:
                raw = (r_cpu, r_disk)
                sid = self.sids.get(raw, -1)
                if sid < 0:
                    sid = self._intern(raw, (cpu, disk))
                table.last_cpu, table.last_disk, table.last_sid = r_cpu, r_disk, sid
            self.last_cpu, self.last_disk, self.last_unit_sid = r_cpu, r_disk, sid
        self._join(gid, sid, size)

    def _join(self, gid: int, sid: int, size: float) -> None:
        """Task ``gid`` of shape ``sid`` and total demand ``size`` (s) joins the mix (the clock is already at now)."""
        if not self.groups and self.memoize:
            self.mix = self.table.empty  # from the idle node
        by_sid = self.by_sid
        if sid >= len(by_sid):
            by_sid.extend([_NO_GROUP] * (sid + 1 - len(by_sid)))
        g = by_sid[sid]
        if g is _NO_GROUP:
            g = self.groups[sid] = by_sid[sid] = _Group(sid)
            self.live.append(g)
        finish_v = g.virtual + size
        g.count += 1
        counts = self.counts
        if sid >= len(counts):
            counts.extend([0] * (sid + 1 - len(counts)))
        counts[sid] = counts[sid] + 1
        self._step(2 * sid)
        _push(g.heap, (finish_v, self.seq, gid))
        self.running += 1
        self.dirty = True

    def remove(self, gid: int, now: float) -> float:
        """Take a running task off the node at ``now`` (a kill); return its residual size (s of demand)."""
        self._accrue(now)
        if gid in self.instant:
            self.instant.remove(gid)
            return 0.0
        sid = self._find(gid)
        if sid < 0:
            raise KeyError(gid)
        g = self.groups[sid]
        finish_v = 0.0
        seq = 0
        for entry in g.heap:
            if _gid(entry) == gid and not (self.dead and _seq(entry) in self.dead):
                finish_v, seq = _vfinish(entry), _seq(entry)
                break
        residual = max(0.0, finish_v - g.virtual)
        g.count -= 1
        self.running -= 1
        self._uncount(sid)
        if g.count == 0:
            self._drop_group(sid)
            self.stale -= len(g.heap) - 1  # the heap goes with the group: its other entries were stale already
            for entry in g.heap:
                self.dead.discard(_seq(entry))
        else:
            self.stale += 1  # the heap entry stays behind; next_completion prunes it
            self.dead.add(seq)
        self.dirty = True
        return residual

    def retire(self, now: float) -> list[int]:
        """Advance to ``now`` and take off every task that ends by ``now`` (within :data:`TIE_RTOL`), in start
        order. The caller calls this at :meth:`next_completion` times, so they all end at ``now``."""
        ended = self.retire_into(now)
        return [self.retired] if ended is _ONE else ended

    def retire_into(self, now: float) -> list[int]:
        """:meth:`retire`, except that a single completion in the common case answers :data:`_ONE` (an empty list
        that is never filled) and leaves its gid in :attr:`retired`: no list allocated and freed per completion
        (about a sixth of retiring's cost, shapes6)."""
        window = TIE_RTOL * max(1.0, abs(now))
        counts = self.counts
        dt = now - self.now
        if dt > 0.0 and not self.stale and not self.instant and not self.dirty:
            # The common case (every heap top is a live task, the mix solved): _accrue's pass over the shapes and
            # the search for what ends now in one, allocating nothing but the answer for a single completion.
            first: Entry | None = None
            more: list[Entry] | None = None
            emptied = -1
            emptied_more: list[int] | None = None
            for g in self.live:
                sid = g.sid
                stretch = g.stretch
                virtual = g.virtual + dt / stretch  # eq. 5.3, as _accrue
                g.virtual = virtual
                heap = g.heap
                top_v: float = heap[0][0]  # _vfinish inlined
                if (top_v - virtual) * stretch > window:
                    continue
                n = 0
                while heap and (_vfinish(heap[0]) - virtual) * stretch <= window:
                    entry = _pop(heap)
                    if first is None:
                        first = entry
                    elif more is None:
                        more = [first, entry]
                    else:
                        more.append(entry)
                    n += 1
                g.count -= n
                counts[sid] = counts[sid] - n
                for _ in range(n):
                    self._step(2 * sid + 1)
                if not g.count:
                    if emptied < 0:
                        emptied = sid
                    elif emptied_more is None:
                        emptied_more = [sid]
                    else:
                        emptied_more.append(sid)
            self.now = now
            if first is None:
                return []
            if emptied >= 0:
                self._drop_group(emptied)
                if emptied_more is not None:
                    for sid in emptied_more:
                        self._drop_group(sid)
                while counts and not counts[-1]:
                    counts.pop()
            self.dirty = True
            if more is None:
                self.running -= 1
                self.retired = _gid(first)
                return _ONE
            self.running -= len(more)
            more.sort(key=_start_order)
            return [_gid(entry) for entry in more]
        self._accrue(now)
        if not self.stale and not self.instant:  # every heap top is a live task
            ended: list[Entry] = []
            emptied_sids: list[int] = []
            for g in self.live:
                sid = g.sid
                heap = g.heap
                virtual, stretch = g.virtual, g.stretch
                if (_vfinish(heap[0]) - virtual) * stretch > window:
                    continue
                n = 0
                while heap and (_vfinish(heap[0]) - virtual) * stretch <= window:
                    ended.append(_pop(heap))
                    n += 1
                g.count -= n
                counts[sid] = counts[sid] - n
                for _ in range(n):
                    self._step(2 * sid + 1)
                if not g.count:
                    emptied_sids.append(sid)
            if not ended:
                return []
            self.running -= len(ended)
            for sid in emptied_sids:
                self._drop_group(sid)
            while counts and not counts[-1]:
                counts.pop()
            self.dirty = True
            if len(ended) == 1:
                return [_gid(ended[0])]
            ended.sort(key=_start_order)
            return [_gid(entry) for entry in ended]
        done: list[tuple[int, int]] = []
        if self.instant:
            done = [(0, gid) for gid in self.instant]
            self.instant.clear()
        dead = self.dead
        finished = []
        for g in self.live:
            sid = g.sid
            heap = g.heap
            virtual, stretch = g.virtual, g.stretch
            while heap:
                top = heap[0]
                finish_v, seq, gid = _vfinish(top), _seq(top), _gid(top)
                if self.stale and seq in dead:
                    _pop(heap)
                    dead.discard(seq)
                    self.stale -= 1
                    continue
                if (finish_v - virtual) * stretch > window:
                    break
                _pop(heap)
                g.count -= 1
                self.running -= 1
                counts[sid] = counts[sid] - 1
                self._step(2 * sid + 1)
                done.append((seq, gid))
            if g.count == 0:
                finished.append(sid)
                self.stale -= len(heap)  # whatever is left behind belonged to killed tasks
                for entry in heap:
                    dead.discard(_seq(entry))
        while counts and not counts[-1]:
            counts.pop()
        for sid in finished:
            self._drop_group(sid)
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
        dead = self.dead
        for g in self.live:
            heap = g.heap
            while self.stale:  # a live group has at least one live entry
                seq = _seq(heap[0])
                if seq not in dead:
                    break
                _pop(heap)
                dead.discard(seq)
                self.stale -= 1
            when = (_vfinish(heap[0]) - g.virtual) * g.stretch
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
        dead = self.dead
        for g in self.live:
            virtual, stretch = g.virtual, g.stretch
            for entry in g.heap:
                if dead and _seq(entry) in dead:
                    continue
                yield _gid(entry), now + max(0.0, _vfinish(entry) - virtual) * stretch

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
        raw: tuple[float, ...]
        if len(demand) == 2:
            size = demand[0] + demand[1]
            raw = (demand[0] / size, demand[1] / size)
        else:
            size = math.fsum(demand)
            raw = tuple([d / size for d in demand])
        # The unrounded unit vector first: rounding is a function of it, so the answer is the same, and a lookup
        # costs a tenth of rounding every entry (tasks of a job usually share their unit vector exactly).
        sid = self.sids.get(raw, -1)
        if sid < 0:
            sid = self._intern(raw, tuple(demand))
        return sid, size

    def _intern(self, raw: tuple[float, ...], demand: tuple[float, ...]) -> int:
        """Shape id of a unit vector ``raw`` not in the memo yet (of the demand vector ``demand``); memoises it."""
        sids = self.sids
        key = tuple([round(x, self.digits) for x in raw])
        sid = sids.get(key, -1)
        if sid < 0:
            sid = self.cache.shape_of(demand)[0]
        if len(sids) >= _SHAPE_MEMO_LIMIT:
            sids.clear()  # a memo only: MixCache keeps the shape ids
        sids[key] = sids[raw] = sid
        return sid

    def _solve(self) -> None:
        self.dirty = False
        groups = self.groups
        if not groups:
            self.util = (0.0,) * self.cache.spec.n_resources
            return
        entry = self._entry()
        if len(groups) == 1:
            self.live[0].stretch = entry.stretch[0]
        else:
            sids, stretch = entry.sids, entry.stretch
            by_sid = self.by_sid
            for k in range(len(sids)):
                by_sid[sids[k]].stretch = stretch[k]
        self.util = entry.util

    def _solve_next(self) -> float:
        """:meth:`_solve`, then the wall time from :attr:`now` to the earliest completion (INF when idle), found in
        the same pass over the shapes. Only when no heap holds stale entries and no zero-demand task waits."""
        self.dirty = False
        groups = self.groups
        if not groups:
            self.util = (0.0,) * self.cache.spec.n_resources
            return INF
        entry = self._entry()
        self.util = entry.util
        if len(groups) == 1:
            g = self.live[0]
            g.stretch = entry.stretch[0]
            top: float = g.heap[0][0]  # _vfinish inlined
            return (top - g.virtual) * g.stretch
        sids, stretches = entry.sids, entry.stretch
        by_sid = self.by_sid
        best = INF
        for k in range(len(sids)):
            g = by_sid[sids[k]]
            stretch = stretches[k]
            g.stretch = stretch
            first: float = g.heap[0][0]  # _vfinish inlined
            w = (first - g.virtual) * stretch
            if w < best:
                best = w
        return best

    def _drop_group(self, sid: int) -> None:
        """Shape ``sid`` has no running task left on the node: its group goes. :attr:`by_sid` keeps its length up to
        :data:`_BY_SID_KEEP` entries (with one or two tasks a node, groups come and go at every task: trimming and
        growing the list each time cost more than it saved) and past it loses its trailing empty entries, so that it
        stays at most as long as that or the largest shape id running. O(shapes on the node)."""
        del self.groups[sid]
        by_sid = self.by_sid
        g = by_sid[sid]
        by_sid[sid] = _NO_GROUP
        live = self.live
        for k in range(len(live)):  # by identity (list.remove would compare the groups before it generically)
            if live[k] is g:
                live.pop(k)
                break
        if len(by_sid) > _BY_SID_KEEP:
            while by_sid and by_sid[-1] is _NO_GROUP:
                by_sid.pop()

    def _uncount(self, sid: int) -> None:
        counts = self.counts
        counts[sid] = counts[sid] - 1
        while counts and not counts[-1]:
            counts.pop()
        self._step(2 * sid + 1)

    def _step(self, code: int) -> None:
        """The mix changed by one task (``code``: ``2 sid`` joined, ``2 sid + 1`` left): follow the current entry's
        step if known (O(1), an int-keyed dict)."""
        m = self.mix
        if m is None:
            self.from_mix = None  # two steps from the last known mix: nothing to record
            return
        steps = m.nxt
        nxt = steps[code] if code < len(steps) else None
        self.from_mix = m if nxt is None else None
        self.from_code = code
        self.mix = nxt

    def _entry(self) -> Solved:
        """The solved current mix (one shape or more), counted in the table's statistics exactly as the lookups
        by key count it: the node's last one-shape mix answers without a lookup (common with few slots); any
        other known mix counts a table hit; an unknown one is looked up by ``(shape, count)`` or the dense count
        vector (solved on a miss), and the step that led to it is recorded."""
        table = self.table
        groups = self.groups
        m = self.mix
        if m is not None and m.gen == table.gen:
            if len(groups) == 1:
                sid = m.sids[0]
                count = self.counts[sid]
                last = self.last_entry
                if last is None or sid != self.last_sid or count != self.last_count:
                    table.hits += 1
                    self.last_sid, self.last_count, self.last_entry = sid, count, m
            else:
                table.hits += 1
            return m
        if len(groups) == 1:
            g = self.live[0]
            sid = g.sid
            count = g.count
            last = self.last_entry
            if last is not None and sid == self.last_sid and count == self.last_count:
                entry = last
            else:
                entry = table.solve_one(sid, count)
                if self.memoize:
                    self.last_sid, self.last_count, self.last_entry = sid, count, entry
        else:
            entry = table.solve_counts(tuple(self.counts))  # the canonical mix: no sort, no pairs
        if self.memoize:
            self.mix = entry
            f = self.from_mix
            if f is not None:
                steps = f.nxt
                code = self.from_code
                if code >= len(steps):
                    steps.extend([None] * (code + 1 - len(steps)))
                steps[code] = entry
                self.from_mix = None
        return entry

    def _accrue(self, now: float) -> None:
        dt = now - self.now
        if dt > 0.0:
            if self.dirty:
                self._solve()  # the mix that held since the last change
            for g in self.live:
                g.virtual += dt / g.stretch  # eq. 5.3: every task of the shape accomplishes d(E)/stretch
            self.now = now
        elif dt < -1e-9 * max(1.0, abs(now)):
            raise ValueError(f"time went backwards on a node: {now!r} < {self.now!r}")

    def _check(self) -> None:
        """Invariants, for tests: counts match the live heap entries, heaps are heaps, residuals within [0, size],
        the stale entries are exactly the dead seqs in the heaps."""
        per_shape: dict[int, int] = {}
        stale = 0
        gids: list[int] = []
        for sid, g in self.groups.items():
            heap = g.heap
            for k in range(1, len(heap)):
                assert not _before(heap[k], heap[(k - 1) >> 1]), f"shape {sid}'s heap out of order"
            for entry in heap:
                finish_v, seq, gid = _vfinish(entry), _seq(entry), _gid(entry)
                if seq in self.dead:
                    stale += 1
                    continue
                per_shape[sid] = per_shape.get(sid, 0) + 1
                gids.append(gid)
                assert finish_v - g.virtual >= -1e-9 * max(1.0, finish_v), f"task {gid} ran past its demand unseen"
        assert len(set(gids)) == len(gids), "a task runs twice on the node"
        assert per_shape == {sid: g.count for sid, g in self.groups.items()}, "shape counts disagree with tasks"
        assert per_shape == {sid: n for sid, n in enumerate(self.counts) if n}, "dense counts disagree with tasks"
        assert not self.counts or self.counts[-1], "dense counts end with a zero"
        assert len(gids) == self.running, "running tasks miscounted"
        assert not set(self.instant) & set(gids), "a task is both instant and running"
        assert stale == self.stale == len(self.dead), "stale heap entries miscounted"
        assert {sid: g for sid, g in enumerate(self.by_sid) if g is not _NO_GROUP} == self.groups, \
            "groups by shape id disagree with the groups"
        assert all(g is _NO_GROUP for g in self.by_sid[len(self.counts):]), "a group past the largest shape running"
        assert len(self.by_sid) <= max(_BY_SID_KEEP, len(self.counts)), "groups by shape id not trimmed"
        assert self.live == list(self.groups.values()), "the groups' list is not the dict's values in order"
        assert all(g.sid == sid for sid, g in self.groups.items()), "a group under another shape id"


# --------------------------------------------------------------------------------------------- the epochs


class EpochHooks(FeatureHook):
    """TDAM's ``finish_model``, ``on_launch`` and ``on_heartbeat`` hooks as a compiled
    :class:`~mrsim.tracker.hooks.FeatureHook` (``EpochCore`` is the kernel's :class:`EventSink`, and a compiled class
    has one base): the engine calls these methods directly, and they call :class:`EpochCore`'s directly; two C calls
    where the bound methods were a Python-level call per launch and heartbeat. O(1) each."""

    def __init__(self, core: EpochCore) -> None:
        self.core = core

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        self.core.finish_model(job, tracker, gid)

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        self.core.launched(job, tracker, gid)

    def heartbeat(self, tracker: TrackerState) -> None:
        self.core.heartbeat(tracker)


class EpochCore(EventSink):
    """Per node: its one live completion event (time and tombstone stamp), whether its mix changed in the current
    engine event, and the end-of-event re-solve (Algorithm 7's epoch boundary) of the nodes that changed.

    ``nodes`` are the feature's :class:`NodeMix` per TaskTracker; ``speed``, ``disks`` and ``layout`` (a
    :class:`~mrsim.contention.NodeSpec` for nodes whose vectors :func:`layout_vector` builds, else None) give the
    demand vectors; ``eager``: publish predicted finishes into the jobs' ``map_finish`` / ``reduce_finish`` at every
    epoch (schedulers that read them), else only mark the node for :meth:`ContentionFeature.publish_predictions`.
    The feature registers :meth:`on_node_done` and :meth:`on_shuffle_end` as event kinds and sets
    :attr:`ev_node_done` and :attr:`ev_shuffle_end` to them, and fills :attr:`map_rows` / :attr:`reduce_rows` as jobs
    arrive. It is also the kernel's feature sink for those two kinds (:meth:`handle`, ``Kernel.add_sink``) when no
    other feature is: the compiled run loop then calls it directly, where a registered handler costs a Python-level
    call per event (a node's completion events are most of a contention-aware replay's feature events).

    Costs per epoch on a node: one mix lookup (an AMVA solve on a cache miss) plus O(tasks on the node) to publish
    predictions when eager; per launch O(log n + shapes); per completion O(shapes).
    """

    def __init__(self, jt: JobTracker, nodes: list[NodeMix], speed: list[float], disks: list[int],
                 layout: list[Any], eager: bool) -> None:
        n = len(nodes)
        self.jt = jt
        self.nodes = nodes
        self.speed = speed
        self.disks = disks
        self.layout = layout
        self.eager = eager
        self.ev_node_done = -1
        self.ev_shuffle_end = -1
        # job index -> its tasks' (cpu_s, disk_s, memory_s) as three lists, while the job runs
        self.map_rows: dict[int, TaskDemands] = {}
        self.reduce_rows: dict[int, TaskDemands] = {}
        self.shuffling: list[int] = [0] * n  # reduces holding a slot but not yet loading the node
        self.shuffle_pending: set[int] = set()  # reduce gids with a live shuffle-end event
        self.mix_waiters: set[int] = set()  # trackers parked until their node's mix changes (CA-FIFO)
        # Each node's live completion event (time, tombstone stamp), the completion held back for its tracker's
        # heartbeat and whether a task of it just ended are NodeMix.event_at, event_stamp, held and just_done.
        # nodes whose mix changed in the current engine event: the first n_dirty entries (kept storage: a list
        # appended to and cleared at every event freed and grew its storage each time)
        self.dirty: list[int] = [0] * n
        self.n_dirty = 0
        self.is_dirty: list[bool] = [False] * n
        self.unpublished: set[int] = set()  # nodes whose predictions were not published since they changed
        self.is_unpublished: list[bool] = [False] * n  # ti in unpublished (a list read per epoch, not a set add)
        self.epochs = 0  # node re-solves (ends of epochs on a node)
        # The held nodes (NodeMix.held, see flush) whose tracker's heartbeat has come.
        self.due: list[int] = []
        self.trackers: list[TrackerState] = jt.trackers

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        """The JobTracker's ``finish_model``: instead of the trace completion the engine would queue, a map joins
        its node's mix now; a reduce from its shuffle end (the engine set ``reduce_shuffle_end``: launch + typical
        shuffle, or the map stage's first-shuffle end)."""
        i = gid & TASK_MASK
        ti = tracker.index
        if gid & REDUCE_BIT:
            self.shuffle_until(job, gid, ti, job.reduce_shuffle_end[i])
            return
        rows = self.map_rows[job.index]
        cpu = rows.cpu[i]
        disk = rows.disk[i]
        mem = rows.memory[i]
        if job.host_cache is not None:  # split locations known: the plain replay's locality slowdown applies
            factor = self.locality_factor(job, i)
            cpu, disk, mem = cpu * factor, disk * factor, mem * factor
        self.contend(ti, gid, cpu, disk, mem)

    def heartbeat(self, tracker: TrackerState) -> None:
        """The ``on_heartbeat`` hook: a tracker parked until its mix changes decides afresh at its heartbeat (and
        may park again); a completion held back for this heartbeat is queued at the end of its event."""
        if self.mix_waiters:
            self.mix_waiters.discard(tracker.index)
        if self.nodes[tracker.index].held != INF:
            self.due.append(tracker.index)

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        """The ``on_launch`` hook: a reduce holds its slot and loads the node only from its shuffle end."""
        if gid & REDUCE_BIT:
            self.shuffling[tracker.index] = self.shuffling[tracker.index] + 1

    def locality_factor(self, job: JobState, i: int) -> float:
        """The duration factor a plain replay applies to this map (rack-local / off-switch slowdown), applied to
        its demand vector instead: ``1.0`` for jobs without split locations known to the cluster."""
        levels = job.map_locality
        if not len(levels) or job.host_cache is None:
            return 1.0
        level = levels[i]
        if level == 2:
            return self.jt.rack_local_slowdown
        if level == 3:
            return self.jt.off_switch_slowdown
        return 1.0

    def shuffle_until(self, job: JobState, gid: int, ti: int, shuffle_end: float) -> None:
        """A reduce counted in :attr:`shuffling` loads its node from ``shuffle_end`` on (now, or by an event)."""
        kernel = self.jt.kernel
        if shuffle_end <= kernel.now:
            self.shuffling[ti] = self.shuffling[ti] - 1
            rows = self.reduce_rows[job.index]
            i = gid & TASK_MASK
            self.contend(ti, gid, rows.cpu[i], rows.disk[i], rows.memory[i])
            return
        self.shuffle_pending.add(gid)
        kernel.schedule(shuffle_end, ORDER_TASK_DONE, self.ev_shuffle_end, ti, gid)

    def contend(self, ti: int, gid: int, cpu: float, disk: float, mem: float) -> None:
        """Task ``gid`` loads node ``ti`` from now with ``cpu``, ``disk`` and ``memory`` seconds of demand (before the
        node's speed); the node is re-solved at the end of the event."""
        now = self.jt.kernel.now
        layout = self.layout[ti]
        if layout is None and self.disks[ti] == 1:  # the common case: (cpu + memory, disk) / speed
            speed = self.speed[ti]
            self.nodes[ti].add_cpu_disk(gid, (cpu + mem if mem else cpu) / speed, disk / speed, now)
        else:
            self.nodes[ti].add(gid, self.vector(ti, cpu, disk, mem), now)
        self.mark(ti)

    def vector(self, ti: int, cpu: float, disk: float, mem: float) -> tuple[float, ...]:
        """Demand vector on node ``ti`` (``NodeSpec.demand_names``): without a memory layer ``(cpu + memory,
        disk0, ...)``, disk striped evenly, everything divided by speed (:func:`layout_vector`, inlined)."""
        speed = self.speed[ti]
        layout = self.layout[ti]
        if layout is not None:
            vec: tuple[float, ...] = layout_vector(layout, cpu, disk, mem, speed)
            return vec
        if mem:
            cpu = cpu + mem
        d = self.disks[ti]
        if d == 1:
            return (cpu / speed, disk / speed)
        if d == 0:
            return (cpu / speed,)  # the feature rejected disk demand on diskless nodes
        share = disk / d / speed
        return (cpu / speed,) + (share,) * d

    def mark(self, ti: int) -> None:
        if not self.is_dirty[ti]:
            self.is_dirty[ti] = True
            self.dirty[self.n_dirty] = ti
            self.n_dirty = self.n_dirty + 1

    def end_of_event(self) -> None:
        """The JobTracker's ``after_event`` hook: end the epoch of every node changed in this event (and queue the
        completions held back for a heartbeat that has come)."""
        if self.n_dirty or self.due:
            self.flush()

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        """The kernel's compiled dispatch of the two kinds :meth:`on_node_done` and :meth:`on_shuffle_end` handle
        (as their registered handlers would)."""
        if kind == self.ev_node_done:
            self.on_node_done(time, order, a, b)
        else:
            self.on_shuffle_end(time, order, a, b)

    def on_shuffle_end(self, now: float, order: int, ti: int, gid: int) -> None:
        """A reduce's shuffle ended: its post-shuffle demand joins the node's mix (and a tracker parked until its
        mix changes is woken)."""
        job = self.jt.jobs[gid >> JOB_SHIFT]
        i = gid & TASK_MASK
        if gid not in self.shuffle_pending or job.reduce_shuffle_end[i] != now or job.reduce_tracker[i] != ti:
            return  # killed (and maybe relaunched with another shuffle end)
        self.shuffle_pending.discard(gid)
        self.shuffling[ti] = self.shuffling[ti] - 1
        rows = self.reduce_rows[job.index]
        self.contend(ti, gid, rows.cpu[i], rows.disk[i], rows.memory[i])
        if ti in self.mix_waiters:
            self.mix_waiters.discard(ti)
            self.jt.wake(self.jt.trackers[ti])

    def on_node_done(self, now: float, order: int, ti: int, stamp: int) -> None:
        """The node's earliest predicted completion is due: retire every task that ends now, as the engine
        retires a trace completion (task mode: applied at once; heartbeat mode: reported at the next heartbeat)."""
        node = self.nodes[ti]
        if stamp != node.event_stamp:
            return  # the mix changed after this event was queued
        node.event_at = INF
        ended = node.retire_into(now)
        if ended is _ONE:
            self.task_ended(now, order, ti, node.retired)
        else:
            for gid in ended:
                self.task_ended(now, order, ti, gid)
        node.just_done = True
        self.mark(ti)

    def task_ended(self, now: float, order: int, ti: int, gid: int) -> None:
        """Task ``gid`` on node ``ti`` ended ``now``: its finish is stored and the engine retires it. O(1)."""
        jt = self.jt
        job = jt.jobs[gid >> JOB_SHIFT]
        key: Any = gid & TASK_MASK  # boxed once; stored through the arrays' writable views (JobState)
        if gid & REDUCE_BIT:
            job.reduce_finish_w[key] = now
        else:
            job.map_finish_w[key] = now
        jt.task_done(now, order, ti, gid)

    def publish(self, ti: int) -> None:
        """Write node ``ti``'s predicted finishes into its tasks' ``map_finish`` / ``reduce_finish``. O(tasks)."""
        jobs = self.jt.jobs
        for gid, finish in self.nodes[ti].completion_times():
            job = jobs[gid >> JOB_SHIFT]
            key: Any = gid & TASK_MASK
            if gid & REDUCE_BIT:
                job.reduce_finish_w[key] = finish
            else:
                job.map_finish_w[key] = finish

    def publish_pending(self) -> None:
        """Publish the nodes changed since their last publication (:meth:`ContentionFeature.publish_predictions`).
        O(tasks on those nodes)."""
        for ti in self.unpublished:
            self.publish(ti)
            self.is_unpublished[ti] = False
        self.unpublished.clear()

    def flush(self) -> None:
        """End of an epoch on every changed node: re-solve, queue its next completion, publish predictions (or
        leave them for :meth:`ContentionFeature.publish_predictions` when the scheduler does not read them).

        After a completion the node's next one is *held back* when the node's tracker has a heartbeat queued
        before it (it always has in heartbeat mode, to report the task that ended): that heartbeat usually
        launches a task there, which changes the prediction, so a completion event queued now would mostly be
        tombstoned (about half of all completion events would be). :meth:`heartbeat` notes the tracker's
        heartbeat (it comes before the held time) and the end of that event queues the held time, or the new
        prediction if the node changed. The schedule is the same; only events that would have been ignored are
        not queued."""
        kernel = self.jt.kernel
        now = kernel.now
        jobs = self.jt.jobs
        nodes, is_dirty = self.nodes, self.is_dirty
        dirty = self.dirty
        n_dirty = self.n_dirty
        self.epochs += n_dirty
        eager = self.eager
        for k in range(n_dirty):
            ti = dirty[k]
            is_dirty[ti] = False
            node = nodes[ti]
            node.held = INF  # an epoch on the node replaces what was held back
            t = INF
            if node.instant or node.stale:
                t = node.next_completion()
            else:
                if node.dirty:  # re-solve and find the next completion in one pass (every heap top is live)
                    best = node._solve_next()
                else:  # next_completion inlined
                    best = INF
                    for g in node.live:
                        top: float = g.heap[0][0]  # _vfinish inlined
                        w = (top - g.virtual) * g.stretch
                        if w < best:
                            best = w
                if best < INF:
                    t = node.now + best
            if t == INF:
                node.just_done = False
                if node.event_at != INF:
                    node.event_stamp = node.event_stamp + 1
                    node.event_at = INF
                continue
            if t < now:
                t = now
            if node.just_done and node.event_at == INF and self.trackers[ti].next_hb < t:
                node.held = t  # the tracker's heartbeat comes first (see above)
            elif t != node.event_at:  # an event already queued at exactly t stays valid: it retires what ends at t
                stamp = node.event_stamp + 1
                node.event_stamp = stamp
                node.event_at = t
                kernel.schedule(t, ORDER_TASK_DONE, self.ev_node_done, ti, stamp)
            node.just_done = False
            if not eager:
                if not self.is_unpublished[ti]:
                    self.is_unpublished[ti] = True
                    self.unpublished.add(ti)
                continue
            if node.running == 1 and not node.instant and not node.stale:  # few slots: the only task ends at t
                for g in node.live:
                    gid = _gid(g.heap[0])
                    job = jobs[gid >> JOB_SHIFT]
                    key: Any = gid & TASK_MASK
                    if gid & REDUCE_BIT:
                        job.reduce_finish_w[key] = t
                    else:
                        job.map_finish_w[key] = t
                continue
            self.publish(ti)
        self.n_dirty = 0
        if self.due:
            for ti in self.due:  # a held completion whose node did not change by its tracker's heartbeat
                node = nodes[ti]
                t = node.held
                if t != INF:
                    node.held = INF
                    stamp = node.event_stamp + 1
                    node.event_stamp = stamp
                    node.event_at = t
                    kernel.schedule(t, ORDER_TASK_DONE, self.ev_node_done, ti, stamp)
            self.due.clear()
