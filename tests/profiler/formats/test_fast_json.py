"""orjson fast paths (Rumen, SLS, .jhist JSON) against the strict standard-library decoder they fall back to.

Oracle: the strict reader alone (``mrsim.profiler.rumen._iter_strict`` from the first byte is the Rumen reader as it
was before orjson). Every input below must give the same objects -- or the same one-line error -- both ways.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.profiler import rumen
from mrsim.profiler.logged import iter_json_objects
from mrsim.io.limits import limit
from mrsim.io.safe_json import STRICT, fast_loads, has_long_integer

JOB = '{"jobID": "job_1_%d", "jobName": %s, "submitTime": %s, "mapTasks": []}'

CASES = {
    "plain": JOB % (1, '"a"', "1000") + "\n" + JOB % (2, '"b"', "2000"),
    "no whitespace between jobs": JOB % (1, '"a"', "1000") + JOB % (2, '"b"', "2000"),
    "boundary inside a string": JOB % (1, '"x}\\n{y} {z"', "1000") + "\n" + JOB % (2, '"}{"', "2000"),
    "25-digit integer stays an int": JOB % (1, '"a"', "1234567890123456789012345") + "\n" + JOB % (2, '"b"', "5"),
    "NaN in the second job": JOB % (1, '"a"', "1000") + "\n" + JOB % (2, '"b"', "NaN"),
    "1e400 overflows": JOB % (1, '"a"', "1e400"),
    "lone surrogate": JOB % (1, '"\\ud800"', "1000"),
    "byte-order mark": "\ufeff" + JOB % (1, '"a"', "1000"),
    "truncated second job": JOB % (1, '"a"', "1000") + "\n" + (JOB % (2, '"b"', "2000"))[:-8],
    "not an object": JOB % (1, '"a"', "1000") + "\n[1, 2]",
    "deep nesting": '{"jobID": "j", "x": ' + "[" * 3000 + "]" * 3000 + "}",
    "empty": "   \n",
    "duplicate keys": '{"jobID": "j", "submitTime": 1, "submitTime": 2}',
}


def _strict(path: Path) -> list[dict]:
    from mrsim.io.compressed import open_binary

    with open_binary(path) as fh:
        state = rumen._Stream(fh, path, limit("input_bytes"))
        jobs = list(rumen._iter_strict(state, 0))
    if not jobs:
        raise InputError(f"{path}: no job objects found (empty Rumen trace)")
    return jobs


def _outcome(read, path: Path):
    try:
        return ("ok", read(path))
    except InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_rumen_fast_path_equals_the_strict_reader(tmp_path: Path, name: str, gz: bool) -> None:
    data = CASES[name].encode("utf-8", "surrogatepass")
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(data) if gz else data)
    fast = _outcome(lambda p: list(rumen.iter_rumen_jobs(p)), path)
    assert fast == _outcome(_strict, path)
    if name == "25-digit integer stays an int":
        assert type(fast[1][0]["submitTime"]) is int


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_rumen_fast_path_over_many_chunks(tmp_path: Path, monkeypatch, gz: bool) -> None:
    monkeypatch.setattr(rumen, "_CHUNK", 7)  # every object spans many reads
    text = "\n".join(JOB % (i, f'"j{i}"', str(1000 + i)) for i in range(50))
    path = tmp_path / ("t.json.gz" if gz else "t.json")

    def write(content: str) -> None:
        path.write_bytes(gzip.compress(content.encode()) if gz else content.encode())

    write(text)
    assert list(rumen.iter_rumen_jobs(path)) == _strict(path)
    # The strict decoder takes over after many chunks: its line numbers count the newlines the fast path passed
    # (read again from the input: the fast path does not count them as it goes).
    for tail, line in (("\n" + JOB % (99, '"z"', "NaN"), 51), ("\n\n\n" + JOB % (99, '"z"', "1" * 30) + "\n[]", 54)):
        write(text + tail)
        fast, strict = _outcome(lambda p: list(rumen.iter_rumen_jobs(p)), path), _outcome(_strict, path)
        assert fast == strict and fast[0] == "error" and f"line {line}" in fast[1]


def test_rumen_read_ahead_raises_a_corrupt_gzip_where_the_reader_meets_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(rumen, "_CHUNK", 64)
    data = gzip.compress("\n".join(JOB % (i, f'"j{i}"', str(1000 + i)) for i in range(400)).encode())
    path = tmp_path / "t.json.gz"
    for cut in (len(data) // 2, len(data) - 4):
        broken = bytearray(data)
        broken[cut] ^= 0xFF
        for damaged in (bytes(broken), data[:cut]):  # a flipped byte, a truncated file
            path.write_bytes(damaged)
            fast, strict = _outcome(lambda p: list(rumen.iter_rumen_jobs(p)), path), _outcome(_strict, path)
            assert fast == strict and fast[0] == "error"


@pytest.mark.parametrize("name", sorted(CASES))
def test_sls_stream_fast_path_equals_the_strict_decoder(name: str, monkeypatch) -> None:
    text = CASES[name].encode("utf-8", "surrogatepass").decode("utf-8", "replace")

    def read() -> tuple:
        try:
            return ("ok", list(iter_json_objects(io.StringIO(text), "f", chunk_chars=16)))
        except InputError as exc:
            return ("error", str(exc))

    fast = read()
    monkeypatch.setattr("mrsim.profiler.logged._fast_object", lambda buffer, eof: (STRICT, 0))
    assert fast == read()


def test_fast_loads_hands_over_what_orjson_reads_differently() -> None:
    assert fast_loads(b'{"a": 1}') == {"a": 1}
    for refused in (b'{"a": NaN}', b'{"a": 1e400}', b'{"a": 12345678901234567890}', b'{"a": "\\ud800"}',
                    b'\xef\xbb\xbf{}', b'{"a": 1', b'\xff'):
        assert fast_loads(refused) is STRICT, refused
    assert has_long_integer("x" + "9" * 19) and not has_long_integer("1" * 18 + " 1")


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("end", ["", "\n", " \n\n"])
def test_rumen_fast_path_decodes_the_last_object_too(tmp_path: Path, gz: bool, end: str) -> None:
    """The last object has no boundary after it: the fast path must still decode it (it used to hand it to the
    strict decoder, which then had to count the newlines of the whole input again)."""
    from mrsim.io.compressed import open_binary

    text = "\n".join(JOB % (i, f'"j{i}"', str(1000 + i)) for i in range(3)) + end
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    with open_binary(path) as fh:
        state = rumen._Stream(fh, path, limit("input_bytes"))
        assert [job["jobID"] for job in rumen._iter_fast(state)] == ["job_1_0", "job_1_1", "job_1_2"]
    assert state.done


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_rumen_fast_path_decodes_a_long_integer_alone(tmp_path: Path, gz: bool) -> None:
    """A job holding a run of 19 digits (Rumen's CDF bounds, Long.MAX_VALUE) is decoded by the strict decoder alone:
    the jobs after it come back to orjson (the fast path ends done, without handing over), with the same objects;
    one the strict decoder refuses still hands the rest over, with the strict reader's error."""
    from mrsim.io.compressed import open_binary

    jobs = [JOB % (1, '"a"', "9223372036854775807"), JOB % (2, '"b"', "-9223372036854775808"),
            JOB % (3, '"c"', "12345678901234567890123"), JOB % (4, '"d"', "5")]
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    for text, done in (("\n".join(jobs) + "\n", True), ("\n".join(jobs[:2] + [JOB % (5, '"e"', "1" * 19 + ", x")]),
                                                          False)):
        path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
        fast = _outcome(lambda p: list(rumen.iter_rumen_jobs(p)), path)
        assert fast == _outcome(_strict, path)
        with open_binary(path) as fh:
            state = rumen._Stream(fh, path, limit("input_bytes"))
            read = list(rumen._iter_fast(state))
        assert state.done is done and len(read) == (4 if done else 2)
        if done:
            assert [type(job["submitTime"]) for job in fast[1]] == [int] * 4
        else:
            assert fast[0] == "error" and "line 3" in fast[1]


def test_rumen_fast_path_hands_a_deep_piece_to_the_strict_reader(tmp_path: Path, monkeypatch) -> None:
    """Near the recursion limit a piece with a 19-digit run decoded alone gives what handing the rest of the file
    to the strict reader at that piece gives (the reader before it decoded such pieces alone): the piece's own
    decoding has less stack to spare, and where it refuses, the strict reader decides."""
    import sys

    def read(p: Path) -> list[str]:
        return [job["jobID"] for job in rumen.iter_rumen_jobs(p)]

    limit = sys.getrecursionlimit()
    path = tmp_path / "t.json"
    for levels in range(limit - 100, limit + 30):
        deep = '{"jobID": "j", "submitTime": 1234567890123456789012, "x": ' + "[" * levels + "]" * levels + "}"
        path.write_bytes(("\n".join([JOB % (1, '"a"', "1000"), deep, JOB % (2, '"b"', "2000")]) + "\n").encode())
        alone = _outcome(read, path)
        with monkeypatch.context() as m:
            m.setattr(rumen, "_strict_piece", lambda piece, decoder: None)  # hand over at the piece, as before
            assert alone == _outcome(read, path), levels
