"""A trace store's replay reads the store once for the profiler, keeps the background as columns until read, and
(for a store ``mrsim profile`` wrote) imports no pyarrow (docs/performance.md, "The trace cache":
start-up).

Oracles: :meth:`BackgroundCollector.from_stored` (the lists the columns replace), the same store read with
``--no-verify``, and a fresh interpreter's ``sys.modules``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mrsim.profiler.column_background import ColumnBackground
from mrsim.profiler.observe import Profiler
from mrsim.calibration.background import BackgroundCollector
from mrsim.cli import main as cli
from mrsim.profiler.store import load_background_inputs
from mrsim.io import policy

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("store")
    trace, out = where / "t.json.gz", where / "s"
    assert cli(["synth", "--jobs", "40", "--seed", "3", "-o", str(trace), "--quiet"]) == 0
    assert cli(["profile", str(trace), "-o", str(out), "--quiet"]) == 0
    return out


def test_the_stores_background_as_columns_equals_the_collectors_lists(store: Path) -> None:
    (stored,) = load_background_inputs(store)
    lists, columns = BackgroundCollector.from_stored(stored), ColumnBackground.of_stored(stored)
    assert columns.has_inputs() == lists.has_inputs() is True
    assert columns._usage is None and columns._reduce_usage is None  # has_inputs built no list
    assert columns.waits == lists.waits and columns.reduce_gaps() == lists.reduce_gaps()
    for total_reduce in (0, 16):
        assert columns.estimate(16, 0.64, total_reduce) == lists.estimate(16, 0.64, total_reduce)
    assert columns.usage == lists.usage and columns.reduce_usage == lists.reduce_usage


@pytest.mark.parametrize("verify", [True, False])
def test_the_profiler_reads_a_store_as_before(store: Path, verify: bool) -> None:
    policy.set_verify(verify)
    try:
        profiler = Profiler()
        profiler.add(store)
    finally:
        policy.set_verify(True)
    assert len(profiler.templates) == len(profiler.observations) == 40
    assert profiler.hosts() and profiler.trace_conf.as_counts() is not None
    (background,) = profiler.stored_backgrounds
    (stored,) = load_background_inputs(store)
    assert background.stored().usage_s.tolist() == stored.usage_s.tolist()
    assert profiler.measured_background(16, 0.64, 16) == \
        Profiler(stored_backgrounds=[BackgroundCollector.from_stored(stored)]).measured_background(16, 0.64, 16)


def test_a_profiled_stores_replay_imports_no_pyarrow(store: Path) -> None:
    assert any(p.name == "jobs.json" for p in store.glob("data-*/*"))
    code = ("import sys; from mrsim.cli import main; "
            "main(['replay', sys.argv[1], '--nodes', '4', '--json', '--quiet']); "
            "sys.stderr.write(str(sorted(m for m in ('pyarrow', 'pandas') if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, str(store)], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, check=True, timeout=300)
    assert done.stderr.strip().endswith("[]"), done.stderr[-300:]
