"""The paper's worked example through the heartbeat engine, against the standalone simulator and the paper.

Three jobs, three one-slot datacenters, unit tasks, task-completion mode (``--heartbeat-interval off``): the
engine's per-datacenter schedules and completion times must be exactly those of the paper's model written directly
(``tests/oracles/geo_simulator.py``, pinned to the paper's Figure 3 in tests/studies/geo/test_simulator.py) for every
policy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.tracker.replay import ReplayOptions, ReplayResult, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.workloads import load_workload
from mrsim.model.cluster import load_cluster_file
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.studies.geo.policies import Policy, Snapshot, reorder, split, swag, global_srpt, independent_srpt
from tests.oracles.geo_simulator import simulate
from mrsim.studies.geo.spec import load_spec
from tests.studies.geo.test_simulator import schedule as standalone_schedule

DATA = Path(__file__).parent / "data"
JOBS = DATA / "paper_example_jobs.toml"
FED3 = DATA / "fed3.toml"
GEO_SPEC = Path(__file__).parents[1] / "geo" / "data" / "paper_example.toml"

# The paper's means (Figure 3 and section 5): FCFS 13, both SRPTs 12.33, Reordering 12, SWAG 11.67.
PAPER_MEAN = {Policy.FCFS: 13.0, Policy.GSRPT: 37 / 3, Policy.ISRPT: 37 / 3, Policy.REORDER_GSRPT: 12.0,
              Policy.REORDER_ISRPT: 12.0, Policy.SWAG: 35 / 3}
COMPLETIONS = {  # A, B, C (tests/studies/geo/test_simulator.py)
    Policy.FCFS: [10, 18, 11], Policy.GSRPT: [18, 8, 11], Policy.ISRPT: [18, 8, 11],
    Policy.REORDER_GSRPT: [18, 8, 10], Policy.REORDER_ISRPT: [18, 8, 10], Policy.SWAG: [18, 10, 7],
}


def engine_run(policy: Policy, **options) -> ReplayResult:
    opts = dict(heartbeat_interval_s=0.0, check_invariants=True)
    opts.update(options)
    return replay(load_workload(str(JOBS)), load_cluster_file(FED3), HadoopConf(), create_scheduler(policy.value),
                  ReplayOptions(**opts))


def engine_runs(result: ReplayResult) -> dict[str, list[tuple[str, float, float]]]:
    """Per datacenter, (job, start, end) runs of consecutive tasks of one job, from the engine's task table."""
    t = result.tasks.sort_values(["start_s", "tracker"])
    out: dict[str, list[list]] = {}
    for tracker, job, start, end in zip(t.tracker, t.job_id, t.start_s, t.finish_s):
        col = out.setdefault(tracker.split("-")[0], [])
        if col and col[-1][0] == job and col[-1][2] == start:
            col[-1][2] = end
        else:
            col.append([job, start, end])
    return {d: [tuple(r) for r in col] for d, col in sorted(out.items())}


def standalone_runs(policy: Policy) -> dict[str, list[tuple[str, float, float]]]:
    """The standalone simulator's per-datacenter runs (tests/studies/geo's helper), datacenters that ran nothing dropped."""
    return {d: runs for d, runs in standalone_schedule(policy, "oracle").items() if runs}


@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.value)
def test_engine_schedule_equals_standalone_simulator(policy: Policy) -> None:
    assert engine_runs(engine_run(policy)) == standalone_runs(policy)


@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.value)
def test_engine_completion_times_equal_the_papers(policy: Policy) -> None:
    result = engine_run(policy)
    comp = dict(zip(result.jobs.job_id, result.jobs.completion_s))
    assert [comp["A"], comp["B"], comp["C"]] == COMPLETIONS[policy]
    assert result.summary["mean_completion_s"] == pytest.approx(PAPER_MEAN[policy], abs=1e-6)


