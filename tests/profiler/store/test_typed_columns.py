"""The typed decoder of plain Rumen jobs (``mrsim.profiler.typed``) gives what ``orjson`` and the plain walk give.

Oracle: ``orjson.loads`` of the same bytes and :func:`mrsim.profiler.plain.plain_job` of that dict (the path every job
took before). A job the typed decoder takes must give the same job-level fields (same keys, same values) and the same
columns; a job that is not plain or not in its closed schema must be left to the old path (None); and on inputs that
``orjson`` refuses or reads otherwise the reader's jobs and the pass's results and errors must not change (the
reader and ``_read`` with the typed decoder turned off are the reference), nor through the forked reader.
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
from pathlib import Path

import orjson
import pytest

from mrsim.errors import InputError
from mrsim.profiler import rumen
from mrsim.profiler.plain import plain_job
from mrsim.profiler.typed import TypedJob, full_job, typed_job
from tests.data import SHARED_DATA
from tests.profiler.store.test_plain_columns import NOT_PLAIN, T0, _job

_LISTS = ("maps", "reduces", "attempts", "cached")  # the objects (dicts or structs): compared through the columns


def _plain_job_without_locations(n: int = 1) -> dict:
    job = _job(n)
    job["mapTasks"][0]["preferredLocations"] = []
    del job["mapTasks"][2]["attempts"][0]["location"]
    return job


def _same_as_the_walk(piece: bytes) -> None:
    """``typed_job(piece)`` takes the job and gives what orjson + ``plain_job`` give."""
    typed = typed_job(piece)
    reference = orjson.loads(piece)
    assert typed is not None
    assert typed.full() == reference and full_job(typed) == reference
    assert sorted(typed) == sorted(reference)  # the same keys (in the schema's order: nothing reads them in order)
    for key, value in reference.items():
        if key not in ("mapTasks", "reduceTasks"):
            assert typed[key] == value and type(typed[key]) is type(value), key
        else:
            assert len(typed[key]) == len(value)
    walked = plain_job(reference)
    assert walked is not None
    _same_columns(typed, walked, reference)


def _same_columns(typed: TypedJob, walked, reference: dict) -> None:
    """The typed job's columns are the walk's: every field but the object lists equal, and of those lists what the
    readers read (split locations of the tasks, ``location`` and ``hostName`` of the attempts) equal too."""
    mine = typed.columns
    for f in dataclasses.fields(walked):
        if f.name not in _LISTS:
            assert getattr(mine, f.name) == getattr(walked, f.name), f.name
    for a, b in zip(mine.arrays(), walked.arrays()):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    assert len(mine.maps) == len(walked.maps) and len(mine.reduces) == len(walked.reduces)
    if walked.any_locations:  # read from the columns' maps and from the job's task lists
        for key, tasks in (("mapTasks", mine.maps), ("reduceTasks", mine.reduces)):
            assert typed[key] is tasks
            assert [t.get("preferredLocations") for t in tasks] == \
                [t.get("preferredLocations") for t in reference[key]], key
    if walked.any_attempt_location:
        assert len(mine.attempts) == len(walked.attempts)
        for a, b in zip(mine.attempts, walked.attempts):
            assert ("location" in a) == ("location" in b)
            assert a.get("location") == b.get("location") and a.get("hostName") == b.get("hostName")


def test_hand_made_plain_job_gives_the_walks_columns():
    _same_as_the_walk(orjson.dumps(_plain_job_without_locations()))


@pytest.mark.parametrize("change", [
    lambda j: j["reduceTasks"][0]["attempts"][0].update(shuffleFinished=None),
    lambda j: j["reduceTasks"][0]["attempts"][0].pop("sortFinished"),
    lambda j: j["mapTasks"][1].update(taskType=None),
    lambda j: j["mapTasks"][1].update(preferredLocations=None),
    lambda j: j.update(reduceTasks=[]),
    lambda j: j.update(mapTasks=[]),
    lambda j: j["mapTasks"][0]["attempts"][0].update(attemptID=""),
    lambda j: j.update(directDependantJobs=[], failedMapperFraction=0.5, jobProperties={"x": [1, 2.5, None]}),
    lambda j: j["mapTasks"][0]["attempts"][0].update(hdfsBytesRead=12, clockSplits=[1, 2], mapInputBytes=None),
    lambda j: j["mapTasks"][0]["attempts"][0].update(finishTime=j["mapTasks"][0]["attempts"][0]["startTime"]),
], ids=["shuffle null", "sort absent", "task type null", "locations null", "only maps", "only reduces",
        "empty attempt id", "more job fields", "more attempt fields", "zero-length attempt"])
def test_plain_variants_give_the_walks_columns(change):
    job = _plain_job_without_locations(3)
    change(job)
    _same_as_the_walk(orjson.dumps(job))


#: Location objects (Rumen's ``LoggedLocation``) the located schema refuses: another key, null or non-string layers
MALFORMED_LOCATIONS = {
    "another key": {"layers": ["r", "h"], "rack": "r"},
    "layers null": {"layers": None},
    "layers a string": {"layers": "/r/h"},
    "a layer not a string": {"layers": ["r", 7]},
    "a number": 5,
    "a list": [["r", "h"]],
}

#: Jobs the typed decoder leaves to the old path: every job that is not plain, and these
LEFT_TO_THE_OLD_PATH = {
    **NOT_PLAIN,
    "empty host": lambda j: j["mapTasks"][0]["attempts"][0].update(hostName=""),
    "shuffle out of range": lambda j: j["reduceTasks"][0]["attempts"][0].update(shuffleFinished=10**14),
    "no reduce list": lambda j: j.pop("reduceTasks"),
    "empty job id": lambda j: j.update(jobID=""),
    "no job id": lambda j: j.pop("jobID"),
    # plain, but a location the located schema does not take (the walk accepts any list; the readers skip or
    # stringify what is not a list of names): read from the dicts
    **{f"malformed split location: {name}": (lambda value: lambda j: j["mapTasks"][0].update(
        preferredLocations=[value]))(value) for name, value in MALFORMED_LOCATIONS.items()},
    **{f"malformed attempt location: {name}": (lambda value: lambda j: j["mapTasks"][0]["attempts"][0].update(
        location=value))(value) for name, value in MALFORMED_LOCATIONS.items()},
    "split locations not a list of objects": lambda j: j["mapTasks"][0].update(preferredLocations=["r/h"]),
    # outside the closed schema, or a long integer where orjson and the standard library differ
    "unknown job field": lambda j: j.update(extra={"nested": [1]}),
    "unknown task field": lambda j: j["mapTasks"][0].update(counters={"a": 1}),
    "unknown attempt field": lambda j: j["mapTasks"][0]["attempts"][0].update(counters={"a": 1}),
    "unknown usage field": lambda j: j["mapTasks"][0]["attempts"][0].update(resourceUsageMetrics={"gpu": 1}),
    "19-digit count": lambda j: j["mapTasks"][0]["attempts"][0].update(hdfsBytesRead=10**18),
    "19-digit usage count": lambda j: j["mapTasks"][0]["attempts"][0].update(
        resourceUsageMetrics={"heapUsage": 10**18}),
    "float count": lambda j: j["mapTasks"][0]["attempts"][0].update(hdfsBytesRead=1.5),
    "5000-digit job field": lambda j: j.update(totalMaps="<5000 digits>"),
}


@pytest.mark.parametrize("change", list(LEFT_TO_THE_OLD_PATH.values()), ids=list(LEFT_TO_THE_OLD_PATH))
def test_jobs_the_typed_decoder_leaves_to_the_old_path(change):
    job = _plain_job_without_locations(5)
    change(job)
    assert typed_job(orjson.dumps(job).replace(b'"<5000 digits>"', b"9" * 5000)) is None


#: Plain jobs as Rumen's TraceBuilder writes them: split locations on maps, a ``location`` on every attempt (null
#: when the host is not in the topology), empty CDFs bounded by Long.MAX_VALUE and Long.MIN_VALUE
REAL_SHAPED = {
    "hand-made (split and attempt locations)": lambda j: None,
    "every attempt a location": lambda j: [t["attempts"][0].setdefault("location", None)
                                           for key in ("mapTasks", "reduceTasks") for t in j[key]],
    "every attempt a null location": lambda j: [t["attempts"][0].update(location=None)
                                                for key in ("mapTasks", "reduceTasks") for t in j[key]],
    "only attempt locations": lambda j: [t.update(preferredLocations=[]) for t in j["mapTasks"]],
    "only split locations": lambda j: j["mapTasks"][2]["attempts"][0].pop("location"),
    "split locations on a reduce": lambda j: j["reduceTasks"][1].update(preferredLocations=[{"layers": ["r", "h"]}]),
    "null and absent split locations": lambda j: (j["mapTasks"][1].update(preferredLocations=None),
                                                  j["mapTasks"][2].pop("preferredLocations")),
    "one layer, no layer, empty location": lambda j: (
        j["mapTasks"][0]["preferredLocations"].extend([{"layers": ["only"]}, {"layers": []}, {}]),
        j["mapTasks"][1]["attempts"][0].update(location={"layers": ["r"]})),
    "three layers, non-ASCII names": lambda j: (
        j["mapTasks"][0]["preferredLocations"].append({"layers": ["dc", "r\u00e9", "h\u00f6st"]}),
        j["reduceTasks"][0]["attempts"][0].update(location={"layers": ["/r\u00e9", "h\u00f6st.example.com"]})),
    "resource usage": lambda j: j["mapTasks"][0]["attempts"][0].update(resourceUsageMetrics={
        "cumulativeCpuUsage": 1230, "virtualMemoryUsage": 10**17, "physicalMemoryUsage": 2, "heapUsage": None}),
    "CDF bounds of 19 digits": lambda j: j.update(
        successfulMapAttemptCDFs=[{"maximum": 2**63 - 1, "minimum": -(2**63), "rankings": [], "numberValues": 0}],
        failedReduceAttemptCDF={"maximum": 2**63 - 1, "minimum": -(2**63), "rankings": [], "numberValues": 0}),
    "20- and 25-digit job values": lambda j: j.update(totalMaps=10**19, jobProperties={"big": "<25 digits>"}),
}


def _same_as_the_strict_walk(piece: bytes) -> TypedJob:
    """``typed_job(piece)`` takes the job and gives every value of the reader without the typed decoder (the
    standard library's strict decoder: what the reader uses for a job holding a run of 19 digits, and what orjson
    gives for any other) and the walk's columns."""
    import json

    reference = json.loads(piece)
    typed = typed_job(piece)
    assert typed is not None
    assert typed.full() == reference
    for key, value in reference.items():
        if key not in ("mapTasks", "reduceTasks"):
            assert typed[key] == value and type(typed[key]) is type(value), key
    walked = plain_job(reference)
    assert walked is not None
    _same_columns(typed, walked, reference)
    return typed


