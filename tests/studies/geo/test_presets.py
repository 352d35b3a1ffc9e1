"""``mrsim geo --preset socc15-*``: the paper's evaluation set-up as presets, what they fill, and how they say so."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mrsim.cli import main
from mrsim.errors import InputError
from mrsim.studies.geo.presets import PRESETS, preset, scenarios

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = Path(__file__).parent / "data" / "paper_example.toml"
SMALL = ["--jobs", "30", "--datacenters", "4", "--policies", "isrpt,swag"]


def test_one_preset_per_trace_of_the_paper_with_a_source_for_every_value():
    assert sorted(PRESETS) == ["socc15-exponential", "socc15-facebook", "socc15-google"]
    for name, settings in PRESETS.items():
        assert settings["workload"].value == name.removeprefix("socc15-")
        assert all(s.source for s in settings.values())
        # what the available text states about the set-up: 2-s tasks, of equal duration
        assert (settings["task_duration"].value, settings["durations"].value) == (2.0, "constant")
        assert {k for k, s in settings.items() if s.stated} == {"workload", "task_duration", "durations"}
    with pytest.raises(InputError, match="unknown --preset 'sosp'"):
        preset("sosp")


def test_compare_with_a_preset_fills_only_what_is_not_given(capsys):
    assert main(["geo", "compare", "--preset", "socc15-google", *SMALL, "--json"]) == 0
    captured = capsys.readouterr()
    result = orjson.loads(captured.out)
    applied = result["preset"]["applied"]
    assert result["preset"]["name"] == "socc15-google"
    assert "datacenters" not in applied and "jobs" not in applied  # given on the command line
    assert applied["durations"] == "constant" and applied["utilization"] == "0.5,0.6,0.7,0.8,0.9"
    utils = sorted({r["scenario"]["utilization"] for r in result["rows"]})
    assert utils == [0.5, 0.6, 0.7, 0.8, 0.9]
    assert {(r["scenario"]["task_durations"], r["scenario"]["mean_task_s"], r["scenario"]["datacenters"])
            for r in result["rows"]} == {("constant", 2.0, 4)}
    # the announcement says which values are the paper's and which are mrsim's defaults
    err = captured.err
    assert err.count("\n") == 1 and "preset socc15-google" in err
    assert "from the paper: workload google, task_duration 2.0, durations constant" in err
    assert "not stated in the available text" in err and "slots 10" in err


def test_the_preset_scenarios_are_what_the_cli_runs(capsys):
    assert main(["geo", "compare", "--preset", "socc15-exponential", "--jobs", "20", "--policies", "swag", "--json"]) == 0
    rows = orjson.loads(capsys.readouterr().out)["rows"]
    assert [r["scenario"] for r in rows] == [sc.describe() for sc in scenarios("socc15-exponential", n_jobs=20)]


def test_explicit_flags_win_and_a_non_zipf_placement_takes_no_skew(capsys):
    assert main(["geo", "compare", "--preset", "socc15-facebook", *SMALL, "--durations", "exponential",
                 "--placement", "uniform", "--utilization", "0.6", "--json"]) == 0
    result = orjson.loads(capsys.readouterr().out)
    assert {"durations", "placement", "skew", "utilization"}.isdisjoint(result["preset"]["applied"])
    assert {(r["scenario"]["task_durations"], r["scenario"]["skew"]) for r in result["rows"]} == {("exponential", 0.0)}


def test_run_with_a_preset_takes_its_highest_utilisation(capsys):
    assert main(["geo", "run", "--preset", "socc15-google", "--jobs", "20", "--datacenters", "3", "--json"]) == 0
    row = orjson.loads(capsys.readouterr().out)
    assert row["scenario"]["utilization"] == 0.9 and row["preset"]["applied"]["utilization"] == "0.9"


def test_a_preset_with_a_spec_is_a_one_line_error(capsys):
    code = main(["geo", "run", "--preset", "socc15-google", "--spec", str(EXAMPLE)])
    err = capsys.readouterr().err
    assert code == 2 and "--preset" in err and err.count("\n") == 1


def socc15_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("geo_socc15", ROOT / "scripts" / "geo_socc15.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_show_the_committed_socc15_table():
    script = socc15_script()
    figures = ROOT / "docs" / "figures" / "geo"
    table = (figures / "socc15.md").read_text()
    assert table == script.table(script.read_csv(figures / "socc15.csv"))
    assert table.strip() in (ROOT / "docs" / "geo.md").read_text()
