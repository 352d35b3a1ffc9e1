"""Every write path under a full disk, a read-only file system, a permission refusal or an impossible place: one
error line naming the path and what was written, exit 1, the previous output intact, nothing half-written.

The full-disk and read-only cases mount a small tmpfs, so they run as root only (skipped otherwise); the
permission case needs a user that permissions apply to (skipped as root).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from mrsim.cli import main
from tests.profiler.store.helpers import assert_one_line_error, run_cli

BUNDLED = Path(__file__).resolve().parents[2] / "rumen_traces" / "default.json.gz"


def _one_error(capsys: pytest.CaptureFixture[str], args: list[str], *needles: str) -> str:
    code, out, err = run_cli(args, capsys)
    assert code == 1, err
    assert_one_line_error(code, out, err, needles[0])
    for needle in needles[1:]:
        assert needle in err, err
    return err


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("trace") / "small.json.gz"
    assert main(["synth", "--jobs", "3", "--seed", "1", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("where", ["/etc/passwd/x", "/proc/mrsim-test/x"])
def test_outputs_to_impossible_places_are_one_line(where: str, small_trace: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "grid.toml"
    spec.write_text((BUNDLED.parents[1] / "examples" / "sweeps" / "fifo_grid.toml").read_text()
                    .replace("replications = 3", "replications = 1").replace("jobs = 20", "jobs = 3"))
    for args, what in (
        (["replay", small_trace, "--out", where], "jobs.csv"),
        (["replay", small_trace, "--report", f"{where}.html"], "the HTML report"),
        (["synth", "--jobs", "3", "-o", f"{where}.json.gz"], "the Rumen trace"),
        (["profile", small_trace, "-o", where], "the trace store"),
        (["profile", small_trace, "-o", f"{where}.json"], "the Rumen trace"),
        (["sweep", spec, "-o", f"{where}.parquet", "--max-cells", "1"], where),
    ):
        _one_error(capsys, [str(a) for a in args], where, what, "nothing written")


@contextlib.contextmanager
def _tmpfs(path: Path, size: str, *options: str) -> Iterator[Path]:
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join((f"size={size}", *options)), "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs ({done.stderr.strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mounts a tmpfs (root)")


def _visible(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@needs_root
def test_a_full_disk_leaves_the_previous_outputs_intact(tmp_path: Path, small_trace: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with _tmpfs(tmp_path / "disk", "8m") as disk:
        for args in (["replay", small_trace, "--out", disk / "out", "--quiet"],
                     ["synth", "--jobs", "3", "--seed", "2", "-o", disk / "t.json"],
                     ["replay", small_trace, "--report", disk / "r.html", "--quiet"]):
            code, _, err = run_cli([str(a) for a in args], capsys)
            assert code == 0, err
        fs = os.statvfs(disk)
        with open(disk / "filler", "wb") as fh:  # the disk full but for 16 KB
            fh.write(b"\0" * max(0, fs.f_bavail * fs.f_frsize - (16 << 10)))
        before = _visible(disk)
        for args, path, what in (
            (["replay", BUNDLED, "--out", disk / "out"], disk / "out", "jobs.csv"),
            (["synth", "--jobs", "400", "--seed", "2", "-o", disk / "t.json"], disk / "t.json", "the Rumen trace"),
            (["replay", BUNDLED, "--report", disk / "r.html"], disk / "r.html", "the HTML report"),
            (["profile", BUNDLED, "-o", disk / "store"], disk / "store", "the trace store"),
        ):
            _one_error(capsys, [str(a) for a in args], str(path), what, "no space left on the device")
            assert _visible(disk) == before  # the old outputs, byte for byte; no half-written file
            assert sorted(os.listdir(disk)) == sorted({p.split("/")[0] for p in before})
        # A full cache is not the run's failure: one warning, the replay goes on, nothing left in the cache.
        from mrsim.profiler import ingest

        monkeypatch.setenv("MRSIM_CACHE_DIR", str(disk / "cache"))
        ingest.forget()  # as a new process: the trace is read again, and its entry saved
        code, _, err = run_cli(["replay", str(BUNDLED), "--log-level", "warning"], capsys)
        assert code == 0 and err.count("mrsim: warning: trace cache: could not write") == 1, err
        assert [n for n in os.listdir(disk / "cache") if n.startswith(".tmp-")] == []


@needs_root
def test_a_read_only_file_system_is_one_line(tmp_path: Path, small_trace: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with _tmpfs(tmp_path / "ro", "1m", "ro") as ro:
        for args, path, what in (
            (["replay", small_trace, "--out", ro / "out"], ro / "out", "jobs.csv"),
            (["synth", "--jobs", "3", "-o", ro / "t.json"], ro / "t.json", "the Rumen trace"),
            (["profile", small_trace, "-o", ro / "store"], ro / "store", "the trace store"),
        ):
            _one_error(capsys, [str(a) for a in args], str(path), what, "read-only file system")
        assert os.listdir(ro) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root bypasses permissions")
def test_a_permission_refusal_is_one_line(tmp_path: Path, small_trace: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        for args, path, what in (
            (["replay", small_trace, "--out", locked / "out"], locked / "out", "jobs.csv"),
            (["synth", "--jobs", "3", "-o", locked / "t.json"], locked / "t.json", "the Rumen trace"),
            (["profile", small_trace, "-o", locked / "store"], locked / "store", "the trace store"),
        ):
            _one_error(capsys, [str(a) for a in args], str(path), what, "permission denied")
    finally:
        os.chmod(locked, 0o700)
