"""Experiments: one run specification, replications, and load sweeps over LoTES and greedy.

A :class:`RunSpec` is frozen and complete: with the cluster and workload it determines every number a run
produces (the seed drives all random streams; replication ``r`` uses a seed derived from ``(seed, r)`` by
``numpy.random.SeedSequence``, so the same replication of two policies sees the same jobs). Loads are fractions of
``lambda*``, the allocation LP's optimum for the *full* cluster and the chosen job shape (section 5.1): in the
machines-off experiment the arrival rate stays that of the full data centre while only a fraction of every
configuration's machines is switched on, and LoTES plans (stages 1 and 2) for the machines that are on.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Iterable

import numpy as np

from mrsim.errors import InputError, UsageError
from mrsim.studies.lotes.allocation import solve_allocation
from mrsim.studies.lotes.assignment import LotesPlan, build_plan
from mrsim.studies.lotes.engine import RunResult, simulate
from mrsim.studies.lotes.google import table1_cluster, table3_workload
from mrsim.studies.lotes.policies import Policy
from mrsim.studies.lotes.spec import Cluster, Workload


@dataclass(frozen=True)
class RunSpec:
    """Everything that defines one experiment point (times in hours)."""

    policy: Policy = Policy.LOTES
    load: float = 0.9
    horizon: float = 200.0
    warmup: float | None = None  # default: half the horizon
    seed: int = 1
    replications: int = 1
    machines_fraction: float = 1.0
    machines_per_config: int | None = None  # None: as the cluster says (Table 1: 1000)
    mapreduce: bool = False
    samples: int = 200

    def __post_init__(self) -> None:
        if not (self.load > 0 and math.isfinite(self.load)):
            raise InputError(f"load must be a positive number, got {self.load}")
        if not (self.horizon > 0 and math.isfinite(self.horizon)):
            raise InputError(f"horizon must be a positive number of hours, got {self.horizon}")
        if self.warmup is not None and not (0 <= self.warmup < self.horizon):
            raise UsageError(f"warm-up must be in [0, horizon), got {self.warmup}")
        if self.replications < 1:
            raise InputError(f"replications must be at least 1, got {self.replications}")
        if not (0 < self.machines_fraction <= 1):
            raise UsageError(f"machines fraction must be in (0, 1], got {self.machines_fraction}")
        if self.machines_per_config is not None and self.machines_per_config < 1:
            raise InputError(f"machines per configuration must be at least 1, got {self.machines_per_config}")
        if self.samples < 8:
            raise InputError(f"samples must be at least 8, got {self.samples}")

    @property
    def effective_warmup(self) -> float:
        return self.horizon / 2 if self.warmup is None else self.warmup

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["policy"] = self.policy.value
        d["warmup"] = self.effective_warmup
        return d


@dataclass(frozen=True)
class System:
    """The cluster (all machines on) and the single-task workload; defaults are Tables 1 and 3."""

    cluster: Cluster = field(default_factory=table1_cluster)
    workload: Workload = field(default_factory=table3_workload)

    def resolve(self, spec: RunSpec) -> tuple[Cluster, Cluster, Workload]:
        """(full cluster, active cluster, workload) for ``spec``."""
        full = self.cluster if spec.machines_per_config is None else self.cluster.with_counts(spec.machines_per_config)
        active = full.with_fraction(spec.machines_fraction) if spec.machines_fraction < 1 else full
        workload = self.workload.as_mapreduce() if spec.mapreduce else self.workload
        workload.check_against(active)
        return full, active, workload


def replication_seed(seed: int, replication: int) -> int:
    """Seed of replication ``replication`` (0-based), derived so that replications do not overlap."""
    return int(np.random.SeedSequence([seed, replication]).generate_state(1)[0])


_plan_cache: dict[tuple[Cluster, Workload], LotesPlan] = {}
_lam_cache: dict[tuple[Cluster, Workload], float] = {}


def lam_star(cluster: Cluster, workload: Workload) -> float:
    key = (cluster, workload)
    if key not in _lam_cache:
        _lam_cache[key] = solve_allocation(cluster, workload).lam
    return _lam_cache[key]


def plan_for(cluster: Cluster, workload: Workload) -> LotesPlan:
    """Stages 1 and 2 for ``cluster`` (memoised per process: sweeps reuse one plan per cluster)."""
    key = (cluster, workload)
    if key not in _plan_cache:
        _plan_cache[key] = build_plan(cluster, workload)
    return _plan_cache[key]


def run_replication(spec: RunSpec, replication: int, system: System | None = None) -> dict[str, Any]:
    """Simulate replication ``replication`` of ``spec`` and summarise it (see :func:`summarise`)."""
    system = system or System()
    full, active, workload = system.resolve(spec)
    t0 = time.perf_counter()
    lam = lam_star(full, workload)
    plan = plan_for(active, workload) if spec.policy is Policy.LOTES else None
    plan_s = time.perf_counter() - t0
    res = simulate(
        active,
        workload,
        spec.policy,
        rate=spec.load * lam,
        horizon=spec.horizon,
        warmup=spec.effective_warmup,
        seed=replication_seed(spec.seed, replication),
        plan=plan,
        samples=spec.samples,
    )
    out = summarise(res, workload)
    out["replication"] = replication
    out["plan_seconds"] = plan_s
    out["lambda_star"] = lam
    return out


def summarise(res: RunResult, workload: Workload) -> dict[str, Any]:
    """Flat figures of one run. Times in hours; ``*_s`` in wall seconds."""
    F = workload.lower_bound_flow()
    after = [i for i, t in enumerate(res.sample_times) if t >= res.warmup]
    n_mean = statistics.fmean(res.jobs_in_system[i] for i in after) if after else math.nan
    little = n_mean / res.rate if res.rate > 0 else math.nan
    single = workload.tasks_per_job == 1
    flow_mean = res.flows.mean if single else little
    util = [statistics.fmean(res.utilisation[i][l] for i in after) for l in range(len(workload.resources))] if after else []
    return {
        "wait_mean_h": res.waits.mean,
        "wait_median_h": res.waits.quantile(0.5),
        "wait_p95_h": res.waits.quantile(0.95),
        "wait_zero_fraction": res.waits.zero_fraction(),
        "wait_mean_with_censored_h": res.wait_mean_with_censored,
        "flow_mean_h": flow_mean,
        "flow_mean_completed_h": res.flows.mean,
        "flow_median_h": res.flows.quantile(0.5),
        "flow_little_h": little,
        "flow_lower_bound_h": F,
        "flow_over_F": flow_mean / F,
        "jobs_in_system_mean": n_mean,
        "jobs_in_system_end": res.jobs_in_system[-1] if res.jobs_in_system else 0,
        "tasks_waiting_end": res.tasks_waiting[-1] if res.tasks_waiting else 0,
        "censored_tasks": res.censored_tasks,
        "steady": res.steady.steady,
        "steady_growth": res.steady.growth,
        "steady_reason": res.steady.reason,
        "utilisation": dict(zip(workload.resources, util)),
        "jobs_arrived": res.jobs_arrived,
        "jobs_completed": res.jobs_completed,
        "tasks_released": res.tasks_released,
        "tasks_running_end": res.tasks_running_end,
        "tasks_queued_end": res.tasks_queued_end,
        "events": res.events,
        "wall_s": res.wall_seconds,
        "cpu_s": res.cpu_seconds,
        "events_per_s": res.events / res.wall_seconds if res.wall_seconds > 0 else math.nan,
        "events_per_cpu_s": res.events / res.cpu_seconds if res.cpu_seconds > 0 else math.nan,
        "tree_visits_per_task": res.tree_visits / res.tasks_released if res.tasks_released else 0.0,
        "dispatch_steps": res.dispatch_steps,
        "series": {
            "t_h": res.sample_times,
            "jobs_in_system": res.jobs_in_system,
            "tasks_waiting": res.tasks_waiting,
        },
    }


#: Figures aggregated over replications as mean and median (the paper's Figures 1-2 and 5-6).
AGGREGATED = (
    "wait_mean_h",
    "wait_median_h",
    "wait_mean_with_censored_h",
    "flow_mean_h",
    "flow_over_F",
    "jobs_in_system_mean",
    "wall_s",
    "cpu_s",
)


def aggregate(spec: RunSpec, reps: list[dict[str, Any]]) -> dict[str, Any]:
    """One experiment point: its full spec, per-replication figures, and mean/median over replications."""
    agg: dict[str, Any] = {}
    for key in AGGREGATED:
        vals = [r[key] for r in reps if not math.isnan(r[key])]
        agg[key] = {
            "mean": statistics.fmean(vals) if vals else math.nan,
            "median": statistics.median(vals) if vals else math.nan,
        }
    return {
        "spec": spec.as_dict(),
        "lambda_star": reps[0]["lambda_star"],
        "rate": spec.load * reps[0]["lambda_star"],
        "steady_replications": sum(1 for r in reps if r["steady"]),
        "replications": reps,
        "over_replications": agg,
    }


def run_point(
    spec: RunSpec, system: System | None = None, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    reps = []
    for r in range(spec.replications):
        reps.append(run_replication(spec, r, system))
        if progress:
            progress(f"{spec.policy.value} load {spec.load:g} fraction {spec.machines_fraction:g}: "
                     f"replication {r + 1}/{spec.replications} done in {reps[-1]['wall_s']:.1f} s")
    return aggregate(spec, reps)


def _work(args: tuple[RunSpec, int, System | None]) -> tuple[RunSpec, int, dict[str, Any]]:
    spec, r, system = args
    return spec, r, run_replication(spec, r, system)


def sweep(
    specs: Iterable[RunSpec],
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
    system: System | None = None,
) -> list[dict[str, Any]]:
    """Run every spec (all replications); ``jobs > 1`` spreads replications over processes.

    Results are identical whatever ``jobs`` is: each replication depends only on its spec and index.
    """
    specs = list(specs)
    work = [(s, r) for s in specs for r in range(s.replications)]
    done: dict[tuple[RunSpec, int], dict[str, Any]] = {}
    if jobs <= 1:
        for i, (s, r) in enumerate(work):
            done[(s, r)] = run_replication(s, r, system)
            if progress:
                progress(f"[{i + 1}/{len(work)}] {s.policy.value} load {s.load:g} "
                         f"fraction {s.machines_fraction:g} rep {r}: {done[(s, r)]['wall_s']:.1f} s")
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, (s, r, out) in enumerate(pool.map(_work, [(s, r, system) for s, r in work])):
                done[(s, r)] = out
                if progress:
                    progress(f"[{i + 1}/{len(work)}] {s.policy.value} load {s.load:g} "
                             f"fraction {s.machines_fraction:g} rep {r}: {out['wall_s']:.1f} s")
    return [aggregate(s, [done[(s, r)] for r in range(s.replications)]) for s in specs]


def sweep_specs(
    base: RunSpec, policies: Iterable[Policy], loads: Iterable[float], fractions: Iterable[float] = (1.0,)
) -> list[RunSpec]:
    """The cross product of policies, machine fractions and loads, in that nesting order."""
    return [
        replace(base, policy=p, load=l, machines_fraction=f) for p in policies for f in fractions for l in loads
    ]
