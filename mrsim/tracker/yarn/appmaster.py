"""The MapReduce ApplicationMaster of one job (``MRAppMaster`` with ``RMContainerAllocator``), as the RM sees it.

Protocol (times in seconds; ``docs/yarn.md`` has a worked timeline):

* The AM starts in its own container at ``max(allocation + AM launch lag, submit + logged launch delay)``: the
  trace's ``launchTime`` is when the real AM started, so it is kept unless the emulated cluster makes the AM
  container itself wait longer.
* Its allocator thread sleeps first, then heartbeats (``allocate``) every
  ``yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms``: at ``start + k * interval``, k >= 1. An allocate sends
  the asks made since the previous one, and receives the containers the RM allocated since then and the containers
  that NodeManagers reported complete since then. Asks made *during* an allocate (reduce ramp-up) go with the next.
* All map requests are made at start (with their split hosts and racks, priority 20). Reduces (priority 10) are
  requested once ``completed maps >= ceil(mapreduce.job.reduce.slowstart.completedmaps x maps)``, in the amounts
  ``RMContainerAllocator.scheduleReduces`` allows: all at once when no map request is outstanding, else ramped up
  to ``min(completed-map fraction, yarn.app.mapreduce.am.job.reduce.rampup.limit)`` of the AM's memory limit
  (headroom + assigned containers), and ramped down when that limit shrinks; once every reduce is asked for, the
  AM no longer recomputes (``numPendingReduces == 0``).
* ``preemptReducesIfNeeded``: when maps are outstanding but headroom plus the memory of running maps cannot hold
  one map, the AM kills up to ``max(one map, preemption.limit x memory limit)`` worth of its newest reduces; they
  are requested again later.
* A container is matched to a map node-local first, then rack-local, then any (``assignMapsWithLocality``).
* Task durations follow the templates and SimMR's reduce model, as in the MR1 engine (``mrsim.tracker``). The
  job's per-task durations and results are the JobTracker core's :class:`~mrsim.tracker.state.JobState` arrays
  (materialised when the job arrives), so YARN and MR1 replays keep a task's state in one place.
* A task's completion reaches the AM when the task ends (``TaskUmbilicalProtocol.done``: the task reports to its
  AM directly, not through the RM): completed-map counts, slow start and the map-stage end use that instant. The
  job finishes when its last task does, plus the job's commit tail when a calibration gives one
  (``mrsim.tracker.yarn.calibration``: ``CommitterEventHandler`` and the AM's unregistration, measured per job from
  the trace). The *container's* completion reaches the RM in the
  node's next heartbeat, which is when its resources become free for any application.
"""

from __future__ import annotations

import math
from array import array
from typing import TYPE_CHECKING, Any

from mrsim.tracker.state import JobState
from mrsim.tracker.yarn.nodemanager import INF, MAP, Container
from mrsim.tracker.yarn.schedulers.base import NODE_LOCAL, PRIORITY_MAP, PRIORITY_REDUCE, RACK_LOCAL, SchedulerApp
from mrsim.model.templates import JobTemplate

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.views import AppMasterHost



def _without(items: tuple[str, ...], drop: str) -> tuple[str, ...]:
    """``items`` without ``drop``, in order; ``items`` itself when it does not hold it (a map's split hosts or
    racks less the container's). O(len(items)), one list and one tuple only when something is dropped."""
    for x in items:
        if x == drop:
            return tuple([y for y in items if y != drop])
    return items


