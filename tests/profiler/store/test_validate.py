"""``mrsim validate``: the JSON contract, exact error arithmetic on a hand-made trace, --isolate, --plot."""

from __future__ import annotations

import json

import pytest

from mrsim.run.calibration import measure_from

from mrsim.analysis.validation import error_pct, isolate_cluster
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.rumen_writer import write_rumen_trace
from mrsim.profiler.workloads import default_trace_path, load_workload
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion
from mrsim.model.templates import Workload
from tests.profiler.store.helpers import DISPATCH_GOLD, GRIDMIX, assert_one_line_error, run_cli

CONTRACT_JOB_KEYS = {"job_id", "submit_s", "start_s", "finish_s", "completion_s", "maps", "reduces", "actual_completion_s"}
CONTRACT_SUMMARY_KEYS = {"jobs", "tasks", "makespan_s", "mean_completion_s", "events", "wall_s"}
T0 = 1_300_000_000_000  # ms epoch


def _attempt(aid, start, finish, host="/r1/h1", result="SUCCESS", shuffle=-1, sort=-1):
    return {"attemptID": aid, "result": result, "startTime": T0 + start, "finishTime": T0 + finish,
            "shuffleFinished": T0 + shuffle if shuffle >= 0 else -1, "sortFinished": T0 + sort if sort >= 0 else -1,
            "hostName": host}


def _task(tid, kind, start, finish, attempts):
    return {"taskID": tid, "taskType": kind, "startTime": T0 + start, "finishTime": T0 + finish, "attempts": attempts}


def _hand_trace(path):
    """Job 1 (SUCCESS): two 10 s maps one after the other on h1 (peak 1 map slot); submitted at 0, finished at 25 s.
    Job 2 (FAILED): one 4 s map on h2, submitted at 100 s, finished at 110 s (replayed, not scored)."""
    job1 = {"jobID": "job_1_0001", "submitTime": T0, "finishTime": T0 + 25_000, "outcome": "SUCCESS",
            "mapTasks": [_task("task_1_0001_m_000000", "MAP", 1_000, 11_500, [_attempt("a0", 1_000, 11_000)]),
                         _task("task_1_0001_m_000001", "MAP", 11_500, 22_000, [_attempt("a1", 11_000, 21_000)])],
            "reduceTasks": [],
            "otherTasks": [_task("task_1_0001_m_000002", "SETUP", 0, 900, [])]}
    job2 = {"jobID": "job_1_0002", "submitTime": T0 + 100_000, "finishTime": T0 + 110_000, "outcome": "FAILED",
            "mapTasks": [_task("task_1_0002_m_000000", "MAP", 100_000, 104_000,
                               [_attempt("b0", 100_000, 104_000, host="/r1/h2")]),
                         _task("task_1_0002_m_000001", "MAP", 100_000, 103_000,
                               [_attempt("b1", 100_000, 103_000, host="/r1/h2", result="FAILED")])],
            "reduceTasks": []}
    write_rumen_trace([job1, job2], path)


@pytest.mark.parametrize("isolate", [False, True])
def test_error_arithmetic_on_a_hand_made_trace(tmp_path, capsys, isolate):
    _hand_trace(tmp_path / "t.json")
    args = ["validate", tmp_path / "t.json", "--heartbeat-interval", "off", "--json"] + (["--isolate"] if isolate else [])
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["mode"] == ("isolate" if isolate else "shared")
    j1, j2 = doc["jobs"]
    # Shared: the inferred cluster is h1 (1 map slot) + h2 (2: job 2's attempts overlap), so job 1's maps run in
    # parallel and it finishes at 10 s. Isolated on its own peak (1 map slot): 0-10 s and 10-20 s, done at 20 s.
    completion = 20.0 if isolate else 10.0
    error = 100.0 * (completion - 25.0) / 25.0
    assert (j1["completion_s"], j1["actual_completion_s"]) == (completion, 25.0)
    assert j1["error_pct"] == error and j1["scored"] is True
    assert (j1["trace_launch_delay_s"], j1["trace_task_span_s"], j1["trace_tail_s"], j1["setup_s"]) == (1.0, 21.0, 3.0, 0.9)
    assert (j1["peak_maps"], j1["peak_reduces"], j1["failed_attempt_s"]) == (1, 0, 0.0)
    assert (j1["start_lag_s"], j1["finish_lag_s"]) == (-0.25, 0.75)  # means of (0, -0.5) and (0.5, 1.0)
    # The decomposition is exact: completion - 25 = (0 - 1) + (completion - 21) - 3.
    assert j1["completion_s"] - j1["actual_completion_s"] == pytest.approx(
        (j1["sim_launch_delay_s"] - j1["trace_launch_delay_s"]) + (j1["sim_task_span_s"] - j1["trace_task_span_s"])
        - j1["trace_tail_s"])
    assert j2["outcome"] == "FAILED" and j2["scored"] is False and j2["error_pct"] is None
    assert j2["submit_s"] == 100.0 and j2["completion_s"] == 4.0 and j2["failed_attempt_s"] == 3.0
    assert j2["peak_maps"] == 2  # the failed attempt held a slot too
    if isolate:
        assert (j1["map_slots"], j1["reduce_slots"], j2["map_slots"]) == (1, 0, 2)
    s = doc["summary"]
    assert (s["scored_jobs"], s["mean_abs_error_pct"], s["max_abs_error_pct"], s["mean_error_pct"]) == (1, -error, -error, error)
    assert s["mean_abs_task_span_error_pct"] == pytest.approx(abs(100.0 * (completion - 21.0) / 21.0), abs=1e-3)
    assert CONTRACT_SUMMARY_KEYS <= set(s) and all(CONTRACT_JOB_KEYS <= set(j) for j in doc["jobs"])


