"""CA-FIFO: the contention-aware FIFO scheduler (dissertation section 6.7, Algorithm 9).

Hadoop's FIFO (:class:`schedulers.fifo.FifoScheduler`: job order, per-tracker load cap, padding, one reduce per
heartbeat) with admission control from the TDAM node model: on a heartbeat, a task is launched on the tracker only
if the node's **predicted utilization** of every resource, for its current mix plus that task, stays **below** the
resource's threshold (Algorithm 9 lines 30-31 and 40-41, ``maxUtilizedResourceValue(task.demands) <
THRESHOLD_UTIL``, applied per resource). Otherwise the task waits for a later heartbeat. As in Algorithm 9:

* if the node's current utilization already reaches a threshold, no map is considered (line 19, whose printed
  ``!=`` is read as the evident ``<`` test);
* a job whose next map does not fit is skipped and the walk goes on to the next job in FIFO order (lines 23-47),
  so a smaller task of a later job may run first ("possibly schedule a task which would not be normally
  scheduled");
* after a launch the model is updated at once (lines 50-55): the engine adds the task to the node's mix, so the
  next candidate in the same heartbeat sees it.

Reduces: Algorithm 9 shows maps only ("we concentrate on the map tasks here"; extending to other resources and
task kinds is "trivial"). Here the FIFO reduce choice is gated the same way by default, with the reduce's
post-shuffle demand (``config["gate_reduces"] = False`` reproduces the maps-only algorithm).

Configuration (the scheduler's config dict; the CLI's ``--threshold cpu=0.7,disk=0.75`` fills ``thresholds``):

* ``thresholds``: resource → utilization in (0, inf). Defaults :data:`DEFAULT_THRESHOLDS` = cpu 0.7, disk 0.75,
  the example of section 6.7.2 ("CPU utilization is under 70% and the disk utilization under 75%"); given keys
  replace the defaults one by one. ``disk`` applies to every disk of a node. The test is strict (``<``), so
  ``cpu=1.0`` still refuses a task that would saturate the CPU, and a value above 1 disables a resource's test.
* ``gate_reduces``: bool, default True.

Progress guarantee (not in the dissertation): a task is always admitted to a node with no task in its model;
otherwise a task that alone exceeds a threshold (any CPU-bound task on a one-core node with ``cpu < 1``) would
never run.

Waiting for a later heartbeat: a declined tracker is parked (``jt.park_until_mix_change``) instead of polling
every heartbeat. Its answer can change only when its node's mix changes (a task there ends, is killed, or a
reduce's shuffle ends there), a job arrives, or tasks are requeued, and the engine wakes the tracker at its next
heartbeat after each of those; so the schedule equals heartbeat-by-heartbeat polling (tested against the naive
mode) as long as each job's tasks of one kind share a demand shape (job specs, demand tables, the fallback).
With per-task demands from counters, a job's next task may have another shape than the one declined; the
parked tracker considers it at its next wake rather than at the next heartbeat (documented approximation).

Needs the contention-aware engine (``--contention tdam``): the scheduler reads each node's model and the tasks'
demand vectors from it. Without it, :meth:`CaFifoScheduler.start` raises :class:`~mrsim.errors.InputError`
(a separate utilization tally would disagree with the trace durations the plain engine replays).

Cost per heartbeat: FIFO's, plus one mix lookup per distinct demand shape considered (O(shapes log shapes) on a
cache hit, an AMVA solve on a miss).
"""

from __future__ import annotations

import math
from typing import Mapping

from mrsim.errors import InputError, UsageError
from mrsim.scheduling import Locality
from mrsim.tracker.state import JobState, TrackerState
from schedulers.fifo import FifoScheduler

#: Section 6.7.2's example thresholds.
DEFAULT_THRESHOLDS: dict[str, float] = {"cpu": 0.7, "disk": 0.75}


def parse_thresholds(value: object) -> dict[str, float]:
    """Effective thresholds: :data:`DEFAULT_THRESHOLDS` updated with ``value`` (a mapping resource → utilization).

    Raises :class:`InputError` for another resource name or a non-positive / non-finite value.
    """
    out = dict(DEFAULT_THRESHOLDS)
    if value is None:
        return out
    if not isinstance(value, Mapping):
        raise InputError(f"cafifo: thresholds must map resources to utilizations (e.g. cpu=0.7,disk=0.75), got {value!r}")
    for name, raw in value.items():
        key = str(name).strip().lower()
        if key not in DEFAULT_THRESHOLDS:
            raise InputError(f"cafifo: no threshold for resource {name!r} (the node model has cpu and disk)")
        try:
            x = float(raw)
        except (TypeError, ValueError):
            raise InputError(f"cafifo: threshold {key}={raw!r} is not a number") from None
        if not (math.isfinite(x) and x > 0):
            raise InputError(f"cafifo: threshold {key}={raw!r} must be a positive utilization")
        out[key] = x
    return out


