"""Test oracle: the standalone LoTES simulator (Tran & Beck, sections 5-7) that ``mrsim lotes`` is checked
against. Poisson job arrivals and task completions on resource-vector machines, as events on mrsim's kernel
(:class:`mrsim.tracker.kernel.Kernel`) with no JobTracker.

``mrsim lotes`` now runs the same model on the JobTracker engine (:mod:`mrsim.studies.lotes.engine`: task mode and
the push plug-in :mod:`mrsim.studies.lotes.push`); this module stays, under tests/, as the independent
reference the engine is pinned against (``tests/studies/lotes/test_oracle.py``: every figure identical on seeded runs,
the hand-computed timelines of ``tests/studies/lotes/test_engine.py`` on both) and the speed baseline of
``benchmarks/bench_lotes.py oracle``. Nothing under ``mrsim/`` imports it.

**Where to read LoTES.** The model's machine rules (start a dispatched task or queue it, strict FIFO queues with
head-of-line blocking, what a finished task frees) are :meth:`ClusterState.admit`, :meth:`~ClusterState.enqueue`
and :meth:`~ClusterState.finish` in :mod:`mrsim.studies.lotes.state`, shared with the heartbeat schedulers; the dispatchers
(stage 3) are :mod:`mrsim.studies.lotes.policies`; the plan (stages 1 and 2) :mod:`mrsim.studies.lotes.assignment`. This module
is the rest: when tasks are released and jobs complete, and what is measured.

Events (kinds ``EV_*``, handler table in :func:`simulate`) and their order at one instant (the kernel's
``(time, order, seq)``):

1. *sample* (:data:`ORDER_SAMPLE`): jobs in system, waiting tasks and resource use, every ``horizon / samples``
   hours, taken before the events of its instant;
2. *task finished* (:data:`ORDER_TASK_FINISHED`), in the order the tasks started (the kernel's push sequence):
   the task's request returns to its machine, which starts tasks from the head of its FIFO queue while the head
   fits (head-of-line blocking: a head that does not fit stops the queue even if a later task would fit); then
   (MapReduce) the last map of a job releases its reduce tasks, which are dispatched now, and the last reduce
   completes the job;
3. *job arrival* (:data:`ORDER_ARRIVAL`): the job's task (or all its maps) is released; the next job of the
   source is scheduled. So a task finished at the same instant as an arrival is processed first.

A released task goes to the machine its dispatcher names; it starts at once if that machine's queue is empty and
it fits, otherwise it joins the queue's tail. A running task is the kernel event ``(end, ORDER_TASK_FINISHED,
seq, EV_TASK_FINISHED, machine, tag)``: ``tag`` is the job number (single-task jobs) or ``2 * job + is_reduce``,
and the task's request is found from it.

Jobs (MapReduce, Tran & Beck section 7): all ``maps`` map tasks are released and dispatched one by one at the
job's arrival; the ``reduces`` reduce tasks are released when the last map finishes (no slow start); the job
completes when its last reduce finishes. Flow time = completion - arrival. Task waiting time = start - release.

Measurement: tasks released and jobs arriving at or after ``warmup`` are measured; quantities stream into
:class:`~mrsim.studies.lotes.metrics.StreamStat`. A single-task job's flow time is its wait plus its own processing time,
both known when it starts, so it is recorded at the start: long jobs are then not lost to the horizon (recording
at completion would drop every job still running at the end, mostly the 20-hour classes, and bias the mean
down). A MapReduce job's flow time is recorded when it completes; jobs still running at the end are censored
and the Little's-law estimate (time-average jobs in system / arrival rate) is reported beside it. Jobs in system, waiting tasks and resource use are sampled every
``horizon / samples`` hours. The run stops at the first event after ``horizon``; tasks still queued then are
*censored* and reported separately (their age so far gives a lower bound on their wait).

Cost per event: one kernel push and pop (O(log running)), plus the dispatcher's and indexes' costs, none of which
depend on the number of waiting tasks (the backlog).
"""

from __future__ import annotations

import gc
import math
import time
from operator import itemgetter
from typing import Callable

