"""``mrsim geo figures --engine heartbeat``: the figure families through the engine, from the mrsim CLI."""

from __future__ import annotations

import json

from mrsim.cli import main


def test_engine_figures_quick_plan_writes_figures_and_matches_the_model_in_task_mode(tmp_path, capsys):
    out = tmp_path / "figs"
    # A quarter of the quick plan's jobs: every cell, mode and figure is still made, and task mode must still equal
    # mrsim geo's run exactly (the check does not depend on the workload's size); ~3x less engine time.
    argv = ["geo", "figures", "--engine", "heartbeat", "--quick", "--jobs-scale", "0.25", "-o", str(out), "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["standalone_check"]["max_abs_diff_vs_standalone_s"] == 0.0  # task mode == the slot model
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs and all((out / p).stat().st_size > 0 for p in pngs)
    assert (out / "results.json").exists()


def test_engine_figures_reject_unknown_modes(tmp_path, capsys):
    assert main(["geo", "figures", "--engine", "heartbeat", "--quick", "--modes", "fast", "-o", str(tmp_path)]) == 2
    assert "--modes" in capsys.readouterr().err
