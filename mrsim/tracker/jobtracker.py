"""The emulated JobTracker and TaskTracker heartbeat layer.

What happens, in Hadoop terms (``JobTracker.heartbeat``, ``TaskTracker.offerService``):

* **Job arrival** (``JobTracker.submitJob``): the job becomes RUNNING (at once, unless a feature holds it, e.g.
  for its setup task) and the scheduler's ``job_added`` hook runs.
* **Task finished** on a TaskTracker: the task stops running there, but the JobTracker learns of it only in
  that tracker's next heartbeat (or an immediate out-of-band one when
  ``mapreduce.tasktracker.outofband.heartbeat`` is true). Its slot is free from that heartbeat on.
* **Heartbeat** of a tracker: (1) apply its reported completions (finished counts, slow start, map-stage end,
  job completion); (2) if it has a free slot, call the scheduler's ``assign_tasks``; launched tasks start now.

Same-instant order (documented and tested): job arrivals, then task completions, then heartbeats in tracker
order. Each event class has its own ``order`` value in the kernel (0, 1 and 2 + tracker index).

**Heartbeat timing** (``mrsim/tracker/heartbeats.py``). Tracker *i* heartbeats on the grid ``phase_i + k *
interval``; a tracker with nothing to report or launch is *parked* (no event queued) until something can make it
useful, and then only its next grid heartbeat is queued. ``naive_heartbeats=True`` emits every heartbeat.

With ``interval = 0`` (``--heartbeat-interval off``) the engine runs SimMR's task-completion-driven mode: a
completion is applied at once and the tracker is offered work at the same instant, repeatedly while the
scheduler keeps launching.

**Reduce model** (SimMR III-B, ``mrsim/tracker/stages.py``): a reduce holds its slot from launch; first-wave
reduces learn when their shuffle ends when the job's map stage ends.

Where the rest lives: hooks (``hooks.py``), task selection and launch (``assignment.py``), job stages
(``stages.py``), kills (``preemption.py``), the heartbeat grid (``heartbeats.py``), bounded wake-ups
(``wakeups.py``), placement, locality caches and invariants; resource vectors and high-RAM tasks are a feature
(``features/resources.py``).
"""

from __future__ import annotations

from typing import Callable

from mrsim.tracker import invariants, placement, preemption, stages
from mrsim.tracker.assignment import launch_map, launch_reduce
from mrsim.tracker.events import (EV_HEARTBEAT, EV_JOB_ARRIVAL, EV_TASK_DONE, EV_TIMER, ORDER_HEARTBEAT,
                                 ORDER_JOB_ARRIVAL, ORDER_TIMER)
from mrsim.tracker.heartbeats import next_grid_k, refresh_status, report, schedule_at, schedule_grid, wake_free
from mrsim.tracker.hooks import CallAssign, EngineHooks
from mrsim.tracker.kernel import CallEnd, EndOfEvents, EventSink, Kernel
from mrsim.tracker.locality import LocalityMode
from mrsim.tracker.scheduling import Locality, TaskScheduler
from mrsim.tracker.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState
from mrsim.tracker.wakeups import BoundedWakes
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from mrsim.rng import stream


