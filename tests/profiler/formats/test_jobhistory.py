"""JobHistory 0.20/1.x reader: record syntax, merging, confs, bundles, truncation and bad input."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.profiler.jobhistory import iter_jobhistory_jobs, parse_counters, sniff
from tests.profiler.formats.gold import TRUNK

J = "job_201001010000_0001"
T = "task_201001010000_0001"
A = "attempt_201001010000_0001"
HOST = r"/10\.0\.0\.0/node1\.example\.com"


def _log(*records: str) -> str:
    return 'Meta VERSION="1" .\n' + "\n".join(records) + "\n"


def _job(total_maps: int = 1, total_reduces: int = 1, extra: str = "") -> list[str]:
    return [
        f'Job JOBID="{J}" JOBNAME="my\\.job" USER="alice" SUBMIT_TIME="1000" JOBCONF="x"{extra} .',
        f'Job JOBID="{J}" JOB_PRIORITY="HIGH" .',
        f'Job JOBID="{J}" LAUNCH_TIME="1100" TOTAL_MAPS="{total_maps}" TOTAL_REDUCES="{total_reduces}" JOB_STATUS="PREP" .',
    ]


def _map(n: int, start: int, *, status: str = "SUCCESS", splits: str = HOST, host: str = HOST, counters: str = "") -> list[str]:
    task, attempt = f"{T}_m_{n:06d}", f"{A}_m_{n:06d}_0"
    end = f' COUNTERS="{counters}"' if counters else ""
    return [
        f'Task TASKID="{task}" TASK_TYPE="MAP" START_TIME="{start}" SPLITS="{splits}" .',
        f'MapAttempt TASK_TYPE="MAP" TASKID="{task}" TASK_ATTEMPT_ID="{attempt}" START_TIME="{start + 5}" TRACKER_NAME="t" HTTP_PORT="50060" .',
        f'MapAttempt TASK_TYPE="MAP" TASKID="{task}" TASK_ATTEMPT_ID="{attempt}" TASK_STATUS="{status}" FINISH_TIME="{start + 50}" HOSTNAME="{host}" STATE_STRING=""{end} .',
        f'Task TASKID="{task}" TASK_TYPE="MAP" TASK_STATUS="{status}" FINISH_TIME="{start + 60}"{end} .',
    ]


def _finish(status: str = "SUCCESS") -> str:
    return f'Job JOBID="{J}" FINISH_TIME="9000" JOB_STATUS="{status}" FINISHED_MAPS="1" FINISHED_REDUCES="0" FAILED_MAPS="0" FAILED_REDUCES="0" .'


def _read(path: Path, **kw) -> tuple[list[dict], list[str]]:
    warnings: list[str] = []
    return list(iter_jobhistory_jobs(path, warnings=warnings, **kw)), warnings


def _write(tmp_path: Path, name: str, text: str, *, gz: bool = False) -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


def test_counters_with_bracket_escapes_inside_names() -> None:
    raw = (
        r"{(org\.apache\.hadoop\.mapred\.Task$Counter)(Map-Reduce Framework)[(SPILLED_RECORDS)(Spilled Records)(5)]}"
        r"{(x\.counter)(x)[(SortFilter-#1\\[id\\]:Modified)(SortFilter-#1\\[id\\]:Modified)(7)]"
        r"[(FALLOW)(waiting after reserving slots \\(ms\\))(0)]}"
    )
    assert parse_counters(raw) == [("SPILLED_RECORDS", 5), ("SortFilter-#1[id]:Modified", 7), ("FALLOW", 0)]
    assert parse_counters("{(g)(g)[(BROKEN)(b)(notanumber)]}") == []


def test_start_and_end_records_merge_by_id(tmp_path: Path) -> None:
    counters = r"{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(42)]}"
    path = _write(tmp_path, f"h_1_{J}_alice_x", _log(*_job(1, 0), *_map(0, 2000, counters=counters), _finish()))
    (job,), warnings = _read(path)
    assert warnings == []
    assert (job["jobID"], job["user"], job["jobName"], job["priority"]) == (J, "alice", "my\\.job", "HIGH")
    assert (job["submitTime"], job["launchTime"], job["finishTime"], job["outcome"]) == (1000, 1100, 9000, "SUCCESS")
    (task,) = job["mapTasks"]
    assert (task["startTime"], task["finishTime"], task["taskStatus"], task["inputBytes"]) == (2000, 2060, "SUCCESS", 42)
    assert task["preferredLocations"] == [{"layers": ["10\\.0\\.0\\.0", "node1\\.example\\.com"]}]
    (attempt,) = task["attempts"]
    assert (attempt["startTime"], attempt["finishTime"], attempt["result"]) == (2005, 2050, "SUCCESS")
    assert attempt["hostName"] == HOST and attempt["hdfsBytesRead"] == 42 and attempt["shuffleFinished"] == -1
    assert job["successfulMapAttemptCDFs"][0]["numberValues"] == 1  # node-local: attempt host is a split host
    assert job["mapperTriesToSucceed"] == [1.0]


def test_multiline_error_with_dot_ending_lines_stays_one_record(tmp_path: Path) -> None:
    task, attempt = f"{T}_m_000000", f"{A}_m_000000_0"
    failed = (
        f'MapAttempt TASK_TYPE="MAP" TASKID="{task}" TASK_ATTEMPT_ID="{attempt}" TASK_STATUS="FAILED" '
        f'FINISH_TIME="2100" HOSTNAME="node1\\.example\\.com" ERROR="java\\.io\\.IOException: boom\n'
        "\tat a\\.b(C\\.java:1) .\n"
        '\tat d\\.e(F\\.java:2)\n" .'
    )
    text = _log(
        *_job(1, 0),
        f'Task TASKID="{task}" TASK_TYPE="MAP" START_TIME="2000" SPLITS="" .',
        f'MapAttempt TASK_TYPE="MAP" TASKID="{task}" TASK_ATTEMPT_ID="{attempt}" START_TIME="2001" TRACKER_NAME="t" HTTP_PORT="" .',
        failed,
        f'Task TASKID="{task}" TASK_TYPE="MAP" TASK_STATUS="FAILED" FINISH_TIME="2200" ERROR="boom" .',
        f'Job JOBID="{J}" FINISH_TIME="3000" JOB_STATUS="FAILED" FINISHED_MAPS="0" FINISHED_REDUCES="0" .',
    )
    (job,), warnings = _read(_write(tmp_path, "log", text))
    assert warnings == []
    (task_dict,) = job["mapTasks"]
    assert task_dict["taskStatus"] == "FAILED" and task_dict["finishTime"] == 2200
    (a,) = task_dict["attempts"]
    assert (a["result"], a["finishTime"], a["hostName"], a["location"]) == ("FAILED", 2100, "node1\\.example\\.com", None)
    assert job["outcome"] == "FAILED" and job["failedMapAttemptCDFs"][3]["numberValues"] == 1


def test_reduce_phases_and_a_reduce_success_without_phase_times(tmp_path: Path) -> None:
    r0, r1 = f"{T}_r_000000", f"{T}_r_000001"
    text = _log(
        *_job(0, 2),
        f'Task TASKID="{r0}" TASK_TYPE="REDUCE" START_TIME="2000" SPLITS="" .',
        f'Task TASKID="{r1}" TASK_TYPE="REDUCE" START_TIME="2000" SPLITS="" .',
        f'ReduceAttempt TASK_TYPE="REDUCE" TASKID="{r0}" TASK_ATTEMPT_ID="{A}_r_000000_0" START_TIME="2010" TRACKER_NAME="t" HTTP_PORT="1" .',
        f'ReduceAttempt TASK_TYPE="REDUCE" TASKID="{r0}" TASK_ATTEMPT_ID="{A}_r_000000_0" TASK_STATUS="SUCCESS" '
        f'SHUFFLE_FINISHED="2500" SORT_FINISHED="2600" FINISH_TIME="2900" HOSTNAME="{HOST}" STATE_STRING="r" .',
        f'ReduceAttempt TASK_TYPE="REDUCE" TASKID="{r1}" TASK_ATTEMPT_ID="{A}_r_000001_0" START_TIME="2010" TRACKER_NAME="t" HTTP_PORT="1" .',
        f'ReduceAttempt TASK_TYPE="REDUCE" TASKID="{r1}" TASK_ATTEMPT_ID="{A}_r_000001_0" TASK_STATUS="SUCCESS" '
        f'FINISH_TIME="2950" HOSTNAME="{HOST}" STATE_STRING="r" .',
    )
    (job,), _ = _read(_write(tmp_path, "log", text))
    first, second = (t["attempts"][0] for t in job["reduceTasks"])
    assert (first["shuffleFinished"], first["sortFinished"], first["finishTime"], first["hostName"]) == (2500, 2600, 2900, HOST)
    # Rumen emits no ReduceAttemptFinished without phase times: location is set, hostName is not.
    assert (second["shuffleFinished"], second["hostName"]) == (-1, None)
    assert second["location"] == {"layers": ["10\\.0\\.0\\.0", "node1\\.example\\.com"]}
    assert job["successfulReduceAttemptCDF"]["minimum"] == 890


def test_bundle_conf_order_decides_job_name_as_in_rumen(tmp_path: Path) -> None:
    conf = (
        '<?xml version="1.0"?><configuration>\n'
        "<property><name>mapreduce.map.java.opts</name><value>-Xmx1g -Xmx2g</value></property>\n"
        "<property><name>mapred.job.queue.name</name><value>q1</value></property>\n"
        "</configuration>\n"
    )
    history = _log(*_job(1, 0, extra=' JOB_QUEUE="logged"'), *_map(0, 2000), _finish())
    for conf_first, expected_name in ((True, "my\\.job"), (False, None)):
        parts = [f"\f!!FILE=h_1_{J}_conf.xml!!\n{conf}", f"\f!!FILE=h_1_{J}_alice_x!!\n{history}"]
        bundle = "".join(parts if conf_first else parts[::-1])
        (job,), _ = _read(_write(tmp_path, "bundle.gz", bundle, gz=True))
        assert job["jobName"] == expected_name
        assert job["queue"] == ("logged" if conf_first else "q1")
        assert (job["jobMapMB"], job["heapMegabytes"], job["jobReduceMB"]) == (2048, -1, -1)
        assert job["jobProperties"]["mapred.job.queue.name"] == "q1"


def test_directory_and_conf_beside_a_single_file(tmp_path: Path) -> None:
    second = _log(*_job(1, 0), *_map(0, 2000), _finish()).replace("0001", "0002")
    _write(tmp_path, f"h_1_{J}_alice_x", _log(*_job(1, 0), *_map(0, 2000), _finish()))
    _write(tmp_path, "h_1_job_201001010000_0002_bob_y.gz", second, gz=True)
    _write(tmp_path, f"h_1_{J}_conf.xml", "<configuration><property><name>mapred.child.java.opts</name>"
           "<value>-Xmx512m</value></property></configuration>")
    _write(tmp_path, "README", "not a log\n")
    jobs, warnings = _read(tmp_path)
    assert [j["jobID"] for j in jobs] == [J, "job_201001010000_0002"]
    assert jobs[0]["heapMegabytes"] == 512 and jobs[1]["heapMegabytes"] == -1
    assert any("README" in w for w in warnings)
    (alone,), _ = _read(tmp_path / f"h_1_{J}_alice_x")
    assert alone["heapMegabytes"] == 512 and alone["jobName"] is None  # conf sorts after the history file


def test_concatenated_jobs_without_markers_split_on_job_id(tmp_path: Path) -> None:
    one = _log(*_job(1, 0), *_map(0, 2000), _finish())
    two = one.replace("0001", "0002")
    jobs, _ = _read(_write(tmp_path, "all.log", one + two))
    assert [j["jobID"] for j in jobs] == [J, "job_201001010000_0002"]
    assert [len(j["mapTasks"]) for j in jobs] == [1, 1]


def test_truncation_at_end_of_file_is_reported_by_job(tmp_path: Path) -> None:
    text = _log(*_job(2, 0), *_map(0, 2000)) + f'Task TASKID="{T}_m_000001" TASK_TYPE="MAP" START_TI'
    (job,), warnings = _read(_write(tmp_path, "cut", text))
    assert len(job["mapTasks"]) == 1 and job["outcome"] == "PREP"
    assert any(J in w and "cut off" in w for w in warnings)
    assert any(J in w and "never logged its finish" in w for w in warnings)


def test_cut_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    data = (TRUNK / "dispatch-sample-v20-jt-log.gz").read_bytes()
    cut = tmp_path / "cut.gz"
    cut.write_bytes(data[: len(data) // 2])
    jobs, warnings = _read(cut)
    assert [j["jobID"][-4:] for j in jobs] == ["0001", "0002", "0003", "0004"]
    assert any("compressed data ends early" in w and "job_200904211745_0004" in w for w in warnings)


def test_unclosed_quote_does_not_swallow_later_records(tmp_path: Path) -> None:
    broken = f'Task TASKID="{T}_m_000009" TASK_TYPE="MAP" START_TIME="1 .'
    (job,), warnings = _read(_write(tmp_path, "log", _log(*_job(1, 0), broken, *_map(0, 2000), _finish())))
    assert [t["taskID"] for t in job["mapTasks"]] == [f"{T}_m_000000"]
    assert job["outcome"] == "SUCCESS"
    assert any("malformed Task record" in w for w in warnings)


def test_records_that_cannot_be_attached_are_reported(tmp_path: Path) -> None:
    early = f'MapAttempt TASK_TYPE="MAP" TASKID="{T}_m_000005" TASK_ATTEMPT_ID="{A}_m_000005_0" START_TIME="1" TRACKER_NAME="t" HTTP_PORT="1" .'
    foreign = 'Task TASKID="task_209901010000_0009_m_000000" TASK_TYPE="MAP" START_TIME="1" SPLITS="" .'
    text = _log(*_job(1, 0), early, foreign, "Bogus KEY=\"v\" .", *_map(0, 2000), _finish())
    (job,), warnings = _read(_write(tmp_path, f"h_1_{J}_a_b", text))
    assert [t["taskID"] for t in job["mapTasks"]] == [f"{T}_m_000000"]
    assert any(J in w and "never started" in w and f"{A}_m_000005_0" in w for w in warnings)
    assert any("job_209901010000_0009" in w and "skipped" in w for w in warnings)
    assert any("unknown record type 'Bogus'" in w for w in warnings)


def test_split_locations_follow_rumen_limits(tmp_path: Path) -> None:
    many = ",".join(f"/r/h{i}" for i in range(26))
    text = _log(*_job(2, 0), *_map(0, 2000, splits=many), *_map(1, 2000, splits="bare-host,/r/h1"), _finish())
    (job,), _ = _read(_write(tmp_path, "log", text))
    assert job["mapTasks"][0]["preferredLocations"] == []
    assert job["mapTasks"][1]["preferredLocations"] == [{"layers": ["r", "h1"]}]


def test_resource_usage_counters() -> None:
    (job,), _ = _read(TRUNK / "v20-resource-usage-log.gz")
    attempt = job["mapTasks"][0]["attempts"][0]
    assert attempt["resourceUsageMetrics"] == {
        "cumulativeCpuUsage": 200, "virtualMemoryUsage": 100, "physicalMemoryUsage": 75, "heapUsage": 50
    }
    assert attempt["spilledRecords"] == 0


@pytest.mark.parametrize("content", ["hello world\n", '{"jobID": "x"}\n'])
def test_a_file_that_is_not_a_jobhistory_log_is_an_input_error(tmp_path: Path, content: str) -> None:
    path = _write(tmp_path, "x.log", content)
    with pytest.raises(InputError, match="x.log: not a Hadoop 0.20/1.x JobHistory log"):
        list(iter_jobhistory_jobs(path))
    with pytest.raises(InputError, match="no such file"):
        list(iter_jobhistory_jobs(tmp_path / "missing"))


def test_sniff() -> None:
    assert sniff(b'Meta VERSION="1" .\nJob', "x")
    assert sniff(b"\f!!FILE=a_conf.xml!!\n<?xml", "x")
    assert sniff(b'Job JOBID="job_1_1" JOBNAME="x" .', "x")
    assert not sniff(b'{"jobID": 1}', "x") and not sniff(b"Avro-Json\n", "x")
