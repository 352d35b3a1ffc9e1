"""The emulated ResourceManager: a feature of the JobTracker core (``docs/architecture.md``, "YARN mode on the core").

YARN mode runs on the one JobTracker core: the core owns the event loop (the kernel), job arrivals (a
submission is the core's job arrival), the NodeManagers' heartbeats (each NodeManager is a core tracker: its
heartbeat is the core's tracker heartbeat on the core's grid, parked and woken by the core's rules) and the
reporting of a finished container in its node's next heartbeat (``jt.report_completion``, applied by the
``apply_aux`` hook before the scheduler runs). This module adds what YARN has and Hadoop 1 does not, on the core's
hooks:

* ``hold_job_start``: a submitted job is the RM's (``RMAppImpl`` accepted): its ApplicationMaster container is asked
  for, and the job runs through its MR AM (:mod:`mrsim.tracker.yarn.appmaster`), never through the core's slots;
* ``apply_aux``: a container exit the node reports frees its memory and vcores (``RMNodeImpl`` status update);
* the core's scheduler plug-in is :class:`mrsim.tracker.yarn.heartbeat.NodeUpdates`: at a NodeManager heartbeat it
  calls :meth:`ResourceManager.node_heartbeat`, the YARN scheduler's ``nodeUpdate`` container by container;
* its own events (``register_event``): container exits, AM starts, AM allocates (their own grid, ``start + k x
  interval``, with the core's grid rule ``heartbeats.next_grid_k``) and job commits.

Same-instant order (``mrsim/tracker/events.py``): submissions (job arrivals), container exits (with task
completions), AM starts and allocates (``ORDER_APP_MASTER``), then NodeManager heartbeats in node order. So a
container allocated in a NodeManager heartbeat at time *t* reaches its AM at the AM's first allocate *after* t, and
asks sent in an allocate at *t* can be served by heartbeats at *t*.

NodeManager heartbeats that cannot change anything are not simulated (the core parks trackers): a node keeps
heartbeating only while it has exited containers to report (the core's rule for reports) or some application has
outstanding asks and the node has room for a minimum allocation (:meth:`node_heartbeat` asks the core for its next
heartbeat, ``jt.request_heartbeat``). New asks wake parked nodes with room (``jt.wake``). Schedulers count missed
scheduling opportunities only in heartbeats that offer room to an app with asks, so parking does not change their
decisions. AM allocates are parked the same way: an AM with nothing to send or receive skips its allocates until a
task completion (reported to it at once) or a new container wakes it for its next regular allocate. Two decisions
depend on headroom, which other applications change: reduce preemption (possible only while the AM has maps
asked, reduces running and no map running; such an AM allocates every interval, :attr:`MRAppMaster.must_poll`)
and the reduce ramp-up limit (:attr:`MRAppMaster.ramping`): a ramping AM is parked until the cluster's free memory
rises by at least one minimum allocation above its lowest level since the AM parked. That is an approximation of
polling every second (ramp-down on a falling headroom is seen at the AM's next wake-up); ``poll_ams=True`` polls
instead.
"""

from __future__ import annotations

from typing import Any, Callable, Final

from mrsim.tracker.events import EV_JOB_ARRIVAL, ORDER_APP_MASTER, ORDER_TASK_DONE
from mrsim.tracker.heartbeats import next_grid_k
from mrsim.tracker.hooks import TaskAssigner
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.kernel import EventSink, Kernel
from mrsim.tracker.state import JobState, TrackerState
from mrsim.tracker.yarn.appmaster import MRAppMaster
from mrsim.tracker.yarn.config import YarnConf
from mrsim.tracker.yarn.nodemanager import AM, INF, MAP, REDUCE, Container, NodeManager
from mrsim.tracker.yarn.schedulers.base import (PRIORITY_AM, PRIORITY_MAP, PRIORITY_REDUCE, Ask, SchedulerApp,
                                               YarnScheduler)
from mrsim.tracker.yarn.timeseries import QueueSeries, QueueStats
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import Workload
from mrsim.rng import stream

ORDER_EXIT: Final = ORDER_TASK_DONE
ORDER_AM: Final = ORDER_APP_MASTER
#: ``aux_kind`` of a container exit reported through the core (``jt.report_completion``; 2 and 3 are MR1's
#: setup and cleanup tasks)
AUX_CONTAINER_EXIT: Final = 4


