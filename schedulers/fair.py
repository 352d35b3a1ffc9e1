"""Fair Scheduler: Hadoop 1.x ``org.apache.hadoop.mapred.FairScheduler`` (the 0.20.205-1.2 "pools + delay
scheduling + preemption" design, MAPREDUCE-706), heartbeat by heartbeat. ``docs/hadoop-behaviour.md`` §3.

What is followed, by Hadoop class and method (1.2.1 unless said otherwise):

* **Pools** (``PoolManager.getPoolName``): a job's pool is its ``mapred.fairscheduler.pool`` (read from
  ``JobTemplate.extra``), else the job property named by ``mapred.fairscheduler.poolnameproperty``:
  ``user.name`` (default) -> ``JobTemplate.user``; ``mapred.job.queue.name`` / ``mapreduce.job.queuename`` ->
  ``JobTemplate.queue``; any other name -> ``JobTemplate.extra[name]``; else ``default``. YARN allocation files use
  their ``queuePlacementPolicy`` (default: specified queue, then the user's queue, then ``root.default``).
* **update()** every ``update.interval`` (0.5 s) on a scheduler timer, and on every job arrival: runnability
  under ``maxRunningJobs`` limits in FIFO order (``updateRunnability``), demands (``JobSchedulable.updateDemand``:
  unfinished tasks of runnable jobs, reduces only after slow start; pool demand capped at maxMaps/maxReduces),
  fair shares (``SchedulingAlgorithms.computeFairShares``, :func:`compute_fair_shares`), preemption timers.
* **assignTasks** (``FairScheduler.assignTasks``): one task per loop iteration; type MAP when the tracker's maps
  (running + assigned) <= its reduces, else REDUCE; a type is rejected once its per-heartbeat cap
  (``assignmultiple``: free slots, or ``assignmultiple.maps``/``.reduces``; else 1 task in total) is reached, when
  cluster running == runnable, or by ``CapBasedLoadManager`` (tracker running < ceil(slots x min(1, maxDiff +
  runnable / cluster slots))). Pools in ``FairShareComparator`` order (below min share first by
  running/min(minShare, demand), then running/weight, then name); inside a pool jobs by ``FifoJobComparator``
  (priority, submit, id) or the same fair comparator (job weight = priority factor 4/2/1/0.5/0.25, x log2(1 +
  demand) with ``sizebasedweight``).
* **Delay scheduling** (``getAllowedLocalityLevel``, ``updateLocalityWaitTimes``): a job's wait grows by the time
  between consecutive ``assignTasks`` calls (on any tracker) at which it was visited and launched no map; node
  level until ``locality.delay.node``, rack until + ``locality.delay.rack``, then any (defaults: min(15 s, 1.5 x
  heartbeat interval)); a starved pool, or a job with a map that has no split location, skips the wait.
* **Preemption** (``preemptTasksIfNecessary``, ``tasksToPreempt``, ``preemptTasks``), off unless
  ``mapred.fairscheduler.preemption`` is true: at most every ``preemption.interval`` (15 s), after the update,
  pools below min(minShare, demand) for longer than their ``minSharePreemptionTimeout``, or below half their fair
  share for ``fairSharePreemptionTimeout``, get tasks back: the newest running tasks of pools over their fair share
  are killed with ``JobTracker.kill_task`` (wasted work counted by the engine) while the victim pool stays above
  its fair share.

Approximations (also in ``describe()["approximations"]``): jobs are RUNNING at arrival (no setup task, no
JobInitializer delay for newly runnable jobs); only jobs with pending tasks are visited, so a job with nothing
left to launch does not accumulate locality wait (Hadoop visits it too); within-pool job fair shares
(``redistributeShare``) are not computed (they are display-only in Hadoop); equal start times among preemption
victims are broken by pool name, job order and task index (Hadoop: hash order); the allocation file is read once
(no reload every 10 s); the actual locality of a launched map is found by asking for node-local first, then
rack-local, then any.

Cost: ``assign_tasks`` is O(log pools + log jobs) per task launched plus O(jobs skipped for locality); the pool
order is a ``SortedList`` re-keyed only for the pool and job whose running count changed (never a full re-sort);
``update()`` is O(running jobs + pools) every 0.5 s of simulated time while jobs run (no timer while idle).
"""

from __future__ import annotations

import enum
import math
from typing import TYPE_CHECKING

from sortedcontainers import SortedList

from mrsim.tracker.plugin_helpers import keep_polling, rekey
from mrsim.tracker.schedconf.fair_alloc import Dialect, PlacementKind, PlacementRule, SchedulingMode
from mrsim.tracker.schedconf.fair_conf import KEY_POOL, FairSchedulerConf, load_fair_conf
from mrsim.tracker.schedconf.livecounts import JobMirror, LiveCounts
from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState, TrackerState

