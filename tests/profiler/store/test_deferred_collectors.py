"""The pass's observations, slot usage and background run when first read (``mrsim.profiler.deferred``).

Oracle: the same pass with queueing off (every job through the collectors as it is read: the code before the
queue existed). Every field of the pass's result must be equal, the same error must be raised, and a replay's
fields must leave the queued collectors unrun.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import orjson
import pytest

from mrsim.profiler import deferred
from mrsim.profiler import ingest as one_pass
from mrsim.profiler.detect import Format

T0 = 1_300_000_000_000
LAZY = {"observations", "profiled_hosts", "background_waits", "background_times", "background_deltas",
        "background_reduce_waits", "background_reduce_times", "background_reduce_deltas"}


def _job(n: int, host: str = "/rack1/host1", result: str = "SUCCESS", **extra: object) -> dict:
    """A job of two maps and one reduce, with SETUP and CLEANUP tasks; ``result``: the second map's attempt."""
    def attempt(kind: str, i: int, start: int, finish: int, outcome: str = "SUCCESS") -> dict:
        return {"attemptID": f"attempt_201001010000_{n:04d}_{kind}_{i:06d}_0", "result": outcome,
                "startTime": start, "finishTime": finish, "hostName": host if i else f"/rack2/host{n % 3}"}

    base = T0 + 60_000 * n
    maps = [{"taskID": f"t_m_{i}", "taskType": "MAP", "startTime": base + 100 * i, "finishTime": base + 5000 + i,
             "attempts": [attempt("m", i, base + 100 * i + 50, base + 4900 + i, result if i == 1 else "SUCCESS")],
             "preferredLocations": [{"layers": ["rack9", f"host{i + 7}"]}] if i == 0 else []}
            for i in range(2)]
    reduces = [{"taskID": "t_r_0", "taskType": "REDUCE", "startTime": base + 3000, "finishTime": base + 9000,
                "attempts": [{**attempt("r", 0, base + 3100, base + 8900), "shuffleFinished": base + 6000,
                              "sortFinished": base + 7000}]}]
    others = [{"taskID": "t_s", "taskType": "SETUP", "startTime": base - 900, "finishTime": base - 100,
               "attempts": [attempt("r", 3, base - 800, base - 200)]},
              {"taskID": "t_c", "taskType": "CLEANUP", "startTime": base + 9100, "finishTime": base + 9500,
               "attempts": [attempt("m", 4, base + 9150, base + 9400)]}]
    return {"jobID": f"job_201001010000_{n:04d}", "jobName": "j", "user": "u", "queue": "q", "outcome": "SUCCESS",
            "submitTime": base - 2000, "launchTime": base - 1500, "finishTime": base + 9600, "totalMaps": 2,
            "mapTasks": maps, "reduceTasks": reduces, "otherTasks": others,
            "jobProperties": {"mapred.reduce.slowstart.completed.maps": "0.5", "mapred.job.map.memory.mb": "2048",
                              "mapred.cluster.map.memory.mb": "1024", "unrelated.key": "x"}, **extra}


def _write(path: Path, jobs: list[dict]) -> Path:
    path.write_bytes(b"\n".join(orjson.dumps(job) for job in jobs) + b"\n")
    return path


def _comparable(value: object) -> object:
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.tolist())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _comparable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return [(k, _comparable(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_comparable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    return value


def _fields(result: one_pass.SingleInput) -> dict[str, object]:
    return {f.name: _comparable(getattr(result, f.name)) for f in dataclasses.fields(result) if f.name != "cache"}


def _eager(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object] | str:
    """The pass with queueing off: no job is ever queued, every collector runs as the job is read."""
    with monkeypatch.context() as patch:
        patch.setattr(deferred, "lite_job", lambda job, plain, names=None: None)
        try:
            return _fields(one_pass._read(path, Format.RUMEN))
        except Exception as exc:  # noqa: BLE001 - the error is the result to compare
            return f"{type(exc).__name__}: {exc}"


def _queued(path: Path) -> dict[str, object] | str:
    try:
        return _fields(one_pass._read(path, Format.RUMEN))
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"


def test_a_replay_leaves_the_queued_collectors_unrun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from mrsim.cli import main

    trace = tmp_path / "s.json.gz"
    main(["synth", "--jobs", "30", "--seed", "3", "-o", str(trace), "--quiet"])
    result = one_pass._read(trace, Format.RUMEN)
    # What replay and compare read (the workload, its hosts, the calibration, the report) leaves the rest queued.
    assert result.workload().jobs and result.workload_hosts and result.calibration is not None
    assert result.report.jobs_added == 30
    assert set(result.__dict__["_lazy"]) == LAZY
    assert _fields(result) == _eager(trace, monkeypatch)
    assert "_lazy" in result.__dict__ and not result.__dict__["_lazy"]


def test_plain_jobs_before_and_after_one_that_is_not_give_the_eager_result(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    jobs = [_job(1), _job(2, host="host4"), _job(3, result="FAILED"), _job(4), _job(5, host="/rack3/host9")]
    trace = _write(tmp_path / "mixed.json", jobs)
    assert _queued(trace) == _eager(trace, monkeypatch)
    only_plain = _write(tmp_path / "plain.json", [_job(1), _job(2, host="host4"), _job(4)])
    result = one_pass._read(only_plain, Format.RUMEN)
    assert "observations" in result.__dict__["_lazy"]  # real hosts: the slot usage ran for the workload's hosts
    assert "profiled_hosts" not in result.__dict__["_lazy"]
    assert _fields(result) == _eager(only_plain, monkeypatch)


@pytest.mark.parametrize("change", [
    {"otherTasks": [7]},  # observe._task_durations would call .get on it
    {"otherTasks": 5},
    {"otherTasks": [{"taskType": "SETUP", "startTime": T0, "finishTime": T0 + 10, "attempts": 3}]},
    {"jobProperties": {"mapred.reduce.slowstart.completed.maps": [1, 2]}},
    {"jobProperties": ["not", "a", "dict"]},
    {"submitTime": "soon"},
    {"launchTime": 1.5e300},
])
def test_a_job_the_queue_refuses_gives_the_eager_result_or_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 change: dict):
    hostile = {**_job(2), **change}
    trace = _write(tmp_path / "h.json", [_job(1), hostile, _job(3)])
    assert _queued(trace) == _eager(trace, monkeypatch)


def test_split_rack_layers_that_are_not_names_are_not_queued():
    from mrsim.profiler.plain import plain_job

    job = _job(1)
    assert deferred.lite_job(job, plain_job(job)) is not None
    job["mapTasks"][0]["preferredLocations"] = [{"layers": {"a": 1, "b": 2}}]  # len 2, but layers[1] raises
    assert deferred.lite_job(job, plain_job(job)) is None
    job["mapTasks"][0]["preferredLocations"] = [{"layers": ["rack", 7]}]
    assert deferred.lite_job(job, plain_job(job)) is None
