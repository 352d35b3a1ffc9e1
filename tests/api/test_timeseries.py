"""Time series and attempt rows of --out DIR, against hand-computed counts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mrsim.analysis.timeseries import CLUSTER, attempts_frame, queue_timeseries
from mrsim.cli import main
from mrsim.tracker.results import ReplayResult


def _result() -> ReplayResult:
    # job a (queue q1) submitted at 0: map 0 runs [0, 2), map 1 runs [1, 3), its reduce runs [3, 5).
    # job b (queue q2) submitted at 1: one map runs [2, 4).
    jobs = {"job_id": ["a", "b"], "queue": ["q1", "q2"], "submit_s": np.array([0.0, 1.0]),
            "start_s": np.array([0.0, 2.0]), "finish_s": np.array([5.0, 4.0]), "completion_s": np.array([5.0, 3.0])}
    tasks = {"job_id": np.array(["a", "a", "a", "b"], dtype=object),
             "type": np.array(["MAP", "MAP", "REDUCE", "MAP"], dtype=object), "task": np.array([0, 1, 0, 0]),
             "tracker": np.array(["n1", "n1", "n1", "n1"], dtype=object),
             "start_s": np.array([0.0, 1.0, 3.0, 2.0]), "shuffle_end_s": np.array([np.nan, np.nan, 3.5, np.nan]),
             "finish_s": np.array([2.0, 3.0, 5.0, 4.0]), "locality": np.zeros(4, dtype=np.int8)}
    return ReplayResult("fifo", jobs, tasks, {"makespan_s": 5.0}, {"cluster": {"map_slots": 2, "reduce_slots": 2}})


def test_queue_timeseries_counts():
    ts = queue_timeseries(_result())
    q1 = ts[ts.queue == "q1"].set_index("time_s")
    assert q1["running_maps"].tolist() == [1, 2, 1, 0, 0, 0]
    assert q1["pending_maps"].tolist() == [1, 0, 0, 0, 0, 0]
    assert q1["pending_reduces"].tolist() == [1, 1, 1, 0, 0, 0]  # waiting from submit to its launch at 3
    assert q1["running_reduces"].tolist() == [0, 0, 0, 1, 1, 0]
    q2 = ts[ts.queue == "q2"].set_index("time_s")
    assert q2["pending_maps"].tolist() == [0, 1, 0, 0, 0, 0] and q2["running_maps"].tolist() == [0, 0, 1, 1, 0, 0]
    cluster = ts[ts.queue == CLUSTER].set_index("time_s")
    assert cluster["used_slots"].tolist() == [1, 2, 2, 2, 1, 0]
    assert cluster["share"].tolist() == [0.25, 0.5, 0.5, 0.5, 0.25, 0.0]


def test_grid_coarsens_to_max_points():
    ts = queue_timeseries(_result(), 1.0, max_points=3)
    assert ts[ts.queue == CLUSTER]["time_s"].tolist() == [0.0, 3.0]  # ceil(5 / 2) = 3 s steps
    ts = queue_timeseries(_result(), 0.5, max_points=3)
    assert ts[ts.queue == CLUSTER]["time_s"].tolist() == [0.0, 2.5, 5.0]


def test_attempt_ids_follow_hadoop():
    rows = attempts_frame(_result())
    assert rows["attempt_id"].tolist()[:3] == ["attempt_a_m_000000_0", "attempt_a_m_000001_0", "attempt_a_r_000000_0"]
    assert rows["duration_s"].tolist() == [2.0, 2.0, 2.0, 2.0] and set(rows["result"]) == {"SUCCESS"}


def test_out_dir_has_four_files(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["replay", "--nodes", "64", "-o", str(out), "--quiet"]) == 0  # makespan < 200,000 s: 1 s steps
    assert sorted(p.name for p in out.iterdir()) == ["attempts.csv", "jobs.csv", "tasks.csv", "timeseries.csv"]
    tasks = pd.read_csv(out / "tasks.csv")
    attempts = pd.read_csv(out / "attempts.csv")
    assert len(attempts) == len(tasks)
    ts = pd.read_csv(out / "timeseries.csv")
    whole = ts[ts.queue == CLUSTER]
    assert (whole["time_s"].diff().dropna() == 1.0).all()
    assert whole["used_slots"].max() <= 64 * 4