INF = math.inf
MAP, REDUCE = 0, 1
KINDS = (MAP, REDUCE)
#: FairScheduler.getPriorityFactor, indexed by mrsim.model.templates.Priority (VERY_HIGH = 0 ... VERY_LOW = 4)
PRIORITY_FACTOR = (4.0, 2.0, 1.0, 0.5, 0.25)
COMPUTE_FAIR_SHARES_ITERATIONS = 25  # SchedulingAlgorithms.COMPUTE_FAIR_SHARES_ITERATIONS


class LocalityLevel(enum.IntEnum):
    """``LocalityLevel``: the most distant level a job may currently launch a map at."""

    NODE = 1
    RACK = 2
    ANY = 3


def compute_fair_shares(weights: list[float], min_shares: list[float], demands: list[float],
                        total_slots: float) -> list[float]:
    """``SchedulingAlgorithms.computeFairShares``: shares s_i = min(demand_i, max(minShare_i, R x weight_i)) with
    R found so that sum s_i = min(sum demand, total_slots). R's upper bound starts at 1 and doubles; then 25
    bisection steps; the upper end is used (so the sum can exceed the target by < 2^-25 x R). Cost O(n x 25).
    """

    def used(r: float) -> float:
        return sum(min(d, max(m, r * w)) for w, m, d in zip(weights, min_shares, demands))

    cap = min(sum(demands), total_slots)
    right = 1.0
    while used(right) < cap:
        right *= 2.0
    left = 0.0
    for _ in range(COMPUTE_FAIR_SHARES_ITERATIONS):
        mid = (left + right) / 2.0
        if used(mid) < cap:
            left = mid
        else:
            right = mid
    return [min(d, max(m, right * w)) for w, m, d in zip(weights, min_shares, demands)]


class FairJob(JobMirror):
    """Per-job scheduler data (``JobInfo`` + the two ``JobSchedulable``s), kept in ``JobState.sched``."""

    __slots__ = ("pool", "priority_factor", "weight", "runnable", "ready", "key", "no_locality", "last_level",
                 "waited")

    def __init__(self, job: "JobState", pool: "Pool") -> None:
        super().__init__(job)
        self.pool = pool
        self.priority_factor = PRIORITY_FACTOR[job.priority]
        self.weight = [self.priority_factor, self.priority_factor]
        self.runnable = False
        self.ready = False  # reduces past slow start, as this scheduler has been told (JobChange.REDUCES_READY)
        self.key: list[tuple | None] = [None, None]  # entry in pool.queue[kind], or None
        locs = job.template.map_locations
        # JobInProgress.nonLocalMaps non-empty (a split without locations) -> no delay scheduling for the job
        self.no_locality = locs is None or any(len(x) == 0 for x in locs)
        self.last_level = LocalityLevel.NODE
        self.waited = 0.0  # timeWaitedForLocalMap (s)

    def demand(self, kind: int) -> int:
        """``JobSchedulable.updateDemand``: unfinished tasks of a runnable job (reduces only after slow start)."""
        if not self.runnable:
            return 0
        job = self.job
        if kind == MAP:
            return job.n_maps - self.seen_fin_maps
        return job.n_reduces - self.seen_fin_reduces if self.ready else 0


class Pool:
    """A pool (``Pool`` + its two ``PoolSchedulable``s): settings, live running counts and its job queues."""

    __slots__ = ("name", "weight", "min_share", "max_share", "mode", "min_timeout", "fair_timeout", "fair_threshold",
                 "preemptable", "jobs", "running", "live_demand", "demand", "fair_share", "queue", "key",
                 "last_at_min", "last_at_half", "declared")

    def __init__(self, name: str, conf: FairSchedulerConf, map_slots: int, reduce_slots: int, now: float) -> None:
        alloc = conf.allocations
        p = alloc.pool(name)
        self.name = name
        self.declared = p is not None
        self.weight = p.weight if p is not None else 1.0
        if p is not None and p.min_share_fraction is not None:
            self.min_share = [math.floor(p.min_share_fraction * map_slots), math.floor(p.min_share_fraction * reduce_slots)]
        else:
            self.min_share = [p.min_maps, p.min_reduces] if p is not None else [0, 0]
        if p is not None and p.max_share_fraction is not None:
            self.max_share: list[float] = [math.floor(p.max_share_fraction * map_slots),
                                           math.floor(p.max_share_fraction * reduce_slots)]
        else:
            self.max_share = [INF if p is None or p.max_maps is None else p.max_maps,
                              INF if p is None or p.max_reduces is None else p.max_reduces]
        self.mode = alloc.mode(name)
        self.min_timeout = alloc.min_share_timeout_s(name)
        self.fair_timeout = alloc.fair_share_timeout_s(name)
        self.fair_threshold = alloc.fair_share_threshold(name)
        self.preemptable = p.allow_preemption_from if p is not None else True
        self.jobs: dict[FairJob, None] = {}
        self.running = [0, 0]
        self.live_demand = [0, 0]  # sum of job demands now (kept incrementally)
        self.demand = [0, 0]  # as of the last update(): min(live demand, maxMaps/maxReduces)
        self.fair_share = [0.0, 0.0]
        self.queue = [SortedList(), SortedList()]  # runnable jobs with pending tasks, in pool job order
        self.key: list[tuple | None] = [None, None]  # entry in the scheduler's pool order, or None
        self.last_at_min = [now, now]  # PoolSchedulable: lastTimeAtMinShare starts at creation
        self.last_at_half = [now, now]

    def sort_key(self, kind: int) -> tuple:
        """``FairShareComparator`` for pools (start time 0 for every pool, so ties go by name)."""
        running = self.running[kind]
        min_share = min(self.min_share[kind], self.demand[kind])
        if running < min_share:
            return (0, running / max(min_share, 1.0), self.name, self)
        return (1, running / self.weight, self.name, self)


