"""Regression tests for every hostile-input case class (hostile and broken inputs), run in-process.

Each case of :mod:`tests.hostile.cases` must end as promised: one error line with exit 1 (bad file) or 2 (bad
flag), or a warning naming the problem -- never a traceback, a hang (each run has a time limit) or a silent
wrong answer. ``python -m tests.hostile.cases`` runs the same catalogue through real subprocesses.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hostile.cases import CASES, classify, shared_data

DATA = shared_data()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_ends_as_promised(case, tmp_path: Path) -> None:
    if case.needs_data and DATA is None:
        pytest.skip("shared data absent")
    if case.name == "trace-unreadable" and os.geteuid() == 0:
        pytest.skip("root can read a file without read permission")
    verdict, detail = classify(case, tmp_path, DATA, timeout=30.0, in_process=True)
    assert verdict == "pass", f"{case.name}: {verdict}: {detail}"
