"""The paper's synthetic workloads through ``mrsim.replay`` in task mode equal ``mrsim geo``'s run and the paper's
model written directly (``tests/oracles/geo_simulator.py``), and the engine-figures driver produces its rows and
files."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.studies.federation.figures import main, run_cell
from mrsim.studies.geo.placement import Placement, PlacementKind
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.workloads import Scenario, TraceType, synthesize
from tests.oracles.geo_simulator import simulate as oracle_simulate


@pytest.mark.parametrize("trace", list(TraceType), ids=lambda t: t.value)
def test_task_mode_equals_standalone_simulator(trace: TraceType) -> None:
    sc = Scenario(trace=trace, utilization=0.8, n_datacenters=4, slots=3,
                  n_jobs={TraceType.FACEBOOK: 30, TraceType.GOOGLE: 60, TraceType.EXPONENTIAL: 8}[trace],
                  placement=Placement(PlacementKind.ZIPF, 1.0), seed=3)
    rows = run_cell((sc, "task"))
    assert [r["policy"] for r in rows] == ["fcfs", "gsrpt", "isrpt", "reorder-gsrpt", "reorder-isrpt", "swag"]
    for r in rows:
        # same jobs, durations and placement; the engine's completion times equal the standalone simulator's
        assert r["mean_completion_s"] == pytest.approx(r["standalone_mean_completion_s"], rel=1e-12, abs=1e-9)
        oracle = oracle_simulate(synthesize(sc), Policy(r["policy"])).completion_s.mean()
        assert r["mean_completion_s"] == pytest.approx(oracle, rel=1e-12, abs=1e-9)
        assert sum(c["jobs"] for c in r["by_class"].values()) == sc.n_jobs
        assert all(c["mean_slowdown"] >= 1 - 1e-9 for c in r["by_class"].values() if c["jobs"])


def test_heartbeats_only_delay_launches() -> None:
    sc = Scenario(trace=TraceType.GOOGLE, utilization=0.5, n_datacenters=3, slots=2, n_jobs=20, seed=5)
    task = {r["policy"]: r["mean_completion_s"] for r in run_cell((sc, "task"))}
    beat = {r["policy"]: r for r in run_cell((sc, "heartbeat"))}
    assert beat["swag"]["scenario"]["heartbeat_interval_s"] == pytest.approx(0.3)
    assert all(beat[p]["mean_completion_s"] > 0 for p in task)
    assert all(beat[p]["decisions"] >= 1 for p in task)


def test_bad_flags_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-o", str(tmp_path), "--seeds", "x"]) == 2
    assert main(["-o", str(tmp_path), "--modes", "fluid"]) == 2
    assert "--modes" in capsys.readouterr().err
