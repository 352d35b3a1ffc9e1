"""The linter's rules (``pyproject.toml``, ``[tool.ruff]``) hold on every Python file of the repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _ruff() -> list[str] | None:
    if shutil.which("ruff"):
        return ["ruff"]
    try:
        import ruff  # noqa: F401 - only to know whether the module runs
    except ImportError:
        return None
    return [sys.executable, "-m", "ruff"]


def test_ruff_is_clean() -> None:
    ruff = _ruff()
    if ruff is None:
        pytest.skip("ruff is not installed (it is part of the test extras: pip install -e '.[test]')")
    done = subprocess.run([*ruff, "check", "--no-cache", "--output-format", "concise", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
