"""The forked reader's shared decoding (``mrsim.profiler.rumen_worker``): pieces the child leaves undecoded, decoded in
the parent, give the reader's jobs, order and errors; a piece the reader would hand to its strict decoder makes the
parent read the input itself, past the jobs it already gave."""

from __future__ import annotations

import dataclasses
import functools
import gzip
import os
from pathlib import Path

import orjson
import pytest

from mrsim.errors import InputError
from mrsim.profiler import rumen, rumen_worker
from mrsim.io import forking
from mrsim.profiler.typed import TypedJob, full_job

_SHARE = {"every piece": True, "no piece": False, "as the parent waits": None}


def _synth(path: Path, jobs: int, seed: int) -> bytes:
    from mrsim.cli import main as cli

    cli(["synth", "--jobs", str(jobs), "--seed", str(seed), "-o", str(path), "--quiet"])
    return gzip.decompress(path.read_bytes())


def _outcome(read, path: Path):
    try:
        jobs = list(read(path))
    except InputError as exc:
        return ("error", str(exc)), []
    return ("ok", [full_job(job) for job in jobs]), jobs


@pytest.mark.parametrize("share", list(_SHARE), ids=list(_SHARE))
@pytest.mark.parametrize("damage", ["none", "truncated", "not an object", "corrupt gzip", "1e400", "1e400 first",
                                    "20 digits"])
def test_shared_decoding_gives_the_readers_jobs_and_errors(tmp_path: Path, damage: str, share: str):
    trace = tmp_path / "s.json.gz"
    data = _synth(trace, 30, 5)
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "not an object":
        data += b"\n[1, 2]\n"
    elif damage == "1e400":  # the typed decoder and orjson refuse it: the reader's strict decoder reads on from there
        data = data.replace(b'"taskStatus":"SUCCESS"', b'"taskStatus":"SUCCESS","inputBytes":1e400', 3)
    elif damage == "1e400 first":
        data = data.replace(b'"taskStatus":"SUCCESS"', b'"taskStatus":"SUCCESS","inputBytes":1e400', 1)
    elif damage == "20 digits":  # a job-level integer orjson would read as a float: the strict decoder's int
        data = data.replace(b'"submitTime":', b'"relativeTime":12345678901234567890,"submitTime":', 2)
    packed = gzip.compress(data)
    if damage == "corrupt gzip":
        packed = packed[: len(packed) // 2] + bytes([packed[len(packed) // 2] ^ 0xFF]) + packed[len(packed) // 2 + 1:]
    trace.write_bytes(packed)
    forked = functools.partial(rumen_worker.iter_rumen_jobs_forked, share=_SHARE[share])
    outcome, jobs = _outcome(forked, trace)
    assert outcome == _outcome(rumen.iter_rumen_jobs, trace)[0]
    if outcome[0] == "ok":
        in_process = list(rumen.iter_rumen_jobs(trace, typed=True))
        assert [type(job) for job in jobs] == [type(job) for job in in_process]
        for mine, theirs in zip(jobs, in_process):
            if type(mine) is TypedJob:
                assert all((a == b).all() for a, b in zip(mine.columns.arrays(), theirs.columns.arrays()))
                for name in ("n_maps", "host_names", "attempt_ids", "shuffle_finished", "sort_finished",
                             "map_locations_given", "any_locations", "any_attempt_location"):
                    assert getattr(mine.columns, name) == getattr(theirs.columns, name), name


def _count_parent_decodes(monkeypatch) -> list[int]:
    """The offsets of the pieces this process decodes for the forked reader (shared ones), as they are decoded."""
    decoded: list[int] = []
    original = rumen_worker._Raw.decoded

    def counted(self, source):
        decoded.append(self.offset)
        return original(self, source)

    monkeypatch.setattr(rumen_worker._Raw, "decoded", counted)
    return decoded


def test_every_piece_shared_means_the_parent_decodes_them(tmp_path: Path, monkeypatch):
    trace = tmp_path / "s.json.gz"
    _synth(trace, 20, 3)
    decoded = _count_parent_decodes(monkeypatch)
    assert len(list(rumen_worker.iter_rumen_jobs_forked(trace, share=True))) == 20 == len(decoded)
    decoded.clear()
    assert len(list(rumen_worker.iter_rumen_jobs_forked(trace, share=False))) == 20 and not decoded


@pytest.mark.parametrize("share", list(_SHARE), ids=list(_SHARE))
def test_the_pass_with_shared_decoding_gives_the_same_result(tmp_path: Path, monkeypatch, share: str):
    """The whole pass (every field), with repeated job ids (their slot usage reads the task dicts: a piece decoded in
    the parent keeps its bytes; a repeat of one is read again from the input)."""
    from mrsim.profiler.ingest import _read
    from mrsim.profiler.detect import Format

    trace = tmp_path / "s.json.gz"
    lines = _synth(trace, 30, 4).splitlines()
    first_id = orjson.loads(lines[1])["jobID"]
    literal = orjson.loads(lines[3])
    literal["jobID"] = f"{first_id}#2"
    trace.write_bytes(gzip.compress(b"\n".join([*lines, lines[1], lines[2], orjson.dumps(literal), lines[5]]) + b"\n"))

    def result(forked: bool) -> str:
        with monkeypatch.context() as m:
            m.setattr(rumen_worker, "worker_wanted", lambda path: forked)
            m.setattr(rumen_worker, "iter_rumen_jobs_forked",
                      functools.partial(rumen_worker.iter_rumen_jobs_forked, share=_SHARE[share]))
            done = _read(trace, Format.RUMEN)
            return repr({f.name: getattr(done, f.name) for f in dataclasses.fields(done) if f.name != "cache"})

    assert result(True) == result(False)


def test_a_shared_reader_left_early_stops_its_child(tmp_path: Path):
    trace = tmp_path / "s.json.gz"
    _synth(trace, 100, 5)
    jobs = rumen_worker.iter_rumen_jobs_forked(trace, share=True)
    next(jobs)
    jobs.close()
    try:
        assert os.waitpid(-1, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        pass


def test_always_forks_whatever_the_load(tmp_path: Path, monkeypatch):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * rumen_worker.MIN_BYTES)
    monkeypatch.setattr(forking.sys, "platform", "linux")
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(rumen_worker.os, "getloadavg", lambda: (5.0, 1.0, 1.0))
    monkeypatch.setenv("MRSIM_INGEST_WORKER", "1")
    assert not rumen_worker.worker_wanted(big)
    monkeypatch.setenv("MRSIM_INGEST_WORKER", "always")
    assert rumen_worker.worker_wanted(big)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0})  # still never on one CPU
    assert not rumen_worker.worker_wanted(big)


