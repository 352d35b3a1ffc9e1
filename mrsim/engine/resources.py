"""Resource accounting of the JobTracker core: YARN-like resource vectors and high-RAM (wide) tasks.

**Resource-vector clusters** (``docs/cluster.md``, ``docs/resources.md``): every node declares a capacity per
resource and every task requests a vector (``mrsim.engine.placement.task_request``); a task runs on a node only
while the sum of the requests running there fits its capacity in every resource. Maps and reduces share one pool
per node, as YARN containers do. :func:`fits`, :func:`hold` and :func:`release` are that accounting on a
tracker's ``free`` vector, in ``JobTracker.resource_names`` order; the engine calls them on every launch and
completion of a job with a request (``JobState.map_req`` / ``reduce_req``), features on the slots they hold.

**High-RAM tasks** (Hadoop 1 memory-based scheduling, ``mrsim/model/memory_slots.py``): a task of a job whose
memory request exceeds the slot size holds several slots (``JobState.map_width`` / ``reduce_width``);
:func:`plan_widths` sets them once per replay and says whether any task is wide, so the engine checks a tracker's
free slots per launch only when some task is.

Helpers of the JobTracker core (plain functions, typed: compiled with it). Cost O(resources) each.
"""

from __future__ import annotations

from typing import Sequence

from mrsim.engine.state import JobState, TrackerState
from mrsim.model import memory_slots
from mrsim.model.cluster import ClusterSpec
from mrsim.model.memory_slots import MemorySlots


def fits(tracker: TrackerState, req: tuple[float, ...]) -> bool:
    """Whether a task requesting ``req`` fits in ``tracker``'s free resources now (resource clusters)."""
    free = tracker.free
    assert free is not None
    for r in range(len(req)):
        if req[r] > free[r] + 1e-9:
            return False
    return True


def hold(tracker: TrackerState, req: tuple[float, ...]) -> None:
    """Take ``req`` from ``tracker``'s free resources (the caller checked :func:`fits`)."""
    free = tracker.free
    assert free is not None
    for r in range(len(req)):
        free[r] -= req[r]


def release(tracker: TrackerState, req: tuple[float, ...]) -> None:
    """Give ``req`` back; an idle tracker is reset to its exact capacity (no floating-point drift)."""
    free = tracker.free
    assert free is not None and tracker.capacity is not None
    if tracker.running_maps == 0 and tracker.running_reduces == 0:
        free[:] = tracker.capacity
        return
    for r in range(len(req)):
        free[r] += req[r]


def tracker_resources(trackers: Sequence[TrackerState], cluster: ClusterSpec,
                      names: tuple[str, ...]) -> tuple[tuple[tuple[float, ...], int], ...]:
    """Give each tracker its capacity and free vectors (``names`` order; nothing on slot-only clusters) and return
    the distinct ``(capacity, datacenter)`` pairs, so a job's "fits on some node" check is O(configurations),
    not O(nodes). Trackers must know their datacenter already."""
    if names:
        for state, spec in zip(trackers, cluster.trackers):
            state.capacity = tuple(spec.capacity(r) for r in names)
            state.free = list(state.capacity)
    return tuple(dict.fromkeys((t.capacity, t.datacenter) for t in trackers if t.capacity is not None))


def plan_widths(jobs: Sequence[JobState], trackers: Sequence[TrackerState],
                enabled: bool = True) -> tuple[MemorySlots, bool, bool]:
    """Set every job's ``map_width`` / ``reduce_width`` (slots one attempt holds, ``memory_slots.plan``); return
    the plan's summary (announced, and read by ``results.py``) and whether some map / some reduce is wide.
    ``enabled=False`` (``--memory-slots off``): every task holds one slot, the engine before memory-based
    scheduling (the widths keep ``JobState``'s default of 1)."""
    if not enabled:
        return MemorySlots(None, None, ()), False, False
    widths, summary = memory_slots.plan([job.template for job in jobs],
                                        min((t.map_slots for t in trackers), default=1),
                                        min((t.reduce_slots for t in trackers), default=1))
    for job, (map_width, reduce_width) in zip(jobs, widths):
        job.map_width, job.reduce_width = map_width, reduce_width
    return summary, any(m > 1 for m, _ in widths), any(r > 1 for _, r in widths)