def test_error_pct_function():
    assert error_pct(110.0, 100.0) == pytest.approx(10.0)
    assert error_pct(50.0, 100.0) == pytest.approx(-50.0)
    assert error_pct(5.0, None) is None and error_pct(5.0, 0.0) is None and error_pct(None, 3.0) is None


def test_validate_real_trace_json_contract_and_summary(capsys):
    code, out, _ = run_cli(["validate", DISPATCH_GOLD, "--json", "--quiet"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["scheduler"] == "fifo" and doc["summary"]["jobs"] == len(doc["jobs"]) == 3
    assert doc["spec"]["cluster"]["nodes"] == 253 and doc["spec"]["cluster"]["source"].startswith("inferred from")
    errors = []
    for j in doc["jobs"]:
        assert CONTRACT_JOB_KEYS <= set(j) and {"error_pct", "scored", "outcome"} <= set(j)
        expected = 100.0 * (j["completion_s"] - j["actual_completion_s"]) / j["actual_completion_s"]
        assert j["error_pct"] == pytest.approx(expected, abs=1e-3)
        errors.append(j["error_pct"])
        decomposition = ((j["sim_launch_delay_s"] - j["trace_launch_delay_s"])
                         + (j["sim_task_span_s"] - j["trace_task_span_s"]) - j["trace_tail_s"])
        assert j["completion_s"] - j["actual_completion_s"] == pytest.approx(decomposition, abs=1e-3)
    s = doc["summary"]
    assert s["mean_abs_error_pct"] == pytest.approx(sum(abs(e) for e in errors) / 3, abs=1e-3)
    assert s["max_abs_error_pct"] == pytest.approx(max(abs(e) for e in errors), abs=1e-3)
    assert CONTRACT_SUMMARY_KEYS <= set(s)


def test_isolate_on_a_real_trace_uses_each_jobs_peaks(capsys):
    code, out, _ = run_cli(["validate", DISPATCH_GOLD, "--isolate", "--json", "--quiet"], capsys)
    assert code == 0
    doc = json.loads(out)
    slots = {j["job_id"][-4:]: (j["map_slots"], j["reduce_slots"]) for j in doc["jobs"]}
    assert slots == {"0002": (9, 1), "0003": (2, 1), "0004": (125, 50)}
    # Each row is what replaying that job alone on its isolate cluster gives, at the full cluster's heartbeat.
    interval = doc["spec"]["heartbeat_interval_s"]
    # the 0.20 JobTracker's max(3 s, ceil(N/100) s): the job ids name one started in 2009 (docs/what-if.md)
    assert interval == HadoopConf(version=HadoopVersion.V0_20).heartbeat_interval_s(253) == 3.0
    workload = load_workload(DISPATCH_GOLD)
    calibration = measure_from(DISPATCH_GOLD)  # validate's default: the trace's own calibration
    assert calibration is not None and calibration.heartbeat_interval_s is None  # 0.20 clocks: the formula
    for template in workload:
        row = next(j for j in doc["jobs"] if j["job_id"] == template.job_id)
        alone = replay(Workload.of([template]), isolate_cluster(*slots[template.job_id[-4:]]), HadoopConf(),
                       create_scheduler("fifo"), ReplayOptions(heartbeat_interval_s=interval, calibration=calibration))
        assert row["completion_s"] == pytest.approx(float(alone.jobs.completion_s[0]), abs=1e-6)
        assert row["submit_s"] == pytest.approx(template.submit_s - workload.origin_s, abs=1e-6)


def test_plot_and_table(tmp_path, capsys):
    png = tmp_path / "v.png"
    code, out, _ = run_cli(["validate", DISPATCH_GOLD, "--plot", png, "--quiet"], capsys)
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "mean |error|" in out and "job_200904211745_0004" in out


def test_validate_bad_input(tmp_path, capsys):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01 definitely not a trace")
    assert_one_line_error(*run_cli(["validate", junk], capsys), "junk.bin")
    # The bundled synthetic trace has no actual completion times (finishTime -1).
    assert_one_line_error(*run_cli(["validate", default_trace_path(), "--nodes", "4", "--quiet"], capsys),
                          "no job has an actual completion time")
    assert_one_line_error(*run_cli(["validate", DISPATCH_GOLD, "--cluster", tmp_path / "none.toml"], capsys), "none.toml")


def test_engine_keys_come_from_the_trace_unless_the_user_sets_them(capsys):
    trace = GRIDMIX / "trace_1m.json.gz"
    code, out, _ = run_cli(["validate", trace, "--json", "--quiet"], capsys)
    spec = json.loads(out)["spec"]
    assert code == 0 and spec["conf_from_trace"]["mapreduce.jobtracker.heartbeats.in.second"] == "200"
    assert spec["outofband_heartbeat"] is True and spec["slowstart_completed_maps"] == 0.05
    code, out, _ = run_cli(["validate", trace, "--json", "--quiet", "--slowstart", "0.5"], capsys)
    spec = json.loads(out)["spec"]
    assert spec["slowstart_completed_maps"] == 0.5
    assert "mapreduce.job.reduce.slowstart.completedmaps" not in spec["conf_from_trace"]
    code, out, _ = run_cli(["validate", trace, "--json", "--quiet", "--ignore-trace-conf"], capsys)
    spec = json.loads(out)["spec"]
    assert spec["conf_from_trace"] == {} and spec["outofband_heartbeat"] is False


def test_tables_of_validation_results(tmp_path, capsys):
    from mrsim.analysis.validation import tables

    _hand_trace(tmp_path / "t.json")
    out = tmp_path / "base"
    out.mkdir()
    for mode, extra in (("shared", []), ("isolate", ["--isolate"])):
        code, text, _ = run_cli(["validate", tmp_path / "t.json", "--heartbeat-interval", "off", "--json", *extra], capsys)
        assert code == 0
        tables.result_path(out, "gridmix/t.json", mode).write_text(text)
    lines = tables.per_trace(["gridmix/t.json"], out)
    # Shared: -60 % (10 s vs 25 s), isolate: -20 %; task span 10 vs 21 s; (1 - 0 + 3) / 25 = 16 %.
    assert lines[2] == "| `gridmix/t.json` | 1/2 | 60.0 / 60.0 | 20.0 / 20.0 | 52.4 | 1.0 / 0.0 | 3.0 | 16.0 |"
    assert lines[-1] == "| **overall, distinct job ids** | 1 | **60.0 / 60.0** | **20.0 / 20.0** | | | | |"
    grouped = tables.groups(["gridmix/t.json"], [str(out)])
    row = next(line for line in grouped if line.startswith("| 2.x") and "-60.0" in line)
    assert row.startswith("| 2.x: SLS, .jhist, Gridmix wordcount | 1 | 25.0 | 1.0 | 0.0 | 21.0 | 10.0 | 3.0 |")
    assert row.endswith("| -60.0 | -52.4 | 60.0 | 16.0 |")
    assert grouped[-1] == "| 2.x: SLS, .jhist, Gridmix wordcount | 60.0 / 52.4 |"


@pytest.mark.parametrize("isolate", [False, True])
def test_validating_a_store_equals_validating_its_trace(tmp_path, capsys, isolate):
    assert run_cli(["profile", DISPATCH_GOLD, "-o", tmp_path / "s", "--quiet"], capsys)[0] == 0
    flags = ["--json", "--quiet"] + (["--isolate"] if isolate else [])
    from_trace = json.loads(run_cli(["validate", DISPATCH_GOLD, *flags], capsys)[1])
    from_store = json.loads(run_cli(["validate", tmp_path / "s", *flags], capsys)[1])
    assert from_store["jobs"] == from_trace["jobs"]  # same templates, observations and inferred cluster
    cluster = (lambda doc: doc["spec"]["cluster"]["full_cluster"]) if isolate else (lambda doc: doc["spec"]["cluster"])
    assert {k: v for k, v in cluster(from_store).items() if k != "source"} == \
        {k: v for k, v in cluster(from_trace).items() if k != "source"}


def test_a_store_keeps_the_trace_conf(tmp_path, capsys):
    trace = GRIDMIX / "trace_1m.json.gz"
    assert run_cli(["profile", trace, "-o", tmp_path / "s", "--quiet"], capsys)[0] == 0
    from_trace = json.loads(run_cli(["validate", trace, "--json", "--quiet"], capsys)[1])
    from_store = json.loads(run_cli(["validate", tmp_path / "s", "--json", "--quiet"], capsys)[1])
    assert from_store["spec"]["conf_from_trace"] == from_trace["spec"]["conf_from_trace"] != {}
    assert from_store["jobs"] == from_trace["jobs"]
