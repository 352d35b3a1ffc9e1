"""Every ``mrsim ...`` line in the README's and docs' code blocks names a command and flags that exist.

Each line is parsed by the real parser (unknown commands, flags or bad values fail); the README's set-up
commands are also run for real in a temp directory.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from mrsim.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL_FENCES = ("", "sh", "bash", "shell", "console")


def shell_blocks(text: str) -> list[str]:
    """The bodies of fenced code blocks opened with no language or a shell language."""
    blocks, body, lang = [], None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            if body is None:
                body, lang = [], line[3:].strip()
            else:
                if lang in SHELL_FENCES:
                    blocks.append("\n".join(body))
                body = None
        elif body is not None:
            body.append(line)
    return blocks


def documented_commands(path: Path) -> list[tuple[str, list[str]]]:
    """``(where, argv)`` for each ``mrsim`` command line in a shell code block (continuations joined)."""
    out = []
    for block in shell_blocks(path.read_text(encoding="utf-8")):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip().removeprefix("$ ")
            if not re.search(r"(^|&&|;)\s*mrsim(\s|$)", line):
                continue
            if "[" in line:  # a synopsis: mrsim CMD ARG [--flag X] [--a | --b]: its flags must exist
                words = line.split()
                out.append((f"{path.name}: {line}", ["--synopsis", words[1], *re.findall(r"--[a-z][a-z0-9-]*", line)]))
                continue
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            lexer.commenters = "#"
            command: list[str] = []
            for token in [*lexer, ";"]:
                if token in ("&&", "||", ";", "|", ">", "2>", "<", "&"):
                    if command and command[0] == "mrsim":
                        out.append((f"{path.name}: {shlex.join(command)}", command[1:]))
                    command = [] if token != ">" else ["redirect"]
                else:
                    command.append(token)
    return out


CASES = [case for path in DOCS for case in documented_commands(path)]


def test_the_readme_documents_commands():
    readme = [c for c in CASES if c[0].startswith("README.md")]
    assert len(readme) >= 2


@pytest.mark.parametrize("where,argv", CASES, ids=[c[0] for c in CASES])
def test_documented_command_parses(where, argv, capsys):
    parser = build_parser()
    if argv[0] == "--synopsis":
        sub = next(a for a in parser._actions if a.dest == "command").choices[argv[1]]
        known = {o for a in sub._actions for o in a.option_strings}
        missing = [flag for flag in argv[2:] if flag not in known]
        assert not missing, f"{where}: unknown flags {missing}"
        return
    try:
        parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):  # --help / --version exit 0
            pytest.fail(f"{where}: {capsys.readouterr().err.strip()}")


def test_readme_setup_commands_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rumen_traces").mkdir()
    assert main(["synth", "--jobs", "50", "--seed", "42", "-o", "rumen_traces/default.json.gz"]) == 0
    assert main(["replay", "--quiet"]) == 0
    assert "makespan" in capsys.readouterr().out
