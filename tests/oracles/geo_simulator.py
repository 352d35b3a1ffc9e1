"""Test oracle: the geo paper's federation model written directly (Hung, Golubchik, Yu, SoCC'15, section 2).

``mrsim geo`` runs the study on the engine (:func:`mrsim.studies.geo.run.simulate`: the JobTracker in
task-completion mode with the federation feature and the geo controller). This module is the paper's model as a
configuration of the event kernel alone (:class:`mrsim.tracker.kernel.Kernel`: no JobTracker, no heartbeats, no
Hadoop slots per node, tasks launched the instant a slot frees). It lives under ``tests/`` as the reference the
engine form is pinned against (``tests/studies/geo/test_engine_vs_oracle.py``, ``tests/studies/federation``): the paper's worked
example exactly, seeded synthetic traces to the last bit; ``benchmarks/bench_geo.py`` times both in one run.
Nothing under ``mrsim/`` imports it. It returns the same :class:`~mrsim.studies.geo.result.GeoResult`.

Model:

* Datacenter ``d`` has ``slots[d]`` identical slots. Each runs one task at a time, non-preemptively.
* A job's tasks sit in the local queues of the datacenters holding its input (fixed by the workload's
  placement). A task never moves between datacenters.
* On every job arrival and departure the central controller takes a :class:`~mrsim.studies.geo.policies.Snapshot` of
  the *queued* (not yet launched) work and computes one order per datacenter (or, for Independent-SRPT, the
  datacenters compute their own). Running tasks are never preempted; a new order only affects launches.
* Between decisions a datacenter's free slot launches the next queued task of the first sub-job in its local
  order that still has one. Because every job with queued work in ``d`` is in ``d``'s order, a slot is idle only
  when its datacenter has nothing queued (work conservation per datacenter).

Events and same-instant order (deterministic, the kernel's ``(time, order, seq)``): all events at one instant
form a batch. First every *task finished* at that instant (:data:`ORDER_TASK_FINISHED`), in launch order (the
kernel's push sequence), frees its slot and may complete its job (*job departure*); then every *job arrival* at
that instant (:data:`ORDER_ARRIVAL`), in workload order (each arrival schedules the next). The batch's last event
(the kernel's next event is later) ends the batch: if the batch held an arrival or a departure, the controller
makes **one** decision for the batch; then datacenters with free slots launch tasks, in datacenter index order.
Tasks of zero duration finish in a later batch at the same instant. The end of a batch is not an event of its
own: pushing and popping one per instant made a run about 1.5 times slower (measured), so the last handler
of the instant runs it, knowing it is last from the time of the kernel's next event (``Kernel.next_time``).

Cost: O(log R) per task (R = running tasks) for the kernel's heap, O(1) amortised per launch, plus one controller
decision per batch with an arrival or departure (cost in :mod:`mrsim.studies.geo.policies`, plus O(P) to build the
snapshot and install the orders). No per-event objects beyond the kernel's event tuple: a running task is the
event ``(end, ORDER_TASK_FINISHED, seq, EV_TASK_FINISHED, sub-job id, datacenter)``.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from mrsim.tracker.kernel import Kernel
from mrsim.studies.geo.model import GeoWorkload
from mrsim.studies.geo.policies import Policy, Snapshot, local_orders
from mrsim.studies.geo.result import GeoResult, InvariantError, SizeMeasure

#: Event kinds (index into the handler table) and same-instant order values; see the module docstring.
EV_TASK_FINISHED, EV_ARRIVAL = 0, 1
ORDER_TASK_FINISHED, ORDER_ARRIVAL = 0, 1


#: Called after every batch with the simulator's live state when invariant checking is on (tests only).
Checker = Callable[["_State"], None]


class _State:
    """Live state, exposed to invariant checkers only. Lists are indexed by sub-job id ``s`` or datacenter ``d``."""

    __slots__ = ("now", "slots", "free", "queued_dc", "sj_dc", "sj_job", "sj_n", "sj_next", "kernel", "order", "active")


def simulate(
    workload: GeoWorkload,
    policy: Policy,
    measure: SizeMeasure = SizeMeasure.TASKS,
    *,
    record_tasks: bool = False,
    check: bool = False,
) -> GeoResult:
    """Run ``workload`` under ``policy`` until every job has finished. Deterministic except ``decision_ns``.

    ``check=True`` verifies :func:`check_state` after every batch (O(sub-jobs + running tasks) each; tests).
    """
    fed = workload.federation
    n_dc = fed.size
    slots = list(fed.slots)
    jobs = workload.jobs
    n_jobs = len(jobs)

    # Sub-job tables: plain Python lists of ints/floats, read in the hot loop.
    sj_job: list[int] = []
    sj_dc: list[int] = []
    sj_n: list[int] = []
    sj_dur: list[list[float]] = []
    sj_cum: list[list[float]] = []
    job_subs: list[list[int]] = []
    for j, job in enumerate(jobs):
        subs = []
        for d, arr in zip(job.dcs, job.durations):
            subs.append(len(sj_job))
            sj_job.append(j)
            sj_dc.append(d)
            sj_n.append(int(arr.size))
            sj_dur.append(arr.tolist())
            if measure is SizeMeasure.SECONDS:
                sj_cum.append([0.0, *np.cumsum(arr).tolist()])
        job_subs.append(subs)
    sj_next = [0] * len(sj_job)
    unfinished = [job.n_tasks for job in jobs]
    arrivals = [job.arrival_s for job in jobs]

    free = slots[:]
    queued_dc = [0] * n_dc
    busy = [0.0] * n_dc
    order: list[list[int]] = [[] for _ in range(n_dc)]
    head = [0] * n_dc
    active: dict[int, None] = {}  # insertion order == arrival order
    finish = [math.nan] * n_jobs
    tasks: list[tuple[float, float, int, int]] | None = [] if record_tasks else None
    dec_at: list[float] = []
    dec_jobs: list[int] = []
    dec_entries: list[int] = []
    dec_ns: list[int] = []
    all_dcs = range(n_dc)
    seconds = measure is SizeMeasure.SECONDS
    perf = time.process_time_ns  # CPU time: robust to other processes on a shared machine
    kernel = Kernel()
    schedule = kernel.schedule
    next_time = kernel.next_time
    # The batch of the current instant: datacenters that freed a slot and whether a job arrived or departed.
    # Mutated in place by the handlers (no per-event allocation).
    touched: list[int] = []
    changed = [False]

    state = None
    if check:
        state = _State()
        state.slots, state.free, state.queued_dc = slots, free, queued_dc
        state.sj_dc, state.sj_job, state.sj_n, state.sj_next = sj_dc, sj_job, sj_n, sj_next
        state.kernel, state.order, state.active = kernel, order, active

    def task_finished(t: float, _order: int, s: int, d: int) -> None:
        """A task of sub-job ``s`` ends in datacenter ``d``: free its slot; the job departs with its last task."""
        free[d] += 1
        j = sj_job[s]
        unfinished[j] -= 1
        if not unfinished[j]:
            finish[j] = t
            del active[j]
            changed[0] = True
        if next_time() == t:
            touched.append(d)  # the batch goes on
        elif changed[0] or touched:
            touched.append(d)
            end_batch(t)
        else:  # the common case: a batch of one finish, no decision; only its datacenter can launch
            launch(d, t)
            if state is not None:
                state.now = t
                check_state(state)

    def job_arrived(t: float, _order: int, j: int, _b: int) -> None:
        """Job ``j`` reaches the controller: its tasks join their datacenters' queues; the next arrival is due."""
        active[j] = None
        for s in job_subs[j]:
            queued_dc[sj_dc[s]] += sj_n[s]
        if j + 1 < n_jobs:
            schedule(arrivals[j + 1], ORDER_ARRIVAL, EV_ARRIVAL, j + 1)
        changed[0] = True
        if next_time() != t:
            end_batch(t)

    def end_batch(t: float) -> None:
        """After the instant's last finish or arrival: one controller decision if the job set changed, then every
        datacenter with a free slot launches, in index order."""
        if changed[0]:
            changed[0] = False
            decide(t)
            for d in all_dcs:
                launch(d, t)
        else:
            for d in touched:
                launch(d, t)
        touched.clear()
        if state is not None:
            state.now = t
            check_state(state)

    def decide(t: float) -> None:
        """The controller's decision: a snapshot of the queued work, one local order per datacenter."""
        t0 = perf()
        entries = []
        for j in active:
            ent = []
            for s in job_subs[j]:
                nx = sj_next[s]
                r = sj_n[s] - nx
                if r:
                    ent.append((sj_dc[s], sj_cum[s][-1] - sj_cum[s][nx] if seconds else r, s))
            if ent:
                entries.append(ent)
        local = local_orders(policy, Snapshot(slots, entries))
        pushed = 0
        for d in all_dcs:
            col = local[d]
            order[d] = [e[2] for e in col]
            head[d] = 0
            pushed += len(col)
        dec_ns.append(perf() - t0)
        dec_at.append(t)
        dec_jobs.append(len(active))
        dec_entries.append(pushed)

    def launch(d: int, t: float) -> None:
        """Datacenter ``d``'s free slots take the next queued tasks of its local order."""
        f = free[d]
        if not f:
            return
        od = order[d]
        h = head[d]
        n_od = len(od)
        launched = 0
        while f and h < n_od:
            s = od[h]
            nx = sj_next[s]
            if nx >= sj_n[s]:
                h += 1
                continue
            dur = sj_dur[s][nx]
            sj_next[s] = nx + 1
            f -= 1
            launched += 1
            busy[d] += dur
            schedule(t + dur, ORDER_TASK_FINISHED, EV_TASK_FINISHED, s, d)
            if tasks is not None:
                tasks.append((t, t + dur, sj_job[s], d))
        free[d] = f
        head[d] = h
        queued_dc[d] -= launched

    handlers = [task_finished, job_arrived]  # indexed by EV_TASK_FINISHED, EV_ARRIVAL
    if n_jobs:
        schedule(arrivals[0], ORDER_ARRIVAL, EV_ARRIVAL, 0)
    for kind, handler in enumerate(handlers):
        kernel.register(kind, handler)
    kernel.run()
    n_events = kernel.events  # every event is a task finish or a job arrival

    if any(math.isnan(x) for x in finish):  # pragma: no cover - would be a simulator bug
        raise InvariantError("some jobs never finished")
    return GeoResult(
        policy=policy,
        measure=measure,
        job_ids=tuple(job.job_id for job in jobs),
        arrival_s=np.array(arrivals, dtype=np.float64),
        finish_s=np.array(finish, dtype=np.float64),
        n_tasks=np.array([job.n_tasks for job in jobs], dtype=np.int64),
        decision_at_s=np.array(dec_at, dtype=np.float64),
        decision_jobs=np.array(dec_jobs, dtype=np.int64),
        decision_entries=np.array(dec_entries, dtype=np.int64),
        decision_ns=np.array(dec_ns, dtype=np.int64),
        busy_s=np.array(busy, dtype=np.float64),
        n_events=n_events,
        tasks=tuple(tasks) if tasks is not None else None,
    )


