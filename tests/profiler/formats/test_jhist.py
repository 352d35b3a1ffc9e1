"""``.jhist`` reader: the real Avro-JSON files, a binary ``.jhist`` written with fastavro, and bad input."""

from __future__ import annotations

import gzip
import io
import json
import shutil
from pathlib import Path

import fastavro
import pytest

from mrsim.errors import InputError
from mrsim.profiler.jhist import iter_jhist_jobs, sniff
from tests.profiler.formats.gold import JHIST

SLEEP = JHIST / "mapreduce-client-hs" / "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"
SLEEP10 = JHIST / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist"
FAILED_203 = JHIST / "mapreduce-client-hs" / "job_2.0.3-alpha-FAILED.jhist"


def _events(path: Path) -> list[tuple[str, dict]]:
    """Independent oracle: (type, record) for each event line, unwrapped by hand."""
    lines = path.read_text().splitlines()[2:]
    out = []
    for line in lines:
        if line.strip():
            event = json.loads(line)
            (record,) = event["event"].values()
            out.append((event["type"], record))
    return out


def _read(path: Path) -> tuple[list[dict], list[str]]:
    warnings: list[str] = []
    return list(iter_jhist_jobs(path, warnings=warnings)), warnings


@pytest.mark.parametrize("path", sorted(JHIST.glob("*/*.jhist")), ids=lambda p: p.name[:40])
def test_every_time_matches_the_raw_events(path: Path) -> None:
    (job,), _ = _read(path)
    events = _events(path)
    first = {kind: rec for kind, rec in reversed(events)}
    assert job["submitTime"] == first["JOB_SUBMITTED"]["submitTime"]
    assert job["launchTime"] == first["JOB_INITED"]["launchTime"]
    assert job["totalMaps"] == first["JOB_INITED"]["totalMaps"]
    end = next(rec for kind, rec in events if kind in ("JOB_FINISHED", "JOB_FAILED", "JOB_KILLED"))
    assert job["finishTime"] == end["finishTime"]
    tasks = {t["taskID"]: t for t in job["mapTasks"] + job["reduceTasks"]}
    attempts = {a["attemptID"]: a for t in tasks.values() for a in t["attempts"]}
    assert len(tasks) == sum(kind == "TASK_STARTED" for kind, _ in events)
    for kind, rec in events:
        if kind == "TASK_STARTED":
            assert tasks[rec["taskid"]]["startTime"] == rec["startTime"]
        elif kind in ("TASK_FINISHED", "TASK_FAILED"):
            assert tasks[rec["taskid"]]["finishTime"] == rec["finishTime"]
            assert tasks[rec["taskid"]]["taskStatus"] == {"SUCCEEDED": "SUCCESS"}.get(rec["status"], rec["status"])
        elif kind.endswith("ATTEMPT_STARTED"):
            assert attempts[rec["attemptId"]]["startTime"] == rec["startTime"]
        elif kind.endswith(("ATTEMPT_FINISHED", "ATTEMPT_FAILED", "ATTEMPT_KILLED")):
            attempt = attempts[rec["attemptId"]]
            assert attempt["finishTime"] == rec["finishTime"]
            assert attempt["hostName"] == rec["rackname"] + "/" + rec["hostname"]
            assert attempt["location"] == {"layers": [rec["rackname"].lstrip("/"), rec["hostname"]]}
            assert attempt["result"] == {"SUCCEEDED": "SUCCESS"}.get(
                rec.get("taskStatus") or rec["status"], rec.get("taskStatus") or rec["status"]
            )
            if kind == "REDUCE_ATTEMPT_FINISHED":
                assert (attempt["shuffleFinished"], attempt["sortFinished"]) == (rec["shuffleFinishTime"], rec["sortFinishTime"])
            assert attempt["clockSplits"] == rec["clockSplits"]


def test_sleep_job_with_its_conf_and_counters() -> None:
    (job,), warnings = _read(SLEEP10)
    assert warnings == []
    assert (job["jobID"], job["user"], job["queue"], job["outcome"]) == ("job_1329348432655_0001", "user", "default", "SUCCESS")
    assert (len(job["mapTasks"]), len(job["reduceTasks"]), job["otherTasks"]) == (10, 1, [])
    reduce_attempt = job["reduceTasks"][0]["attempts"][0]
    assert reduce_attempt["reduceShuffleBytes"] == 120 and reduce_attempt["reduceInputRecords"] == 10
    assert reduce_attempt["resourceUsageMetrics"]["cumulativeCpuUsage"] > 0
    assert job["mapperTriesToSucceed"] == [1.0]
    # The SUCCEEDED copy has job_1329348432655_0001_conf.xml beside it: heap from -Xmx, name from the conf.
    (edited,), _ = _read(SLEEP)
    assert (edited["heapMegabytes"], edited["jobMapMB"], edited["jobReduceMB"]) == (200, 200, 200)
    assert edited["jobName"] == "Sleep job" and edited["jobProperties"]["mapreduce.job.queuename"] == "default"


