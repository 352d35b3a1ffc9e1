"""mrsim.io.csv_frame writes the bytes pandas' ``to_csv(index=False, float_format="%.6f")`` writes, on both of its
paths (the fast one and the fallback to pandas), and replay outputs are unchanged by it."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from mrsim.io.csv_frame import _column_texts, write_frame_csv


def _pandas(frame: pd.DataFrame) -> str:
    buf = io.StringIO(newline="")
    frame.to_csv(buf, index=False, float_format="%.6f")
    return buf.getvalue()


def _ours(frame: pd.DataFrame) -> str:
    buf = io.StringIO(newline="")
    write_frame_csv(frame, buf, float_format="%.6f")
    return buf.getvalue()


FAST = {
    "floats with NaN, signed zeros, infinities, rounding halves and huge values": pd.DataFrame({
        "x": [0.0, -0.0, np.nan, np.inf, -np.inf, 0.0000005, 2.5e-7, 1e300, -1.2345675, 1 / 3, 0.0],
        "n": [0, -1, 2**62, 7, 7, 0, 3, 3, 1, -5, 0],
    }),
    "strings, empty strings and pandas' string dtype": pd.DataFrame({
        "job": ["job_1", "", "a b", "x;y", "é", "'q'", "job_1", "", "z", "z", "tab\there"],
        "queue": pd.array(["default", "q1", "", "q1", "q2", "q2", "q2", "default", "a", "b", "c"], dtype="string"),
        "s": np.linspace(0, 1, 11),
    }),
    "no rows": pd.DataFrame({"a": pd.Series([], dtype=float), "b": pd.Series([], dtype=np.int64)}),
    "small integers": pd.DataFrame({"a": np.arange(5, dtype=np.int32), "b": np.arange(5, dtype=np.uint8)}),
}

FALLBACK = {
    "a value that needs quotes": pd.DataFrame({"a": ["x,y", "q\"t", "line\nbreak"], "b": [1.0, 2.0, 3.0]}),
    "a missing string": pd.DataFrame({"a": ["x", None, np.nan], "b": [1, 2, 3]}),
    "booleans": pd.DataFrame({"a": [True, False], "b": [1.5, 2.5]}),
    "nullable integers": pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": [1.0, 2.0]}),
    "float32": pd.DataFrame({"a": np.array([0.1, 0.2], dtype=np.float32), "b": [1, 2]}),
    "mixed objects": pd.DataFrame({"a": ["x", 1], "b": [1, 2]}),
    "one column with an empty string": pd.DataFrame({"a": ["", "x"]}),
    "a header that needs quotes": pd.DataFrame({"a,b": [1, 2], "c": [3, 4]}),
    "categories": pd.DataFrame({"a": pd.Categorical(["x", "y"]), "b": [1, 2]}),
}


@pytest.mark.parametrize("name", sorted(FAST))
def test_fast_path_equals_pandas(name: str) -> None:
    frame = FAST[name]
    assert _column_texts(frame, "%.6f") is not None  # this table takes the fast path
    assert _ours(frame) == _pandas(frame)


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_other_tables_go_to_pandas_unchanged(name: str) -> None:
    frame = FALLBACK[name]
    assert len(frame.columns) == 1 or _column_texts(frame, "%.6f") is None
    assert _ours(frame) == _pandas(frame)


def test_replay_outputs_equal_pandas_to_csv(tmp_path) -> None:
    """Every file of ``replay --out`` (timeseries.csv: 100,000 rows) is what pandas' to_csv writes."""
    import mrsim
    from mrsim.analysis.outputs import write_replay_outputs
    from mrsim.analysis.timeseries import attempts_frame, queue_timeseries
    from mrsim.cli import main

    trace = tmp_path / "t.json.gz"
    assert main(["synth", "--jobs", "12", "--seed", "5", "-o", str(trace)]) == 0
    run = mrsim.replay(str(trace), scheduler="fair", seed=2, quiet=True)
    written = write_replay_outputs(run, tmp_path / "out")
    frames = {"jobs.csv": run.result.jobs, "tasks.csv": run.result.tasks,
              "attempts.csv": attempts_frame(run.result), "timeseries.csv": queue_timeseries(run.result, 1.0, 200_000)}
    assert sorted(p.name for p in written) == sorted(frames)
    assert len(frames["timeseries.csv"]) > 50_000
    for name, frame in frames.items():
        assert _column_texts(frame, "%.6f") is not None, name  # the outputs do take the fast path
        assert (tmp_path / "out" / name).read_text(encoding="utf-8") == _pandas(frame), name
