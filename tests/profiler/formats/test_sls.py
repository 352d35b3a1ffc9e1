"""SLS-native JSON traces -> LoggedJob dicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.profiler.sls import DEFAULT_BASE_MS, iter_sls_jobs
from tests.profiler.formats.gold import SLS


def _read(path: Path, **kw) -> tuple[list[dict], list[str]]:
    warnings: list[str] = []
    return list(iter_sls_jobs(path, warnings=warnings, **kw)), warnings


def test_real_sls_trace_exact_timeline() -> None:
    jobs, warnings = _read(SLS / "inputsls.json", base_ms=0)
    assert warnings == []
    assert [(j["jobID"], j["queue"], j["user"], j["submitTime"], j["finishTime"]) for j in jobs] == [
        ("job_1", "sls_queue_1", "default", 0, 95375),
        ("job_2", "sls_queue_2", "default", 105204, 197256),
    ]
    spans = [(t["taskID"], t["startTime"], t["finishTime"], t["attempts"][0]["hostName"]) for t in jobs[0]["mapTasks"]]
    assert spans == [
        ("task_1_m_000000", 6664, 23707, "/default-rack/node1"),
        ("task_1_m_000001", 6665, 21593, "/default-rack/node3"),
        ("task_1_m_000002", 68770, 86613, "/default-rack/node2"),
    ]
    attempt = jobs[1]["mapTasks"][0]["attempts"][0]
    assert (attempt["attemptID"], attempt["result"], attempt["location"]) == (
        "attempt_2_m_000000_0", "SUCCESS", {"layers": ["default-rack", "node1"]}
    )
    assert [j["totalMaps"] for j in jobs] == [3, 2] and jobs[0]["successfulMapAttemptCDFs"][3]["numberValues"] == 3


def test_dag_variant_and_default_base_time() -> None:
    """By default relative times are shifted so that no time is 0, which Rumen reads as unknown."""
    jobs, _ = _read(SLS / "sls_dag.json")
    assert jobs[0]["submitTime"] == DEFAULT_BASE_MS and jobs[0]["mapTasks"][0]["startTime"] == DEFAULT_BASE_MS + 6664
    assert jobs[1]["finishTime"] - jobs[1]["submitTime"] == 197256 - 105204


def test_header_counts_durations_and_copies(tmp_path: Path) -> None:
    objects = [
        {"num.nodes": 4, "num.racks": 2},
        {
            "job.id": "job_1369942127770_0653", "job.start.ms": 1000, "job.end.ms": 9000, "job.count": 2,
            "job.tasks": [
                {"container.host": "/r1/n1", "duration.ms": 500, "container.request.delay": 200, "count": 2},
                {"container.host": "/r1/n2", "container.duration.ms": 700, "container.type": "reduce"},
                {"container.host": "/r1/n2", "container.start.ms": 5, "container.end.ms": 5},
            ],
        },
    ]
    path = tmp_path / "trace.json"
    path.write_text("\n".join(json.dumps(o, indent=1) for o in objects))
    jobs, warnings = _read(path, base_ms=0)
    assert [j["jobID"] for j in jobs] == ["job_1369942127770_0653_0", "job_1369942127770_0653_1"]
    job = jobs[0]
    assert [(t["taskID"], t["startTime"], t["finishTime"]) for t in job["mapTasks"]] == [
        ("task_1369942127770_0653_0_m_000000", 1200, 1700),
        ("task_1369942127770_0653_0_m_000001", 1200, 1700),
    ]
    assert [(t["taskType"], t["startTime"], t["finishTime"]) for t in job["reduceTasks"]] == [("REDUCE", 1000, 1700)]
    assert (job["totalMaps"], job["totalReduces"]) == (2, 1)
    assert len(warnings) == 2 and all("task 2" in w and "no positive duration" in w for w in warnings)


def test_bad_sls_input(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"job.id": "a", "job.tasks": [{"duration.ms": 5}]}\n\n{"job.id": "b", "job.tasks": [}')
    with pytest.raises(InputError, match=r"broken\.json: line 3: malformed JSON"):
        list(iter_sls_jobs(broken))
    empty_tasks = tmp_path / "empty.json"
    empty_tasks.write_text('{"job.id": "a", "job.tasks": []}')
    with pytest.raises(InputError, match=r"empty\.json: line 1: job a: 'job.tasks' must be a non-empty list"):
        list(iter_sls_jobs(empty_tasks))
    bad_number = tmp_path / "number.json"
    bad_number.write_text('{"job.id": "a", "job.start.ms": "soon", "job.tasks": [{"duration.ms": 5}]}')
    with pytest.raises(InputError, match="job.start.ms must be an integer"):
        list(iter_sls_jobs(bad_number))
