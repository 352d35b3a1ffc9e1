"""The node model's solved mixes and its keyed interface (TDAM / CA-Mumak, dissertation sections 5.3, 6.5).

mrsim has one node model, :class:`mrsim.contention.nodemix.NodeMix` (Algorithm 7's eq. 5.3 accrued by demand
shape; its module docstring says why that is exact and cheap). This module holds what it is built on and how it is
used outside a replay:

* :class:`MixCache`: shape interning (a task's demand is ``size * u``, ``u`` its unit *shape*) and a memo of solved
  mixes keyed by the mix signature, a sorted tuple of ``(shape id, count)``; share one cache between all nodes
  with the same :class:`NodeSpec`. :func:`predicted_utilization` asks it about a mix with no live node at hand.
* :class:`NodeContention`: the node model keyed by any hashable, with pending tasks, versions and validated
  demands, for a local stream driven from outside the engine (the stream dispatchers of
  :mod:`mrsim.contention.dispatch`, the tutorial of ``docs/contention.md``). The engine drives
  :class:`~mrsim.contention.nodemix.NodeMix` directly.

Both are pinned against the literal Algorithm 7, :func:`mrsim.contention.epochs.epochs`, on hand-computed and
random streams (up to AMVA tolerance; ``tests/contention/test_node_model_oracle.py``). All times are seconds on
the caller's clock; demands are seconds of service.
"""

from __future__ import annotations

import math
from typing import Hashable, Iterable, Sequence

from dataclasses import dataclass

from mrsim.contention.amva import DEFAULT_MAX_ITER, DEFAULT_TOL, amva_core
from mrsim.contention.node import NodeSpec, _resource_utilization, solve_rows
from mrsim.contention.network import CentreKind
from mrsim.contention.nodemix import INF, NodeMix
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

    def record(self, signature: Signature, stretch: Sequence[float], utilization: tuple[float, ...],
               converged: bool, sweeps: int) -> None:
        """Count and memoise a mix of the default model solved by the engine's node model (``MixTable``), as
        :meth:`solve` counts and memoises its own solves: the statistics and later what-if queries see one cache."""
        self.sweeps += sweeps
        self.solves += 1
        self.nonconverged += not converged
        if self.memoize:
            if len(self.memo) >= self.max_entries:
                self.memo.clear()
            self.memo[signature] = MixEntry(tuple(stretch), utilization, converged)

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


