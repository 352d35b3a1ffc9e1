"""The load what-ifs as sweep axes: values per cell in the results, cell ids of older sweeps unchanged."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mrsim.analysis.sweeps import load_spec, plan_cells
from mrsim.analysis.sweeps.axes import Param
from mrsim.cli import main
from mrsim.errors import InputError

SPEC = """
name = "load-what-if"
seed = 7
replications = 1
schedulers = ["fifo"]

[[workloads]]
generator = "facebook-like"
jobs = 4
mean_interarrival_s = 20.0

[[clusters]]
label = "small"
nodes = 4

[engine]
heartbeat_interval_s = "off"

[grid]
"""


def _spec(tmp_path: Path, grid: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(SPEC + grid)
    return path


def test_cell_ids_without_the_new_axes_are_those_of_older_sweeps(tmp_path: Path) -> None:
    # Planned by the mrsim before the load axes existed: the same spec keeps its ids (and journals).
    cells = plan_cells(load_spec(_spec(tmp_path, "interarrival_scale = [0.5, 2.0]\n")))
    assert [c.cell_id for c in cells] == ["fb06e829f8b19735", "d856ace3537b2378"]
    assert cells[0].columns()["load_scale"] == 1.0 and cells[0].columns()["concentration"] is None


def test_load_axes_in_the_results_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(tmp_path, "load_scale = [1.0, 2.0]\nconcentration = [1.0, 2.0]\n")
    cells = plan_cells(load_spec(spec))
    assert [(c.value(Param.LOAD_SCALE), c.value(Param.CONCENTRATION)) for c in cells] == [
        (1.0, 1.0), (1.0, 2.0), (2.0, 1.0), (2.0, 2.0)]
    out = tmp_path / "results.parquet"
    assert main(["sweep", str(spec), "-o", str(out), "--workers", "1", "--quiet"]) == 0
    table = pd.read_parquet(out)
    assert table["load_scale"].tolist() == [1.0, 1.0, 2.0, 2.0]
    assert table["concentration"].tolist() == [1.0, 2.0, 1.0, 2.0]
    assert table["duration_s"].isna().all() and table["input_cycle_s"].isna().all()
    assert table["jobs"].tolist() == [4, 8, 4, 8]  # concentration 2 alone: every job twice, none moved


def test_duration_needs_a_cycle_in_a_spec_too(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="grid.duration_s folds each workload .* give input_cycle_s too"):
        load_spec(_spec(tmp_path, "duration_s = 60.0\n"))
