"""The Epochs algorithm on one node (dissertation chapter 5, Algorithm 7, eqs. 5.1 to 5.3).

Time is cut into *epochs* at every job start and completion, so the workload mix ``W_i`` is constant inside an
epoch. At the start of epoch ``i`` each running job ``n`` becomes its own class (population 1) whose demands are
its *residual* demands ``R^i_n`` (eq. 5.2); the closed network is solved with Bard-Schweitzer AMVA, giving the
time ``T_{i,n}`` job ``n`` would need if the mix never changed. The epoch ends at the earlier of the next arrival
and ``min_n T_{i,n}``; during it every job accomplishes (eq. 5.3)::

    D^i_{k,n} = R^i_{k,n} * d(E_i) / T_{i,n}        for every resource k

so residual vectors shrink *proportionally*. This module is the literal, one-class-per-job algorithm, the
oracle of mrsim's node model: no replay runs it; the node model (:class:`mrsim.contention.nodemix.NodeMix`, which
the engine runs, and its keyed form :class:`mrsim.contention.NodeContention`) is pinned against it in the tests
(``tests/contention/test_node_model_oracle.py``). It keeps a full per-epoch record (Table 5.1's rows) when asked.

Cost: one AMVA solve per epoch, O(epochs x sweeps x K x J) with ``J`` the mean concurrency (section 5.6).

Deviations from Algorithm 7 as printed, both invisible in the results:

* Ties: jobs whose ``T_{i,n}`` is within ``tie_rtol`` (relative) of the epoch's duration end together (the
  pseudo-code tests ``T_{i,n} = MinEnd`` exactly, which floating point cannot honour).
* A completion that coincides with an arrival ends in the same epoch; Algorithm 7 takes the arrival branch and
  then spends a zero-length epoch to retire the finished job (Table 5.11's last row).
* A job with all-zero demands ends at its start time without joining the mix (AMVA cannot solve it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from mrsim.contention.amva import DEFAULT_MAX_ITER, DEFAULT_TOL
from mrsim.contention.node import NodeSpec, solve_mix
from mrsim.errors import InputError


@dataclass(frozen=True, slots=True)
class EpochJob:
    """One job (or task) of a node's local stream: a name, a start time (s) and a demand vector (s)."""

    name: str
    start: float
    demands: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class EpochRecord:
    """One epoch, as a column of Table 5.1. Per-job tuples follow the order of ``mix`` (job indices).

    ``residual`` is ``R^i`` at the epoch's start, ``execution_times`` is ``T_{i,n}``, ``accomplished`` is
    ``D^i`` (eq. 5.3); ``events`` are the epoch's start events such as ``"arr J2"`` or ``"end J1"``.
    """

    index: int
    start: float
    end: float
    events: tuple[str, ...]
    mix: tuple[int, ...]
    residual: tuple[tuple[float, ...], ...]
    execution_times: tuple[float, ...]
    accomplished: tuple[tuple[float, ...], ...]

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class EpochsResult:
    """Per-job end times ``ej`` and execution times ``et = ej - sj`` (s), in input order, plus epoch records."""

    jobs: tuple[EpochJob, ...]
    end_times: tuple[float, ...]
    execution_times: tuple[float, ...]
    epochs: tuple[EpochRecord, ...]
    solves: int
    nonconverged: int

    @property
    def makespan(self) -> float:
        """``e(E_M) - e(E_0)``: last end minus first start (s); 0 for an empty stream."""
        if not self.jobs:
            return 0.0
        return max(self.end_times) - min(j.start for j in self.jobs)


def _as_jobs(jobs: Sequence[EpochJob | tuple[float, Sequence[float]]], spec: NodeSpec) -> tuple[EpochJob, ...]:
    out = []
    for i, job in enumerate(jobs):
        if isinstance(job, EpochJob):
            name, start, dem = job.name, job.start, job.demands
        else:
            start, dem = job
            name = f"J{i + 1}"
        start = float(start)
        if not math.isfinite(start):
            raise InputError(f"job {name}: start time must be finite, got {start!r}")
        out.append(EpochJob(name, start, spec.check(dem, f"job {name}")))
    return tuple(out)


