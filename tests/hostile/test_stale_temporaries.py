"""Temporary files and directories carry their writer's pid; a later run that finds one whose writer is gone
removes it (the trace cache, a store's partial version, single-file outputs, ``--out`` directories).

The kill test is a real subprocess killed with ``SIGKILL`` while its temporary cache entry exists (polled for,
not timed): the next successful run must leave no ``.tmp-*`` behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mrsim.cli import main
from mrsim.io.atomic import atomic_write
from mrsim.profiler import cache
from mrsim.profiler.store import PARTIAL_PREFIX, add_to_store
from tests.hostile.cases import REPO
from tests.profiler.store.helpers import full_template

pytestmark = pytest.mark.empty_trace_cache


def _gone_pid() -> int:
    """The pid of a process that has ended (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_kill_during_a_cache_save_leaves_no_temporary_after_the_next_run(tmp_path: Path) -> None:
    trace = tmp_path / "t.json.gz"
    assert main(["synth", "--jobs", "120", "--seed", "3", "-o", str(trace)]) == 0
    root = tmp_path / "cache"
    env = {**os.environ, "MRSIM_CACHE_DIR": str(root), "MRSIM_CACHE_SAVE_CHILD": "0"}
    env.pop("MRSIM_NO_CACHE", None)
    proc = subprocess.Popen([sys.executable, "-m", "mrsim", "replay", str(trace), "--quiet"], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    seen = False
    while time.monotonic() < deadline and proc.poll() is None:
        if root.is_dir() and any(n.startswith(".tmp-") for n in os.listdir(root)):
            proc.send_signal(signal.SIGKILL)
            seen = True
            break
        time.sleep(0.0005)
    proc.wait(timeout=30)
    if not seen:
        pytest.skip("the save ended before the poll saw its temporary directory")
    left = [n for n in os.listdir(root) if n.startswith(".tmp-")]
    assert left and str(proc.pid) in left[0]  # the writer's pid is in the name
    done = subprocess.run([sys.executable, "-m", "mrsim", "replay", str(trace), "--quiet"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [n for n in os.listdir(root) if n.startswith(".tmp-")] == []
    assert len(os.listdir(root / "entries")) == 1


def test_the_cache_removes_temporaries_of_gone_writers_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    gone, alive = _gone_pid(), os.getppid()
    for name in (f".tmp-{'a' * 40}-{gone}-0011aabb", f".tmp-gone-{'b' * 40}-{gone}-0011aabb",
                 f".tmp-{'c' * 40}-{alive}-0011aabb"):
        (root / name).mkdir()
        (root / name / "x").write_text("x")
    cache.clean_temporaries(root)
    assert sorted(os.listdir(root)) == [f".tmp-{'c' * 40}-{alive}-0011aabb"]


def test_single_file_outputs_and_stores_remove_leftovers_of_gone_writers(tmp_path: Path) -> None:
    gone = _gone_pid()
    target = tmp_path / "out.json"
    stale = tmp_path / f".out.json.mrsim-tmp-{gone}-abcd1234.tmp"
    stale.write_text("half")
    alive = tmp_path / f".out.json.mrsim-tmp-{os.getppid()}-abcd1234.tmp"
    alive.write_text("someone else's, in progress")
    with atomic_write(target) as fh:
        fh.write("{}")
        assert any(str(os.getpid()) in n for n in os.listdir(tmp_path) if n.startswith(".out.json.mrsim-tmp-"))
    assert target.read_text() == "{}" and not stale.exists() and alive.exists()

    store = tmp_path / "s"
    add_to_store(store, [full_template("job_1", 1.0)])
    partial = store / f"{PARTIAL_PREFIX}{gone}-data-000009-deadbeef"
    partial.mkdir()
    (partial / "jobs.parquet").write_bytes(b"half")
    add_to_store(store, [full_template("job_2", 2.0)])
    assert not partial.exists()
    assert sorted(n for n in os.listdir(store) if n.startswith(".")) == [".lock"]


def test_replay_out_removes_a_killed_writers_directory(tmp_path: Path) -> None:
    trace = tmp_path / ".t.json.gz"
    assert main(["synth", "--jobs", "5", "--seed", "5", "-o", str(trace)]) == 0
    gone = _gone_pid()
    stale = tmp_path / f".out.mrsim-new-{gone}-x1y2"
    stale.mkdir()
    (stale / "jobs.csv").write_text("half")
    assert main(["replay", str(trace), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert sorted(n for n in os.listdir(tmp_path) if not n.startswith(".t.json")) == ["out"]


def test_sweep_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "grid.toml"
    spec.write_text((REPO / "examples" / "sweeps" / "fifo_grid.toml").read_text())
    before = sorted(os.listdir(tmp_path))
    assert main(["sweep", str(spec), "-o", str(tmp_path / "res" / "results.parquet"), "--dry-run"]) == 0
    assert "cells" in capsys.readouterr().out
    assert sorted(os.listdir(tmp_path)) == before  # no results directory, no journal, no temporary