@pytest.mark.parametrize("change", list(REAL_SHAPED.values()), ids=list(REAL_SHAPED))
def test_real_shaped_jobs_give_the_walks_columns(change):
    """A plain job with locations takes the typed path, with the walk's columns and the reader's values."""
    job = _job(4)
    change(job)
    long_value = b"1234567890123456789012345"
    typed = _same_as_the_strict_walk(orjson.dumps(job).replace(b'"<25 digits>"', long_value))
    assert typed.columns.any_locations or typed.columns.any_attempt_location
    if "totalMaps" in job and job["totalMaps"] == 10**19:
        assert type(typed["totalMaps"]) is int and typed["jobProperties"]["big"] == int(long_value)


def test_a_repeated_layers_key_gives_the_last_one():
    piece = orjson.dumps(_job(4))
    assert b'{"layers":["rack9","host7"]}' in piece
    typed = _same_as_the_strict_walk(piece.replace(b'{"layers":["rack9","host7"]}',
                                                   b'{"layers":["x","y"],"layers":["rack9","host7"]}'))
    assert typed.columns.maps[0]["preferredLocations"] == [{"layers": ["rack9", "host7"]}]


def test_synthetic_trace_is_read_typed(tmp_path: Path):
    from mrsim.cli import main as cli

    trace = tmp_path / "s.json.gz"
    cli(["synth", "--jobs", "25", "--seed", "3", "-o", str(trace), "--quiet"])
    typed = list(rumen.iter_rumen_jobs(trace, typed=True))
    assert all(type(job) is TypedJob for job in typed)
    assert [job.full() for job in typed] == list(rumen.iter_rumen_jobs(trace))
    for job in typed:
        _same_as_the_walk(job.piece)


