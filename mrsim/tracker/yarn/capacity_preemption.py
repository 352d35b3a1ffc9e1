"""How much the Capacity Scheduler's preemption monitor takes back from each leaf queue, and which containers.

Follows Hadoop 3's ``ProportionalCapacityPreemptionPolicy`` with ``PreemptableResourceCalculator`` and
``FifoCandidatesSelector`` (``...resourcemanager.monitor.capacity``), memory only (``DefaultResourceCalculator``),
in integer MB as Hadoop computes it:

1. **Ideal assignment** (``computeIdealResourceDistribution``, level by level from ``root``, whose ideal is the
   cluster): each queue starts at its usage, or at its guarantee plus its *untouchable* extra (usage above the
   guarantee of a queue with ``disable_preemption``) when it uses more than it is guaranteed; the rest is offered
   to the most under-served queues (lowest ideal / guarantee, ties together), each getting
   ``round(unassigned x guarantee / guarantees of the queues still asking)`` (the share a float32, as Hadoop's
   ``normalizedGuarantee``), accepting at most its maximum capacity, its usage plus pending, and for a leaf its
   ``max(guarantee, usage)``. Queues with a zero guarantee share what is left equally.
2. **What to take back** (``assignPreemption``): ``used - max(ideal, min(used + pending, guaranteed))``, scaled
   down when the level's total exceeds ``total_preemption_per_round`` of the cluster. A leaf gives back only when
   its usage exceeds ``guaranteed x (1 + max_ignored_over_capacity)`` (the dead zone), and then
   ``round(to-be-preempted x natural_termination_factor)``.
3. **Containers** (``FifoCandidatesSelector.preemptFrom``): per leaf queue, its applications newest first, each
   application's containers lowest priority first (MR maps, priority 20, before reduces, 10), newest first; a
   container is taken while the queue still has something to give back and the round's total allows it. AM
   containers are skipped (mrsim never preempts an ApplicationMaster: see ``docs/yarn.md``).

Pure functions over :class:`TempQueue` trees: the monitor (:mod:`mrsim.tracker.yarn.preemption_monitor`) builds
the tree from the live scheduler, the conformance tests from Hadoop's test matrices. Cost O(queues^2) per level
for step 1 (a handful of queues), O(containers) for step 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np


def f32(x: float) -> float:
    """``x`` rounded to a Java ``float``."""
    return float(np.float32(x))


def _ratio(a: int, b: int) -> float:
    """``DefaultResourceCalculator.ratio``: ``(float) a / b``."""
    return float(np.float32(a) / np.float32(b))


def _times_half_up(x: int, by: float) -> int:
    """``DefaultResourceCalculator.multiplyAndNormalizeUp`` with a step of 1 MB: ``(long) (x * by + 0.5)``."""
    return int(math.floor(x * by + 0.5)) if x * by + 0.5 >= 0 else -int(math.floor(-(x * by + 0.5)))


@dataclass(eq=False)
class TempQueue:
    """One queue's snapshot for a round (``TempQueuePerPartition``): MB, integers."""

    name: str
    guaranteed: int
    maximum: int
    used: int
    pending: int = 0
    disabled: bool = False  # disable_preemption (inherited from the parent unless set)
    children: list["TempQueue"] = field(default_factory=list)
    ideal: int = 0
    to_be_preempted: int = 0
    actually: int = 0  # what the leaf gives back this round (after the dead zone and natural termination)
    untouchable: int = 0
    preemptable: int = 0
    normalized: float = 0.0
    leaf: object = None  # the scheduler's leaf queue (the monitor's), None in tests

    def add_children(self, kids: Iterable["TempQueue"]) -> "TempQueue":
        for kid in kids:
            self.children.append(kid)
            self.pending += kid.pending
        return self

    def leaves(self) -> list["TempQueue"]:
        if not self.children:
            return [self]
        return [leaf for kid in self.children for leaf in kid.leaves()]

    def update_extras(self) -> None:
        """``updatePreemptableExtras``, children first."""
        for kid in self.children:
            kid.update_extras()
        extra = max(0, self.used - self.guaranteed)
        if not self.children:
            self.untouchable, self.preemptable = (extra, 0) if self.disabled else (0, extra)
            return
        kids = sum(k.preemptable for k in self.children)
        self.untouchable = 0 if kids >= extra else extra - kids
        self.preemptable = min(kids, extra)

    def offer(self, avail: int) -> int:
        """``TempQueuePerPartition.offer``: take what the queue can of ``avail``; return the rest."""
        accepted = min(max(0, self.maximum - self.ideal), avail, self.used + self.pending - self.ideal)
        if not self.children:
            accepted = min(accepted, max(0, max(self.used, self.guaranteed) - self.ideal))
        self.ideal += accepted
        return avail - accepted

    def pct_of_guaranteed(self) -> float:
        """``TQComparator.getIdealPctOfGuaranteed``: zero-guarantee queues last."""
        return _ratio(self.ideal, self.guaranteed) if self.guaranteed > 0 else float(2 ** 31 - 1)


@dataclass(frozen=True)
class PolicyKnobs:
    """The policy's settings of one round (fractions; ``ProportionalCapacityPreemptionPolicy`` keys)."""

    total_preemption_per_round: float = 0.1
    max_ignored_over_capacity: float = 0.1
    natural_termination_factor: float = 0.2


