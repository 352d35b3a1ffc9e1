"""Stream dispatchers over a cluster of contention-modelled servers (dissertation sections 5.5 and 6.4).

A global stream of jobs arrives; a dispatcher sends each job (or each task of a multi-task job) to one server
for good, and each server runs its local stream under the Epochs rule (one :class:`NodeContention` per
server). Policies (:class:`DispatchPolicy`):

* ``ROUND_ROBIN``: servers in turn, oblivious to load.
* ``LEAST_RESPONSE_TIME`` (LRT): the server where the job's predicted response time is least, predicted by
  solving the server's mix plus the job (the first-epoch ``T`` of the job).
* ``LEAST_MAX_UTILIZATION`` (LMUF): the server whose bottleneck utilization (highest over its resources) is
  least, as a snapshot at the arrival instant.
* ``LEAST_MAX_UTILIZATION_THRESHOLD`` (LMUF-T): as LMUF among servers whose measured utilization does not
  exceed ``threshold``; if there is none the job waits in a FIFO queue at the scheduler and is retried
  whenever a job completes anywhere. Threshold 0 admits a job only to an idle server.

Same-instant order (deterministic): completions are processed before arrivals, so an arriving job sees the
capacity freed at that instant; ties between servers go to the lowest index. Slow servers are modelled by a
``slowdown`` factor on every demand (section 6.4.3: "twice the values").
"""

from __future__ import annotations

import enum
import math
from collections import deque
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mrsim.contention.amva import DEFAULT_MAX_ITER, DEFAULT_TOL
from mrsim.contention.incremental import MixCache, NodeContention
from mrsim.contention.node import NodeSpec
from mrsim.errors import InputError


class DispatchPolicy(enum.Enum):
    ROUND_ROBIN = "rr"
    LEAST_RESPONSE_TIME = "lrt"
    LEAST_MAX_UTILIZATION = "lmuf"
    LEAST_MAX_UTILIZATION_THRESHOLD = "lmuf-t"


class UtilizationMeasure(enum.Enum):
    """Which utilization LMUF and LMUF-T compare (section 6.4 defines the bottleneck; 6.4.2 uses the CPU)."""

    BOTTLENECK = "bottleneck"
    CPU = "cpu"


@dataclass(frozen=True, slots=True)
class Server:
    """One server: its hardware and a multiplier on every demand (2.0 = half as fast)."""

    spec: NodeSpec
    slowdown: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.spec, NodeSpec):
            raise InputError(f"server spec must be a NodeSpec, got {self.spec!r}")
        if not math.isfinite(self.slowdown) or self.slowdown <= 0:
            raise InputError(f"server slowdown must be positive and finite, got {self.slowdown!r}")


@dataclass(frozen=True, slots=True)
class StreamJob:
    """A job of the global stream: arrival (s), per-task demand vector on a speed-1 server (s), task count."""

    name: str
    arrival: float
    demands: tuple[float, ...]
    tasks: int = 1


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """Where and when one task ran: server index, dispatch time and end time (s)."""

    job: int
    task: int
    server: int
    dispatched: float
    end: float


@dataclass(frozen=True, slots=True)
class DispatchResult:
    """Per-task outcomes in dispatch order, per-job end times (last task) and the makespan (s)."""

    tasks: tuple[TaskOutcome, ...]
    job_end: tuple[float, ...]
    job_wait: tuple[float, ...]  # first dispatch minus arrival: time queued at the scheduler
    makespan: float