#: What orjson refuses or reads otherwise, in a field of a task (one outside the schema, or an escaped key it names):
#: every job must be the one the reader without the typed decoder gives (orjson's or, from the first object orjson
#: refuses, the strict decoder's), and so must every result of the pass.
OTHERWISE = {
    "non-ASCII in a task field": ("taskStatus", '"SUCC\u00c9SS"'),
    "invalid UTF-8 in a task field": ("taskStatus", b'"\xff\xfe"'),
    "escaped lone surrogate in a task field": ("taskStatus", '"\\ud800"'),
    "escaped surrogate pair in a task field": ("taskStatus", '"\\ud83d\\ude00"'),
    "escaped character in a key's name": ("start\\u0054ime", "5"),
    "1e400 in a task field": ("inputBytes", "1e400"),
    "1E+309 in a task field": ("inputBytes", "1E+309"),
    "25-digit integer in a task field": ("inputBytes", "1234567890123456789012345"),
    "5000-digit integer in a task field": ("inputBytes", "9" * 5000),
    "NaN in a task field": ("inputBytes", "NaN"),
    "nesting 500 deep in a task field": ("counters", "[" * 500 + "]" * 500),
    "nesting 1100 deep in a task field": ("counters", "[" * 1100 + "]" * 1100),
}


