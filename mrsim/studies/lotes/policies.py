"""Online dispatchers: LoTES's two-level dispatcher (Tran & Beck section 4.3) and the greedy baseline (section 5).

A dispatcher is called once per released task with its class ``k`` and integer request vector and returns
``(machine, start_now)``. It reads the :class:`~mrsim.studies.lotes.state.ClusterState` indexes and never changes machine
state; the engine starts or enqueues the task. Random choices use the run's ``dispatch`` stream.

Greedy (the paper's "naive" scheduler): among machines whose *capacity* can hold the task, the one with the
shortest FIFO queue. A machine that can start the task now has an empty queue, so it is among the shortest; we
break the tie in its favour (a task never waits while some machine could start it) and choose among the
startable machines by a random rotation (:meth:`ClusterState.any_fit`: the first one at or after a uniformly random
position; not uniform over those machines, since one that follows a long run of full machines is picked more
often). Otherwise the shortest queue among
capable machines wins, ties uniformly at random. The policy ignores which configuration suits the task: that is
what "resource-unaware" means here.

LoTES, for a task of class ``k``:

1. configuration ``j`` drawn with probability ``rho_jk`` (from the machine-assignment solution);
2. first fit (lowest machine index) among ``j``'s machines whose bin contains class ``k`` (``A^j_ik = 1``);
3. else any machine of the data centre that can start it now (random rotation, as greedy);
4. else the shortest queue among ``j``'s machines whose bin contains ``k``, ties uniformly at random.

If step 4 has no machine that could ever hold this task (its request exceeds configuration ``j``'s capacity, or
rounding left ``j`` no machine for ``k``), the task joins the shortest queue among all capable machines, as greedy.
Cost per dispatch: O(M) root tests plus tree descents (see :mod:`mrsim.studies.lotes.fittree`), O(M) for queue choice.
"""

from __future__ import annotations

import bisect
import enum
from typing import Sequence

from mrsim.studies.lotes.assignment import LotesPlan
from mrsim.studies.lotes.state import ClusterState, Group
from mrsim.studies.lotes.workload import Uniforms


class Policy(enum.Enum):
    """The dispatch policies; the value is the CLI spelling."""

    LOTES = "lotes"
    GREEDY = "greedy"


class GreedyDispatcher:
    """Shortest queue among capable machines; start at once when possible (see the module docstring)."""

    def __init__(self, state: ClusterState, uniforms: Uniforms) -> None:
        self.state = state
        self.u = uniforms
        self.started_now = 0
        self.queued = 0

    def dispatch(self, k: int, req: Sequence[int]) -> tuple[int, bool]:
        st = self.state
        m = st.any_fit(req, self.u.next())
        if m >= 0:
            self.started_now += 1
            return m, True
        self.queued += 1
        return st.shortest_queue(st.capable_configs(req), self.u.next()), False


class _ClassView:
    """Configuration ``j``'s machines serving class ``k``: contiguous blocks (one per bin containing ``k``)."""

    __slots__ = ("ranges", "blocks")

    def __init__(self, ranges: list[tuple[int, int]], blocks: list[Group]) -> None:
        self.ranges = ranges  # [lo, hi) positions in the configuration's tree, ascending
        self.blocks = blocks  # the queue group of each range


class LotesDispatcher:
    """LoTES stage 3 over a :class:`LotesPlan` (see the module docstring).

    Machines of a configuration are given bins in contiguous blocks (:meth:`LotesPlan.bin_of`), so "the machines
    of ``j`` whose bin serves ``k``" is a union of blocks: step 2 asks the configuration's fit tree for the
    leftmost fit in each block in turn, and step 4 compares the blocks' queue indexes.
    """

    def __init__(self, state: ClusterState, plan: LotesPlan, uniforms: Uniforms) -> None:
        self.state = state
        self.u = uniforms
        M = len(plan.rho)
        K = len(plan.rho[0]) if M else 0
        self.views: list[list[_ClassView | None]] = []
        for j in range(M):
            off = state.offsets[j]
            lo = 0
            blocks: list[tuple[int, int, Group]] = []
            for count in plan.machines_per_bin[j]:
                blocks.append((lo, lo + count, state.add_group(range(off + lo, off + lo + count)) if count else None))
                lo += count
            row: list[_ClassView | None] = []
            for k in range(K):
                mine = [(a, b, g) for i, (a, b, g) in enumerate(blocks) if b > a and plan.bins[j][i][k] > 0]
                row.append(_ClassView([(a, b) for a, b, _ in mine], [g for _, _, g in mine]) if mine else None)
            self.views.append(row)
        # cumulative rho per class for the first level (inverse-CDF draw)
        self.cum: list[list[float]] = []
        self.cfg_order: list[list[int]] = []
        for k in range(K):
            js = [j for j in range(M) if plan.rho[j][k] > 0]
            acc, cum = 0.0, []
            for j in js:
                acc += plan.rho[j][k]
                cum.append(acc)
            self.cum.append(cum)
            self.cfg_order.append(js)
        self.steps = [0, 0, 0, 0]  # dispatches decided at step 2, 3, 4 and by the capability fallback

    def choose_config(self, k: int, u: float) -> int:
        cum = self.cum[k]
        i = bisect.bisect_right(cum, u * cum[-1])
        return self.cfg_order[k][min(i, len(cum) - 1)]

    def dispatch(self, k: int, req: Sequence[int]) -> tuple[int, bool]:
        st = self.state
        cum = self.cum[k]  # choose_config, inlined: this runs once per task
        i = bisect.bisect_right(cum, self.u.next() * cum[-1])
        order = self.cfg_order[k]
        j = order[i] if i < len(order) else order[-1]
        view = self.views[j][k]
        if view is not None:
            group = st.config_groups[j]
            tree = group.tree
            for a, b in view.ranges:
                pos = tree.first_fit(req, a, b)
                if pos >= 0:
                    self.steps[0] += 1
                    return group.members[pos], True
        m = st.any_fit(req, self.u.next())
        if m >= 0:
            self.steps[1] += 1
            return m, True
        cap = st.config_cap[j]
        if view is not None and all(cap[l] >= req[l] for l in range(st.n_resources)):
            self.steps[2] += 1
            blocks = view.blocks
            if len(blocks) == 1:
                g = blocks[0]
                short = g.queues.shortest()
                return g.members[short[min(int(self.u.next() * len(short)), len(short) - 1)]], False
            best = min(g.queues.minq for g in blocks)
            tied = [g for g in blocks if g.queues.minq == best]
            total = sum(len(g.queues.shortest()) for g in tied)
            i = min(int(self.u.next() * total), total - 1)
            for g in tied:
                short = g.queues.shortest()
                if i < len(short):
                    return g.members[short[i]], False
                i -= len(short)
        self.steps[3] += 1
        return st.shortest_queue(st.capable_configs(req), self.u.next()), False
