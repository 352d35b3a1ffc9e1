"""CA-FIFO: the contention-aware FIFO scheduler (dissertation section 6.7, Algorithm 9).

Hadoop's FIFO (:class:`mrsim.schedulers.fifo.FifoScheduler`: job order, per-tracker load cap, padding, one reduce per
heartbeat) with admission control from the TDAM node model. Algorithm 9's test at lines 30-31 and 40-41 is
``maxUtilizedResourceValue(task.demands) < THRESHOLD_UTIL``; the scheduler's ``admission`` setting chooses how
that function reads (docs/tdam.md, "CA-FIFO's admission test", gives the argument from the text):

* ``"current"`` (default, the literal reading): the task's demands choose *which* resources are looked at (those
  it uses); the test compares the node's **current** utilization of each of them with its threshold. A task is
  admitted while the node is below the threshold, so the last one admitted may take it above;
* ``"predicted"``: the test compares the node's utilization **predicted with the candidate added** (its current
  mix plus that task) with the threshold, for every resource; the node stays below the threshold.

A task that fails the test waits for a later heartbeat. As in Algorithm 9, in both readings:

* if the node's current utilization already reaches a threshold, no map is considered (line 19, whose printed
  ``!=`` is read as the evident ``<`` test);
* a job whose next map does not fit is skipped and the walk goes on to the next job in FIFO order (lines 23-47),
  so a smaller task of a later job may run first ("possibly schedule a task which would not be normally
  scheduled");
* the model is updated at each launch (lines 50-55): the engine adds the task to the node's mix at once, so the
  next candidate in the same heartbeat sees it.

Reduces: Algorithm 9 shows maps only ("we concentrate on the map tasks here"; extending to other resources and
task kinds is "trivial"). Here the FIFO reduce choice is gated the same way by default, with the reduce's
post-shuffle demand (``config["gate_reduces"] = False`` reproduces the maps-only algorithm).

Configuration (the scheduler's config dict; the CLI's ``--threshold cpu=0.7,disk=0.75`` fills ``thresholds`` and
``--cafifo-admission`` fills ``admission``):

* ``thresholds``: resource → utilization in (0, inf). Defaults :data:`DEFAULT_THRESHOLDS` = cpu 0.7, disk 0.75,
  the example of section 6.7.2 ("CPU utilization is under 70% and the disk utilization under 75%"); given keys
  replace the defaults one by one. ``disk`` applies to every disk of a node. The test is strict (``<``), so
  ``cpu=1.0`` under ``predicted`` still refuses a task that would saturate the CPU, and a value above 1 disables
  a resource's test.
* ``admission``: ``"current"`` (default) or ``"predicted"`` (:data:`ADMISSION_MODES`).
* ``gate_reduces``: bool, default True.

Progress guarantee (not in the dissertation): a task is always admitted to a node with no task in its model;
otherwise a task that alone exceeds a threshold (any CPU-bound task on a one-core node with ``cpu < 1`` under
``predicted``) would never run.

Waiting for a later heartbeat: a declined tracker is parked (the contention feature's ``park_until_mix_change``) instead of polling
every heartbeat. Its answer can change only when its node's mix changes (a task there ends, is killed, or a
reduce's shuffle ends there), a job arrives, or tasks are requeued, and the engine wakes the tracker at its next
heartbeat after each of those; so the schedule equals heartbeat-by-heartbeat polling (tested against the naive
mode) as long as each job's tasks of one kind share a demand shape (job specs, demand tables, the fallback).
With per-task demands from counters, a job's next task may have another shape than the one declined; the
parked tracker considers it at its next wake rather than at the next heartbeat (documented approximation).

Needs the contention-aware engine (``--contention tdam``): the scheduler reads each node's model and the tasks'
demand vectors from it. Without it, :meth:`CaFifoScheduler.start` raises :class:`~mrsim.errors.InputError`
(a separate utilization tally would disagree with the trace durations the plain engine replays).

Cost per heartbeat: FIFO's, plus per distinct demand shape considered one read of the node's utilization
(``current``: O(resources) once the mix is solved) or one mix lookup (``predicted``: O(shapes log shapes) on a
cache hit, an AMVA solve on a miss).
"""

from __future__ import annotations

import math
from typing import Mapping

from mrsim.tracker.scheduling import JobChange, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState
from mrsim.errors import InputError, UsageError
from mrsim.schedulers.fifo import FifoScheduler

#: Section 6.7.2's example thresholds.
DEFAULT_THRESHOLDS: dict[str, float] = {"cpu": 0.7, "disk": 0.75}

#: The readings of Algorithm 9's ``maxUtilizedResourceValue(task.demands)``; the first is the default.
ADMISSION_MODES: tuple[str, ...] = ("current", "predicted")


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


def parse_admission(value: object) -> str:
    """The admission reading named by ``value`` (None: the default, ``"current"``); an :class:`InputError` for
    anything but one of :data:`ADMISSION_MODES`."""
    if value is None:
        return ADMISSION_MODES[0]
    mode = str(value).strip().lower() if isinstance(value, str) else None
    if mode not in ADMISSION_MODES:
        raise InputError(f"cafifo: admission must be one of {', '.join(ADMISSION_MODES)}, got {value!r}")
    return mode


