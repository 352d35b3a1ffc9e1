"""docs/lotes.md: the Python example runs, and every shell example parses against the real CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from mrsim.cli import build_parser

DOC = Path(__file__).resolve().parents[3] / "docs" / "lotes.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_python_examples_run():
    blocks = _blocks("python")
    assert blocks
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), {})


def test_shell_examples_parse():
    parser = build_parser()
    lines = [ln.split("#")[0].strip() for b in _blocks("sh") for ln in b.splitlines()]
    cmds = [shlex.split(ln)[1:] for ln in lines if ln.startswith("mrsim lotes")]
    assert len(cmds) >= 5
    for argv in cmds:
        args = parser.parse_args(argv)
        assert args.command == "lotes"