def epochs(
    jobs: Sequence[EpochJob | tuple[float, Sequence[float]]],
    node: NodeSpec = NodeSpec(),
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    tie_rtol: float = 1e-9,
    keep_epochs: bool = True,
) -> EpochsResult:
    """Run Algorithm 7 over a node's local job stream and return every job's completion time.

    Args:
        jobs: :class:`EpochJob` items, or ``(start, demand_vector)`` pairs (named ``J1, J2, ...``). The demand
            vector follows ``node.resources``: ``(cpu, disk0, ...)`` in seconds. Any order; ties keep input order.
        node: cores and disks; the CPU uses Seidmann's approximation when ``cores > 1``.
        tol, max_iter: AMVA convergence controls (see :func:`mrsim.contention.amva.schweitzer_amva`).
        tie_rtol: relative window within which completions count as simultaneous.
        keep_epochs: keep per-epoch records (memory O(epochs x J x K)); switch off for long streams.
    """
    js = _as_jobs(jobs, node)
    n_jobs = len(js)
    order = sorted(range(n_jobs), key=lambda i: js[i].start)
    end = [math.nan] * n_jobs
    residual: dict[int, list[float]] = {}
    mix: list[int] = []
    records: list[EpochRecord] = []
    solves = nonconverged = 0
    nxt = 0  # next arrival in `order`
    now = js[order[0]].start if n_jobs else 0.0
    events: list[str] = []

    def admit(t: float) -> None:
        nonlocal nxt
        while nxt < n_jobs and js[order[nxt]].start <= t:
            i = order[nxt]
            nxt += 1
            events.append(f"arr {js[i].name}")
            if sum(js[i].demands) <= 0.0:
                end[i] = js[i].start
                events.append(f"end {js[i].name}")
            else:
                residual[i] = list(js[i].demands)
                mix.append(i)

    admit(now)
    while mix or nxt < n_jobs:
        if not mix:  # idle period: jump to the next arrival (Algorithm 7, lines 46-48)
            now = js[order[nxt]].start
            admit(now)
            continue
        sol = solve_mix(node, [residual[i] for i in mix], [1.0] * len(mix), tol=tol, max_iter=max_iter, checked=True)
        solves += 1
        nonconverged += not sol.amva.converged
        times = sol.response
        min_end = min(times)
        next_arrival = js[order[nxt]].start if nxt < n_jobs else math.inf
        if next_arrival - now > min_end:  # the epoch ends with a completion (line 18)
            duration = min_end
            epoch_end = now + duration
        else:  # the epoch ends with an arrival (line 33)
            duration = next_arrival - now
            epoch_end = next_arrival
        limit = duration * (1.0 + tie_rtol)
        done_list = []
        accomplished = []
        for pos, i in enumerate(mix):
            res = residual[i]
            if times[pos] <= limit:
                acc = list(res)
                done_list.append(i)
            else:
                frac = duration / times[pos]  # eq. 5.3
                acc = [r * frac for r in res]
            accomplished.append(acc)
        if keep_epochs:
            records.append(
                EpochRecord(
                    index=len(records) + 1,
                    start=now,
                    end=epoch_end,
                    events=tuple(events),
                    mix=tuple(mix),
                    residual=tuple(tuple(residual[i]) for i in mix),
                    execution_times=tuple(times),
                    accomplished=tuple(tuple(a) for a in accomplished),
                )
            )
        for pos, i in enumerate(mix):
            residual[i] = [r - a for r, a in zip(residual[i], accomplished[pos])]
        now = epoch_end
        events = []
        for i in done_list:
            end[i] = now
            del residual[i]
            events.append(f"end {js[i].name}")
        done = set(done_list)
        mix = [i for i in mix if i not in done]
        admit(now)
    exec_times = tuple(end[i] - js[i].start for i in range(n_jobs))
    return EpochsResult(js, tuple(end), exec_times, tuple(records), solves, nonconverged)