class JobTracker(EngineHooks):
    """One replay's live state and event handlers. Build with :func:`mrsim.tracker.replay.replay`.

    The hooks features attach to are declared in :class:`mrsim.tracker.hooks.EngineHooks`."""

    def __init__(self, workload: Workload, cluster: ClusterSpec, conf: HadoopConf, scheduler: TaskScheduler,
                 *, heartbeat_interval: float | None = None, naive_heartbeats: bool = False, seed: int = 0,
                 aligned_heartbeats: bool = False, locality: LocalityMode | None = None,
                 rack_local_slowdown: float = 1.0, off_switch_slowdown: float = 1.0,
                 bounded_wakes: bool | None = None) -> None:
        self.workload = workload
        self.cluster = cluster
        self.conf = conf
        self.scheduler = scheduler
        super().__init__(Kernel())
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
        self.site_slots = placement.tracker_sites(self.trackers, cluster)
        # Resource-vector clusters (the resources feature): resource names (sorted) and the default requests.
        self.resource_names: tuple[str, ...] = cluster.resource_names
        self.default_requests = (cluster.default_request(False), cluster.default_request(True))
        self.reduces_preempted = 0  # by the reducer preemption feature (kept here: the summary's key order)
        self.scheduler_wakes = bool(getattr(scheduler, "wakes_own_trackers", False))  # see TaskScheduler
        origin = workload.origin_s
        self.jobs = [JobState(i, tmpl, tmpl.submit_s - origin, conf.slowstart_completed_maps)
                     for i, tmpl in enumerate(workload.jobs)]
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
        self.pending_maps = self.pending_ready_reduces = 0  # unlaunched tasks of RUNNING jobs (wakeups.py)
        self.bounded_wakes = bounded_wakes  # None: from BOUNDED_WAKES_FROM_TRACKERS trackers on (wakeups.py)
        self.wakes: BoundedWakes | None = None
        self.hb_current: TrackerState | None = None  # the tracker whose heartbeat is running (bounded wake-ups)
        self.keep_task_results, self.locality_counts = True, [0, 0, 0, 0]  # ReplayOptions.task_results
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
        self.failed_attempts_replayed = 0  # counted by the failed-attempt replay (mrsim.tracker.features.failures)
        self.speculative_maps = conf.map_speculative
        self.speculative_reduces = conf.reduce_speculative
        self.spec_attempts = self.spec_wins = 0
        self.progress: Callable[[int], None] | None = None
        #: index of the task the last successful ``obtain_new_*_task`` call launched (for schedulers that track
        #: attempts; a speculative backup does not set it)
        self.last_task = -1
    # ----------------------------------------------------------------------------------------- running

    def run(self, after_event: Callable[[], None] | None = None) -> None:
        """Replay the whole workload to completion."""
        kernel = self.kernel
        for submit, index in [(j.submit, j.index) for j in self.jobs]:  # a loop variable would keep a job alive
            kernel.schedule(submit, ORDER_JOB_ARRIVAL, EV_JOB_ARRIVAL, index, 0)
        if self.naive:
            for t in self.trackers:
                schedule_grid(self, t, 0)
        self.scheduler.start(self)
        if "assign_tasks" not in self.hook_owners:  # the plug-in registered no compiled heartbeat of its own
            self.assign_tasks = CallAssign(self.scheduler.assign_tasks)  # looked up once, after start
        wakes = BoundedWakes(self) if BoundedWakes.applies(self) else None
        self.wakes = wakes
        kernel.register(EV_JOB_ARRIVAL, JobArrivals(self))
        kernel.register(EV_TASK_DONE, TaskCompletions(self))
        kernel.register(EV_HEARTBEAT, Heartbeats(self) if wakes is None else BoundedHeartbeats(wakes))
        kernel.register(EV_TIMER, Timers(self))
        ends = list(self.after_event)
        if after_event is not None:
            ends.append(CallEnd(after_event))
        kernel.run(None if not ends else ends[0] if len(ends) == 1 else EndOfEvents(ends))

    @property
    def now(self) -> float:
        return self.kernel.now

    # ----------------------------------------------------------------------------------------- heartbeats

    def wake(self, tracker: TrackerState) -> None:
        """Make sure ``tracker`` has a heartbeat queued (its next grid time, or now in task mode)."""
        if tracker.next_hb != INF:
            return
        now = self.kernel.now
        if self.task_mode:
            schedule_at(self, tracker, now)
        else:
            k = next_grid_k(tracker.phase, self.interval, now, ORDER_HEARTBEAT + tracker.index, self.kernel.order)
            schedule_grid(self, tracker, k)

    def wake_for_maps(self) -> None:
        wake_free(self, False)

    def wake_for_reduces(self) -> None:
        wake_free(self, True)

    def wake_all(self) -> None:
        """For schedulers whose state changed in a way the engine cannot see (e.g. a timer expired)."""
        wake_free(self, None)

    # ----------------------------------------------------------------------------------------- handlers

    def _on_job_arrival(self, now: float, order: int, index: int, _b: int) -> None:
        stages.job_arrived(self, self.jobs[index], now)

    def job_running(self, job: JobState, now: float) -> None:
        """The job is RUNNING: the scheduler sees it from now on (for features that held its start)."""
        stages.job_running(self, job, now)

    def finish_job(self, job: JobState, now: float) -> None:
        """The job is done (for features that held its finish, e.g. after its cleanup task)."""
        stages.finish_job(self, job, now)

    def _on_task_done(self, now: float, order: int, tracker_index: int, gid: int) -> None:
        job = self.jobs[gid >> JOB_SHIFT]
        if job.finish_time >= 0.0 or (job.reduce_finish if gid & REDUCE_BIT else job.map_finish)[gid & TASK_MASK] != now:
            return  # the attempt was killed (tombstone), or its job is done: a backup won (arrays may be freed)
        if self.on_attempt_end:
            for hook in self.on_attempt_end:
                hook(job, gid, now)
        report(self, self.trackers[tracker_index], gid, now)

    def task_done(self, now: float, order: int, tracker_index: int, gid: int) -> None:
        """Task ``gid`` ended on that tracker at ``now`` (its ``*_finish`` entry must equal ``now``, else it is a
        stale completion); for a feature that set :attr:`finish_model`. (Compiled classes cannot alias methods.)"""
        self._on_task_done(now, order, tracker_index, gid)

    def report_completion(self, tracker: TrackerState, gid: int, now: float, aux_kind: int = -1) -> None:
        """Task ``gid`` ended on ``tracker`` at ``now`` by a feature's own event (a speculative backup; with
        ``aux_kind`` 2 or 3 a setup / cleanup task, code ``gid``, applied by :attr:`apply_aux`): report it as any
        completion (at once in task mode, else in the tracker's next or an out-of-band heartbeat)."""
        report(self, tracker, gid, now, aux_kind)

    def schedule_timer(self, time: float, token: int = 0) -> None:
        """Call ``scheduler.on_timer(now, token)`` at ``time`` (before any other event of that instant).

        For scheduler logic that runs on its own clock in Hadoop (the Fair Scheduler's update thread and
        preemption checks, delay-scheduling waits). Timers after the last job finishes are dropped.
        """
        self.kernel.schedule(max(time, self.kernel.now), ORDER_TIMER, EV_TIMER, token, 0)

    def _on_timer(self, now: float, order: int, token: int, _b: int) -> None:
        self.scheduler.on_timer(now, token)

    def _on_heartbeat(self, now: float, order: int, tracker_index: int, stamp: int) -> None:
        tracker = self.trackers[tracker_index]
        if self.on_heartbeat:
            for hb_hook in self.on_heartbeat:
                hb_hook.heartbeat(tracker)
        if stamp != tracker.hb_stamp:
            return  # superseded by an out-of-band heartbeat
        tracker.next_hb = INF
        self.heartbeats += 1
        reports = tracker.reports
        if reports:
            for gid in reports:  # a direct call (compiled): a bound method kept in a local is a Python-level call
                self._apply_completion(tracker, gid, now)
            reports.clear()
        if tracker.aux_reports:
            for code in tracker.aux_reports:
                self.apply_aux.apply_aux(tracker, code, now)
            tracker.aux_reports.clear()
        running_maps = tracker.running_maps
        running_reduces = tracker.running_reduces
        if running_maps != tracker.status_maps or running_reduces != tracker.status_reduces:
            refresh_status(self, tracker)
        tracker.hb_requested = False
        if self.before_assign and (running_maps < tracker.map_slots or running_reduces < tracker.reduce_slots):
            for assign_hook in self.before_assign:
                assign_hook(tracker, now)
            running_maps = tracker.running_maps
            running_reduces = tracker.running_reduces
            if running_maps != tracker.status_maps or running_reduces != tracker.status_reduces:
                refresh_status(self, tracker)
        if running_maps < tracker.map_slots or running_reduces < tracker.reduce_slots:
            if self.assign_first is not None and self.assign_first(tracker, now):
                assigned = 1  # e.g. Hadoop does not call the scheduler in a heartbeat that got a setup/cleanup task
            else:
                assigned = self.assign_tasks.assign_tasks(tracker)
        else:
            assigned = 0
        if tracker.next_hb != INF:
            return
        if self.naive:
            if self.jobs_done < len(self.jobs):
                schedule_grid(self, tracker, tracker.hb_k + 1)
            return
        # After launching, the next heartbeat is still needed even with every slot busy: it reports the new
        # tasks as running (cluster status counts that other trackers' scheduling reads). A scheduler that
        # declined only for now (a condition other trackers can change) asks for it with request_heartbeat.
        if assigned or tracker.hb_requested:
            tracker.hb_requested = False
            if self.task_mode:
                if assigned and not self.scheduler_wakes:  # a waking scheduler wakes it if it has more
                    schedule_at(self, tracker, now)
            else:
                schedule_grid(self, tracker, tracker.hb_k + 1)

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
            if self.release_resources is not None:
                self.release_resources(job, tracker, True)
        else:
            if job.live_maps is not None:
                job.live_maps.discard(gid & TASK_MASK)
            tracker.running_maps -= job.map_width
            job.running_maps -= 1
            job.finished_maps += 1
            self.remaining_maps -= 1
            if self.release_resources is not None:
                self.release_resources(job, tracker, False)
            finish = job.map_finish[gid & TASK_MASK]
            if finish > job.last_map_finish:
                job.last_map_finish = finish
            if job.finished_maps == job.n_maps:
                stages.map_stage_done(self, job, now)
            if not job.reduces_ready and job.n_reduces and job.finished_maps >= job.slowstart_threshold:
                stages.reduces_ready(self, job)
        if self.task_hook is not None:
            self.task_hook(job, tracker, bool(gid & REDUCE_BIT))
        if self.on_task_finished:
            for hook in self.on_task_finished:
                hook(job, tracker, gid)
        if job.finished_maps == job.n_maps and job.finished_reduces == job.n_reduces:
            stages.tasks_done(self, job, now)

    # ----------------------------------------------------------------------------------------- scheduler API

    def obtain_new_map_task(self, job: JobState, tracker: TrackerState, locality: Locality = Locality.ANY) -> int:
        """Launch one of the job's pending maps on ``tracker`` now (``JobInProgress.obtainNew*MapTask``).

        ``locality`` caps how far the split may be: NODE (node-local only), RACK (node- or rack-local), ANY
        (anything, preferring local), NON_LOCAL (FIFO's second call: any pending map). Killed/failed tasks go
        first whatever the cap (``findNewMapTask`` step 1). Jobs without split locations known to the cluster
        have rack-local maps on every node (Hadoop's default single-rack topology): NODE and NON_LOCAL requests
        get nothing for them. Returns the locality level achieved, truthy when a map was launched: 1 node-local,
        2 rack-local (also every map of a job without known locations), 3 off-switch or a speculative backup;
        0 when nothing was launched. Cost: O(log events) amortised
        (``mrsim/tracker/assignment.py``).
        """
        return launch_map(self, job, tracker, locality)

    def obtain_new_reduce_task(self, job: JobState, tracker: TrackerState) -> bool:
        """Launch the job's next reduce on ``tracker`` now, if slow start is met (``obtainNewReduceTask``)."""
        return launch_reduce(self, job, tracker)

    def fits(self, tracker: TrackerState, req: tuple[float, ...]) -> bool:
        """Whether a task requesting ``req`` fits in ``tracker``'s free resources now (the resources feature's
        :attr:`fits_request`; True without resource vectors)."""
        return self.fits_request is None or self.fits_request(tracker, req)

    # ----------------------------------------------------------------------------------------- kills

    def kill_task(self, job: JobState, reduce: bool) -> float:
        """Kill the job's newest running map (or reduce) and requeue it; the wasted seconds, or -1.0 when none
        runs (``mrsim/tracker/preemption.py``). For schedulers that preempt."""
        return preemption.kill_task(self, job, reduce)

    def requeue_task(self, tracker: TrackerState, job: JobState, i: int, reduce: bool, wasted: float,
                     result: str = "KILLED") -> None:
        """Stop task ``i``'s running attempt on ``tracker`` and requeue the task, charging ``wasted`` seconds and
        recording the attempt as ``result`` (``mrsim/tracker/preemption.py``). For features (failed attempts)."""
        preemption.requeue_task(self, tracker, job, i, reduce, wasted, result)

    # ----------------------------------------------------------------------------------------- invariants

    def check_invariants(self) -> None:
        """Slot accounting and job counters are consistent, then every feature's own ``check_invariants``
        (``mrsim/tracker/invariants.py``). Cost O(trackers + running tasks); for tests, run after every event."""
        invariants.check_invariants(self)


# ------------------------------------------------------------------------------------------------- event handlers
# The kernel's table entries for the core's four kinds (``mrsim/tracker/events.py``): each calls one handler of
# the JobTracker (compiled: C calls through the vtables, the payloads as machine values).


class JobArrivals(EventSink):
    def __init__(self, jt: JobTracker) -> None:
        self.jt = jt

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.jt._on_job_arrival(time, order, a, b)


class TaskCompletions(EventSink):
    def __init__(self, jt: JobTracker) -> None:
        self.jt = jt

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.jt._on_task_done(time, order, a, b)


class Heartbeats(EventSink):
    def __init__(self, jt: JobTracker) -> None:
        self.jt = jt

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.jt._on_heartbeat(time, order, a, b)


class BoundedHeartbeats(EventSink):
    """Heartbeats on large clusters, through the bounded wake-ups (``mrsim/tracker/wakeups.py``)."""

    def __init__(self, wakes: BoundedWakes) -> None:
        self.wakes = wakes

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.wakes.heartbeat(time, order, a, b)


class Timers(EventSink):
    def __init__(self, jt: JobTracker) -> None:
        self.jt = jt

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.jt._on_timer(time, order, a, b)
