"""Read Rumen JSON job traces: a stream of concatenated ``LoggedJob`` objects (no enclosing array).

Follows Rumen's ``JsonObjectMapperParser`` (one ``readValue`` per job until EOF), with two differences users
expect: gzip is detected from the content (magic bytes), not the file name, and malformed input ends in an
:class:`~mrsim.errors.InputError` naming the file, line and column instead of a stack trace.

Streaming: the file is decoded in chunks, one job object at a time, so memory stays proportional to the
largest single job, not the file. Cost: linear in the file size (the C JSON decoder does the parsing).
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import zlib
from typing import Iterator

from mrsim.errors import InputError
from mrsim.io import safe_json
from mrsim.io.compressed import open_binary
from mrsim.io.limits import check_limit, limit
from mrsim.io.safe_json import JSONValueError, locate_refused, raw_decode, strict_decoder

_CHUNK = 1 << 20
_WHITESPACE = " \t\r\n"


def _read_chunk(fh, path: os.PathLike[str] | str) -> bytes:
    try:
        return fh.read(_CHUNK)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(f"{path}: corrupt gzip data ({exc})") from None


def iter_rumen_jobs(path: str | os.PathLike[str]) -> Iterator[dict]:
    """Yield each top-level JSON object of a Rumen trace as a dict, in file order.

    A trace with no job at all, a truncated object, or anything that is not a JSON object raises
    :class:`InputError` with the line where the problem starts.
    """
    max_bytes = limit("input_bytes")
    decoder = strict_decoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buf = ""
    pos = 0
    lines_before = 0  # newlines already dropped from the front of ``buf``
    eof = False
    seen = 0
    with open_binary(path) as fh:

        read_so_far = 0

        def refill() -> bool:
            nonlocal buf, pos, lines_before, eof, read_so_far
            chunk = _read_chunk(fh, path)
            eof = not chunk
            read_so_far += len(chunk)
            if read_so_far > max_bytes:  # a gzip bomb, or a file far larger than any trace
                check_limit("input_bytes", read_so_far, str(path))
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
                line = lines_before + buf.count("\n", 0, exc.pos) + 1
                truncated = exc.pos >= len(buf.rstrip()) - 1
                what = "truncated JSON" if truncated else f"invalid JSON ({exc.msg})"
                raise InputError(f"{path}: line {line}: {what} in job object #{seen + 1}") from None
            seen += 1
            pos = end
            yield obj
    if seen == 0:
        raise InputError(f"{path}: no job objects found (empty Rumen trace)")


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
