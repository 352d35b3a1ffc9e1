"""The cheap paths of the one-pass ingest and the trace-cache write give what the plain ones give.

Oracles: ``pyarrow.array`` for the store's buffer-built columns; :class:`BackgroundCollector` built from the same
points for the pass's column-backed collector; the garbage collector's state before a pass for the state after it;
and a child process's ``sys.modules`` for the imports a cache miss does without (no timing here: the speed is in
``benchmarks/bench_ingest.py``).
"""

from __future__ import annotations

import gc
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from mrsim.profiler import ingest as ingest_mod
from mrsim.calibration.background import BackgroundCollector
from mrsim.errors import InputError
from mrsim.profiler.detect import Format
from mrsim.profiler.store import _arrow_array

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("values, type_", [
    ([1.0, math.nan, -0.0, 2.5e300], pa.float64()),
    ([], pa.float64()),
    ([1, -2, 127], pa.int8()),
    ([0, 2**31 - 1], pa.int32()),
    ([1, 2**40], pa.int64()),
    ([True, False, True, True, False, False, True, False, True], pa.bool_()),
    (["job_1", "é", "", "a" * 300], pa.string()),
    ([], pa.string()),
    ([None, 3], pa.int32()),  # a null: pyarrow.array itself
])
def test_store_columns_equal_pyarrow_array(values, type_):
    got, want = _arrow_array(values, type_), pa.array(values, type=type_)
    got.validate(full=True)
    assert got.type == want.type and got.null_count == want.null_count
    assert repr(got.to_pylist()) == repr(want.to_pylist())  # repr: NaN equals itself, -0.0 stays signed


@pytest.mark.parametrize("values, type_", [([1, 2**40], pa.int32()), (["\ud800"], pa.string())])
def test_store_columns_refuse_what_pyarrow_refuses(values, type_):
    with pytest.raises(Exception) as built:
        _arrow_array(values, type_)
    with pytest.raises(Exception) as plain:
        pa.array(values, type=type_)
    assert type(built.value) is type(plain.value)


def test_column_background_equals_a_collector_of_the_same_points():
    waits = [("job_1", 10.0, 12.5)]
    times, deltas = np.array([1.0, 2.5, 3.0, 4.0]), np.array([1, -1, 1, -1], dtype=np.int8)
    lazy = ingest_mod._ColumnBackground(waits, times, deltas)
    plain = BackgroundCollector()
    plain.waits = list(waits)
    plain.usage = list(zip(times.tolist(), deltas.tolist()))
    stored = lazy.stored()  # untouched: the columns themselves
    assert stored.waits == plain.stored().waits
    assert np.array_equal(stored.usage_s, plain.stored().usage_s)
    assert np.array_equal(stored.usage_delta, plain.stored().usage_delta)
    assert lazy.usage == plain.usage  # built on first read
    assert lazy.estimate(2, 0.3) == plain.estimate(2, 0.3)
    lazy.usage = [(1.0, 1)]  # the collector's attribute stays assignable
    assert lazy.usage == [(1.0, 1)] and lazy.stored().usage_s.tolist() == [1.0]


def test_column_background_reduce_side_is_built_on_first_read():
    reduce_times, reduce_deltas = np.array([5.0, 6.0]), np.array([1, -1], dtype=np.int8)
    lazy = ingest_mod._ColumnBackground([], np.empty(0), np.empty(0, dtype=np.int8), [("job_2", 1.0, 2.0)],
                                        reduce_times, reduce_deltas)
    assert lazy._reduce_usage is None  # nothing built by the constructor
    stored = lazy.stored()  # untouched: the columns themselves
    assert stored.reduce_usage_s is reduce_times and stored.reduce_usage_delta is reduce_deltas
    assert lazy.reduce_usage == [(5.0, 1), (6.0, -1)] and lazy.has_inputs()
    plain = BackgroundCollector()
    plain.stored_reduce_gaps = [("job_2", 1.0, 2.0)]
    plain.reduce_usage = [(5.0, 1), (6.0, -1)]
    assert lazy.estimate(2, 0.3, 2) == plain.estimate(2, 0.3, 2)
    lazy.reduce_usage = [(7.0, 1)]  # assignable, and then what is stored
    assert lazy.stored().reduce_usage_s.tolist() == [7.0]
    assert ingest_mod._ColumnBackground([], np.empty(0), np.empty(0, dtype=np.int8)).reduce_usage == []


def _trace(tmp_path: Path) -> Path:
    from mrsim.profiler.rumen_writer import write_rumen_trace
    from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job

    workload = facebook_like_workload(FacebookLikeSpec(jobs=6, seed=3))
    path = tmp_path / "t.json"
    write_rumen_trace((template_to_logged_job(t) for t in workload), path)
    return path


@pytest.mark.parametrize("enabled", [True, False])
def test_the_pass_restores_the_garbage_collector(tmp_path, enabled):
    path = _trace(tmp_path)
    (tmp_path / "bad.json").write_text('{"jobID": "job_1_1", "mapTasks": "not a list"}')
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert ingest_mod._read(path, Format.RUMEN).templates
        assert gc.isenabled() is enabled
        with pytest.raises(InputError):
            ingest_mod._read(tmp_path / "bad.json", Format.RUMEN)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_a_cache_miss_imports_no_pandas(tmp_path):
    path = _trace(tmp_path)
    code = ("import sys; from mrsim.cli import main; "
            f"rc = main(['replay', {str(path)!r}, '--nodes', '4', '--json', '--quiet']); "
            "print('MODULES', sorted(m for m in ('pandas', 'scipy', 'matplotlib', 'fastavro') if m in sys.modules))")
    env = {"MRSIM_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    assert "MODULES []" in done.stdout, done.stdout[-300:]
    assert list((tmp_path / "cache" / "entries").iterdir()), "the miss saved an entry"
