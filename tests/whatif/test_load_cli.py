"""The load what-if flags of mrsim replay / compare end to end, and the metamorphic check on real traces."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import mrsim
from mrsim.cli import main
from tests.data import SHARED_DATA

GRIDMIX = SHARED_DATA / "gridmix-system-branch-1"
TRACE_3M = GRIDMIX / "trace_3m.json.gz"
TRACE_10M = GRIDMIX / "trace_10m.json.gz"


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("load") / "small.json"
    assert main(["synth", "--jobs", "6", "--seed", "1", "-o", str(path), "--quiet"]) == 0
    return path


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[dict, str]:
    assert main(["--no-cache", *argv, "--json"]) == 0
    out = capsys.readouterr()
    return orjson.loads(out.out), out.err


def test_replay_load_scale_halves_the_submit_times(small_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, _ = _json(capsys, ["replay", str(small_trace), "--nodes", "4"])
    doubled, err = _json(capsys, ["replay", str(small_trace), "--nodes", "4", "--load-scale", "2"])
    before = [j["submit_s"] for j in base["jobs"]]
    after = [j["submit_s"] for j in doubled["jobs"]]
    assert before[0] == after[0] == 0.0 and after == pytest.approx([t / 2 for t in before], abs=1e-9)
    assert "load" not in base["spec"]
    load = doubled["spec"]["load"]
    assert (load["load_scale"], load["jobs_in"], load["jobs_out"]) == (2.0, 6, 6)
    lines = [line for line in err.splitlines() if "load what-if" in line]
    assert lines == [f"mrsim: note: load what-if: load x2 (inter-arrival gaps x0.5, first submission kept): 6 jobs "
                     f"-> 6 jobs submitted over {load['submit_span_s']:g} s"]


def test_compare_records_the_fold_in_its_spec(small_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc, err = _json(capsys, ["compare", str(small_trace), "--nodes", "4", "--schedulers", "fifo,fair",
                              "--concentration", "2"])
    fold = doc["spec"]["load"]["fold"]
    assert fold["transcription_probability"] == 2.0 and fold["duplicated"] == 6
    assert doc["spec"]["load"]["jobs_out"] == 12
    for name in ("fifo", "fair"):
        assert doc["schedulers"][name]["spec"]["load"] == doc["spec"]["load"]
        assert len(doc["schedulers"][name]["jobs"]) == 12
    assert err.count("load what-if: folded") == 1


def test_duration_without_cycle_is_one_error_line(small_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(small_trace), "--nodes", "4", "--duration", "60"]) == 2  # a flag mistake
    err = capsys.readouterr().err
    assert err == ("mrsim: error: --duration D folds the trace into D seconds by cycles of --input-cycle C seconds: "
                   "give --input-cycle too (Rumen's Folder has no default cycle)\n")


def test_streamed_replays_refuse_the_load_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "synth:5", "--stream", "--load-scale", "2"]) == 2
    assert "--load-scale is not supported" in capsys.readouterr().err


@pytest.mark.parametrize("trace", [TRACE_3M, TRACE_10M], ids=["trace_3m", "trace_10m"])
def test_more_load_never_lowers_mean_completion_under_fifo(trace: Path) -> None:
    """Metamorphic: F x the load (F > 1) never gives a FIFO mean completion below the trace's own load's, up to one
    heartbeat interval. Tasks launch at heartbeats, so moving a submission moves its job's phase against the
    heartbeats and its completion by up to an interval with no change in contention: trace_10m at x1.5 gives
    102.51 s against 102.61 s (heartbeat 3.01 s). Between two scaled loads the mean need not rise either: trace_3m
    gives 55.2 s at x4 and 52.6 s at x8, its jobs then all arriving within a few heartbeats."""
    base = mrsim.replay(trace, "fifo", quiet=True)
    interval = base.spec["heartbeat_interval_s"]
    assert interval > 0
    for factor in (1.5, 2.0, 4.0, 8.0):
        run = mrsim.replay(trace, "fifo", quiet=True, load_scale=factor)
        assert run.spec["load"]["load_scale"] == factor
        assert run.summary["mean_completion_s"] >= base.summary["mean_completion_s"] - interval, factor
