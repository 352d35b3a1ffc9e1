"""The reading started as the command starts (mrsim.profiler.early_read): taken by the pass, the same jobs and results,
stopped when nobody takes it, never started where the pass will not parse the input."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from mrsim.cli import main as cli
from mrsim.profiler import early_read, rumen, rumen_worker
from mrsim.profiler.typed import full_job
from tests.profiler.store.helpers import GRIDMIX


@pytest.fixture
def forkable(monkeypatch):
    """The forked reader's rules satisfied on any test machine: any size, any load, this process may fork."""
    from mrsim.io import forking

    monkeypatch.setattr(rumen_worker, "MIN_BYTES", 1)
    monkeypatch.setenv("MRSIM_INGEST_WORKER", "always")
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0, 1})
    yield
    early_read.discard()


def _no_child_left() -> bool:
    try:
        return os.waitpid(-1, os.WNOHANG) == (0, 0)  # (0, 0): only children of other tests, still running
    except ChildProcessError:  # no child at all
        return True


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "s.json.gz"
    cli(["synth", "--jobs", "30", "--seed", "4", "-o", str(path), "--quiet"])
    return path


def test_the_started_reader_gives_the_readers_jobs(trace: Path, forkable):
    assert early_read.start(trace)
    assert not early_read.start(trace)  # one at a time
    started = early_read.claim(trace)
    assert started is not None and early_read.claim(trace) is None  # taken once
    jobs = [full_job(job) for job in rumen_worker.iter_rumen_jobs_forked(trace, started=started)]
    assert jobs == list(rumen.iter_rumen_jobs(trace))
    assert _no_child_left()


def test_a_reader_for_another_file_or_a_changed_file_is_not_taken(trace: Path, tmp_path: Path, forkable):
    other = tmp_path / "other.json.gz"
    other.write_bytes(trace.read_bytes())
    assert early_read.start(trace)
    assert early_read.claim(other) is None  # another path: left running for its own
    assert early_read.claim(tmp_path / "missing.json.gz") is None
    st = trace.stat()
    os.utime(trace, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # rewritten since the start
    assert early_read.claim(trace) is None
    assert _no_child_left()  # the stale reader was stopped and reaped


def test_an_unclaimed_reader_is_stopped(trace: Path, forkable):
    assert early_read.start(trace)
    early_read.discard()
    early_read.discard()  # idempotent
    assert _no_child_left()


def test_started_only_where_the_pass_will_parse_the_input(trace: Path, tmp_path: Path, forkable, monkeypatch,
                                                          capsys):
    started: list[str] = []
    monkeypatch.setattr(early_read, "start", lambda path: started.append(str(path)) or True)
    monkeypatch.setenv("MRSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MRSIM_NO_CACHE", raising=False)
    swim = tmp_path / "w.tsv"
    swim.write_text("job0\t0\t0\t10\t10\t10\n")
    spec = tmp_path / "spec.toml"
    spec.write_text("[[job]]\nmaps = [1.0]\n")
    for path, fmt in ((swim, None), (spec, None), (tmp_path, None), (tmp_path / "missing", None), (trace, "sls"),
                      (None, None)):
        assert not early_read.start_for_pass(path, fmt) and not started, (path, fmt)
    assert early_read.start_for_pass(trace, None) and started == [str(trace)]  # a cache miss
    assert early_read.start_for_pass(trace, "rumen") and len(started) == 2
    cli(["replay", str(trace), "--nodes", "4", "--json", "--quiet"])  # its own start (a miss), then a cache entry
    assert len(started) == 3
    capsys.readouterr()
    assert not early_read.start_for_pass(trace, None) and len(started) == 3  # a hit: nothing to parse
    monkeypatch.setenv("MRSIM_NO_CACHE", "1")
    assert early_read.start_for_pass(trace, None) and len(started) == 4  # the cache off: parsed again


def _without_clock(doc):
    """``doc`` without its wall-clock fields, at any depth."""
    if isinstance(doc, dict):
        return {k: _without_clock(v) for k, v in doc.items() if k not in ("wall_s", "events_per_s")}
    if isinstance(doc, list):
        return [_without_clock(v) for v in doc]
    return doc


@pytest.mark.parametrize("command", ["replay", "compare", "validate"])
def test_commands_take_the_reader_they_started(trace: Path, forkable, monkeypatch, capsys, command):
    claimed: list[bool] = []
    original = early_read.claim

    def recorded(path):
        reader = original(path)
        claimed.append(reader is not None)
        return reader

    monkeypatch.setattr(early_read, "claim", recorded)
    if command == "validate":  # a real trace: validation needs jobs' actual completion times
        trace = GRIDMIX / "trace_1m.json.gz"
        if not trace.is_file():
            pytest.skip("shared data absent")
    argv = [command, str(trace), "--json", "--quiet", "--no-cache"] + ([] if command == "validate" else
                                                                       ["--nodes", "8"])
    assert cli(argv) == 0
    early = orjson.loads(capsys.readouterr().out)
    assert claimed[:1] == [True]
    assert _no_child_left()
    monkeypatch.setenv("MRSIM_INGEST_WORKER", "0")  # the same command read in this process
    assert cli(argv) == 0
    late = orjson.loads(capsys.readouterr().out)
    assert _without_clock(early) == _without_clock(late)


def test_a_command_that_fails_first_stops_its_reader(trace: Path, forkable, capsys):
    assert cli(["replay", str(trace), "--nodes", "8", "--scheduler", "no-such-scheduler", "--no-cache"]) != 0
    assert "no-such-scheduler" in capsys.readouterr().err
    assert early_read._started is None and _no_child_left()
