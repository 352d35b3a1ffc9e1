"""A trace store keeps the background estimate's inputs whole (store format 2), so it replays like its trace.

Oracles: the collector of the trace itself (waits and usage equal element by element after the store round trip),
the background estimated from the trace (equal, for several cluster sizes and heartbeats) on every Gridmix trace
and the 2009/2010 logs and traces, and ``mrsim validate --json`` of the trace (equal apart from the input's name and the reader's warnings, which
``mrsim profile`` gave)
for two traces whose background is not empty. A format-1 store (background kept as levels near the waits) still
loads, with a one-line warning, and is rewritten as format 2 when added to.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import orjson
import pytest

from mrsim.profiler import ingest as ingest_mod
from mrsim.profiler.observe import Profiler
from mrsim.calibration.background import BackgroundCollector
from mrsim.profiler.store import FORMAT_VERSION, add_to_store, load_background_inputs, read_manifest
from tests.tracker.helpers import SHARED_DATA
from tests.profiler.store.helpers import full_template, run_cli

GRIDMIX = SHARED_DATA / "gridmix-system-branch-1"
TRUNK = SHARED_DATA / "rumen" / "small-trace-test"
BRANCH_1 = SHARED_DATA / "rumen-branch-1" / "small-trace-test"
#: The 2009 JobTracker logs (job_200904211745_*) and the 2010 ones (job_201002080801_*), raw and as Rumen traces.
LOGS_2009_2010 = (
    TRUNK / "dispatch-sample-v20-jt-log.gz", TRUNK / "sample-job-tracker-logs.gz", TRUNK / "dispatch-trace-output.json.gz",
    TRUNK / "job-tracker-logs-trace-output.gz", TRUNK / "counters-format-test-logs", TRUNK / "counters-test-trace.json.gz",
    BRANCH_1 / "dispatch-sample-v20-jt-log.gz", BRANCH_1 / "dispatch-trace-output.json.gz",
    BRANCH_1 / "counters-test-trace.json.gz", BRANCH_1 / "goldFoldedTrace.json.gz",
    SHARED_DATA / "rumen" / "zombie" / "input-trace.json",
)


def _inputs() -> list[Path]:
    gridmix = sorted(GRIDMIX.glob("*.json.gz")) if GRIDMIX.is_dir() else []
    return [*gridmix, *(p for p in LOGS_2009_2010 if p.exists())]


INPUTS = _inputs()


def _profile(inputs: list[Path], store: Path) -> Profiler:
    """What ``mrsim profile INPUTS -o STORE`` does, in process; returns the profiler of the inputs."""
    profiler = Profiler()
    for path in inputs:
        profiler.add(path)
    add_to_store(store, profiler.templates, hosts=profiler.hosts(), background_inputs=profiler.background_inputs())
    return profiler


def test_every_gridmix_trace_and_2009_2010_log_estimates_the_same_background_from_its_store(tmp_path: Path) -> None:
    assert len([p for p in INPUTS if p.parent == GRIDMIX]) >= 28 and len(INPUTS) >= 36, "the data set shrank"
    non_empty = []
    for i, path in enumerate(INPUTS):
        trace = _profile([path], tmp_path / f"store{i}")
        stored = Profiler()
        stored.add(tmp_path / f"store{i}")
        if trace.background.waits:
            (got,) = stored.stored_backgrounds
            assert got.waits == trace.background.waits, path
            assert got.usage == trace.background.usage, path  # lossless: element by element, in order
        else:
            assert stored.stored_backgrounds == [], path
        slots = sum(h["map_slots"] for h in trace.hosts() or ())
        for total, heartbeat in ((slots, 0.3), (slots, 3.0), (slots + 7, 0.3), (max(1, slots // 2), 1.0)):
            expected = trace.measured_background(total, heartbeat)
            assert stored.measured_background(total, heartbeat) == expected, (path, total, heartbeat)
        if not trace.measured_background(slots, 0.3).is_empty():
            non_empty.append(path.name)
        assert stored.warnings == []
    # The regression: format 1 lost usage changes within one millisecond on this trace (the estimate differed).
    assert "3m_stream_trace.json.gz" in non_empty and "dispatch-trace-output.json.gz" in non_empty


def _validate_json(target: Path, capsys) -> dict:
    ingest_mod.forget()
    code, out, err = run_cli(["validate", target, "--json"], capsys)
    assert code == 0, err
    doc = orjson.loads(out)
    doc["spec"] = {k: v for k, v in doc["spec"].items() if k not in ("trace", "trace_cache", "cluster")}
    doc["summary"] = {k: v for k, v in doc["summary"].items() if k not in ("wall_s", "events_per_s")}
    return doc


@pytest.mark.parametrize("trace", [GRIDMIX / "3m_stream_trace.json.gz", TRUNK / "dispatch-trace-output.json.gz"],
                         ids=lambda p: p.name)
def test_validate_of_the_store_equals_validate_of_the_trace(trace: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("MRSIM_NO_CACHE", "1")  # the trace parsed, not read from a cache entry (itself a store)
    store = tmp_path / "store"
    ingest_mod.forget()
    code, _out, err = run_cli(["profile", trace, "-o", store, "--quiet"], capsys)
    assert code == 0, err
    from_trace = _validate_json(trace, capsys)
    from_store = _validate_json(store, capsys)
    assert from_trace["summary"]["background_slot_s"] > 0  # the background is in play
    # The reader's own warnings (a killed job without work skipped) were given by `mrsim profile`, not again.
    assert set(from_store.pop("warnings")) <= set(from_trace.pop("warnings"))
    assert from_store == from_trace
    # A store profiled from the store keeps the background inputs and the calibration too.
    code, _out, err = run_cli(["profile", store, "-o", tmp_path / "copy", "--quiet"], capsys)
    assert code == 0, err
    from_copy = _validate_json(tmp_path / "copy", capsys)
    from_copy.pop("warnings")
    assert from_copy == from_trace


def _as_format_1(store: Path, legacy_inputs: list[dict]) -> None:
    """Rewrite a store made by this mrsim as an older mrsim (format 1) wrote it: background in the manifest."""
    manifest = read_manifest(store)
    data = store / manifest["data"]
    for f in data.glob("background.*"):
        f.unlink()
        manifest["checksums"].pop(f.name)
    manifest["format_version"] = 1
    manifest["background_inputs"] = legacy_inputs
    (store / "manifest.json").write_bytes(orjson.dumps(manifest))


def test_a_format_1_store_loads_with_a_warning_and_is_upgraded_when_added_to(tmp_path: Path) -> None:
    store = tmp_path / "store"
    add_to_store(store, [full_template("job_1", 0.0)])
    # Waits of job_1 from 100 s to 130 s; in use: 2 slots at 100 s, 3 from 110 s, 1 from 120 s (a change of 2).
    _as_format_1(store, [{"waits": [["job_1", 100.0, 130.0]], "levels": [[100.0, 2], [110.0, 3], [120.0, 1]]}])
    p = Profiler()
    p.add(store)
    assert len(p.warnings) == 1 and "format 1" in p.warnings[0] and "approximate" in p.warnings[0]
    (got,) = p.stored_backgrounds
    assert got.waits == [("job_1", 100.0, 130.0)]
    assert got.usage == [(100.0, 1), (100.0, 1), (110.0, 1), (120.0, -1), (120.0, -1)]
    # 4 slots, no heartbeat: starved from 105 s (grace 5 s) to 130 s; held 4-2=2, then 1 from 110 s, 3 from 120 s.
    bg = p.measured_background(4, 0.0)
    assert (bg.times, bg.map_slots) == ((105.0, 110.0, 120.0, 130.0), (2, 1, 3, 0))
    assert math.isclose(bg.slot_seconds, 2 * 5 + 1 * 10 + 3 * 10)

    add_to_store(store, [full_template("job_2", 50.0)], background_inputs=[BackgroundCollector().stored()])
    manifest = read_manifest(store)
    assert manifest["format_version"] == FORMAT_VERSION == 3
    assert [b["approximate"] for b in manifest["background_inputs"]] == [True, False]
    first, second = load_background_inputs(store)
    assert first.approximate and first.waits == (("job_1", 100.0, 130.0),)
    assert np.array_equal(first.usage_s, [100.0, 100.0, 110.0, 120.0, 120.0]) and second.usage_s.size == 0
    again = Profiler()
    again.add(store)
    assert len(again.warnings) == 1 and again.measured_background(4, 0.0) == bg
