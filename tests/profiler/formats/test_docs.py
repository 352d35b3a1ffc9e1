"""The example in docs/formats.md runs as written (on real logs instead of ``logs/``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.profiler.formats.gold import TRUNK, load_json_stream, topology_hosts

DOC = Path(__file__).resolve().parents[3] / "docs" / "formats.md"


def test_formats_md_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert '"logs/"' in code
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code.replace('"logs/"', repr(str(TRUNK / "dispatch-sample-v20-jt-log.gz"))), str(DOC), "exec"), namespace)
    assert [j["jobID"][-4:] for j in load_json_stream(tmp_path / "trace.json.gz")] == ["0001", "0002", "0003", "0004"]
    (topology,) = load_json_stream(tmp_path / "topology.json.gz")
    assert len(topology_hosts(topology)) == 547
    assert namespace["warnings"] == []  # a complete log raises no warning
