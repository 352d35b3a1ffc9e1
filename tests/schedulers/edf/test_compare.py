"""``mrsim compare`` and :mod:`mrsim.analysis.comparison`: same inputs for every scheduler, the JSON contract, the table, the
plot, and a plug-in that fails to load as a one-line error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mrsim.analysis.comparison import compare, mean_slot_share, slot_share_series
from mrsim.cli import main
from mrsim.tracker.replay import ReplayOptions
from mrsim.tracker.scheduling import BUILTIN_SCHEDULERS
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload

REPLAY_KEYS = {"scheduler", "jobs", "summary", "spec"}


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> str:
    """A small Facebook-like Rumen trace (12 jobs), written with ``mrsim synth``."""
    path = tmp_path_factory.mktemp("trace") / "fb12.json"
    assert main(["synth", "--jobs", "12", "--seed", "4", "--mean-interarrival", "200", "-o", str(path)]) == 0
    return str(path)


def test_slot_share_hand_computed():
    # One node, 1 map + 1 reduce slot, task mode. Queue a: map 0-4, reduce 4-6. Queue b: map 4-8.
    # Makespan 8 s, 2 slots: a holds 6 slot-s -> 6/16; b holds 4 slot-s -> 4/16.
    jobs = [JobTemplate("a", 0.0, [4.0], [2.0], queue="a"), JobTemplate("b", 0.0, [4.0], [], queue="b")]
    comp = compare(Workload.of(jobs), uniform_cluster(1, 1, 1), HadoopConf(), ["fifo"],
                   ReplayOptions(heartbeat_interval_s=0.0))
    result = comp.runs["fifo"].results[0]
    assert result.summary["makespan_s"] == 8.0
    assert mean_slot_share(result, 2) == {"a": 6 / 16, "b": 4 / 16}
    times, series = slot_share_series(result, 2, points=9)  # t = 0, 1, ..., 8
    assert series["a"].tolist() == [0.5] * 6 + [0.0] * 3
    assert series["b"].tolist() == [0.0] * 4 + [0.5] * 4 + [0.0]
    row = comp.table()[0]
    assert row["slot_share"] == {"a": 0.375, "b": 0.25}
    assert row["mean_slowdown"] == pytest.approx((6 / 6 + 8 / 4) / 2)  # alone: a takes 6 s, b 4 s


def test_cli_json_contract_and_plot(capsys, tmp_path, trace):
    png = tmp_path / "cmp.png"
    capsys.readouterr()
    code = main(["compare", trace, "--nodes", "8", "--schedulers", "fifo,maxedf,minedf", "--deadline-factor", "2",
                 "--replications", "2", "--seed", "5", "--json", "--plot", str(png)])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)  # exactly one object
    assert set(doc["schedulers"]) == {"fifo", "maxedf", "minedf"}
    for name, rep in doc["schedulers"].items():
        assert REPLAY_KEYS <= set(rep) and rep["scheduler"] == name
        assert [r["seed"] for r in rep["replications"]] == [5, 6]
        assert "relative_deadline_exceeded" in rep["summary"]
    rows = {r["scheduler"]: r for r in doc["table"]}
    assert set(rows) == {"fifo", "maxedf", "minedf"}
    for r in rows.values():
        reps = doc["schedulers"][r["scheduler"]]["replications"]
        assert r["mean_completion_s"] == pytest.approx(np.mean([x["summary"]["mean_completion_s"] for x in reps]))
        assert r["replications"] == 2 and r["deadlines_missed"] is not None and r["mean_slowdown"] >= 1.0 - 1e-9
        assert 0.0 < r["slot_share"]["default"] <= 1.0
    # Same inputs for everyone: the same jobs with the same deadlines (the replay object of replication 0).
    ids = [[j["job_id"] for j in doc["schedulers"][n]["jobs"]] for n in rows]
    assert ids[0] == ids[1] == ids[2]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_table(capsys, trace):
    capsys.readouterr()
    code = main(["compare", trace, "--nodes", "8", "--schedulers", "fifo,maxedf", "--heartbeat-interval", "off"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "fifo" in out and "maxedf" in out and "slowdown" in out and "no deadlines" in out


def one_line_error(capsys, args, needle, code_expected=2):
    code = main(args)
    out, err = capsys.readouterr()
    assert code == code_expected and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mrsim: error:") and needle in lines[0]


def test_plugin_that_fails_to_load_is_an_input_error(capsys, monkeypatch):
    monkeypatch.setitem(BUILTIN_SCHEDULERS, "broken", "no_such_module_anywhere:Scheduler")
    one_line_error(capsys, ["compare", "--nodes", "4", "--schedulers", "fifo,broken"], "broken", 1)
    one_line_error(capsys, ["compare", "--nodes", "4", "--schedulers", "fifo,nosuch"], "nosuch")


def test_bad_flags(capsys, tmp_path, trace):
    capsys.readouterr()
    one_line_error(capsys, ["compare", trace, "--nodes", "4", "--deadline-factor", "0.5"], "deadline-factor")
    one_line_error(capsys, ["compare", trace, "--nodes", "4", "--replications", "0"], "replications")
    one_line_error(capsys, ["compare", "--nodes", "4", "--plot", str(tmp_path / "x.pdf")], ".png")
    one_line_error(capsys, ["compare", "--nodes", "4", "--schedulers", "fifo,fifo"], "twice")
