"""Resource vectors and high-RAM (multi-slot) tasks: the engine feature that decides whether a task fits a tracker.

Two things can make a task need more than one free slot (``docs/resources.md``, ``docs/cluster.md``):

* **Resource-vector clusters** (Hadoop 2 containers): every node declares a capacity per resource, every task
  requests a vector (``JobState.map_req`` / ``reduce_req``, in ``JobTracker.resource_names`` order), and a task
  runs on a node only while the sum of the requests running there fits the node's capacity in every resource. Maps
  and reduces share one pool per node, as YARN containers do. A job's requests are resolved once, when it arrives
  (``mrsim.tracker.placement.task_request``: the job's own table, its configuration's memory and vcores, Rumen's
  ``jobMapMB``, the cluster's default); a request that fits on no node of the job's datacenters is an error
  naming the job. Trackers keep their ``capacity`` and ``free`` vectors; an idle tracker is reset to its exact
  capacity, so floating-point drift cannot accumulate.
* **High-RAM tasks** (Hadoop 1 memory-based scheduling, ``mrsim/model/memory_slots.py``): a task of a job whose
  memory request exceeds the slot size holds ``ceil(job MB / slot MB)`` slots (``JobState.map_width`` /
  ``reduce_width``, which the core adds to and subtracts from the trackers' running counts). It launches only where
  that many slots are free (``CapacityTaskScheduler``'s ``MemoryMatcher``). ``--memory-slots off``
  (``ReplayOptions.memory_slots``): every task holds one slot, the engine before memory-based scheduling.

:class:`ResourcesFeature` is attached by ``mrsim/tracker/replay.py`` to every replay, first of all features. It
plans the widths when attached and sets hooks only where they can matter (``docs/architecture.md``, "The engine's
hooks"): on a slot cluster whose tasks all hold one slot it sets none, so the core pays one ``task_fits is None``
test per launch and one ``release_resources is None`` test per completion. Otherwise:

* ``task_fits`` (every launch with a task pending): the job's request fits the tracker's free vector (a reduce of a
  job whose reduces were preempted waits, ``JobState.reduces_held``: the reducer-preemption feature sets it), and,
  when some task is wide, the tracker has the task's width in free slots. With wide tasks about every task is
  checked: a scheduler's own count of free slots (tasks) can be stale then;
* ``on_job_setup``: the job's requests; ``on_launch``: a launched task takes its request from the tracker (this
  feature is attached first, so its hook runs before any other feature's); ``release_resources``: the request
  comes back on every path that ends an attempt (completion, kill, replayed failure, a feature's held slot);
  ``hold_resources`` and ``fits_request`` (behind ``jt.fits``) for features that hold slots (setup/cleanup tasks,
  speculative backups, which run in a container of the job's map, else reduce, size).

Cost: O(resources) per launch and per completion on resource clusters, O(1) per launch with wide tasks, O(jobs)
once when attached (the width plan), O(node configurations x resources) per job arrival (its requests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from mrsim.tracker.placement import task_request
from mrsim.tracker.state import REDUCE_BIT, JobState, TrackerState
from mrsim.errors import InputError
from mrsim.model import memory_slots
from mrsim.model.cluster import ClusterSpec
from mrsim.model.memory_slots import MemorySlots

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: Slack of the fit comparison (resource units): a sum of float requests may exceed a capacity by rounding only.
EPSILON = 1e-9


def fits(tracker: TrackerState, req: tuple[float, ...]) -> bool:
    """Whether a task requesting ``req`` fits in ``tracker``'s free resources now. O(resources)."""
    free = tracker.free
    assert free is not None
    for r in range(len(req)):
        if req[r] > free[r] + EPSILON:
            return False
    return True


def hold(tracker: TrackerState, req: tuple[float, ...]) -> None:
    """Take ``req`` from ``tracker``'s free resources (the caller checked :func:`fits`). O(resources)."""
    free = tracker.free
    assert free is not None
    for r in range(len(req)):
        free[r] -= req[r]


