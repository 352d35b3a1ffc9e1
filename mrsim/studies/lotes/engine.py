"""The LoTES experiments (Tran & Beck, sections 5-7) as a configuration of mrsim's JobTracker engine.

One replication is a replay on the one engine (:class:`mrsim.tracker.jobtracker.JobTracker` on the kernel), set up
as the paper's push model (:mod:`mrsim.studies.lotes.push`):

* one TaskTracker per machine, in the cluster's configuration order (machine ``i`` is tracker ``i``), whose slots
  never bind: machines' capacities are resource vectors held by the plug-in's
  :class:`~mrsim.studies.lotes.state.ClusterState`;
* task-completion mode (heartbeat interval 0): completions are reported, and dispatched tasks launched, at the
  instant they happen (Hadoop's out-of-band heartbeats, for dispatches too);
* the scheduler plug-in :class:`~mrsim.studies.lotes.push.PushDispatch` with the LoTES or greedy dispatcher;
* jobs from the seeded random source (:class:`mrsim.studies.lotes.workload.JobSource`) added to the engine as
  they arrive and dropped when done (:mod:`mrsim.tracker.arrivals`), so memory grows with the jobs in flight;
* :class:`LotesRun`, attached to the engine's hooks, which feeds the source and measures.

The engine's clock runs in **hours** here (the study's unit): in task mode without features the engine reads no
time constant, so it is unit-free.

**The model** (the paper's definition; the standalone simulator this replaced is kept as the test oracle
``tests/oracles/lotes_engine.py``, and the tests pin every figure of both against each other). Order at one
instant (the kernel's ``(time, order, seq)``):

1. *sample* (the engine's timer order): jobs in system, waiting tasks and resource use, every ``horizon /
   samples`` hours, taken before the events of its instant;
2. *task finished* (the engine's task-done order), in the order the tasks were launched: the task's request
   returns to its machine, which starts tasks from the head of its FIFO queue while the head fits (head-of-line
   blocking); then (MapReduce) the last map of a job releases its reduce tasks, which are dispatched now, and the
   last reduce completes the job. The started tasks launch in their trackers' heartbeats of the same instant;
3. *job arrival* (after every heartbeat of the instant): the job's task (or all its maps) is released and
   dispatched; the source's next job is added. So a task finished at the same instant as an arrival is
   processed first.

Jobs (MapReduce, section 7): all maps are released at the job's arrival; the reduces when the last map finishes
(reduce slow start 1.0); the job completes when its last reduce finishes. Flow time = completion - arrival. Task
waiting time = start - release.

Measurement: tasks released and jobs arriving at or after ``warmup`` are measured; quantities stream into
:class:`~mrsim.studies.lotes.metrics.StreamStat` (folded every :data:`~mrsim.studies.lotes.metrics.FLUSH`
values, checked at the end of every event). A single-task job's flow time is its wait plus its own processing
time, both known when it starts, so it is recorded at the start (long jobs are not lost to the horizon). A
MapReduce job's flow time is recorded when it completes; the Little's-law estimate is reported beside it. The run
stops after the events at ``horizon``; tasks still queued then are *censored* (their age so far bounds their wait
from below).

Cost per task: what the plug-in costs (dispatch and queue rules, O(log) per change), plus the engine's launch,
completion and heartbeat events (about four kernel events per single-task job: arrival, launch heartbeat,
completion, and the heartbeat that follows it); nothing depends on the number of waiting tasks.
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Callable, Sequence

import numpy as np

from mrsim.tracker.arrivals import add_job, forget_job, hold_open
from mrsim.tracker.events import EV_TASK_DONE, ORDER_HEARTBEAT, ORDER_TIMER
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.state import JOB_SHIFT, REDUCE_BIT, JobState
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate
from mrsim.model.templates import Workload as JobWorkload
from mrsim.studies.lotes.assignment import LotesPlan
from mrsim.studies.lotes.metrics import FLUSH, SteadyVerdict, StreamStat, steady_state
from mrsim.studies.lotes.policies import GreedyDispatcher, LotesDispatcher, Policy
from mrsim.studies.lotes.push import PushDispatch
from mrsim.studies.lotes.spec import Cluster, JobShape, Workload
from mrsim.studies.lotes.state import ClusterState
from mrsim.studies.lotes.workload import UNITS_PER, JobSource, Uniforms, stream

#: Slots of every TaskTracker: more tasks than any machine can run at once (requests are at least one unit).
UNBOUNDED_SLOTS = 1 << 40


@dataclass
class RunResult:
    """What one replication measured. Times in hours."""

    policy: Policy
    rate: float  # jobs per hour
    horizon: float
    warmup: float
    waits: StreamStat  # task waiting times
    flows: StreamStat  # job flow times
    sample_times: list[float]
    jobs_in_system: list[int]
    tasks_waiting: list[int]
    utilisation: list[list[float]]  # per sample, per resource: used / capacity
    jobs_arrived: int
    jobs_completed: int
    tasks_released: int
    tasks_running_end: int
    tasks_queued_end: int
    events: int  # job arrivals + task completions processed
    censored_tasks: int  # measured tasks still queued at the end
    censored_age: float  # their summed age at the end (hours)
    steady: SteadyVerdict
    wall_seconds: float
    cpu_seconds: float  # process CPU time of the event loop: the honest cost on a shared machine
    tree_visits: int
    dispatch_steps: list[int] = field(default_factory=list)
    engine_events: int = 0  # every kernel event (heartbeats and samples included); not in the JSON figures

    @property
    def wait_mean_with_censored(self) -> float:
        """Mean wait counting still-queued tasks at their age so far: a lower bound on the true mean."""
        n = self.waits.count + self.censored_tasks
        return (self.waits.total + self.censored_age) / n if n else math.nan


def make_dispatcher(policy: Policy, state: ClusterState, plan: LotesPlan | None,
                    uniforms: Uniforms) -> LotesDispatcher | GreedyDispatcher:
    """The policy's dispatcher over ``state`` (LoTES needs the plan of stages 1 and 2)."""
    if policy is Policy.GREEDY:
        return GreedyDispatcher(state, uniforms)
    if plan is None:
        raise ValueError("the LoTES policy needs a LotesPlan")
    return LotesDispatcher(state, plan, uniforms)