def check_state(st: _State) -> None:
    """Invariants after a batch: slots never over-used, queue accounting, work conservation per datacenter.

    * ``0 <= free[d] <= slots[d]`` and running tasks in ``d`` (task-finished events on the kernel's heap) equal
      ``slots[d] - free[d]``;
    * ``queued_dc[d]`` equals the unlaunched tasks of active jobs in ``d``;
    * a datacenter with a free slot has nothing queued (work conservation);
    * every active job with queued work in ``d`` is in ``d``'s local order.
    Cost O(sub-jobs + running tasks).
    """
    n_dc = len(st.slots)
    running = [0] * n_dc
    for _time, kind, s, _b in st.kernel.pending():
        if kind == EV_TASK_FINISHED:
            running[st.sj_dc[s]] += 1
    queued = [0] * n_dc
    for s, d in enumerate(st.sj_dc):
        if st.sj_job[s] in st.active:
            queued[d] += st.sj_n[s] - st.sj_next[s]
    for d in range(n_dc):
        if not 0 <= st.free[d] <= st.slots[d]:
            raise InvariantError(f"t={st.now}: datacenter {d} has {st.free[d]} free of {st.slots[d]} slots")
        if running[d] != st.slots[d] - st.free[d]:
            raise InvariantError(f"t={st.now}: datacenter {d} runs {running[d]} tasks with {st.free[d]} free")
        if queued[d] != st.queued_dc[d]:
            raise InvariantError(f"t={st.now}: datacenter {d} queue count {st.queued_dc[d]} != {queued[d]}")
        if st.free[d] and queued[d]:
            raise InvariantError(f"t={st.now}: datacenter {d} idles {st.free[d]} slots with {queued[d]} queued")
    for d in range(n_dc):
        listed = set(st.order[d])
        for s, dd in enumerate(st.sj_dc):
            if dd == d and st.sj_job[s] in st.active and st.sj_next[s] < st.sj_n[s] and s not in listed:
                raise InvariantError(f"t={st.now}: queued sub-job {s} missing from datacenter {d}'s order")
