"""Live state of a multi-resource cluster: free capacity, FIFO queues and the indexes over them.

Machines are numbered globally, configuration by configuration (Table 1 order). Each machine has a free amount of
every resource (integer units), a FIFO queue of waiting tasks, and memberships in *groups*. Every configuration is
a group with a :class:`~mrsim.studies.lotes.fittree.FitTree` over its machines (who can start a request now, leftmost
first; position ranges of the tree answer the same question for a contiguous block of machines) and a
:class:`~mrsim.studies.lotes.qindex.QueueIndex` (who has the shortest queue). A policy may add queue-only groups: LoTES
adds one per block of machines emulating the same bin, since machines are given bins in contiguous blocks.

Semantics: a task runs on a machine only while the sum of running requests fits its capacity in every resource.
Queues are strict FIFO: a machine with a non-empty queue starts no newly arriving task until its queue has
drained, so "can start now" means "queue empty and enough free capacity" (the tree holds -1 otherwise).

The model's machine rules live here and only here: :meth:`ClusterState.admit` (a dispatched task starts or must
queue), :meth:`~ClusterState.enqueue` and :meth:`~ClusterState.finish` (a finished task frees its request and the
queue heads that now fit start). The push plug-in (:mod:`mrsim.studies.lotes.push`, what ``mrsim lotes`` runs) and the heartbeat schedulers
(:mod:`mrsim.studies.lotes.heartbeat`) both call them.

Cost per state change: one tree update, ``O(R log n)`` at worst, plus O(1) per queue group of the machine (at
most two here).
"""

from __future__ import annotations

import bisect
from collections import deque
from typing import Sequence

from mrsim.studies.lotes.fittree import FitTree
from mrsim.studies.lotes.qindex import QueueIndex
from mrsim.studies.lotes.spec import Cluster
from mrsim.studies.lotes.workload import UNITS_PER


class Group:
    """An ordered set of machines with a queue-length index and, for configurations, a fit index."""

    __slots__ = ("members", "tree", "queues")

    def __init__(self, members: Sequence[int], tree: FitTree | None) -> None:
        self.members = list(members)
        self.tree = tree
        self.queues = QueueIndex(len(self.members))