def test_figure_orders_per_datacenter() -> None:
    # Figure 3 (a)-(c) and section 4/5 by hand, as the order each datacenter launches its sub-jobs in.
    order = {p: {d: [r[0] for r in col] for d, col in engine_runs(engine_run(p)).items()} for p in Policy}
    assert order[Policy.FCFS] == {"dc1": ["A", "B", "C"], "dc2": ["A", "B"], "dc3": ["A", "C"]}
    assert order[Policy.GSRPT] == {"dc1": ["B", "A", "C"], "dc2": ["B", "A"], "dc3": ["A", "C"]}
    assert order[Policy.ISRPT] == {"dc1": ["A", "B", "C"], "dc2": ["B", "A"], "dc3": ["A", "C"]}
    assert order[Policy.REORDER_GSRPT] == {"dc1": ["B", "C", "A"], "dc2": ["B", "A"], "dc3": ["C", "A"]}
    assert order[Policy.SWAG] == {"dc1": ["C", "B", "A"], "dc2": ["B", "A"], "dc3": ["C", "A"]}


def test_first_decision_orders_reordering_bca_swag_cba() -> None:
    # The controller's first order (all three jobs queued): Reordering B, C, A; SWAG C, B, A (C's estimate 7,
    # then A and B tie at 10 and B wins on its smaller total, 11 < 12).
    snap = Snapshot.from_sizes([[1, 10, 1], [3, 8, 0], [7, 0, 6]])
    assert reorder(snap, split(snap, global_srpt(snap))) == [1, 2, 0]
    assert reorder(snap, independent_srpt(snap)) == [1, 2, 0]
    assert swag(snap) == [2, 1, 0]
    sched = create_scheduler("swag")
    result = replay(load_workload(str(JOBS)), load_cluster_file(FED3), HadoopConf(), sched,
                    ReplayOptions(heartbeat_interval_s=0.0))
    assert result.summary["scheduler_stats"]["decision_samples"] == {"at_s": [0.0, 7.0, 10.0, 18.0],
                                                                     "jobs": [3, 2, 1, 0]}


def test_controller_statistics_match_the_standalone_simulator() -> None:
    result = engine_run(Policy.SWAG)
    stats = result.summary["scheduler_stats"]
    geo = simulate(load_spec(GEO_SPEC), Policy.SWAG)
    assert stats["decisions"] == geo.decision_at_s.size == 4
    assert stats["pushed_entries_total"] == int(geo.decision_entries.sum()) == 13
    assert stats["mean_jobs_in_system"] == pytest.approx(35 / 18)  # 3 jobs for 7 s, 2 for 3 s, 1 for 8 s
    assert stats["max_jobs_in_system"] == 3
    assert stats["decision_ms_max"] >= stats["decision_ms_p95"] >= stats["decision_ms_p50"] > 0
    assert create_scheduler("isrpt") is not None
    assert engine_run(Policy.ISRPT).summary["scheduler_stats"]["pushed_entries_total"] == 0  # no pushed order


def test_federation_summary_lower_bound_slowdowns_and_utilisation() -> None:
    fed = engine_run(Policy.SWAG).summary["federation"]
    assert fed["slowdown_baseline"] == "lower-bound"
    # alone, each job takes its largest sub-job: A 10, B 8, C 7 -> slowdowns 1.8, 1.25, 1.0
    assert fed["size_classes"]["small"] == {"jobs": 3, "mean_completion_s": pytest.approx(35 / 3, abs=1e-6),
                                            "mean_slowdown": pytest.approx((1.8 + 1.25 + 1.0) / 3, abs=1e-6)}
    assert fed["size_classes"]["large"]["jobs"] == 0
    # busy 11, 18 and 7 slot-seconds over an 18 s makespan
    assert [fed["utilisation"][d]["map"] for d in ("dc1", "dc2", "dc3")] == pytest.approx([11 / 18, 1.0, 7 / 18])


@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.value)
def test_worked_example_parked_equals_naive_with_heartbeats(policy: Policy) -> None:
    fast = engine_run(policy, heartbeat_interval_s=0.5, seed=3)
    naive = engine_run(policy, heartbeat_interval_s=0.5, seed=3, naive_heartbeats=True)
    assert fast.tasks.equals(naive.tasks) and fast.jobs.equals(naive.jobs)
