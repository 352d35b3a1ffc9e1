"""Event-loop timelines computed by hand (on the engine and on the oracle), invariants after every event,
determinism and Little's law."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mrsim.studies.lotes.assignment import build_plan
from mrsim.studies.lotes.engine import simulate
from tests.oracles.lotes_engine import simulate as oracle_simulate
from mrsim.studies.lotes.experiment import RunSpec, System, run_replication
from mrsim.studies.lotes.google import table1_cluster, table3_workload
from mrsim.studies.lotes.policies import Policy
from mrsim.studies.lotes.spec import Cluster, JobClass, MachineConfig, Workload

from .conftest import ScriptedSource

ONE = Cluster(("cores", "ram_gb"), (MachineConfig("m", (4.0, 4.0), 1),))
ONE_CLASS = Workload(("cores", "ram_gb"), (JobClass("a", 1.0, 1.0, (1.0, 1.0), (0.0, 0.0)),))


#: The engine configuration and the standalone oracle must both give the hand-computed timelines.
BOTH = pytest.mark.parametrize("sim", [simulate, oracle_simulate], ids=["engine", "oracle"])


def _run(jobs, workload=ONE_CLASS, mr_durations=None, sim=simulate, **kw):
    return sim(ONE, workload, Policy.GREEDY, rate=1.0, horizon=100.0, warmup=0.0, seed=0,
                    source=ScriptedSource(jobs, mr_durations), samples=10, **kw)


@BOTH
def test_fifo_head_of_line_timeline(sim):
    # t=0: 3 cores for 5 h. t=1: 2 cores, must queue. t=2: 1 core would fit but queues behind the t=1 task.
    # At t=5 both start: waits 0, 4, 3 and flows 5, 5, 4.
    res = _run([
        (0.0, 0, [3, 1], None, [5.0]),
        (1.0, 0, [2, 1], None, [1.0]),
        (2.0, 0, [1, 1], None, [1.0]),
    ], sim=sim)
    assert (res.waits.count, res.waits.total, res.waits.zeros) == (3, 7.0, 1)
    assert (res.flows.count, res.flows.total) == (3, 14.0)
    assert (res.jobs_arrived, res.jobs_completed, res.events) == (3, 3, 6)
    assert res.waits.maximum == 4.0


@BOTH
def test_completion_is_processed_before_an_arrival_at_the_same_instant(sim):
    seen = []
    res = _run([(0.0, 0, [4, 4], None, [1.0]), (1.0, 0, [4, 4], None, [1.0])], sim=sim,
               on_event=lambda st, heap: seen.append(st.waiting))
    assert len(seen) >= 4 and max(seen) == 0  # had the arrival come first, it would have waited in the queue
    assert res.waits.total == 0.0


@BOTH
def test_mapreduce_timeline(sim):
    mr = ONE_CLASS.as_mapreduce(maps=2, reduces=1)
    # job 1 (t=0): maps 2 cores x {1 h, 3 h}, reduce 4 cores x 2 h. job 2 (t=0.5): maps 2 cores x {1, 1}, reduce 1 core.
    # Map waits 0, 0, 0.5, 1.5. At t=3 job 1's last map ends first (started earlier): its reduce queues (2 cores
    # free); job 2's last map ends, the reduce starts (wait 0) and job 2's reduce queues until t=5 (wait 2).
    res = _run([
        (0.0, 0, [2, 1], [4, 1], []),
        (0.5, 0, [2, 1], [1, 1], []),
    ], workload=mr, mr_durations=[1.0, 3.0, 1.0, 1.0, 2.0, 1.0], sim=sim)
    assert (res.waits.count, res.waits.total) == (6, 4.0)
    assert sorted([res.flows.total]) == [5.0 + 5.5]
    assert (res.jobs_completed, res.tasks_released) == (2, 6)


def _checked_run(policy: Policy, load: float, workload: Workload, horizon: float) -> tuple[int, int]:
    """Events checked and the longest total backlog seen (so the test knows queues were exercised)."""
    cluster = table1_cluster(2)
    plan = build_plan(cluster, workload) if policy is Policy.LOTES else None
    from mrsim.studies.lotes.allocation import solve_allocation

    rate = load * solve_allocation(cluster, workload).lam
    n = [0, 0]

    def check(state, heap):
        state._check([(e[2], e[3]) for e in heap])
        n[0] += 1
        n[1] = max(n[1], state.waiting)

    simulate(cluster, workload, policy, rate, horizon, horizon / 2, seed=11, plan=plan, on_event=check)
    return n[0], n[1]


@pytest.mark.parametrize("policy", [Policy.LOTES, Policy.GREEDY])
def test_invariants_hold_after_every_event_under_overload(policy):
    # 1.5 h: about 2,900 checked events and a backlog above 100 jobs for both policies (3 h doubles the cost only)
    events, backlog = _checked_run(policy, 1.3, _fast_table3(), 1.5)
    assert events > 500 and backlog > 20


def test_invariants_hold_for_mapreduce_jobs():
    events, backlog = _checked_run(Policy.LOTES, 1.2, _fast_table3().as_mapreduce(maps=6, reduces=3), 4.0)
    assert events > 500 and backlog > 20


def _fast_table3() -> Workload:
    """Table 3 with every mean processing time divided by 20, so that a small cluster fills within hours."""
    w = table3_workload()
    return replace(w, classes=tuple(replace(c, mean_duration=c.mean_duration / 20) for c in w.classes))


SMALL = RunSpec(policy=Policy.LOTES, load=0.7, horizon=30.0, seed=5, machines_per_config=5)


def _figures(out):
    return {k: v for k, v in out.items() if k not in ("wall_s", "cpu_s", "events_per_s", "events_per_cpu_s", "plan_seconds")}


def test_same_seed_same_results_and_policies_see_the_same_jobs():
    a = run_replication(SMALL, 0)
    # every event is an arrival or a task completion; nothing is skipped
    assert a["events"] == a["jobs_arrived"] + a["tasks_released"] - a["tasks_running_end"] - a["tasks_queued_end"]
    assert _figures(a) == _figures(run_replication(SMALL, 0))
    assert _figures(a) != _figures(run_replication(SMALL, 1))
    g = run_replication(RunSpec(**{**SMALL.__dict__, "policy": Policy.GREEDY}), 0)
    assert (g["jobs_arrived"], g["tasks_released"]) == (a["jobs_arrived"], a["tasks_released"])


def test_light_load_matches_every_job_served_on_arrival():
    # at load 0.3 nobody waits, so the system is M/G/infinity: flow time = F and, by Little's law,
    # mean jobs in system = rate * F (sampling error of a 150 h window: a few per cent)
    spec = RunSpec(policy=Policy.LOTES, load=0.3, horizon=300.0, warmup=150.0, seed=2, machines_per_config=20)
    out = run_replication(spec, 0, System())
    assert out["wait_mean_h"] == 0.0
    assert out["flow_over_F"] == pytest.approx(1.0, rel=0.05)
    assert out["jobs_in_system_mean"] == pytest.approx(spec.load * out["lambda_star"] * out["flow_lower_bound_h"], rel=0.06)
    assert out["steady"]


@pytest.mark.parametrize("policy", [Policy.LOTES, Policy.GREEDY])
def test_three_resources_run_with_invariants(policy):
    # a named third resource (GPUs) exercises the generic, non-unrolled code paths
    cluster = Cluster(
        ("cores", "ram_gb", "gpus"),
        (MachineConfig("cpu", (16.0, 32.0, 1.0), 4), MachineConfig("gpu", (8.0, 64.0, 4.0), 3)),
    )
    workload = Workload(
        ("cores", "ram_gb", "gpus"),
        (
            JobClass("batch", 0.7, 0.5, (2.0, 4.0, 0.1), (0.2, 0.2, 0.0)),
            JobClass("train", 0.3, 2.0, (1.0, 8.0, 1.0), (0.1, 0.1, 0.0)),
        ),
    )
    plan = build_plan(cluster, workload) if policy is Policy.LOTES else None
    lam = plan.lam_allocation if plan else build_plan(cluster, workload).lam_allocation
    seen = [0, 0]

    def check(state, heap):
        state._check([(e[2], e[3]) for e in heap])
        seen[0] += 1
        seen[1] = max(seen[1], state.waiting)

    res = simulate(cluster, workload, policy, 1.2 * lam, 20.0, 5.0, seed=4, plan=plan, on_event=check)
    assert seen[0] >= res.events > 200 and seen[1] > 5  # checked after every engine event
