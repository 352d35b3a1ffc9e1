"""Unit tests of the validation layer's building blocks: limits, strict JSON, field readers, exit codes,
atomic output directories, global flags."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from mrsim.cli import main
from mrsim.errors import InputError, LimitError, StrictError, UsageError, exit_code_for
from mrsim.io import safe_json
from mrsim.io.atomic import atomic_directory
from mrsim.io.fields import as_float, as_int
from mrsim.io.limits import check_limit, limit, reset_limit_flags, set_limit_flag
from mrsim.io.safe_open import check_input_file


def test_limits_default_env_and_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    reset_limit_flags()
    assert limit("nodes") == 1_000_000
    monkeypatch.setenv("MRSIM_MAX_NODES", "10")
    assert limit("nodes") == 10
    with pytest.raises(LimitError, match=r"11 nodes .* exceeds the limit of 10 \(raise it with --limit nodes=N or "
                                         r"MRSIM_MAX_NODES=N\)"):
        check_limit("nodes", 11, "x")
    set_limit_flag("nodes=20")  # the flag wins over the environment
    assert limit("nodes") == 20
    reset_limit_flags()
    with pytest.raises(UsageError, match="unknown limit"):
        set_limit_flag("bogus=3")
    with pytest.raises(UsageError, match="positive integer"):
        set_limit_flag("nodes=0")


def test_limit_flag_anywhere_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["replay", "--nodes", "2000000"], ["--limit", "nodes=10", "replay", "--nodes", "11"],
                 ["replay", "--nodes", "11", "--limit", "nodes=10"]):
        with pytest.raises(SystemExit) as exc:  # argparse's usage error
            main(argv)
        assert exc.value.code == 2
        assert "--limit nodes=N" in capsys.readouterr().err
    assert main(["replay", "--limit=bogus=1"]) == 2


def test_strict_json_refusals() -> None:
    assert safe_json.loads('{"a": [1, 2.5, -3]}') == {"a": [1, 2.5, -3]}
    for text, needle in [('{"a": NaN}', "NaN"), ('{"a": -Infinity}', "Infinity"), ('{"a": 1e999}', "overflows"),
                         ('{"a": ' + "1" * 21 + "}", "21 digits"), ("[" * 100_000 + "]" * 100_000, "too deep")]:
        with pytest.raises(safe_json.JSONValueError, match=needle):
            safe_json.loads(text)
    assert safe_json.locate_refused('{"x": 1,\n "finishTime": NaN}') == (24, "finishTime")


def test_field_readers() -> None:
    assert as_int(3, "f", "n", 0, 5) == 3 and as_int(4.0, "f", "n") == 4 and as_int("7", "f", "n") == 7
    for bad in (True, math.nan, "x", 2.5, None, [1]):
        with pytest.raises(InputError, match="n must be a non-negative integer at most 5"):
            as_int(bad, "f", "n", 0, 5)
    with pytest.raises(InputError, match="f: n must be a positive integer, got 0"):
        as_int(0, "f", "n", 1)
    assert as_float(2, "f", "s", 0.0, 10.0, lo_open=True) == 2.0
    for bad in (math.inf, math.nan, True, "nan", 10**400):
        with pytest.raises(InputError, match="s must be a positive finite number"):
            as_float(bad, "f", "s", 0.0, None, lo_open=True)


def test_exit_codes() -> None:
    assert exit_code_for(InputError("trace.json: line 3: bad")) == 1
    assert exit_code_for(InputError("--nodes must be at least 1")) == 2
    assert exit_code_for(UsageError("unknown scheduler 'x'")) == 2
    assert exit_code_for(StrictError("--strict: 1 warning: ...")) == 1


def test_special_files_refused_before_opening(tmp_path: Path) -> None:
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="named pipe"):
        check_input_file(fifo)  # returns at once: stat, never open
    with pytest.raises(InputError, match="is a directory"):
        check_input_file(tmp_path)
    assert check_input_file(tmp_path, allow_dir=True) == tmp_path
    with pytest.raises(InputError, match="no such file"):
        check_input_file(tmp_path / "nope")


def test_atomic_directory_swaps_the_whole_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    names = ("a.csv", "b.csv")
    for version in ("1", "2"):
        with atomic_directory(out, names) as files:
            for name in names:
                with files.open(name) as fh:
                    fh.write(version * 3)
            assert not out.exists() or (out / "a.csv").read_text() != version * 3  # nothing visible yet
        assert {p.name: p.read_text() for p in out.iterdir()} == {"a.csv": version * 3, "b.csv": version * 3}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporaries left
    with pytest.raises(RuntimeError):
        with atomic_directory(out, names) as files:
            with files.open("a.csv") as fh:
                fh.write("partial")
            raise RuntimeError("killed half-way")
    assert (out / "a.csv").read_text() == "222" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_atomic_directory_never_deletes_foreign_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=r"holds files mrsim did not write \(notes.txt\)"):
        with atomic_directory(out, ("a.csv",)):
            pass
    assert (out / "notes.txt").read_text() == "mine"


def test_stale_temporaries_of_a_dead_writer_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    dead = tmp_path / ".out.mrsim-new-999999999-abc"  # no such pid
    dead.mkdir()
    alive = tmp_path / f".out.mrsim-new-{os.getpid()}-abc"  # a concurrent writer: left alone
    alive.mkdir()
    with atomic_directory(out, ("a.csv",)) as files:
        with files.open("a.csv") as fh:
            fh.write("x")
    assert not dead.exists() and alive.exists()


def test_reliability_doc_lists_every_limit_with_its_default() -> None:
    from mrsim.io.limits import LIMITS
    from tests.hostile.cases import REPO

    doc = (REPO / "docs/reliability.md").read_text()
    for name, lim in LIMITS.items():
        shown = "8 GiB" if name == "input_bytes" else f"{lim.default:,}"
        assert f"| `{name}` | {shown} |" in doc, name
