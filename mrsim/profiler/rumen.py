"""Read Rumen JSON job traces: a stream of concatenated ``LoggedJob`` objects (no enclosing array).

Follows Rumen's ``JsonObjectMapperParser`` (one ``readValue`` per job until EOF), with two differences users
expect: gzip is detected from the content (magic bytes), not the file name, and malformed input ends in an
:class:`~mrsim.errors.InputError` naming the file, line and column instead of a stack trace.

Streaming: the file is decoded in chunks, one job object at a time, so memory stays proportional to the
largest single job, not the file. Cost: linear in the file size. A thread reads (and gunzips) up to two chunks
ahead of the decoder (:class:`_ReadAhead`), and the newlines the fast path passes are counted only if the strict
decoder takes over and needs them for its line numbers.

Two decoders, one meaning. The fast path cuts the byte stream at ``}`` *whitespace* ``{`` (in valid JSON that
sequence occurs only between top-level values, or inside a string) and decodes each piece with ``orjson``
(about twice the standard library's speed, ``benchmarks/bench_ingest.py``). Whatever ``orjson`` refuses or reads differently -- a cut inside a string,
``NaN``, a number that overflows a double (``1e400``, an integer of 309 or more digits), a lone surrogate, invalid
UTF-8, a byte-order mark, nesting past 1024 levels -- switches the rest of the file to the standard library's strict
decoder (:mod:`mrsim.io.safe_json`), which is the reference: it accepts and refuses what mrsim always did and names
the line and field of an error. ``orjson`` reads an integer beyond 64 bits as a float where the standard library
keeps an int, so a piece holding a run of 19 or more digits (found by ``bytes.translate`` + ``find``, about a tenth
of the decoding time) is decoded by the strict decoder instead, alone: the next piece comes back to ``orjson``, and
the rest of the file goes to the strict decoder only if it refuses the piece. Rumen's ``TraceBuilder`` writes such
runs in every job (``Long.MAX_VALUE`` bounds of empty CDFs), so a real trace's jobs are each decoded the strict way,
without its line counting; before, its first job switched the whole file.

A third decoder for the one-pass ingest only (``typed=True``): :func:`mrsim.profiler.typed.typed_job` is tried first on
each piece and gives a plain job as its columns, without building its task and attempt dicts; what it does not take
goes on as above. It reads no byte differently from the reader without it (its module docstring says why), so it
needs the 19-digit check only for the job-level values it decodes with ``orjson`` (one holding such a run it decodes
with the strict decoder, as this reader decodes such a job).
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import queue
import re
import threading
import zlib
from collections.abc import Callable
from typing import IO, Any, Iterator

import orjson

from mrsim.errors import InputError
from mrsim.io import safe_json
from mrsim.io.compressed import open_binary
from mrsim.io.limits import check_limit, limit
from mrsim.io.safe_json import JSONValueError, locate_refused, raw_decode, strict_decoder

_CHUNK = 1 << 20
_AHEAD = 2  # chunks the read-ahead thread may hold
_WHITESPACE = " \t\r\n"
_WHITESPACE_BYTES = b" \t\r\n"
#: Between two top-level objects: ``}``, optional whitespace, ``{``. Valid JSON has no such run outside strings
#: (members and elements are separated by commas).
_BOUNDARY = re.compile(rb"\}[ \t\r\n]*\{")
#: Digits to ``0``, everything else to a space: a run of :data:`_LONG_RUN` then marks an integer orjson might read
#: as a float (beyond 64 bits). translate + find is C-speed (about a tenth of orjson's time); a regex is 3x orjson.
_DIGIT_CLASS = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_LONG_RUN = b"0" * 19


def _read_chunk(fh, path: os.PathLike[str] | str) -> bytes:
    try:
        return fh.read(_CHUNK)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(f"{path}: corrupt gzip data ({exc})") from None


def iter_rumen_jobs(path: str | os.PathLike[str], *, typed: bool = False,
                    decode: Callable[[memoryview, str, int], Any] | None = None) -> Iterator[dict]:
    """Yield each top-level JSON object of a Rumen trace as a dict, in file order.

    A trace with no job at all, a truncated object, or anything that is not a JSON object raises
    :class:`InputError` with the line where the problem starts. ``typed``: a plain job that the typed decoder
    takes comes as a :class:`mrsim.profiler.typed.TypedJob` (its task lists typed, its columns read; the module
    docstring says when), every other job as before. ``decode``: called instead of the typed decoder, with the
    same arguments (the forked reader's hook, :mod:`mrsim.profiler.rumen_worker`, which may leave a piece undecoded).
    """
    max_bytes = limit("input_bytes")
    with open_binary(path) as fh:
        ahead = _ReadAhead(fh)
        try:
            state = _Stream(ahead, path, max_bytes)
            seen = yield from _iter_fast(state, typed, decode)
            if not state.done:
                seen = yield from _iter_strict(state, seen)
        finally:
            ahead.close()  # before the file closes: the thread may be reading it
    if seen == 0:
        raise InputError(f"{path}: no job objects found (empty Rumen trace)")


class _ReadAhead:
    """``read(n)`` of a file by a thread that stays up to :data:`_AHEAD` chunks ahead, so that gunzip (``zlib``
    releases the GIL while it inflates) runs while the caller decodes the chunk before: less wall time when a
    second core is free, the same CPU time. Chunks, the end (``b""``) and any exception come out in read order,
    each where the caller's own read would have met it (the exception object itself: the same message). Memory:
    at most :data:`_AHEAD` + 1 chunks beyond what the caller holds."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self._chunks: queue.Queue[tuple[bytes, BaseException | None]] = queue.Queue(maxsize=_AHEAD)
        self._stop = threading.Event()
        self._ended = False
        self._thread = threading.Thread(target=self._run, name="mrsim-read-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                chunk = self._fh.read(_CHUNK)
            except BaseException as exc:  # noqa: BLE001 - handed to the reader, raised there
                self._put((b"", exc))
                return
            self._put((chunk, None))
            if not chunk:
                return

    def _put(self, item: tuple[bytes, BaseException | None]) -> None:
        while not self._stop.is_set():
            try:
                self._chunks.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def read(self, _size: int = _CHUNK) -> bytes:
        if self._ended:
            return b""
        chunk, error = self._chunks.get()
        if error is not None or not chunk:
            self._ended = True
        if error is not None:
            raise error
        return chunk

    def close(self) -> None:
        """Stop the thread and wait for it (it may be inside a read of the file)."""
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._chunks.get_nowait()
            except queue.Empty:
                self._thread.join(0.05)


class _Stream:
    """The compressed-or-plain input with what the fast path has buffered but not consumed (``buf[pos:]``)."""

    def __init__(self, fh: IO[bytes] | _ReadAhead, path: str | os.PathLike[str], max_bytes: int) -> None:
        self.fh, self.path, self.max_bytes = fh, path, max_bytes
        self.buf = b""
        self.pos = 0
        self.dropped = 0  # bytes dropped from the front of buf
        self.read_so_far = 0
        self.eof = False
        self.done = False  # every object was decoded by the fast path

    def refill(self) -> bool:
        """Drop the consumed prefix and append one chunk; False at the end of the input."""
        chunk = _read_chunk(self.fh, self.path)
        self.eof = not chunk
        self.read_so_far += len(chunk)
        if self.read_so_far > self.max_bytes:  # a gzip bomb, or a file far larger than any trace
            check_limit("input_bytes", self.read_so_far, str(self.path))
        self.dropped += self.pos
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return not self.eof

    def consume(self, end: int) -> None:
        self.pos = end

    def lines_before(self) -> int:
        """The newlines before ``buf[pos]``, for the strict decoder's line numbers. Only an input the fast path
        hands over needs them, so they are not counted as it goes (a pass over every byte, about 1.5 % of a
        parse): the input (a regular file, ``open_binary``) is read again up to there."""
        offset = self.dropped + self.pos
        if offset == 0:
            return 0
        if offset <= len(self.buf) and self.dropped == 0:
            return self.buf.count(b"\n", 0, self.pos)
        lines = 0
        with open_binary(self.path) as again:
            while offset > 0:
                chunk = _read_chunk(again, self.path)[:offset]
                if not chunk:
                    break
                lines += chunk.count(b"\n")
                offset -= len(chunk)
        return lines


_NON_WHITESPACE = re.compile(rb"[^ \t\r\n]")


def fast_object(piece: bytes) -> dict | None:
    """One piece as the fast path decodes it when the typed decoder does not take it: ``orjson``'s dict (a piece
    with a run of 19 or more digits: the strict decoder's, :func:`_strict_piece`), or None where the fast path
    hands the rest of the input to the strict decoder (a piece ``orjson`` or the strict decoder refuses, a value
    that is not an object)."""
    if piece.translate(_DIGIT_CLASS).find(_LONG_RUN) >= 0:
        # This object alone to the strict decoder (Rumen's TraceBuilder writes Long.MAX_VALUE in every job's empty
        # CDFs); the next one comes back to orjson. Handed over only when it refuses the object.
        return _strict_piece(piece, _strict())
    try:
        obj = orjson.loads(piece)
    except orjson.JSONDecodeError:
        return None
    return obj if type(obj) is dict else None


def _iter_fast(state: _Stream, typed: bool = False,
               decode: Callable[[memoryview, str, int], Any] | None = None) -> Iterator[dict]:
    """orjson over pieces cut at object boundaries; returns the count yielded when it must hand over (or is done).
    ``typed``: :func:`mrsim.profiler.typed.typed_job` first on each piece (a plain job then comes as its columns), or
    ``decode`` when given."""
    seen = 0
    if typed:
        from mrsim.profiler.typed import typed_job

        if decode is not None:
            typed_job = decode  # type: ignore[assignment]
        path = str(state.path)
    while True:
        first = _NON_WHITESPACE.search(state.buf, state.pos)
        if first is None:
            state.consume(len(state.buf))
            if state.eof or not state.refill():
                state.done = True
                return seen
            continue
        start = first.start()
        state.consume(start)
        if state.buf[start] != 0x7B:  # "{": anything else gets the strict reader's message
            return seen
        match = _BOUNDARY.search(state.buf, start + 1)
        while match is None and not state.eof:
            searched = len(state.buf) - state.pos
            more = state.refill()
            start = 0  # refill moved the object to the front, also at the end of the input (the last object)
            if not more:
                break
            match = _BOUNDARY.search(state.buf, max(1, searched - 64))
        buf = state.buf
        end = match.start() + 1 if match is not None else len(buf)
        # The typed decoder first (it checks its own job-level bytes for long integers and types every other
        # field, mrsim.profiler.typed), reading the buffer in place; else the 19-digit check, then orjson.
        obj = typed_job(memoryview(buf)[start:end], path, state.dropped + start) if typed else None
        if obj is None:
            obj = fast_object(buf[start:end])
            if obj is None:
                return seen
        state.consume(end)
        seen += 1
        yield obj


def _strict() -> json.JSONDecoder:
    """The strict decoder, made once per process (a piece with a 19-digit run comes once per real Rumen job)."""
    global _STRICT
    if _STRICT is None:
        _STRICT = strict_decoder()
    return _STRICT


_STRICT: json.JSONDecoder | None = None


def _strict_piece(piece: bytes, decoder: json.JSONDecoder) -> dict | None:
    """``piece`` (one object the fast path cut, holding a run of 19 or more digits) as the strict decoder reads it,
    or None when the strict reader must take over from here: invalid UTF-8, anything it refuses, or a piece that is
    not one object and whitespace (a cut inside a string ends inside the object, so it never parses whole). The
    same object :func:`_iter_strict` gives at this point: the same decoder on the same text."""
    try:
        text = piece.decode("utf-8")
        obj, end = raw_decode(decoder, text)
    except ValueError:  # UnicodeDecodeError, JSONDecodeError, JSONValueError
        return None
    if type(obj) is not dict or text[end:].strip(_WHITESPACE):
        return None
    return obj


def _iter_strict(state: _Stream, seen: int) -> Iterator[dict]:
    """The standard library's strict decoder from where the fast path stopped (see the module docstring)."""
    path = state.path
    decoder = strict_decoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    # As if the bytes the fast path buffered had just been read: the end of the input is noticed by a read that
    # returns nothing, exactly where the reader before orjson noticed it (its error messages depend on that).
    buf = utf8.decode(state.buf[state.pos:], final=False)
    pos = 0
    lines_before = state.lines_before()  # newlines already dropped from the front of ``buf``
    eof = False

    def refill() -> bool:
        nonlocal buf, pos, lines_before, eof
        chunk = _read_chunk(state.fh, path)
        eof = not chunk
        state.read_so_far += len(chunk)
        if state.read_so_far > state.max_bytes:
            check_limit("input_bytes", state.read_so_far, str(path))
        lines_before += buf.count("\n", 0, pos)
        buf = buf[pos:] + utf8.decode(chunk, final=eof)
        pos = 0
        return not eof

    while True:
        while True:
            n = len(buf)
            while pos < n and buf[pos] in _WHITESPACE:
                pos += 1
            if pos < n or eof or not refill():
                break
        if pos >= len(buf):
            break
        if buf[pos] != "{":
            line = lines_before + buf.count("\n", 0, pos) + 1
            raise InputError(
                f"{path}: line {line}: expected a JSON object (a Rumen LoggedJob), found {buf[pos:pos + 20]!r}"
            )
        try:
            obj, end = raw_decode(decoder, buf, pos)
        except JSONValueError as exc:
            if not eof and refill():  # the refused token may be cut at the buffer's end; retry with more
                continue
            found = locate_refused(buf, pos)
            at = found[0] if found else pos
            line = lines_before + buf.count("\n", 0, at) + 1
            field = f"field {found[1]!r}: " if found and found[1] else ""
            raise InputError(f"{path}: line {line}: job object #{seen + 1}: {field}{exc.msg}") from None
        except json.JSONDecodeError as exc:
            if not eof and refill():
                continue
            exc = _decode_error(decoder, buf, pos) or exc  # positions in this buffer (a refill moved its start)
            line = lines_before + buf.count("\n", 0, exc.pos) + 1
            rest = buf[pos:]
            # Cut short: the error is at the very end, or the object never closes what it opened (an unterminated
            # string in a cut file is reported where the string starts).
            truncated = exc.pos >= len(buf.rstrip()) - 1 or \
                rest.count("{") + rest.count("[") > rest.count("}") + rest.count("]")
            what = "truncated JSON" if truncated else f"invalid JSON ({exc.msg})"
            raise InputError(f"{path}: line {line}: {what} in job object #{seen + 1}") from None
        seen += 1
        pos = end
        yield obj
    return seen


def _decode_error(decoder: json.JSONDecoder, buf: str, pos: int) -> json.JSONDecodeError | None:
    try:
        raw_decode(decoder, buf, pos)
    except json.JSONDecodeError as exc:
        return exc
    except ValueError:
        return None
    return None


def read_rumen_topology(path: str | os.PathLike[str]) -> dict:
    """Read a Rumen ``LoggedNetworkTopology`` JSON file (a single ``{"name", "children"}`` object)."""
    from mrsim.io.compressed import read_bytes

    raw = read_bytes(path)
    try:
        obj = safe_json.loads(raw)
    except JSONValueError as exc:
        raise InputError(f"{path}: Rumen topology: {exc.msg}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a Rumen topology JSON object ({exc})") from None
    if not isinstance(obj, dict) or "children" not in obj:
        raise InputError(f"{path}: not a Rumen topology (expected an object with 'name' and 'children')")
    return obj