class CaFifoScheduler(TaskScheduler):
    """FIFO with TDAM admission control per node (Algorithm 9): holds a :class:`FifoScheduler` and is its
    admission gate (:attr:`FifoScheduler.admission`), so the walk, the load cap and padding are FIFO's own."""

    name = "cafifo"
    summary = ("contention-aware FIFO (dissertation Alg. 9): admit while node utilization < thresholds (current, or "
               "predicted with the task); needs --contention tdam")
    reads_task_predictions = False  # as FIFO's

    def __init__(self, config: dict | None = None) -> None:
        super().__init__(config)
        self.fifo = FifoScheduler(config)
        # Every launch changes the node's mix, so jobs ahead of the last launch are judged again (FIFO may resume
        # its walk at that job only because nothing it depends on changed).
        self.fifo.resume_walk = False
        self.fifo.admission = self
        self.thresholds = parse_thresholds(self.config.get("thresholds"))
        gate = self.config.get("gate_reduces", True)
        if not isinstance(gate, bool):
            raise InputError(f"cafifo: gate_reduces must be true or false, got {gate!r}")
        self.gate_reduces = gate
        self.admission_mode = parse_admission(self.config.get("admission"))
        self.declined_count = 0  # admissions refused (a task that did not fit on a node at a heartbeat)
        self.declined = False  # some admission was refused in the current heartbeat
        self._verdicts: dict[int, bool] = {}

    def start(self, jt) -> None:  # type: ignore[override]
        from mrsim.tracker.features.contention import ContentionFeature

        model = jt.feature(ContentionFeature)
        if model is None:
            raise UsageError("scheduler cafifo needs the contention model: run the replay with --contention tdam")
        super().start(jt)
        self.model = model
        self.fifo.start(jt)
        cpu, disk = self.thresholds["cpu"], self.thresholds["disk"]
        # Per node, in NodeSpec.resources order: the CPU, then every disk.
        self.limits = [(cpu,) + (disk,) * node.cache.spec.disks for node in model.nodes]

    def describe(self) -> dict:
        out = self.fifo.describe()
        out.update(name=self.name, thresholds=dict(self.thresholds), admission=self.admission_mode,
                   gate_reduces=self.gate_reduces, declined_admissions=self.declined_count)
        return out

    # --------------------------------------------------------------------------------- FIFO, composed

    def job_added(self, job: JobState) -> None:
        self.fifo.job_added(job)

    def job_updated(self, job: JobState, change: JobChange) -> None:
        self.fifo.job_updated(job, change)

    def job_removed(self, job: JobState) -> None:
        self.fifo.job_removed(job)

    def assign_tasks(self, tracker: TrackerState) -> int:
        self.declined = False
        return self.fifo.assign_tasks(tracker)

    # --------------------------------------------------------------------------------- the admission gate

    def saturated(self, tracker: TrackerState) -> bool:
        """Algorithm 9 line 19: the node's current utilization already reaches a threshold (no map considered)."""
        node = self.model.node_model(tracker)
        if len(node) == 0:
            return False
        if any(u >= limit for u, limit in zip(node.utilization(), self.limits[tracker.index])):
            self.declined = True
            return True
        return False

    def new_walk(self) -> None:
        self._verdicts.clear()  # verdicts are memoised per demand shape within one walk

    def admits(self, job: JobState, tracker: TrackerState, reduce: bool) -> bool:
        """Whether the job's next task of that kind may start on ``tracker`` (Algorithm 9 lines 30-31, 40-41)."""
        if reduce and not (self.gate_reduces and job.reduces_ready):
            return True
        demand = self.model.next_task_demand(job, tracker, reduce)
        if demand is None or not any(demand):
            return True
        sid = self.model.node_model(tracker).cache.shape_of(demand)[0]
        ok = self._verdicts.get(sid)
        if ok is None:
            ok = self._verdicts[sid] = self._fits(tracker, demand)
        if not ok:
            self.declined_count += 1
            self.declined = True
        return ok

    def declined_at(self, tracker: TrackerState) -> None:
        # Only a change of this node's mix, a new job or a requeued task can turn the answer: the engine wakes
        # the tracker then (exact w.r.t. asking at every heartbeat, for one demand shape per job and kind).
        self.model.park_until_mix_change(tracker)

    def _fits(self, tracker: TrackerState, demand: tuple[float, ...]) -> bool:
        """Algorithm 9's test in the configured reading (module docstring): ``current``, the node's utilization of
        each resource the task uses is below its limit; ``predicted``, every resource's utilization predicted
        with the candidate added stays below its limit."""
        node = self.model.node_model(tracker)
        if len(node) == 0:
            return True  # an idle node (progress guarantee)
        limits = self.limits[tracker.index]
        if self.admission_mode == "current":
            for u, used, limit in zip(node.utilization(), self._resources_used(demand, len(limits)), limits):
                if used and u >= limit:
                    return False
            return True
        for u, limit in zip(node.predicted_utilization(demand), limits):
            if u >= limit:
                return False
        return True

    @staticmethod
    def _resources_used(demand: tuple[float, ...], resources: int) -> list[bool]:
        """Which utilization entries (the CPU, then each disk) a demand vector uses. The disks are the vector's
        last ``resources - 1`` entries on every node model; the entries before them (CPU, or Core-I and memory
        with chapter 4's memory layer) are time on the cores."""
        disks = resources - 1
        cores = demand[:len(demand) - disks]
        return [any(d > 0 for d in cores)] + [d > 0 for d in demand[len(demand) - disks:]]
