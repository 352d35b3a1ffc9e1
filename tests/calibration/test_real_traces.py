"""Calibration on the real traces (skipped when the shared data is absent): the validation figures it must reach.

Bounds are the figures docs/validation.md publishes for engine defaults, with a little room; the uncalibrated
engine (``--no-calibration --background none``) must still give the figures published before calibration.
"""

from __future__ import annotations

import json

import pytest

from mrsim.cli import main
from tests.tracker.helpers import SHARED_DATA

GRIDMIX = SHARED_DATA / "gridmix-system-branch-1"
LOG_2009 = SHARED_DATA / "rumen" / "small-trace-test" / "dispatch-trace-output.json.gz"
TRACE_2010 = SHARED_DATA / "rumen" / "small-trace-test" / "counters-test-trace.json.gz"
FOLDED = SHARED_DATA / "rumen-branch-1" / "small-trace-test" / "goldFoldedTrace.json.gz"

pytestmark = pytest.mark.skipif(not GRIDMIX.exists(), reason="shared data not available")


def validate(path, capsys, *flags) -> dict:
    assert main(["validate", str(path), "--json", "--quiet", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_gridmix_group(capsys):
    errors = []
    for trace in sorted(GRIDMIX.glob("*.json.gz")):
        errors += [j["error_pct"] for j in validate(trace, capsys)["jobs"] if j["scored"]]
    assert len(errors) == 103
    mean_abs = sum(abs(e) for e in errors) / len(errors)
    signed = sum(errors) / len(errors)
    # Seed 0 gives 3.9 / +0.2 with the stalls carried by the tasks the trace shows stuck (seeds 1-3: 2.9-3.6 /
    # +0.2 to +0.3); 6.2 / -2.3 without (the stall hits other jobs in the replay than in the trace); 6.8 / -3.3 under
    # stall windows alone; uncalibrated 19.8 / -19.6 (docs/validation.md, "Stalls carried by their tasks").
    assert mean_abs <= 5.0 and abs(signed) <= 1.5, (mean_abs, signed)


def test_gridmix_traces_replay_the_scheduler_their_confs_name(capsys):
    # Every Gridmix job conf says mapreduce.jobtracker.taskscheduler = CapacityTaskScheduler (the 0.21/0.22 name):
    # validate replays the Capacity Scheduler with 0.21's one map and one reduce per heartbeat; --scheduler wins.
    doc = validate(GRIDMIX / "trace_1m.json.gz", capsys)
    assert doc["spec"]["scheduler"]["name"] == "capacity"
    assert doc["spec"]["scheduler"]["maximum-tasks-per-heartbeat"] == 1
    assert doc["spec"]["conf_from_trace"]["mapreduce.jobtracker.taskscheduler"].endswith("CapacityTaskScheduler")
    assert any("0.21's CapacityTaskScheduler.assignTasks" in n for n in doc["spec"]["notes"])
    fifo = validate(GRIDMIX / "trace_1m.json.gz", capsys, "--scheduler", "fifo")
    assert fifo["spec"]["scheduler"]["name"] == "fifo"
    assert not any("CapacityTaskScheduler" in n for n in fifo["spec"]["notes"])


def test_gridmix_trace_10m_calibrated_and_not(capsys):
    doc = validate(GRIDMIX / "trace_10m.json.gz", capsys)
    assert doc["spec"]["calibration"]["outlier_trackers"] == ["host254"]
    assert doc["summary"]["launch_lags"] > 0
    # The stalled tracker (host254) hits another job in the replay than in the trace (docs/calibration.md);
    # without the stall windows the other terms bring the trace to within 8 %.
    no_stalls = validate(GRIDMIX / "trace_10m.json.gz", capsys, "--calibration-parts",
                         "launch,report,aux,heartbeat,localize")
    assert no_stalls["summary"]["mean_abs_error_pct"] <= 8.0
    assert no_stalls["spec"]["heartbeat_interval_s"] == 3.009  # measured from the gaps before regular heartbeats
    # The stalled tasks carry their recorded waits (part carry): 0039's CLEANUP task, 0042's SETUP task, 0044's map.
    errors = {j["job_id"][-4:]: j["error_pct"] for j in doc["jobs"]}
    assert all(abs(errors[j]) < 5.0 for j in ("0039", "0042", "0044")), errors
    assert doc["summary"]["mean_abs_error_pct"] <= 6.0
    old = validate(GRIDMIX / "trace_10m.json.gz", capsys, "--no-calibration", "--background", "none",
                   "--scheduler", "fifo")["summary"]  # the engine before calibration replayed FIFO
    # 20.3 / 73.4 before a stand-in shuffle array was drawn on one counter by both waves (mrsim.tracker.state)
    assert round(old["mean_abs_error_pct"], 1) == 20.2 and round(old["max_abs_error_pct"], 1) == 73.4


def test_host254_stalled_its_map_launcher_only(capsys):
    # trace_10m: host254's map-slot launcher was stuck 80.9-273.5 s while it started two reduces of job 0041 at
    # once. With stalls per launcher the replay's reduces on host254 start normally, so 0041 is no longer the job
    # the stall hits (+210 % with the whole tracker stalled).
    from mrsim.calibration.choice import measure

    cal, _yarn = measure(str(GRIDMIX / "trace_10m.json.gz"))
    assert cal is not None
    host = cal.outliers["host254"]
    assert len(host.map_stalls) == 1 and host.reduce_stalls == () and host.stalls == ()
    errors = {j["job_id"][-4:]: j["error_pct"] for j in validate(GRIDMIX / "trace_10m.json.gz", capsys)["jobs"]}
    assert abs(errors["0041"]) < 10
    whole = validate(GRIDMIX / "trace_10m.json.gz", capsys, "--calibration-parts", "launch,report,aux,heartbeat,stalls")
    assert next(j["error_pct"] for j in whole["jobs"] if j["job_id"].endswith("0041")) > 100


def test_2009_log_background_explains_the_wait_behind_a_missing_job(capsys):
    doc = validate(LOG_2009, capsys)
    job = next(j for j in doc["jobs"] if j["job_id"] == "job_200904211745_0002")
    assert job["background_wait_s"] > 700
    assert abs(job["error_pct"]) < 10 and job["error_pct_without_background"] < -80
    assert doc["summary"]["mean_abs_error_pct"] <= 25
    assert doc["summary"]["without_background"]["mean_abs_error_pct"] > 35


def test_2010_and_folded_traces(capsys):
    # 10.8 uncalibrated; 6.1 before the backups' waits were replayed per task; 4.6 with the formula's 0.3 s
    # heartbeat; 3.2 with the 3 s its 14 report lags (median 2.04 s) point to (docs/validation.md).
    doc = validate(TRACE_2010, capsys)
    assert doc["summary"]["mean_abs_error_pct"] <= 4.0 and doc["spec"]["heartbeat_interval_s"] == 3.0
    folded = validate(FOLDED, capsys)
    assert folded["spec"]["calibration"]["heartbeat_source"].startswith("trace")
    assert folded["spec"]["heartbeat_interval_s"] < 1.0  # not the 7.84 s of the formula for its 784 trackers
    assert folded["summary"]["mean_abs_error_pct"] <= 8.0  # 5.7 (9.4 before its stalled maps carried their waits)


def test_calibrate_command_round_trip(tmp_path, capsys):
    out = tmp_path / "c.toml"
    assert main(["calibrate", str(GRIDMIX / "trace_10m.json.gz"), "-o", str(out), "--quiet"]) == 0
    a = validate(GRIDMIX / "trace_5m.json.gz", capsys, "--calibration-from", str(out))
    b = validate(GRIDMIX / "trace_5m.json.gz", capsys, "--calibration-from", str(GRIDMIX / "trace_10m.json.gz"))
    assert a["jobs"] == b["jobs"]  # a saved calibration replays exactly as measuring it again
    # host254's map launcher stalled in trace_5m too (42-235 s of its clock): the replay takes that window from the
    # replayed trace, so job 0054, whose maps waited for it, is replayed within a few percent (-61 % when only
    # trace_10m's window, another run's clock, was used); docs/validation.md, cross-calibration.
    errors = {j["job_id"][-4:]: j["error_pct"] for j in b["jobs"]}
    assert abs(errors["0054"]) < 6.0
    # Cross-calibrated, trace_5m is within the 10 % (18-34 % with the stall windows, where the replay's
    # placement put 0052's maps in the window and never 0053's): 0053's map carries its recorded 191-s wait.
    assert abs(errors["0053"]) < 6.0 and abs(errors["0052"]) < 6.0, errors
    assert b["summary"]["mean_abs_error_pct"] <= 5.0
    assert any("stall windows of host254 come from the replayed" in n for n in b["spec"]["notes"])
    bad = tmp_path / "bad.toml"
    bad.write_text(out.read_text().replace("jvm_reuse = 1", "jvm_reuse = 1\nlaunch_lags = 2"))
    assert main(["validate", str(GRIDMIX / "trace_5m.json.gz"), "--calibration-from", str(bad)]) == 1  # an input error
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "launch_lags" in err[0]


def test_sweep_cells_replay_the_traces_calibration(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(f'''name = "cal"
seed = 0
replications = 1
schedulers = ["fifo"]

[[workloads]]
trace = "{GRIDMIX / 'trace_10m.json.gz'}"

[[clusters]]
nodes = 8

[grid]
interarrival_scale = [1.0]
''')
    off = tmp_path / "off.toml"
    off.write_text(spec.read_text().replace("[grid]", '[engine]\ncalibration = "none"\n\n[grid]'))
    import pandas as pd

    assert main(["sweep", str(spec), "-o", str(tmp_path / "on.parquet"), "--workers", "1"]) == 0
    assert main(["sweep", str(off), "-o", str(tmp_path / "off.parquet"), "--workers", "1"]) == 0
    on, plain = pd.read_parquet(tmp_path / "on.parquet"), pd.read_parquet(tmp_path / "off.parquet")
    assert on["launch_lags"].iloc[0] > 0 and "launch_lags" not in plain.columns
    assert on["mean_completion_s"].iloc[0] > plain["mean_completion_s"].iloc[0]


def test_memory_slots_off_is_the_engine_before_memory_based_scheduling(capsys):
    # distcache_case2: its first job asks 2048 MB per map on 1536-MB slots. docs/validation.md's table of the
    # engine before calibration and memory-based scheduling: 20.2 / 35.7 % (mean / max absolute error).
    old = ("--no-calibration", "--background", "none", "--engine", "mr1", "--scheduler", "fifo")
    off = validate(GRIDMIX / "distcache_case2_trace.json.gz", capsys, *old, "--memory-slots", "off")
    assert (round(off["summary"]["mean_abs_error_pct"], 1), round(off["summary"]["max_abs_error_pct"], 1)) == (20.2, 35.7)
    assert "memory_slots" not in off["spec"]
    on = validate(GRIDMIX / "distcache_case2_trace.json.gz", capsys, *old)
    assert on["spec"]["memory_slots"]["jobs"]  # on by default: the 2048-MB job takes two slots per map
    assert on["summary"]["mean_abs_error_pct"] < off["summary"]["mean_abs_error_pct"]


def test_gridmix_wordcount_heartbeat_from_its_few_report_lags(capsys):
    # 4 report lags (median 2.29 s) on 1 host rule out Hadoop 1.1+'s 0.3 s: the replay runs 0.20-1.0's 3 s and says
    # where it came from. The job: -21.6 % at 0.3 s, +9.6 % at 3 s (one heartbeat of 30.7 s, docs/yarn.md).
    doc = validate(SHARED_DATA / "gridmix" / "data" / "wordcount.json", capsys)
    assert doc["spec"]["heartbeat_interval_s"] == 3.0
    assert doc["spec"]["assumed"]["heartbeat"].startswith("calibration: trace: the median of 4 report lags")
    assert doc["jobs"][0]["error_pct"] == pytest.approx(9.6, abs=0.1)


def test_folded_calibration_does_not_depend_on_the_hash_seed(tmp_path):
    # Two of the folded trace's stalled tasks share their assignment window; they came out in a set's order, which
    # PYTHONHASHSEED changes (seeds 0 and 2 gave different TOMLs before the tie-break).
    import os
    import subprocess
    import sys

    texts = []
    for seed in ("0", "2"):
        out = tmp_path / f"folded-{seed}.toml"
        env = {**os.environ, "PYTHONHASHSEED": seed, "MRSIM_NO_CACHE": "1"}
        subprocess.run([sys.executable, "-m", "mrsim", "calibrate", str(FOLDED), "-o", str(out)], env=env,
                       check=True, capture_output=True)
        texts.append(out.read_text())
    assert "stalled_tasks" in texts[0] and texts[0] == texts[1]


def test_cross_calibration_keeps_trace_10m_heartbeat_off_the_other_hadoop_line(tmp_path, capsys):
    # trace_10m's job confs spell mapreduce.jobtracker.heartbeats.in.second (Hadoop 0.21/0.22), the four
    # cpu/mem_emul traces mapred.heartbeats.in.second (0.20/1.x): its measured 3.009 s is set aside for them
    # (docs/validation.md), and they run their own line's formula: their job ids name a JobTracker started
    # 2011-08-04, before Hadoop 1.1.0, so the 3-s floor of 0.20.203-1.0 (docs/what-if.md). Each stays within 10 %
    # at seed 0; a trace of the same line keeps the given interval.
    toml = tmp_path / "trace_10m.toml"
    assert main(["calibrate", str(GRIDMIX / "trace_10m.json.gz"), "-o", str(toml), "--quiet"]) == 0
    assert 'hadoop_line = "0.21/0.22"' in toml.read_text()
    for name in ("cpu_emul_case1", "cpu_emul_case2", "mem_emul_case1", "mem_emul_case2"):
        doc = validate(GRIDMIX / f"{name}.json.gz", capsys, "--calibration-from", str(toml), "--seed", "0")
        check = doc["spec"]["calibration"]["heartbeat_line_check"]
        assert check == {"given_line": "0.21/0.22", "replayed_line": "0.20/1.x", "given_interval_s": 3.009,
                         "applied": False}, name
        assert doc["spec"]["heartbeat_interval_s"] == pytest.approx(3.0), name  # max(3 s, ceil(29/100) s)
        assert doc["spec"]["hadoop_version"] == "1.0", name
        assert doc["summary"]["mean_abs_error_pct"] <= 10.0, (name, doc["summary"]["mean_abs_error_pct"])
    same = validate(GRIDMIX / "compression_case4_trace.json.gz", capsys, "--calibration-from", str(toml))
    assert "heartbeat_line_check" not in same["spec"]["calibration"]
    assert same["spec"]["heartbeat_interval_s"] == pytest.approx(3.009)