class FairScheduler(TaskScheduler):
    """Hadoop 1.x Fair Scheduler on the mrsim heartbeat engine (see the module docstring)."""

    @property
    def bounded_wakes_exact(self) -> bool:  # type: ignore[override]
        """Nothing launched, nothing changed when no task is pending (tests check), except with preemption on: an
        idle heartbeat also catches the update ticks up, which can move the next preemption check (routing
        ``wake_all`` through the bounded chains moved a kill by one tick in a test), so the engine keeps waking
        every idle tracker then."""
        return not self.fconf.preemption

    name = "fair"
    summary = "Hadoop 1.x FairScheduler: pools, min shares, weights, delay scheduling, preemption (MRv1/YARN files)"

    def __init__(self, config: dict | None = None) -> None:
        super().__init__(config)
        self.fconf = load_fair_conf(self.config)  # parse now: configuration errors surface before the replay

    # ------------------------------------------------------------------------------------------- set-up

    def start(self, jt: "JobTracker") -> None:
        super().start(jt)
        if jt.conf.source:  # the replay's --mapred-site file may hold mapred.fairscheduler.* keys
            self.fconf = load_fair_conf(self.config, jt.conf.source)
        conf = self.fconf
        self.node_delay, self.rack_delay = conf.locality_delays_s(jt.interval)
        self.live = LiveCounts(jt, self._on_change)
        self.pools: dict[str, Pool] = {}
        self.order = [SortedList(), SortedList()]  # eligible pools in FairShareComparator order
        self.total_running = [0, 0]
        self.total_demand = [0, 0]  # sum of pool demands as of the last update()
        self.dirty_pools: set[Pool] = set()  # live demand changed since the last update()
        self.reopened: set[tuple[Pool, int]] = set()  # pools that fell below their max in the current event
        self.fifo_jobs = SortedList()  # (priority, submit, index, FairJob): FifoJobComparator, for runnability
        alloc = conf.allocations
        self.limits = any(p.max_running_jobs is not None for p in alloc.pools) or bool(alloc.user_max_jobs) or \
            alloc.user_max_jobs_default is not None or alloc.pool_max_jobs_default is not None
        self.runnability_dirty = False
        self.skipped: set[FairJob] = set()
        self.waiting = False  # some job was skipped for locality at the last assignTasks
        self.last_assign: float | None = None  # time of the previous assignTasks call on any tracker (s)
        self.tick = conf.update_interval_s
        self.done_k = 0  # update() has been brought up to tick done_k (time done_k x tick)
        self.timers: set[int] = set()  # ticks with a queued timer
        self.last_preempt_check = -INF  # Hadoop's field starts at 0 of the epoch: the first update checks
        self.preempt_k: int | None = None  # tick of the next preemption check
        self.fair_shares_stale = True
        self.updates = 0
        self.timer_events = 0
        self.preemption_rounds = 0
        self.preempted = 0
        self.should_preempt = 0
        self.routed: dict[str, int] = {}  # pool -> jobs added to it (routes())
        for p in alloc.pools:  # PoolManager creates every configured pool at load time
            self._pool(p.name, 0.0)
        self._pool("root.default" if conf.dialect is Dialect.YARN else "default", 0.0)

    def _pool(self, name: str, now: float) -> Pool:
        pool = self.pools.get(name)
        if pool is None:
            pool = Pool(name, self.fconf, self.jt.total_map_slots, self.jt.total_reduce_slots, now)
            self.pools[name] = pool
            self.fair_shares_stale = True
        return pool

    def describe(self) -> dict:
        out: dict = {"name": self.name, **self.fconf.describe()}
        if hasattr(self, "node_delay"):
            out["locality_delay_node_s_effective"] = self.node_delay
            out["locality_delay_rack_s_effective"] = self.rack_delay
            out["updates"] = self.updates
            out["timer_events"] = self.timer_events
            out["preemption_rounds"] = self.preemption_rounds
            out["tasks_preempted"] = self.preempted
        out["warnings"] = list(self.fconf.warnings)
        out["approximations"] = [
            "jobs are RUNNING at arrival (no setup task or initialization delay)",
            "jobs with no pending task are not visited (no locality wait accrues for them)",
            "within-pool job fair shares are not computed (display-only in Hadoop)",
            "preemption victims with equal start times: pool name, job order, task index (Hadoop: hash order)",
            "the allocation file is read once (no periodic reload)",
            "YARN files: resources become slot counts, nested queues become flat pools",
        ]
        return out

    def routes(self) -> list[tuple[str, int]]:
        """Jobs per pool with the pool's weight and map min share (``undeclared``: not in the allocation file)."""
        from mrsim.tracker.routing import ordered

        out = []
        for name, n in ordered(getattr(self, "routed", {})):
            pool = self.pools[name]
            settings = f"weight {pool.weight:g}, minMaps {pool.min_share[MAP]}"
            out.append((f"pool {name} ({settings})" if pool.declared else f"pool {name} (undeclared: {settings})", n))
        return out

    # ------------------------------------------------------------------------------------------- pools of jobs

    def pool_name(self, job: "JobState") -> str:
        """``PoolManager.getPoolName`` (MRv1) or the YARN queue placement policy (see the module docstring)."""
        conf = self.fconf
        extra = job.template.extra
        if conf.dialect is Dialect.YARN:
            return self._place_yarn(job)
        explicit = extra.get(KEY_POOL) if extra else None
        if explicit:
            name = str(explicit).strip()
        else:
            prop = conf.poolnameproperty
            if prop == "user.name":
                name = job.user
            elif prop in ("mapred.job.queue.name", "mapreduce.job.queuename"):
                name = job.queue
            else:
                value = extra.get(prop) if extra else None
                name = str(value).strip() if value else "default"
        name = name or "default"
        if not conf.allow_undeclared_pools and name != "default" and not conf.allocations.declared(name):
            raise InputError(f"job {job.job_id}: pool {name!r} is not declared in "
                             f"{conf.allocations.source or 'the allocation file'} and "
                             f"mapred.fairscheduler.allow.undeclared.pools is false (Hadoop rejects the job)")
        return name

    def _yarn_name(self, name: str) -> str:
        full = name if name == "root" or name.startswith("root.") else f"root.{name}"
        alloc = self.fconf.allocations
        if not alloc.declared(full):  # a short leaf name: root.research.ml named as "ml"
            matches = [p.name for p in alloc.pools if p.name.endswith("." + name)]
            if len(matches) == 1:
                return matches[0]
        return full

    def _place_yarn(self, job: "JobState") -> str:
        conf = self.fconf
        alloc = conf.allocations
        rules = alloc.placement
        if not rules:  # QueuePlacementPolicy.fromConfiguration's default policy
            create = conf.allow_undeclared_pools
            rules = (PlacementRule(PlacementKind.SPECIFIED, create),) + (
                (PlacementRule(PlacementKind.USER, create),) if conf.user_as_default_queue else ()) + (
                PlacementRule(PlacementKind.DEFAULT, True),)
        for rule in rules:
            if rule.kind is PlacementKind.SPECIFIED:
                if not job.queue or job.queue == "default":
                    continue
                name = self._yarn_name(job.queue)
            elif rule.kind in (PlacementKind.USER, PlacementKind.PRIMARY_GROUP):
                name = "root." + job.user.replace(".", "_dot_")
            elif rule.kind is PlacementKind.DEFAULT:
                return rule.queue
            else:
                raise InputError(f"job {job.job_id}: rejected by the queuePlacementPolicy of {alloc.source} "
                                 f"(queue {job.queue!r}, user {job.user!r})")
            if rule.create or alloc.declared(name):
                return name
        return "root.default"

    # ------------------------------------------------------------------------------------------- ordering

    def _job_key(self, fj: FairJob, kind: int) -> tuple:
        job = fj.job
        if fj.pool.mode is SchedulingMode.FIFO:  # FifoJobComparator: priority, start time, name
            return (job.priority, job.submit, job.job_id, fj)
        running = fj.seen_maps if kind == MAP else fj.seen_reduces
        # FairShareComparator for jobs: minShare 0, so never needy; running / weight, then start time, name
        return (running / fj.weight[kind], job.submit, job.job_id, fj)

    @staticmethod
    def _pending(job: "JobState", kind: int) -> bool:
        if kind == MAP:
            return job.maps_pending > 0
        return job.reduces_ready and job.reduces_pending > 0

    def _rekey_pool(self, pool: Pool, kind: int) -> None:
        old = pool.key[kind]
        new = pool.sort_key(kind) if pool.queue[kind] and pool.running[kind] < pool.max_share[kind] else None
        if old != new:
            rekey(self.order[kind], old, new)
            pool.key[kind] = new

    def _rekey_job(self, fj: FairJob, kind: int) -> None:
        old = fj.key[kind]
        new = self._job_key(fj, kind) if fj.runnable and not fj.removed and self._pending(fj.job, kind) else None
        if old != new:
            rekey(fj.pool.queue[kind], old, new)
            fj.key[kind] = new
        self._rekey_pool(fj.pool, kind)

    def _set_demand_terms(self, fj: FairJob, runnable: bool, ready: bool) -> None:
        """Change a job's runnable/ready flags, moving its demand in and out of its pool's live demand."""
        pool = fj.pool
        before = (fj.demand(MAP), fj.demand(REDUCE))
        fj.runnable, fj.ready = runnable, ready
        pool.live_demand[MAP] += fj.demand(MAP) - before[0]
        pool.live_demand[REDUCE] += fj.demand(REDUCE) - before[1]
        self.dirty_pools.add(pool)

    def _on_change(self, m: JobMirror, d_maps: int, d_reduces: int, d_fin_maps: int, d_fin_reduces: int) -> None:
        fj: FairJob = m  # type: ignore[assignment]
        pool = fj.pool
        if fj.runnable and (d_fin_maps or (fj.ready and d_fin_reduces)):
            pool.live_demand[MAP] -= d_fin_maps
            if fj.ready:
                pool.live_demand[REDUCE] -= d_fin_reduces
            self.dirty_pools.add(pool)
        for kind, d in ((MAP, d_maps), (REDUCE, d_reduces)):
            if not d:
                continue
            before = pool.running[kind]
            pool.running[kind] = before + d
            self.total_running[kind] += d
            self._rekey_job(fj, kind)
            if d < 0 and before >= pool.max_share[kind] > pool.running[kind]:
                self.reopened.add((pool, kind))

    def _flush_reopened(self) -> None:
        """Pools that fell back under maxMaps/maxReduces during this event and still are (the tracker that freed
        the slot usually refills it at once) can take tasks on trackers parked meanwhile: wake those."""
        for pool, kind in self.reopened:
            if pool.running[kind] < pool.max_share[kind] and pool.queue[kind]:
                (self.jt.wake_for_maps if kind == MAP else self.jt.wake_for_reduces)()
        self.reopened.clear()

    # ------------------------------------------------------------------------------------------- job events

    def job_added(self, job: "JobState") -> None:
        now = self.jt.now
        self._catch_up(now)
        pool = self._pool(self.pool_name(job), now)
        self.routed[pool.name] = self.routed.get(pool.name, 0) + 1
        fj = FairJob(job, pool)
        job.sched = fj
        pool.jobs[fj] = None
        self.live.add(fj)
        self.fifo_jobs.add((job.priority, job.submit, job.index, fj))
        if not self.limits:
            self._set_demand_terms(fj, True, False)
            for kind in KINDS:
                self._rekey_job(fj, kind)
        else:
            self.runnability_dirty = True
        self._update(now)  # JobListener.jobAdded calls update()
        self._schedule_preemption_check()
        self._flush_reopened()

    def job_updated(self, job: "JobState", change: JobChange) -> None:
        self._catch_up(self.jt.now)
        fj: FairJob = job.sched  # type: ignore[assignment]
        if change is JobChange.REDUCES_READY and not fj.ready:
            self._set_demand_terms(fj, fj.runnable, True)
            if fj.runnable:
                self._want_timer(self.done_k + 1)  # the next update() raises the reduce demand: wake then
        if change is JobChange.TASKS_REQUEUED:
            self.live.sync(fj)
            self._rekey_job(fj, MAP)
        self._rekey_job(fj, REDUCE)
        self._flush_reopened()

    def job_removed(self, job: "JobState") -> None:
        self._catch_up(self.jt.now)
        fj: FairJob = job.sched  # type: ignore[assignment]
        self.live.remove(fj)
        self._set_demand_terms(fj, False, fj.ready)
        for kind in KINDS:
            self._rekey_job(fj, kind)
        del fj.pool.jobs[fj]
        self.fifo_jobs.remove((job.priority, job.submit, job.index, fj))
        self.skipped.discard(fj)
        if self.limits:
            self.runnability_dirty = True  # Hadoop recomputes runnability at the next update()
            self._want_timer(self.done_k + 1)
        self._flush_reopened()

    # ------------------------------------------------------------------------------------------- update()

    def _want_timer(self, k: int) -> None:
        """Queue an update tick at k x ``update.interval`` (once)."""
        if k not in self.timers:
            self.timers.add(k)
            self.jt.schedule_timer(k * self.tick, k)

    def _catch_up(self, now: float) -> None:
        """Run the update() of the latest tick <= now if it has not run yet.

        Hadoop's update thread runs every ``update.interval``; between two events of the replay the state is
        frozen, so every tick in between would compute the same demands, and the last one wins. The mirrors in
        ``LiveCounts`` still hold the state from before the current event, which is the state at that tick.
        Preemption timestamps ("last time at min share") are set to the tick's time, as the last of those
        updates would. Ticks whose effect is visible at once (a demand rise that wakes trackers, runnability,
        preemption checks) get a real timer instead (:meth:`_want_timer`).
        """
        k = math.floor(now / self.tick + 1e-9)
        if k > self.done_k:
            self.done_k = k
            self._update(k * self.tick)

    def on_timer(self, now: float, token: int) -> None:
        self.timers.discard(token)
        self.timer_events += 1
        self._catch_up(now)
        if token == self.preempt_k:
            self.preempt_k = None
            self._preempt_if_necessary(now)
            self._schedule_preemption_check()
        self._flush_reopened()

    def _schedule_preemption_check(self) -> None:
        """Queue the next preemption check tick (``preemptTasksIfNecessary`` runs after every update but acts at
        most every ``preemption.interval``); none while no job runs (idle checks are replayed on arrival)."""
        conf = self.fconf
        if not conf.preemption or self.preempt_k is not None:
            return
        if not self.jt.running_jobs:
            return
        # The first update checks; later checks come at the first tick >= previous check + interval. Checks at
        # ticks already passed happened while no job ran (they found nothing): only their times are kept.
        k = 1 if self.last_preempt_check == -INF else self._next_check_k()
        while k <= self.done_k:
            self.last_preempt_check = k * self.tick
            k = self._next_check_k()
        self.preempt_k = k
        self._want_timer(k)

    def _next_check_k(self) -> int:
        return max(1, math.ceil((self.last_preempt_check + self.fconf.preemption_interval_s) / self.tick - 1e-9))

    def _update_runnability(self) -> None:
        """``FairScheduler.updateRunnability``: walk jobs in FIFO order, count them against user/pool limits."""
        self.runnability_dirty = False
        alloc = self.fconf.allocations
        users: dict[str, int] = {}
        pools: dict[str, int] = {}
        woke = False
        for _, _, _, fj in self.fifo_jobs:
            user, pname = fj.job.user, fj.pool.name
            u, p = users.get(user, 0), pools.get(pname, 0)
            ulim, plim = alloc.user_limit(user), alloc.pool_limit(pname)
            ok = (ulim is None or u < ulim) and (plim is None or p < plim)
            if ok:
                users[user] = u + 1
                pools[pname] = p + 1
            if ok != fj.runnable:
                self._set_demand_terms(fj, ok, fj.ready)
                for kind in KINDS:
                    self._rekey_job(fj, kind)
                woke = woke or ok
        if woke:
            self.jt.wake_all()

    def _update(self, now: float) -> None:
        """``FairScheduler.update()`` as of time ``now``: runnability, demands, fair shares, preemption timers.

        Cost O(pools whose demand changed) (+ O(jobs) with ``sizebasedweight``, + O(pools x 25) with preemption).
        """
        self.updates += 1
        if self.runnability_dirty:
            self._update_runnability()
        before = list(self.total_demand)
        for pool in self.dirty_pools:
            for kind in KINDS:
                capped = int(min(pool.live_demand[kind], pool.max_share[kind]))
                if capped != pool.demand[kind]:
                    self.total_demand[kind] += capped - pool.demand[kind]
                    pool.demand[kind] = capped
                    self.fair_shares_stale = True
                    self._rekey_pool(pool, kind)
        self.dirty_pools.clear()
        for kind in KINDS:
            if self.total_demand[kind] > before[kind]:
                # More runnable tasks: the load cap and the "running == runnable" test may now let trackers in.
                (self.jt.wake_for_maps if kind == MAP else self.jt.wake_for_reduces)()
        if self.fconf.sizebasedweight:
            for _, _, _, fj in self.fifo_jobs:
                for kind in KINDS:
                    w = math.log1p(fj.demand(kind)) / math.log(2.0) * fj.priority_factor
                    w = max(w, 1e-9)  # Hadoop divides by a zero weight here; keep the order finite
                    if w != fj.weight[kind]:
                        fj.weight[kind] = w
                        self._rekey_job(fj, kind)  # the stored entry still has the old weight
        if self.fconf.preemption:
            if self.fair_shares_stale:
                self._compute_fair_shares()
            for pool in self.pools.values():  # updatePreemptionVariables
                for kind in KINDS:
                    running, demand = pool.running[kind], pool.demand[kind]
                    if not running < min(pool.min_share[kind], demand):
                        pool.last_at_min[kind] = now
                    if not running < math.floor(min(pool.fair_share[kind] * pool.fair_threshold, demand)):
                        pool.last_at_half[kind] = now

    def _compute_fair_shares(self) -> None:
        self.fair_shares_stale = False
        pools = list(self.pools.values())
        for kind, total in ((MAP, self.jt.total_map_slots), (REDUCE, self.jt.total_reduce_slots)):
            shares = compute_fair_shares([p.weight for p in pools], [float(p.min_share[kind]) for p in pools],
                                         [float(p.demand[kind]) for p in pools], float(total))
            for p, s in zip(pools, shares):
                p.fair_share[kind] = s

    def fair_shares(self, kind: int = MAP) -> dict[str, float]:
        """Pool name -> fair share (slots) as of the last update (computed here when preemption is off)."""
        self._compute_fair_shares()
        return {p.name: p.fair_share[kind] for p in self.pools.values()}

    # ------------------------------------------------------------------------------------------- preemption

    def _preempt_if_necessary(self, now: float) -> None:
        conf = self.fconf
        if not conf.preemption or now - self.last_preempt_check < conf.preemption_interval_s:
            return
        self.last_preempt_check = now
        self.preemption_rounds += 1
        for kind in KINDS:
            total = sum(self._tasks_to_preempt(p, kind, now) for p in self.pools.values())
            if total > 0:
                self.should_preempt += total
                if not conf.preemption_only_log:
                    self._preempt(kind, total, now)

    @staticmethod
    def _tasks_to_preempt(pool: Pool, kind: int, now: float) -> int:
        """``FairScheduler.tasksToPreempt``."""
        due_min = due_fair = 0
        running, demand = pool.running[kind], pool.demand[kind]
        if now - pool.last_at_min[kind] > pool.min_timeout:
            due_min = max(0, min(pool.min_share[kind], demand) - running)
        if now - pool.last_at_half[kind] > pool.fair_timeout:
            due_fair = max(0, int(min(pool.fair_share[kind], demand)) - running)
        return max(due_min, due_fair)

    def _preempt(self, kind: int, count: int, now: float) -> None:
        """``FairScheduler.preemptTasks``: kill the newest tasks of pools above their fair share. O(their tasks)."""
        reduce = kind == REDUCE
        victims = []
        for pool in self.pools.values():
            if not pool.preemptable or not pool.running[kind] > pool.fair_share[kind]:
                continue
            for fj in pool.jobs:
                job = fj.job
                starts = job.reduce_start if reduce else job.map_start
                finishes = job.reduce_finish if reduce else job.map_finish
                requeued = job.requeued_reduces if reduce else job.requeued_maps
                top = job.next_reduce if reduce else job.next_map
                for i in range(top):
                    s = starts[i]
                    # the engine's notion of a running attempt (JobTracker.kill_task)
                    if s >= 0.0 and (finishes[i] > now or (reduce and finishes[i] < 0.0)) and i not in requeued:
                        victims.append((-s, pool.name, job.index, -i, fj))
        victims.sort(key=lambda v: v[:4])
        left = {p.name: p.running[kind] for p in self.pools.values()}
        for _, pname, _, _, fj in victims:
            pool = fj.pool
            if left[pname] > pool.fair_share[kind]:
                job = fj.job
                victim_tracker = self._newest_running_tracker(job, reduce, now)
                if victim_tracker >= 0:
                    self.live.killed(fj, victim_tracker)
                if self.jt.kill_task(job, reduce) >= 0.0:
                    self.preempted += 1
                    count -= 1
                    if count == 0:
                        break
                    left[pname] -= 1

    @staticmethod
    def _newest_running_tracker(job: "JobState", reduce: bool, now: float) -> int:
        """Tracker of the attempt ``JobTracker.kill_task`` will pick (the newest running one), or -1."""
        starts = job.reduce_start if reduce else job.map_start
        finishes = job.reduce_finish if reduce else job.map_finish
        requeued = job.requeued_reduces if reduce else job.requeued_maps
        best, newest = -1, -1.0
        for i in range((job.next_reduce if reduce else job.next_map) - 1, -1, -1):
            s = starts[i]
            if s > newest and s >= 0.0 and (finishes[i] > now or (reduce and finishes[i] < 0.0)) and i not in requeued:
                best, newest = i, s
        if best < 0:
            return -1
        return (job.reduce_tracker if reduce else job.map_tracker)[best]

    # ------------------------------------------------------------------------------------------- heartbeat

    def _allowed_level(self, fj: FairJob, now: float) -> LocalityLevel:
        """``FairScheduler.getAllowedLocalityLevel``."""
        if fj.no_locality:
            return LocalityLevel.ANY
        pool = fj.pool
        if now - pool.last_at_min[MAP] > pool.min_timeout or now - pool.last_at_half[MAP] > pool.fair_timeout:
            return LocalityLevel.ANY  # the pool is starved: no waiting
        waited = fj.waited
        if fj.last_level == LocalityLevel.NODE:
            if waited >= self.node_delay + self.rack_delay:
                return LocalityLevel.ANY
            return LocalityLevel.RACK if waited >= self.node_delay else LocalityLevel.NODE
        if fj.last_level == LocalityLevel.RACK:
            return LocalityLevel.ANY if waited >= self.rack_delay else LocalityLevel.RACK
        return LocalityLevel.ANY

    def _obtain_map(self, fj: FairJob, tracker: "TrackerState", level: LocalityLevel) -> LocalityLevel | None:
        """Launch a map no further than ``level``; return the locality it had (tried nearest first)."""
        obtain = self.jt.obtain_new_map_task
        job = fj.job
        if obtain(job, tracker, Locality.NODE):
            return LocalityLevel.NODE
        if level == LocalityLevel.NODE:
            return None
        if obtain(job, tracker, Locality.RACK):
            return LocalityLevel.RACK
        if level == LocalityLevel.RACK:
            return None
        if obtain(job, tracker, Locality.ANY):
            return LocalityLevel.ANY
        return None

    def _assign_one(self, kind: int, tracker: "TrackerState", now: float, visited: set, launched: set) -> bool:
        """One iteration of the assignTasks loop: the first pool (in order) whose job yields a task."""
        for pool_entry in self.order[kind]:
            pool: Pool = pool_entry[-1]
            for job_entry in pool.queue[kind]:
                fj: FairJob = job_entry[-1]
                if kind == MAP:
                    visited.add(fj)
                    got = self._obtain_map(fj, tracker, self._allowed_level(fj, now))
                    if got is None:
                        continue
                    fj.last_level = got  # updateLastMapLocalityLevel
                    fj.waited = 0.0
                    launched.add(fj)
                elif not self.jt.obtain_new_reduce_task(fj.job, tracker):
                    continue
                self.live.launched(fj, tracker)  # re-keys the job and its pool
                return True
        return False

    def assign_tasks(self, tracker: "TrackerState") -> int:
        jt = self.jt
        now = jt.kernel.now
        self._catch_up(now)  # before syncing: the mirrors still hold the state of the last tick
        self.live.sync_tracker(tracker)
        # updateLocalityWaitTimes
        dt = 0.0 if self.last_assign is None else now - self.last_assign
        self.last_assign = now
        if self.skipped:
            for fj in self.skipped:
                fj.waited += dt
            self.skipped.clear()
        conf = self.fconf
        free = (tracker.map_slots - tracker.running_maps, tracker.reduce_slots - tracker.running_reduces)
        if conf.assignmultiple:
            caps = tuple(f if c < 0 else min(c, f) for f, c in zip(free, (conf.assignmultiple_maps,
                                                                           conf.assignmultiple_reduces)))
        else:
            caps = (1, 1)
        slots = (tracker.map_slots, tracker.reduce_slots)
        totals = (jt.total_map_slots, jt.total_reduce_slots)
        load_caps = tuple(
            math.ceil(s * min(1.0, conf.load_max_diff + (self.total_demand[k] / totals[k] if totals[k] else 0.0)))
            for k, s in enumerate(slots))
        assigned = [0, 0]
        rejected = [False, False]
        blocked_by_totals = False
        visited: set[FairJob] = set()
        launched: set[FairJob] = set()
        while True:
            for k in KINDS:
                if rejected[k]:
                    continue
                running_here = tracker.running_maps if k == MAP else tracker.running_reduces
                if assigned[k] == caps[k] or not running_here < load_caps[k]:
                    rejected[k] = True
                elif self.total_running[k] == self.total_demand[k]:
                    rejected[k] = True
                    blocked_by_totals = blocked_by_totals or (bool(self.order[k]) and free[k] > 0)
            if (rejected[MAP] and rejected[REDUCE]) or (not conf.assignmultiple and assigned[MAP] + assigned[REDUCE]):
                break
            if rejected[MAP]:
                kind = REDUCE
            elif rejected[REDUCE]:
                kind = MAP
            else:  # 1.2.1: TT running (reported + assigned in this heartbeat) of each type
                kind = MAP if tracker.running_maps <= tracker.running_reduces else REDUCE
            if self._assign_one(kind, tracker, now, visited, launched):
                assigned[kind] += 1
            else:
                rejected[kind] = True
        for fj in visited:
            if fj not in launched:
                self.skipped.add(fj)
        # A job waits for locality: its wait grows only through later assignTasks calls, so every tracker with
        # a free slot keeps heartbeating, as the naive engine (and Hadoop) would.
        self.waiting = keep_polling(jt, tracker, bool(self.skipped), self.waiting)
        if blocked_by_totals:
            jt.request_heartbeat(tracker)
        self._flush_reopened()
        return assigned[MAP] + assigned[REDUCE]
