"""The Epochs node model the engine runs: one node's running tasks under eq. 5.3 (dissertation chapter 5).

:class:`NodeMix` holds one TaskTracker's running tasks and predicts their completions by the Epochs rule
(Algorithm 7, eq. 5.3): between two changes of the mix every task accomplishes its residual demand in proportion,
so a residual vector stays proportional to the task's demand. It is the node model of ``--contention tdam``
(driven by :class:`mrsim.tracker.contention_core.EpochCore`) and of the keyed :class:`mrsim.contention.NodeContention`
(the stream dispatchers of sections 5.5 and 6.4). The literal Algorithm 7, :func:`mrsim.contention.epochs`, is the
reference it is pinned against (``tests/contention/test_node_model_oracle.py``, ``tests/tracker/features/tdam/test_nodemix.py``);
nothing runs that one but the tests and the seed tables.

Why it is cheap (``docs/tdam.md``, "Explanation"):

* Write a task's demand as ``size * u`` with ``size = sum(demand)`` (s) and ``u`` its *shape* (unit vector). With
  one job per AMVA class the Schweitzer queue lengths do not depend on ``size``, so the mix solves per shape
  (population = count) and a task's remaining wall time is ``residual_size * stretch[shape]``; ``k`` same-shape
  tasks as one class of population ``k`` give the fixed point of ``k`` classes of population 1 (by symmetry).
* All tasks of one shape lose residual size at one rate, ``1 / stretch`` per second: each shape keeps a virtual
  clock ``V`` and each task its virtual finish ``F = V_at_start + size``, so advancing costs O(shapes) and the next
  finisher of a shape is the minimum of its heap of ``F``.
* Solved mixes are looked up by the node's dense count vector in :class:`MixTable` (one per node type), which
  solves a mix it does not hold (about one epoch in fifty) with the compiled AMVA for the default node model and
  records it in the node type's :class:`mrsim.contention.MixCache`, as ``MixCache.solve`` would; other node models
  go through the cache itself.

Compiled with the engine core by mypyc (``mrsim/compiled_core.py``). Compiled-code habits here (``docs/tdam.md``):
a list item is updated as ``a[i] = a[i] + 1`` (mypyc compiles ``a[i] += 1`` to a generic, boxed in-place add), and
the shape heaps have their own push and pop (``heapq``'s are a Python-level call each, comparing tuples
generically). All times are seconds on the caller's clock; demands are seconds of service.
"""

from __future__ import annotations

import math
from typing import Any, Final, Iterator, Sequence

from mrsim.contention.amva import amva_lists, total

#: No event, no held completion: the engine's ``mrsim.tracker.state.INF`` (this layer sits below the tracker).
INF: Final = float("inf")

#: Tasks predicted to end within this relative window of each other end together.
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
        cache.record(sig, stretch, util, converged, sweeps)
        return Solved(sids, stretch, util)


#: A heap entry ``(virtual finish, seq, gid)``: typed as a variable-length tuple so that compiled code keeps it one
#: boxed object (a ``tuple[float, int, int]`` would be unboxed into its three fields, and boxed into a new tuple,
#: at every read and store); its fields are read through :func:`_vfinish`, :func:`_seq` and :func:`_gid`.
Entry = tuple[Any, ...]


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

#: what :meth:`NodeMix.retire_into` answers for a single completion (its gid in ``NodeMix.retired``); never filled
_ONE: Final[list[int]] = []

#: ``NodeMix.by_sid`` is trimmed of trailing empty entries only past this length (memory is bounded by it or by the
#: largest shape id running on the node, whichever is larger)
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
                 table: MixTable | None = None, cpu_shape_first: bool = True) -> None:
        #: the node type's :class:`~mrsim.contention.MixCache` (shared by every node of that type)
        self.cache: Any = cache
        #: its solved mixes in the engine's keys (share one per cache between nodes, like ``shape_memo``)
        self.table: MixTable = table if table is not None else MixTable(cache)
        self.memoize: bool = bool(cache.memoize)
        # Rounded unit vector -> shape id, as MixCache.shape_of keys it; share one per cache between nodes.
        self.sids: dict[tuple[float, ...], int] = shape_memo if shape_memo is not None else {}
        self.digits: int = cache.shape_digits
        # Shape id of CPU-only demands (the fallback's shape), interned once: skips shape_of's rounding. The engine
        # interns it first (shape 0 of a node type); a keyed node (NodeContention) when its first CPU-only task
        # comes, so that its shape ids follow its tasks' order (-1: not yet).
        self.cpu_only: int = -1
        if cpu_shape_first:
            self.cpu_only = self._cpu_shape()
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
            sid, size = (self.cpu_only if self.cpu_only >= 0 else self._cpu_shape()), demand[0]
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
            sid, size = (self.cpu_only if self.cpu_only >= 0 else self._cpu_shape()), cpu
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

    def next_task(self) -> int:
        """The gid of the task that ends at :meth:`next_completion` (ties: the one that started first on the node);
        -1 when idle. O(tasks on the node)."""
        if self.instant:
            return self.instant[0]
        if self.dirty:
            self._solve()
        best = INF
        best_seq = 0
        found = -1
        dead = self.dead
        for g in self.live:
            for entry in g.heap:  # the live entry that sorts first (the heap top unless killed tasks are on top)
                if dead and _seq(entry) in dead:
                    continue
                when = (_vfinish(entry) - g.virtual) * g.stretch
                if found < 0 or when < best or (when == best and _seq(entry) < best_seq):
                    best, best_seq, found = when, _seq(entry), _gid(entry)
        return found

    def residual(self, gid: int) -> float:
        """Residual total demand of running task ``gid`` as of :attr:`now` (s); ``KeyError`` if it does not run here.
        O(tasks on the node)."""
        if gid in self.instant:
            return 0.0
        sid = self._find(gid)
        if sid < 0:
            raise KeyError(gid)
        g = self.groups[sid]
        dead = self.dead
        for entry in g.heap:
            if _gid(entry) == gid and not (dead and _seq(entry) in dead):
                return max(0.0, _vfinish(entry) - g.virtual)
        raise KeyError(gid)

    def task_shape(self, gid: int) -> int:
        """Shape id of running task ``gid`` (-1 for a zero-demand one); ``KeyError`` if it does not run here."""
        if gid in self.instant:
            return -1
        sid = self._find(gid)
        if sid < 0:
            raise KeyError(gid)
        return sid

    def advance(self, now: float) -> None:
        """Move the clock to ``now`` (accruing eq. 5.3); the caller has retired every task that ends before it."""
        self._accrue(now)

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

    def _cpu_shape(self) -> int:
        """The shape id of CPU-only demands, interned in the cache on the first call."""
        if self.cpu_only < 0:
            cache = self.cache
            self.cpu_only = cache.shape_of((1.0,) + (0.0,) * (cache.spec.width - 1))[0]
        return self.cpu_only

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
