"""The engine configuration (``mrsim.studies.lotes.engine``: the JobTracker in task mode with the push plug-in)
against the standalone simulator it replaced (``tests/oracles/lotes_engine.py``): every figure of a replication
is identical, bit for bit, on seeded runs of both policies, single-task and MapReduce jobs, overload, switched-off
machines, three resources, and scripted timelines with same-instant events."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pytest

from mrsim.studies.lotes.engine import RunResult, simulate
from mrsim.studies.lotes.experiment import RunSpec, System, lam_star, plan_for, replication_seed
from mrsim.studies.lotes.google import table3_workload
from mrsim.studies.lotes.policies import Policy
from mrsim.studies.lotes.spec import Cluster, JobClass, MachineConfig, Workload
from tests.oracles.lotes_engine import simulate as oracle

from .conftest import ScriptedSource

#: RunResult fields that measure the machine, not the model.
TIMINGS = {"wall_seconds", "cpu_seconds", "engine_events"}


def figures(res) -> dict:
    """Every figure of a result, with the streaming statistics spelled out (histograms included)."""
    out = {}
    for f in fields(RunResult):
        if f.name in TIMINGS or not hasattr(res, f.name):
            continue
        value = getattr(res, f.name)
        if f.name in ("waits", "flows"):
            value = (value.count, value.total, value.zeros, value.below, value.above, value.maximum,
                     value.hist.tobytes())
        out[f.name] = value
    return out


def assert_same(spec: RunSpec, system: System | None = None, replication: int = 0) -> RunResult:
    full, active, workload = (system or System()).resolve(spec)
    plan = plan_for(active, workload) if spec.policy is Policy.LOTES else None
    kw = dict(rate=spec.load * lam_star(full, workload), horizon=spec.horizon, warmup=spec.effective_warmup,
              seed=replication_seed(spec.seed, replication), plan=plan, samples=spec.samples)
    expected = oracle(active, workload, spec.policy, **kw)
    got = simulate(active, workload, spec.policy, **kw)
    a, b = figures(expected), figures(got)
    assert a.keys() == b.keys()
    assert {k: (a[k], b[k]) for k in a if a[k] != b[k]} == {}
    return got


def fast_table3(factor: float) -> Workload:
    """Table 3 with every mean processing time divided by ``factor``: a small cluster fills within hours."""
    w = table3_workload()
    return replace(w, classes=tuple(replace(c, mean_duration=c.mean_duration / factor) for c in w.classes))


def test_table3_at_full_durations_equals_the_oracle() -> None:
    assert_same(RunSpec(policy=Policy.LOTES, load=0.9, horizon=10.0, seed=1, machines_per_config=5))


@pytest.mark.parametrize("policy", [Policy.LOTES, Policy.GREEDY])
@pytest.mark.parametrize("load", [0.7, 1.3])
def test_single_task_jobs_equal_the_oracle(policy: Policy, load: float) -> None:
    res = assert_same(RunSpec(policy=policy, load=load, horizon=3.0, seed=7, machines_per_config=6),
                      System(workload=fast_table3(20)))
    assert res.jobs_arrived > 500 and res.waits.count > 100
    if load > 1:
        assert res.tasks_queued_end > 20 and res.censored_tasks > 0  # the queues were exercised


@pytest.mark.parametrize("policy", [Policy.LOTES, Policy.GREEDY])
def test_mapreduce_jobs_equal_the_oracle(policy: Policy) -> None:
    system = System(workload=fast_table3(10))
    spec = RunSpec(policy=policy, load=1.1, horizon=6.0, seed=3, machines_per_config=4, mapreduce=True)
    res = assert_same(spec, system)
    assert res.jobs_completed > 3 and res.tasks_queued_end > 0


def test_switched_off_machines_equal_the_oracle() -> None:
    assert_same(RunSpec(policy=Policy.LOTES, load=0.9, horizon=10.0, seed=2, machines_per_config=8,
                        machines_fraction=0.75), replication=1)


@pytest.mark.parametrize("policy", [Policy.LOTES, Policy.GREEDY])
def test_three_resources_equal_the_oracle(policy: Policy) -> None:
    cluster = Cluster(("cores", "ram_gb", "gpus"),
                      (MachineConfig("cpu", (16.0, 32.0, 1.0), 4), MachineConfig("gpu", (8.0, 64.0, 4.0), 3)))
    workload = Workload(("cores", "ram_gb", "gpus"),
                        (JobClass("batch", 0.7, 0.5, (2.0, 4.0, 0.1), (0.2, 0.2, 0.0)),
                         JobClass("train", 0.3, 2.0, (1.0, 8.0, 1.0), (0.1, 0.1, 0.0))))
    assert_same(RunSpec(policy=policy, load=1.2, horizon=15.0, warmup=3.0, seed=4), System(cluster, workload))


ONE = Cluster(("cores", "ram_gb"), (MachineConfig("m", (4.0, 4.0), 2),))
ONE_CLASS = Workload(("cores", "ram_gb"), (JobClass("a", 1.0, 1.0, (1.0, 1.0), (0.0, 0.0)),))


@pytest.mark.parametrize("policy", [Policy.LOTES, Policy.GREEDY])
def test_scripted_ties_equal_the_oracle(policy: Policy) -> None:
    # Same-instant completions and arrivals, a blocked queue head, and a source that runs dry before the horizon
    # (both sample on until the horizon).
    jobs = [(0.0, 0, [3, 1], None, [2.0]), (0.0, 0, [2, 3], None, [1.0]), (1.0, 0, [2, 2], None, [1.0]), (1.0, 0, [4, 4], None, [2.0]),
            (2.0, 0, [4, 4], None, [0.5]), (2.0, 0, [1, 1], None, [3.0]), (3.0, 0, [1, 1], None, [1.0])]
    plan = None
    if policy is Policy.LOTES:
        from mrsim.studies.lotes.assignment import build_plan

        plan = build_plan(ONE, ONE_CLASS)
    runs = [sim(ONE, ONE_CLASS, policy, rate=1.0, horizon=8.0, warmup=0.0, seed=0, plan=plan, samples=16,
                source=ScriptedSource(list(jobs))) for sim in (oracle, simulate)]
    a, b = figures(runs[0]), figures(runs[1])
    assert {k: (a[k], b[k]) for k in a if a[k] != b[k]} == {}
    assert runs[1].waits.count == 7 and runs[1].waits.total > 0 and len(runs[1].sample_times) == 17


def test_the_engine_runs_the_tasks_on_its_trackers() -> None:
    # the JobTracker does the work: every completion the study counts is one the engine applied, and the engine
    # handled more events than the model has (launch heartbeats, samples)
    res = assert_same(RunSpec(policy=Policy.GREEDY, load=0.8, horizon=6.0, seed=1, machines_per_config=3))
    assert res.engine_events > res.events
    assert np.isfinite(res.waits.mean)
