"""The typed columns the one-pass ingest keeps (background usage, slot-usage windows) hold exactly the values the
lists of tuples and ints held, and the published real-scale figures are the rendering of their result file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from mrsim.calibration.background import BackgroundCollector, UsagePoints, _usage_points, usage_arrays
from mrsim.profiler.topology_infer import SlotUsage

REPO = Path(__file__).resolve().parents[3]


def test_usage_points_hold_the_points_a_list_holds():
    starts = np.array([1_000, 2_500, 1_700_000_000_123], dtype=np.int64)
    finishes = np.array([1_999, 2_500, 1_700_000_000_999], dtype=np.int64)
    columns = UsagePoints()
    columns.add_attempts(starts, finishes)
    columns.append((7.25, -1))
    listed = [*_usage_points(starts, finishes), (7.25, -1)]
    assert list(columns) == listed and columns == listed and len(columns) == 7
    times, deltas = usage_arrays(columns)
    assert times.tolist() == [t for t, _ in listed] and deltas.tolist() == [1, -1, 1, -1, 1, -1, -1]
    assert times.dtype == np.float64 and deltas.dtype == np.int8
    assert sorted(columns) == sorted(listed)


def test_a_collector_of_columns_estimates_what_one_of_lists_does():
    columns, lists = BackgroundCollector(), BackgroundCollector()
    lists.usage, lists.reduce_usage = [], []
    for c in (columns, lists):
        c.waits = [("job_1", 10.0, 60.0), ("job_2", 100.0, 400.0)]
        c.usage.extend([(0.0, 1), (50.0, -1), (120.0, 1), (300.0, -1)])
    assert columns.estimate(4, 3.0) == lists.estimate(4, 3.0)
    assert np.array_equal(columns.stored().usage_s, lists.stored().usage_s)


def test_slot_usage_windows_beyond_int64_still_fail_where_they_failed():
    usage = SlotUsage()
    job = {"mapTasks": [{"attempts": [{"hostName": "/r1/h1", "startTime": 10, "finishTime": 2**70}]}]}
    usage.add_job(job)
    try:
        usage.hosts()
    except OverflowError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a window beyond int64 was accepted")


def test_the_published_real_scale_figures_are_the_rendering_of_the_result_file():
    doc = (REPO / "docs" / "performance.md").read_text()
    section = doc.split("<!-- real-scale:begin -->\n")[1].split("<!-- real-scale:end -->")[0]
    rendered = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_real_scale.py"), "--render",
                               str(REPO / "benchmarks" / "results" / "real_scale.json")],
                              capture_output=True, text=True, check=True).stdout
    assert section == rendered
