"""Central controller plus per-datacenter local schedulers for federations (Hung, Golubchik, Yu, SoCC'15, sec. 2).

The geo policies run *inside the heartbeat engine* here: datacenters are groups of TaskTrackers
(``[[datacenters]]`` in the cluster file), and every task of a job is placed in one datacenter, so a job is a set
of sub-jobs, one per datacenter holding part of its input; it completes when its last sub-job completes.

**Controller.** A decision is due after every job arrival (``job_added``), departure (``job_removed``) and
requeue of killed or failed tasks (``job_updated(TASKS_REQUEUED)``). It snapshots, per running job and per
datacenter, the job's *queued* tasks there (pending: never launched, or requeued), calls the policy from
:mod:`mrsim.studies.geo.policies` and keeps one local order per datacenter. Queued work changes only through
launches, and launches happen only in ``assign_tasks``, so a decision computed any time between the change and
the next ``assign_tasks`` gives the same orders. When it is computed:

* in task-completion mode (``--heartbeat-interval off``: the paper's push model, what ``mrsim geo`` runs) at the
  end of the instant of the change: the change queues one controller event at that instant with the order of
  task completions, so it runs after every arrival and completion of the instant and before its heartbeats.
  That is the paper's rule, one decision per batch of same-instant events that holds an arrival or a
  departure, and the decision records (``decision_at``, ``decision_jobs``) are the model's;
* with heartbeats, lazily at the first ``assign_tasks`` after the change (no event of its own): a decision then
  covers every change since the last one, and ``decision_at`` records the first of them.

**Size of a sub-job** (what the SRPT variants, Reordering and SWAG compare): its queued tasks, maps plus
reduces, in that datacenter, as the paper counts tasks (``measure = "tasks"``, the default), or their queued
task-seconds (``measure = "seconds"``, scheduler option ``{"measure": "seconds"}``: the trace durations of the
tasks not yet launched, summed as ``cumsum[-1] - cumsum[launched]`` over the sub-job's tasks in launch order;
an exact sum over the queued tasks when some were requeued). Reduces count from the job's arrival, before slow
start, because they are remaining work of the sub-job. Queues are compared per map slot of the datacenter
(``q_d / slots_d``), which is the paper's rule when every datacenter has the same number of slots.

**Local schedulers.** ``assign_tasks(tracker)`` walks the order of ``tracker.datacenter``: free map slots get
maps of the first jobs that have maps queued in that datacenter, free reduce slots reduces of the first jobs
past slow start with reduces queued there. The walk keeps a head pointer per datacenter and task kind that
skips, for good, jobs with nothing of that kind left in the datacenter (they get more only through a requeue,
which triggers a new decision). Cost per heartbeat: O(1) when idle; otherwise O(tasks launched + jobs skipped).
No sorting and no allocation on the hot path.

Events per task (task mode): after a heartbeat that launched, the engine queues a follow-up heartbeat at the same
instant (it reports the new tasks as running and lets a scheduler launch more). When this scheduler's launches
filled the tracker it returns 0, so that no follow-up is queued: nothing here reads the cluster-status counts that
heartbeat would refresh, and the tracker's next completion refreshes them. The schedule is unchanged; the engine
runs two events per task instead of three (``docs/performance.md``, "The geo study on the engine").

Parked trackers: the local scheduler declines only when no job in its datacenter's order has a launchable task
here; that changes only on a job arrival, slow start being met, a requeue or one of the tracker's own tasks
finishing (resources), all of which wake trackers, so it never needs ``request_heartbeat``.

One-site clusters: the policies see a single datacenter holding every task (they then reduce to FCFS and
SRPT-like orders); ``run_stats()["note"]`` says so.

Statistics (``run_stats()``): per decision the process CPU time of snapshot + policy + installing orders
(``time.process_time_ns``, robust to other processes on a shared machine; ms: mean, p50, p95, max, count), the jobs in the system at each decision, and the
number of jobs in the system after every arrival and departure (the paper's communication-overhead proxy).
"""

