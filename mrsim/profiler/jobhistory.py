"""Hadoop 0.20 / 1.x JobHistory text logs -> Rumen ``LoggedJob`` dicts.

Follows Rumen's ``TraceBuilder`` with ``Hadoop20JHParser`` and the ``*20LineHistoryEventEmitter`` classes:
each ``Job`` / ``Task`` / ``MapAttempt`` / ``ReduceAttempt`` record becomes the same history events Rumen
derives from it, and :class:`~mrsim.profiler.logged.JobAccumulator` (``JobBuilder``) merges the start and
end records of every job, task and attempt by id. Values keep their JobHistory escapes (``\\.``), as in
Rumen's gold traces; only counters are unescaped, to read their names and values.

Inputs: one history file, a directory of history and ``*_conf.xml`` files (read in file-name order, like
TraceBuilder), gzip (by magic bytes), and test bundles where each piece follows a ``\\f!!FILE=<name>!!``
line (``ConcatenatedInputFilesDemuxer``). A history file given alone picks up its job's conf from the
same directory. Records may span lines (stack traces in ``ERROR``). A record cut off at the end of a file
is dropped with a warning naming the job; a record with unparseable residue (``TASK_TY .``) is used as
far as it parses and reported.

Memory: one job's records at a time. A job is emitted when the input moves on to another job's section.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mrsim.errors import InputError
from mrsim.profiler.logged import (
  Counters,
  FailedAttemptHost,
  JobAccumulator,
  job_id_in,
  job_id_of_task,
  parse_job_conf,
  report,
)
from mrsim.io.compressed import open_text, read_bytes

META_LINE = 'Meta VERSION="1" .'
FILE_MARKER = "\f!!FILE="
RECORD_END = " ."

_KEY_VALUE = re.compile(r'(\w+)="([^"\\]*(?:\\.[^"\\]*)*)"')
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_CONF_NAME = re.compile(r"job_\d+_\d+_conf\.xml(?:\.\d+\.old)?$")
_RECORD_START = re.compile(r'(Job|Task|MapAttempt|ReduceAttempt|Meta) [A-Z_]+="')
_RECORD_TYPES = ("Job", "Task", "MapAttempt", "ReduceAttempt", "Meta", "Jobtracker")


def sniff(head: bytes, name: str) -> bool:
    """True for a JobHistory text log or ``\\f!!FILE=`` bundle, judged by its first bytes (decompressed)."""
    text = head.lstrip(b"\r\n\t ")
    return (
        text.startswith(META_LINE.encode())
        or text.startswith(FILE_MARKER.encode())
        or _RECORD_START.match(text[:200].decode("utf-8", "replace")) is not None
    )


def is_conf_name(name: str) -> bool:
    """A job-conf file name: ``<prefix>_job_<id>_conf.xml`` or ``job_<id>_conf.xml``."""
    return _CONF_NAME.search(name) is not None


def unescape(value: str) -> str:
    """Remove JobHistory escapes (``\\.`` ``\\"`` ``\\=`` ``\\\\``) from a value."""
    return _ESCAPE.sub(r"\1", value)


def parse_counters(raw: str) -> Counters:
    """``{(group)(display)[(NAME)(display)(value)]...}...`` -> ``[(NAME, value), ...]`` in log order.

    ``raw`` is the logged (JobHistory-escaped) value. Counter names and groups may hold ``( ) [ ] { }``
    escaped with a backslash on top of the JobHistory escapes (``Counters.makeEscapedCompactString``).
    Malformed counter entries are skipped.
    """
    text = unescape(raw)
    out: list[tuple[str, int]] = []
    fields: list[str] = []
    current: list[str] | None = None
    depth_square = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if current is not None:
                current.append(text[i + 1])
            i += 2
            continue
        if ch == "(":
            current = []
        elif ch == ")" and current is not None:
            fields.append("".join(current))
            current = None
        elif current is not None:
            current.append(ch)
        elif ch == "[":
            depth_square = True
            fields = []
        elif ch == "]" and depth_square:
            depth_square = False
            if len(fields) == 3:
                try:
                    out.append((fields[0], int(fields[2])))
                except ValueError:
                    pass
            fields = []
        elif ch in "{}":
            fields = []
        i += 1
    return out


class _Record:
    """One complete JobHistory record: type, key -> raw value, and where it started."""

    __slots__ = ("kind", "values", "line", "residue")

    def __init__(self, text: str, line: int) -> None:
        space = text.find(" ")
        self.kind = text if space < 0 else text[:space]
        rest = "" if space < 0 else text[space + 1 :]
        self.values: dict[str, str] = {}
        for match in _KEY_VALUE.finditer(rest):
            self.values[match.group(1)] = match.group(2)
        self.residue = _KEY_VALUE.sub("", rest).strip().rstrip(".").strip()
        self.line = line

    def get(self, key: str) -> str | None:
        return self.values.get(key)

    def get_int(self, key: str) -> int | None:
        value = self.values.get(key)
        if value is None or value == "":
            return None
        try:
            return int(value)
        except ValueError:
            return None


class _Translator:
    """Turns records of one job into :class:`JobAccumulator` calls (the ``*20LineHistoryEventEmitter`` rules)."""

    def __init__(self, acc: JobAccumulator, where: str) -> None:
        self.acc = acc
        self.where = where

    def record(self, rec: _Record) -> None:
        handler = {
            "Job": self._job,
            "Task": self._task,
            "MapAttempt": self._attempt,
            "ReduceAttempt": self._attempt,
        }.get(rec.kind)
        if handler is not None:
            handler(rec)

    def _job(self, rec: _Record) -> None:
        acc = self.acc
        submit = rec.get_int("SUBMIT_TIME")
        if submit is not None:
            acc.job_submitted(
                job_name=rec.get("JOBNAME"),
                user=rec.get("USER") or "nulluser",
                submit_time=submit,
                queue=rec.get("JOB_QUEUE"),
            )
        priority = rec.get("JOB_PRIORITY")
        if priority:
            acc.job_priority(priority)
        status = rec.get("JOB_STATUS")
        if status:
            acc.job_status(status)
        launch = rec.get_int("LAUNCH_TIME")
        maps, reduces = rec.get_int("TOTAL_MAPS"), rec.get_int("TOTAL_REDUCES")
        if launch is not None:
            if maps is not None and reduces is not None:
                acc.job_inited(launch_time=launch, total_maps=maps, total_reduces=reduces)
            acc.job_info_changed(launch_time=launch)
        finish = rec.get_int("FINISH_TIME")
        if status and finish is not None and rec.get("FINISHED_MAPS") is not None and rec.get("FINISHED_REDUCES") is not None:
            if status.upper() == "SUCCESS":
                acc.job_finished(finish_time=finish)
            else:
                acc.job_unsuccessful(finish_time=finish, status=status)

    def _task(self, rec: _Record) -> None:
        acc = self.acc
        task_id = rec.get("TASKID")
        if not task_id:
            return
        task_type = rec.get("TASK_TYPE")
        start = rec.get_int("START_TIME")
        if start is not None and task_type:
            acc.task_started(task_id, task_type, start_time=start, splits=rec.get("SPLITS"))
        finish = rec.get_int("FINISH_TIME")
        if finish is None:
            return
        acc.task_updated(task_id, finish_time=finish)
        status = rec.get("TASK_STATUS")
        error = rec.get("ERROR")
        if error is None and status is not None and status.upper() == "SUCCESS":
            counters = rec.get("COUNTERS")
            acc.task_finished(
                task_id, finish_time=finish, status=status, counters=parse_counters(counters) if counters else None
            )
        elif error is not None or (status is not None and status.upper() != "SUCCESS"):
            acc.task_finished(task_id, finish_time=finish, status=status or "FAILED", counters=None)

    def _attempt(self, rec: _Record) -> None:
        acc = self.acc
        attempt_id = rec.get("TASK_ATTEMPT_ID")
        task_id = rec.get("TASKID")
        if not attempt_id or not task_id:
            return
        start = rec.get_int("START_TIME")
        if start is not None and rec.get("TASK_TYPE") is not None:
            acc.attempt_started(task_id, attempt_id, start_time=start)
        finish = rec.get_int("FINISH_TIME")
        status = rec.get("TASK_STATUS")
        if finish is None or status is None:
            return
        hostname = rec.get("HOSTNAME")
        counters_raw = rec.get("COUNTERS")
        counters = parse_counters(counters_raw) if counters_raw else None
        if status.upper() != "SUCCESS":
            acc.attempt_unsuccessful(
                task_id, attempt_id, status=status, finish_time=finish, hostname=hostname, rackname=None, counters=counters
            )
            return
        shuffle = sort = None
        has_host = True
        if rec.kind == "ReduceAttempt":
            shuffle, sort = rec.get_int("SHUFFLE_FINISHED"), rec.get_int("SORT_FINISHED")
            # Rumen emits ReduceAttemptFinished (which sets hostName) only with both phase times.
            has_host = shuffle is not None and sort is not None
            if not has_host:
                shuffle = sort = None
        acc.attempt_finished(
            task_id,
            attempt_id,
            status=status,
            finish_time=finish,
            hostname=hostname,
            rackname=None,
            counters=counters,
            set_host_name=has_host,
            shuffle_finished=shuffle,
            sort_finished=sort,
        )


class _JobStream:
    """Feeds sections and records to the current job's accumulator; hands out finished jobs in order."""

    def __init__(self, warnings: list[str] | None, failed_attempt_host: FailedAttemptHost) -> None:
        self.warnings = warnings
        self.failed_attempt_host = failed_attempt_host
        self.acc: JobAccumulator | None = None
        self.done: list[dict[str, Any]] = []

    def switch_to(self, job_id: str) -> JobAccumulator:
        if self.acc is not None and self.acc.job_id == job_id:
            return self.acc
        self.flush()
        self.acc = JobAccumulator(job_id, warnings=self.warnings, failed_attempt_host=self.failed_attempt_host)
        return self.acc

    def flush(self) -> None:
        if self.acc is not None:
            self.done.append(self.acc.build())
            self.acc = None

    def conf(self, job_id: str, data: bytes, where: str) -> None:
        try:
            props = parse_job_conf(data, where)
        except InputError as exc:
            report(self.warnings, f"job {job_id}: {exc}; conf ignored")
            return
        self.switch_to(job_id).apply_conf(props)

    def record(self, rec: _Record, section_job: str | None, where: str) -> None:
        if rec.kind not in _RECORD_TYPES:
            report(self.warnings, f"{where}: line {rec.line}: unknown record type {rec.kind[:40]!r}; skipped")
            return
        if rec.kind in ("Meta", "Jobtracker"):
            return
        job_id = rec.get("JOBID") if rec.kind == "Job" else job_id_of_task(rec.get("TASKID") or "")
        if job_id is None:
            job_id = section_job or (self.acc.job_id if self.acc else None)
        if job_id is None:
            report(self.warnings, f"{where}: line {rec.line}: {rec.kind} record names no job; skipped")
            return
        if self.acc is not None and job_id != self.acc.job_id and rec.kind != "Job":
            if section_job is not None or self.acc.has_events:
                report(
                    self.warnings,
                    f"{where}: line {rec.line}: {rec.kind} record of {job_id} inside the history of "
                    f"{self.acc.job_id}; skipped",
                )
                return
        acc = self.switch_to(job_id)
        if rec.residue:
            acc.note(f"{where}: line {rec.line}: malformed {rec.kind} record (unparsed {rec.residue[:40]!r}); used what parsed")
        _Translator(acc, where).record(rec)


def _history_files(path: Path) -> list[Path]:
    """The inputs TraceBuilder would read: a file (plus its conf beside it) or a directory, name-sorted."""
    if path.is_dir():
        return sorted(
            (p for p in path.iterdir() if p.is_file() and not p.name.startswith(".") and not p.name.endswith(".crc")),
            key=lambda p: p.name,
        )
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    files = [path]
    job_id = job_id_in(path.name)
    if job_id is not None and not is_conf_name(path.name):
        prefix = path.name[: path.name.index(job_id) + len(job_id)]
        conf = path.with_name(prefix + "_conf.xml")
        if conf.is_file():
            files.append(conf)
    return sorted(files, key=lambda p: p.name)


def iter_jobhistory_jobs(
    path: str | os.PathLike[str],
    *,
    warnings: list[str] | None = None,
    failed_attempt_host: FailedAttemptHost = FailedAttemptHost.LOGGED,
) -> Iterator[dict[str, Any]]:
    """Yield one Rumen ``LoggedJob`` dict per job in a 0.20/1.x JobHistory file, bundle or directory.

    ``warnings`` collects one-line problems (truncation, dropped records), each naming the job or the
    file and line; without a list they go to the ``mrsim.profiler`` logger. ``failed_attempt_host``
    picks trunk (``LOGGED``) or Hadoop 1.x (``NULL``) Rumen behaviour for unsuccessful attempts.
    Raises :class:`InputError` for a missing path or a file that is not a JobHistory log.
    """
    root = Path(path)
    stream = _JobStream(warnings, failed_attempt_host)
    for file in _history_files(root):
        yield from _read_file(file, stream, explicit=not root.is_dir())
    stream.flush()
    yield from _drain(stream)


def _drain(stream: _JobStream) -> Iterator[dict[str, Any]]:
    while stream.done:
        yield stream.done.pop(0)


def _read_file(file: Path, stream: _JobStream, *, explicit: bool) -> Iterator[dict[str, Any]]:
    where = str(file)
    if is_conf_name(file.name):
        stream.conf(job_id_in(file.name) or "", read_bytes(file), where)
        yield from _drain(stream)
        return
    with open_text(file) as fh:
        try:
            first = _first_line(fh)
        except (EOFError, OSError, zlib.error) as exc:
            raise InputError(f"{where}: corrupt or empty compressed data ({exc})") from None
        if first is None:
            report(stream.warnings, f"{where}: empty file; skipped")
            return
        if not sniff(first.encode(), file.name):
            if explicit:
                raise InputError(f"{where}: not a Hadoop 0.20/1.x JobHistory log (first line {first[:60]!r})")
            report(stream.warnings, f"{where}: not a JobHistory log; skipped")
            return
        lines = _safe_lines(_chain_first(first, fh), where, stream)
        yield from _read_sections(lines, file.name, where, stream)


def _first_line(fh: Any) -> str | None:
    for line in fh:
        if line.strip():
            return line
    return None


def _chain_first(first: str, fh: Any) -> Iterator[str]:
    yield first
    yield from fh


def _safe_lines(lines: Iterator[str], where: str, stream: _JobStream) -> Iterator[str]:
    """Lines until the data ends; a cut or corrupt gzip stream ends them early with a warning."""
    count = 0
    try:
        for line in lines:
            count += 1
            yield line
    except (EOFError, OSError, zlib.error) as exc:
        owner = f"job {stream.acc.job_id}: " if stream.acc else ""
        report(stream.warnings, f"{owner}{where}: compressed data ends early after line {count} ({exc}); read up to there")


def _read_sections(lines: Iterator[str], file_name: str, where: str, stream: _JobStream) -> Iterator[dict[str, Any]]:
    """Split a file into ``\\f!!FILE=`` sections (or one implicit section) and read each."""
    section_name = file_name
    conf_lines: list[str] | None = None
    pending: list[str] = []
    pending_line = 0
    lineno = 0

    def end_section() -> None:
        nonlocal pending, conf_lines
        job = job_id_in(section_name)
        if pending:
            owner = job or (stream.acc.job_id if stream.acc else "?")
            report(
                stream.warnings,
                f"job {owner}: {where}: line {pending_line}: record cut off at end of "
                f"{'file' if section_name == file_name else 'section ' + section_name}; dropped",
            )
            pending = []
        if conf_lines is not None:
            stream.conf(job or "", "".join(conf_lines).encode(), f"{where} [{section_name}]")
            conf_lines = None

    for raw in lines:
        lineno += 1
        if raw.startswith(FILE_MARKER):
            end_section()
            yield from _drain(stream)
            section_name = raw[len(FILE_MARKER) :].rstrip("\r\n").removesuffix("!!")
            conf_lines = [] if is_conf_name(section_name) else None
            continue
        if conf_lines is not None:
            conf_lines.append(raw)
            continue
        line = raw.rstrip("\r\n")
        if pending and _RECORD_START.match(line):
            # An unclosed quote must not swallow the following records: close the broken one here.
            stream.record(_Record("\n".join(pending), pending_line), job_id_in(section_name), where)
            pending = []
        if not pending:
            if len(line) < len(RECORD_END) or not line.strip():
                continue
            if line.startswith(("<?xml", "<configuration")):
                conf_lines = [raw]
                continue
            pending_line = lineno
        pending.append(line)
        if line.endswith(RECORD_END) and _quotes_closed(pending):
            text = "\n".join(pending)
            pending = []
            stream.record(_Record(text, pending_line), job_id_in(section_name), where)
            if stream.done:
                yield from _drain(stream)
    end_section()
    yield from _drain(stream)


def _quotes_closed(parts: list[str]) -> bool:
    """True when every quoted value of the record so far is closed (a record may span lines)."""
    text = "\n".join(parts) if len(parts) > 1 else parts[0]
    return _ESCAPE.sub("", text).count('"') % 2 == 0