def test_hand_edited_file_keeps_both_reduces_and_warns() -> None:
    (job,), warnings = _read(SLEEP)
    assert job["totalReduces"] == 1 and len(job["reduceTasks"]) == 2
    assert warnings == ["job job_1329348432655_0001: declares totalReduces=1 but logs 2 reduceTasks; all logged tasks kept"]


def test_failed_job_queue_change_and_failed_attempts() -> None:
    (job,), _ = _read(FAILED_203)
    assert (job["queue"], job["outcome"]) == ("unfunded", "FAILED")
    results = [a["result"] for t in job["mapTasks"] for a in t["attempts"]]
    assert results == ["FAILED"] * 4
    assert {t["taskStatus"] for t in job["mapTasks"]} == {"FAILED", "KILLED"}
    assert job["failedMapAttemptCDFs"][3]["numberValues"] == 4


def _binary_jhist(source: Path, target: Path) -> None:
    """A Hadoop-3-style binary .jhist: 'Avro-Binary', the schema from the source's line 2, schemaless records."""
    lines = source.read_text().splitlines()
    schema = json.loads(lines[1])
    records = list(fastavro.json_reader(io.StringIO("\n".join(l for l in lines[2:] if l.strip())), schema))
    parsed = fastavro.parse_schema(schema)
    with open(target, "wb") as fh:
        fh.write(b"Avro-Binary\n" + lines[1].encode() + b"\n")
        for record in records:
            fastavro.schemaless_writer(fh, parsed, record)


@pytest.mark.parametrize("source", [SLEEP10, FAILED_203], ids=["sleep", "failed"])
def test_binary_jhist_reads_the_same_as_json(source: Path, tmp_path: Path) -> None:
    binary = tmp_path / "job_binary.jhist"
    _binary_jhist(source, binary)
    assert binary.read_bytes().startswith(b"Avro-Binary\n")
    (from_json,), _ = _read(source)
    (from_binary,), _ = _read(binary)
    assert from_binary == from_json


def test_avro_container_file(tmp_path: Path) -> None:
    lines = SLEEP10.read_text().splitlines()
    schema = json.loads(lines[1])
    records = fastavro.json_reader(io.StringIO("\n".join(l for l in lines[2:] if l.strip())), schema)
    container = tmp_path / "events.avro"
    with open(container, "wb") as fh:
        fastavro.writer(fh, fastavro.parse_schema(schema), records)
    assert sniff(container.read_bytes()[:16], container.name)
    (job,), _ = _read(container)
    (expected,), _ = _read(SLEEP10)
    assert job == expected


def test_truncated_event_is_dropped_with_a_warning(tmp_path: Path) -> None:
    data = SLEEP10.read_bytes()
    cut = tmp_path / "job_1329348432655_0001-cut.jhist"
    cut.write_bytes(data[: data.rindex(b'{"type":"JOB_FINISHED"') + 40])
    (job,), warnings = _read(cut)
    assert job["finishTime"] == -1 and job["outcome"] is None
    assert any("job_1329348432655_0001" in w and "cut off" in w for w in warnings)


def test_bad_input_is_an_input_error_naming_file_and_line(tmp_path: Path) -> None:
    bad_header = tmp_path / "a.jhist"
    bad_header.write_text("Avro-Xml\n{}\n")
    with pytest.raises(InputError, match=r"a\.jhist: line 1"):
        list(iter_jhist_jobs(bad_header))
    lines = SLEEP10.read_text().splitlines(keepends=True)
    lines[5] = "{not json}\n"
    bad_event = tmp_path / "b.jhist"
    bad_event.write_text("".join(lines))
    with pytest.raises(InputError, match=r"b\.jhist: line 6: malformed event JSON"):
        list(iter_jhist_jobs(bad_event))


def test_directory_reads_every_jhist_in_name_order(tmp_path: Path) -> None:
    for path in sorted((JHIST / "mapreduce-client-hs").iterdir()):
        shutil.copy(path, tmp_path / path.name)
    jobs, _ = _read(tmp_path)
    assert [j["jobID"] for j in jobs] == [
        "job_1399356417814_19732", "job_1329348432655_0001", "job_1393307629410_0001",
        "job_1400206191003_0001", "job_1400204860297_0001",
    ]


def test_gzipped_and_cut_binary_jhist(tmp_path: Path) -> None:
    binary = tmp_path / "job_1329348432655_0001.jhist"
    _binary_jhist(SLEEP10, binary)
    data = binary.read_bytes()
    zipped = tmp_path / "zipped.jhist.gz"
    zipped.write_bytes(gzip.compress(data))
    (expected,), _ = _read(SLEEP10)
    assert _read(zipped)[0] == [expected]
    binary.write_bytes(data[:-30])  # cut inside the last event (JOB_FINISHED)
    (job,), warnings = _read(binary)
    assert job["finishTime"] == -1 and job["reduceTasks"][0]["taskStatus"] == "SUCCESS"
    assert any("job_1329348432655_0001" in w and "cut off" in w for w in warnings)