def _fixpoint(queues: Sequence[TempQueue], unassigned: int, ignore_guarantee: bool) -> int:
    """``computeFixpointAllocation``: distribute ``unassigned``; returns what is left (may be negative)."""
    need: list[TempQueue] = []
    for q in queues:
        q.ideal = q.guaranteed + q.untouchable if q.used > q.guaranteed else q.used
        unassigned -= q.ideal
        if q.ideal < q.used + q.pending:
            need.append(q)
    while need and unassigned > 0:
        if ignore_guarantee:
            for q in need:
                q.normalized = f32(1.0 / len(need))
        else:
            active = sum(q.guaranteed for q in need)
            for q in need:
                if active:
                    q.normalized = _ratio(q.guaranteed, active)
        least = min(q.pct_of_guaranteed() for q in need)
        under = [q for q in need if q.pct_of_guaranteed() == least]
        need = [q for q in need if q.pct_of_guaranteed() != least]
        assigned = 0
        for q in under:
            avail = _times_half_up(unassigned, q.normalized)
            done = avail - q.offer(avail)
            if done > 0:
                need.append(q)
            assigned += done
        unassigned -= assigned
    return unassigned


def _distribute(queues: Sequence[TempQueue], total: int, allowed: int) -> None:
    """``computeIdealResourceDistribution`` over siblings sharing ``total`` (their parent's ideal)."""
    nonzero = [q for q in queues if q.guaranteed > 0]
    zero = [q for q in queues if q.guaranteed <= 0]
    unassigned = _fixpoint(nonzero, total, False)
    if zero and unassigned > 0:
        _fixpoint(zero, unassigned, True)
    needed = sum(q.used - q.ideal for q in queues if q.used > q.ideal)
    scaling = _ratio(allowed, needed) if needed > allowed else 1.0
    for q in queues:
        keep = max(min(q.used + q.pending, q.guaranteed), q.ideal)
        q.to_be_preempted = int((q.used - keep) * scaling) if q.used > keep else 0


def _recurse(queue: TempQueue, allowed: int) -> None:
    if queue.children:
        _distribute(queue.children, queue.ideal, allowed)
        for kid in queue.children:
            _recurse(kid, allowed)


def compute_ideal(root: TempQueue, cluster_mb: int, knobs: PolicyKnobs) -> list[TempQueue]:
    """Steps 1 and 2 on the tree ``root``: each leaf's :attr:`TempQueue.actually`; returns the leaves."""
    root.update_extras()
    root.ideal = root.guaranteed
    allowed = int(cluster_mb * f32(knobs.total_preemption_per_round))
    _recurse(root, allowed)
    leaves = root.leaves()
    for q in leaves:
        q.actually = 0
        if q.disabled:
            continue
        # Resources.multiply truncates to whole MB
        if q.used > int(q.guaranteed * (1.0 + f32(knobs.max_ignored_over_capacity))):
            obtain = q.to_be_preempted
            if obtain > 0:
                obtain = _times_half_up(obtain, f32(knobs.natural_termination_factor))
            q.actually = obtain if obtain > 0 else 0
    return leaves


@dataclass(eq=False)
class Candidate:
    """A container the selector may take: its size, priority, allocation order and whether it is an AM's."""

    mem: int
    priority: int
    seq: int
    am: bool = False
    ref: object = None  # the RM's container (the monitor's)


def select(leaves: Sequence[TempQueue], apps_of: "dict[int, list[list[Candidate]]]", cluster_mb: int,
           knobs: PolicyKnobs) -> list[tuple[TempQueue, Candidate]]:
    """Step 3: per leaf (in order), ``apps_of[id(leaf)]`` holds its applications in scheduling order, each a list of
    its live containers; the containers to preempt, with their queue."""
    allowed = int(cluster_mb * f32(knobs.total_preemption_per_round))
    out: list[tuple[TempQueue, Candidate]] = []
    for q in leaves:
        obtain = q.actually
        if obtain <= 0:
            continue
        for containers in reversed(apps_of.get(id(q), [])):
            if obtain <= 0:
                break
            for c in sorted(containers, key=lambda c: (-c.priority, -c.seq)):
                if obtain <= 0:
                    break
                if c.am:
                    continue
                if c.mem <= allowed:
                    obtain -= c.mem
                    allowed -= c.mem
                    out.append((q, c))
    return out


class Marks:
    """``ProportionalCapacityPreemptionPolicy.preemptOrkillSelectedContainerAfterWait`` and
    ``cleanupStaledPreemptionCandidates``: when each selected container was first marked (the
    ``MARK_CONTAINER_FOR_PREEMPTION`` event), which are killed (``MARK_CONTAINER_FOR_KILLABLE``: selected again
    ``max_wait_s`` or more after the mark) and which marks are forgotten (older than twice the wait). Seconds."""

    def __init__(self, max_wait_s: float) -> None:
        self.max_wait_s = max_wait_s
        self.first: dict[object, float] = {}
        self.marked = 0  # mark events sent

    def update(self, chosen: Iterable[object], now: float) -> list[object]:
        """One run's selection at ``now``: the containers to kill now (their marks are dropped)."""
        wait = self.max_wait_s
        killed = []
        for c in chosen:
            first = self.first.get(c)
            if first is not None and first + wait <= now + 1e-9:
                del self.first[c]
                killed.append(c)
            elif first is None:
                self.first[c] = now
                self.marked += 1
        for c in [c for c, t in self.first.items() if t + 2 * wait < now - 1e-9]:
            del self.first[c]
        return killed
