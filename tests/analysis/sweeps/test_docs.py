"""docs/sweeps.md's tutorial, executed: its spec and every ``$ mrsim`` command, in order; and the example specs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from mrsim.analysis.sweeps import load_spec, plan_cells
from mrsim.cli import main

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "sweeps.md"


def test_tutorial_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    text = DOC.read_text()
    tutorial = text.split("## Tutorial", 1)[1].split("## How-to", 1)[0]
    spec = re.search(r"```toml\n(.*?)```", tutorial, re.S)
    assert spec is not None
    (tmp_path / "tutorial.toml").write_text(spec.group(1))
    commands = [line[2:] for line in re.findall(r"^\$ mrsim .*$", tutorial, re.M)]
    assert len(commands) >= 6
    monkeypatch.chdir(tmp_path)
    for command in commands:
        args = shlex.split(command)[1:]
        assert main(args) == 0, command
        out = args[args.index("-o") + 1] if "-o" in args else None
        if out:
            assert (tmp_path / out).stat().st_size > 1000, command
    capsys.readouterr()
    table = pd.read_parquet(tmp_path / "results.parquet")
    assert len(table) == 9 and sorted(table.interarrival_scale.unique()) == [0.5, 1.0, 2.0]
    assert (tmp_path / "results.csv").exists() and (tmp_path / "results.spec.json").exists()


@pytest.mark.parametrize("name, cells", [("fifo_grid.toml", 24), ("simmr_edf.toml", 150)])
def test_example_specs_validate(name: str, cells: int) -> None:
    path = REPO / "examples" / "sweeps" / name
    assert len(plan_cells(load_spec(path))) == cells
