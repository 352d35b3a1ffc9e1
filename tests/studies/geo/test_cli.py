"""``mrsim geo`` subcommands: help, JSON purity, plots, figures and one-line errors (exit 2)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import orjson
import pytest

from mrsim.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = Path(__file__).parent / "data" / "paper_example.toml"
PNG = b"\x89PNG\r\n\x1a\n"
SMALL = ["--workload", "google", "--jobs", "40", "--datacenters", "4", "--slots", "3"]


def test_help_lists_the_real_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["geo", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in ("run", "compare", "figures"):
        assert re.search(rf"^\s+{name}\s", out, re.M), name
    assert "geo" in build_parser().format_help()


def test_run_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["geo", "run", "--spec", str(EXAMPLE), "--policy", "swag", "--json"]) == 0
    out = capsys.readouterr().out
    obj = orjson.loads(out)
    assert out.count("\n") == 1
    assert obj["policy"] == "swag"
    assert obj["mean_completion_s"] == pytest.approx(35 / 3)
    assert obj["scenario"]["kind"] == "spec"


def test_run_synthetic_table_and_out_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "r.json"
    assert main(["geo", "run", "--policy", "gsrpt", *SMALL, "--utilization", "0.7", "--seed", "3", "--out", str(out_file)]) == 0
    text = capsys.readouterr().out
    assert "mean JCT s" in text and "gsrpt" in text
    rec = orjson.loads(out_file.read_bytes())
    assert rec["scenario"]["trace"] == "google" and rec["scenario"]["seed"] == 3 and rec["jobs"] == 40


def test_run_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for _ in range(2):
        assert main(["geo", "run", "--policy", "reorder-isrpt", *SMALL, "--json"]) == 0
        obj = orjson.loads(capsys.readouterr().out)
        obj.pop("timing")
        outs.append(obj)
    assert outs[0] == outs[1]


def test_compare_json_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bars = tmp_path / "bars.png"
    assert main(["geo", "compare", "--spec", str(EXAMPLE), "--json", "--plot", str(bars)]) == 0
    obj = orjson.loads(capsys.readouterr().out)
    means = {r["policy"]: r["mean_completion_s"] for r in obj["rows"]}
    assert means == pytest.approx({"fcfs": 13.0, "gsrpt": 37 / 3, "isrpt": 37 / 3, "reorder-gsrpt": 12.0,
                                   "reorder-isrpt": 12.0, "swag": 35 / 3})
    assert obj["improvements"][0]["swag_vs_gsrpt"] == pytest.approx(1 - 35 / 37)
    assert bars.read_bytes().startswith(PNG)
    lines = tmp_path / "lines.png"
    assert main(["geo", "compare", "--policies", "gsrpt,swag", *SMALL, "--utilization", "0.5,0.8", "--plot", str(lines)]) == 0
    text = capsys.readouterr().out
    assert "swag_vs_gsrpt" in text
    assert lines.read_bytes().startswith(PNG)


def test_figures_quick(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A quarter of the quick plan's jobs: every sweep, cell and file is still made (seconds, not tens).
    assert main(["geo", "figures", "--quick", "--jobs-scale", "0.25", "-o", str(tmp_path), "--json"]) == 0
    obj = orjson.loads(capsys.readouterr().out)
    names = {Path(f).name for f in obj["files"]}
    for trace in ("facebook", "google", "exponential"):
        assert f"completion_{trace}.png" in names and f"fairness_{trace}.png" in names
    for n in ("overhead_decision_time.png", "overhead_jobs_in_system.png", "sensitivity_datacenters.png",
              "sensitivity_skew.png", "results.json", "improvements.json", "summary.md"):
        assert n in names
    for f in obj["files"]:
        assert Path(f).exists()
        if f.endswith(".png"):
            assert Path(f).read_bytes().startswith(PNG)
    results = orjson.loads((tmp_path / "results.json").read_bytes())
    assert len(results["utilization"]) == 3 * 2 * 6  # traces x utilisations x policies
    assert "| facebook | 0.5 |" in (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["geo", "run", "--utilization", "1.5"], "--utilization: 1.5 is outside (0, 1)"),
        (["geo", "run", "--utilization", "0.5,0.6"], "takes one value"),
        (["geo", "run", "--spec", "nope.toml"], "nope.toml: no such file"),
        (["geo", "run", "--spec", str(EXAMPLE), "--utilization", "0.5"], "only apply to synthetic"),
        (["geo", "run", "--spec", str(EXAMPLE), "--slots", "4"], "--spec fixes"),
        (["geo", "run", "--placement", "uniform", "--skew", "2"], "--skew only applies"),
        (["geo", "compare", "--policies", "swag,sjf"], "unknown policy 'sjf'"),
        (["geo", "figures", "-o", "x", "--seeds", "a"], "--seeds"),
    ],
)
def test_user_errors_are_one_line_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == (1 if "no such file" in message else 2)  # 1: a bad file, 2: a bad flag
    err = capsys.readouterr().err
    assert err.startswith("mrsim: error: ") and err.count("\n") == 1
    assert message in err


def test_bad_flag_value_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["geo", "run", "--slots", "0"])
    assert exc.value.code == 2
    assert "positive integer" in capsys.readouterr().err


def test_docs_examples_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``mrsim geo`` line in docs/geo.md's ```sh blocks marked ``# tested`` runs and exits 0."""
    text = (ROOT / "docs" / "geo.md").read_text()
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("mrsim geo") and line.rstrip().endswith("# tested"):
                commands.append(shlex.split(line.split("#", 1)[0]))
    assert len(commands) >= 3
    monkeypatch.chdir(ROOT)
    for argv in commands:
        argv = [a if a != "OUT" else str(tmp_path / "out") for a in argv]
        assert main(argv[1:]) == 0, argv
        capsys.readouterr()


def test_trace_input_swim(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "tiny.tsv"
    mb = 1 << 20
    trace.write_text(f"job0\t0\t0\t{300 * mb}\t0\t{mb}\njob1\t5\t5\t{64 * mb}\t{10 * mb}\t{mb}\n")
    assert main(["geo", "run", "--trace", str(trace), "--trace-format", "swim", "--datacenters", "3",
                 "--slots", "2", "--placement", "uniform", "--include-reduces", "--json"]) == 0
    obj = orjson.loads(capsys.readouterr().out)
    assert obj["jobs"] == 2 and obj["scenario"]["kind"] == "trace" and obj["scenario"]["include_reduces"]
    assert main(["geo", "run", "--trace", str(trace), "--trace-format", "swim", "--utilization", "0.5"]) == 2
    assert "only apply to synthetic" in capsys.readouterr().err
