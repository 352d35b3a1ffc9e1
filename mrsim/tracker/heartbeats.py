"""Heartbeats of the JobTracker core: when a TaskTracker's next heartbeat falls, how a finished task is
reported, and the cluster status the trackers report.

Tracker *i* heartbeats at ``phase_i + k * interval`` (``TaskTracker.offerService``: it waits ``interval`` after
each heartbeat; the phases are drawn once from a seeded stream, or all 0 with aligned heartbeats). Most
heartbeats change nothing, so by default they are not simulated (``docs/engine.md``, "Heartbeats without the
cost"): a tracker is *parked* (no event queued) unless it has completions to report or it just launched tasks and
still has free slots; anything that can make a parked tracker useful (a job arrival, slow start being met, one of
its own tasks finishing) computes its next grid time arithmetically with :func:`next_grid_k` and queues just that
heartbeat. The naive mode emits every heartbeat; tests check that both give identical results, which holds
because a grid time is always computed the same way, ``phase + k * interval`` (never by adding intervals).

A finished task is reported (:func:`report`) at once in task mode (``--heartbeat-interval off``; its tracker is
then offered work at once, unless the scheduler wakes its own trackers and no feature acts in heartbeats: the
push model of ``mrsim/studies/lotes/push.py``), else in the tracker's next heartbeat, or in an out-of-band one (``mapreduce.tasktracker.outofband.heartbeat``) that restarts
the tracker's grid. Each heartbeat refreshes the cluster status (:func:`refresh_status`: the running counts the
trackers last reported, which Hadoop's schedulers read); a drop wakes the trackers a scheduler parked until the
cluster changes (``JobTracker.park_until_change``).

Plain functions of the engine (``jt``), called on the per-heartbeat path in place of methods: no extra call.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mrsim.tracker.events import EV_HEARTBEAT, ORDER_HEARTBEAT
from mrsim.tracker.state import INF, REDUCE_BIT, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


def next_grid_k(phase: float, interval: float, now: float, own_order: int, current_order: int) -> int:
    """Index ``k`` of the first heartbeat ``phase + k * interval`` not before ``now`` that has not already passed
    in this instant: one at exactly ``now`` is still ahead only if its order (``own_order``, the tracker's
    ``ORDER_HEARTBEAT + index``) comes after the event being handled (``current_order``). O(1); the two
    corrections undo the rounding of the division, so the result agrees with the grid times themselves."""
    k = math.ceil((now - phase) / interval)
    if k < 0:
        k = 0
    if phase + k * interval < now:
        k += 1
    elif k > 0 and phase + (k - 1) * interval >= now:
        k -= 1
    if phase + k * interval == now and own_order <= current_order:
        k += 1
    return k


def schedule_at(jt: "JobTracker", tracker: TrackerState, time: float) -> None:
    """Queue ``tracker``'s heartbeat at ``time`` off the grid (task mode); it supersedes a queued one."""
    tracker.hb_stamp += 1
    tracker.next_hb = time
    jt.kernel.schedule(time, ORDER_HEARTBEAT + tracker.index, EV_HEARTBEAT, tracker.index, tracker.hb_stamp)


def schedule_grid(jt: "JobTracker", tracker: TrackerState, k: int) -> None:
    """Queue the heartbeat at grid point ``k``: ``phase + k * interval`` (always computed the same way, so
    parked and naive modes produce bit-identical times)."""
    tracker.hb_k = k
    time = tracker.phase + k * jt.interval
    stamp = tracker.hb_stamp = tracker.hb_stamp + 1
    tracker.next_hb = time
    jt.kernel.schedule(time, ORDER_HEARTBEAT + tracker.index, EV_HEARTBEAT, tracker.index, stamp)


def refresh_status(jt: "JobTracker", tracker: TrackerState) -> None:
    """``tracker`` reports its running counts (``TaskTrackerStatus``): update the cluster-wide sums, and wake
    parked trackers when a count dropped."""
    dm = tracker.running_maps - tracker.status_maps
    dr = tracker.running_reduces - tracker.status_reduces
    if dm or dr:
        jt.cluster_status_maps += dm
        jt.cluster_status_reduces += dr
        tracker.status_maps = tracker.running_maps
        tracker.status_reduces = tracker.running_reduces
        if (dm < 0 or dr < 0) and jt.change_waiters:
            wake_change_waiters(jt)


def wake_change_waiters(jt: "JobTracker") -> None:
    """The cluster changed: every tracker parked with ``park_until_change`` heartbeats at its next grid time."""
    waiters = jt.change_waiters
    jt.change_waiters = []
    for t in waiters:
        t.waiting_change = False
        jt.wake(t)


def report(jt: "JobTracker", tracker: TrackerState, gid: int, now: float, aux_kind: int = -1) -> None:
    """Task ``gid`` (or, with an ``aux_kind`` of 2 or 3, a feature's setup/cleanup task ``gid``, applied by
    :attr:`JobTracker.apply_aux`) finished on ``tracker`` at ``now``: report it, at once in task mode, else in the
    tracker's next (or an out-of-band) heartbeat."""
    if jt.task_mode:
        if aux_kind >= 0:
            jt.apply_aux.apply_aux(tracker, gid, now)
        else:
            jt._apply_completion(tracker, gid, now)
        refresh_status(jt, tracker)
        # The freed slot is offered at once, unless the scheduler wakes its own trackers (it does so when it has
        # work for this one: a push dispatcher) and no feature acts in heartbeats: that heartbeat would do nothing.
        if (not jt.scheduler_wakes or aux_kind >= 0 or jt.assign_first is not None or jt.before_assign
                or jt.on_heartbeat):
            jt.wake(tracker)
        return
    (tracker.aux_reports if aux_kind >= 0 else tracker.reports).append(gid)
    if jt.oob:
        when = now
        if jt.report_lag is not None:
            kind = aux_kind if aux_kind >= 0 else (1 if gid & REDUCE_BIT else 0)
            when = now + jt.report_lag(tracker, kind)
            if tracker.next_hb <= when:
                return  # an earlier queued heartbeat reports it
        tracker.phase = when  # the TaskTracker's wait restarts from this heartbeat
        schedule_grid(jt, tracker, 0)  # supersedes a queued one (tombstoned by hb_stamp)
    elif not jt.naive:
        jt.wake(tracker)


def wake_free(jt: "JobTracker", reduces: bool | None) -> None:
    """New map (reduce) work: wake the parked trackers with a free slot of the kind, or let bounded wake-ups
    (``wakeups.py``) wake them one at a time; nothing when the scheduler wakes its own trackers. ``None``
    (``JobTracker.wake_all``): every parked tracker with a free slot of either kind, whatever the policy."""
    if reduces is None:
        for t in jt.trackers:
            if t.next_hb == INF and (t.running_maps < t.map_slots or t.running_reduces < t.reduce_slots):
                jt.wake(t)
        return
    if jt.scheduler_wakes:
        return
    if jt.wakes is not None:
        jt.wakes.wake(1 if reduces else 0)
        return
    for t in jt.trackers:
        if t.next_hb == INF and (t.running_reduces < t.reduce_slots if reduces else t.running_maps < t.map_slots):
            jt.wake(t)