class ResourceManager:
    """One YARN replay's live state, a feature of the JobTracker core (:meth:`attach`). Build and run with
    :func:`mrsim.tracker.yarn.replay.replay_yarn`. The kernel's sink for its own event kinds (:meth:`handle`)."""

    keeps_pending = True  # SchedulerApp.pending_mb is kept at every change (schedulers may rely on it)
    jt: JobTracker  # the core this RM is attached to, and its kernel (attach)
    kernel: Kernel

    def __init__(self, workload: Workload, cluster: ClusterSpec, conf: YarnConf, scheduler: YarnScheduler, *,
                 seed: int = 0, aligned_heartbeats: bool = False, job_overheads: bool = True,
                 queue_series: bool = True, rack_local_slowdown: float = 1.0, off_switch_slowdown: float = 1.0,
                 locality: str = "auto", poll_ams: bool = False, commit_s: list[float] | None = None) -> None:
        self.workload = workload
        # per app (workload order): the AM's job-commit tail after its last task, s (None: no calibration, every
        # job finishes with its last task; mrsim.tracker.yarn.calibration)
        self.commit_s = commit_s
        self.cluster = cluster
        self.conf = conf
        self.scheduler = scheduler
        self.job_overheads = job_overheads
        self.rack_local_slowdown = rack_local_slowdown
        self.off_switch_slowdown = off_switch_slowdown
        n = len(cluster.trackers)
        interval = conf.nm_heartbeat_s
        # the NodeManagers' heartbeat phases (their own seeded stream; the core's trackers take them in attach)
        self.phases: list[float] = ([0.0] * n if aligned_heartbeats
                                    else stream(seed, "nm-heartbeat-phases").uniform(0.0, interval, n).tolist())
        names = cluster.resource_names
        self.nodes: list[NodeManager] = []
        for i, t in enumerate(cluster.trackers):
            mem = t.capacity("memory_mb") if "memory_mb" in names else conf.nm_memory_mb
            vcores = t.capacity("vcores") if "vcores" in names else conf.nm_vcores
            self.nodes.append(NodeManager(i, t.name, t.rack, float(mem), float(vcores), t.speed))
        # floats (a sum from 0.0: from 0, its type would be int | float, which compiled code keeps boxed)
        self.cluster_mem = sum((nd.mem for nd in self.nodes), 0.0)
        self.cluster_vcores = sum((nd.vcores for nd in self.nodes), 0.0)
        self.free_mem = self.cluster_mem
        self.free_vcores = self.cluster_vcores
        hosts = {nd.name for nd in self.nodes}
        host_rack = {nd.name: nd.rack for nd in self.nodes}
        self.use_locality = locality != "off"
        self.lag_rng = stream(seed, "container-launch-lag")
        # the task launch lag when it is a constant (no draw from the seeded stream), read without a call
        self.lag_sampled = bool(conf.task_launch_lag.samples)
        self.lag_constant: float = 0.0 if self.lag_sampled else conf.task_launch_lag.constant_s
        self.apps: list[SchedulerApp] = []
        self.ams: list[MRAppMaster] = []
        origin = workload.origin_s
        for i, tmpl in enumerate(workload.jobs):
            raw = tmpl.extra.get("properties")
            props: dict[str, str] | None = raw if isinstance(raw, dict) else None
            sizes = conf.job_sizes(props, tmpl.extra)
            for kind in ("am", "map", "reduce"):
                mem, vc = sizes[kind]
                if not any(nd.mem >= mem and nd.vcores >= vc for nd in self.nodes):
                    raise InputError(f"job {tmpl.job_id}: its {kind} container needs {mem:g} MB and {vc:g} vcores, "
                                     f"which no NodeManager has")
            # an empty queue name is kept: the Fair Scheduler rejects it (Capacity and FIFO read it as "default")
            queue = tmpl.queue if tmpl.queue is not None else "default"
            app = SchedulerApp(i, tmpl.job_id, tmpl.user or "default", queue, tmpl.submit_s - origin, sizes["am"])
            if locality == "off":
                tmpl_hosts: set[str] = set()
            elif locality == "on":
                tmpl_hosts = hosts
            else:  # auto: only jobs whose splits name cluster hosts
                tmpl_hosts = hosts
            self.apps.append(app)
            self.ams.append(MRAppMaster(app, tmpl, sizes, conf.job_slowstart(props), tmpl_hosts, host_rack))
        self.outstanding = 0  # containers asked for and not yet allocated, over all apps
        self.min_mem, self.min_vcores = conf.min_mb, conf.min_vcores
        # settings read per container or per allocate, as typed attributes (YarnConf is an interpreted dataclass)
        self.am_interval: float = conf.am_heartbeat_s
        self.rampup_limit: float = conf.rampup_limit
        self.preemption_limit: float = conf.preemption_limit
        self.memory_only = scheduler.memory_only
        self.apps_done = 0
        self.allocates = 0
        self.containers = 0
        self.trackers: list[TrackerState] = []  # the core's trackers, one per NodeManager (attach)
        self.ev_exit = self.ev_am_start = self.ev_allocate = self.ev_commit = -1  # event kinds (attach)
        self.progress_kinds: frozenset[int] = frozenset()
        self.killed = 0
        self.wasted_s = 0.0
        self.released_unused = 0
        # containers whose exit is queued or not yet reported, by exit slot (the exit event's payload): a slot is
        # reused once its event popped and its report was applied, so slots stay small ints (no dict, no boxing)
        self._exiting: list[Container | None] = []
        self._free_slots: list[int] = []
        self.am_containers: dict[int, Container] = {}
        self.poll_ams = poll_ams
        self.running_tasks = 0  # map/reduce containers held (AMs not counted)
        self.last_progress = 0.0  # last allocation or task exit
        # no allocation or task exit for this long, and nothing queued that could change that: a deadlock (delay
        # scheduling waits at most one missed opportunity per heartbeat, far less than this)
        self.stall_after = 600.0 * max(conf.nm_heartbeat_s, conf.am_heartbeat_s)
        self.stalled = False
        self.ramp_waiters: list[MRAppMaster] = []
        self.free_low = INF  # lowest free cluster memory since the ramp waiters parked
        # per queue: its totals (kept at every change, read by the time series: QueueStats); a change marks the
        # queue for the next sample (QueueSeries.mark, inlined)
        self.qstats: dict[str, QueueStats] = {}
        self.series = QueueSeries(self) if queue_series else None
        self.dirty_stats: list[QueueStats] = self.series.dirty if self.series is not None else []
        self.progress: Callable[[int], None] | None = None
        # the core's compiled calls into this RM: each NodeManager heartbeat and each reported container exit
        self.node_calls = NodeHeartbeats(self)

    # ------------------------------------------------------------------------------------------ running

    def attach(self, jt: JobTracker) -> None:
        """Join the core: NodeManagers are its trackers (their phases, one nominal slot each so that every heartbeat
        reaches :meth:`node_heartbeat`), submissions its job arrivals, exits its reported completions."""
        if jt.interval != self.conf.nm_heartbeat_s or len(jt.trackers) != len(self.nodes):
            raise ValueError("the JobTracker must have one tracker per NodeManager and the NodeManager heartbeat")
        self.jt = jt
        self.kernel = jt.kernel
        self.trackers = jt.trackers
        for tracker, phase in zip(jt.trackers, self.phases):
            tracker.phase = phase
            # no slots on YARN: the core offers a heartbeat to its scheduler while a slot is free, and nothing
            # occupies this one (containers are the NodeManager's memory and vcores)
            tracker.map_slots, tracker.reduce_slots = 1, 0
        # release_reported, called directly by the core (NodeHeartbeats)
        jt.register(self, hold_job_start=self.submit, apply_aux=self.node_calls)
        # each kind's handler calls the RM's method for it (compiled: C calls, the payloads as machine values)
        self.ev_exit = jt.register_event(ContainerExits(self))
        self.ev_am_start = jt.register_event(AmStarts(self))
        self.ev_allocate = jt.register_event(AmAllocates(self))
        # an AM's next regular allocate is one interval after the one being handled, so these are pushed in key
        # order and wait in a lane (O(1)) rather than in the heap with the container exits (kernel.add_lane)
        self.kernel.add_lane(self.ev_allocate)
        self.ev_commit = jt.register_event(AmCommits(self))
        self.progress_kinds = frozenset({EV_JOB_ARRIVAL, self.ev_exit, self.ev_am_start, self.ev_commit})

    def start(self) -> None:
        """The run starts (the core's ``scheduler.start``): start the YARN scheduler."""
        self.scheduler.start(self)

    def finish(self) -> None:
        """The run is over: close the per-queue series."""
        if self.series is not None:
            self.series.finish(self.kernel.now)

    @property
    def heartbeats(self) -> int:
        """NodeManager heartbeats handled (the core's tracker heartbeats)."""
        return self.jt.heartbeats

    @property
    def now(self) -> float:
        return self.kernel.now

    def task_lag(self) -> float:
        """A task container's launch lag, s: drawn from the seeded stream when calibrated with samples."""
        if not self.lag_sampled:
            return self.lag_constant
        lag = self.conf.task_launch_lag
        if lag.samples:
            return float(lag.samples[int(self.lag_rng.integers(len(lag.samples)))])
        return lag.constant_s

    def am_lag(self) -> float:
        lag = self.conf.am_launch_lag
        if lag.samples:
            return float(lag.samples[int(self.lag_rng.integers(len(lag.samples)))])
        return lag.constant_s

    # ------------------------------------------------------------------------------------------ heartbeats

    def wake_node(self, node: NodeManager) -> None:
        """Queue the node's next heartbeat on its grid unless one is queued (the core's ``wake``)."""
        self.jt.wake(self.trackers[node.index])

    def kernel_busy(self) -> bool:
        """Whether an event that can make progress is queued: a submission, a container exit or an AM start
        (heartbeats and allocates alone only poll). O(queued events); called only after ``stall_after`` seconds
        without an allocation or a task exit."""
        return self.kernel.has_pending(self.progress_kinds)

    def has_room(self, node: NodeManager) -> bool:
        """Room for a minimum allocation (by memory alone under a memory-only scheduler)."""
        return node.free_mem >= self.min_mem and (self.memory_only or node.free_vcores >= self.min_vcores)

    def wake_nodes_with_room(self) -> None:
        jt = self.jt
        for tracker in self.trackers:
            if tracker.next_hb == INF and self.has_room(self.nodes[tracker.index]):
                jt.wake(tracker)

    def _schedule_allocate(self, am: MRAppMaster, k: int) -> None:
        am.alloc_k = k
        am.stamp += 1
        t = am.start + k * self.am_interval
        am.next_alloc = t
        self.kernel.schedule(t, ORDER_AM, self.ev_allocate, am.app.index, am.stamp)

    def wake_am(self, am: MRAppMaster) -> None:
        """Queue the AM's next allocate after now, on its allocate grid (``heartbeats.next_grid_k``, the grid rule of
        every heartbeat in mrsim)."""
        if am.next_alloc != INF or am.start < 0 or am.finish >= 0:
            return
        kernel = self.kernel
        now = kernel.now
        phase = am.start
        interval = self.am_interval
        k = next_grid_k(phase, interval, now, ORDER_AM, kernel.order)
        if k < 1:
            k = 1
        am.alloc_k = k
        am.stamp += 1
        t = phase + k * interval
        am.next_alloc = t
        kernel.schedule(t, ORDER_AM, self.ev_allocate, am.app.index, am.stamp)

    # ------------------------------------------------------------------------------------------ handlers

    def submit(self, job: JobState, now: float) -> bool:
        """The core's ``hold_job_start``: the job arrived and is the RM's from now on (``RMAppImpl`` accepted): the
        scheduler places the app and the RM asks for its AM container (priority 0). The core never makes it
        RUNNING: its tasks run in containers its AM receives."""
        am = self.ams[job.index]
        am.joined(job)
        app = am.app
        if self.series is not None:
            self.series.touch(now)
        self.scheduler.add_app(app)
        limit = self.scheduler.container_limit(app)
        if limit is not None:
            self._check_container_limit(am, limit)
        found = self.qstats.get(str(app.queue))
        if found is None:
            q = app.stats = self.qstats[str(app.queue)] = QueueSeries.new_stats(str(app.queue))
            q.marked = self.series is None  # marked for good: nothing samples it
        else:
            q = app.stats = found
        if not q.marked:
            q.marked = True
            self.dirty_stats.append(q)
        q.pending_apps += 1
        q.pending_mb += app.am_mem
        q.pending_vcores += app.am_vcores
        q.pending_containers += 1
        ask = app.ask(PRIORITY_AM, app.am_mem, app.am_vcores)
        ask.total += 1
        app.pending_mb += app.am_mem
        if app.runnable:
            self.outstanding += 1
            if self.outstanding == 1:
                self.wake_nodes_with_room()
        return True

    @staticmethod
    def _check_container_limit(am: MRAppMaster, limit: tuple[float, float, str]) -> None:
        """A container larger than its queue allows is refused (``SchedulerUtils.normalizeAndValidateRequest``
        against the queue's maximum): the app is rejected at submission (its AM) or its AM fails (a task's)."""
        mem, vcores, queue = limit
        app = am.app
        tmpl = am.template
        for kind, (need_mem, need_vc), n in (("AM", (app.am_mem, app.am_vcores), 1), ("map", am.map_size, tmpl.n_maps),
                                             ("reduce", am.reduce_size, tmpl.n_reduces)):
            if n and (need_mem > mem + 1e-9 or need_vc > vcores + 1e-9):
                raise InputError(f"job {app.app_id}: its {kind} container of {need_mem:g} MB and {need_vc:g} vcores "
                                 f"exceeds the maxContainerAllocation of queue {queue} ({mem:g} MB, {vcores:g} "
                                 "vcores): rejected")

    def runnable_changed(self, app: SchedulerApp) -> None:
        """The scheduler may now (no longer) serve ``app``: its asks count (no longer count) as outstanding."""
        pending = app.pending_containers
        if not pending:
            return
        before = self.outstanding
        self.outstanding += pending if app.runnable else -pending
        if before == 0 and self.outstanding > 0:
            self.wake_nodes_with_room()

    def _on_exit(self, now: float, order: int, seq: int, _b: int) -> None:
        """A container exited (task done, killed, or the AM unregistered): its node reports it in its next heartbeat
        (the core's report: ``release_reported`` frees it there, before the scheduler runs). ``seq`` is the exit's
        slot (:meth:`_push_exit`)."""
        c = self._exiting[seq]
        assert c is not None
        if c.exit_seq != seq:
            self._exiting[seq] = None
            self._free_slots.append(seq)
            return  # superseded: the container was killed before this exit
        if c.kind != AM:
            self.running_tasks -= 1
            self.last_progress = now
            if not c.killed:
                self.ams[c.app].task_done(self, c, now)
        self.jt.report_completion(self.trackers[c.node], seq, now, AUX_CONTAINER_EXIT)

    def release_reported(self, tracker: TrackerState, seq: int, now: float) -> None:
        """The core's ``apply_aux``: the node's heartbeat reports the container that exited with ``seq``."""
        exiting = self._exiting
        c = exiting[seq]
        assert c is not None
        exiting[seq] = None
        self._free_slots.append(seq)
        self._release(self.nodes[c.node], c)

    def _on_am_start(self, now: float, order: int, index: int, _b: int) -> None:
        am = self.ams[index]
        am.start = now
        am.app.am_running = True
        am.request_all_maps()
        am.maps_done_trivially(self, now)
        self._schedule_allocate(am, 1)  # the allocator thread sleeps one interval before its first heartbeat

    def _on_allocate(self, now: float, order: int, index: int, stamp: int) -> None:
        am = self.ams[index]
        if stamp != am.stamp or am.finish >= 0:
            return
        am.next_alloc = INF
        self.allocates += 1
        am.allocate(self, now)
        if am.finish >= 0:
            return
        if am.outbox or am.allocated or am.must_poll or (self.poll_ams and am.ramping):
            if now - self.last_progress > self.stall_after and not am.outbox and not am.allocated \
                    and not self.kernel_busy():
                self.stalled = True  # polling that can change nothing: stop (see replay_yarn)
                return
            self._schedule_allocate(am, am.alloc_k + 1)
        elif am.ramping:
            self.ramp_waiters.append(am)
            if self.free_mem < self.free_low:
                self.free_low = self.free_mem

    def node_heartbeat(self, tracker: TrackerState) -> int:
        """A NodeManager heartbeat, after the core applied its reports (exited containers freed): the scheduler's
        ``nodeUpdate`` while an app has asks and the node has room; the node keeps heartbeating while that stays
        true (``jt.request_heartbeat``), else the core parks it. Then parked ramping AMs may wake. Returns 0, the
        core tasks launched (containers are not slots). :class:`mrsim.tracker.yarn.heartbeat.NodeUpdates` binds the
        plug-in's ``assign_tasks`` to :class:`NodeHeartbeats`, which calls this."""
        node = self.nodes[tracker.index]
        now = self.kernel.now
        if self.outstanding > 0 and self.has_room(node):
            before = self.containers
            self.scheduler.node_update(node)
            if self.containers != before:
                self.last_progress = now
            if self.outstanding > 0 and self.has_room(node):
                if now - self.last_progress > self.stall_after and not self.kernel_busy():
                    self.stalled = True  # nothing runs, nothing can be allocated: stop polling (see replay_yarn)
                    return 0
                self.jt.request_heartbeat(tracker)
        if self.ramp_waiters:
            if self.free_mem >= self.free_low + self.min_mem:
                waiters, self.ramp_waiters = self.ramp_waiters, []
                self.free_low = INF
                for am in waiters:
                    self.wake_am(am)
            elif self.free_mem < self.free_low:
                self.free_low = self.free_mem
        return 0

    def tasks_done(self, am: MRAppMaster, now: float) -> None:
        """The job's last task reported to its AM at ``now``: the AM commits the job (``CommitterEventHandler``)
        for its calibrated commit tail, keeping its container, then unregisters; without a tail, at once."""
        commit = self.commit_s[am.app.index] if self.commit_s is not None else 0.0
        if commit > 0.0:
            self.kernel.schedule(now + commit, ORDER_AM, self.ev_commit, am.app.index, 0)
        else:
            am.finish = now
            self.app_finished(am, now)

    def _on_commit(self, now: float, order: int, index: int, _b: int) -> None:
        """The AM committed the job and unregisters: the job finishes now."""
        am = self.ams[index]
        am.finish = now
        self.app_finished(am, now)

    # ------------------------------------------------------------------------------------------ containers

    def allocate(self, app: SchedulerApp, ask: Ask, node: NodeManager, locality: int) -> Container:
        """Called by schedulers: one container of ``ask`` on ``node`` at ``locality``."""
        if not self.use_locality:
            locality = 3
        ask.take(node.name, node.rack, locality)
        if app.runnable:
            self.outstanding -= 1
        kind = AM if ask.priority == PRIORITY_AM else (REDUCE if ask.priority == PRIORITY_REDUCE else MAP)
        c = Container(app.index, node.index, ask.mem, ask.vcores, kind, ask.priority, locality)
        c.seq = self.containers
        node.hold(c)
        self.free_mem -= c.mem
        self.free_vcores -= c.vcores
        series = self.series
        if series is not None and self.kernel.now >= series.next_second:
            series.touch(self.kernel.now)
        app.used_mem += c.mem
        app.used_vcores += c.vcores
        app.pending_mb -= c.mem
        app.live += 1
        q = app.stats
        assert q is not None
        if not q.marked:
            q.marked = True
            self.dirty_stats.append(q)
        q.allocated_mb += c.mem
        q.allocated_vcores += c.vcores
        q.running_containers += 1
        q.pending_mb -= c.mem
        q.pending_vcores -= c.vcores
        q.pending_containers -= 1
        if kind == AM:
            q.running_apps += 1
            q.pending_apps -= 1
        self.containers += 1
        self.scheduler.charge(app, c.mem, c.vcores, kind == AM)
        now = self.kernel.now
        if kind == AM:
            app.am_allocated = True
            tmpl = self.ams[app.index].template
            delay: Any = tmpl.extra.get("launch_delay_s") if self.job_overheads else None
            start = now + self.am_lag()
            if delay:
                start = max(start, app.submit + float(delay))
            c.start = start
            self.am_containers[app.index] = c
            self.kernel.schedule(start, ORDER_AM, self.ev_am_start, app.index, 0)
        else:
            am = self.ams[app.index]
            am.allocated.append(c)
            if am.next_alloc == INF:  # else its next allocate is already queued
                self.wake_am(am)
        return c

    def container_runs(self, c: Container) -> None:
        """The AM launched ``c`` with its finish time known (a reduce waiting for the map stage: when it is known):
        queue its exit."""
        self._push_exit(c, c.finish)

    def _push_exit(self, c: Container, t: float) -> None:
        # a free slot, else a new one: a slot is taken until its event popped and, if current, its report applied
        free = self._free_slots
        if free:
            slot = free.pop()
            self._exiting[slot] = c
        else:
            slot = len(self._exiting)
            self._exiting.append(c)
        c.exit_seq = slot  # a later exit (a kill) supersedes a queued one: it takes another slot
        self.kernel.schedule(t, ORDER_EXIT, self.ev_exit, slot, 0)

    def release_unused(self, am: MRAppMaster, c: Container, now: float) -> None:
        """The AM got a container it has no task for and releases it (the RM frees it on the allocate)."""
        self.released_unused += 1
        c.killed = True
        self._release(self.nodes[c.node], c)
        self.wake_node(self.nodes[c.node])

    def kill_container(self, c: Container, now: float) -> None:
        """The AM stops ``c`` (reduce preemption): it exits now and is reported at its node's next heartbeat."""
        self.killed += 1
        self.wasted_s += max(0.0, now - c.start)
        c.finish = now
        self._push_exit(c, now)

    def preempt_container(self, c: Container, now: float) -> None:
        """The RM's preemption monitor kills ``c`` (``ContainerPreemptEvent`` KILL): it exits now, its work is lost
        (counted in ``wasted_s``), and its node reports it at its next heartbeat. The AM's side is the monitor's."""
        c.killed = True
        self.wasted_s += max(0.0, now - c.start)
        c.finish = now
        self._push_exit(c, now)

    def live_task_containers(self) -> list[Container]:
        """Map and reduce containers running now (launched, not exited, not killed), in no particular order:
        those with a queued exit and the reduces waiting for their map stage. O(running containers)."""
        now = self.kernel.now
        out = [c for slot, c in enumerate(self._exiting)
               if c is not None and c.exit_seq == slot and not c.killed and c.kind != AM and c.finish > now]
        for am in self.ams:
            if am.waiting_reduces:
                out.extend(c for c in am.waiting_reduces if not c.killed)
        return out

    def _release(self, node: NodeManager, c: Container) -> None:
        node.release(c)
        self.free_mem += c.mem
        self.free_vcores += c.vcores
        app = self.apps[c.app]
        series = self.series
        if series is not None and self.kernel.now >= series.next_second:
            series.touch(self.kernel.now)
        app.used_mem -= c.mem
        app.used_vcores -= c.vcores
        app.live -= 1
        q = app.stats
        assert q is not None
        if not q.marked:
            q.marked = True
            self.dirty_stats.append(q)
        q.allocated_mb -= c.mem
        q.allocated_vcores -= c.vcores
        q.running_containers -= 1
        self.scheduler.charge(app, -c.mem, -c.vcores, c.kind == AM)
        if self.free_mem >= self.cluster_mem - 1e-6:
            self.free_mem, self.free_vcores = self.cluster_mem, self.cluster_vcores

    def apply_asks(self, app: SchedulerApp, outbox: list[tuple[int, int, tuple[str, ...], tuple[str, ...]]],
                   map_size: tuple[float, float], reduce_size: tuple[float, float]) -> None:
        """The asks an AM sends in one allocate (deltas per priority, host and rack)."""
        before = self.outstanding
        series = self.series
        if series is not None and self.kernel.now >= series.next_second:
            series.touch(self.kernel.now)
        for priority, delta, hosts, racks in outbox:
            size = map_size if priority == PRIORITY_MAP else reduce_size
            ask = app.ask(priority, size[0], size[1])
            if delta:
                new = ask.total + delta
                if new < 0:
                    new = 0
                change = new - ask.total
                if app.runnable:
                    self.outstanding += change
                ask.total = new
                app.pending_mb += change * ask.mem
                q = app.stats
                assert q is not None
                if not q.marked:
                    q.marked = True
                    self.dirty_stats.append(q)
                q.pending_mb += change * ask.mem
                q.pending_vcores += change * ask.vcores
                q.pending_containers += change
            if hosts or racks:
                step = 1 if delta > 0 else -1
                for h in hosts:
                    ask.by_host[h] = max(0, ask.by_host.get(h, 0) + step)
                for r in racks:
                    ask.by_rack[r] = max(0, ask.by_rack.get(r, 0) + step)
        if before == 0 and self.outstanding > 0:  # otherwise every node with room is already heartbeating
            self.wake_nodes_with_room()

    def headroom(self, app: SchedulerApp) -> float:
        """Memory (MB) the scheduler reports as the app's headroom in an allocate response."""
        return self.scheduler.headroom(app)

    def check_invariants(self) -> None:
        """Resource and ask accounting agree (for tests; O(nodes + apps) per call)."""
        assert self.outstanding == sum(a.pending_containers for a in self.apps if a.runnable and not a.finished), \
            "outstanding asks out of sync"
        used = sum(nd.mem - nd.free_mem for nd in self.nodes)
        assert abs(used - (self.cluster_mem - self.free_mem)) < 1e-6, "cluster free memory out of sync"
        for nd in self.nodes:
            assert nd.free_mem >= -1e-6, f"{nd.name}: memory over-committed"
        for name, q in self.qstats.items():
            apps = [a for a in self.apps if a.stats is q]
            assert abs(q.allocated_mb - sum(a.used_mem for a in apps)) < 1e-6, \
                f"queue {name}: allocated memory out of sync"
            assert q.running_containers == sum(a.live for a in apps), f"queue {name}: running containers out of sync"
            assert q.pending_containers == sum(a.pending_containers for a in apps if not a.finished), \
                f"queue {name}: pending"
        for a in self.apps:
            assert abs(a.pending_mb - sum(k.total * k.mem for k in a.asks)) < 1e-6, f"{a.app_id}: pending memory"

    def app_finished(self, am: MRAppMaster, now: float) -> None:
        """The AM unregistered: the app leaves the scheduler; its AM container exits now."""
        app = am.app
        if self.series is not None:
            self.series.touch(now)
        app.finished = True
        if app.runnable:
            self.outstanding -= app.pending_containers
        q = app.stats
        assert q is not None
        if not q.marked:
            q.marked = True
            self.dirty_stats.append(q)
        for a in app.asks:
            q.pending_mb -= a.total * a.mem
            q.pending_vcores -= a.total * a.vcores
            q.pending_containers -= a.total
            a.total = 0
        app.pending_mb = 0.0
        q.running_apps -= 1
        for c in am.allocated:  # allocated but never received: given back
            self.release_unused(am, c, now)
        am.allocated = []
        self.scheduler.remove_app(app)
        am_container = self.am_containers.get(app.index)
        if am_container is not None:
            c = am_container
            c.finish = now
            self._push_exit(c, now)
        self.apps_done += 1
        if self.progress is not None:
            self.progress(self.apps_done)


