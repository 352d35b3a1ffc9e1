"""The emulated JobTracker and TaskTracker heartbeat layer.

What happens, in Hadoop terms (``JobTracker.heartbeat``, ``TaskTracker.offerService``):

* **Job arrival** (``JobTracker.submitJob``): the job becomes RUNNING at once (setup/cleanup tasks are not
  modelled) and the scheduler's ``job_added`` hook runs.
* **Task finished** on a TaskTracker: the task stops running there, but the JobTracker learns of it only in
  that tracker's next heartbeat (or an immediate out-of-band one when
  ``mapreduce.tasktracker.outofband.heartbeat`` is true). Its slot is free from that heartbeat on.
* **Heartbeat** of a tracker: (1) apply its reported completions (finished counts, slow start, map-stage end,
  job completion); (2) if it has a free slot, call the scheduler's ``assign_tasks``; launched tasks start now.

Same-instant order (documented and tested): job arrivals, then task completions, then heartbeats in tracker
order. Each event class has its own ``order`` value in the kernel (0, 1 and 2 + tracker index).

**Heartbeat timing.** Tracker *i* heartbeats at ``phase_i + k * interval`` (phases drawn once from a seeded
stream). Most heartbeats change nothing, so by default they are not simulated (``docs/engine.md``,
"Heartbeats without the cost"):
a tracker is *parked* (no event queued) unless it has completions to report or it just launched tasks and still
has free slots; anything that can make a parked tracker useful (a job arrival, slow start being met, one of its
own tasks finishing) computes its next grid time arithmetically and queues just that heartbeat. The naive mode
(``naive_heartbeats=True``) emits every heartbeat; tests check that both give identical results.

With ``interval = 0`` (``--heartbeat-interval off``) the engine runs SimMR's task-completion-driven mode: a
completion is applied at once and the tracker is offered work at the same instant, repeatedly while the
scheduler keeps launching.

**Reduce model** (SimMR III-B). A reduce occupies its slot from launch. If it launched before its job's map
stage ended, its shuffle ends ``first_shuffle`` seconds after the job's last map *finished* (not after the
heartbeat that reported it: the profiled first-shuffle is measured from the last map's own finish, so it already
contains the reporting delay; the end is never earlier than the moment the map stage is known to be complete).
Later reduces take ``typical_shuffle`` from launch. Then the reduce phase. Durations are divided by the
node's speed factor.
"""

from __future__ import annotations

import enum
import math
from typing import Callable, TypeVar

from mrsim.engine import invariants, placement
from mrsim.engine import locality as locality_caches
from mrsim.engine.events import (EV_FIRST_FEATURE, EV_HANGING_MAPS, EV_HEARTBEAT, EV_JOB_ARRIVAL, EV_TASK_DONE,
                                 EV_TIMER, ORDER_HEARTBEAT, ORDER_JOB_ARRIVAL, ORDER_TASK_DONE, ORDER_TIMER)
from mrsim.engine.kernel import Kernel
from mrsim.engine.scheduling import JobChange, Locality, TaskScheduler
from mrsim.engine.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState
from mrsim.model import memory_slots
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from mrsim.rng import stream


F = TypeVar("F")


class LocalityMode(enum.Enum):
    """Whether map split locations are honoured (``--locality``).

    AUTO: for jobs whose split locations name at least one host of the cluster (e.g. a Rumen topology or a
    cluster inferred from the trace); other jobs' maps are rack-local everywhere. ON: always (maps on unknown
    hosts are then off-switch everywhere). OFF: never (every map rack-local everywhere, SimMR's behaviour).
    """

    AUTO = "auto"
    ON = "on"
    OFF = "off"



