"""Numeric fields range-checked before they reach the engine's C types: flags, environment limits, a Fair
allocation file, a cluster file and Rumen traces. Each bad value is one error line naming the flag, file, job or
key; a trace behind 70 KB of leading whitespace is read, and looking past whitespace changes no real file's format.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from mrsim.cli import main
from mrsim.errors import InputError
from mrsim.io.compressed import open_binary
from mrsim.profiler.detect import Format, detect_format, read_head, sniff_format
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job
from tests.data import SHARED_DATA
from tests.profiler.store.helpers import assert_one_line_error, run_cli

REPO = Path(__file__).resolve().parents[2]


def read_all(path: Path) -> bytes:
    with open_binary(path) as fh:
        return fh.read()


@pytest.fixture(scope="module")
def jobs() -> list[dict]:
    return [template_to_logged_job(t) for t in facebook_like_workload(FacebookLikeSpec(jobs=2, seed=1))]


def _write(path: Path, jobs: list[dict], prefix: str = "") -> Path:
    path.write_text(prefix + "\n".join(json.dumps(j) for j in jobs))
    return path


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory, jobs: list[dict]) -> Path:
    return _write(tmp_path_factory.mktemp("t") / "t.json", jobs)


@pytest.mark.parametrize("args, needle", [
    (["--rack-local-slowdown", "1e308"], "--rack-local-slowdown: expected a number in (0, 1e+06], got 1e308"),
    (["--off-switch-slowdown", "0"], "--off-switch-slowdown: expected a number in (0, 1e+06]"),
    (["--heartbeat-interval", "5e-324"], "--heartbeat-interval must be in [0.001, 86400] seconds"),
    (["--cores", "-4"], "--cores: expected an integer in [1, 10,000]"),
    (["--racks", "0"], "--racks: expected an integer in [1, 1,000,000]"),
    (["--threshold", "bogus=0.5"], "--threshold 'bogus=0.5': unknown resource 'bogus'"),
    (["--limit", f"jobs={2**70}"], "at most 2**63-1"),
])
def test_flag_values_out_of_range_are_usage_errors(trace: Path, capsys: pytest.CaptureFixture[str],
                                                   args: list[str], needle: str) -> None:
    try:
        code = main(["replay", str(trace), *args])
    except SystemExit as exc:  # argparse's usage error
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and needle in err, err


def test_a_limit_from_the_environment_beyond_a_java_long(trace: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MRSIM_MAX_JOBS", str(2**70))
    code, out, err = run_cli(["replay", str(trace)], capsys)
    assert code == 2 and "MRSIM_MAX_JOBS" in err and "at most 2**63-1" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("old, new, needle", [
    ("<minMaps>4</minMaps>", "<minMaps>99999999999999999999</minMaps>", "<minMaps> 99999999999999999999 is out of"),
    ("<maxRunningJobs>3</maxRunningJobs>", "<maxRunningJobs>99999999999999999999</maxRunningJobs>",
     "<maxRunningJobs> 99999999999999999999 is out of range"),
    ("<userMaxJobsDefault>8", "<userMaxJobsDefault>99999999999999999999", "Java int"),
    ("<userMaxJobsDefault>8", "<userMaxJobsDefault>0", "<userMaxJobsDefault> 0 lets no job run"),
    ("<poolMaxJobsDefault>20", "<poolMaxJobsDefault>0", "<poolMaxJobsDefault> 0 lets no job run"),
])
def test_fair_allocation_counts_out_of_range(trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             old: str, new: str, needle: str) -> None:
    text = (REPO / "examples" / "fair-allocations.xml").read_text()
    assert text.count(old) == 1
    xml = tmp_path / "alloc.xml"
    xml.write_text(text.replace(old, new))
    code, out, err = run_cli(["replay", str(trace), "--scheduler", "fair", "--scheduler-config", str(xml)], capsys)
    assert_one_line_error(code, out, err, "alloc.xml:")
    assert needle in err


def _set_property(text: str, key: str, value: str) -> str:
    """``text`` (a Hadoop XML file) with ``key`` set to ``value``: its property replaced, or one added."""
    import re

    pattern = re.compile(r"(<name>%s</name>\s*<value>)[^<]*" % re.escape(key))
    if pattern.search(text):
        return pattern.sub(lambda m: m.group(1) + value, text, count=1)
    return text.replace("</configuration>", f"<property><name>{key}</name><value>{value}</value></property>\n"
                                            "</configuration>")


_MRV1 = "mapred.capacity-scheduler."
_YARN = "yarn.scheduler.capacity."
_YARN_CAPACITY = """<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>default</value></property>
<property><name>yarn.scheduler.capacity.root.default.capacity</name><value>100</value></property>
</configuration>
"""


@pytest.mark.parametrize("engine, key, value, needle", [
    ("mr1", _MRV1 + "maximum-tasks-after-offswitch", "99999999999999999999",
     "maximum-tasks-after-offswitch: 99999999999999999999 is out of range (a Java int: at most 2,147,483,647)"),
    ("mr1", _MRV1 + "maximum-tasks-per-heartbeat", "99999999999999999999",
     "maximum-tasks-per-heartbeat: 99999999999999999999 is out of range (a Java int"),
    ("mr1", _MRV1 + "default-user-limit-factor", "1e308",
     "default-user-limit-factor: 1e+308 is out of range (a Java float: at most 3.402823e+38)"),
    ("mr1", _MRV1 + "queue.research.user-limit-factor", "1e308",
     "queue.research.user-limit-factor: 1e+308 is out of range (a Java float"),
    ("yarn", _YARN + "root.default.user-limit-factor", "1e308",
     "root.default.user-limit-factor = 1e+308 is out of range (a Java float: at most 3.402823e+38)"),
    ("yarn", _YARN + "maximum-applications", "99999999999999999999",
     "maximum-applications = 1e+20 is out of range (a Java int: at most 2,147,483,647)"),
    ("yarn", _YARN + "root.default.maximum-applications", "1e308", "maximum-applications = 1e+308 is out of range"),
    ("yarn", _YARN + "node-locality-delay", "1e308", "node-locality-delay = 1e+308 is out of range"),
])
def test_capacity_values_out_of_range(trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      engine: str, key: str, value: str, needle: str) -> None:
    base = (REPO / "examples" / "capacity-scheduler.xml").read_text() if engine == "mr1" else _YARN_CAPACITY
    xml = tmp_path / "capacity.xml"
    xml.write_text(_set_property(base, key, value))
    code, out, err = run_cli(["replay", str(trace), "--engine", engine, "--scheduler", "capacity",
                              "--scheduler-config", str(xml), "--no-cache"], capsys)
    assert_one_line_error(code, out, err, "capacity.xml:")
    assert needle in err


@pytest.mark.parametrize("body, needle", [
    ('[defaults]\nmap_slots = 1000000\nreduce_slots = 2\n[[racks]]\nname = "/r"\ncount = 2\n',
     "map_slots must be a non-negative integer at most 10,000, got 1000000"),
    ('[[racks]]\nname = "/r"\ncount = 2\nspeed = 1e-300\n', "speed must be a number in [1e-06, 1e+06], got 1e-300"),
])
def test_cluster_file_values_out_of_range(trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          body: str, needle: str) -> None:
    (tmp_path / "c.toml").write_text(body)
    code, out, err = run_cli(["replay", str(trace), "--cluster", str(tmp_path / "c.toml")], capsys)
    assert_one_line_error(code, out, err, "c.toml: racks[0]:")
    assert needle in err


@pytest.mark.parametrize("edit, needle", [
    (lambda j: j[0]["mapTasks"][0]["attempts"][0].update(startTime=1e308), "field 'startTime' must be a time"),
    (lambda j: j[0]["mapTasks"][0]["attempts"][0].update(startTime=-1e308), "field 'startTime' must be a time"),
    (lambda j: j[0]["mapTasks"][0]["attempts"][0].update(finishTime=2**70), "field 'finishTime' must be a time"),
    (lambda j: j[0].update(jobID=12345), "field 'jobID' must be a job id string, got 12345"),
    (lambda j: j[0].update(submitTime="abc"), "field 'submitTime' must be a time in ms (a number), got 'abc'"),
])
def test_rumen_fields_of_the_wrong_type_or_range(jobs: list[dict], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str], edit, needle: str) -> None:
    changed = copy.deepcopy(jobs)
    edit(changed)
    path = _write(tmp_path / "bad.json", changed)
    code, out, err = run_cli(["replay", str(path), "--no-cache"], capsys)
    assert_one_line_error(code, out, err, "bad.json")
    assert needle in err


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_a_trace_after_70_kb_of_leading_whitespace_is_read(jobs: list[dict], trace: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    padded = tmp_path / f"padded{suffix}"
    body = (" \n\t" * 24_000 + "\n".join(json.dumps(j) for j in jobs)).encode()
    padded.write_bytes(gzip.compress(body) if suffix.endswith(".gz") else body)
    code, plain, err = run_cli(["replay", str(trace), "--json", "--no-cache"], capsys)
    assert code == 0, err
    code, got, err = run_cli(["replay", str(padded), "--json", "--no-cache"], capsys)
    assert code == 0, err
    a, b = json.loads(plain), json.loads(got)
    assert a["jobs"] == b["jobs"] and a["summary"]["makespan_s"] == b["summary"]["makespan_s"]


@pytest.mark.parametrize("content, needle", [
    (b" \n" * 40_000, "holds only whitespace"),
    (b"\n", "holds only whitespace"),
    (b"", "is empty"),
])
def test_whitespace_without_a_trace_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                content: bytes, needle: str) -> None:
    path = tmp_path / "blank.json"
    path.write_bytes(content)
    code, out, err = run_cli(["replay", str(path), "--no-cache"], capsys)
    assert_one_line_error(code, out, err, f"blank.json: {needle}")


def test_looking_past_whitespace_leaves_every_real_file_s_format(tmp_path: Path) -> None:
    """Every file and directory of the shared data is detected as the head it starts with says; padded with 70 KB
    of whitespace, the JSON formats keep their format (a JobHistory bundle starts with a form feed, which is not
    skipped: that is what the sniff reads)."""
    if not SHARED_DATA.is_dir():
        pytest.skip("shared data absent")
    data = SHARED_DATA
    checked = 0
    for path in sorted(data.rglob("*")):
        if path.name == "MANIFEST.txt" or path.name.startswith("."):
            continue
        try:
            expected: object = sniff_format(read_head(path), path.name) if path.is_file() else None
            got: object = detect_format(path)
        except InputError as exc:
            got = "error"
            assert "whitespace" not in str(exc), exc
        if path.is_file():
            assert got == (expected or "error"), path
            checked += 1
        if got in (Format.RUMEN, Format.SLS) and path.is_file() and checked % 5 == 0:
            padded = tmp_path / path.name
            padded.write_bytes(gzip.compress(b" \n" * 36_000 + read_all(path)))
            assert detect_format(padded) is got, path
    assert checked > 80
