"""What the command line imports before a command runs (docs/performance.md, "The trace cache":
start-up).

``mrsim replay --help`` (and the parser every ``mrsim replay`` builds first) imported numpy through the calibration
and engine modules the flags' definitions never use: about a tenth of a second of every invocation. Oracles: a
fresh interpreter's ``sys.modules``; the subcommands' names and help read from source equal those of ``ast``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mrsim import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", ["replay", "compare", "validate"])
def test_building_a_commands_parser_imports_no_numpy(command: str) -> None:
    code = ("import sys; from mrsim.cli import build_parser; build_parser(sys.argv[1], load_all=False); "
            "print(sorted(m for m in ('numpy', 'pandas', 'pyarrow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, command], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stdout


def test_the_commands_names_and_help_read_from_source_equal_the_modules_constants() -> None:
    commands = cli._commands()
    assert len(commands) == len([p for p in (REPO / "mrsim" / "cli" / "commands").glob("*.py")
                                 if not p.name.startswith("_")])
    for info in commands:
        path = REPO / "mrsim" / "cli" / "commands" / f"{info.module.rsplit('.', 1)[1]}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {node.targets[0].id: node.value.value for node in tree.body
                     if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                     and node.targets[0].id in ("NAME", "HELP") and isinstance(node.value, ast.Constant)}
        assert (info.name, info.help) == (constants["NAME"], constants["HELP"])


def test_a_command_module_written_otherwise_is_still_read() -> None:
    assert cli._constants('NAME = "x"\nHELP = (\n    "a "\n    "b")\n') == {"NAME": "x", "HELP": "a b"}
    assert cli._constants("NAME = 'y'\nHELP = 'z'\n") == {"NAME": "y", "HELP": "z"}
    assert cli._constants("def broken(:\n") == {}