def release(tracker: TrackerState, req: tuple[float, ...]) -> None:
    """Give ``req`` back (after the tracker's running counts dropped); an idle tracker is reset to its exact
    capacity. O(resources)."""
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
    not O(nodes). Trackers must know their datacenter already (the JobTracker sets it)."""
    if names:
        for state, spec in zip(trackers, cluster.trackers):
            state.capacity = tuple(spec.capacity(r) for r in names)
            state.free = list(state.capacity)
    return tuple(dict.fromkeys((t.capacity, t.datacenter) for t in trackers if t.capacity is not None))


def plan_widths(jobs: Sequence[JobState], trackers: Sequence[TrackerState],
                enabled: bool = True) -> tuple[MemorySlots, bool, bool]:
    """Set every job's ``map_width`` / ``reduce_width`` (slots one attempt holds, ``memory_slots.plan``); return
    the plan's summary (the ``--json`` spec's ``memory_slots``) and whether some map / some reduce is wide.
    ``enabled=False`` (``--memory-slots off``): every task holds one slot (``JobState``'s default width)."""
    if not enabled:
        return MemorySlots(None, None, ()), False, False
    widths, summary = memory_slots.plan([job.template for job in jobs],
                                        min((t.map_slots for t in trackers), default=1),
                                        min((t.reduce_slots for t in trackers), default=1))
    for job, (map_width, reduce_width) in zip(jobs, widths):
        job.map_width, job.reduce_width = map_width, reduce_width
    return summary, any(m > 1 for m, _ in widths), any(r > 1 for _, r in widths)


class ResourcesFeature:
    """Resource vectors and high-RAM task widths on the engine's hooks (see the module docstring).

    ``memory_slots``: plan Hadoop 1 memory-based slot widths from the jobs' confs (``ReplayOptions.memory_slots``).
    """

    def __init__(self, memory_slots: bool = True) -> None:
        self.memory_slots = memory_slots

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        self.names = jt.resource_names
        self.plan, self.wide_maps, self.wide_reduces = plan_widths(jt.jobs, jt.trackers, self.memory_slots)
        self.node_kinds = tracker_resources(jt.trackers, jt.cluster, self.names)
        if self.names:
            jt.register(self, on_job_setup=self._resolve_requests, on_launch=self._launched, fits_request=fits,
                        hold_resources=self._hold, release_resources=self._release)
        if self.names or self.wide_maps or self.wide_reduces:
            jt.register(self, task_fits=self._task_fits)

    # ----------------------------------------------------------------------------------------- hooks

    def _task_fits(self, job: JobState, tracker: TrackerState, reduce: bool) -> bool:
        if reduce:
            req = job.reduce_req
            if req is not None and (job.reduces_held or not fits(tracker, req)):
                return False
            return not self.wide_reduces or job.reduce_width <= tracker.reduce_slots - tracker.running_reduces
        req = job.map_req
        if req is not None and not fits(tracker, req):
            return False
        return not self.wide_maps or job.map_width <= tracker.map_slots - tracker.running_maps

    def _launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        req = job.reduce_req if gid & REDUCE_BIT else job.map_req
        if req is not None:
            hold(tracker, req)

    def _hold(self, job: JobState, tracker: TrackerState, reduce: bool) -> None:
        req = job.reduce_req if reduce else job.map_req
        if req is not None:
            hold(tracker, req)

    def _release(self, job: JobState, tracker: TrackerState, reduce: bool) -> None:
        req = job.reduce_req if reduce else job.map_req
        if req is not None:
            release(tracker, req)

    def _resolve_requests(self, job: JobState) -> None:
        """The job's map and reduce requests (kinds it has tasks of), each checked to fit some node of the
        datacenters its tasks are placed in (all nodes on one-site clusters). Raises InputError."""
        names = self.names
        for reduce in (False, True):
            if not (job.n_reduces if reduce else job.n_maps):
                continue
            request = task_request(job.template, reduce, self.jt.default_requests[reduce])
            unknown = [r for r, amount in request.items() if amount > 0 and r not in names]
            if unknown:
                raise InputError(f"job {job.job_id}: its tasks request {', '.join(map(repr, unknown))}, which no "
                                 f"node declares (nodes have {', '.join(names)})")
            req = tuple(request.get(r, 0.0) for r in names)
            placed = job.reduce_dc if reduce else job.map_dc
            sites = None if placed is None else set(placed)
            if not any((sites is None or site in sites) and all(a <= c + EPSILON for a, c in zip(req, capacity))
                       for capacity, site in self.node_kinds):
                raise InputError(f"job {job.job_id}: a {'reduce' if reduce else 'map'} task requests "
                                 + ", ".join(f"{r}={a:g}" for r, a in zip(names, req)) + ", which fits on no node")
            if reduce:
                job.reduce_req = req
            else:
                job.map_req = req

    # ----------------------------------------------------------------------------------------- results, tests

    def describe_run(self) -> tuple[str, dict, dict] | None:
        """The ``--json`` spec's ``memory_slots`` part, only for traces whose confs set slot memory; else None."""
        if self.plan.map_slot_mb is None and self.plan.reduce_slot_mb is None:
            return None
        return "memory_slots", self.plan.describe(), {}

    def check_invariants(self) -> None:
        """Every tracker's free vector lies within [0, capacity], and an idle tracker holds nothing."""
        for t in self.jt.trackers:
            if t.free is None or t.capacity is None:
                continue
            for r, (f, c) in enumerate(zip(t.free, t.capacity)):
                assert -1e-6 <= f <= c + 1e-6, f"{t}: {self.names[r]} free {f} outside [0, {c}]"
            if t.running_maps == 0 and t.running_reduces == 0:
                assert all(abs(f - c) < 1e-6 for f, c in zip(t.free, t.capacity)), f"{t}: idle but resources held"