def engine_cluster(cluster: Cluster) -> ClusterSpec:
    """One TaskTracker per machine, in configuration order, with slots that never bind (module docstring)."""
    n = sum(c.count for c in cluster.configs)
    return ClusterSpec(tuple(TrackerSpec(f"m{i}", map_slots=UNBOUNDED_SLOTS, reduce_slots=UNBOUNDED_SLOTS)
                             for i in range(n)), source="lotes")


class LotesRun:
    """The study's side of one replication, attached to the engine: it adds the source's jobs as they arrive,
    samples the state, counts and measures, and stops the run at the horizon (module docstring)."""

    def __init__(self, cluster: Cluster, workload: Workload, state: ClusterState, src: JobSource, horizon: float,
                 warmup: float, samples: int) -> None:
        self.state = state
        # capacity per resource in units (floats, as the oracle sums them: the utilisation figures match exactly)
        self.total_cap = [sum(c.capacity[l] * c.count for c in cluster.configs) * UNITS_PER
                          for l in state.resource_range]
        self.src = src
        self.horizon = horizon
        self.warmup = warmup
        self.single = workload.shape is JobShape.SINGLE_TASK
        self.n_maps = 1 if self.single else workload.maps
        self.n_reduces = 0 if self.single else workload.reduces
        # Every job of the run shares one template (the engine copies durations into the job's own arrays on
        # arrival); the real durations are drawn on release and bound at launch (mrsim.studies.lotes.push).
        self.template = JobTemplate("lotes-job", 0.0, np.zeros(self.n_maps), np.zeros(self.n_reduces))
        self.waits, self.flows = StreamStat(), StreamStat()
        self.wbuf: list[float] = []
        self.fbuf: list[float] = []
        self.sample_dt = horizon / samples
        self.next_sample = 0.0
        self.s_times: list[float] = []
        self.s_jobs: list[int] = []
        self.s_wait: list[int] = []
        self.s_util: list[list[float]] = []
        self.arrived = 0
        self.completed = 0
        self.running_end = 0
        self.stopped = False
        self.arrival_order = 0
        self.sample_kind = self.stop_kind = -1
        self.jt: JobTracker

    def attach(self, jt: JobTracker) -> None:
        self.jt = jt
        # Arrivals after every completion and heartbeat of their instant; the stop after everything at the horizon.
        self.arrival_order = ORDER_HEARTBEAT + len(jt.trackers)
        jt.register(self, on_job_arrival=self.job_arrived, on_job_done=self.job_done, after_event=self.flush)
        self.sample_kind = jt.register_event(self.sample)
        self.stop_kind = jt.register_event(self.stop)
        # The first job is added by an event of its own: jt.run schedules the arrivals of the jobs it holds when
        # it starts, and add_job schedules its job's arrival itself (mrsim/tracker/arrivals.py).
        jt.schedule(0.0, ORDER_TIMER - 1, jt.register_event(self.first_job))
        jt.schedule(0.0, ORDER_TIMER, self.sample_kind)
        jt.schedule(self.horizon, self.arrival_order + 1, self.stop_kind)

    def first_job(self, _t: float, _order: int, _a: int, _b: int) -> None:
        self.add_next()

    def add_next(self) -> None:
        """Add the source's next job to the engine (its arrival is scheduled), unless the source ran dry."""
        t, k, req, req2 = self.src.next_job()
        if t < math.inf:
            job = add_job(self.jt, self.template, t, self.arrival_order, slowstart=1.0)
            job.sched = [k, req, req2, None]
        else:  # the source ran dry (scripted sources in tests): sample on until the horizon all the same
            hold_open(self.jt)

    # --------------------------------------------------------------------------------------------- hooks

    def job_arrived(self, job: JobState) -> None:
        """A job arrives: draw its maps' durations (before the source moves on), then add the next job."""
        info = job.sched
        info[3] = [self.src.duration()] if self.single else self.src.durations(info[0], self.n_maps)
        self.arrived += 1
        self.add_next()

    def reduce_durations(self, job: JobState) -> list[float]:
        """Durations of the job's reduces, drawn when they are released (its last map has finished)."""
        return self.src.durations(job.sched[0], self.n_reduces)

    def started(self, released: float, now: float, dur: float) -> None:
        """A task released at ``released`` starts at ``now``: its wait, and a single task's flow time."""
        if released >= self.warmup:
            wait = now - released
            self.wbuf.append(wait)
            if self.single:
                self.fbuf.append(wait + dur)

    def job_done(self, job: JobState) -> None:
        self.completed += 1
        if not self.single and job.submit >= self.warmup:
            self.fbuf.append(job.finish_time - job.submit)
        forget_job(self.jt, job)

    def flush(self) -> None:
        """Fold full buffers into the statistics (at the end of every event: the batches do not depend on how
        many engine events a task costs)."""
        if len(self.wbuf) >= FLUSH:
            self.waits.add_many(self.wbuf)
            self.wbuf.clear()
        if len(self.fbuf) >= FLUSH:
            self.flows.add_many(self.fbuf)
            self.fbuf.clear()

    def sample(self, t: float, _order: int, _a: int, _b: int) -> None:
        """Jobs in system, waiting tasks and resource use at ``t``, before the events of ``t``."""
        state = self.state
        free = state.free
        self.s_times.append(t)
        self.s_jobs.append(self.arrived - self.completed)
        self.s_wait.append(state.waiting)
        self.s_util.append([1.0 - sum(map(itemgetter(l), free)) / self.total_cap[l] for l in state.resource_range])
        self.next_sample += self.sample_dt
        if self.next_sample <= self.horizon:
            self.jt.schedule(self.next_sample, ORDER_TIMER, self.sample_kind)

    def stop(self, _t: float, _order: int, _a: int, _b: int) -> None:
        """The horizon's events are done: note the tasks still running and end the run."""
        self.running_end = sum(t.running_maps + t.running_reduces for t in self.jt.trackers)
        self.stopped = True
        self.jt.kernel.clear()

    def finish(self) -> None:
        self.waits.add_many(self.wbuf)
        self.flows.add_many(self.fbuf)
        self.wbuf, self.fbuf = [], []


