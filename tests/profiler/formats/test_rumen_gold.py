"""Fidelity against Hadoop's own tools: our JobHistory reader versus Rumen's gold traces and topologies.

The gold files are the expected outputs of Hadoop unit tests (TestRumenJobTraces): TraceBuilder for the
dispatch and counters inputs, HadoopLogsAnalyzer for the sample and truncated logs. Trunk golds come from
hadoop-common 408b5b8b, branch-1 golds from Hadoop 1.x (where unsuccessful attempts have no hostName).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mrsim.profiler.jobhistory import iter_jobhistory_jobs
from mrsim.profiler.logged import FailedAttemptHost
from mrsim.profiler.rumen_writer import TopologyCollector, write_rumen_topology, write_rumen_trace
from tests.profiler.formats.gold import BRANCH1, TRUNK, all_tasks, load_json_stream, topology_hosts

LOGGED, NULL = FailedAttemptHost.LOGGED, FailedAttemptHost.NULL

# (log input, gold trace, attempt-host flavour, produced by TraceBuilder?)
PAIRS = [
    pytest.param(TRUNK / "dispatch-sample-v20-jt-log.gz", TRUNK / "dispatch-trace-output.json.gz", LOGGED, True, id="dispatch"),
    pytest.param(TRUNK / "sample-job-tracker-logs.gz", TRUNK / "job-tracker-logs-trace-output.gz", LOGGED, False, id="sample-hla"),
    pytest.param(TRUNK / "truncated-job-tracker-log", TRUNK / "truncated-trace-output", LOGGED, False, id="truncated-hla"),
    pytest.param(TRUNK / "counters-format-test-logs", TRUNK / "counters-test-trace.json.gz", LOGGED, True, id="counters"),
    pytest.param(BRANCH1 / "dispatch-sample-v20-jt-log.gz", BRANCH1 / "dispatch-trace-output.json.gz", NULL, True, id="b1-dispatch"),
    pytest.param(TRUNK / "counters-format-test-logs", BRANCH1 / "counters-test-trace.json.gz", NULL, True, id="b1-counters"),
]

JOB_TIMES = ("jobID", "submitTime", "launchTime", "finishTime", "totalMaps", "totalReduces", "outcome")
TASK_TIMES = ("taskID", "taskType", "taskStatus", "startTime", "finishTime")
ATTEMPT_TIMES = ("attemptID", "result", "startTime", "finishTime", "shuffleFinished", "sortFinished", "hostName")


def _read(path: Path, flavour: FailedAttemptHost) -> tuple[list[dict[str, Any]], list[str]]:
    warnings: list[str] = []
    return list(iter_jobhistory_jobs(path, warnings=warnings, failed_attempt_host=flavour)), warnings


def _project(jobs: list[dict[str, Any]]) -> list[Any]:
    """The fields the brief pins: timings, results, host names and task counts, in trace order."""
    out = []
    for job in jobs:
        tasks = []
        for key in ("mapTasks", "reduceTasks", "otherTasks"):
            tasks.append(len(job[key]))
            for task in job[key]:
                attempts = [tuple(a[k] for k in ATTEMPT_TIMES) for a in task["attempts"]]
                tasks.append((tuple(task[k] for k in TASK_TIMES), attempts))
        out.append((tuple(job[k] for k in JOB_TIMES), tasks))
    return out


@pytest.mark.parametrize(("log", "gold", "flavour", "tracebuilder"), PAIRS)
def test_timings_results_hosts_and_counts_equal_gold(log: Path, gold: Path, flavour, tracebuilder: bool) -> None:
    mine, _ = _read(log, flavour)
    expected = load_json_stream(gold)
    assert len(mine) == len(expected)
    assert _project(mine) == _project(expected)


def _deep_diff(mine: Any, gold: Any, path: str, out: list[str]) -> None:
    """Every key of the gold object must be present in ours with an equal value (extra keys allowed)."""
    if isinstance(gold, dict):
        for key, value in gold.items():
            if key in ("numberMaps", "numberReduces"):  # legacy keys, no longer in LoggedTask
                continue
            if not isinstance(mine, dict) or key not in mine:
                out.append(f"{path}.{key} missing")
            else:
                _deep_diff(mine[key], value, f"{path}.{key}", out)
    elif isinstance(gold, list):
        if not isinstance(mine, list) or len(mine) != len(gold):
            out.append(f"{path}: length differs")
        else:
            for i, (a, b) in enumerate(zip(mine, gold)):
                _deep_diff(a, b, f"{path}[{i}]", out)
    elif mine != gold:
        out.append(f"{path}: {mine!r} != {gold!r}")


@pytest.mark.parametrize(
    ("log", "gold", "flavour", "tracebuilder"), [p for p in PAIRS if p.values[3]]
)
def test_tracebuilder_golds_match_in_every_field(log: Path, gold: Path, flavour, tracebuilder: bool) -> None:
    """Counters, CDFs, locations, job names with escapes, queue, heap sizes, jobProperties: all of it."""
    mine, _ = _read(log, flavour)
    diffs: list[str] = []
    _deep_diff(mine, load_json_stream(gold), "", diffs)
    assert diffs == []


def test_hadooplogsanalyzer_gold_differs_only_where_that_tool_does() -> None:
    """HadoopLogsAnalyzer (-v1) never fills job names, task byte counts, map/reduce MB or reduce locations."""
    mine, _ = _read(TRUNK / "sample-job-tracker-logs.gz", LOGGED)
    gold = load_json_stream(TRUNK / "job-tracker-logs-trace-output.gz")
    assert [j["jobName"] for j in gold] == [None] * 4
    assert [j["jobName"] for j in mine] == [
        "PigLatin:DefaultJobName", None, "GridUptime", "daily\\.UK\\.web/split-by-bcookie/2009-04-20"
    ]
    for a, b in zip(mine, gold):
        assert a["heapMegabytes"] == b["heapMegabytes"]
        for ta, tb in zip(a["mapTasks"], b["mapTasks"]):
            assert ta["preferredLocations"] == tb["preferredLocations"]
            for aa, ab in zip(ta["attempts"], tb["attempts"]):
                assert aa["location"] == ab["location"]
                assert aa["hdfsBytesRead"] == ab["hdfsBytesRead"]
        assert all(t["inputBytes"] == -1 for t in b["mapTasks"])


def test_escapes_are_kept_as_rumen_keeps_them() -> None:
    jobs, _ = _read(TRUNK / "counters-format-test-logs", LOGGED)
    job = jobs[0]
    assert job["jobName"] == "[DOTS-PROD-job_name-DAILY/20100210] - data\\.transform"
    attempt = job["mapTasks"][0]["attempts"][0]
    assert attempt["hostName"] == "/76\\.13\\.186\\.64/node40488\\.gold\\.cloud\\.megacorp\\.com"
    assert attempt["location"] == {"layers": ["76\\.13\\.186\\.64", "node40488\\.gold\\.cloud\\.megacorp\\.com"]}


def test_truncated_log_is_tolerated_and_the_loss_reported_by_job() -> None:
    jobs, warnings = _read(TRUNK / "truncated-job-tracker-log", LOGGED)
    (job,) = jobs
    cut = next(t for t in job["mapTasks"] if t["taskID"] == "task_200904211745_0002_m_000010")
    assert cut["taskStatus"] is None and cut["finishTime"] == -1
    assert cut["attempts"][0]["finishTime"] == 1240336651127
    assert any("job_200904211745_0002" in w and "line 58" in w and "TASK_TY" in w for w in warnings)
    assert any("job_200904211745_0002" in w and "task_200904211745_0002_m_000010" in w for w in warnings)


@pytest.mark.parametrize(
    ("log", "gold"),
    [
        (TRUNK / "dispatch-sample-v20-jt-log.gz", TRUNK / "dispatch-topology-output.json.gz"),
        (TRUNK / "sample-job-tracker-logs.gz", TRUNK / "job-tracker-logs-topology-output"),
        (TRUNK / "truncated-job-tracker-log", TRUNK / "truncated-topology-output"),
    ],
    ids=["dispatch", "sample", "truncated"],
)
def test_topology_equals_gold(log: Path, gold: Path, tmp_path: Path) -> None:
    collector = TopologyCollector()
    for _ in collector.observe(iter_jobhistory_jobs(log, warnings=[])):
        pass
    out = tmp_path / "topology.json.gz"
    write_rumen_topology(collector.hosts, out)
    (written,) = load_json_stream(out)
    (expected,) = load_json_stream(gold)
    assert written["name"] == "<root>"
    assert topology_hosts(written) == topology_hosts(expected)
    assert all(h["children"] is None for r in written["children"] for h in r["children"])


def test_branch1_analyzer_topology_lacks_only_hosts_seen_on_reduce_attempts_alone() -> None:
    """Hadoop 1.x HadoopLogsAnalyzer left reduce attempts without a location, hence without a topology host."""
    jobs, _ = _read(TRUNK / "sample-job-tracker-logs.gz", LOGGED)
    collector = TopologyCollector()
    for job in jobs:
        collector.add_job(job)
    (gold,) = load_json_stream(BRANCH1 / "job-tracker-logs-topology-output")
    missing = collector.hosts - topology_hosts(gold)
    assert topology_hosts(gold) <= collector.hosts and len(missing) == 25
    elsewhere = {
        tuple(loc["layers"])
        for job in jobs
        for task in all_tasks(job)
        for loc in task["preferredLocations"]
        + [a["location"] for a in task["attempts"] if a["location"] and task["taskType"] != "REDUCE"]
    }
    assert missing.isdisjoint(elsewhere)


def test_written_trace_reads_back_identically(tmp_path: Path) -> None:
    jobs, _ = _read(TRUNK / "dispatch-sample-v20-jt-log.gz", LOGGED)
    for name, pretty in (("t.json", True), ("t.json.gz", False)):
        out = tmp_path / name
        assert write_rumen_trace(iter(jobs), out, pretty=pretty) == 4
        assert load_json_stream(out) == jobs
    assert (tmp_path / "t.json.gz").read_bytes()[:2] == b"\x1f\x8b"
