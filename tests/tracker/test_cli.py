"""The command line: --json contract, bad input (one line, exit 2), --help against the real subcommands."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from mrsim.cli import build_parser, main
from mrsim.errors import InputError, exit_code_for

CONTRACT_JOB_KEYS = {"job_id", "submit_s", "start_s", "finish_s", "completion_s", "maps", "reduces", "actual_completion_s"}
CONTRACT_SUMMARY_KEYS = {"jobs", "tasks", "makespan_s", "mean_completion_s", "events", "wall_s"}


def run_cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_default_trace_json_contract(capsys, tmp_path):
    code, out, err = run_cli(["replay", "--json", "--nodes", "16", "--out", str(tmp_path / "o")], capsys)
    assert code == 0
    doc = json.loads(out)  # exactly one JSON object on stdout
    assert doc["scheduler"] == "fifo"
    assert CONTRACT_SUMMARY_KEYS <= set(doc["summary"])
    assert all(CONTRACT_JOB_KEYS <= set(j) for j in doc["jobs"])
    j = doc["jobs"][0]
    assert j["submit_s"] == 0.0 and j["completion_s"] == pytest.approx(j["finish_s"] - j["submit_s"], abs=1e-5)
    assert doc["summary"]["jobs"] == len(doc["jobs"]) == 50
    assert (tmp_path / "o" / "jobs.csv").exists() and (tmp_path / "o" / "tasks.csv").exists()


def test_replay_table_output(capsys):
    code, out, _ = run_cli(["replay", "--nodes", "16", "--heartbeat-interval", "off"], capsys)
    assert code == 0 and "makespan" in out and "task-completion driven" in out


def _assert_one_line_error(code, out, err, needle, expected=None):
    # exit 1 for a bad file, 2 for a bad flag (README "Errors")
    assert code == (expected or exit_code_for(InputError(err.strip().removeprefix("mrsim: error: "))))
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mrsim: error:") and needle in lines[0]


def test_missing_file(capsys, tmp_path):
    _assert_one_line_error(*run_cli(["replay", str(tmp_path / "nope.json")], capsys), "nope.json")


def test_corrupt_gzip(capsys, tmp_path):
    p = tmp_path / "bad.json.gz"
    data = gzip.compress(b'{"jobID": "x", "submitTime": 1}' * 2000)
    p.write_bytes(data[:40] + b"garbage" * 50)
    _assert_one_line_error(*run_cli(["replay", str(p)], capsys), "bad.json.gz")


def test_truncated_json(capsys, tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"jobID": "job_1", "submitTime": 1000, "mapTasks": [{"attempts": [{"result": "SUCC')
    code, out, err = run_cli(["replay", "--format", "rumen", str(p)], capsys)
    _assert_one_line_error(code, out, err, "truncated")


def test_job_with_no_tasks(capsys, tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"jobID": "job_1_0001", "submitTime": 1000, "outcome": "SUCCESS", "mapTasks": [], "reduceTasks": []}')
    _assert_one_line_error(*run_cli(["replay", "--format", "rumen", str(p)], capsys), "job_1_0001")


def test_bad_flag_values(capsys):
    _assert_one_line_error(*run_cli(["replay", "--heartbeat-interval", "soon"], capsys), "heartbeat-interval")
    _assert_one_line_error(*run_cli(["replay", "--scheduler", "nosuch"], capsys), "nosuch", 2)
    _assert_one_line_error(*run_cli(["replay", "--hadoop-version", "9"], capsys), "hadoop-version")


def test_help_lists_the_real_subcommands():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    names = set(sub.choices)
    assert {"replay", "synth"} <= names
    text = parser.format_help()
    for name in names:
        assert name in text


def test_console_script_runs():
    res = subprocess.run([sys.executable, "-m", "mrsim", "replay", "--json", "--nodes", "8"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["summary"]["jobs"] == 50


def test_replay_contention_tdam_reproduces_table_5_1(capsys):
    # Dissertation Table 5.1 through the CLI: J1 ends at 7.69 s, J2 at 12.67 s (execution time 9.67 s).
    from tests.tracker.helpers import REPO

    spec = REPO / "examples" / "jobspecs" / "table_5_1.toml"
    code, out, _ = run_cli(["replay", str(spec), "--contention", "tdam", "--heartbeat-interval", "off", "--nodes", "1",
                            "--cores", "1", "--map-slots", "2", "--reduce-slots", "1", "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    ends = {j["job_id"]: (round(j["finish_s"], 2), round(j["completion_s"], 2)) for j in doc["jobs"]}
    assert ends["J1"][0] == 7.69
    assert ends["J2"] in {(12.67, 9.67), (12.68, 9.68)}  # 12.675 / 9.675 unrounded: the table adds rounded numbers
    assert doc["spec"]["contention"] == "tdam" and doc["summary"]["contention"]["solves"] >= 1


def test_replay_demand_flags_validate(capsys):
    _assert_one_line_error(*run_cli(["replay", "--disk-mb-s", "50"], capsys), "--demands counters")
