"""The Capacity Scheduler's preemption monitor in a replay (``SchedulingMonitor`` running
``ProportionalCapacityPreemptionPolicy.editSchedule``), and what a preempted container costs its job.

Every ``monitoring_interval`` from 0 s the monitor takes a snapshot of the queue tree (guarantee and maximum as
``cluster x absolute capacity`` truncated to MB; usage; pending asks of the active applications, each user's at most
its user limit less its usage, as ``LeafQueue.getTotalPendingResourcesConsideringUserLimit``), computes what each
leaf gives back and picks the containers (:mod:`mrsim.tracker.yarn.capacity_preemption`). A container picked for the
first time is *marked* at that instant; one still picked ``max_wait_before_kill`` or more after its mark is killed
(``MARK_CONTAINER_FOR_KILLABLE``, killed at once without lazy preemption); marks older than twice that wait are
forgotten. The MR AM ignores the preemption message (``NoopAMPreemptionPolicy``, MapReduce's default), so a marked
container runs until it is killed or finishes.

A killed container's task attempt is KILLED: its work is lost (``wasted_slot_s``), the attempt is listed in
``attempts.csv``, and the task is asked for again at the AM's next allocate: a map without locality, a reduce through
the reduce ramp-up as a reduce the AM preempted itself. The container's resources are freed at its node's next
heartbeat, where Hadoop's scheduler frees them at once and the NodeManager kills the process at that heartbeat; the
node offers them to other applications only at that heartbeat in both. Cost per tick: O(queues^2 + running
containers).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

from mrsim.tracker.events import ORDER_APP_MASTER
from mrsim.tracker.results import _r
from mrsim.tracker.yarn import capacity_preemption as policy
from mrsim.tracker.yarn.nodemanager import INF, MAP
from mrsim.tracker.yarn.preemption_conf import CapacityPreemption, capacity_preemption, disabled_queues, site_values
from mrsim.tracker.yarn.schedulers.base import PRIORITY_MAP

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.results import ReplayResult
    from mrsim.tracker.yarn.nodemanager import Container
    from mrsim.tracker.yarn.rm import ResourceManager
    from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler, CSQueue


def monitor_for(scheduler: Any) -> "CapacityPreemptionMonitor | None":
    """The preemption monitor of a replay under ``scheduler``, or None when preemption is off."""
    if getattr(scheduler, "name", "") != "capacity":
        return None
    values = site_values(tuple(getattr(scheduler, "site_files", ()) or ()))
    for key, (value, line) in scheduler.props.items():
        values[key] = (str(value).strip(), f"{scheduler.source}:{line}" if line else scheduler.source)
    settings = capacity_preemption(values)
    if settings is None:
        return None
    paths = [p for p in scheduler._paths]
    return CapacityPreemptionMonitor(settings, scheduler, disabled_queues(values, paths))


class CapacityPreemptionMonitor:
    """One replay's monitor: its event, its marks, and what it preempted."""

    def __init__(self, settings: CapacityPreemption, scheduler: "CapacityScheduler", disabled: set[str]) -> None:
        self.settings = settings
        self.scheduler = scheduler
        self.disabled = disabled
        self.knobs = policy.PolicyKnobs(settings.total_preemption_per_round, settings.max_ignored_over_capacity,
                                        settings.natural_termination_factor)
        self.marks = policy.Marks(settings.max_wait_s)  # when each selected container was first marked
        self.preempted: list[tuple[float, str, float]] = []  # (time, leaf queue path, MB) per killed container
        self.lost: list[tuple[int, int, bool, int, float, float, str]] = []  # the attempts killed, as the core's
        self.ticks = 0
        self.rm: "ResourceManager | None" = None
        self.kind = -1
        self._watch: list[tuple[Any, float]] | None = None  # (leaf, dead-zone threshold MB), built at the first run

    def attach(self, rm: "ResourceManager") -> None:
        """Join the replay: the monitor's event kind on the core, its first run at 0 s."""
        self.rm = rm
        self.kind = rm.jt.register_event(self._on_tick)
        rm.kernel.schedule(0.0, ORDER_APP_MASTER, self.kind, 0, 0)

    # ------------------------------------------------------------------------------------------ one run

    def _on_tick(self, now: float, order: int, k: int, _b: int) -> None:
        rm = self.rm
        assert rm is not None
        if rm.apps_done == len(rm.apps) or rm.stalled:
            return
        self.ticks += 1
        self.edit_schedule(now)
        if rm.running_tasks == 0 and now - rm.last_progress > rm.stall_after and not rm.kernel_busy():
            return  # nothing runs or can run: the replay's own stall check reports it (kernel_busy is O(events))
        rm.kernel.schedule((k + 1) * self.settings.interval_s, ORDER_APP_MASTER, self.kind, k + 1, 0)

    def _snapshot(self, queue: "CSQueue", cluster: int) -> policy.TempQueue:
        guaranteed = int(cluster * policy.f32(queue.abs_capacity))
        maximum = int(cluster * policy.f32(queue.abs_max))
        q = policy.TempQueue(queue.path, guaranteed, maximum, int(queue.used_mem), 0, queue.path in self.disabled)
        q.leaf = queue
        if queue.children:
            q.add_children(self._snapshot(kid, cluster) for kid in queue.children)
        else:
            q.pending = self._pending(queue)
        return q

    def _pending(self, queue: "CSQueue") -> int:
        """``getTotalPendingResourcesConsideringUserLimit``: the active apps' asks, per user at most its headroom."""
        room: dict[str, float] = {}
        total = 0.0
        limit = -1.0  # the user limit (the same for every user of the queue), computed at the first app with asks
        for app in queue.active_list:
            if app.pending_mb <= 0.0:
                continue
            user = app.user
            if user not in room:
                if limit < 0.0:
                    limit = self.scheduler._user_limit(queue, 0.0)
                usage: Any = app.usage
                room[user] = max(0.0, limit - usage.mem)
            take = min(room[user], max(0.0, app.pending_mb))
            room[user] -= take
            total += take
        return int(total)

    def _may_preempt(self, cluster: int) -> bool:
        """Whether a run can take anything: some preemptable leaf is above its dead zone and some leaf has asks.
        Otherwise every leaf's amount is 0 (the policy's own test), so the run is skipped. O(leaves + apps)."""
        watch = self._watch
        if watch is None:
            factor = 1.0 + policy.f32(self.knobs.max_ignored_over_capacity)
            # each leaf is listed by its name and by its path; the dead zone's threshold is fixed for the replay
            watch = self._watch = [(leaf, float(int(int(cluster * policy.f32(leaf.abs_capacity)) * factor)))
                                   for name, leaf in self.scheduler.leaves.items()
                                   if "." in name and leaf.path not in self.disabled]
        for leaf, threshold in watch:
            if int(leaf.used_mem) > threshold:
                break
        else:
            return False
        return any(app.pending_mb > 0.0 for name, leaf in self.scheduler.leaves.items() if "." in name
                   for app in leaf.active_list)

    def edit_schedule(self, now: float) -> list["Container"]:
        """One ``editSchedule``: mark, kill and forget; returns the containers killed."""
        rm = self.rm
        assert rm is not None
        cluster = int(rm.cluster_mem)
        if not self._may_preempt(cluster):
            return []
        root = self._snapshot(self.scheduler.root, cluster)
        leaves = policy.compute_ideal(root, cluster, self.knobs)
        by_app: dict[int, list[policy.Candidate]] = {}
        if any(q.actually > 0 for q in leaves):
            for c in rm.live_task_containers():
                by_app.setdefault(c.app, []).append(policy.Candidate(int(c.mem), c.priority, c.seq, False, c))
        apps_of: dict[int, list[list[policy.Candidate]]] = {}
        for q in leaves:
            leaf: Any = q.leaf
            apps_of[id(q)] = [by_app.get(app.index, []) for app in self.scheduler.serving_order(leaf)]
        chosen = policy.select(leaves, apps_of, cluster, self.knobs)
        killed: list["Container"] = []
        if self.settings.observe_only:
            return killed
        queue_of = {id(cand.ref): q.name for q, cand in chosen}
        for c in self.marks.update([cand.ref for _q, cand in chosen], now):
            ref: Any = c
            self._kill(ref, queue_of[id(c)], now)
            killed.append(ref)
        return killed

    def _kill(self, c: "Container", queue: str, now: float) -> None:
        """The container is killed: the RM side (:meth:`ResourceManager.preempt_container`), then its AM's task
        attempt is KILLED and the task asked for again."""
        rm = self.rm
        assert rm is not None
        am = rm.ams[c.app]
        job = am.state()
        i = c.task
        start = c.start
        rm.preempt_container(c, now)
        self.preempted.append((now, queue, c.mem))
        self.lost.append((c.app, i, c.kind != MAP, c.node, start, now, "KILLED"))
        if c.kind == MAP:
            am.assigned_maps -= 1
            am.scheduled_maps += 1
            am.requeued_maps.append(i)
            job.map_start[i] = job.map_finish[i] = -1.0
            job.map_tracker[i] = -1
            job.map_locality[i] = 0
            # asked again where its split is: the AM withdraws the other locations when a container comes
            am.outbox.append((PRIORITY_MAP, 1, am.map_hosts[i], am.map_racks[i]))
        else:
            am.running_reduces.pop(c, None)
            if c in am.waiting_reduces:
                am.waiting_reduces.remove(c)
            am.assigned_reduces -= 1
            am.pending_reduces += 1
            am.requeued_reduces.append(i)
            job.reduce_start[i] = job.reduce_finish[i] = job.reduce_shuffle_end[i] = -1.0
            job.reduce_tracker[i] = -1
        if am.next_alloc == INF:
            rm.wake_am(am)

    # ------------------------------------------------------------------------------------------ outputs

    def add_to(self, result: "ReplayResult") -> None:
        """The run's preemption in its result: ``spec.yarn_preemption``, ``summary.yarn.containers_preempted`` (and
        MB, marks, monitor runs), per-queue counts in ``summary.yarn.queues``, the killed attempts (``attempts.csv``)
        and two cumulative columns in ``queues.csv``."""
        rm = self.rm
        assert rm is not None
        result.spec["yarn_preemption"] = self.settings.describe() | {
            "disabled_queues": sorted(self.disabled)}
        yarn = result.summary["yarn"]
        yarn["containers_preempted"] = len(self.preempted)
        yarn["preempted_mb"] = sum(mb for _t, _q, mb in self.preempted)
        yarn["containers_marked"] = self.marks.marked
        yarn["preemption_runs"] = self.ticks
        result.summary["killed_tasks"] = int(result.summary["killed_tasks"]) + len(self.preempted)
        result.summary["wasted_slot_s"] = _r(rm.wasted_s)
        for name, q in (yarn.get("queues") or {}).items():
            mine = [mb for _t, queue, mb in self.preempted if queue == name]
            q["preempted_containers"] = len(mine)
            q["preempted_mb"] = sum(mine)
        job_ids = [am.template.job_id for am in rm.ams]
        names = [nd.name for nd in rm.nodes]
        result.lost_attempts = tuple(
            (job_ids[j], "REDUCE" if reduce else "MAP", i, names[n], round(start, 6), round(end, 6), what)
            for j, i, reduce, n, start, end, what in self.lost)
        series = getattr(result, "queue_series", None)
        if series is not None:
            result.queue_series = PreemptedSeries(series, self.preempted)  # type: ignore[attr-defined]


