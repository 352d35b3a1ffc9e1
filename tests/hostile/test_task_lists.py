"""A Rumen job's task lists as an unlucky user or an attacker leaves them: ``mapTasks``/``reduceTasks`` of ``0``,
``false``, ``""`` (one error line naming the job and field), ``null`` although the job declares tasks (a warning
with the count), a task whose ``taskType`` is not its list's (a warning counting them). Read from the Gridmix
``5m_stream_trace.json.gz`` of the shared data (10 jobs, 292 tasks)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from mrsim.profiler.rumen import iter_rumen_jobs
from tests.data import SHARED_DATA
from tests.profiler.store.helpers import assert_one_line_error, run_cli

TRACE = SHARED_DATA / "gridmix-system-branch-1" / "5m_stream_trace.json.gz"


@pytest.fixture(scope="module")
def jobs() -> list[dict]:
    if not TRACE.is_file():
        pytest.skip("shared data absent")
    return [dict(j) for j in iter_rumen_jobs(TRACE)]


def _write(tmp_path: Path, jobs: list[dict]) -> Path:
    path = tmp_path / "lists.json"
    path.write_text("\n".join(json.dumps(j) for j in jobs))
    return path


def _replay(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict | None, str]:
    code, out, err = run_cli(["replay", str(path), "--json", "--no-cache"], capsys)
    return code, (json.loads(out) if code == 0 else None), err


def _tasks(result: dict) -> int:
    return sum(j["maps"] + j["reduces"] for j in result["jobs"])


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("mrsim: warning:")]


@pytest.mark.parametrize("key", ["mapTasks", "reduceTasks"])
@pytest.mark.parametrize("value, shown", [(0, "0"), (False, "False"), ("", "''")])
def test_a_task_list_that_is_not_a_list_is_one_line(jobs: list[dict], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str], key: str, value: object,
                                                    shown: str) -> None:
    changed = copy.deepcopy(jobs)
    changed[0][key] = value
    code, out, err = run_cli(["replay", str(_write(tmp_path, changed)), "--no-cache"], capsys)
    assert_one_line_error(code, out, err, f"lists.json: job {jobs[0]['jobID']}: field '{key}' must be a list of "
                                          f"objects, got {shown}")


@pytest.mark.parametrize("key, total, kind", [("mapTasks", "totalMaps", "map"),
                                              ("reduceTasks", "totalReduces", "reduce")])
def test_a_null_task_list_of_a_job_that_declares_tasks_is_announced(jobs: list[dict], tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str], key: str,
                                                                    total: str, kind: str) -> None:
    code, plain, _ = _replay(_write(tmp_path, jobs), capsys)
    assert code == 0 and _tasks(plain) == 292
    changed = copy.deepcopy(jobs)
    job = changed[0]
    declared = job[total]
    assert declared == len(job[key]) > 0
    job[key] = None
    code, got, err = _replay(_write(tmp_path, changed), capsys)
    assert code == 0 and _tasks(got) == 292 - declared
    assert f"mrsim: warning: job {job['jobID']}: {key} is null although {total} is {declared}: {declared} {kind} " \
           f"tasks with no record, not replayed" in _warnings(err)
    del job[key]
    code, got, err = _replay(_write(tmp_path, changed), capsys)
    assert code == 0 and any(f"{key} is missing although {total} is {declared}" in w for w in _warnings(err))


def test_a_null_list_of_a_job_declaring_none_is_silent(jobs: list[dict], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    changed = copy.deepcopy(jobs)
    changed[0]["mapTasks"], changed[0]["totalMaps"] = None, 0
    code, got, err = _replay(_write(tmp_path, changed), capsys)
    assert code == 0 and not any("mapTasks" in w for w in _warnings(err))


def test_tasks_of_another_type_in_a_list_are_counted(jobs: list[dict], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    changed = copy.deepcopy(jobs)
    job = changed[0]
    job["mapTasks"][0]["taskType"] = "REDUCE"
    job["mapTasks"][1]["taskType"] = "SETUP"
    job["reduceTasks"][0]["taskType"] = "MAP"
    code, got, err = _replay(_write(tmp_path, changed), capsys)
    assert code == 0 and _tasks(got) == 292 - 3
    warnings = _warnings(err)
    assert f"mrsim: warning: job {job['jobID']}: 2 tasks of mapTasks with another taskType (1 'REDUCE', 1 'SETUP'; " \
           "expected MAP) not replayed" in warnings
    assert f"mrsim: warning: job {job['jobID']}: 1 task of reduceTasks with another taskType (1 'MAP'; expected " \
           "REDUCE) not replayed" in warnings