def _trace_with(tmp_path: Path, key: str, value: str | bytes, gz: bool) -> Path:
    job = orjson.dumps(_plain_job_without_locations(7))
    marker = b'"taskID":"task_m_1"'
    assert marker in job
    raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    data = orjson.dumps(_plain_job_without_locations(6)) + b"\n" + \
        job.replace(marker, marker + b',"' + key.encode() + b'":' + raw) + b"\n"
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _outcome(read, path: Path):
    try:
        return ("ok", [full_job(job) for job in read(path)])
    except InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("name", sorted(OTHERWISE))
def test_what_orjson_reads_otherwise_changes_nothing(tmp_path: Path, monkeypatch, name: str, gz: bool):
    path = _trace_with(tmp_path, *OTHERWISE[name], gz=gz)
    assert _outcome(lambda p: rumen.iter_rumen_jobs(p, typed=True), path) == \
        _outcome(lambda p: rumen.iter_rumen_jobs(p), path)
    assert _pass(path, monkeypatch, typed=True) == _pass(path, monkeypatch, typed=False)


def _pass(path: Path, monkeypatch, typed: bool):
    """``_read``'s result (every field read) or its error, with the typed decoder on or off."""
    from mrsim.profiler.ingest import _read
    from mrsim.profiler.detect import Format
    import mrsim.profiler.typed as typed_module

    with monkeypatch.context() as m:
        if not typed:
            m.setattr(typed_module, "typed_job", lambda *args: None)
        try:
            result = _read(path, Format.RUMEN)
        except InputError as exc:
            return ("error", str(exc))
        return ("ok", repr({f.name: getattr(result, f.name) for f in dataclasses.fields(result)
                            if f.name != "cache"}))


@pytest.mark.parametrize("change", [
    lambda j: j.update(submitTime="soon"),
    lambda j: j.update(submitTime=None, launchTime=None),
    lambda j: j.update(jobProperties=["not", "a", "dict"]),
    lambda j: j.update(otherTasks="setup"),
    lambda j: j.update(otherTasks=[{"taskType": "SETUP", "startTime": "x", "attempts": 3}]),
    lambda j: j.update(finishTime=T0 - 10**9),
    lambda j: j.update(outcome="KILLED"),
    lambda j: j.update(jobMapMB="lots"),
], ids=["submit time not a number", "no submit time", "properties not an object", "other tasks not a list",
        "bad setup task", "finish before submit", "killed", "map MB not a number"])