class PreemptedSeries:
    """``queues.csv`` with two more columns, ``preempted_containers`` and ``preempted_mb``: the queue's containers
    killed by preemption before the row's second (cumulative). Wraps the replay's :class:`QueueSeries`."""

    def __init__(self, series: Any, preempted: list[tuple[float, str, float]]) -> None:
        self.series = series
        self.times: dict[str, list[float]] = {}
        self.mb: dict[str, list[float]] = {}
        for t, queue, mb in preempted:
            self.times.setdefault(queue, []).append(t)
            acc = self.mb.setdefault(queue, [])
            acc.append((acc[-1] if acc else 0.0) + mb)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.series, name)

    def write_to(self, fh: Any) -> None:
        from mrsim.tracker.yarn.timeseries import COLUMNS

        fh.write(",".join(COLUMNS + ("preempted_containers", "preempted_mb")) + "\n")
        for r in self.series.rows:
            times = self.times.get(r[1], [])
            n = bisect.bisect_left(times, r[0])
            mb = self.mb[r[1]][n - 1] if n else 0.0
            fh.write(f"{r[0]:.0f},{r[1]},{r[2]:g},{r[3]:g},{r[4]:g},{r[5]:g},{r[6]},{r[7]},{r[8]},{r[9]},"
                     f"{r[10]:g},{n},{mb:g}\n")