class ClusterState:
    """Machines' free capacity, queues and group indexes. See the module docstring."""

    def __init__(self, cluster: Cluster) -> None:
        self.n_resources = R = len(cluster.resources)
        self.resource_range = range(R)
        self.capacity: list[list[int]] = []
        self.config_of: list[int] = []
        self.config_cap: list[list[int]] = []
        self.offsets: list[int] = []
        for j, cfg in enumerate(cluster.configs):
            cap = [int(round(c * UNITS_PER)) for c in cfg.capacity]
            self.config_cap.append(cap)
            self.offsets.append(len(self.capacity))
            for _ in range(cfg.count):
                self.capacity.append(cap)
                self.config_of.append(j)
        self.n = n = len(self.capacity)
        self.free: list[list[int]] = [list(c) for c in self.capacity]
        self.queues: list[deque] = [deque() for _ in range(n)]
        self.neg = [-1] * R
        self.groups: list[Group] = []
        # (queue index, position) of every machine in each of its groups, updated when its queue length changes
        self.queue_slots: list[list[tuple[QueueIndex, int]]] = [[] for _ in range(n)]
        self.config_groups: list[Group] = []
        # (config tree, position) of every machine, updated when what it can start changes
        self.tree_slot: list[tuple[FitTree, int]] = []
        for j, cfg in enumerate(cluster.configs):
            tree = FitTree(cfg.count, R)
            for pos in range(cfg.count):
                tree.set(pos, self.capacity[self.offsets[j] + pos])
                self.tree_slot.append((tree, pos))
            self.config_groups.append(self.add_group(range(self.offsets[j], self.offsets[j] + cfg.count), tree))
        self.waiting = 0  # tasks in all queues

    def add_group(self, members: Sequence[int], tree: FitTree | None = None) -> Group:
        """Register a group of machines; only configurations own trees (see the module docstring)."""
        g = Group(members, tree)
        for pos, m in enumerate(g.members):
            self.queue_slots[m].append((g.queues, pos))
            if self.queues[m]:
                g.queues.move(pos, len(self.queues[m]))
        self.groups.append(g)
        return g

    # ---- changes: the machine rules of the model, used by the push plug-in (mrsim.studies.lotes.push) and the heartbeat
    # schedulers (mrsim.studies.lotes.heartbeat) alike, so they are written once, here ---------------------------------

    def admit(self, m: int, req: Sequence[int], now: bool) -> bool:
        """A released task dispatched to machine ``m``: start it there if the dispatcher said *now*, or if ``m``'s
        queue is empty and ``req`` fits (a shortest queue may be empty with room). Returns False when it must
        queue instead (the caller then enqueues it with its own payload). Cost: one tree update."""
        fm = self.free[m]
        if not now:
            if self.queues[m]:
                return False
            for l in self.resource_range:
                if fm[l] < req[l]:
                    return False
        for l in self.resource_range:
            fm[l] -= req[l]
        tree, pos = self.tree_slot[m]
        tree.set(pos, fm)
        return True

    def start(self, m: int, req: Sequence[int]) -> None:
        """Occupy ``req`` on machine ``m``, which must be able to start it now (checked; a ValueError if not)."""
        if not self.can_start(m, req):
            raise ValueError(f"machine {m} cannot start {list(req)} now")
        self.admit(m, req, True)

    def enqueue(self, m: int, task: tuple) -> None:
        """Append ``task`` (its request first) to machine ``m``'s FIFO queue and update the indexes."""
        q = self.queues[m]
        q.append(task)
        self.waiting += 1
        n = len(q)
        for qi, pos in self.queue_slots[m]:
            qi.move(pos, n)
        if n == 1:  # a queued machine starts nothing new until its queue drains
            tree, pos = self.tree_slot[m]
            tree.set(pos, self.neg)

    def finish(self, m: int, req: Sequence[int]) -> Sequence[tuple]:
        """Give ``req`` back to machine ``m``, then start the tasks at the head of its queue while they fit
        (strict FIFO; a head that does not fit blocks the rest). Returns the started tasks, in queue order.

        Cost: one tree update plus O(1) per started task and per queue group of the machine."""
        fm = self.free[m]
        rR = self.resource_range
        for l in rR:
            fm[l] += req[l]
        q = self.queues[m]
        tree, pos = self.tree_slot[m]
        if not q:
            tree.set(pos, fm)
            return ()
        started: list[tuple] = []
        while q:
            head = q[0][0]
            fits = True
            for l in rR:
                if fm[l] < head[l]:
                    fits = False
                    break
            if not fits:
                break
            started.append(q.popleft())
            for l in rR:
                fm[l] -= head[l]
        if started:
            self.waiting -= len(started)
            n = len(q)
            for qi, qpos in self.queue_slots[m]:
                qi.move(qpos, n)
            if not n:
                tree.set(pos, fm)
        return started

    # ---- queries (read-only) -------------------------------------------------------------------------------

    def can_start(self, m: int, req: Sequence[int]) -> bool:
        if self.queues[m]:
            return False
        fm = self.free[m]
        return all(fm[l] >= req[l] for l in range(self.n_resources))

    def capable_configs(self, req: Sequence[int]) -> list[int]:
        """Configurations (with machines) whose capacity could ever hold ``req``. Cost O(M R)."""
        R = self.n_resources
        groups = self.config_groups
        if R == 2:  # unrolled: greedy asks this for every task it cannot start at once
            r0, r1 = req[0], req[1]
            return [j for j, cap in enumerate(self.config_cap) if cap[0] >= r0 and cap[1] >= r1 and groups[j].members]
        return [
            j
            for j, cap in enumerate(self.config_cap)
            if groups[j].members and all(cap[l] >= req[l] for l in range(R))
        ]

    def any_fit(self, req: Sequence[int], u: float) -> int:
        """A machine that can start ``req`` now, or -1: the first one at or after a random position ``u * n``,
        cyclically in global machine order. Cost: one root test per configuration plus one descent."""
        n = self.n
        s = min(int(u * n), n - 1)
        j0 = bisect.bisect_right(self.offsets, s) - 1
        while not self.config_groups[j0].members:  # empty configurations share their offset with the next
            j0 += 1
        groups = self.config_groups
        M = len(groups)
        local = s - self.offsets[j0]
        pos = groups[j0].tree.first_fit(req, local)
        if pos >= 0:
            return groups[j0].members[pos]
        for d in range(1, M):
            g = groups[(j0 + d) % M]
            pos = g.tree.first_fit(req, 0)
            if pos >= 0:
                return g.members[pos]
        if local > 0:
            pos = groups[j0].tree.first_fit(req, 0)
            if pos >= 0:
                return groups[j0].members[pos]
        return -1

    def shortest_queue(self, configs: Sequence[int], u: float) -> int:
        """The machine with the shortest queue among configurations ``configs``, ties uniform by ``u``."""
        best = -1
        ties: list[list[int]] = []
        owners: list[int] = []
        groups = self.config_groups
        for j in configs:
            qi = groups[j].queues
            if qi.minq < best or best < 0:
                best = qi.minq
                ties = [qi.shortest()]
                owners = [j]
            elif qi.minq == best:
                ties.append(qi.shortest())
                owners.append(j)
        total = sum(len(t) for t in ties)
        i = min(int(u * total), total - 1)
        for j, t in zip(owners, ties):
            if i < len(t):
                return groups[j].members[t[i]]
            i -= len(t)
        raise AssertionError("unreachable: no machine in the given configurations")

    # ---- invariants ------------------------------------------------------------------------------------------

    def _check(self, running: Sequence[tuple[int, Sequence[int]]]) -> None:
        """Resource accounting, FIFO head blocking and index consistency. ``running``: (machine, request) pairs.

        Cost O(n + running + groups * size); for tests only.
        """
        R = self.n_resources
        used = [[0] * R for _ in range(self.n)]
        for m, req in running:
            for l in range(R):
                used[m][l] += req[l]
        waiting = 0
        for m in range(self.n):
            fm = self.free[m]
            for l in range(R):
                assert fm[l] >= 0, f"machine {m} over-committed on resource {l}"
                assert fm[l] + used[m][l] == self.capacity[m][l], f"machine {m} leaks resource {l}"
            q = self.queues[m]
            waiting += len(q)
            if q:  # FIFO: a queued head must be blocked, else it should have started
                head = q[0][0]
                assert any(fm[l] < head[l] for l in range(R)), f"machine {m} idles with a startable queue head"
            tree, pos = self.tree_slot[m]
            assert tree.get(pos) == (self.neg if q else fm), f"machine {m} has a stale fit-tree leaf"
            for qi, pos in self.queue_slots[m]:
                assert qi.qlen[pos] == len(q), f"machine {m} has a stale queue length"
        assert waiting == self.waiting, "waiting-task counter is stale"
        for g in self.groups:
            if g.tree is not None:
                g.tree._check()
            g.queues._check()
