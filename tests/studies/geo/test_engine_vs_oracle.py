"""``mrsim geo``'s run (the engine in task mode, ``mrsim/studies/geo/run.py``) pinned against the paper's model
written directly (``tests/oracles/geo_simulator.py``): every job's finish time, every controller decision (instant,
jobs, pushed entries) and the model's event count are identical to the last bit, for every policy and both size
measures, on the worked example and seeded synthetic traces (constant durations make many same-instant batches)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mrsim.studies.geo.model import Federation, GeoJob, GeoWorkload
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.result import GeoResult, SizeMeasure
from mrsim.studies.geo.run import simulate
from mrsim.studies.geo.spec import load_spec
from mrsim.studies.geo.workloads import DurationModel, Scenario, TraceType, synthesize
from tests.oracles.geo_simulator import simulate as oracle_simulate

EXAMPLE = Path(__file__).parent / "data" / "paper_example.toml"


def assert_identical(engine: GeoResult, oracle: GeoResult) -> None:
    assert engine.job_ids == oracle.job_ids
    assert np.array_equal(engine.finish_s, oracle.finish_s)
    assert np.array_equal(engine.decision_at_s, oracle.decision_at_s)
    assert np.array_equal(engine.decision_jobs, oracle.decision_jobs)
    assert np.array_equal(engine.decision_entries, oracle.decision_entries)
    assert engine.n_events == oracle.n_events
    assert np.allclose(engine.busy_s, oracle.busy_s)  # summed in another order
    assert engine.engine_events is not None and engine.engine_events > engine.n_events


WORKLOADS = {
    "example": lambda: load_spec(EXAMPLE),
    **{f"{t.value}": (lambda t=t: synthesize(Scenario(trace=t, utilization=0.8, n_jobs=40, n_datacenters=5, slots=3,
                                                        seed=11))) for t in TraceType},
    "constant": lambda: synthesize(Scenario(trace=TraceType.GOOGLE, utilization=0.9, n_jobs=60, n_datacenters=4,
                                            slots=3, durations=DurationModel.CONSTANT, seed=2)),
}


@pytest.mark.parametrize("measure", list(SizeMeasure), ids=lambda m: m.value)
@pytest.mark.parametrize("name", WORKLOADS)
def test_engine_run_equals_the_oracle(name: str, measure: SizeMeasure) -> None:
    w = WORKLOADS[name]()
    for policy in Policy:
        assert_identical(simulate(w, policy, measure), oracle_simulate(w, policy, measure))


def test_same_instant_arrivals_keep_the_workloads_order() -> None:
    # Equal arrivals keep file order in the model ("ties by arrival"); the engine alone would take them in job id
    # order, so mrsim geo's run numbers its engine jobs (engine_inputs(keep_order=True)).
    fed = Federation(("a", "b"), (1, 1))
    jobs = (GeoJob("z", 0.0, (0, 1), (np.ones(3), np.ones(1))), GeoJob("y", 0.0, (0,), (np.ones(3),)),
            GeoJob("x", 1.0, (1,), (np.ones(2),)))
    w = GeoWorkload(fed, jobs)
    for policy in Policy:
        engine, oracle = simulate(w, policy, record_tasks=True), oracle_simulate(w, policy, record_tasks=True)
        assert_identical(engine, oracle)
        assert engine.tasks == oracle.tasks  # launch order, job and datacenter of every task


def test_a_late_first_arrival_shifts_the_clock_only() -> None:
    # The engine's clock starts at the first arrival; results are shifted back (exact here: dyadic times).
    w = load_spec(EXAMPLE)
    late = GeoWorkload(w.federation, tuple(GeoJob(j.job_id, j.arrival_s + 2.5, j.dcs, j.durations) for j in w.jobs))
    assert_identical(simulate(late, Policy.SWAG), oracle_simulate(late, Policy.SWAG))
    assert simulate(late, Policy.SWAG).decision_at_s.tolist() == [2.5, 9.5, 12.5, 20.5]


def test_nothing_shipped_imports_the_oracle() -> None:
    root = Path(__file__).resolve().parents[3]
    shipped = [*(root / "mrsim").rglob("*.py"), *(root / "schedulers").rglob("*.py")]
    assert shipped
    importing = re.compile(r"^\s*(from|import)\s+tests\b", re.M)
    assert not [str(p.relative_to(root)) for p in shipped if importing.search(p.read_text())]
