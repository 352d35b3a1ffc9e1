"""The column path of plain jobs (``mrsim.profiler.plain``) gives exactly what each collector's general path gives.

Oracle: the general path of the same collector on the same job dict (the code every job took before the column
path existed). Each collector's whole state is compared after the same jobs, for hand-made plain jobs (out-of-order
reduce phases, attempts with a ``location``, a SETUP task in a reduce slot, high-RAM confs), for ``mrsim synth``'s
jobs, and for every plain job of the real traces when ``shared/data`` is present. Jobs that are not plain must be
recognised as such (they keep the general path's checks and warnings).
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from mrsim.profiler.observe import observe_job, observe_plain
from mrsim.calibration.background import BackgroundCollector
from mrsim.calibration.extract import CalibrationCollector, _Columns
from mrsim.profiler.builder import template_from_logged_job
from mrsim.profiler.plain import plain_job
from mrsim.profiler.topology_infer import SlotUsage
from tests.data import SHARED_DATA

T0 = 1_300_000_000_000


def _attempt(aid: str, start: int, finish: int, host: str = "/rack1/host1", **extra: object) -> dict:
    return {"attemptID": aid, "result": "SUCCESS", "startTime": start, "finishTime": finish, "hostName": host,
            **extra}


def _task(tid: str, kind: str, start: int, finish: int, attempt: dict, **extra: object) -> dict:
    return {"taskID": tid, "taskType": kind, "startTime": start, "finishTime": finish, "attempts": [attempt], **extra}


def _job(n: int = 1) -> dict:
    """A plain job: three maps (one with split locations, one on a host logged with a location object), two
    reduces (one with shuffle/sort out of order, one first-wave), a SETUP task in a reduce slot, a CLEANUP task."""
    jid = f"job_201001010000_{n:04d}"
    maps = [
        _task(f"task_m_{i}", "MAP", T0 + 1000 * i, T0 + 9000 + 500 * i,
              _attempt(f"attempt_201001010000_{n:04d}_m_00000{i}_0", T0 + 1000 * i + 120, T0 + 8800 + 500 * i,
                       host=f"/rack{i % 2}/host{i}"),
              preferredLocations=[{"layers": ["rack9", f"host{i + 7}"]}] if i == 0 else [])
        for i in range(3)
    ]
    maps[2]["attempts"][0]["location"] = {"layers": ["rackL", "hostL"]}
    reduces = [
        _task("task_r_0", "REDUCE", T0 + 5000, T0 + 20000,
              _attempt(f"attempt_201001010000_{n:04d}_r_000000_0", T0 + 5100, T0 + 19000, host="/rack1/host1",
                       shuffleFinished=T0 + 12000, sortFinished=T0 + 11000)),  # sort before shuffle: warned
        _task("task_r_1", None, T0 + 15000, T0 + 30000,
              _attempt(f"attempt_201001010000_{n:04d}_r_000001_0", T0 + 15200, T0 + 29000, host="host5",
                       shuffleFinished=T0 + 16000, sortFinished=-1)),
    ]
    del reduces[1]["taskType"]
    others = [
        _task("task_s", "SETUP", T0 - 2000, T0 - 500,
              _attempt(f"attempt_201001010000_{n:04d}_r_000003_0", T0 - 1900, T0 - 600)),
        _task("task_c", "CLEANUP", T0 + 30500, T0 + 31000,
              _attempt(f"attempt_201001010000_{n:04d}_m_000004_0", T0 + 30600, T0 + 30900)),
    ]
    return {"jobID": jid, "jobName": "j", "user": "u", "queue": "q", "priority": "NORMAL", "outcome": "SUCCESS",
            "submitTime": T0 - 3000, "launchTime": T0 - 2500, "finishTime": T0 + 32000, "totalMaps": 3,
            "mapTasks": maps, "reduceTasks": reduces, "otherTasks": others,
            "jobProperties": {"mapred.job.reuse.jvm.num.tasks": "1", "mapred.job.map.memory.mb": "2048",
                              "mapred.cluster.map.memory.mb": "1024", "mapred.reduce.slowstart.completed.maps": "0.5"}}


#: The calibration collector's lookups of the column path only (hostName -> host code; a per-host scratch column
#: that each plain job resets): not samples, and the general path has none.
_COLUMN_PATH_ONLY = {CalibrationCollector: ("_name_code", "_first_start")}
#: Sample columns whose rows are a multiset: the column path sorts each plain job's attempt ends by time (their
#: readers sort them anyway), the general path keeps them in attempt order. Compared in one canonical order.
_UNORDERED = {CalibrationCollector: ("ends",)}


def _rows_in_order(columns: _Columns) -> tuple[np.ndarray, ...]:
    arrays = columns.arrays()
    order = np.lexsort(arrays[::-1])  # by the first column, then the next, ...
    return tuple(a[order] for a in arrays)


def _state(obj: object) -> object:
    """Everything a collector holds, comparable (arrays as lists, defaultdicts as dicts, sample columns as their
    arrays: the column path adds a chunk per job where the general path adds rows)."""
    if isinstance(obj, _Columns):
        return _state(obj.arrays())
    if isinstance(obj, dict):
        return {k: _state(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_state(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return (obj.dtype.str, obj.tolist())
    if hasattr(obj, "__dict__"):
        skipped = _COLUMN_PATH_ONLY.get(type(obj), ())
        unordered = _UNORDERED.get(type(obj), ())
        return _state({key: _rows_in_order(value) if key in unordered else value
                       for key, value in vars(obj).items() if key not in skipped})
    return obj


def _both_paths(jobs: list[dict]) -> None:
    """Feed ``jobs`` to every collector through both paths and compare everything they give or hold."""
    general = (SlotUsage(), CalibrationCollector(), BackgroundCollector())
    columns = (SlotUsage(), CalibrationCollector(), BackgroundCollector())
    for job in jobs:
        plain = plain_job(job)
        assert plain is not None, job["jobID"]
        pristine = copy.deepcopy(job)
        w_general: list[str] = []
        w_columns: list[str] = []
        a = template_from_logged_job(job, source="s", warnings=w_general)
        b = template_from_logged_job(job, source="s", warnings=w_columns, plain=plain)
        assert w_columns == w_general
        assert a is not None and b is not None
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), f.name
            else:
                assert x == y, f.name
        assert observe_plain(job, plain) == observe_job(job)
        general[0].add_job(job)
        columns[0].add_plain(job, plain)
        general[1].add_job(job)
        columns[1].add_plain(job, plain)
        general[2].add_job(job, a.job_id)
        columns[2].add_plain(job, a.job_id, plain)
        assert job == pristine  # neither path changes the input
    for g, c in zip(general, columns):
        assert _state(c) == _state(g), type(g).__name__
    assert (columns[1]._first_start == np.iinfo(np.int64).max).all()  # the scratch is reset after each job
    assert general[0].hosts() == columns[0].hosts()
    assert general[1].result("s") == columns[1].result("s")


def test_hand_made_plain_jobs_give_what_the_general_path_gives():
    jobs = [_job(1), _job(2)]
    jobs[1]["jobProperties"] = {}
    jobs[1]["reduceTasks"][0]["finishTime"] = T0 + 18000  # a report lag below zero
    _both_paths(jobs)
    warnings: list[str] = []
    template_from_logged_job(jobs[0], source="s", warnings=warnings, plain=plain_job(jobs[0]))
    assert [w for w in warnings if "out of order" in w] == [
        f"job {jobs[0]['jobID']}: reduce attempt attempt_201001010000_0001_r_000000_0 has shuffle/sort times out of "
        f"order (start {T0 + 5100}, shuffle {T0 + 12000}, sort {T0 + 11000}, finish {T0 + 19000}); clamped into "
        "[start, finish]"]


def test_jobs_with_only_maps_or_only_reduces():
    only_maps, only_reduces = _job(3), _job(4)
    only_maps["reduceTasks"] = []
    only_reduces["mapTasks"] = []
    _both_paths([only_maps, only_reduces])


def test_synthetic_jobs_give_what_the_general_path_gives(tmp_path: Path):
    from mrsim.cli import main as cli
    from mrsim.profiler.rumen import iter_rumen_jobs

    trace = tmp_path / "s.json.gz"
    cli(["synth", "--jobs", "25", "--seed", "3", "-o", str(trace), "--quiet"])
    _both_paths(list(iter_rumen_jobs(trace)))


#: Jobs that are not plain, by test id (the typed decoder's tests add their own cases to these)
NOT_PLAIN = {
    "failed": lambda j: j["mapTasks"][0]["attempts"][0].update(result="FAILED"),
    "two attempts": lambda j: j["mapTasks"][0]["attempts"].append(dict(j["mapTasks"][0]["attempts"][0])),
    "no attempt": lambda j: j["mapTasks"][0].update(attempts=[]),
    "unknown time": lambda j: j["mapTasks"][0].update(startTime=-1),
    "float time": lambda j: j["mapTasks"][0].update(startTime=float(T0)),
    "bool time": lambda j: j["mapTasks"][0]["attempts"][0].update(finishTime=True),
    "finish before start": lambda j: j["mapTasks"][0]["attempts"][0].update(finishTime=T0 - 10**9),
    "out of range": lambda j: j["mapTasks"][0]["attempts"][0].update(startTime=10**14),
    "no host": lambda j: j["mapTasks"][0]["attempts"][0].pop("hostName"),
    "attempt id not a string": lambda j: j["mapTasks"][0]["attempts"][0].update(attemptID=7),
    "wrong task type": lambda j: j["mapTasks"][0].update(taskType="REDUCE"),
    "locations not a list": lambda j: j["mapTasks"][0].update(preferredLocations="host1"),
    "sort time a string": lambda j: j["reduceTasks"][0]["attempts"][0].update(sortFinished="12"),
    "task list not a list": lambda j: j.update(mapTasks="not a list"),
    "no tasks": lambda j: j.update(mapTasks=[], reduceTasks=[]),
    "null job id": lambda j: j.update(jobID=None),
    "task not an object": lambda j: j["reduceTasks"].append("not a task"),
}


@pytest.mark.parametrize("change", list(NOT_PLAIN.values()), ids=list(NOT_PLAIN))
def test_jobs_that_are_not_plain_take_the_general_path(change):
    job = _job(5)
    change(job)
    assert plain_job(job) is None


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="shared/data not present")
def test_real_plain_jobs_give_what_the_general_path_gives():
    from mrsim.profiler.rumen import iter_rumen_jobs

    checked = 0
    for name in ("gridmix-system-branch-1/trace_1m.json.gz", "gridmix-system-branch-1/3m_stream_trace.json.gz",
                 "rumen-branch-1/small-trace-test/goldFoldedTrace.json.gz"):
        path = SHARED_DATA / name
        if not path.exists():
            continue
        jobs = [job for job in iter_rumen_jobs(path) if plain_job(job) is not None]
        ids = [j["jobID"] for j in jobs]
        jobs = [j for i, j in enumerate(jobs) if j["jobID"] not in ids[:i]]  # the builder renames repeats later
        _both_paths(jobs)
        checked += len(jobs)
    assert checked > 0


@pytest.mark.parametrize("ids", [
    ["attempt_1_2_m_3_0", "attempt_1_2_r_3_0", "attempt_1_2_m_4_1"],
    ["attempt_1_2_m_3_0", "attempt_1_9_r_3_0"],  # another job's prefix: the split
    ["attempt_1_2_x_3_0", "attempt_1_2_r_3_0"],  # not a type letter
    ["attempt_1_2_mm_3_0", "attempt_1_2_r_3_0"],
    ["attempt_1_2_m_3", "attempt_1_2_r_3_0"],  # four underscores only
    ["attempt_1_2_m", "attempt_1_2_r"],
    ["attempt_1_2_", "attempt_1_2_r_3_0"],
    ["a_b", "a_b_c_r_d_e"],
    ["noprefix", "attempt_1_2_r_3_0"],
    ["", "attempt_1_2_m_3_0_extra_parts"],
    ["a__c_r__", "a__c_m_x_y"],
    [],
    # one length (the byte matrix) against several lengths (the string passes)
    ["attempt_1_2_m_3_0", "attempt_1_2_r_3_0", "attempt_1_2_m_3_10"],
    ["attempt_1_2_m_3_0", "attempt_1_2_m_3_é"],  # not ASCII
    ["attempt_1_2_m_3x0", "attempt_1_2_r_3_0"],  # one length, four underscores in one id
    ["attempt_1_2_m_3x0", "attempt_1_2_r_3x0"],  # one length, four underscores in each
    ["attempt_1_2_m_", "attempt_1_2_r_"],  # nothing after the letter's underscore
    ["attempt_1_2_m_", "attempt_1_2_r_", "attempt_1_2_q_"],
    ["attempt_1_2_r_3_0"] * 3,
    ["x_y_z_r_a_b", "x_y_z_m___"],
    ["attempt_1_2_m_3_0", "attempt_1_2_r_3\n0"],  # a newline in an id (the table's separator)
    ["attempt_1_2_m_3_0\n", "attempt_1_2_r_3_0"],
    ["attempt_1_2_m_3_0", "attempt_1_2_r_30", "attempt_1_2_m_3_0"],  # one length, the fifth underscore moved
    ["attempt_1_2_r_3_0", "xattempt_1_2_r_3_0"[:17]],
])
def test_plain_reduce_slots_give_the_split_answer(ids: list[str]):
    from mrsim.calibration.extract import _plain_reduce_slots, _reduce_slot

    for n_maps in range(len(ids) + 1):
        expected = [_reduce_slot({"attemptID": aid}, "reduce" if i >= n_maps else "map") for i, aid in enumerate(ids)]
        assert _plain_reduce_slots(ids, n_maps).tolist() == expected