def simulate(
    cluster: Cluster,
    workload: Workload,
    policy: Policy,
    rate: float,
    horizon: float,
    warmup: float,
    seed: int,
    plan: LotesPlan | None = None,
    samples: int = 200,
    on_event: Callable[[ClusterState, list], None] | None = None,
    source: JobSource | None = None,
) -> RunResult:
    """Run one replication until ``horizon`` hours on the engine (module docstring).

    ``on_event(state, running)`` (tests) is called after every engine event, with the tasks holding machine
    resources as ``(end, tag, machine, request)`` tuples (O(running) per call, only when a checker is given).
    ``source`` replaces the random job source with any object offering the same three methods (scripted
    timelines in tests).
    """
    state = ClusterState(cluster)
    dispatcher = make_dispatcher(policy, state, plan, Uniforms(stream(seed, "dispatch")))
    src = source if source is not None else JobSource(workload, cluster, rate, seed)
    run = LotesRun(cluster, workload, state, src, horizon, warmup, samples)
    scheduler = PushDispatch(state, dispatcher, run.reduce_durations, run.started)
    jt = JobTracker(JobWorkload.of([]), engine_cluster(cluster), HadoopConf(), scheduler, heartbeat_interval=0.0)
    jt.attach(run)
    check = None
    if on_event is not None:
        def check() -> None:
            if not run.stopped:  # the stop event cleared the engine's queued completions
                on_event(state, running_view(jt, scheduler))
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    # The run allocates no reference cycles that matter, so reference counting frees everything; the cyclic
    # collector would only rescan the queued tasks again and again, making the cost per event grow with the
    # backlog (measured: +40 % per event at 480k queued tasks). It is switched off for the run only.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        jt.run(check)
    finally:
        if gc_was_enabled:
            gc.enable()
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    run.finish()
    censored = 0
    age = 0.0
    for q in state.queues:  # once, at the end: O(backlog)
        for task in q:
            if task[4] >= warmup:
                censored += 1
                age += horizon - task[4]
    return RunResult(
        policy=policy,
        rate=rate,
        horizon=horizon,
        warmup=warmup,
        waits=run.waits,
        flows=run.flows,
        sample_times=run.s_times,
        jobs_in_system=run.s_jobs,
        tasks_waiting=run.s_wait,
        utilisation=run.s_util,
        jobs_arrived=run.arrived,
        jobs_completed=run.completed,
        tasks_released=scheduler.dispatched,
        tasks_running_end=run.running_end,
        tasks_queued_end=state.waiting,
        events=run.arrived + jt.tasks_done,
        censored_tasks=censored,
        censored_age=age,
        steady=steady_state(run.s_times, [float(x) for x in run.s_jobs], warmup),
        wall_seconds=wall,
        cpu_seconds=cpu,
        tree_visits=sum(g.tree.visits for g in state.config_groups),
        dispatch_steps=list(getattr(dispatcher, "steps", [])),
        engine_events=jt.kernel.events,
    )


def running_view(jt: JobTracker, scheduler: PushDispatch) -> list[tuple[float, int, int, Sequence[int]]]:
    """Tasks holding machine resources as ``(end, tag, machine, request)``: the engine's running tasks (their
    completion events) and the started tasks not yet launched. O(running); for checkers."""
    out: list[tuple[float, int, int, Sequence[int]]] = []
    for end, kind, tracker, gid in jt.kernel.pending():
        if kind == EV_TASK_DONE:
            reduce = bool(gid & REDUCE_BIT)
            out.append((end, gid, tracker, jt.jobs[gid >> JOB_SHIFT].sched[2 if reduce else 1]))
    for m, queue in enumerate(scheduler.launch):
        for job, reduce, _dur in queue:
            out.append((math.inf, -1, m, job.sched[2 if reduce else 1]))
    return out