from __future__ import annotations

import time

import numpy as np

from mrsim.tracker.events import ORDER_TASK_DONE
from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState
from mrsim.studies.geo.policies import Policy, Snapshot, local_orders
from mrsim.studies.geo.result import SizeMeasure

_ANY = Locality.ANY  # bound once: passed on every launch


class GeoControllerScheduler(TaskScheduler):
    """Base class: subclasses set ``policy`` (a :class:`mrsim.studies.geo.policies.Policy`), ``name`` and ``summary``."""

    name = "geo-controller"
    summary = "central controller with per-datacenter local queues (base class)"
    policy: Policy = Policy.FCFS

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        self.n_dc = max(1, len(jt.datacenters))
        self.task_mode = jt.task_mode
        self.federated = bool(jt.datacenters)
        # Slots the policies normalise queues by: map slots per datacenter (reduce slots if a site has none).
        maps, reduces = jt.site_slots
        self.slots = tuple(maps[d] or reduces[d] or 1 for d in range(self.n_dc))
        self.active: dict[int, JobState] = {}  # job index -> job, in arrival order
        self.orders: list[list[JobState]] = [[] for _ in range(self.n_dc)]
        self.map_head = [0] * self.n_dc
        self.reduce_head = [0] * self.n_dc
        self.dirty = False
        self.dirty_since = 0.0
        self.measure = SizeMeasure.parse(str(self.config.get("measure", "tasks")))
        self.seconds = self.measure is SizeMeasure.SECONDS
        # Seconds measure: per job index, per datacenter, cumulative trace durations of its maps (reduces) there in
        # launch order, with a leading 0.0; built when the job arrives, dropped when it leaves. O(tasks) memory.
        self.map_cum: dict[int, list[list[float]]] = {}
        self.reduce_cum: dict[int, list[list[float]]] = {}
        # Task mode: decisions at the end of the instant of a change (module docstring), as a controller event.
        self.decision_event = jt.register_event(self._on_decision) if jt.task_mode else -1
        # Statistics: flat lists, appended once per decision or per arrival/departure (never per heartbeat).
        self.decision_ns: list[int] = []
        self.decision_at: list[float] = []
        self.decision_jobs: list[int] = []
        self.decision_entries: list[int] = []
        self.jobs_at: list[float] = []
        self.jobs_n: list[int] = []

    # ------------------------------------------------------------------------------------------------ hooks

    def _changed(self) -> None:
        if not self.dirty:
            self.dirty = True
            self.dirty_since = self.jt.now
            if self.decision_event >= 0:
                self.jt.schedule(self.dirty_since, ORDER_TASK_DONE, self.decision_event, 0, 0)

    def _on_decision(self, _now: float, _order: int, _a: int, _b: int) -> None:
        if self.dirty:  # else a requeue's decision was already taken by an earlier assign_tasks
            self.decide()

    def job_added(self, job: JobState) -> None:
        if self.seconds:
            self.map_cum[job.index] = self._cumulative(job, False)
            self.reduce_cum[job.index] = self._cumulative(job, True)
        self.active[job.index] = job
        self.jobs_at.append(self.jt.now)
        self.jobs_n.append(len(self.active))
        self._changed()

    def job_removed(self, job: JobState) -> None:
        del self.active[job.index]
        if self.seconds:
            del self.map_cum[job.index], self.reduce_cum[job.index]
        self.jobs_at.append(self.jt.now)
        self.jobs_n.append(len(self.active))
        self._changed()

    def job_updated(self, job: JobState, change: JobChange) -> None:
        if change is JobChange.TASKS_REQUEUED:
            self._changed()  # a requeued task may sit in a datacenter whose order no longer lists its job

    # ------------------------------------------------------------------------------------------------ controller

    def _cumulative(self, job: JobState, reduce: bool) -> list[list[float]]:
        """Per datacenter, ``[0.0, *cumsum(durations)]`` of the job's maps (reduces) there in launch order (index
        order: the federation feature launches a datacenter's tasks lowest index first). O(tasks)."""
        durations = np.asarray(job.reduce_dur if reduce else job.map_dur, dtype=np.float64)
        placed = job.reduce_dc if reduce else job.map_dc
        where = np.zeros(durations.size, dtype=np.int64) if placed is None else np.asarray(placed, dtype=np.int64)
        return [[0.0, *np.cumsum(durations[where == d]).tolist()] for d in range(self.n_dc)]

    def _queued_seconds(self, job: JobState, d: int, queued_maps: int, queued_reduces: int) -> float:
        """Trace seconds of the job's queued maps plus reduces in datacenter ``d`` (module docstring)."""
        if job.requeued_maps or job.requeued_reduces:  # rare (kills, failed attempts): an exact sum
            total = 0.0
            for reduce, durations, placed, stacks, requeued in (
                    (False, job.map_dur, job.map_dc, job.dc_maps, job.requeued_maps),
                    (True, job.reduce_dur, job.reduce_dc, job.dc_reduces, job.requeued_reduces)):
                if stacks is None:
                    launched = job.next_reduce if reduce else job.next_map
                    unlaunched = range(launched, len(durations))
                else:
                    unlaunched = stacks[d]  # type: ignore[assignment]
                total += sum(durations[i] for i in unlaunched)
                total += sum(durations[i] for i in requeued if placed is None or placed[i] == d)
            return total
        cm = self.map_cum[job.index][d]
        size = cm[-1] - cm[len(cm) - 1 - queued_maps]
        if queued_reduces:
            cr = self.reduce_cum[job.index][d]
            size += cr[-1] - cr[len(cr) - 1 - queued_reduces]
        return size

    def snapshot(self) -> tuple[Snapshot, list[JobState]]:
        """The queued work of every running job per datacenter (jobs with none are left out). O(jobs x D)."""
        entries: list[list[tuple[int, float, int]]] = []
        jobs: list[JobState] = []
        n_dc = self.n_dc
        seconds = self.seconds
        for job in self.active.values():
            mp, rp = job.dc_maps_pending, job.dc_reduces_pending
            k = len(jobs)
            if mp is None or rp is None:
                m, r = job.maps_pending, job.reduces_pending
                size = self._queued_seconds(job, 0, m, r) if seconds and m + r else float(m + r)
                ent = [(0, size, k * n_dc)] if m + r else []
            elif seconds:
                ent = [(d, self._queued_seconds(job, d, mp[d], rp[d]), k * n_dc + d)
                       for d in range(n_dc) if mp[d] + rp[d]]
            else:
                ent = [(d, float(mp[d] + rp[d]), k * n_dc + d) for d in range(n_dc) if mp[d] + rp[d]]
            if ent:
                entries.append(ent)
                jobs.append(job)
        return Snapshot(self.slots, entries), jobs

    def decide(self) -> None:
        """Recompute every datacenter's local order (see the module docstring)."""
        t0 = time.process_time_ns()
        snap, jobs = self.snapshot()
        local = local_orders(self.policy, snap)
        pushed = 0
        for d in range(self.n_dc):
            col = local[d]
            self.orders[d] = [jobs[e[0]] for e in col]
            pushed += len(col)
        self.map_head = [0] * self.n_dc
        self.reduce_head = [0] * self.n_dc
        self.dirty = False
        self.decision_ns.append(time.process_time_ns() - t0)
        self.decision_at.append(self.dirty_since)
        self.decision_jobs.append(len(self.active))
        self.decision_entries.append(pushed)

    def order_names(self) -> list[list[str]]:
        """Current local orders as job ids per datacenter (tests and debugging)."""
        if self.dirty:
            self.decide()
        return [[job.job_id for job in col] for col in self.orders]

    # ------------------------------------------------------------------------------------------------ local

    def assign_tasks(self, tracker: TrackerState) -> int:
        if self.dirty:
            self.decide()
        jt = self.jt
        d = tracker.datacenter
        order = self.orders[d]
        n = len(order)
        fed = self.federated
        launched = 0
        free = tracker.map_slots - tracker.running_maps
        if free > 0:
            h = self.map_head[d]
            i = h
            while free > 0 and i < n:
                job = order[i]
                pending = job.dc_maps_pending[d] if fed else job.maps_pending  # type: ignore[index]
                if not pending:
                    if i == h:  # nothing of this kind left here: skip it for good (until the next decision)
                        h += 1
                    i += 1
                    continue
                if jt.obtain_new_map_task(job, tracker, _ANY):
                    launched += 1
                    free -= 1
                else:
                    i += 1  # e.g. no room for its request on a resource cluster
            self.map_head[d] = h
        free = tracker.reduce_slots - tracker.running_reduces
        if free > 0:
            h = self.reduce_head[d]
            i = h
            while free > 0 and i < n:
                job = order[i]
                pending = job.dc_reduces_pending[d] if fed else job.reduces_pending  # type: ignore[index]
                if not pending:
                    if i == h:
                        h += 1
                    i += 1
                    continue
                if job.reduces_ready and jt.obtain_new_reduce_task(job, tracker):
                    launched += 1
                    free -= 1
                else:
                    i += 1  # before slow start (or no room): later jobs may still run a reduce here
            self.reduce_head[d] = h
        if launched and self.task_mode and tracker.running_maps >= tracker.map_slots \
                and tracker.running_reduces >= tracker.reduce_slots:
            return 0  # the tracker is full: no follow-up heartbeat (module docstring, "Events per task")
        return launched

    # ------------------------------------------------------------------------------------------------ reporting

    def describe(self) -> dict:
        measure = self.config.get("measure")
        size = "tasks (maps + reduces)" if measure is None else f"{SizeMeasure.parse(str(measure)).value} of the tasks"
        return {"name": self.name, "policy": self.policy.value, "policy_label": self.policy.label,
                "size": f"queued {size} per datacenter, compared per map slot", **self.config}

    def run_stats(self) -> dict:
        """Controller statistics of the run (module docstring). ``decision_ms_*`` are CPU times and vary."""
        ms = np.asarray(self.decision_ns, dtype=float) / 1e6
        at = np.asarray(self.jobs_at, dtype=float)
        n = np.asarray(self.jobs_n, dtype=float)
        if at.size >= 2 and at[-1] > at[0]:
            mean_jobs = float(np.sum(n[:-1] * np.diff(at)) / (at[-1] - at[0]))
        else:
            mean_jobs = float(n.mean()) if n.size else 0.0
        out: dict = {
            "policy": self.policy.value,
            "decisions": int(ms.size),
            "decision_ms_mean": round(float(ms.mean()), 6) if ms.size else 0.0,
            "decision_ms_p50": round(float(np.percentile(ms, 50)), 6) if ms.size else 0.0,
            "decision_ms_p95": round(float(np.percentile(ms, 95)), 6) if ms.size else 0.0,
            "decision_ms_max": round(float(ms.max()), 6) if ms.size else 0.0,
            "mean_jobs_per_decision": round(float(np.mean(self.decision_jobs)), 6) if ms.size else 0.0,
            "pushed_entries_total": int(sum(self.decision_entries)) if self.policy.needs_global_order else 0,
            "mean_jobs_in_system": round(mean_jobs, 6),
            "max_jobs_in_system": int(n.max()) if n.size else 0,
            "jobs_in_system": {"at_s": [round(float(x), 6) for x in at], "jobs": [int(x) for x in n]},
            "decision_samples": {"at_s": [round(float(x), 6) for x in self.decision_at],
                                 "jobs": list(self.decision_jobs)},
        }
        if not self.federated:
            out["note"] = ("one-site cluster: the geo policy sees a single datacenter holding every task "
                           "(a federated cluster needs [[datacenters]] in the cluster file)")
        return out