class NodeHeartbeats(TaskAssigner):
    """The ResourceManager's :meth:`ResourceManager.node_heartbeat` and :meth:`ResourceManager.release_reported` as
    the core's ``assign_tasks`` and ``apply_aux`` hooks (``hooks.TaskAssigner``): the JobTracker calls them through
    the class's vtable, a C call with machine values in and out."""

    def __init__(self, rm: ResourceManager) -> None:
        self.rm = rm

    def assign_tasks(self, tracker: TrackerState) -> int:
        return self.rm.node_heartbeat(tracker)

    def apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        self.rm.release_reported(tracker, code, now)


# The kernel's table entries for the RM's four kinds (:meth:`ResourceManager.attach`): each calls one method.


class ContainerExits(EventSink):
    def __init__(self, rm: ResourceManager) -> None:
        self.rm = rm

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.rm._on_exit(time, order, a, b)


class AmStarts(EventSink):
    def __init__(self, rm: ResourceManager) -> None:
        self.rm = rm

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.rm._on_am_start(time, order, a, b)


class AmAllocates(EventSink):
    def __init__(self, rm: ResourceManager) -> None:
        self.rm = rm

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.rm._on_allocate(time, order, a, b)


class AmCommits(EventSink):
    def __init__(self, rm: ResourceManager) -> None:
        self.rm = rm

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        self.rm._on_commit(time, order, a, b)
