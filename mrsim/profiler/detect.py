"""Which trace or log format a path holds, decided by content (gzip recognised by its magic bytes).

Rules, checked in this order on the first 64 KiB of the (decompressed) file:

* ``JHIST``: first line ``Avro-Json`` or ``Avro-Binary`` (``EventWriter``), or an Avro container ``Obj\\x01``;
* ``JOBHISTORY``: first line ``Meta VERSION="1" .``, a ``\\f!!FILE=`` bundle marker, or a
  ``Job|Task|MapAttempt|ReduceAttempt KEY="`` record;
* ``SLS``: a JSON object using SLS keys (``job.tasks``, ``job.start.ms``, ``num.nodes``, ``am.type`` ...);
* ``RUMEN``: a JSON object with ``LoggedJob`` keys (``"jobID"``, ``"mapTasks"``, ``"submitTime"``); a
  topology object (``"name": "<root>"``) is refused, as it holds no jobs;
* ``SWIM``: tab-separated lines of 6 columns, a job name then 5 numbers.

A directory is the format of the files in it (job confs, dotfiles and ``.crc`` files ignored); a
directory mixing formats, or a file matching none, raises :class:`InputError` naming the path.
"""

from __future__ import annotations

import enum
import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mrsim.errors import InputError
from mrsim.profiler import jhist, jobhistory, sls
from mrsim.io.compressed import open_binary

HEAD_BYTES = 1 << 16
#: Leading whitespace looked past when a head is nothing else (64 MiB: more is not a trace mrsim has met).
MAX_LEADING_WHITESPACE = 64 << 20
#: What counts as leading whitespace: JSON's four. Not the form feed, which starts a JobHistory bundle
#: (``\f!!FILE=``) and is part of what its sniff reads.
_JSON_SPACE = b" \t\r\n"

_RUMEN_KEYS = re.compile(rb'"(jobID|mapTasks|reduceTasks|submitTime)"\s*:')
_TOPOLOGY = re.compile(rb'^\{\s*"name"\s*:\s*"<root>"')
_SYNTH = re.compile(rb'"(workloads|job_classes|num_jobs)"\s*:')
_SLS_NODES = re.compile(rb'^\s*\{\s*"rack"\s*:')
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


class Format(enum.Enum):
    """Input formats mrsim reads."""

    RUMEN = "rumen"
    JOBHISTORY = "jobhistory"
    JHIST = "jhist"
    SLS = "sls"
    SWIM = "swim"


def sniff_rumen(head: bytes, name: str) -> bool:
    """A Rumen job trace: a JSON object stream whose first object carries ``LoggedJob`` keys."""
    text = head.lstrip()
    return text.startswith(b"{") and _TOPOLOGY.match(text) is None and _RUMEN_KEYS.search(text) is not None


def sniff_swim(head: bytes, name: str) -> bool:
    """A SWIM workload: each of the first lines has 6 tab-separated fields, the last 5 numeric."""
    lines = [line for line in head.decode("utf-8", "replace").splitlines() if line.strip()]
    if len(lines) > 1 and len(head) >= HEAD_BYTES:
        lines = lines[:-1]  # the last line of a full head may be cut mid-way
    if not lines:
        return False
    for line in lines[:20]:
        fields = line.rstrip("\r").split("\t")
        if len(fields) != 6 or not all(_NUMBER.fullmatch(f.strip()) for f in fields[1:]):
            return False
    return True


_SNIFFERS: tuple[tuple[Format, Any], ...] = (
    (Format.JHIST, jhist.sniff),
    (Format.JOBHISTORY, jobhistory.sniff),
    (Format.SLS, sls.sniff),
    (Format.RUMEN, sniff_rumen),
    (Format.SWIM, sniff_swim),
)


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of ``path``, gunzipped when it starts with the gzip magic.

    A gzip stream cut short still yields the bytes before the cut (a truncated log is still a log).
    """
    parts: list[bytes] = []
    got = 0
    with open_binary(path) as fh:
        try:
            while got < size:
                part = fh.read(min(4096, size - got))
                if not part:
                    break
                parts.append(part)
                got += len(part)
        except (OSError, EOFError, zlib.error) as exc:
            if not parts:
                raise InputError(f"{path}: corrupt gzip data ({exc})") from None
    return b"".join(parts)


def head_past_whitespace(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The ``size`` bytes of ``path`` (decompressed) that follow its leading JSON whitespace, or ``b""`` when the
    file is whitespace only; :class:`InputError` when its whitespace runs past :data:`MAX_LEADING_WHITESPACE`.
    Called only when
    :func:`read_head` found nothing else (a trace padded by hand or by a tool), so every other file's head, and so
    its detection, is the one :func:`read_head` gives. Cost: one read of the whitespace, 64 KiB at a time."""
    skipped = 0
    parts: list[bytes] = []
    got = 0
    with open_binary(path) as fh:
        try:
            while skipped <= MAX_LEADING_WHITESPACE:
                part = fh.read(1 << 16)
                if not part:
                    return b""
                rest = part.lstrip(_JSON_SPACE)
                skipped += len(part) - len(rest)
                if rest:
                    parts.append(rest)
                    got = len(rest)
                    break
            else:
                raise InputError(f"{path}: starts with more than {MAX_LEADING_WHITESPACE >> 20} MiB of whitespace; "
                                 "not a trace")
            while got < size:
                part = fh.read(min(1 << 16, size - got))
                if not part:
                    break
                parts.append(part)
                got += len(part)
        except (OSError, EOFError, zlib.error):
            pass  # a stream cut short: what was read before the cut, as read_head does
    return b"".join(parts)[:size]


