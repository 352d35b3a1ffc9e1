"""``mrsim lotes``: help, JSON output, plots and one-line input errors."""

from __future__ import annotations

import orjson
import pytest

from mrsim.cli import main

TINY = ["--machines-per-config", "3", "--horizon", "8", "--seed", "3", "--samples", "16"]


def test_help_lists_the_actions(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["lotes", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for action in ("plan", "run", "sweep"):
        assert action in out


def test_run_json_is_one_object(capsys):
    assert main(["lotes", "run", "--policy", "greedy", "--load", "0.8", "--json", *TINY]) == 0
    obj = orjson.loads(capsys.readouterr().out)
    assert obj["spec"]["policy"] == "greedy" and obj["spec"]["machines_per_config"] == 3
    rep = obj["replications"][0]
    assert rep["events"] > 0 and rep["wait_mean_h"] >= 0 and "steady" in rep


def test_plan_table_and_json(capsys):
    assert main(["lotes", "plan"]) == 0
    out = capsys.readouterr().out
    assert "lambda* (allocation LP, all machines): 21,264.9 jobs/h" in out
    assert main(["lotes", "plan", "--json", "--mapreduce"]) == 0
    obj = orjson.loads(capsys.readouterr().out)
    assert obj["lambda_star_full_cluster"] == pytest.approx(21264.93 / 300, rel=1e-5)


def test_sweep_writes_plots_and_json(tmp_path, capsys):
    png, js = tmp_path / "wait.png", tmp_path / "out.json"
    args = ["lotes", "sweep", "--loads", "0.5,0.9", "--plot", str(png), "--plot-system", str(tmp_path / "n.png"),
            "--plot-flow", str(tmp_path / "f.png"), "--output", str(js), *TINY]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert table.count("lotes") >= 2 and table.count("greedy") >= 2
    for p in (png, tmp_path / "n.png", tmp_path / "f.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(orjson.loads(js.read_bytes())["points"]) == 4


@pytest.mark.parametrize(
    "args, message",
    [
        (["sweep", "--loads", "0.5,x"], "expected comma-separated numbers"),
        (["sweep", "--policies", "fifo"], "unknown policy"),
        (["run", "--machines-fraction", "1.5"], "machines fraction must be in (0, 1]"),
        (["run", "--horizon", "10", "--warmup", "20"], "warm-up must be in [0, horizon)"),
    ],
)
def test_input_errors_are_one_line_exit_2(args, message, capsys):
    assert main(["lotes", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mrsim: error: ") and message in err and err.count("\n") == 1