class CaFifoScheduler(FifoScheduler):
    """FIFO with TDAM admission control per node (Algorithm 9)."""

    name = "cafifo"
    summary = "contention-aware FIFO (dissertation Alg. 9): admit while predicted node utilization < thresholds; needs --contention tdam"

    def __init__(self, config: dict | None = None) -> None:
        super().__init__(config)
        self.thresholds = parse_thresholds(self.config.get("thresholds"))
        gate = self.config.get("gate_reduces", True)
        if not isinstance(gate, bool):
            raise InputError(f"cafifo: gate_reduces must be true or false, got {gate!r}")
        self.gate_reduces = gate
        self.declined = 0  # admissions refused (a task that did not fit on a node at a heartbeat)

    def start(self, jt) -> None:  # type: ignore[override]
        from mrsim.tracker.contention import ContentionJobTracker

        if not isinstance(jt, ContentionJobTracker):
            raise UsageError("scheduler cafifo needs the contention model: run the replay with --contention tdam")
        super().start(jt)
        cpu, disk = self.thresholds["cpu"], self.thresholds["disk"]
        # Per node, in NodeSpec.resources order: the CPU, then every disk.
        self.limits = [(cpu,) + (disk,) * node.cache.spec.disks for node in jt.nodes]

    def describe(self) -> dict:
        out = super().describe()
        out.update(name=self.name, thresholds=dict(self.thresholds), gate_reduces=self.gate_reduces,
                   declined_admissions=self.declined)
        return out

    # --------------------------------------------------------------------------------- admission

    def _fits(self, tracker: TrackerState, demand: tuple[float, ...] | None) -> bool:
        """Algorithm 9's test: every resource's predicted utilization with the candidate stays below its limit."""
        node = self.jt.node_model(tracker)
        if demand is None or len(node) == 0:
            return True  # nothing to test, or an idle node (progress guarantee)
        for u, limit in zip(node.predicted_utilization(demand), self.limits[tracker.index]):
            if u >= limit:
                return False
        return True

    def _saturated(self, tracker: TrackerState) -> bool:
        """Algorithm 9 line 19: the node's current utilization already reaches a threshold."""
        node = self.jt.node_model(tracker)
        if len(node) == 0:
            return False
        return any(u >= limit for u, limit in zip(node.utilization(), self.limits[tracker.index]))

    # --------------------------------------------------------------------------------- heartbeat

    def assign_tasks(self, tracker: TrackerState) -> int:
        jt = self.jt
        assigned = 0
        declined = False
        map_queue = self.map_queue
        slots = tracker.map_slots
        if map_queue and tracker.running_maps < slots:
            cap = min(math.ceil(jt.remaining_maps / jt.total_map_slots * slots), slots)
            available = cap - tracker.running_maps
            if available > 0 and self._saturated(tracker):
                declined = True
            elif available > 0:
                exceeded = self._exceeded_padding(jt.cluster_status_maps, jt.total_map_slots, self.needed_maps, slots)
                for _ in range(available):
                    launched, stop, declined_now = self._first_fit(tracker, map_queue, False, exceeded)
                    declined = declined or declined_now
                    if launched is None:
                        break
                    assigned += 1
                    if launched.maps_pending == 0:
                        map_queue.remove(launched)
                    if stop or not map_queue:
                        break
        slots = tracker.reduce_slots
        if self.with_reduces and tracker.running_reduces < slots and jt.total_reduce_slots:
            cap = min(math.ceil(jt.remaining_ready_reduces / jt.total_reduce_slots * slots), slots)
            if cap - tracker.running_reduces > 0:
                exceeded = self._exceeded_padding(jt.cluster_status_reduces, jt.total_reduce_slots,
                                                  self.needed_reduces, slots)
                # Hadoop's reduce loop walks the queue for the first job with a reduce to give, stopping after the
                # first job with reduces when padding is exceeded; here the walk also skips reduces that do not fit.
                candidates = self.with_reduces[:1] if exceeded else self.reduce_queue
                launched, _, declined_now = self._first_fit(tracker, candidates, True, exceeded)
                declined = declined or declined_now
                if launched is not None:
                    assigned += 1
                    if launched.reduces_pending == 0 and launched in self.reduce_queue:
                        self.reduce_queue.remove(launched)
                elif exceeded and self.reduce_queue:
                    jt.park_until_change(tracker)  # FIFO's padding block: lifts on cluster-wide changes
        if declined:
            # Only a change of this node's mix, a new job or a requeued task can turn the answer: the engine wakes
            # the tracker then (exact w.r.t. asking at every heartbeat, for one demand shape per job and kind).
            jt.park_until_mix_change(tracker)
        return assigned

    def _first_fit(self, tracker: TrackerState, jobs, reduce: bool, exceeded: bool) -> tuple[JobState | None, bool, bool]:  # type: ignore[no-untyped-def]
        """The first job in ``jobs`` (FIFO order) whose next task fits on the node, launched (Algorithm 9 lines
        21-47: local first, then non-local, for maps).

        Returns (job launched or None, stop after this task, whether some candidate was declined). Verdicts are
        memoised per demand shape within the call: utilization depends on the mix's shapes only.
        """
        jt = self.jt
        cache = jt.node_model(tracker).cache
        gate = self.gate_reduces or not reduce
        verdicts: dict[int, bool] = {}
        declined = False
        for job in jobs:
            demand = jt.next_task_demand(job, tracker, reduce) if gate and (job.reduces_ready or not reduce) else None
            if demand is not None and any(demand):
                sid = cache.shape_of(demand)[0]
                ok = verdicts.get(sid)
                if ok is None:
                    ok = verdicts[sid] = self._fits(tracker, demand)
                if not ok:
                    self.declined += 1
                    declined = True
                    continue
            if reduce:
                if jt.obtain_new_reduce_task(job, tracker):
                    return job, True, declined  # at most one reduce per heartbeat (FIFO)
                continue
            if jt.obtain_new_map_task(job, tracker, Locality.RACK):
                return job, exceeded, declined  # Algorithm 9 lines 34-35: stop at the padding ceiling
            if jt.obtain_new_map_task(job, tracker, Locality.NON_LOCAL):
                return job, True, declined  # FIFO: at most one off-switch map per heartbeat
        return None, False, declined