class JobTracker:
    """One replay's live state and event handlers. Build with :func:`mrsim.engine.replay.replay`."""

    def __init__(self, workload: Workload, cluster: ClusterSpec, conf: HadoopConf, scheduler: TaskScheduler,
                 *, heartbeat_interval: float | None = None, naive_heartbeats: bool = False, seed: int = 0,
                 aligned_heartbeats: bool = False, locality: "LocalityMode | None" = None,
                 rack_local_slowdown: float = 1.0, off_switch_slowdown: float = 1.0) -> None:
        self.workload = workload
        self.cluster = cluster
        self.conf = conf
        self.scheduler = scheduler
        self.kernel = Kernel()
        #: ``kernel.schedule``, bound once (hot path): the one way to queue an event
        self.schedule = self.kernel.schedule
        n = len(cluster.trackers)
        self.interval = conf.heartbeat_interval_s(n) if heartbeat_interval is None else float(heartbeat_interval)
        self.task_mode = self.interval <= 0.0
        self.naive = naive_heartbeats and not self.task_mode
        self.oob = conf.outofband_heartbeat and not self.task_mode
        if aligned_heartbeats or self.task_mode:
            phases = [0.0] * n
        else:
            phases = stream(seed, "heartbeat-phases").uniform(0.0, self.interval, n).tolist()
        self.trackers = [
            TrackerState(i, t.name, t.rack, t.map_slots, t.reduce_slots, t.speed, t.cores, phases[i])
            for i, t in enumerate(cluster.trackers)
        ]
        # Federations: datacenter names; each tracker knows its index (docs/cluster.md).
        self.datacenters: tuple[str, ...] = cluster.datacenters
        # Resource-vector clusters: resource names (sorted); trackers get capacity and free vectors in this order.
        self.resource_names: tuple[str, ...] = cluster.resource_names
        dc_index = {name: d for d, name in enumerate(self.datacenters)}
        for state, spec in zip(self.trackers, cluster.trackers):
            state.datacenter = dc_index.get(spec.datacenter, 0)
            if self.resource_names:
                state.capacity = tuple(spec.capacity(r) for r in self.resource_names)
                state.free = list(state.capacity)
        self.default_requests = (cluster.default_request(False), cluster.default_request(True))
        # Distinct (capacity, datacenter) pairs: a job's "fits on some node" check is O(configurations), not O(nodes).
        self.node_kinds = tuple(dict.fromkeys((t.capacity, t.datacenter) for t in self.trackers
                                              if t.capacity is not None))
        self.reducer_preempt_delay = float(conf.reducer_preempt_delay_s)
        self.scheduler_wakes = bool(getattr(scheduler, "wakes_own_trackers", False))  # see TaskScheduler
        self.reduces_preempted = 0
        self.site_slots: tuple[list[int], list[int]] = ([0] * max(1, len(self.datacenters)), [0] * max(1, len(self.datacenters)))
        for state in self.trackers:
            self.site_slots[0][state.datacenter] += state.map_slots
            self.site_slots[1][state.datacenter] += state.reduce_slots
        origin = workload.origin_s
        self.jobs = [JobState(i, tmpl, tmpl.submit_s - origin, conf.slowstart_completed_maps)
                     for i, tmpl in enumerate(workload.jobs)]
        widths, self.memory_slots = memory_slots.plan(workload.jobs, min((t.map_slots for t in self.trackers), default=1),
                                                      min((t.reduce_slots for t in self.trackers), default=1))
        for job, (map_width, reduce_width) in zip(self.jobs, widths):
            job.map_width, job.reduce_width = map_width, reduce_width
        self.wide_maps = any(m > 1 for m, _ in widths)  # the slot checks below run only when some task is wide
        self.wide_reduces = any(r > 1 for _, r in widths)
        self.running_jobs: dict[int, JobState] = {}
        self.locality_mode = locality or LocalityMode.AUTO
        self.host_racks = {t.name: t.rack for t in self.trackers}
        self.rack_local_slowdown = float(rack_local_slowdown)
        self.off_switch_slowdown = float(off_switch_slowdown)
        self.total_map_slots = sum(t.map_slots for t in self.trackers)
        self.total_reduce_slots = sum(t.reduce_slots for t in self.trackers)
        # Aggregates Hadoop's schedulers compute each heartbeat; kept incrementally (O(1) per change).
        self.remaining_maps = 0  # sum over RUNNING jobs of (desired - finished) maps
        self.remaining_ready_reduces = 0  # same for reduces of jobs past slow start
        self.cluster_status_maps = 0  # sum of trackers' last reported running maps
        self.cluster_status_reduces = 0
        self.jobs_done = 0
        self.tasks_done = 0
        self.heartbeats = 0
        self.killed_tasks = 0
        self.wasted_s = 0.0
        self.change_waiters: list[TrackerState] = []  # parked until cluster state changes (park_until_change)
        # Call the optional per-task hook only for schedulers that define it (it is on the hot path).
        self.task_hook = scheduler.task_finished if type(scheduler).task_finished is not TaskScheduler.task_finished else None
        self.failed_attempts_replayed = 0  # counted by the failed-attempt replay (mrsim.engine.features.failures)
        self.speculative_maps = conf.map_speculative
        self.speculative_reduces = conf.reduce_speculative
        self.spec_attempts = 0
        self.spec_wins = 0
        self.progress: Callable[[int], None] | None = None
        #: index of the task the last successful ``obtain_new_*_task`` call launched (for schedulers that track
        #: attempts; a speculative backup does not set it)
        self.last_task = -1
        # ---- hooks (docs/architecture.md): features attach here by composition, never by subclassing.
        #: ``(job, tracker, kind) -> seconds`` an attempt spends launching before it progresses (kind 0 map,
        #: 1 reduce, 2 setup, 3 cleanup); None: no launch lag (SimMR's engine).
        self.launch_lag: Callable[[JobState, TrackerState, int], float] | None = None
        #: ``(tracker, kind) -> seconds`` between an attempt's end and its out-of-band heartbeat; None: at once.
        self.report_lag: Callable[[TrackerState, int], float] | None = None
        #: ``(job, tracker, kind, on_reduce) -> seconds or None`` for a setup (2) / cleanup (3) task on ``tracker``
        #: in a map (on_reduce 0) or reduce (1) slot; None or a None result: the template's attempt duration.
        self.aux_duration: Callable[[JobState, TrackerState, int, int], float | None] | None = None
        #: called at a heartbeat of a tracker with a free slot, before setup/cleanup tasks and the scheduler
        #: (work outside the trace takes its slots first); ``(tracker, now) -> None``.
        self.before_assign: list[Callable[[TrackerState, float], None]] = []
        #: slots held by features (work outside the trace), counted in the trackers' running counts.
        self.held_maps = 0
        self.held_reduces = 0
        #: attempts that did not succeed, one tuple each ``(job index, task index, reduce, tracker index, start_s,
        #: end_s, result)`` with result ``FAILED`` or ``KILLED`` (kills, replayed failures, speculative losers).
        #: Appended on those rare paths only; the attempt rows of ``--out`` list them.
        self.lost_attempts: list[tuple[int, int, bool, int, float, float, str]] = []
        #: ``(job, tracker, gid)`` called *instead of* queuing the trace-derived completion of task ``gid`` (at
        #: launch; for first-wave reduces when the map stage ends): a feature that models durations (contention)
        #: decides when the task finishes and calls :meth:`task_done` then. ``job.*_finish`` holds the trace value.
        self.finish_model: Callable[[JobState, TrackerState, int], None] | None = None
        #: after every map or reduce launch (not backups): ``(job, tracker, gid) -> None``
        self.on_launch: list[Callable[[JobState, TrackerState, int], None]] = []
        #: a job arrived (its template materialised, before the engine sets it up): ``(job) -> None``
        self.on_job_arrival: list[Callable[[JobState], None]] = []
        #: a job finished (after its cleanup, results fixed): ``(job) -> None``
        self.on_job_done: list[Callable[[JobState], None]] = []
        #: ``(job, tracker, reduce, locality) -> launched?``: the job has no pending task of that kind; a feature may
        #: start another attempt of a running one on ``tracker`` (speculation). None: nothing to offer.
        self.offer_backup: Callable[[JobState, TrackerState, bool, Locality], bool] | None = None
        #: a task's attempt ended (a live completion event, before the tracker reports it): ``(job, gid, now)``
        self.on_attempt_end: list[Callable[[JobState, int, float], None]] = []
        #: ``(job, now) -> held?`` when a job has arrived and been set up: True if the feature makes it RUNNING
        #: later itself (:meth:`job_running`: a launch delay, a setup task); None or False: RUNNING now.
        self.hold_job_start: Callable[[JobState, float], bool] | None = None
        #: ``(job, now) -> held?`` when every task of a job is reported: True if the feature finishes it later
        #: itself (:meth:`finish_job`: a cleanup task); None or False: done now.
        self.hold_job_finish: Callable[[JobState, float], bool] | None = None
        #: ``(tracker, now) -> launched?`` at a heartbeat with a free slot, before the scheduler: True if the
        #: feature launched work there, and then the scheduler is not asked in this heartbeat (setup/cleanup).
        self.assign_first: Callable[[TrackerState, float], bool] | None = None
        #: ``(tracker, code, now)``: a setup/cleanup task reported with :meth:`report_completion` and an
        #: ``aux_kind`` is applied (set by the feature that launches them).
        self.apply_aux: Callable[[TrackerState, int, float], None] | None = None
        #: ``(job, gid) -> seconds or -1``: length of the attempt of task ``gid`` launched now when it is one that
        #: fails (failed-attempt replay), else -1 (the task's own duration).
        self.attempt_length: Callable[[JobState, int], float] | None = None
        #: ``(tracker, job, gid, now) -> failed?`` for a reported completion: True if that attempt failed (the feature
        #: requeued the task with :meth:`requeue_task`); then it is not a completion.
        self.attempt_failed: Callable[[TrackerState, JobState, int, float], bool] | None = None
        #: a task's successful completion was applied (reported to the JobTracker): ``(job, tracker, gid) -> None``
        self.on_task_finished: list[Callable[[JobState, TrackerState, int], None]] = []
        #: a heartbeat event of ``tracker`` is due (also a superseded one, before the engine drops it): ``(tracker)``
        self.on_heartbeat: list[Callable[[TrackerState], None]] = []
        #: before :meth:`kill_task` picks its victim (it reads running tasks' finish times): ``() -> None``
        self.before_kill: list[Callable[[], None]] = []
        #: a running task is being killed (its victim chosen, before it is requeued): ``(job, gid, tracker index)``
        self.on_kill: list[Callable[[JobState, int, int], None]] = []
        #: at the end of every event (features that batch work within an event): ``() -> None``
        self.after_event: list[Callable[[], None]] = []
        self._next_feature_kind = EV_FIRST_FEATURE
        self.features: list[object] = []

    def attach(self, feature: object) -> None:
        """Attach a feature: it keeps a reference to this engine and sets the hooks it needs (``feature.attach``)."""
        self.features.append(feature)
        feature.attach(self)  # type: ignore[attr-defined]

    def register_event(self, handler: Callable[[float, int, int, int], None]) -> int:
        """A new event kind handled by ``handler(time, order, a, b)``; a feature queues its events with
        ``jt.schedule(time, order, kind, a, b)`` (the kernel's). Call before :meth:`run`."""
        kind = self._next_feature_kind
        self._next_feature_kind += 1
        self.kernel.register(kind, handler)
        return kind

    def feature(self, kind: "type[F]") -> "F | None":
        """The attached feature of class ``kind`` (for plug-ins that use a feature's API), or None."""
        for feature in self.features:
            if isinstance(feature, kind):
                return feature
        return None

    # ----------------------------------------------------------------------------------------- running

    def run(self, after_event: Callable[[], None] | None = None) -> None:
        """Replay the whole workload to completion."""
        kernel = self.kernel
        for job in self.jobs:
            kernel.schedule(job.submit, ORDER_JOB_ARRIVAL, EV_JOB_ARRIVAL, job.index, 0)
        if self.naive:
            for t in self.trackers:
                self._schedule_heartbeat_k(t, 0)
        self.scheduler.start(self)
        for kind, handler in ((EV_JOB_ARRIVAL, self._on_job_arrival), (EV_TASK_DONE, self._on_task_done),
                              (EV_HEARTBEAT, self._on_heartbeat), (EV_TIMER, self._on_timer),
                              (EV_HANGING_MAPS, self._on_hanging_maps)):
            kernel.register(kind, handler)
        hooks = tuple(self.after_event)
        if hooks:
            check = after_event

            def after_event() -> None:
                for hook in hooks:
                    hook()
                if check is not None:
                    check()

        kernel.run(None, after_event)

    @property
    def now(self) -> float:
        return self.kernel.now

    # ----------------------------------------------------------------------------------------- heartbeats

    def _schedule_heartbeat(self, tracker: TrackerState, time: float) -> None:
        tracker.hb_stamp += 1
        tracker.next_hb = time
        self.schedule(time, ORDER_HEARTBEAT + tracker.index, EV_HEARTBEAT, tracker.index, tracker.hb_stamp)

    def _schedule_heartbeat_k(self, tracker: TrackerState, k: int) -> None:
        """Queue the heartbeat at grid point ``k``: ``phase + k * interval`` (always computed the same way, so
        parked and naive modes produce bit-identical times)."""
        tracker.hb_k = k
        time = tracker.phase + k * self.interval
        stamp = tracker.hb_stamp = tracker.hb_stamp + 1
        tracker.next_hb = time
        self.schedule(time, ORDER_HEARTBEAT + tracker.index, EV_HEARTBEAT, tracker.index, stamp)

    def _next_grid_k(self, tracker: TrackerState, now: float) -> int:
        """Index of the first heartbeat of ``tracker`` not before ``now`` that has not already passed in this
        instant (a heartbeat at exactly ``now`` is still ahead only if its order comes after the current event)."""
        interval = self.interval
        phase = tracker.phase
        k = math.ceil((now - phase) / interval)
        if k < 0:
            k = 0
        if phase + k * interval < now:
            k += 1
        elif k > 0 and phase + (k - 1) * interval >= now:
            k -= 1
        if phase + k * interval == now and ORDER_HEARTBEAT + tracker.index <= self.kernel.order:
            k += 1
        return k

    def wake(self, tracker: TrackerState) -> None:
        """Make sure ``tracker`` has a heartbeat queued (its next grid time, or now in task mode)."""
        if tracker.next_hb != INF:
            return
        now = self.kernel.now
        if self.task_mode:
            self._schedule_heartbeat(tracker, now)
        else:
            self._schedule_heartbeat_k(tracker, self._next_grid_k(tracker, now))

    def wake_for_maps(self) -> None:
        if self.scheduler_wakes:
            return
        for t in self.trackers:
            if t.next_hb == INF and t.running_maps < t.map_slots:
                self.wake(t)

    def wake_for_reduces(self) -> None:
        if self.scheduler_wakes:
            return
        for t in self.trackers:
            if t.next_hb == INF and t.running_reduces < t.reduce_slots:
                self.wake(t)

    def wake_all(self) -> None:
        """For schedulers whose state changed in a way the engine cannot see (e.g. a timer expired)."""
        for t in self.trackers:
            if t.next_hb == INF and (t.running_maps < t.map_slots or t.running_reduces < t.reduce_slots):
                self.wake(t)

    # ----------------------------------------------------------------------------------------- handlers

    def _on_job_arrival(self, now: float, order: int, index: int, _b: int) -> None:
        job = self.jobs[index]
        job.materialize()
        if self.on_job_arrival:
            for hook in self.on_job_arrival:
                hook(job)
        if self.datacenters:
            placement.setup_datacenters(self, job)
        elif job.template.map_locations is not None:
            locality_caches.setup_locality(self, job)
        if self.resource_names:
            placement.setup_requests(self, job)
        if self.hold_job_start is None or not self.hold_job_start(job, now):
            self.job_running(job, now)

    def job_running(self, job: JobState, now: float) -> None:
        """The job is RUNNING: the scheduler sees it from now on."""
        index = job.index
        self.running_jobs[index] = job
        job.last_map_launch = now
        self.remaining_maps += job.n_maps
        self.scheduler.job_added(job)
        if self.change_waiters:
            self._wake_change_waiters()
        if job.finished_maps >= job.slowstart_threshold and job.n_reduces:
            self._reduces_ready(job)
        if job.n_maps:
            self.wake_for_maps()
        if job.n_maps == 0 and job.n_reduces == 0:  # nothing to run (builders reject this; be safe)
            self._tasks_done(job, now)

    def _on_task_done(self, now: float, order: int, tracker_index: int, gid: int) -> None:
        job = self.jobs[gid >> JOB_SHIFT]
        if (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] != now:
            return  # the attempt was killed (tombstone)
        if self.on_attempt_end:
            for hook in self.on_attempt_end:
                hook(job, gid, now)
        self._completed_on(self.trackers[tracker_index], gid, now)

    def task_done(self, now: float, order: int, tracker_index: int, gid: int) -> None:
        """Task ``gid`` ended on that tracker at ``now`` (its ``*_finish`` entry must equal ``now``, else it is a
        stale completion); for a feature that set :attr:`finish_model`. (A method, not an alias of the handler:
        the compiled core's classes cannot alias methods.)"""
        self._on_task_done(now, order, tracker_index, gid)

    def _completed_on(self, tracker: TrackerState, gid: int, now: float, aux_kind: int = -1) -> None:
        """Task ``gid`` (or, with an ``aux_kind`` of 2 or 3, a feature's setup/cleanup task ``gid``, applied by
        :attr:`apply_aux`) finished on ``tracker`` at ``now``: report it, at once in task mode, else in the
        tracker's next (or an out-of-band) heartbeat."""
        if self.task_mode:
            if aux_kind >= 0:
                self.apply_aux(tracker, gid, now)  # type: ignore[misc]
            else:
                self._apply_completion(tracker, gid, now)
            self._refresh_status(tracker)
            self.wake(tracker)
            return
        (tracker.aux_reports if aux_kind >= 0 else tracker.reports).append(gid)
        if self.oob:
            when = now
            if self.report_lag is not None:
                kind = aux_kind if aux_kind >= 0 else (1 if gid & REDUCE_BIT else 0)
                when = now + self.report_lag(tracker, kind)
                if tracker.next_hb <= when:
                    return  # an earlier queued heartbeat reports it
            tracker.phase = when  # the TaskTracker's wait restarts from this heartbeat
            self._schedule_heartbeat_k(tracker, 0)  # supersedes a queued one (tombstoned by hb_stamp)
        elif not self.naive:
            self.wake(tracker)

    def release_held(self, tracker: TrackerState, job: JobState, reduce: bool) -> None:
        """Free a slot a feature held on ``tracker`` for work of ``job`` (a setup/cleanup task, a backup attempt):
        the tracker's running count, :attr:`held_maps` / :attr:`held_reduces` and, on resource clusters, the job's
        container size. O(resources)."""
        if reduce:
            tracker.running_reduces -= 1
            self.held_reduces -= 1
            req = job.reduce_req
        else:
            tracker.running_maps -= 1
            self.held_maps -= 1
            req = job.map_req
        if req is not None:
            self.release(tracker, req)

    def report_completion(self, tracker: TrackerState, gid: int, now: float, aux_kind: int = -1) -> None:
        """Task ``gid`` ended on ``tracker`` at ``now`` by a feature's own event (a speculative backup; with
        ``aux_kind`` 2 or 3 a setup / cleanup task, code ``gid``, applied by :attr:`apply_aux`): report it as any
        completion (at once in task mode, else in the tracker's next or an out-of-band heartbeat)."""
        self._completed_on(tracker, gid, now, aux_kind)

    def schedule_timer(self, time: float, token: int = 0) -> None:
        """Call ``scheduler.on_timer(now, token)`` at ``time`` (before any other event of that instant).

        For scheduler logic that runs on its own clock in Hadoop (the Fair Scheduler's update thread and
        preemption checks, delay-scheduling waits). Timers after the last job finishes are dropped.
        """
        self.kernel.schedule(max(time, self.kernel.now), ORDER_TIMER, EV_TIMER, token, 0)

    def _on_timer(self, now: float, order: int, token: int, _b: int) -> None:
        self.scheduler.on_timer(now, token)

    def _refresh_status(self, tracker: TrackerState) -> None:
        dm = tracker.running_maps - tracker.status_maps
        dr = tracker.running_reduces - tracker.status_reduces
        if dm or dr:
            self.cluster_status_maps += dm
            self.cluster_status_reduces += dr
            tracker.status_maps = tracker.running_maps
            tracker.status_reduces = tracker.running_reduces
            if (dm < 0 or dr < 0) and self.change_waiters:
                self._wake_change_waiters()

    def _wake_change_waiters(self) -> None:
        waiters = self.change_waiters
        self.change_waiters = []
        for t in waiters:
            t.waiting_change = False
            self.wake(t)

    def _on_heartbeat(self, now: float, order: int, tracker_index: int, stamp: int) -> None:
        tracker = self.trackers[tracker_index]
        if self.on_heartbeat:
            for hook in self.on_heartbeat:
                hook(tracker)
        if stamp != tracker.hb_stamp:
            return  # superseded by an out-of-band heartbeat
        tracker.next_hb = INF
        self.heartbeats += 1
        reports = tracker.reports
        if reports:
            apply = self._apply_completion
            for gid in reports:
                apply(tracker, gid, now)
            reports.clear()
        if tracker.aux_reports:
            for code in tracker.aux_reports:
                self.apply_aux(tracker, code, now)  # type: ignore[misc]
            tracker.aux_reports.clear()
        running_maps = tracker.running_maps
        running_reduces = tracker.running_reduces
        if running_maps != tracker.status_maps or running_reduces != tracker.status_reduces:
            self._refresh_status(tracker)
        tracker.hb_requested = False
        if self.before_assign and (running_maps < tracker.map_slots or running_reduces < tracker.reduce_slots):
            for assign_hook in self.before_assign:
                assign_hook(tracker, now)
            running_maps = tracker.running_maps
            running_reduces = tracker.running_reduces
            if running_maps != tracker.status_maps or running_reduces != tracker.status_reduces:
                self._refresh_status(tracker)
        if running_maps < tracker.map_slots or running_reduces < tracker.reduce_slots:
            if self.assign_first is not None and self.assign_first(tracker, now):
                assigned = 1  # e.g. Hadoop does not call the scheduler in a heartbeat that got a setup/cleanup task
            else:
                assigned = self.scheduler.assign_tasks(tracker)
        else:
            assigned = 0
        if tracker.next_hb != INF:
            return
        if self.naive:
            if self.jobs_done < len(self.jobs):
                self._schedule_heartbeat_k(tracker, tracker.hb_k + 1)
            return
        # After launching, the next heartbeat is still needed even with every slot busy: it reports the new
        # tasks as running (cluster status counts that other trackers' scheduling reads). A scheduler that
        # declined only for now (a condition other trackers can change) asks for it with request_heartbeat.
        if assigned or tracker.hb_requested:
            tracker.hb_requested = False
            if self.task_mode:
                if assigned:
                    self._schedule_heartbeat(tracker, now)
            else:
                self._schedule_heartbeat_k(tracker, tracker.hb_k + 1)

    def park_until_change(self, tracker: TrackerState) -> None:
        """Called by a scheduler inside ``assign_tasks`` when it declined only because of cluster-wide state:
        the tracker is parked until the cluster's reported running-task counts drop, a job is added, removed
        or updated, or a task is killed; then it heartbeats at its next regular time. Exact with respect to
        polling every heartbeat (the naive mode) for decisions that depend only on those quantities, e.g.
        FIFO's padding rule; far cheaper when a tracker would otherwise poll for a long time.
        """
        if not tracker.waiting_change:
            tracker.waiting_change = True
            self.change_waiters.append(tracker)

    def request_heartbeat(self, tracker: TrackerState) -> None:
        """Called by a scheduler inside ``assign_tasks`` when it declined for a reason that can change without
        any event the engine wakes trackers for (e.g. FIFO's padding, which depends on other trackers' status):
        the tracker then keeps its next regular heartbeat instead of being parked."""
        tracker.hb_requested = True

    # ----------------------------------------------------------------------------------------- completions

    def _apply_completion(self, tracker: TrackerState, gid: int, now: float) -> None:
        job = self.jobs[gid >> JOB_SHIFT]
        if self.attempt_failed is not None and self.attempt_failed(tracker, job, gid, now):
            return
        self.tasks_done += 1
        if gid & REDUCE_BIT:
            if job.live_reduces is not None:
                job.live_reduces.discard(gid & TASK_MASK)
            tracker.running_reduces -= job.reduce_width
            job.running_reduces -= 1
            job.finished_reduces += 1
            self.remaining_ready_reduces -= 1
            if job.reduce_req is not None:
                self.release(tracker, job.reduce_req)
        else:
            if job.live_maps is not None:
                job.live_maps.discard(gid & TASK_MASK)
            tracker.running_maps -= job.map_width
            job.running_maps -= 1
            job.finished_maps += 1
            self.remaining_maps -= 1
            if job.map_req is not None:
                self.release(tracker, job.map_req)
            finish = job.map_finish[gid & TASK_MASK]
            if finish > job.last_map_finish:
                job.last_map_finish = finish
            if job.finished_maps == job.n_maps:
                self._map_stage_done(job, now)
            if not job.reduces_ready and job.n_reduces and job.finished_maps >= job.slowstart_threshold:
                self._reduces_ready(job)
        if self.task_hook is not None:
            self.task_hook(job, tracker, bool(gid & REDUCE_BIT))
        if self.on_task_finished:
            for hook in self.on_task_finished:
                hook(job, tracker, gid)
        if job.finished_maps == job.n_maps and job.finished_reduces == job.n_reduces:
            self._tasks_done(job, now)

    def _map_stage_done(self, job: JobState, now: float) -> None:
        """Release first-wave reduces (SimMR's filler reduce gets its real first-shuffle duration)."""
        job.map_stage_done = True
        base = job.last_map_finish
        first = job.first_shuffle
        n_first = len(first)
        trackers = self.trackers
        schedule = self.schedule
        finish_model = self.finish_model
        for gid in job.waiting_reduces:
            i = gid & TASK_MASK
            tracker = trackers[job.reduce_tracker[i]]
            speed = tracker.speed
            shuffle_end = base + first[job.first_wave_count % n_first] / speed
            job.first_wave_count += 1
            if shuffle_end < now:
                shuffle_end = now
            if shuffle_end < job.reduce_shuffle_end[i]:  # a launch lag still running (see obtain_new_reduce_task)
                shuffle_end = job.reduce_shuffle_end[i]
            finish = shuffle_end + job.reduce_dur[i] / speed
            job.reduce_shuffle_end[i] = shuffle_end
            job.reduce_finish[i] = finish
            if finish_model is None:
                schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
            else:
                finish_model(job, tracker, gid)
        job.waiting_reduces = []

    def _reduces_ready(self, job: JobState) -> None:
        job.reduces_ready = True
        self.remaining_ready_reduces += job.n_reduces - job.finished_reduces
        self.scheduler.job_updated(job, JobChange.REDUCES_READY)
        if self.change_waiters:
            self._wake_change_waiters()
        self.wake_for_reduces()

    def _tasks_done(self, job: JobState, now: float) -> None:
        """Every map and reduce is reported: the scheduler forgets the job; it runs its cleanup task if the trace
        had one (``JobInProgress`` launches it once all TIPs are complete), else it is done."""
        if job.reduces_ready:
            self.remaining_ready_reduces -= job.n_reduces - job.finished_reduces
        self.remaining_maps -= job.n_maps - job.finished_maps
        del self.running_jobs[job.index]
        self.scheduler.job_removed(job)
        if self.change_waiters:
            self._wake_change_waiters()
        if self.hold_job_finish is None or not self.hold_job_finish(job, now):
            self.finish_job(job, now)

    def finish_job(self, job: JobState, now: float) -> None:
        job.finish_time = now
        self.jobs_done += 1
        if self.progress is not None:
            self.progress(self.jobs_done)
        for hook in self.on_job_done:
            hook(job)
        if self.jobs_done == len(self.jobs):
            # Only idle heartbeats can remain (naive mode): the replay is over.
            self.kernel.clear()
            for t in self.trackers:
                t.next_hb = INF

    # ----------------------------------------------------------------------------------------- scheduler API

    def obtain_new_map_task(self, job: JobState, tracker: TrackerState, locality: Locality = Locality.ANY) -> int:
        """Launch one of the job's pending maps on ``tracker`` now (``JobInProgress.obtainNew*MapTask``).

        ``locality`` caps how far the split may be: NODE (node-local only), RACK (node- or rack-local), ANY
        (anything, preferring local), NON_LOCAL (FIFO's second call: any pending map). Killed/failed tasks go
        first whatever the cap (``findNewMapTask`` step 1). Jobs without split locations known to the cluster
        have rack-local maps on every node (Hadoop's default single-rack topology): NODE and NON_LOCAL requests
        get nothing for them. Returns the locality level achieved, truthy when a map was launched: 1 node-local,
        2 rack-local (also every map of a job without known locations), 3 off-switch or a speculative backup;
        0 when nothing was launched. Cost: O(log events) amortised.
        """
        if job.maps_pending == 0:
            if self.offer_backup is not None and self.offer_backup(job, tracker, False, locality):
                return 3
            return 0
        req = job.map_req
        if req is not None and not self.fits(tracker, req):
            return 0
        if self.wide_maps and job.map_width > tracker.map_slots - tracker.running_maps:
            # A high-RAM map needs map_width free slots (CapacityTaskScheduler's MemoryMatcher); with wide tasks
            # about, a scheduler's own count of free slots (tasks) can be stale, so every map is checked then.
            return 0
        level = 2
        if job.dc_maps is not None:
            if locality == Locality.NODE or locality == Locality.NON_LOCAL:
                return 0  # within its datacenter every map is rack-local (no split locations there)
            i = placement.pick_in_datacenter(job, tracker, False)
            if i < 0:
                return 0
        elif job.requeued_maps:
            i = job.requeued_maps.pop()
        elif job.host_cache is None:
            if locality == Locality.NODE or locality == Locality.NON_LOCAL:
                return 0
            i = job.next_map
            job.next_map = i + 1
        else:
            i, level = locality_caches.pick_local_map(job, tracker, locality)
            if i < 0:
                return 0
            job.next_map += 1
        job.maps_pending -= 1
        if job.map_launched is not None:
            job.map_launched[i] = 1
            job.map_locality[i] = level
        now = self.kernel.now
        duration = job.map_dur[i] / tracker.speed
        if self.attempt_length is not None:
            lost = self.attempt_length(job, (job.index << JOB_SHIFT) | i)
            if lost >= 0.0:
                duration = lost / tracker.speed
        if level != 2 or job.host_cache is not None:
            if level == 2:
                duration *= self.rack_local_slowdown
            elif level == 3:
                duration *= self.off_switch_slowdown
        if self.launch_lag is not None:
            duration += self.launch_lag(job, tracker, 0)
        finish = now + duration
        self.last_task = i
        if req is not None:
            job.last_map_launch = now
            if job.reduces_held and job.maps_pending == 0:
                job.reduces_held = False  # every map has a container: the preempted reduces may ramp up again
                self.wake_for_reduces()
        job.map_start[i] = now
        job.map_finish[i] = finish
        job.map_tracker[i] = tracker.index
        if job.live_maps is not None:
            job.live_maps.add(i)
        job.running_maps += 1
        tracker.running_maps += job.map_width
        if req is not None:
            self.hold(tracker, req)
        if job.start_time < 0.0:
            job.start_time = now
        if self.finish_model is None:
            self.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, (job.index << JOB_SHIFT) | i)
        else:
            self.finish_model(job, tracker, (job.index << JOB_SHIFT) | i)
        if self.on_launch:
            for hook in self.on_launch:
                hook(job, tracker, (job.index << JOB_SHIFT) | i)
        return level

    def obtain_new_reduce_task(self, job: JobState, tracker: TrackerState) -> bool:
        """Launch the job's next reduce on ``tracker`` now, if slow start is met (``obtainNewReduceTask``)."""
        if job.reduces_pending == 0 or not job.reduces_ready:
            if self.offer_backup is not None and job.reduces_ready:
                return self.offer_backup(job, tracker, True, Locality.ANY)
            return False
        req = job.reduce_req
        if req is not None and (job.reduces_held or not self.fits(tracker, req)):
            return False
        if self.wide_reduces and job.reduce_width > tracker.reduce_slots - tracker.running_reduces:
            return False  # a high-RAM reduce needs reduce_width free slots (as for maps)
        if job.dc_reduces is not None:
            i = placement.pick_in_datacenter(job, tracker, True)
            if i < 0:
                return False
        elif job.requeued_reduces:
            i = job.requeued_reduces.pop()
        else:
            i = job.next_reduce
            job.next_reduce = i + 1
        job.reduces_pending -= 1
        now = self.kernel.now
        self.last_task = i
        gid = (job.index << JOB_SHIFT) | REDUCE_BIT | i
        job.reduce_start[i] = now
        job.reduce_tracker[i] = tracker.index
        if job.live_reduces is not None:
            job.live_reduces.add(i)
        job.running_reduces += 1
        tracker.running_reduces += job.reduce_width
        if req is not None:
            self.hold(tracker, req)
            if job.maps_pending and not job.hang_check:
                self._arm_hang_check(job, now)
        if job.start_time < 0.0:
            job.start_time = now
        lost = self.attempt_length(job, gid) if self.attempt_length is not None else -1.0
        lag = self.launch_lag(job, tracker, 1) if self.launch_lag is not None else 0.0
        if lost >= 0.0:  # a replayed failed attempt: holds the slot for its logged duration, then fails
            finish = now + lag + lost / tracker.speed
            job.reduce_shuffle_end[i] = finish
            job.reduce_finish[i] = finish
            if self.finish_model is None:
                self.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
            else:
                self.finish_model(job, tracker, gid)
        elif job.map_stage_done:
            speed = tracker.speed
            typical = job.typical_shuffle
            shuffle_end = now + lag + typical[job.typical_count % len(typical)] / speed
            job.typical_count += 1
            finish = shuffle_end + job.reduce_dur[i] / speed
            job.reduce_shuffle_end[i] = shuffle_end
            job.reduce_finish[i] = finish
            if self.finish_model is None:
                self.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
            else:
                self.finish_model(job, tracker, gid)
        else:
            job.waiting_reduces.append(gid)  # SimMR's filler: finish time set when the map stage ends
            if lag > 0.0:
                job.reduce_shuffle_end[i] = now + lag  # the shuffle cannot end before the attempt has started
        if self.on_launch:
            for hook in self.on_launch:
                hook(job, tracker, gid)
        return True

    # ----------------------------------------------------------------------------------------- resources, sites

    @staticmethod
    def fits(tracker: TrackerState, req: tuple[float, ...]) -> bool:
        """Whether a task requesting ``req`` fits in ``tracker``'s free resources now (resource clusters)."""
        free = tracker.free
        assert free is not None
        for r in range(len(req)):
            if req[r] > free[r] + 1e-9:
                return False
        return True

    @staticmethod
    def hold(tracker: TrackerState, req: tuple[float, ...]) -> None:
        free = tracker.free
        assert free is not None
        for r in range(len(req)):
            free[r] -= req[r]

    @staticmethod
    def release(tracker: TrackerState, req: tuple[float, ...]) -> None:
        """Give ``req`` back; an idle tracker is reset to its exact capacity (no floating-point drift)."""
        free = tracker.free
        assert free is not None and tracker.capacity is not None
        if tracker.running_maps == 0 and tracker.running_reduces == 0:
            free[:] = tracker.capacity
            return
        for r in range(len(req)):
            free[r] += req[r]

    def requeue_task(self, tracker: TrackerState, job: JobState, i: int, reduce: bool, wasted: float,
                     result: str = "KILLED") -> None:
        """The tail shared by every path that stops task ``i``'s running attempt on ``tracker`` and puts the task
        back at the front of its job's queue (a kill, a replayed failed attempt): free the slot and the resources,
        count the task pending again (in its datacenter too), charge ``wasted`` seconds, tell the scheduler and
        wake the trackers that may now run it. The attempt is recorded in :attr:`lost_attempts` as ``result``.
        Cost O(1) plus the wake-ups."""
        now = self.kernel.now
        self.lost_attempts.append((job.index, i, reduce, tracker.index, now - wasted, now, result))
        if reduce:
            tracker.running_reduces -= job.reduce_width
            job.running_reduces -= 1
            job.reduces_pending += 1
            job.requeued_reduces.append(i)
            job.reduce_start[i] = job.reduce_finish[i] = job.reduce_shuffle_end[i] = -1.0
            live, req = job.live_reduces, job.reduce_req
            if job.dc_reduces_pending is not None and job.reduce_dc is not None:
                job.dc_reduces_pending[job.reduce_dc[i]] += 1
        else:
            tracker.running_maps -= job.map_width
            job.running_maps -= 1
            job.maps_pending += 1
            job.requeued_maps.append(i)
            job.map_start[i] = job.map_finish[i] = -1.0
            live, req = job.live_maps, job.map_req
            if job.dc_maps_pending is not None and job.map_dc is not None:
                job.dc_maps_pending[job.map_dc[i]] += 1
        if live is not None:
            live.discard(i)
        if req is not None:
            self.release(tracker, req)
        job.wasted_s += wasted
        self.wasted_s += wasted
        self.scheduler.job_updated(job, JobChange.TASKS_REQUEUED)
        if self.change_waiters:
            self._wake_change_waiters()
        if reduce:
            self.wake_for_reduces()
        else:
            self.wake_for_maps()

    def _arm_hang_check(self, job: JobState, now: float) -> None:
        job.hang_check = True
        self.kernel.schedule(max(now, job.last_map_launch + self.reducer_preempt_delay), ORDER_TIMER,
                             EV_HANGING_MAPS, job.index, 0)

    def _on_hanging_maps(self, now: float, order: int, index: int, _b: int) -> None:
        """Reducer preemption for hanging map requests (Hadoop 2.8+ ``RMContainerAllocator
        .preemptReducersForHangingMapRequests``; resource clusters only, where maps and reduces share containers).

        A job whose reduces hold containers while its maps got none for ``reducer_preempt_delay`` seconds
        (``mapreduce.job.reducer.unconditional-preempt.delay.sec``, 300) kills its newest reduces, one per pending
        map at most, and launches no reduce again until every map has launched (simplification of the AM's ramp-up
        rules, documented). Without it, first-wave reduces waiting for maps can fill every container: a deadlock
        that real clusters break the same way. Armed only while a job has reduces running and maps pending, so it
        costs one event per delay per such job.
        """
        job = self.jobs[index]
        job.hang_check = False
        if job.finish_time >= 0.0 or index not in self.running_jobs or not job.maps_pending or not job.running_reduces:
            return
        due = job.last_map_launch + self.reducer_preempt_delay
        if now < due:
            self._arm_hang_check(job, now)
            return
        job.reduces_held = True
        for _ in range(min(job.maps_pending, job.running_reduces)):
            if self.kill_task(job, reduce=True) < 0.0:
                break
            self.reduces_preempted += 1

    def kill_task(self, job: JobState, reduce: bool) -> float:
        """Kill the job's most recently launched running map (or reduce) and put it back in the job's queue.

        Used for preemption (the Fair Scheduler kills the newest tasks of over-share pools). The slot is free at
        once (Hadoop frees it when the TaskTracker confirms the kill in its next heartbeat; approximation), the
        attempt's slot time so far is counted as wasted, and the task will run again from scratch. Returns the
        wasted seconds, or -1.0 when the job has no running task of that kind. Cost: O(tasks of the job) in the
        worst case (scans from the newest launch backwards); preemption is rare.
        """
        for hook in self.before_kill:
            hook()
        now = self.kernel.now
        starts = job.reduce_start if reduce else job.map_start
        finishes = job.reduce_finish if reduce else job.map_finish
        if reduce:
            top = job.n_reduces if job.dc_reduces is not None else job.next_reduce
        else:
            top = job.n_maps if job.map_launched is not None or job.dc_maps is not None else job.next_map
        requeued = job.requeued_reduces if reduce else job.requeued_maps  # skipped: not running
        victim = -1
        newest = -1.0
        for i in range(top - 1, -1, -1):
            start = starts[i]
            if start > newest and start >= 0.0 and (finishes[i] > now or (reduce and finishes[i] < 0.0)):
                if i in requeued:
                    continue
                victim, newest = i, start
        if victim < 0:
            return -1.0
        i = victim
        victim_gid = (job.index << JOB_SHIFT) | (REDUCE_BIT if reduce else 0) | i
        tracker_list = job.reduce_tracker if reduce else job.map_tracker
        tracker = self.trackers[tracker_list[i]]
        for kill_hook in self.on_kill:
            kill_hook(job, victim_gid, tracker.index)
        wasted = now - starts[i]
        tracker_list[i] = -1
        if reduce and victim_gid in job.waiting_reduces:
            job.waiting_reduces.remove(victim_gid)
        job.killed_tasks += 1
        self.killed_tasks += 1
        self.requeue_task(tracker, job, i, reduce, wasted)  # resets start/finish: tombstones the completion event
        self.wake(tracker)
        return wasted

    # ----------------------------------------------------------------------------------------- invariants

    def check_invariants(self) -> None:
        """Slot accounting and job counters are consistent, then every feature's own ``check_invariants``
        (``mrsim/engine/invariants.py``). Cost O(trackers + running tasks); for tests, run after every event."""
        invariants.check_invariants(self)