def test_the_pass_gives_the_same_results_and_errors(tmp_path: Path, monkeypatch, change):
    jobs = [_plain_job_without_locations(1), _plain_job_without_locations(2), _plain_job_without_locations(2)]
    change(jobs[1])
    jobs[2] = copy.deepcopy(jobs[1])  # a repeated id: the profiler skips it, the slot usage reads its task dicts
    path = tmp_path / "t.json"
    path.write_bytes(b"\n".join(orjson.dumps(j) for j in jobs))
    assert _pass(path, monkeypatch, typed=True) == _pass(path, monkeypatch, typed=False)


def _forked_outcome(path: Path):
    from mrsim.profiler.rumen_worker import iter_rumen_jobs_forked

    try:
        jobs = list(iter_rumen_jobs_forked(path))
    except InputError as exc:
        return ("error", str(exc)), []
    return ("ok", [full_job(job) for job in jobs]), jobs


@pytest.mark.parametrize("damage", ["none", "truncated", "not an object", "corrupt gzip", "1e400"])
def test_the_forked_reader_gives_the_readers_jobs_and_errors(tmp_path: Path, damage: str):
    from mrsim.cli import main as cli

    trace = tmp_path / "s.json.gz"
    cli(["synth", "--jobs", "40", "--seed", "5", "-o", str(trace), "--quiet"])
    data = gzip.decompress(trace.read_bytes())
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "not an object":
        data += b"\n[1, 2]\n"
    elif damage == "1e400":
        data = data.replace(b'"taskStatus":"SUCCESS"', b'"taskStatus":"SUCCESS","inputBytes":1e400', 3)
    packed = gzip.compress(data)
    if damage == "corrupt gzip":
        packed = packed[: len(packed) // 2] + bytes([packed[len(packed) // 2] ^ 0xFF]) + packed[len(packed) // 2 + 1:]
    trace.write_bytes(packed)
    outcome, jobs = _forked_outcome(trace)
    assert outcome == _outcome(lambda p: rumen.iter_rumen_jobs(p), trace)
    in_process = list(rumen.iter_rumen_jobs(trace, typed=True)) if outcome[0] == "ok" else []
    for mine, theirs in zip(jobs, in_process):  # the columns came through the pipe whole
        assert type(mine) is type(theirs)
        if type(mine) is TypedJob:
            for f in dataclasses.fields(mine.columns):
                if f.name not in _LISTS:
                    assert getattr(mine.columns, f.name) == getattr(theirs.columns, f.name), f.name
            assert [len(mine[k]) for k in ("mapTasks", "reduceTasks")] == [len(theirs[k]) for k in ("mapTasks",
                                                                                                   "reduceTasks")]


def test_the_forked_reader_stops_its_child_when_left_early(tmp_path: Path):
    import os

    from mrsim.cli import main as cli
    from mrsim.profiler.rumen_worker import iter_rumen_jobs_forked

    trace = tmp_path / "s.json.gz"
    cli(["synth", "--jobs", "200", "--seed", "5", "-o", str(trace), "--quiet"])
    jobs = iter_rumen_jobs_forked(trace)
    next(jobs)
    jobs.close()  # kills and reaps the child: no zombie left behind
    try:
        assert os.waitpid(-1, os.WNOHANG) == (0, 0)  # (0, 0): only children of other tests, still running
    except ChildProcessError:  # no child at all
        pass


def test_the_forked_reader_is_used_only_where_it_can_help(tmp_path: Path, monkeypatch):
    from mrsim.profiler import rumen_worker
    from mrsim.io import forking

    big, small = tmp_path / "big.json", tmp_path / "small.json"
    big.write_bytes(b" " * rumen_worker.MIN_BYTES)
    small.write_bytes(b"{}")
    monkeypatch.delenv("MRSIM_INGEST_WORKER", raising=False)
    monkeypatch.setattr(forking.sys, "platform", "linux")
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(rumen_worker.os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    assert rumen_worker.worker_wanted(big) and not rumen_worker.worker_wanted(small)
    for name, value in (("getloadavg", lambda: (2.0, 1.0, 1.0)), ("sched_getaffinity", lambda pid: {0})):
        with monkeypatch.context() as m:
            m.setattr(rumen_worker.os, name, value)
            assert not rumen_worker.worker_wanted(big), name
    with monkeypatch.context() as m:
        m.setattr(forking.threading, "active_count", lambda: 2)  # forking a process with threads: never
        assert not rumen_worker.worker_wanted(big)
    with monkeypatch.context() as m:
        m.setattr(forking.sys, "platform", "darwin")
        assert not rumen_worker.worker_wanted(big)
    monkeypatch.setenv("MRSIM_INGEST_WORKER", "0")
    assert not rumen_worker.worker_wanted(big)


def test_the_forked_pass_gives_the_same_result_with_repeated_job_ids(tmp_path: Path, monkeypatch):
    """A repeated job id sends the job whole to the slot usage's general path: the forked reader sends such jobs
    with their bytes (and reading them again from the input would give the same)."""
    from mrsim.cli import main as cli

    trace = tmp_path / "s.json.gz"
    cli(["synth", "--jobs", "30", "--seed", "4", "-o", str(trace), "--quiet"])
    lines = gzip.decompress(trace.read_bytes()).splitlines()
    renamed = lines[2].replace(b'"jobID":"job_', b'"jobID":"job_', 1)
    first_id = orjson.loads(lines[1])["jobID"]
    literal = orjson.loads(lines[3])
    literal["jobID"] = f"{first_id}#2"  # the id the second occurrence of lines[1]'s job is renamed to
    data = b"\n".join([*lines, lines[1], renamed, orjson.dumps(literal), lines[5]]) + b"\n"
    trace.write_bytes(gzip.compress(data))

    assert _pass_forked(trace, monkeypatch, True) == _pass_forked(trace, monkeypatch, False)
    from mrsim.profiler.rumen_worker import iter_rumen_jobs_forked

    jobs = list(iter_rumen_jobs_forked(trace, share=False))  # every piece decoded by the child
    kept = [job["jobID"] for job in jobs if type(job) is TypedJob and job.piece is not None]
    assert kept == [first_id, orjson.loads(renamed)["jobID"], f"{first_id}#2", orjson.loads(lines[5])["jobID"]]
    assert all(full_job(job) == orjson.loads(line) for job, line in zip(jobs, data.splitlines()))


def _located_trace(tmp_path: Path, jobs: list[dict], gz: bool = True) -> Path:
    path = tmp_path / ("located.json.gz" if gz else "located.json")
    data = b"\n".join(orjson.dumps(job) for job in jobs) + b"\n"
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _real_shaped_jobs() -> list[dict]:
    jobs = []
    for i, change in enumerate(REAL_SHAPED.values()):
        job = _job(10 + i)
        change(job)
        jobs.append(job)
    return jobs


def test_the_pass_over_real_shaped_jobs_is_the_same_typed_or_not(tmp_path: Path, monkeypatch):
    jobs = _real_shaped_jobs()
    jobs.append(_plain_job_without_locations(40))  # the lean schema's jobs between them
    jobs.append(copy.deepcopy(jobs[0]))  # a repeated id: the slot usage reads its task dicts (full())
    path = _located_trace(tmp_path, jobs)
    assert sum(type(job) is TypedJob for job in rumen.iter_rumen_jobs(path, typed=True)) == len(jobs)
    assert _pass(path, monkeypatch, typed=True) == _pass(path, monkeypatch, typed=False)


@pytest.mark.parametrize("where", ["split", "attempt"])
@pytest.mark.parametrize("name", sorted(MALFORMED_LOCATIONS))
def test_a_malformed_location_gives_the_old_paths_result_or_error(tmp_path: Path, monkeypatch, name: str,
                                                                  where: str):
    """A location the located schema refuses sends its job to the dicts: the pass gives what it gave before (these
    the readers skip or stringify; a ``layers`` that is not a list is the one-line error, the next test)."""
    jobs = [_job(1), _job(2), _job(3)]
    value = MALFORMED_LOCATIONS[name]
    if where == "split":
        jobs[1]["mapTasks"][1]["preferredLocations"] = [value]
    else:
        jobs[1]["mapTasks"][1]["attempts"][0]["location"] = value
    path = _located_trace(tmp_path, jobs, gz=False)
    read = list(rumen.iter_rumen_jobs(path, typed=True))
    assert [type(job) is TypedJob for job in read] == [True, False, True]
    assert _pass(path, monkeypatch, typed=True) == _pass(path, monkeypatch, typed=False)


def test_split_layers_not_a_list_is_the_old_one_line_error(tmp_path: Path, monkeypatch):
    jobs = [_job(1), _job(2)]
    jobs[1]["mapTasks"][0]["preferredLocations"] = [{"layers": 5}]
    path = _located_trace(tmp_path, jobs)
    outcome = _pass(path, monkeypatch, typed=True)
    assert outcome == _pass(path, monkeypatch, typed=False)
    assert outcome[0] == "error" and "preferredLocations.layers" in outcome[1] and "\n" not in outcome[1]


def test_the_forked_reader_sends_the_locations(tmp_path: Path, monkeypatch):
    """Pickled through the forked reader's pipe, a located job keeps what the readers read of its locations, and
    the pass gives the same result forked or not."""

    jobs = _real_shaped_jobs()
    path = _located_trace(tmp_path, jobs)
    in_process = list(rumen.iter_rumen_jobs(path, typed=True))
    outcome, forked = _forked_outcome(path)
    assert outcome == ("ok", [full_job(job) for job in in_process])
    for job, mine in zip(jobs, forked):
        assert type(mine) is TypedJob
        reference = orjson.loads(orjson.dumps(job))
        _same_columns(mine, plain_job(reference), reference)

    assert _pass_forked(path, monkeypatch, True) == _pass_forked(path, monkeypatch, False)


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="shared/data not present")
def test_real_traces_plain_jobs_take_the_typed_path(monkeypatch):
    """Every plain job of Rumen's real traces (TraceBuilder's: split locations, attempt locations, 19-digit CDF
    bounds) takes the typed path, with the values and columns of the reader without it; the pass is the same."""
    import json

    checked = 0
    for name in ("gridmix-system-branch-1/trace_1m.json.gz", "gridmix-system-branch-1/3m_stream_trace.json.gz",
                 "rumen-branch-1/small-trace-test/goldFoldedTrace.json.gz",
                 "rumen/small-trace-test/dispatch-trace-output.json.gz", "sls/main-data/2jobs2min-rumen-jh.json"):
        path = SHARED_DATA / name
        if not path.exists():
            continue
        typed, reference = list(rumen.iter_rumen_jobs(path, typed=True)), list(rumen.iter_rumen_jobs(path))
        assert [full_job(job) for job in typed] == reference
        for job, ref in zip(typed, reference):
            walked = plain_job(ref)
            assert (type(job) is TypedJob) == (walked is not None), name
            if walked is not None:
                assert json.loads(bytes(job.piece)) == ref
                _same_columns(job, walked, ref)
                checked += 1
        assert _pass(path, monkeypatch, typed=True) == _pass(path, monkeypatch, typed=False), name
    assert checked > 0


def test_deep_job_values_beside_a_19_digit_run_give_the_strict_readers_outcome(tmp_path: Path):
    """A job holding a run of 19 digits is the strict decoder's (the reader hands it over), which refuses nesting by
    the recursion budget ``msgspec`` spends too, from another depth of the stack: at every depth around the limit
    the typed reader gives the jobs or the error the reader without it gives (a deep job goes to the old path)."""
    import sys

    def depth(value: object) -> int:  # iteratively: comparing such values would recurse too deep
        levels = 0
        while type(value) is list:
            levels += 1
            value = value[0] if value else None
        return levels

    def outcome(typed: bool, path: Path):
        try:
            jobs = list(rumen.iter_rumen_jobs(path, typed=typed))
        except InputError as exc:
            return ("error", str(exc))
        return ("ok", [(job["jobID"], depth(job.get("directDependantJobs")), job.get("failedReduceAttemptCDF"))
                       for job in jobs])

    limit = sys.getrecursionlimit()
    for levels in range(limit - 100, limit + 30):
        job = _job(1)
        job["failedReduceAttemptCDF"] = {"maximum": 2**63 - 1, "minimum": -(2**63)}
        job["directDependantJobs"] = "<deep>"
        data = orjson.dumps(job).replace(b'"<deep>"', b"[" * levels + b"]" * levels)
        path = tmp_path / "deep.json"
        path.write_bytes(data + b"\n" + orjson.dumps(_job(2)) + b"\n")
        assert outcome(True, path) == outcome(False, path), levels


@pytest.mark.parametrize("ids", [None, "newline", "empty"])
def test_a_typed_job_pickles_with_its_attempt_ids(ids: str | None):
    """The forked reader's pickle (TypedJob.__reduce__) joins the attempt ids into one string unless an id holds a
    newline; either way the ids come back as they were, and so do the other columns."""
    import pickle

    job = _plain_job_without_locations()
    if ids == "newline":
        job["mapTasks"][0]["attempts"][0]["attemptID"] = "attempt_x\n_m_000000_0"
    elif ids == "empty":
        job["mapTasks"][0]["attempts"][0]["attemptID"] = ""
    typed = typed_job(memoryview(orjson.dumps(job)), "t.json", 0)
    assert type(typed) is TypedJob
    back = pickle.loads(pickle.dumps(typed, protocol=pickle.HIGHEST_PROTOCOL))
    assert back.columns.attempt_ids == typed.columns.attempt_ids
    assert len(back.columns.attempt_ids) == len(job["mapTasks"]) + len(job["reduceTasks"])
    assert back.columns.host_names == typed.columns.host_names
    for a, b in zip(back.columns.arrays(), typed.columns.arrays()):
        assert a.tolist() == b.tolist()


def _pass_forked(path: Path, monkeypatch, fork: bool) -> str:
    """Every field of the one-pass ingest of ``path`` but its cache use, with the reader forked or in process."""
    from mrsim.profiler.ingest import _read
    from mrsim.profiler import rumen_worker
    from mrsim.profiler.detect import Format

    with monkeypatch.context() as m:
        m.setattr(rumen_worker, "worker_wanted", lambda p: fork)
        done = _read(path, Format.RUMEN)
        return repr({f.name: getattr(done, f.name) for f in dataclasses.fields(done) if f.name != "cache"})


@pytest.mark.parametrize("case", ["hosts", "one host", "no reduces", "null phase"])
def test_a_typed_job_pickles_every_column(case: str):
    """The forked reader's pickle sends the times as one (4, tasks) array, the reduces' phase ends as one array and
    the host names as codes (none when all are one name): every column comes back equal, of the same types, and
    the time arrays read-only rows of one array, as typed_job makes them."""
    import pickle

    import numpy as np

    job = _plain_job_without_locations()
    if case == "one host":
        for task in job["mapTasks"] + job["reduceTasks"]:
            task["attempts"][0]["hostName"] = "/rack1/host1"
    elif case == "no reduces":
        job["reduceTasks"] = []
    elif case == "null phase":
        job["reduceTasks"][0]["attempts"][0]["shuffleFinished"] = None
    typed = typed_job(memoryview(orjson.dumps(job)), "t.json", 0)
    assert type(typed) is TypedJob
    back = pickle.loads(pickle.dumps(typed, protocol=pickle.HIGHEST_PROTOCOL))
    mine, theirs = back.columns, typed.columns
    for f in dataclasses.fields(theirs):
        if f.name not in _LISTS:
            value = getattr(mine, f.name)
            assert value == getattr(theirs, f.name), f.name
            if type(value) is list:
                assert all(type(a) is type(b) for a, b in zip(value, getattr(theirs, f.name), strict=True)), f.name
    assert len(mine.maps) == len(theirs.maps) and len(mine.reduces) == len(theirs.reduces)
    for made in (back, typed):
        arrays = made.columns.arrays()
        assert all(a.dtype == np.int64 and not a.flags.writeable and a.flags.c_contiguous for a in arrays)
        assert all(a.base is not None and a.base is arrays[0].base for a in arrays)
    for a, b in zip(mine.arrays(), theirs.arrays(), strict=True):
        assert a.tolist() == b.tolist()
    assert [a.tolist() for a in mine.arrays()] == [mine.task_start, mine.task_finish, mine.attempt_start,
                                                    mine.attempt_finish]
    if case == "null phase":
        assert mine.shuffle_finished[0] == -1
