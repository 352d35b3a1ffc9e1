"""``mrsim sweep`` and ``mrsim plot`` on the command line: one JSON object, one-line errors, real subcommands."""

from __future__ import annotations

import json
from pathlib import Path

from mrsim.cli import build_parser, main
from tests.analysis.sweeps.helpers import FLUID_SPEC, write_spec


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_json_is_exactly_one_object(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path, FLUID_SPEC)
    out = tmp_path / "r.parquet"
    code, stdout, _ = run_cli(["sweep", str(spec), "-o", str(out), "--workers", "2", "--json"], capsys)
    assert code == 0
    obj = json.loads(stdout)
    assert stdout.count("\n") == 1
    assert obj["cells"] == obj["computed"] == 72 and obj["complete"] and obj["cells_per_s"] > 0
    code, stdout, _ = run_cli(["sweep", str(spec), "-o", str(out), "--dry-run"], capsys)
    assert code == 0 and "72 cells, 72 already done, 0 to compute" in stdout
    code, stdout, _ = run_cli(["sweep", str(spec), "-o", str(out)], capsys)
    assert "cells/s" in stdout and "wrote" in stdout
    code, stdout, _ = run_cli(["plot", "box", str(out), "--metric", "mean_slowdown", "--across", "sigma",
                               "--facet", "load", "-o", str(tmp_path / "b.png")], capsys)
    assert code == 0 and (tmp_path / "b.png").stat().st_size > 10_000


def test_mistakes_are_one_line_errors(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path, FLUID_SPEC.replace("replications = 3", "replications = 3\nreplicashuns = 2"))
    for args, needle in [
        (["sweep", str(spec), "-o", str(tmp_path / "r.parquet")], "replicashuns"),
        (["sweep", str(tmp_path / "none.toml"), "-o", str(tmp_path / "r.parquet")], "none.toml"),
        (["sweep", str(spec), "-o", str(tmp_path / "r.parquet"), "--max-cells", "0"], "--max-cells"),
        (["plot", "lines", str(tmp_path / "none.parquet"), "--metric", "m", "--x", "sigma", "-o", "f.png"], "none.parquet"),
        (["plot", "timeline", str(tmp_path), "-o", str(tmp_path / "t.gif")], "t.gif"),
        (["plot", "timeline", str(tmp_path), "-o", str(tmp_path / "t.png")], "tasks.csv"),
    ]:
        code, out, err = run_cli(args, capsys)
        assert code == (2 if needle.startswith("--") else 1), args  # 2: a bad flag, 1: a bad file
        assert err.startswith("mrsim: error:") and err.count("\n") == 1 and needle in err, err


def test_help_lists_sweep_and_plot_kinds() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert {"sweep", "plot"} <= set(sub.choices)
    plot = sub.choices["plot"]
    kinds = next(a for a in plot._actions if a.dest == "kind")
    assert set(kinds.choices) == {"box", "lines", "cdf", "scatter", "timeline"}
    assert "--executor" in sub.choices["sweep"].format_help()
