"""The TDAM feature's hot path, compiled with the engine core: the epoch bookkeeping over the nodes' models.

:class:`EpochCore` (each node's one live completion event, the end-of-event re-solve of changed nodes, the
retirement of finished tasks, the event dispatch of the feature's two event kinds) is what ``--contention tdam``
runs per task and per epoch, over one :class:`mrsim.contention.nodemix.NodeMix` per TaskTracker (the node model:
Algorithm 7's eq. 5.3 by shape, dissertation chapter 5). The feature itself
(:class:`mrsim.tracker.features.contention.ContentionFeature`: set-up, validation, the plug-in API, reduces'
shuffles, kills) stays a plain Python class that users read; this module is its hot path, compiled by mypyc (with
the engine compiled, an interpreted model costs about 9x a plain replay with six demand shapes;
``docs/performance.md``, "TDAM"). Nothing here is a plug-in API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrsim.contention.nodemix import _ONE, NodeMix, _gid
from mrsim.contention.node import layout_vector
from mrsim.tracker.events import ORDER_TASK_DONE
from mrsim.tracker.hooks import FeatureHook
from mrsim.tracker.kernel import EventSink
from mrsim.tracker.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


class TaskDemands:
    """One job's per-task demands of one kind (s, before the node's speed): three lists indexed by task.

    Made once per job arrival from :func:`mrsim.model.demands.demand_columns` (or ``fallback_columns``), read at
    each launch (``cpu[i]``, ``disk[i]``, ``memory[i]``, unboxed by compiled code). One tuple per task, built in
    the interpreter at the job's arrival, cost about 22 M instructions of a 25,200-task replay (``docs/performance.md``,
    "TDAM after the engine round"); the lists come from numpy's ``tolist`` in C. Read only (lists may be shared).
    """

    def __init__(self, cpu: list[float], disk: list[float], memory: list[float]) -> None:
        self.cpu: list[float] = cpu
        self.disk: list[float] = disk
        self.memory: list[float] = memory

    def row(self, i: int) -> tuple[float, float, float]:
        """Task ``i``'s ``(cpu_s, disk_s, memory_s)`` (for the interpreted callers; compiled code reads the lists)."""
        return (self.cpu[i], self.disk[i], self.memory[i])



# --------------------------------------------------------------------------------------------- the epochs


class EpochHooks(FeatureHook):
    """TDAM's ``finish_model``, ``on_launch`` and ``on_heartbeat`` hooks as a compiled
    :class:`~mrsim.tracker.hooks.FeatureHook` (``EpochCore`` is the kernel's :class:`EventSink`, and a compiled class
    has one base): the engine calls these methods directly, and they call :class:`EpochCore`'s directly; two C calls
    where the bound methods were a Python-level call per launch and heartbeat. O(1) each."""

    def __init__(self, core: EpochCore) -> None:
        self.core = core

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        self.core.finish_model(job, tracker, gid)

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        self.core.launched(job, tracker, gid)

    def heartbeat(self, tracker: TrackerState) -> None:
        self.core.heartbeat(tracker)


