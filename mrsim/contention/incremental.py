"""Incremental per-node contention model for the replay engine (TDAM / CA-Mumak, dissertation sections 5.3, 6.5).

The engine tells a :class:`NodeContention` when a task starts (:meth:`~NodeContention.add_task`) or is killed
(:meth:`~NodeContention.remove_task`) and asks when the next running task will finish under the current mix
(:meth:`~NodeContention.next_completion`). Between changes of the mix the node advances by the Epochs rule
(eq. 5.3), so its predictions equal :func:`mrsim.contention.epochs.epochs` on the same local stream (up to AMVA
tolerance; the tests check this).

Why it is cheap (``docs/engine.md``, "Why the engine is fast", idea 5):

* Under eq. 5.3 a residual demand vector stays proportional to the task's original vector. Write a task's demand
  as ``size * u`` with ``size = sum(demand)`` (s) and ``u`` its *shape* (unit vector). With one job per class, the
  Schweitzer queue lengths ``Q_k = D_k (1 + A_k) / sum_j D_j (1 + A_j)`` do not depend on ``size``. So the mix's
  queue lengths depend only on the multiset of (shape, count), and a task's remaining time is
  ``residual_size * stretch[shape]`` where ``stretch`` is the response time of a unit-size job of that shape.
* ``k`` same-shape tasks solved as one class of population ``k`` give the same Schweitzer fixed point as ``k``
  classes of population 1 (by symmetry), so a node with 40 tasks of 3 jobs solves a 3-class network.
* All tasks of one shape lose residual size at the same rate, ``1 / stretch`` per second. Each shape keeps a
  virtual clock ``V`` (size units done per task) and each task its virtual finish ``F = V_at_start + size``;
  residual = ``F - V``. Advancing costs O(shapes), the next finisher of a shape is the heap minimum of ``F``.
* Solved mixes are cached in a :class:`MixCache` keyed by the mix signature, a sorted tuple of
  ``(shape id, count)``; share one cache between all nodes with the same :class:`NodeSpec`.

Costs: ``add_task``/``remove_task`` O(log n + shapes) plus one AMVA solve on a cache miss, deferred until time
next moves (several starts at one instant cost one solve); ``next_completion`` O(shapes);
``completion_times`` O(n). All times are seconds on the engine's clock; demands are seconds of service.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Hashable, Iterable, Sequence

from mrsim.contention.amva import DEFAULT_MAX_ITER, DEFAULT_TOL, amva_core
from mrsim.contention.node import NodeSpec, _resource_utilization, solve_rows
from mrsim.contention.network import CentreKind
from mrsim.errors import InputError

Signature = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class MixEntry:
    """A solved mix: ``stretch[i]`` (s of wall time per s of demand) for the i-th shape of the signature, and
    per-resource utilization (order of :attr:`NodeSpec.resources`; CPU = fraction of cores busy)."""

    stretch: tuple[float, ...]
    utilization: tuple[float, ...]
    converged: bool


class MixCache:
    """Shape interning plus a memo of solved mixes, for every node of one :class:`NodeSpec`.

    Args:
        spec: the node hardware every user of this cache shares.
        tol, max_iter: AMVA controls for every solve.
        shape_digits: a shape is the unit demand vector rounded to this many decimals; the rounded vector is what
            gets solved, so results do not depend on which task arrived first. 12 keeps shapes exact for
            practical purposes; fewer digits merge near-proportional tasks (more cache hits, approximate).
        max_entries: when the memo holds this many mixes it is cleared (O(1) amortised, no LRU bookkeeping).
        memoize: False solves every lookup afresh (for tests and benchmarks: the results must be identical).
    """

    def __init__(
        self,
        spec: NodeSpec,
        *,
        tol: float = DEFAULT_TOL,
        max_iter: int = DEFAULT_MAX_ITER,
        shape_digits: int = 12,
        max_entries: int = 200_000,
        memoize: bool = True,
    ) -> None:
        if not isinstance(spec, NodeSpec):
            raise InputError(f"MixCache needs a NodeSpec, got {spec!r}")
        if not (tol > 0.0) or max_iter < 1 or shape_digits < 1 or max_entries < 1:
            raise InputError("MixCache: tol, max_iter, shape_digits and max_entries must be positive")
        self.spec = spec
        self.tol = tol
        self.max_iter = max_iter
        self.shape_digits = shape_digits
        self.max_entries = max_entries
        self.memoize = memoize
        self._shape_ids: dict[tuple[float, ...], int] = {}
        # Seidmann-expanded unit rows (the default model, solved inline), else the unit rows as they are.
        self._seidmann = spec.cpu_model == "seidmann" and spec.memory == "none"
        self._shape_rows: list[list[float]] = []
        self._shapes: list[tuple[float, ...]] = []
        self.memo: dict[Signature, MixEntry] = {}  # read directly by the engine's hot path; write via solve()
        # The same mixes keyed by a dense count vector (index = shape id, no trailing zeros), the engine's form:
        # counts -> (shape ids present, in signature order; entry). Bounded like the memo.
        self.by_counts: dict[tuple[int, ...], tuple[tuple[int, ...], MixEntry]] = {}
        self._is_queue = [k is CentreKind.QUEUE for k in spec.kinds]
        self.hits = 0
        self.solves = 0
        self.nonconverged = 0
        self.sweeps = 0
        self.fallbacks = 0  # exact-CPU mixes too large for exact MVA, solved by Seidmann + AMVA instead

    def shape_of(self, demand: Sequence[float]) -> tuple[int, float]:
        """Intern a validated, non-zero demand vector: ``(shape id, size)`` with ``size = sum(demand)`` (s)."""
        size = math.fsum(demand)
        digits = self.shape_digits
        key = tuple(round(d / size, digits) for d in demand)
        sid = self._shape_ids.get(key)
        if sid is None:
            total = math.fsum(key)
            unit = tuple(v / total for v in key)
            sid = len(self._shapes)
            self._shape_ids[key] = sid
            self._shapes.append(unit)
            self._shape_rows.append(self.spec.expand(unit) if self._seidmann else list(unit))
        return sid, size

    def shape(self, sid: int) -> tuple[float, ...]:
        """The unit demand vector (sums to 1) solved for shape ``sid``."""
        return self._shapes[sid]

    @property
    def n_shapes(self) -> int:
        return len(self._shapes)

    def solve(self, signature: Signature) -> MixEntry:
        """Solved mix for ``signature`` (sorted ``(shape id, count)`` pairs, counts > 0), from the memo if present."""
        entry = self.memo.get(signature)
        if entry is not None:
            self.hits += 1
            return entry
        rows = [self._shape_rows[sid] for sid, _ in signature]
        pops = [float(n) for _, n in signature]
        if self._seidmann:
            res = amva_core(rows, pops, self._is_queue, [0.0] * len(rows), self.tol, self.max_iter)
            entry = MixEntry(res.response, _resource_utilization(self.spec, res.utilization), res.converged)
            self.sweeps += res.iterations
        else:
            sol, fell_back = solve_rows(self.spec, rows, pops, self.tol, self.max_iter)
            res = sol.amva
            entry = MixEntry(sol.response, sol.utilization, res.converged)
            self.fallbacks += fell_back
            if self.spec.memory != "none" or fell_back:  # an AMVA ran: count its sweeps
                self.sweeps += res.iterations
        self.solves += 1
        self.nonconverged += not res.converged
        if self.memoize:
            if len(self.memo) >= self.max_entries:
                self.memo.clear()
            self.memo[signature] = entry
        return entry

    def solve_counts(self, counts: tuple[int, ...]) -> tuple[tuple[int, ...], MixEntry]:
        """:meth:`solve` for a dense count vector (``counts[sid]`` tasks of shape ``sid``, no trailing zeros):
        ``(shape ids with a count, ascending; entry)``, whose ``stretch`` follows those ids. Memoised in
        :attr:`by_counts`; a miss costs a :meth:`solve` (itself memoised by signature)."""
        hit = self.by_counts.get(counts)
        if hit is not None:
            self.hits += 1
            return hit
        sig = tuple((sid, n) for sid, n in enumerate(counts) if n)
        entry = self.solve(sig)
        hit = (tuple(sid for sid, _ in sig), entry)
        if self.memoize:
            if len(self.by_counts) >= self.max_entries:
                self.by_counts.clear()
            self.by_counts[counts] = hit
        return hit

    def stats(self) -> dict[str, int]:
        """Counters: memo hits, AMVA solves, non-converged solves, total sweeps, shapes, memo size."""
        return {
            "hits": self.hits,
            "solves": self.solves,
            "nonconverged": self.nonconverged,
            "sweeps": self.sweeps,
            "shapes": len(self._shapes),
            "entries": len(self.memo),
            "exact_fallbacks": self.fallbacks,
        }


@dataclass(slots=True)
class _Group:
    """Running tasks of one shape on one node."""

    count: int = 0
    virtual: float = 0.0  # V: size units accomplished by every task of this shape since the group was created
    stretch: float = math.inf  # wall seconds per size unit under the current mix
    heap: list[tuple[float, int, Hashable]] = field(default_factory=list)  # (F, seq, key), lazily pruned


@dataclass(slots=True)
class _Task:
    sid: int
    finish_v: float  # F
    seq: int
    size: float  # original size, s


class NodeContention:
    """Running tasks on one node and their predicted completions under the Epochs rule (see module docstring).

    Task keys are any hashable (e.g. ``(job_index, task_index)``). A finished task stops contending at its
    completion instant; it is then *pending* until collected by :meth:`advance` or retired by
    :meth:`remove_task`. Two ways to drive it:

    * one event per completion: schedule at ``next_completion()``; when it fires call ``remove_task(key, t)``;
      re-read ``next_completion()`` whenever :attr:`version` changed (use it as a tombstone);
    * heartbeat collection: at each heartbeat ``for t_done, key in node.advance(now)`` reports the tasks that
      finished since the last call, each with its exact finish time.

    Time never runs backwards: a call with ``now`` earlier than the node's clock raises ``ValueError``.
    """

    def __init__(self, spec: NodeSpec | MixCache, now: float = 0.0, *, tie_rtol: float = 1e-10) -> None:
        self.cache = spec if isinstance(spec, MixCache) else MixCache(spec)
        self.spec = self.cache.spec
        self._now = float(now)
        self._tie_rtol = tie_rtol
        self._groups: dict[int, _Group] = {}
        self._tasks: dict[Hashable, _Task] = {}
        self._pending: list[tuple[float, int, Hashable]] = []  # finished, not yet collected: (time, seq, key)
        self._pending_keys: set[Hashable] = set()
        self._seq = 0
        self._dirty = False
        self._util: tuple[float, ...] = (0.0,) * self.spec.n_resources
        self.version = 0

    # ----------------------------------------------------------------- queries
    @property
    def now(self) -> float:
        """The node's clock: the last time it was advanced to (s)."""
        return self._now

    def __len__(self) -> int:
        """Tasks the engine has not heard the end of: running plus pending (finished, not yet collected)."""
        return len(self._tasks) + len(self._pending_keys)

    @property
    def running(self) -> int:
        """Number of running (contending) tasks."""
        return len(self._tasks)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._tasks or key in self._pending_keys

    def signature(self) -> Signature:
        """The current mix signature: sorted ``(shape id, count)`` pairs."""
        return tuple(sorted((sid, g.count) for sid, g in self._groups.items()))

    def utilization(self) -> tuple[float, ...]:
        """Per-resource utilization of the current mix (order of ``spec.resources``; CPU = fraction of cores)."""
        self._solve()
        return self._util

    def remaining_size(self, key: Hashable) -> float:
        """Residual total demand of a running task as of the node's clock (s); 0 for a pending one."""
        if key in self._pending_keys:
            return 0.0
        t = self._tasks[key]
        return max(0.0, t.finish_v - self._groups[t.sid].virtual)

    def remaining_demand(self, key: Hashable) -> tuple[float, ...]:
        """Residual demand vector ``R_n`` (eq. 5.2) of a task as of the node's clock (s per resource)."""
        if key in self._pending_keys:
            return (0.0,) * self.spec.width
        size = self.remaining_size(key)
        return tuple(size * u for u in self.cache.shape(self._tasks[key].sid))

    def progress(self, key: Hashable) -> float:
        """Fraction of a task's demand already accomplished, in [0, 1]."""
        if key in self._pending_keys:
            return 1.0
        return 1.0 - self.remaining_size(key) / self._tasks[key].size

    def completion_time(self, key: Hashable) -> float:
        """Predicted finish time of a task if the mix stays as it is (s); actual time for a pending task."""
        if key in self._pending_keys:
            return next(t for t, _, k in self._pending if k == key)
        self._solve()
        t = self._tasks[key]
        g = self._groups[t.sid]
        return self._now + max(0.0, t.finish_v - g.virtual) * g.stretch

    def completion_times(self) -> dict[Hashable, float]:
        """Predicted finish time of every running task (and actual time of pending ones). O(n)."""
        self._solve()
        out = {k: t for t, _, k in self._pending}
        now, groups = self._now, self._groups
        for key, t in self._tasks.items():
            g = groups[t.sid]
            out[key] = now + max(0.0, t.finish_v - g.virtual) * g.stretch
        return out

    def next_completion(self) -> tuple[float, Hashable] | None:
        """``(time, key)`` of the earliest completion under the current mix, or None when idle. O(shapes).

        Pending (already finished) tasks come first, with their past finish times. Ties go to the task that
        started first.
        """
        if self._pending:
            t, _, key = min(self._pending)
            return t, key
        best = self._peek()
        return None if best is None else (best[0], best[2])

    # ----------------------------------------------------------------- changes
    def advance(self, now: float) -> list[tuple[float, Hashable]]:
        """Move the clock to ``now``, accruing demand by eq. 5.3 epoch by epoch; return finished tasks.

        Every task that finishes on the way is retired at its exact finish time (the mix is re-solved there) and
        returned, together with tasks that finished during earlier ``add_task``/``remove_task`` calls and were
        not collected yet, as ``(finish_time, key)`` in time order.
        """
        self._run_to(now)
        out = [(t, k) for t, _, k in sorted(self._pending)]
        self._pending.clear()
        self._pending_keys.clear()
        return out

    def add_task(self, key: Hashable, demand: Sequence[float], now: float) -> None:
        """Start task ``key`` at ``now`` with demand vector ``(cpu, disk0, ...)`` in seconds.

        A task whose demand is all zeros finishes at ``now`` (it becomes pending at once). Raises
        :class:`InputError` for a malformed demand vector and ``ValueError`` for a key that is already known.
        """
        if key in self._tasks or key in self._pending_keys:
            raise ValueError(f"task {key!r} is already on this node")
        vec = self.spec.check(demand, f"task {key!r}")
        self._run_to(now)
        self._seq += 1
        self.version += 1
        if not any(vec):
            self._pending.append((self._now, self._seq, key))
            self._pending_keys.add(key)
            return
        sid, size = self.cache.shape_of(vec)
        g = self._groups.get(sid)
        if g is None:
            g = self._groups[sid] = _Group()
        fin = g.virtual + size
        g.count += 1
        heapq.heappush(g.heap, (fin, self._seq, key))
        self._tasks[key] = _Task(sid, fin, self._seq, size)
        self._dirty = True

    def remove_task(self, key: Hashable, now: float) -> float:
        """Take task ``key`` off the node at ``now`` (finished or killed); return its residual size (s).

        The node first advances to ``now``; if the task finished on the way (or earlier and is pending) the
        result is 0.0. Raises ``KeyError`` for an unknown key.
        """
        if key not in self._tasks and key not in self._pending_keys:
            raise KeyError(key)
        self._run_to(now)
        if key in self._pending_keys:
            self._pending_keys.discard(key)
            self._pending = [p for p in self._pending if p[2] != key]
            return 0.0
        t = self._tasks.pop(key)
        g = self._groups[t.sid]
        residual = max(0.0, t.finish_v - g.virtual)
        g.count -= 1
        if g.count == 0:
            del self._groups[t.sid]
        # The heap entry stays behind; _peek drops entries whose key is no longer running.
        self.version += 1
        self._dirty = True
        return residual

    # ----------------------------------------------------------------- what-if (CA-FIFO, LRT, LMUF)
    def predicted_utilization(self, extra: Sequence[float] | None = None) -> tuple[float, ...]:
        """Per-resource utilization of the current mix, or of the mix plus one more task with demand ``extra``.

        This is Algorithm 9's ``maxUtilizedResourceValue(task.demands)`` before taking the max.
        """
        if extra is None:
            return self.utilization()
        return self.cache.solve(self._with_extra(extra)[0]).utilization

    def max_utilization(self, extra: Sequence[float] | None = None) -> float:
        """Bottleneck utilization (max over resources) of the current mix, or with one more task."""
        return max(self.predicted_utilization(extra))

    def predicted_response_time(self, demand: Sequence[float]) -> float:
        """Response time a new task would get if it started now and the mix then stayed fixed (s).

        LRT's estimate (sections 5.5 and 6.4): the first-epoch time ``T`` of the new task.
        """
        sig, pos, size = self._with_extra(demand)
        if pos < 0:
            return 0.0
        return size * self.cache.solve(sig).stretch[pos]

    # ----------------------------------------------------------------- internals
    def _with_extra(self, demand: Sequence[float]) -> tuple[Signature, int, float]:
        vec = self.spec.check(demand, "candidate task")
        counts = {sid: g.count for sid, g in self._groups.items()}
        if not any(vec):
            return tuple(sorted(counts.items())), -1, 0.0
        sid, size = self.cache.shape_of(vec)
        counts[sid] = counts.get(sid, 0) + 1
        sig = tuple(sorted(counts.items()))
        pos = next(i for i, (s, _) in enumerate(sig) if s == sid)
        return sig, pos, size

    def _solve(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        if not self._groups:
            self._util = (0.0,) * self.spec.n_resources
            return
        sig = self.signature()
        entry = self.cache.solve(sig)
        groups = self._groups
        for (sid, _), s in zip(sig, entry.stretch):
            groups[sid].stretch = s
        self._util = entry.utilization

    def _peek(self) -> tuple[float, int, Hashable, _Group] | None:
        """Earliest (time, seq, key, group) among running tasks; prunes stale heap entries."""
        self._solve()
        best = None
        tasks = self._tasks
        for g in self._groups.values():
            heap = g.heap
            while heap:
                fin, seq, key = heap[0]
                t = tasks.get(key)
                if t is not None and t.seq == seq:
                    break
                heapq.heappop(heap)
            fin, seq, key = heap[0]
            when = self._now + max(0.0, fin - g.virtual) * g.stretch
            if best is None or (when, seq) < (best[0], best[1]):
                best = (when, seq, key, g)
        return best

    def _accrue(self, t: float) -> None:
        dt = t - self._now
        if dt > 0.0:
            for g in self._groups.values():
                g.virtual += dt / g.stretch  # eq. 5.3: residual size shrinks by d(E)/stretch
            self._now = t

    def _run_to(self, now: float) -> None:
        now = float(now)
        if now <= self._now:
            if now < self._now - 1e-9 * max(1.0, abs(self._now)):
                raise ValueError(f"time went backwards on a node: {now!r} < {self._now!r}")
            return
        while self._groups:
            best = self._peek()
            if best is None or best[0] > now:
                break
            when = max(best[0], self._now)
            self._accrue(when)
            window = when + self._tie_rtol * max(1.0, abs(when))
            self._retire_until(window, when)
        if self._groups:
            self._solve()
        self._accrue(now)
        self._now = now

    def _retire_until(self, window: float, when: float) -> None:
        """Retire every running task predicted to finish by ``window``; they finish at ``when``."""
        tasks = self._tasks
        done: list[tuple[int, Hashable]] = []
        for sid, g in list(self._groups.items()):
            heap = g.heap
            while heap:
                fin, seq, key = heap[0]
                t = tasks.get(key)
                if t is None or t.seq != seq:
                    heapq.heappop(heap)
                    continue
                if self._now + max(0.0, fin - g.virtual) * g.stretch > window:
                    break
                heapq.heappop(heap)
                del tasks[key]
                g.count -= 1
                done.append((seq, key))
            if g.count == 0:
                del self._groups[sid]
        for seq, key in sorted(done, key=lambda p: p[0]):
            self._pending.append((when, seq, key))
            self._pending_keys.add(key)
        if done:
            self.version += 1
            self._dirty = True

    def _check(self) -> None:
        """Invariants, for tests: counts match tasks, heaps hold every running task, clocks and residuals sane."""
        per_shape: dict[int, int] = {}
        for key, t in self._tasks.items():
            per_shape[t.sid] = per_shape.get(t.sid, 0) + 1
            g = self._groups[t.sid]
            assert (t.finish_v, t.seq, key) in g.heap, f"task {key!r} missing from its shape heap"
            assert t.finish_v - g.virtual >= -1e-9 * max(1.0, t.finish_v), f"task {key!r} overran its demand"
            assert t.finish_v - g.virtual <= t.size * (1 + 1e-12) + 1e-12, f"task {key!r} has negative progress"
        assert per_shape == {sid: g.count for sid, g in self._groups.items()}, "shape counts disagree with tasks"
        assert not (self._pending_keys & set(self._tasks)), "a task is both running and pending"
        assert self._pending_keys == {k for _, _, k in self._pending}, "pending index out of sync"
        for g in self._groups.values():
            assert g.count > 0 and math.isfinite(g.virtual) and g.virtual >= 0.0


def predicted_utilization(
    spec: NodeSpec | MixCache, mix: Iterable[tuple[Sequence[float], int]]
) -> tuple[float, ...]:
    """Per-resource utilization of a node running ``mix``: ``(demand_vector, count)`` pairs (demands in s).

    Standalone form of :meth:`NodeContention.predicted_utilization` for admission control (CA-FIFO, section
    6.7, Algorithm 9) when no live node is at hand. Pass a :class:`MixCache` to reuse solved mixes.
    """
    cache = spec if isinstance(spec, MixCache) else MixCache(spec)
    counts: dict[int, int] = {}
    for i, (demand, count) in enumerate(mix):
        vec = cache.spec.check(demand, f"mix entry {i}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(f"mix entry {i}: count must be a non-negative integer, got {count!r}")
        if count == 0 or not any(vec):
            continue
        sid, _ = cache.shape_of(vec)
        counts[sid] = counts.get(sid, 0) + count
    if not counts:
        return (0.0,) * cache.spec.n_resources
    return cache.solve(tuple(sorted(counts.items()))).utilization