from mrsim.tracker.kernel import Kernel
from mrsim.studies.lotes.assignment import LotesPlan
from mrsim.studies.lotes.engine import RunResult, make_dispatcher
from mrsim.studies.lotes.metrics import FLUSH, StreamStat, steady_state
from mrsim.studies.lotes.policies import Policy
from mrsim.studies.lotes.spec import Cluster, JobShape, Workload
from mrsim.studies.lotes.state import ClusterState
from mrsim.studies.lotes.workload import UNITS_PER, JobSource, Uniforms, stream

#: Event kinds (index into the handler table) and same-instant order values; see the module docstring.
EV_TASK_FINISHED, EV_ARRIVAL, EV_SAMPLE = 0, 1, 2
ORDER_SAMPLE, ORDER_TASK_FINISHED, ORDER_ARRIVAL = 0, 1, 2


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
    """Run one replication until ``horizon`` hours.

    ``on_event(state, running)`` (tests) is called after every arrival and completion, with the running tasks as
    ``(end, tag, machine, request)`` tuples (built from the kernel's events: O(running) per call, only when a
    checker is given). ``source`` replaces the random job source with any object offering the same three methods
    (scripted timelines in tests).
    """
    state = ClusterState(cluster)
    uniforms = Uniforms(stream(seed, "dispatch"))
    dispatcher = make_dispatcher(policy, state, plan, uniforms)
    dispatch = dispatcher.dispatch
    admit, enqueue, finish = state.admit, state.enqueue, state.finish
    src = source if source is not None else JobSource(workload, cluster, rate, seed)
    next_job = src.next_job
    single = workload.shape is JobShape.SINGLE_TASK
    n_maps, n_reduces = workload.maps, workload.reduces

    free = state.free
    rR = state.resource_range
    kernel = Kernel()
    schedule = kernel.schedule
    waits, flows = StreamStat(), StreamStat()
    wbuf: list[float] = []
    fbuf: list[float] = []
    # MapReduce: job id -> [arrival, maps left, reduces left, class, reduce request, map request]
    jobs: dict[int, list] = {}
    single_req: dict[int, list[int]] = {}  # single-task jobs: job id -> request, while the task runs
    total_cap = [sum(c.capacity[l] * c.count for c in cluster.configs) * UNITS_PER for l in rR]
    sample_dt = horizon / samples
    s_times: list[float] = []
    s_jobs: list[int] = []
    s_wait: list[int] = []
    s_util: list[list[float]] = []
    # counters (mutated in place by the handlers): arrived, completed, tasks released, events, next sample time
    c = [0, 0, 0, 0, 0.0]
    pending = [math.inf, 0, None, None]  # the next job from the source: arrival, class, request, reduce request

    def release(t: float, k: int, req: list[int], dur: float, tag: int) -> None:
        """Dispatch one task released at ``t``, then start it or queue it on the chosen machine."""
        m, now = dispatch(k, req)
        c[2] += 1
        if admit(m, req, now):
            schedule(t + dur, ORDER_TASK_FINISHED, EV_TASK_FINISHED, m, tag)
            if t >= warmup:
                wbuf.append(0.0)
                if single:
                    fbuf.append(dur)  # a single task's flow time is known when it starts (module docstring)
        else:
            enqueue(m, (req, dur, t, tag))

    def running_view() -> list[tuple[float, int, int, list[int]]]:
        """Running tasks as ``(end, tag, machine, request)`` (for ``on_event`` checkers; O(running))."""
        out = []
        for end, kind, m, tag in kernel.pending():
            if kind == EV_TASK_FINISHED:
                if single:
                    req = single_req[tag]
                else:
                    job = jobs[tag >> 1]
                    req = job[4] if tag & 1 else job[5]
                out.append((end, tag, m, req))
        return out

    def after_event() -> None:
        """Book-keeping of every arrival and completion: the event count, metric buffers, the test hook."""
        c[3] += 1
        if len(wbuf) >= FLUSH:
            waits.add_many(wbuf)
            wbuf.clear()
        if len(fbuf) >= FLUSH:
            flows.add_many(fbuf)
            fbuf.clear()
        if on_event is not None:
            on_event(state, running_view())

    def task_finished(t: float, _order: int, m: int, tag: int) -> None:
        """A task ends on machine ``m``: its request returns, queue heads start while they fit (state.finish);
        MapReduce: the last map of a job releases its reduces, the last reduce completes the job."""
        if single:
            req = single_req.pop(tag)
        else:
            job = jobs[tag >> 1]
            req = job[4] if tag & 1 else job[5]
        for _req, dur, released, qtag in finish(m, req):  # queue heads that now fit start at once
            schedule(t + dur, ORDER_TASK_FINISHED, EV_TASK_FINISHED, m, qtag)
            if released >= warmup:
                wbuf.append(t - released)
                if single:
                    fbuf.append(t - released + dur)
        if single:
            c[1] += 1
        else:
            jid = tag >> 1
            if tag & 1 == 0:
                job[1] -= 1
                if job[1] == 0:
                    if n_reduces:
                        k = job[3]
                        rreq = job[4]
                        rtag = 2 * jid + 1
                        for d in src.durations(k, n_reduces):
                            release(t, k, rreq, d, rtag)
                    else:
                        job[2] = 0
            else:
                job[2] -= 1
            if job[1] == 0 and job[2] == 0:
                c[1] += 1
                if job[0] >= warmup:
                    fbuf.append(t - job[0])
                del jobs[jid]
        after_event()

    def job_arrived(t: float, _order: int, _a: int, _b: int) -> None:
        """The pending job arrives: its task (or all its maps) is released; the source's next job is scheduled."""
        _, k, req, req2 = pending
        jid = c[0]
        c[0] += 1
        if single:
            single_req[jid] = req
            release(t, k, req, src.duration(), jid)
        else:
            jobs[jid] = [t, n_maps, n_reduces, k, req2, req]
            for d in src.durations(k, n_maps):
                release(t, k, req, d, 2 * jid)
        pending[:] = next_job()
        if pending[0] < math.inf:
            schedule(pending[0], ORDER_ARRIVAL, EV_ARRIVAL)
        after_event()

    def sample(t: float, _order: int, _a: int, _b: int) -> None:
        """Jobs in system, waiting tasks and resource use at ``t``, before the events of ``t``."""
        s_times.append(t)
        s_jobs.append(c[0] - c[1])
        s_wait.append(state.waiting)
        s_util.append([1.0 - sum(map(itemgetter(l), free)) / total_cap[l] for l in rR])
        c[4] += sample_dt
        if c[4] <= horizon:
            schedule(c[4], ORDER_SAMPLE, EV_SAMPLE)

    handlers = [task_finished, job_arrived, sample]  # indexed by EV_TASK_FINISHED, EV_ARRIVAL, EV_SAMPLE
    for kind, handler in enumerate(handlers):
        kernel.register(kind, handler)
    schedule(0.0, ORDER_SAMPLE, EV_SAMPLE)
    pending[:] = next_job()
    if pending[0] < math.inf:
        schedule(pending[0], ORDER_ARRIVAL, EV_ARRIVAL)
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    # The handlers allocate no reference cycles (tuples, lists, ints), so reference counting frees everything;
    # the cyclic collector would only rescan the queued tasks again and again, making the cost per event grow with
    # the backlog (measured: +40 % per event at 480k queued tasks). It is switched off for the run only.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        kernel.run(until=horizon)  # stops at the first event after the horizon, which is not handled
    finally:
        if gc_was_enabled:
            gc.enable()
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    waits.add_many(wbuf)
    flows.add_many(fbuf)
    queues = state.queues
    arrived, completed = c[0], c[1]
    running_end = kernel.pending_count() - (pending[0] < math.inf)  # every event left is a running task or the next arrival

    censored = 0
    age = 0.0
    for q in queues:  # once, at the end: O(backlog)
        for task in q:
            if task[2] >= warmup:
                censored += 1
                age += horizon - task[2]
    return RunResult(
        policy=policy,
        rate=rate,
        horizon=horizon,
        warmup=warmup,
        waits=waits,
        flows=flows,
        sample_times=s_times,
        jobs_in_system=s_jobs,
        tasks_waiting=s_wait,
        utilisation=s_util,
        jobs_arrived=arrived,
        jobs_completed=completed,
        tasks_released=c[2],
        tasks_running_end=running_end,
        tasks_queued_end=state.waiting,
        events=c[3],
        censored_tasks=censored,
        censored_age=age,
        steady=steady_state(s_times, [float(x) for x in s_jobs], warmup),
        wall_seconds=wall,
        cpu_seconds=cpu,
        tree_visits=sum(g.tree.visits for g in state.config_groups),
        dispatch_steps=list(getattr(dispatcher, "steps", [])),
    )
