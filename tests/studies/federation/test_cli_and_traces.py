"""Geo policies as ordinary ``--scheduler`` names: replay/compare JSON, one-line errors (exit 2), real traces."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mrsim.cli import main
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.workloads import load_workload
from mrsim.model.cluster import load_cluster_file
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from mrsim.studies.federation.placement import PlacementPolicy, PlacementSpec, place_workload
from mrsim.studies.geo.policies import Policy
from tests.tracker.helpers import SHARED_DATA

DATA = Path(__file__).parent / "data"
JOBS = str(DATA / "paper_example_jobs.toml")
FED3 = str(DATA / "fed3.toml")
FED3X4 = str(DATA / "fed3x4.toml")
POLICIES = [p.value for p in Policy]


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return orjson.loads(out)


def test_replay_json_extends_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, ["replay", JOBS, "--cluster", FED3, "--heartbeat-interval", "off", "--scheduler", "swag",
                            "--json"])
    assert doc["scheduler"] == "swag"
    assert {"jobs", "summary", "spec", "warnings"} <= set(doc)
    assert doc["summary"]["mean_completion_s"] == pytest.approx(35 / 3, abs=1e-6)
    assert doc["summary"]["scheduler_stats"]["policy"] == "swag"
    assert doc["summary"]["federation"]["slowdown_baseline"] == "lower-bound"
    assert doc["spec"]["placement"] == {"policy": "auto", "seed": 0, "jobs_kept": 3, "jobs_placed": 0,
                                        "placed_with": "uniform"}
    assert doc["spec"]["scheduler"]["policy"] == "swag"


def test_compare_shows_the_policies_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, ["compare", JOBS, "--cluster", FED3, "--heartbeat-interval", "off", "--json",
                            "--schedulers", "fcfs,gsrpt,isrpt,reorder-gsrpt,swag"])
    table = {row["scheduler"]: row for row in doc["table"]}
    assert [round(table[p]["mean_completion_s"], 2) for p in ("fcfs", "gsrpt", "isrpt", "reorder-gsrpt", "swag")] \
        == [13.0, 12.33, 12.33, 12.0, 11.67]
    # isolated-replay slowdowns (each job alone through the engine): A 10, B 8, C 7 s
    assert table["swag"]["slowdown_small"] == pytest.approx((18 / 10 + 10 / 8 + 7 / 7) / 3, abs=1e-6)
    assert doc["schedulers"]["swag"]["summary"]["federation"]["slowdown_baseline"] == "isolated-replay"
    assert main(["compare", JOBS, "--cluster", FED3, "--heartbeat-interval", "off", "--schedulers", "fcfs,swag"]) == 0
    out = capsys.readouterr().out
    assert "slowdown small" in out and "placement auto: 3 job(s) kept" in out


def test_compare_with_zipf_placement_on_a_trace(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, ["compare", "--cluster", FED3X4, "--placement", "zipf", "--placement-skew", "1.5", "--json",
                            "--schedulers", "fcfs,swag", "--seed", "4"])
    assert doc["spec"]["placement"]["policy"] == "zipf" and doc["spec"]["placement"]["skew"] == 1.5
    assert doc["spec"]["placement"]["jobs_placed"] == 50  # the bundled 50-job default trace
    assert set(doc["schedulers"]) == {"fcfs", "swag"}


BAD = [
    (["replay", "--cluster", FED3, "--placement", "racks", "--rack-map", "/r1"], "--rack-map: expected RACK=DATACENTER"),
    (["replay", "--cluster", FED3, "--placement", "racks", "--rack-map", "/r1=mars"], "datacenter 'mars'"),
    (["replay", "--nodes", "3", "--placement", "zipf"], "--placement zipf: the cluster is not a federation"),
    (["compare", "--nodes", "3", "--rack-map", "/r=dc1"], "--rack-map: the cluster is not a federation"),
    (["replay", "--cluster", FED3, "--placement-skew", "2"], "--placement-skew needs --placement zipf"),
    (["replay", "--cluster", FED3, "--placement", "zipf", "--placement-skew", "-1"], "--placement-skew must be"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a[:1] + a[-2:]) for a, _ in BAD])
def test_bad_flags_are_one_line_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_unknown_datacenter_in_a_job_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "jobs.toml"
    spec.write_text('[[job]]\nid = "X"\nsubmit = 0\nmaps = 2\nreduces = 0\nmap_duration = 1.0\n'
                    'map_datacenters = { dc1 = 1, mars = 1 }\n')
    assert main(["replay", str(spec), "--cluster", FED3, "--scheduler", "swag"]) == 1  # a bad file: exit 1
    err = capsys.readouterr().err
    assert "job X" in err and "'mars'" in err and err.count("\n") == 1


def test_one_site_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--nodes", "4", "--scheduler", "gsrpt"]) == 0
    assert "note: one-site cluster: the geo policy sees a single datacenter" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ real traces

def _real(path: Path, jobs: int) -> Workload:
    if not path.exists():
        pytest.skip("../shared/data not present")
    w = load_workload(str(path))
    return Workload.of(list(w.jobs)[:jobs], source=f"{w.source} (first {jobs} jobs)", warnings=w.warnings)


@pytest.mark.parametrize("trace,placement,jobs", [
    ("rumen/zombie/input-trace.json", PlacementPolicy.RACKS, 10),
    ("swim/FB-2009_samples_24_times_1hr_0.tsv", PlacementPolicy.ZIPF, 120),
])
def test_real_traces_on_a_three_datacenter_federation(trace: str, placement: PlacementPolicy, jobs: int) -> None:
    cluster = load_cluster_file(FED3X4)
    w, report = place_workload(_real(SHARED_DATA / trace, jobs), cluster, PlacementSpec(placement, seed=1))
    assert report.placed == len(w)
    means = {}
    for policy in POLICIES:
        r = replay(w, cluster, HadoopConf(), create_scheduler(policy), ReplayOptions(seed=1))
        assert len(r.tasks) == w.n_tasks and (r.jobs.finish_s >= r.jobs.submit_s).all()
        fed = r.summary["federation"]
        assert sum(c["jobs"] for c in fed["size_classes"].values()) == len(w)
        # slowdowns against the lower bound are >= 1 for every class with jobs
        assert all(c["mean_slowdown"] >= 1 - 1e-9 for c in fed["size_classes"].values() if c["jobs"])
        assert all(0 <= u["map"] <= 1 for u in fed["utilisation"].values())
        means[policy] = r.summary["mean_completion_s"]
    assert all(m > 0 for m in means.values())
