"""``mrsim profile``: stores from real logs, Rumen output, cluster files, --compare, warnings and bad input."""

from __future__ import annotations

import json

from mrsim.profiler.store import load_observations, load_store
from mrsim.profiler.workloads import load_workload
from mrsim.model.cluster import load_cluster_file
from tests.tracker.helpers import SHARED_DATA
from tests.profiler.store.helpers import (DISPATCH_GOLD, DISPATCH_LOG, GRIDMIX, assert_one_line_error, run_cli,
                                          same_template)


def test_profile_log_into_store_equals_load_workload(tmp_path, capsys):
    code, out, err = run_cli(["profile", DISPATCH_LOG, "-o", tmp_path / "s", "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "store" and doc["created"] is True
    assert (doc["jobs_added"], doc["jobs_total"], doc["duplicates_skipped"]) == (3, 3, 0)
    assert doc["inputs"] == [{"path": str(DISPATCH_LOG), "format": "jobhistory", "jobs_read": 4, "jobs_added": 3,
                              "duplicates_skipped": 0, "jobs_without_work": 1, "warnings": 1}]
    # Warnings: one line each on stderr, naming the job.
    assert err.strip().splitlines() == ["mrsim: warning: job job_200904211745_0001: KILLED job with no completed task skipped"]
    for a, b in zip(load_workload(DISPATCH_LOG), load_store(tmp_path / "s")):
        same_template(a, b)
    obs = load_observations(tmp_path / "s")["job_200904211745_0004"]
    assert obs["peak_maps"] == 125 and obs["peak_reduces"] == 50


def test_profile_incremental_dedup_over_two_runs(tmp_path, capsys):
    store = tmp_path / "s"
    assert run_cli(["profile", DISPATCH_GOLD, "-o", store, "--quiet"], capsys)[0] == 0
    code, out, _ = run_cli(["profile", DISPATCH_LOG, GRIDMIX / "trace_1m.json.gz", "-o", store, "--json", "--quiet"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["created"] is False
    assert (doc["jobs_added"], doc["duplicates_skipped"], doc["jobs_total"]) == (5, 3, 8)  # the log repeats the gold jobs
    assert [(r["jobs_added"], r["duplicates_skipped"]) for r in doc["inputs"]] == [(0, 3), (5, 0)]
    code, out, _ = run_cli(["profile", store, "-o", tmp_path / "copy", "--json"], capsys)  # a store is an input too
    assert code == 0 and json.loads(out)["jobs_total"] == 8
    assert len(load_store(tmp_path / "copy")) == 8


def test_profile_to_rumen_json_gives_the_same_templates(tmp_path, capsys):
    for name in ("t.json", "t.json.gz"):
        code, out, _ = run_cli(["profile", DISPATCH_LOG, "-o", tmp_path / name, "--json", "--quiet"], capsys)
        assert code == 0 and json.loads(out)["jobs_written"] == 4  # the killed job is written too, like TraceBuilder
        assert (tmp_path / name).read_bytes()[:2] == (b"\x1f\x8b" if name.endswith(".gz") else b'{"')
        for a, b in zip(load_workload(DISPATCH_LOG), load_workload(tmp_path / name)):
            same_template(a, b)


def test_profile_cluster_out_file_replays(tmp_path, capsys):
    code, out, _ = run_cli(["profile", DISPATCH_LOG, "--cluster-out", tmp_path / "c.toml", "--json", "--quiet"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["kind"] is None
    assert {k: doc["topology"][k] for k in ("nodes", "racks", "map_slots", "reduce_slots")} == \
        {"nodes": 253, "racks": 41, "map_slots": 220, "reduce_slots": 52}  # 40 racks ran attempts + /default-rack
    cluster = load_cluster_file(tmp_path / "c.toml")
    assert (len(cluster), cluster.map_slots, cluster.reduce_slots) == (253, 220, 52)
    code, out, _ = run_cli(["replay", DISPATCH_GOLD, "--cluster", tmp_path / "c.toml", "--json", "--quiet"], capsys)
    assert code == 0 and json.loads(out)["spec"]["cluster"]["nodes"] == 253


def test_profile_topology_is_the_old_spelling_of_cluster_out(tmp_path, capsys):
    code, out, err = run_cli(["profile", DISPATCH_LOG, "--topology", tmp_path / "c.toml", "--json"], capsys)
    assert code == 0 and json.loads(out)["topology"]["nodes"] == 253  # the --json key is kept
    assert "mrsim: warning: --topology is deprecated and will be removed; use --cluster-out" in err.splitlines()
    assert load_cluster_file(tmp_path / "c.toml").map_slots == 220


def test_compare_json(tmp_path, capsys):
    run_cli(["profile", DISPATCH_GOLD, "-o", tmp_path / "s", "--quiet"], capsys)
    code, out, _ = run_cli(["profile", "--compare", DISPATCH_LOG, tmp_path / "s", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["epsilon"] == 1e-6 and doc["unit"] == "nats"
    assert {p: doc["phases"][p]["kl"] for p in ("map", "shuffle", "reduce")} == {"map": 0.0, "shuffle": 0.0, "reduce": 0.0}
    code, out, _ = run_cli(["profile", "--compare", DISPATCH_GOLD, DISPATCH_GOLD, "--job", "job_200904211745_0003",
                            "--job", "job_200904211745_0004", "--bins", "10", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["phases"]["map"]["n_a"] == 3 and doc["phases"]["map"]["n_b"] == 131
    assert doc["phases"]["map"]["bins"] == 10 and doc["phases"]["map"]["kl"] > 1.0
    code, out, _ = run_cli(["profile", "--compare", DISPATCH_GOLD, DISPATCH_GOLD], capsys)
    assert code == 0 and "D_prime" in out and "map" in out


def test_bad_inputs_are_one_line_errors(tmp_path, capsys):
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not a trace\nat all\n")
    assert_one_line_error(*run_cli(["profile", junk, "-o", tmp_path / "s"], capsys), "notes.txt")
    assert not (tmp_path / "s").exists() or not any((tmp_path / "s").iterdir())
    assert_one_line_error(*run_cli(["profile", tmp_path / "missing.json", "-o", tmp_path / "s"], capsys), "missing.json")
    assert_one_line_error(*run_cli(["profile", DISPATCH_GOLD], capsys), "-o STORE")
    swim = SHARED_DATA / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
    assert_one_line_error(*run_cli(["profile", swim, "-o", tmp_path / "t.json"], capsys), "SWIM")
    assert not (tmp_path / "t.json").exists()
    assert_one_line_error(*run_cli(["profile", swim, "--cluster-out", tmp_path / "c.toml"], capsys), "cannot infer")
    assert_one_line_error(*run_cli(["profile", "--compare", DISPATCH_GOLD, DISPATCH_GOLD, "--job", "job_x"], capsys), "job_x")
    assert_one_line_error(*run_cli(["profile", "--compare", DISPATCH_GOLD, DISPATCH_GOLD, "--bins", "many"], capsys), "--bins")
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "keep.txt").write_text("x")
    assert_one_line_error(*run_cli(["profile", DISPATCH_GOLD, "-o", tmp_path / "occupied", "--quiet"], capsys),
                          "not an mrsim trace store")


def test_swim_input_goes_into_a_store(tmp_path, capsys):
    swim = SHARED_DATA / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
    code, out, _ = run_cli(["profile", swim, "-o", tmp_path / "s", "--json", "--quiet"], capsys)
    assert code == 0 and json.loads(out)["jobs_total"] == len(load_workload(swim))