class EpochCore(EventSink):
    """Per node: its one live completion event (time and tombstone stamp), whether its mix changed in the current
    engine event, and the end-of-event re-solve (Algorithm 7's epoch boundary) of the nodes that changed.

    ``nodes`` are the feature's :class:`NodeMix` per TaskTracker; ``speed``, ``disks`` and ``layout`` (a
    :class:`~mrsim.contention.NodeSpec` for nodes whose vectors :func:`layout_vector` builds, else None) give the
    demand vectors; ``eager``: publish predicted finishes into the jobs' ``map_finish`` / ``reduce_finish`` at every
    epoch (schedulers that read them), else only mark the node for :meth:`ContentionFeature.publish_predictions`.
    The feature registers :meth:`on_node_done` and :meth:`on_shuffle_end` as event kinds and sets
    :attr:`ev_node_done` and :attr:`ev_shuffle_end` to them, and fills :attr:`map_rows` / :attr:`reduce_rows` as jobs
    arrive. It is also the kernel's feature sink for those two kinds (:meth:`handle`, ``Kernel.add_sink``) when no
    other feature is: the compiled run loop then calls it directly, where a registered handler costs a Python-level
    call per event (a node's completion events are most of a contention-aware replay's feature events).

    Costs per epoch on a node: one mix lookup (an AMVA solve on a cache miss) plus O(tasks on the node) to publish
    predictions when eager; per launch O(log n + shapes); per completion O(shapes).
    """

    def __init__(self, jt: JobTracker, nodes: list[NodeMix], speed: list[float], disks: list[int],
                 layout: list[Any], eager: bool) -> None:
        n = len(nodes)
        self.jt = jt
        self.nodes = nodes
        self.speed = speed
        self.disks = disks
        self.layout = layout
        self.eager = eager
        self.ev_node_done = -1
        self.ev_shuffle_end = -1
        # job index -> its tasks' (cpu_s, disk_s, memory_s) as three lists, while the job runs
        self.map_rows: dict[int, TaskDemands] = {}
        self.reduce_rows: dict[int, TaskDemands] = {}
        self.shuffling: list[int] = [0] * n  # reduces holding a slot but not yet loading the node
        self.shuffle_pending: set[int] = set()  # reduce gids with a live shuffle-end event
        self.mix_waiters: set[int] = set()  # trackers parked until their node's mix changes (CA-FIFO)
        # Each node's live completion event (time, tombstone stamp), the completion held back for its tracker's
        # heartbeat and whether a task of it just ended are NodeMix.event_at, event_stamp, held and just_done.
        # nodes whose mix changed in the current engine event: the first n_dirty entries (kept storage: a list
        # appended to and cleared at every event freed and grew its storage each time)
        self.dirty: list[int] = [0] * n
        self.n_dirty = 0
        self.is_dirty: list[bool] = [False] * n
        self.unpublished: set[int] = set()  # nodes whose predictions were not published since they changed
        self.is_unpublished: list[bool] = [False] * n  # ti in unpublished (a list read per epoch, not a set add)
        self.epochs = 0  # node re-solves (ends of epochs on a node)
        # The held nodes (NodeMix.held, see flush) whose tracker's heartbeat has come.
        self.due: list[int] = []
        self.trackers: list[TrackerState] = jt.trackers

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        """The JobTracker's ``finish_model``: instead of the trace completion the engine would queue, a map joins
        its node's mix now; a reduce from its shuffle end (the engine set ``reduce_shuffle_end``: launch + typical
        shuffle, or the map stage's first-shuffle end)."""
        i = gid & TASK_MASK
        ti = tracker.index
        if gid & REDUCE_BIT:
            self.shuffle_until(job, gid, ti, job.reduce_shuffle_end[i])
            return
        rows = self.map_rows[job.index]
        cpu = rows.cpu[i]
        disk = rows.disk[i]
        mem = rows.memory[i]
        if job.host_cache is not None:  # split locations known: the plain replay's locality slowdown applies
            factor = self.locality_factor(job, i)
            cpu, disk, mem = cpu * factor, disk * factor, mem * factor
        self.contend(ti, gid, cpu, disk, mem)

    def heartbeat(self, tracker: TrackerState) -> None:
        """The ``on_heartbeat`` hook: a tracker parked until its mix changes decides afresh at its heartbeat (and
        may park again); a completion held back for this heartbeat is queued at the end of its event."""
        if self.mix_waiters:
            self.mix_waiters.discard(tracker.index)
        if self.nodes[tracker.index].held != INF:
            self.due.append(tracker.index)

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        """The ``on_launch`` hook: a reduce holds its slot and loads the node only from its shuffle end."""
        if gid & REDUCE_BIT:
            self.shuffling[tracker.index] = self.shuffling[tracker.index] + 1

    def locality_factor(self, job: JobState, i: int) -> float:
        """The duration factor a plain replay applies to this map (rack-local / off-switch slowdown), applied to
        its demand vector instead: ``1.0`` for jobs without split locations known to the cluster."""
        levels = job.map_locality
        if not len(levels) or job.host_cache is None:
            return 1.0
        level = levels[i]
        if level == 2:
            return self.jt.rack_local_slowdown
        if level == 3:
            return self.jt.off_switch_slowdown
        return 1.0

    def shuffle_until(self, job: JobState, gid: int, ti: int, shuffle_end: float) -> None:
        """A reduce counted in :attr:`shuffling` loads its node from ``shuffle_end`` on (now, or by an event)."""
        kernel = self.jt.kernel
        if shuffle_end <= kernel.now:
            self.shuffling[ti] = self.shuffling[ti] - 1
            rows = self.reduce_rows[job.index]
            i = gid & TASK_MASK
            self.contend(ti, gid, rows.cpu[i], rows.disk[i], rows.memory[i])
            return
        self.shuffle_pending.add(gid)
        kernel.schedule(shuffle_end, ORDER_TASK_DONE, self.ev_shuffle_end, ti, gid)

    def contend(self, ti: int, gid: int, cpu: float, disk: float, mem: float) -> None:
        """Task ``gid`` loads node ``ti`` from now with ``cpu``, ``disk`` and ``memory`` seconds of demand (before the
        node's speed); the node is re-solved at the end of the event."""
        now = self.jt.kernel.now
        layout = self.layout[ti]
        if layout is None and self.disks[ti] == 1:  # the common case: (cpu + memory, disk) / speed
            speed = self.speed[ti]
            self.nodes[ti].add_cpu_disk(gid, (cpu + mem if mem else cpu) / speed, disk / speed, now)
        else:
            self.nodes[ti].add(gid, self.vector(ti, cpu, disk, mem), now)
        self.mark(ti)

    def vector(self, ti: int, cpu: float, disk: float, mem: float) -> tuple[float, ...]:
        """Demand vector on node ``ti`` (``NodeSpec.demand_names``): without a memory layer ``(cpu + memory,
        disk0, ...)``, disk striped evenly, everything divided by speed (:func:`layout_vector`, inlined)."""
        speed = self.speed[ti]
        layout = self.layout[ti]
        if layout is not None:
            vec: tuple[float, ...] = layout_vector(layout, cpu, disk, mem, speed)
            return vec
        if mem:
            cpu = cpu + mem
        d = self.disks[ti]
        if d == 1:
            return (cpu / speed, disk / speed)
        if d == 0:
            return (cpu / speed,)  # the feature rejected disk demand on diskless nodes
        share = disk / d / speed
        return (cpu / speed,) + (share,) * d

    def mark(self, ti: int) -> None:
        if not self.is_dirty[ti]:
            self.is_dirty[ti] = True
            self.dirty[self.n_dirty] = ti
            self.n_dirty = self.n_dirty + 1

    def end_of_event(self) -> None:
        """The JobTracker's ``after_event`` hook: end the epoch of every node changed in this event (and queue the
        completions held back for a heartbeat that has come)."""
        if self.n_dirty or self.due:
            self.flush()

    def handle(self, kind: int, time: float, order: int, a: int, b: int) -> None:
        """The kernel's compiled dispatch of the two kinds :meth:`on_node_done` and :meth:`on_shuffle_end` handle
        (as their registered handlers would)."""
        if kind == self.ev_node_done:
            self.on_node_done(time, order, a, b)
        else:
            self.on_shuffle_end(time, order, a, b)

    def on_shuffle_end(self, now: float, order: int, ti: int, gid: int) -> None:
        """A reduce's shuffle ended: its post-shuffle demand joins the node's mix (and a tracker parked until its
        mix changes is woken)."""
        job = self.jt.jobs[gid >> JOB_SHIFT]
        i = gid & TASK_MASK
        if gid not in self.shuffle_pending or job.reduce_shuffle_end[i] != now or job.reduce_tracker[i] != ti:
            return  # killed (and maybe relaunched with another shuffle end)
        self.shuffle_pending.discard(gid)
        self.shuffling[ti] = self.shuffling[ti] - 1
        rows = self.reduce_rows[job.index]
        self.contend(ti, gid, rows.cpu[i], rows.disk[i], rows.memory[i])
        if ti in self.mix_waiters:
            self.mix_waiters.discard(ti)
            self.jt.wake(self.jt.trackers[ti])

    def on_node_done(self, now: float, order: int, ti: int, stamp: int) -> None:
        """The node's earliest predicted completion is due: retire every task that ends now, as the engine
        retires a trace completion (task mode: applied at once; heartbeat mode: reported at the next heartbeat)."""
        node = self.nodes[ti]
        if stamp != node.event_stamp:
            return  # the mix changed after this event was queued
        node.event_at = INF
        ended = node.retire_into(now)
        if ended is _ONE:
            self.task_ended(now, order, ti, node.retired)
        else:
            for gid in ended:
                self.task_ended(now, order, ti, gid)
        node.just_done = True
        self.mark(ti)

    def task_ended(self, now: float, order: int, ti: int, gid: int) -> None:
        """Task ``gid`` on node ``ti`` ended ``now``: its finish is stored and the engine retires it. O(1)."""
        jt = self.jt
        job = jt.jobs[gid >> JOB_SHIFT]
        key: Any = gid & TASK_MASK  # boxed once; stored through the arrays' writable views (JobState)
        if gid & REDUCE_BIT:
            job.reduce_finish_w[key] = now
        else:
            job.map_finish_w[key] = now
        jt.task_done(now, order, ti, gid)

    def publish(self, ti: int) -> None:
        """Write node ``ti``'s predicted finishes into its tasks' ``map_finish`` / ``reduce_finish``. O(tasks)."""
        jobs = self.jt.jobs
        for gid, finish in self.nodes[ti].completion_times():
            job = jobs[gid >> JOB_SHIFT]
            key: Any = gid & TASK_MASK
            if gid & REDUCE_BIT:
                job.reduce_finish_w[key] = finish
            else:
                job.map_finish_w[key] = finish

    def publish_pending(self) -> None:
        """Publish the nodes changed since their last publication (:meth:`ContentionFeature.publish_predictions`).
        O(tasks on those nodes)."""
        for ti in self.unpublished:
            self.publish(ti)
            self.is_unpublished[ti] = False
        self.unpublished.clear()

    def flush(self) -> None:
        """End of an epoch on every changed node: re-solve, queue its next completion, publish predictions (or
        leave them for :meth:`ContentionFeature.publish_predictions` when the scheduler does not read them).

        After a completion the node's next one is *held back* when the node's tracker has a heartbeat queued
        before it (it always has in heartbeat mode, to report the task that ended): that heartbeat usually
        launches a task there, which changes the prediction, so a completion event queued now would mostly be
        tombstoned (about half of all completion events would be). :meth:`heartbeat` notes the tracker's
        heartbeat (it comes before the held time) and the end of that event queues the held time, or the new
        prediction if the node changed. The schedule is the same; only events that would have been ignored are
        not queued."""
        kernel = self.jt.kernel
        now = kernel.now
        jobs = self.jt.jobs
        nodes, is_dirty = self.nodes, self.is_dirty
        dirty = self.dirty
        n_dirty = self.n_dirty
        self.epochs += n_dirty
        eager = self.eager
        for k in range(n_dirty):
            ti = dirty[k]
            is_dirty[ti] = False
            node = nodes[ti]
            node.held = INF  # an epoch on the node replaces what was held back
            t = INF
            if node.instant or node.stale:
                t = node.next_completion()
            else:
                if node.dirty:  # re-solve and find the next completion in one pass (every heap top is live)
                    best = node._solve_next()
                else:  # next_completion inlined
                    best = INF
                    for g in node.live:
                        top: float = g.heap[0][0]  # _vfinish inlined
                        w = (top - g.virtual) * g.stretch
                        if w < best:
                            best = w
                if best < INF:
                    t = node.now + best
            if t == INF:
                node.just_done = False
                if node.event_at != INF:
                    node.event_stamp = node.event_stamp + 1
                    node.event_at = INF
                continue
            if t < now:
                t = now
            if node.just_done and node.event_at == INF and self.trackers[ti].next_hb < t:
                node.held = t  # the tracker's heartbeat comes first (see above)
            elif t != node.event_at:  # an event already queued at exactly t stays valid: it retires what ends at t
                stamp = node.event_stamp + 1
                node.event_stamp = stamp
                node.event_at = t
                kernel.schedule(t, ORDER_TASK_DONE, self.ev_node_done, ti, stamp)
            node.just_done = False
            if not eager:
                if not self.is_unpublished[ti]:
                    self.is_unpublished[ti] = True
                    self.unpublished.add(ti)
                continue
            if node.running == 1 and not node.instant and not node.stale:  # few slots: the only task ends at t
                for g in node.live:
                    gid = _gid(g.heap[0])
                    job = jobs[gid >> JOB_SHIFT]
                    key: Any = gid & TASK_MASK
                    if gid & REDUCE_BIT:
                        job.reduce_finish_w[key] = t
                    else:
                        job.map_finish_w[key] = t
                continue
            self.publish(ti)
        self.n_dirty = 0
        if self.due:
            for ti in self.due:  # a held completion whose node did not change by its tracker's heartbeat
                node = nodes[ti]
                t = node.held
                if t != INF:
                    node.held = INF
                    stamp = node.event_stamp + 1
                    node.event_stamp = stamp
                    node.event_at = t
                    kernel.schedule(t, ORDER_TASK_DONE, self.ev_node_done, ti, stamp)
            self.due.clear()
