"""A cache miss's entry saved by a forked child while the replay runs (mrsim.profiler.cache.publish_in_child).

Oracles: the same miss saved in the replaying process (the path the cache takes where it may not fork): the same
``--json`` output, ``spec.trace_cache`` and notes (cache directory aside), an entry a later run hits; and what a
save that fails, is killed or interrupted, or outlives its parent leaves behind: a note, no entry, no temporary
directory, no process.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from mrsim.profiler import ingest as ingest_mod
from mrsim.profiler.ingest import ingest
from mrsim.profiler import cache
from mrsim.profiler.rumen_writer import write_rumen_trace as _write
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job
from tests.profiler.store.helpers import run_cli

pytestmark = [pytest.mark.empty_trace_cache,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child is forked on Linux only")]
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "t.json.gz"
    _write((template_to_logged_job(t) for t in facebook_like_workload(FacebookLikeSpec(jobs=12, seed=5))), path)
    return path


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every miss saved by a child, whatever the input's size (the rules are tested on their own below)."""
    monkeypatch.setattr(cache, "save_child_wanted", lambda input_bytes: True)


def _temporaries() -> list[Path]:
    root = cache.cache_root()
    return [p for p in root.iterdir() if p.name.startswith(".tmp-")] if root.exists() else []


def _run(args: list, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    ingest_mod.forget()  # a new process each time, as on the command line
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    return orjson.loads(out), err


def test_a_miss_saved_by_a_child_reports_and_saves_what_a_miss_saved_here_does(
        trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["replay", trace, "--nodes", "8", "--json"]
    runs = {}
    for name, forked in (("here", False), ("child", True)):
        monkeypatch.setenv("MRSIM_CACHE_DIR", str(tmp_path / name))
        with monkeypatch.context() as m:
            m.setattr(cache, "save_child_wanted", lambda input_bytes, forked=forked: forked)
            runs[name] = _run(args, capsys)
        hit, _ = _run(args, capsys)  # the entry is complete once the command has returned
        assert hit["spec"]["trace_cache"]["status"] == "hit"
    (here, err_here), (child, err_child) = runs["here"], runs["child"]
    for doc in (here, child):
        for key in ("wall_s", "events_per_s"):
            doc["summary"].pop(key)
    assert orjson.dumps(here).decode().replace(str(tmp_path / "here"), "DIR") == \
        orjson.dumps(child).decode().replace(str(tmp_path / "child"), "DIR")
    assert child["spec"]["trace_cache"]["status"] == "miss" and "entry" in child["spec"]["trace_cache"]
    assert err_here.replace(str(tmp_path / "here"), "DIR") == err_child.replace(str(tmp_path / "child"), "DIR")
    entries = {name: next((tmp_path / name / "entries").iterdir()) for name in runs}
    listing = {name: sorted(re.sub(r"data-(\d+)-\w+", r"data-\1", str(p.relative_to(e))) for p in e.rglob("*"))
               for name, e in entries.items()}  # (a data directory's name ends in a random token)
    assert listing["here"] == listing["child"]
    metas = [cache.read_meta(e) for e in entries.values()]
    for meta in metas:
        meta.pop("created")
        meta.pop("store_manifest_sha256")  # the manifest records when it was written and its data directory's token
    assert metas[0] == metas[1]


def test_a_pending_miss_waits_for_its_child_when_read(trace: Path, forking: None) -> None:
    got = ingest(trace)
    use = got.cache
    assert use.status == "miss" and use.key and "pending" in repr(use)
    entry = use.entry  # waits
    assert entry is not None and (Path(entry) / cache.ENTRY_META).is_file()
    assert any(n.startswith(f"trace cache: miss {use.key[:12]}; saved as") for n in use.notes)
    assert use.as_spec() == {"status": "miss", "key": use.key, "entry": entry}
    assert not cache._saving and not _temporaries()


def test_reading_the_input_again_waits_for_the_save_and_hits(trace: Path, forking: None) -> None:
    first = ingest(trace)
    ingest_mod.forget()  # the memo forgets it; this process's child may still be writing the entry
    again = ingest(trace)
    assert again.cache.status == "hit"
    assert first.cache.entry == again.cache.entry


def test_a_failing_save_is_a_warning_not_an_error(trace: Path, forking: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(result, directory: Path) -> dict:  # type: ignore[no-untyped-def]
        (directory / "half").write_text("x")
        raise ValueError("boom")

    monkeypatch.setattr(ingest_mod, "_save_entry", broken)
    use = ingest(trace).cache
    assert use.status == "miss" and use.entry is None
    assert "mrsim: warning: trace cache: could not save the entry (boom); not cached" in use.notes
    assert f"trace cache: miss {use.key[:12]}; not saved" in use.notes
    assert use.as_spec() == {"status": "miss", "key": use.key}
    assert cache.find(use.key) is None and not _temporaries()


def test_a_full_disk_in_the_child_is_todays_warning(trace: Path, forking: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(result, directory: Path) -> dict:  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ingest_mod, "_save_entry", full)
    use = ingest(trace).cache
    assert use.entry is None and any("could not write" in n and "no space left on the device" in n for n in use.notes)
    assert not _temporaries()


def _slow_save(monkeypatch: pytest.MonkeyPatch, ready: Path) -> None:
    def slow(result, directory: Path) -> dict:  # type: ignore[no-untyped-def]
        (directory / "half").write_text("x")
        ready.write_text("building")
        time.sleep(60)
        return {}

    monkeypatch.setattr(ingest_mod, "_save_entry", slow)


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_or_killed_child_leaves_no_entry_and_no_temporary_directory(
        trace: Path, tmp_path: Path, forking: None, monkeypatch: pytest.MonkeyPatch, signum: int) -> None:
    ready = tmp_path / "ready"
    _slow_save(monkeypatch, ready)
    use = ingest(trace).cache
    saving = cache._saving[use.key]
    _wait_for(ready)
    os.kill(saving.pid, signum)
    assert use.entry is None
    assert any("the process saving the entry ended without a result" in n for n in use.notes), use.notes
    assert cache.find(use.key) is None and not _temporaries()
    with pytest.raises(ChildProcessError):
        os.waitpid(saving.pid, os.WNOHANG)  # reaped


def _script(body: str) -> str:
    return textwrap.dedent("""
        import os, signal, sys, time
        from pathlib import Path
        from mrsim.profiler import ingest as ingest_mod
        from mrsim.profiler import cache
        cache.save_child_wanted = lambda input_bytes: True
    """) + textwrap.dedent(body)


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state == "Z"  # a zombie its new parent has yet to reap: it runs no more


def test_a_process_that_exits_without_reading_the_miss_waits_for_its_child(trace: Path) -> None:
    done = _python(_script("""
        use = ingest_mod.ingest(sys.argv[1]).cache
        print(cache._saving[use.key].pid, use.key, flush=True)
        # exits here: the exit handler waits for the child
    """), str(trace))
    assert done.returncode == 0, done.stderr
    pid, key = done.stdout.split()
    assert _gone(int(pid))
    assert cache.find(key) is not None and not _temporaries()


def test_a_parent_killed_while_its_child_saves_leaves_no_child_and_no_temporary_directory(trace: Path,
                                                                                          tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    done = _python(_script("""
        def slow(result, directory):
            (directory / "half").write_text("x")
            Path(sys.argv[2]).write_text("building")
            time.sleep(60)
            return {}
        ingest_mod._save_entry = slow
        use = ingest_mod.ingest(sys.argv[1]).cache
        print(cache._saving[use.key].pid, use.key, flush=True)
        while not Path(sys.argv[2]).exists():
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGKILL)  # no exit handler runs: the kernel tells the child (PR_SET_PDEATHSIG)
    """), str(trace), str(ready))
    assert done.returncode == -signal.SIGKILL, done.stderr
    pid, key = done.stdout.split()
    deadline = time.monotonic() + 30
    while not (_gone(int(pid)) and not _temporaries()):
        assert time.monotonic() < deadline, "the child outlived its parent"
        time.sleep(0.05)
    assert cache.find(key) is None


def test_the_child_saves_only_where_it_can_help_and_is_safe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    big = cache.SAVE_CHILD_MIN_BYTES
    monkeypatch.delenv("MRSIM_CACHE_SAVE_CHILD", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))  # the load does not count (docstring)
    assert cache.save_child_wanted(big) and not cache.save_child_wanted(big - 1)
    with monkeypatch.context() as m:
        m.setattr(os, "sched_getaffinity", lambda pid: {0})
        assert not cache.save_child_wanted(big)
    with monkeypatch.context() as m:
        m.setattr(threading, "active_count", lambda: 2)  # forking a process with threads: never
        assert not cache.save_child_wanted(big)
    with monkeypatch.context() as m:
        m.setattr(sys, "platform", "darwin")
        assert not cache.save_child_wanted(big)
    monkeypatch.setenv("MRSIM_CACHE_SAVE_CHILD", "0")
    assert not cache.save_child_wanted(big)