class NodeContention:
    """One node's local stream under the Epochs rule, keyed by any hashable: the engine's node model
    (:class:`~mrsim.contention.nodemix.NodeMix`) behind the interface of a stream of tasks.

    Task keys are any hashable (e.g. ``(job_index, task_index)``). A finished task stops contending at its
    completion instant; it is then *pending* until collected by :meth:`advance` or retired by
    :meth:`remove_task`. Two ways to drive it:

    * one event per completion: schedule at ``next_completion()``; when it fires call ``remove_task(key, t)``;
      re-read ``next_completion()`` whenever :attr:`version` changed (use it as a tombstone);
    * heartbeat collection: at each heartbeat ``for t_done, key in node.advance(now)`` reports the tasks that
      finished since the last call, each with its exact finish time.

    Tasks predicted to end within :data:`~mrsim.contention.nodemix.TIE_RTOL` (relative) of each other end
    together, in start order. Time never runs backwards: a call with ``now`` earlier than the node's clock raises
    ``ValueError``. Demands are validated (:meth:`NodeSpec.check`); all times are seconds.

    Costs: as :class:`~mrsim.contention.nodemix.NodeMix` (``add_task``/``remove_task`` O(log n + shapes) plus one
    AMVA solve on a cache miss, deferred until time next moves; ``next_completion`` O(tasks) to name the task);
    per-key queries (``remaining_size``, ``completion_time``) O(tasks on the node).
    """

    def __init__(self, spec: NodeSpec | MixCache, now: float = 0.0) -> None:
        self.cache = spec if isinstance(spec, MixCache) else MixCache(spec)
        self.spec = self.cache.spec
        self._mix = NodeMix(self.cache, cpu_shape_first=False)
        self._mix.now = float(now)
        self._gids: dict[Hashable, int] = {}  # running task -> its key in the node model
        self._keys: dict[int, Hashable] = {}
        self._sizes: dict[Hashable, float] = {}  # original total demand (s)
        self._pending: list[tuple[float, int, Hashable]] = []  # finished, not yet collected: (time, seq, key)
        self._pending_keys: set[Hashable] = set()
        self._seq = 0  # start order; also the task's key in the node model
        self.version = 0

    # ----------------------------------------------------------------- queries
    @property
    def now(self) -> float:
        """The node's clock: the last time it was advanced to (s)."""
        return self._mix.now

    def __len__(self) -> int:
        """Tasks the engine has not heard the end of: running plus pending (finished, not yet collected)."""
        return len(self._gids) + len(self._pending_keys)

    @property
    def running(self) -> int:
        """Number of running (contending) tasks."""
        return len(self._gids)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._gids or key in self._pending_keys

    def signature(self) -> Signature:
        """The current mix signature: sorted ``(shape id, count)`` pairs."""
        return tuple((sid, n) for sid, n in enumerate(self._mix.counts) if n)

    def utilization(self) -> tuple[float, ...]:
        """Per-resource utilization of the current mix (order of ``spec.resources``; CPU = fraction of cores)."""
        return self._mix.utilization()

    def remaining_size(self, key: Hashable) -> float:
        """Residual total demand of a running task as of the node's clock (s); 0 for a pending one."""
        if key in self._pending_keys:
            return 0.0
        return self._mix.residual(self._gids[key])

    def remaining_demand(self, key: Hashable) -> tuple[float, ...]:
        """Residual demand vector ``R_n`` (eq. 5.2) of a task as of the node's clock (s per resource)."""
        if key in self._pending_keys:
            return (0.0,) * self.spec.width
        gid = self._gids[key]
        size = self._mix.residual(gid)
        return tuple(size * u for u in self.cache.shape(self._mix.task_shape(gid)))

    def progress(self, key: Hashable) -> float:
        """Fraction of a task's demand already accomplished, in [0, 1]."""
        if key in self._pending_keys:
            return 1.0
        return 1.0 - self.remaining_size(key) / self._sizes[key]

    def completion_time(self, key: Hashable) -> float:
        """Predicted finish time of a task if the mix stays as it is (s); actual time for a pending task."""
        if key in self._pending_keys:
            return next(t for t, _, k in self._pending if k == key)
        gid = self._gids[key]
        return next(t for g, t in self._mix.completion_times() if g == gid)

    def completion_times(self) -> dict[Hashable, float]:
        """Predicted finish time of every running task (and actual time of pending ones). O(n)."""
        out = {k: t for t, _, k in self._pending}
        keys = self._keys
        for gid, t in self._mix.completion_times():
            out[keys[gid]] = t
        return out

    def next_completion(self) -> tuple[float, Hashable] | None:
        """``(time, key)`` of the earliest completion under the current mix, or None when idle.

        Pending (already finished) tasks come first, with their past finish times. Ties go to the task that
        started first.
        """
        if self._pending:
            t, _, key = min(self._pending)
            return t, key
        when = self._mix.next_completion()
        if when == INF:
            return None
        return when, self._keys[self._mix.next_task()]

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
        if key in self._gids or key in self._pending_keys:
            raise ValueError(f"task {key!r} is already on this node")
        vec = self.spec.check(demand, f"task {key!r}")
        self._run_to(now)
        self._seq += 1
        self.version += 1
        if not any(vec):
            self._pending.append((self._mix.now, self._seq, key))
            self._pending_keys.add(key)
            return
        gid = self._seq
        self._mix.add(gid, vec, self._mix.now)
        self._gids[key] = gid
        self._keys[gid] = key
        self._sizes[key] = math.fsum(vec)

    def remove_task(self, key: Hashable, now: float) -> float:
        """Take task ``key`` off the node at ``now`` (finished or killed); return its residual size (s).

        The node first advances to ``now``; if the task finished on the way (or earlier and is pending) the
        result is 0.0. Raises ``KeyError`` for an unknown key.
        """
        if key not in self._gids and key not in self._pending_keys:
            raise KeyError(key)
        self._run_to(now)
        if key in self._pending_keys:
            self._pending_keys.discard(key)
            self._pending = [p for p in self._pending if p[2] != key]
            return 0.0
        gid = self._gids.pop(key)
        del self._keys[gid], self._sizes[key]
        residual = self._mix.remove(gid, self._mix.now)
        self.version += 1
        return residual

    # ----------------------------------------------------------------- what-if (CA-FIFO, LRT, LMUF)
    def predicted_utilization(self, extra: Sequence[float] | None = None) -> tuple[float, ...]:
        """Per-resource utilization of the current mix, or of the mix plus one more task with demand ``extra``.

        This is Algorithm 9's ``maxUtilizedResourceValue(task.demands)`` before taking the max.
        """
        if extra is None:
            return self.utilization()
        return self._mix.predicted_utilization(self.spec.check(extra, "candidate task"))

    def max_utilization(self, extra: Sequence[float] | None = None) -> float:
        """Bottleneck utilization (max over resources) of the current mix, or with one more task."""
        return max(self.predicted_utilization(extra))

    def predicted_response_time(self, demand: Sequence[float]) -> float:
        """Response time a new task would get if it started now and the mix then stayed fixed (s).

        LRT's estimate (sections 5.5 and 6.4): the first-epoch time ``T`` of the new task.
        """
        vec = self.spec.check(demand, "candidate task")
        if not any(vec):
            return 0.0
        sid, size = self.cache.shape_of(vec)
        counts = dict(self.signature())
        counts[sid] = counts.get(sid, 0) + 1
        sig = tuple(sorted(counts.items()))
        pos = next(i for i, (s, _) in enumerate(sig) if s == sid)
        return size * self.cache.solve(sig).stretch[pos]

    # ----------------------------------------------------------------- internals
    def _run_to(self, now: float) -> None:
        """Retire, epoch by epoch, every task that ends by ``now`` (each at its finish time), then accrue to ``now``."""
        now = float(now)
        mix = self._mix
        if now <= mix.now:
            if now < mix.now - 1e-9 * max(1.0, abs(mix.now)):
                raise ValueError(f"time went backwards on a node: {now!r} < {mix.now!r}")
            return
        while True:
            when = mix.next_completion()
            if when > now:
                break
            when = max(when, mix.now)
            ended = mix.retire(when)
            if not ended:
                break
            for gid in ended:
                key = self._keys.pop(gid)
                del self._gids[key], self._sizes[key]
                self._pending.append((when, gid, key))
                self._pending_keys.add(key)
            self.version += 1
        mix.advance(now)

    def _check(self) -> None:
        """Invariants, for tests: the node model's own, and the keys agree with its tasks."""
        self._mix._check()
        running = {gid for gid, _ in self._mix.completion_times()}
        assert running == set(self._keys) and len(running) == self._mix.running, "keys disagree with the node model"
        assert {self._gids[k]: k for k in self._gids} == self._keys, "key index out of sync"
        assert set(self._sizes) == set(self._gids), "sizes out of sync"
        assert not (self._pending_keys & set(self._gids)), "a task is both running and pending"
        assert self._pending_keys == {k for _, _, k in self._pending}, "pending index out of sync"


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
