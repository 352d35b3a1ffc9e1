"""YARN mode from the command line: engine choice, --out queues.csv, ignored keys, the --json contract kept."""

from __future__ import annotations

import csv
import json

import pytest

from mrsim.cli import main
from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn.timeseries import COLUMNS
from tests.tracker.yarn.helpers import SHARED_DATA, capacity_xml, cluster, conf, job, workload, write

SLS = SHARED_DATA / "sls" / "test-resources" / "inputsls.json"
RUMEN_YARN = SHARED_DATA / "sls" / "main-data" / "2jobs2min-rumen-jh.json"
RUMEN_MR1 = SHARED_DATA / "gridmix" / "data" / "wordcount.json"
CONTRACT_JOB_KEYS = {"job_id", "submit_s", "start_s", "finish_s", "completion_s", "maps", "reduces", "actual_completion_s"}

needs_data = pytest.mark.skipif(not (SLS.exists() and RUMEN_YARN.exists() and RUMEN_MR1.exists()),
                                reason="shared data absent")


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@needs_data
@pytest.mark.parametrize("trace, engine", [(SLS, "yarn"), (RUMEN_YARN, "yarn"), (RUMEN_MR1, "mr1")])
def test_engine_chosen_from_the_input(capsys, trace, engine) -> None:
    code, out, _ = run(["replay", trace, "--json", "--nodes", "4"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["spec"]["engine"] == engine
    assert all(CONTRACT_JOB_KEYS <= set(j) for j in doc["jobs"])


@needs_data
def test_engine_flag_overrides_and_scheduler_class_from_the_trace(capsys) -> None:
    code, out, err = run(["replay", RUMEN_MR1, "--json", "--nodes", "2", "--engine", "yarn"], capsys)
    assert json.loads(out)["spec"]["engine"] == "yarn"
    assert "CapacityScheduler" in err  # the default the user did not choose is announced
    code, out, err = run(["replay", RUMEN_YARN, "--json", "--nodes", "4"], capsys)
    assert json.loads(out)["scheduler"] == "fifo" and "yarn.resourcemanager.scheduler.class" in err
    code, out, _ = run(["replay", RUMEN_YARN, "--json", "--nodes", "4", "--engine", "mr1"], capsys)
    assert json.loads(out)["spec"]["engine"] == "mr1"


@needs_data
def test_validate_in_yarn_mode(capsys) -> None:
    code, out, _ = run(["validate", RUMEN_YARN, "--json", "--quiet"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["spec"]["engine"] == "yarn" and doc["summary"]["scored_jobs"] == 2


@needs_data
def test_ignored_site_keys_one_line_each(capsys, tmp_path) -> None:
    site = write(tmp_path, "yarn-site.xml", capacity_xml({"yarn.nodemanager.resource.memory-mb": "4096",
                                                          "yarn.nodemanager.vmem-pmem-ratio": "2.1",
                                                          "yarn.log-aggregation-enable": "true"}))
    code, out, err = run(["replay", SLS, "--json", "--nodes", "3", "--yarn-site", site], capsys)
    doc = json.loads(out)
    assert doc["spec"]["yarn"]["nm_memory_mb"] == 4096.0
    lines = [line for line in err.splitlines() if "not modelled" in line]
    assert len(lines) == 2 and all(str(site) in line for line in lines)
    assert any("vmem-pmem-ratio" in k for k in doc["spec"]["ignored_keys"])


@needs_data
def test_mr1_scheduler_in_yarn_mode_is_a_one_line_error(capsys) -> None:
    code, _, err = run(["replay", SLS, "--scheduler", "maxedf"], capsys)
    assert code == 2 and "not a YARN scheduler" in err and len(err.strip().splitlines()) == 1


@needs_data
def test_out_writes_queues_csv(capsys, tmp_path) -> None:
    code, out, _ = run(["replay", SLS, "--nodes", "3", "--out", tmp_path / "o"], capsys)
    assert code == 0 and "queue" in out
    rows = list(csv.reader(open(tmp_path / "o" / "queues.csv")))
    assert tuple(rows[0]) == COLUMNS and len(rows) > 100


def test_queue_series_per_second() -> None:
    # One job, 2 maps of 10 s on one 8 GB node (aligned heartbeats): AM at 0, maps run 2 -> 12.
    r = replay_yarn(workload(job("j1", [10.0, 10.0])), cluster(), conf(), create_yarn_scheduler("fifo"),
                    aligned_heartbeats=True)
    rows = {row[0]: row for row in r.queue_series.rows}
    # A sample shows the state at the start of its second (samples come first at an instant).
    assert rows[0.0][2:10] == (0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0)  # before the submission at 0
    assert rows[1.0][2] == 1024.0 and rows[1.0][8] == 1  # the AM container, one running app
    assert rows[2.0][2] == 3072.0 and rows[2.0][6] == 3  # AM + 2 maps
    assert rows[12.0][2] == 3072.0  # the maps end at 12; their containers are reported at the NM heartbeat at 12
    assert max(rows) == 13.0 and rows[13.0][2] == 0.0
    assert r.summary["yarn"]["queues"]["default"]["peak_allocated_mb"] == 3072.0