class MRAppMaster:
    """Per-job AM state: requests, assignments, completions, the reduce model. Arrays are per task index."""

    def __init__(self, app: SchedulerApp, template: JobTemplate, sizes: dict[str, tuple[float, float]],
                 slowstart: float, hosts: set[str], host_rack: dict[str, str]) -> None:
        self.app = app
        self.template = template
        # the core's state of this job (durations, per-task results), from its arrival on (:meth:`joined`)
        self.job: JobState | None = None
        self.locality_w: Any = None  # a memoryview of the job's map_locality once it joined (joined)
        self.n_maps = template.n_maps
        self.n_reduces = template.n_reduces
        self.map_size = sizes["map"]
        self.reduce_size = sizes["reduce"]
        self.slowstart = slowstart
        self.start = -1.0  # AM start
        self.next_alloc = INF
        self.alloc_k = 0
        self.stamp = 0
        self.first_task_start = INF
        self.finish = -1.0
        n, r = self.n_maps, self.n_reduces
        # split locations that name cluster hosts
        self.map_hosts: list[tuple[str, ...]] = [()] * n
        self.map_racks: list[tuple[str, ...]] = [()] * n
        if template.map_locations is not None:
            for i, locs in enumerate(template.map_locations):
                hs = tuple(dict.fromkeys(h for h in (loc.rsplit("/", 1)[-1] for loc in locs) if h in hosts))
                self.map_hosts[i] = hs
                self.map_racks[i] = tuple(dict.fromkeys(host_rack[h] for h in hs))
        # pending (unassigned) maps, lazily deleted via ``map_assigned``
        self.map_assigned = bytearray(n)
        self.by_host: dict[str, list[int]] = {}
        self.by_rack: dict[str, list[int]] = {}
        for i in range(n - 1, -1, -1):  # reversed: popped from the end, lowest index first
            for h in self.map_hosts[i]:
                self.by_host.setdefault(h, []).append(i)
            for rk in self.map_racks[i]:
                self.by_rack.setdefault(rk, []).append(i)
        # maps for any host: the lowest index not assigned yet, from this cursor on (the maps before it are all
        # assigned; a list of every index, popped, took a boxed int per map for every job from the RM's start)
        self.any_next = 0
        self.requeued_maps: list[int] = []
        self.scheduled_maps = 0  # requested, not yet assigned
        self.assigned_maps = 0  # running
        self.completed_maps = 0
        self.pending_reduces = r  # not yet requested
        self.scheduled_reduces = 0
        self.assigned_reduces = 0
        self.completed_reduces = 0
        self.next_reduce = 0
        self.requeued_reduces: list[int] = []
        self.reduce_started = False
        self.map_stage_done = False
        self.last_map_finish = 0.0
        self.waiting_reduces: list[Container] = []
        # running reduces in launch order, as a dict (keys only): a reduce's exit removes it in O(1), not by a scan
        self.running_reduces: dict[Container, None] = {}
        # protocol mailboxes
        self.outbox: list[tuple[int, int, tuple[str, ...], tuple[str, ...]]] = []  # (priority, delta, hosts, racks)
        self.allocated: list[Container] = []
        self.killed = 0
        self.wasted_s = 0.0
        self.headroom_mb = -1.0  # the current allocate's headroom once read (-1: not yet)

    def joined(self, job: JobState) -> None:
        """The job arrived in the core (materialised): its durations and per-task results (start, finish, node
        index, map locality 0-3, -1 / 0 until known) are ``job``'s arrays from now on."""
        self.job = job
        job.map_locality = array("b", bytes(self.n_maps))
        self.locality_w = memoryview(job.map_locality)  # the AM's stores (a view pins its array: never resized)

    def state(self) -> JobState:
        """The core's state of the job (it arrived before its AM could start)."""
        job = self.job
        assert job is not None, "the AM runs only after its job arrived"
        return job

    # ------------------------------------------------------------------------------------------ requests

    def request_all_maps(self) -> None:
        """Every map's request, in map order. Consecutive maps without split locations go as one entry of their
        count (the RM adds ``count x size`` once instead of ``size`` count times: the same totals, exactly, for
        integer-valued sizes, which normalised container sizes are); maps with locations one entry each."""
        outbox = self.outbox
        mem, vcores = self.map_size
        exact = float(int(mem)) == mem and float(int(vcores)) == vcores and mem * self.n_maps < 2.0 ** 53
        plain = 0  # maps without locations not yet in the outbox
        for i in range(self.n_maps):
            hosts, racks = self.map_hosts[i], self.map_racks[i]
            if not hosts and not racks and exact:
                plain += 1
                continue
            if plain:
                outbox.append((PRIORITY_MAP, plain, (), ()))
                plain = 0
            outbox.append((PRIORITY_MAP, 1, hosts, racks))
        if plain:
            outbox.append((PRIORITY_MAP, plain, (), ()))
        self.scheduled_maps = self.n_maps

    def maps_done_trivially(self, rm: "AppMasterHost", now: float) -> None:
        """A job without maps: its map stage is complete at start."""
        if self.n_maps == 0:
            self.map_stage_done = True
            self.reduce_started = True

    @property
    def must_poll(self) -> bool:
        """Reduce preemption is possible (maps asked, reduces running, no map running): the AM checks it at every
        allocate, since it depends on headroom that other applications change without telling this AM."""
        return self.finish < 0 and self.scheduled_maps > 0 and self.assigned_reduces > 0 and self.assigned_maps == 0

    @property
    def ramping(self) -> bool:
        """Reduces are waiting for the ramp-up limit, which grows with headroom."""
        return self.finish < 0 and self.reduce_started and self.pending_reduces > 0

    # ------------------------------------------------------------------------------------------ allocate

    def allocate(self, rm: "AppMasterHost", now: float) -> None:
        """One ``RMContainerAllocator.heartbeat``: send asks, take containers, then plan reduces."""
        if self.outbox:
            rm.apply_asks(self.app, self.outbox, self.map_size, self.reduce_size)
            self.outbox = []
        if self.allocated:
            allocated, self.allocated = self.allocated, []
            for c in allocated:
                self._assign(rm, c, now)
        # The headroom is read at most once from here on (headroom_mb): preempting reduces only queues their
        # exits, so it cannot change before _schedule_reduces reads it again
        if self.scheduled_maps and self.assigned_reduces:  # the guard of _preempt_reduces_if_needed
            self._preempt_reduces_if_needed(rm, now)
        if self.pending_reduces:  # the guard of _schedule_reduces
            self._schedule_reduces(rm)
        self.headroom_mb = -1.0  # stale after this allocate

    def task_done(self, rm: "AppMasterHost", c: Container, now: float) -> None:
        """Task ``c.task`` ended at ``now`` and told its AM (umbilical); the job ends with its last task."""
        if c.kind == MAP:
            self.assigned_maps -= 1
            self.completed_maps += 1
            if c.finish > self.last_map_finish:
                self.last_map_finish = c.finish
            if self.completed_maps == self.n_maps:
                self._map_stage_done(rm, now)
        else:
            self.assigned_reduces -= 1
            self.completed_reduces += 1
            del self.running_reduces[c]
        if self.completed_maps == self.n_maps and self.completed_reduces == self.n_reduces:
            rm.tasks_done(self, now)  # the job commit, if calibrated, then the AM unregisters
        elif self.next_alloc == INF:  # else its next allocate is already queued
            rm.wake_am(self)

    def _pop_map(self, host: str, rack: str) -> tuple[int, int]:
        """A pending map for a container on ``host``: (index, locality) or (-1, 0). A node-local map first, then a
        rack-local one, then any (``assignMapsWithLocality``); locality 0 for a map without split locations."""
        if self.requeued_maps:
            return self.requeued_maps.pop(), 3
        if self.by_host:
            stack = self.by_host.get(host)
            if stack is not None:
                i = self._pop_unassigned(stack)
                if i >= 0:
                    return i, (NODE_LOCAL if self.map_hosts[i] else 0)
        if self.by_rack:
            stack = self.by_rack.get(rack)
            if stack is not None:
                i = self._pop_unassigned(stack)
                if i >= 0:
                    return i, (RACK_LOCAL if self.map_hosts[i] else 0)
        i = self._next_unassigned()
        if i >= 0:
            return i, (3 if self.map_hosts[i] else 0)
        return -1, 0

    def _pop_unassigned(self, stack: list[int]) -> int:
        """Pop ``stack``'s top map that is not assigned yet (assigned ones on top are dropped: lazy deletion), or
        -1 when none is left."""
        assigned = self.map_assigned
        while stack:
            i = stack.pop()
            if not assigned[i]:
                return i
        return -1

    def _next_unassigned(self) -> int:
        """The lowest map index not assigned yet, or -1 (the cursor :attr:`any_next` moves past assigned maps:
        amortised O(1)). The caller assigns the map returned, so the cursor moves past it too."""
        assigned = self.map_assigned
        i = self.any_next
        n = self.n_maps
        while i < n and assigned[i]:
            i += 1
        if i < n:
            self.any_next = i + 1
            return i
        self.any_next = n
        return -1

    def _assign(self, rm: "AppMasterHost", c: Container, now: float) -> None:
        node = rm.nodes[c.node]
        if c.kind == MAP:
            i, loc = self._pop_map(node.name, node.rack)
            if i < 0:
                rm.release_unused(self, c, now)
                return
            self.map_assigned[i] = 1
            rm.running_tasks += 1
            self.scheduled_maps -= 1
            self.assigned_maps += 1
            # Asks for this map's other hosts and racks are withdrawn with the next allocate (the RM already took
            # one from the container's host and rack when it allocated node- or rack-locally).
            split_hosts = self.map_hosts[i]
            if split_hosts:
                # a tuple is kept as it is when nothing is withdrawn from it (no generator: one costs a frame and
                # about 2,000 instructions a map in compiled code)
                hosts = _without(split_hosts, node.name) if c.locality == NODE_LOCAL else split_hosts
                racks = self.map_racks[i]
                if c.locality <= RACK_LOCAL:
                    racks = _without(racks, node.rack)
                if hosts or racks:
                    self.outbox.append((PRIORITY_MAP, 0, hosts, racks))
            start = now + (rm.task_lag() if rm.lag_sampled else rm.lag_constant)
            speed = node.speed
            job = self.state()
            dur = job.map_dur[i] / speed
            if loc == RACK_LOCAL:
                dur *= rm.rack_local_slowdown
            elif loc == 3 and split_hosts:
                dur *= rm.off_switch_slowdown
            c.task = i
            c.start = start
            c.finish = start + dur
            # through the core's memoryviews (JobState.*_w) and the AM's of the localities, the index boxed once:
            # a view stores a value with one conversion, where array.__setitem__ parses its argument
            ix: Any = i
            job.map_start_w[ix] = start
            job.map_finish_w[ix] = c.finish
            job.map_tracker_w[ix] = c.node
            self.locality_w[ix] = loc
            if start < self.first_task_start:
                self.first_task_start = start
            rm.container_runs(c)
        else:
            if self.scheduled_reduces <= 0:
                rm.release_unused(self, c, now)
                return
            self.scheduled_reduces -= 1
            self.assigned_reduces += 1
            rm.running_tasks += 1
            i = self.requeued_reduces.pop() if self.requeued_reduces else self._next_reduce()
            start = now + (rm.task_lag() if rm.lag_sampled else rm.lag_constant)
            c.task = i
            c.start = start
            job = self.state()
            ix = i
            job.reduce_start_w[ix] = start
            job.reduce_tracker_w[ix] = c.node
            self._started(start)
            self.running_reduces[c] = None
            if self.map_stage_done:
                # SimMR's later-wave shuffle, drawn as the MR1 engine draws it (JobState.next_typical_shuffle)
                self._finish_reduce(rm, c, start + job.next_typical_shuffle() / node.speed)
            else:
                self.waiting_reduces.append(c)

    def _next_reduce(self) -> int:
        i = self.next_reduce
        self.next_reduce += 1
        return i

    def _started(self, start: float) -> None:
        if start < self.first_task_start:
            self.first_task_start = start

    def _finish_reduce(self, rm: "AppMasterHost", c: Container, shuffle_end: float) -> None:
        i = c.task
        node = rm.nodes[c.node]
        job = self.state()
        c.finish = shuffle_end + job.reduce_dur[i] / node.speed
        ix: Any = i
        job.reduce_shuffle_end_w[ix] = shuffle_end
        job.reduce_finish_w[ix] = c.finish
        rm.container_runs(c)

    def _map_stage_done(self, rm: "AppMasterHost", now: float) -> None:
        """First-wave reduces get their shuffle end: ``first_shuffle`` after the last map finished (SimMR III-B),
        never before the AM knows the map stage is complete."""
        self.map_stage_done = True
        job = self.state()
        for c in self.waiting_reduces:
            node = rm.nodes[c.node]
            # SimMR's first-wave shuffle, drawn as the MR1 engine draws it (JobState.next_first_shuffle)
            end = max(now, self.last_map_finish + job.next_first_shuffle() / node.speed)
            self._finish_reduce(rm, c, end)
        self.waiting_reduces = []

    # ------------------------------------------------------------------------------------------ reduces

    def _mem_limit(self, rm: "AppMasterHost") -> float:
        """``getMemLimit``: headroom + memory of the containers the job holds (the headroom of this allocate's
        response, read once: :attr:`headroom_mb`)."""
        headroom = self.headroom_mb
        if headroom < 0.0:
            headroom = self.headroom_mb = rm.headroom(self.app)
        return headroom + self.assigned_maps * self.map_size[0] + self.assigned_reduces * self.reduce_size[0]

    def _schedule_reduces(self, rm: "AppMasterHost") -> None:
        """``RMContainerAllocator.scheduleReduces`` (memory, as Hadoop 2.x): nothing once every reduce is asked for;
        slow start at ``completed maps >= ceil(slowstart x maps)``; all reduces once no map request is outstanding;
        else ramp up or down to the limit (container counts truncated toward zero, as Java's int division)."""
        if self.pending_reduces == 0:
            return
        if not self.reduce_started:
            if self.completed_maps < math.ceil(self.slowstart * self.n_maps - 1e-9):  # 0.05 x 60 is 3.0000000000000004
                return
            self.reduce_started = True
        if self.scheduled_maps == 0:
            self._ask_reduces(self.pending_reduces)
            return
        done = self.completed_maps / self.n_maps if self.n_maps else 1.0
        map_mem, reduce_mem = self.map_size[0], self.reduce_size[0]
        total = self._mem_limit(rm)
        ideal_reduce = total * min(done, rm.rampup_limit)
        ideal_map = total - ideal_reduce
        net_map = (self.scheduled_maps + self.assigned_maps) * map_mem
        if int(ideal_map // map_mem) >= self.scheduled_maps + self.assigned_maps:
            final_reduce = ideal_reduce + (ideal_map - net_map)
        else:
            final_reduce = ideal_reduce
        net_reduce = (self.scheduled_reduces + self.assigned_reduces) * reduce_mem
        ramp = int((final_reduce - net_reduce) / reduce_mem)  # truncated toward zero
        if ramp > 0:
            self._ask_reduces(min(ramp, self.pending_reduces))
        elif ramp < 0 and self.scheduled_reduces > 0:
            down = min(-ramp, self.scheduled_reduces)
            self.scheduled_reduces -= down
            self.pending_reduces += down
            self.outbox.append((PRIORITY_REDUCE, -down, (), ()))

    def _ask_reduces(self, n: int) -> None:
        self.pending_reduces -= n
        self.scheduled_reduces += n
        self.outbox.append((PRIORITY_REDUCE, n, (), ()))

    def _preempt_reduces_if_needed(self, rm: "AppMasterHost", now: float) -> None:
        """``RMContainerAllocator.preemptReducesIfNeeded`` (Hadoop 2.x rule, no preemption delays)."""
        if not self.scheduled_maps or not self.assigned_reduces:
            return
        limit = self._mem_limit(rm)
        available_for_maps = limit - self.assigned_reduces * self.reduce_size[0]
        map_mem = self.map_size[0]
        if available_for_maps >= map_mem:
            return
        preempt_limit = max(map_mem, rm.preemption_limit * limit)
        preempt_mem = min(self.scheduled_maps * map_mem, preempt_limit)
        count = min(-(-int(preempt_mem) // int(self.reduce_size[0])), self.assigned_reduces)
        # AssignedRequests.preemptReduce picks the reduces with the least progress: the newest.
        victims = sorted(self.running_reduces, key=lambda c: c.start, reverse=True)[:count]
        for c in victims:
            del self.running_reduces[c]
            if c in self.waiting_reduces:
                self.waiting_reduces.remove(c)
            c.killed = True
            self.assigned_reduces -= 1
            self.pending_reduces += 1
            i = c.task
            self.requeued_reduces.append(i)
            job = self.state()
            job.reduce_start[i] = job.reduce_finish[i] = job.reduce_shuffle_end[i] = -1.0
            self.killed += 1
            self.wasted_s += max(0.0, now - c.start)
            rm.kill_container(c, now)
