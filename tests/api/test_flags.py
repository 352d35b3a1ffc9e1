"""One flag convention: -o/--out, --scheduler, --format, --x; old spellings warn but still work; --quiet and
--log-level exist on every command."""

from __future__ import annotations

import pytest

from mrsim.cli import build_parser, main


def _subparsers(parser):
    for action in parser._actions:
        if getattr(action, "choices", None) and isinstance(action.choices, dict):
            yield from action.choices.items()


def test_every_command_has_quiet_and_log_level():
    for name, sub in _subparsers(build_parser()):
        assert "--quiet" in sub._option_string_actions, name
        assert "--log-level" in sub._option_string_actions, name


@pytest.mark.parametrize("argv,dest,value", [
    (["synth", "-o", "x.json"], "output", "x.json"),
    (["sweep", "s.toml", "--out", "r.parquet"], "output", "r.parquet"),
    (["profile", "in.json", "--out", "store"], "output", "store"),
    (["plot", "box", "r.parquet", "--metric", "m", "--x", "sigma", "-o", "f.png"], "across", "sigma"),
    (["lotes", "run", "--scheduler", "greedy"], "policy", "greedy"),
    (["geo", "run", "--scheduler", "fcfs"], "policy", "fcfs"),
])
def test_new_spellings(argv, dest, value, capsys):
    args = build_parser().parse_args(argv)
    assert getattr(args, dest) == value
    assert "deprecated" not in capsys.readouterr().err


@pytest.mark.parametrize("argv,old,dest,value", [
    (["synth", "--output", "x.json"], "--output", "output", "x.json"),
    (["plot", "box", "r.parquet", "--metric", "m", "--across", "sigma", "-o", "f.png"], "--across", "across", "sigma"),
    (["lotes", "run", "--policy", "greedy"], "--policy", "policy", "greedy"),
    (["geo", "run", "--trace-format", "swim"], "--trace-format", "trace_format", "swim"),
])
def test_old_spellings_warn(argv, old, dest, value, capsys):
    args = build_parser().parse_args(argv)
    assert getattr(args, dest) == value
    assert f"mrsim: warning: {old} is deprecated" in capsys.readouterr().err


def test_quiet_silences_warnings_but_not_errors(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "missing.json"), "--quiet"]) == 1  # an input error (docs/reliability.md)
    assert "mrsim: error:" in capsys.readouterr().err