def test_a_hand_over_reads_on_in_a_new_child_past_the_jobs_given(tmp_path: Path, monkeypatch):
    """A shared piece the reader would hand to its strict decoder: a new child, not sharing, sends what follows."""
    trace = tmp_path / "s.json.gz"
    data = _synth(trace, 12, 6)
    lines = data.splitlines()
    lines[5] = lines[5].replace(b'"taskStatus":"SUCCESS"', b'"taskStatus":"SUCCESS","inputBytes":1e400', 1)
    trace.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    calls: list[tuple[bool | None, int]] = []
    original = rumen_worker.iter_rumen_jobs_forked

    def recorded(path, *, typed=True, share=None, skip=0):
        calls.append((share, skip))
        return original(path, typed=typed, share=share, skip=skip)

    monkeypatch.setattr(rumen_worker, "iter_rumen_jobs_forked", recorded)
    jobs = list(rumen_worker.iter_rumen_jobs_forked(trace, share=True))
    assert calls == [(True, 0), (False, 5)]
    assert [full_job(job) for job in jobs] == [full_job(job) for job in rumen.iter_rumen_jobs(trace)]


def test_sharing_is_off_unless_asked_for(tmp_path: Path, monkeypatch):
    trace = tmp_path / "s.json.gz"
    _synth(trace, 20, 3)
    decoded = _count_parent_decodes(monkeypatch)
    monkeypatch.delenv("MRSIM_INGEST_SHARE", raising=False)
    assert rumen_worker.share_wanted() is False
    assert len(list(rumen_worker.iter_rumen_jobs_forked(trace))) == 20 and not decoded
    monkeypatch.setenv("MRSIM_INGEST_SHARE", "1")
    assert rumen_worker.share_wanted() is None
    assert [full_job(job) for job in rumen_worker.iter_rumen_jobs_forked(trace)] == \
        [full_job(job) for job in rumen.iter_rumen_jobs(trace)]
