"""The Python example in docs/trace-store.md runs as written (on a real log instead of ``logs/``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.profiler.store.helpers import DISPATCH_LOG

DOC = Path(__file__).resolve().parents[3] / "docs" / "trace-store.md"


def test_trace_store_md_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert '"logs/"' in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code.replace('"logs/"', repr(str(DISPATCH_LOG))), str(DOC), "exec"), {})
    assert (tmp_path / "store" / "manifest.json").exists()