def dispatch_stream(
    jobs: Sequence[StreamJob],
    servers: Sequence[Server],
    policy: DispatchPolicy,
    *,
    threshold: float = 0.7,
    measure: UtilizationMeasure = UtilizationMeasure.BOTTLENECK,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
) -> DispatchResult:
    """Run a job stream through a dispatcher and per-server Epochs models; return where and when tasks ran.

    Cost: per event one node update plus, for LRT, one (cached) solve per server; servers with equal specs
    share one :class:`MixCache`.
    """
    if not isinstance(policy, DispatchPolicy):
        raise InputError(f"dispatch policy must be a DispatchPolicy, got {policy!r}")
    if not isinstance(measure, UtilizationMeasure):
        raise InputError(f"utilization measure must be a UtilizationMeasure, got {measure!r}")
    if not servers:
        raise InputError("dispatch needs at least one server")
    if not math.isfinite(threshold) or threshold < 0:
        raise InputError(f"LMUF-T threshold must be a non-negative utilization, got {threshold!r}")
    caches: dict[NodeSpec, MixCache] = {}
    nodes = []
    for s in servers:
        cache = caches.get(s.spec)
        if cache is None:
            cache = caches[s.spec] = MixCache(s.spec, tol=tol, max_iter=max_iter)
        nodes.append(NodeContention(cache))
    width = {s.spec.width for s in servers}
    for j in jobs:
        if len(width) != 1 or len(j.demands) not in width:
            raise InputError(
                f"job {j.name}: demand vector length {len(j.demands)} does not fit every server {sorted(width)}"
            )
        if isinstance(j.tasks, bool) or not isinstance(j.tasks, int) or j.tasks < 1:
            raise InputError(f"job {j.name}: task count must be a positive integer, got {j.tasks!r}")
        if not math.isfinite(j.arrival):
            raise InputError(f"job {j.name}: arrival time must be finite")
    order = sorted(range(len(jobs)), key=lambda i: jobs[i].arrival)
    queue: deque[tuple[int, int]] = deque()  # (job, task) waiting at the scheduler
    outcomes: dict[tuple[int, int], list] = {}
    dispatched_order: list[tuple[int, int]] = []
    rr = 0

    def scaled(i: int, server: int) -> tuple[float, ...]:
        f = servers[server].slowdown
        return tuple(d * f for d in jobs[i].demands)

    def level(server: int) -> float:
        util = nodes[server].utilization()
        return util[0] if measure is UtilizationMeasure.CPU else max(util)

    def choose(i: int) -> int | None:
        nonlocal rr
        if policy is DispatchPolicy.ROUND_ROBIN:
            rr = (rr + 1) % len(nodes)
            return (rr - 1) % len(nodes)
        if policy is DispatchPolicy.LEAST_RESPONSE_TIME:
            times = [nodes[s].predicted_response_time(scaled(i, s)) for s in range(len(nodes))]
            return int(np.argmin(times))
        levels = [level(s) for s in range(len(nodes))]
        if policy is DispatchPolicy.LEAST_MAX_UTILIZATION_THRESHOLD:
            allowed = [s for s in range(len(nodes)) if levels[s] <= threshold]
            if not allowed:
                return None
            return min(allowed, key=lambda s: (levels[s], s))
        return int(np.argmin(levels))

    def place(i: int, task: int, server: int, now: float) -> None:
        nodes[server].add_task((i, task), scaled(i, server), now)
        outcomes[(i, task)] = [server, now, math.nan]
        dispatched_order.append((i, task))

    def drain(now: float) -> None:
        while queue:
            i, task = queue[0]
            server = choose(i)
            if server is None:
                return
            queue.popleft()
            place(i, task, server, now)

    pos = 0
    # len(node) counts tasks that finished together with a removed one (pending) as well as running ones.
    while pos < len(order) or queue or any(len(n) for n in nodes):
        # Earliest completion over servers (ties: lowest server index).
        best = None
        for s, node in enumerate(nodes):
            nxt = node.next_completion()
            if nxt is not None and (best is None or nxt[0] < best[0]):
                best = (nxt[0], s, nxt[1])
        t_arr = jobs[order[pos]].arrival if pos < len(order) else math.inf
        if best is not None and best[0] <= t_arr:
            t, s, key = best
            nodes[s].remove_task(key, t)
            outcomes[key][2] = t
            drain(t)
            continue
        if best is None and pos >= len(order):
            raise RuntimeError("jobs wait at the scheduler but every server is idle (threshold >= 0 admits them)")
        i = order[pos]
        pos += 1
        for task in range(jobs[i].tasks):
            queue.append((i, task))
        drain(t_arr)
    tasks = tuple(TaskOutcome(i, k, *outcomes[(i, k)]) for i, k in dispatched_order)
    job_end = [0.0] * len(jobs)
    first = [math.inf] * len(jobs)
    for o in tasks:
        job_end[o.job] = max(job_end[o.job], o.end)
        first[o.job] = min(first[o.job], o.dispatched)
    wait = tuple(first[i] - jobs[i].arrival for i in range(len(jobs)))
    start = min((j.arrival for j in jobs), default=0.0)
    makespan = max(job_end, default=start) - start
    return DispatchResult(tasks, tuple(job_end), wait, makespan)


def random_stream(
    rng: np.random.Generator,
    job_types: Sequence[tuple[str, Sequence[float]]],
    n_jobs: int,
    mean_interarrival: float,
    tasks: int = 1,
) -> tuple[StreamJob, ...]:
    """A stream as in sections 5.4 and 6.4.1: exponential inter-arrival times, job type uniform over ``job_types``.

    Section 5.3's "stochastic" Epochs variant draws the same two quantities inside the loop; since arrivals do
    not depend on the servers' state, drawing the stream up front with a seeded generator is equivalent.
    """
    if n_jobs < 0 or not job_types or not (mean_interarrival > 0):
        raise InputError("random stream: need job types, n_jobs >= 0 and a positive mean inter-arrival time")
    t = 0.0
    out = []
    for n in range(n_jobs):
        t += float(rng.exponential(mean_interarrival))
        name, demands = job_types[int(rng.integers(len(job_types)))]
        out.append(StreamJob(f"{name}-{n}", t, tuple(float(d) for d in demands), tasks))
    return tuple(out)