def sniff_format(head: bytes, name: str) -> Format | None:
    """The format ``head`` (decompressed leading bytes) looks like, or None."""
    for fmt, sniff in _SNIFFERS:
        if sniff(head, name):
            return fmt
    return None


def detect_format(path: str | os.PathLike[str]) -> Format:
    """The :class:`Format` of a file or directory, by content. Raises :class:`InputError` when unknown."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file or directory")
    if p.is_dir():
        return _detect_directory(p)
    head = read_head(p)
    blank = bool(head) and not head.strip()
    if len(head) >= HEAD_BYTES and not head.lstrip(_JSON_SPACE):
        head = head_past_whitespace(p)
    fmt = sniff_format(head, p.name)
    if fmt is not None:
        return fmt
    if _TOPOLOGY.match(head.lstrip()):
        raise InputError(f"{p}: is a Rumen topology, not a job trace")
    if _SYNTH.search(head):
        raise InputError(f"{p}: is an SLS SYNTH workload spec (job classes, not a job trace); not supported")
    if _SLS_NODES.search(head):
        raise InputError(f"{p}: is an SLS nodes file (cluster layout), not a job trace")
    if not head.strip():
        raise InputError(f"{p}: holds only whitespace" if blank else f"{p}: is empty")
    raise InputError(
        f"{p}: unrecognised format (expected a Rumen trace, JobHistory log, .jhist, SLS trace or SWIM file)"
    )


def _detect_directory(p: Path) -> Format:
    found: dict[Format, str] = {}
    for child in sorted(p.iterdir(), key=lambda c: c.name):
        if not child.is_file() or child.name.startswith(".") or child.name.endswith(".crc"):
            continue
        if jobhistory.is_conf_name(child.name):
            continue
        head = read_head(child)
        if len(head) >= HEAD_BYTES and not head.lstrip(_JSON_SPACE):
            head = head_past_whitespace(child)
        fmt = sniff_format(head, child.name)
        if fmt is not None:
            found.setdefault(fmt, child.name)
    if not found:
        raise InputError(f"{p}: directory holds no recognised trace or log file")
    if len(found) > 1:
        kinds = ", ".join(f"{fmt.value} ({name})" for fmt, name in found.items())
        raise InputError(f"{p}: directory mixes formats: {kinds}")
    return next(iter(found))


def iter_logged_jobs(
    path: str | os.PathLike[str], fmt: Format | None = None, *, warnings: list[str] | None = None,
    typed: bool = False, started: Any = None,
) -> Iterator[dict[str, Any]]:
    """Rumen ``LoggedJob`` dicts from any format that has them (all but SWIM), detecting it if not given.
    ``typed``: a Rumen trace's plain jobs may come as :class:`mrsim.profiler.typed.TypedJob` (for the one-pass ingest,
    which reads their columns), read by a forked process where that helps (:mod:`mrsim.profiler.rumen_worker`):
    ``started``, a :class:`~mrsim.profiler.rumen_worker.ForkedReader` already reading ``path`` (the one forked as the
    command started, :mod:`mrsim.profiler.early_read`), else one forked now."""
    fmt = fmt or detect_format(path)
    if fmt is Format.JOBHISTORY:
        return jobhistory.iter_jobhistory_jobs(path, warnings=warnings)
    if fmt is Format.JHIST:
        return jhist.iter_jhist_jobs(path, warnings=warnings)
    if fmt is Format.SLS:
        return sls.iter_sls_jobs(path, warnings=warnings)
    if fmt is Format.RUMEN:
        from mrsim.profiler.rumen import iter_rumen_jobs

        if typed:
            from mrsim.profiler.rumen_worker import iter_rumen_jobs_forked, worker_wanted

            if started is not None:
                return iter_rumen_jobs_forked(path, started=started)
            if worker_wanted(path):
                return iter_rumen_jobs_forked(path, typed=True)
        return iter_rumen_jobs(path, typed=typed)
    raise InputError(f"{path}: a SWIM workload holds job sizes, not task logs; read it with mrsim.profiler.swim")
