"""Hadoop 2.x / 3.x MapReduce job history (``.jhist``) -> Rumen ``LoggedJob`` dicts.

A ``.jhist`` file is written by ``org.apache.hadoop.mapreduce.jobhistory.EventWriter``: a first line
``Avro-Json`` or ``Avro-Binary``, the ``Event`` schema on line 2, then the events, either one Avro-JSON
object per line (blank lines may separate them) or back-to-back binary Avro records without a container
(Hadoop 3 default, MAPREDUCE-6613). A standard Avro object-container file (``Obj\\x01``) of ``Event``
records is accepted too. Binary decoding uses fastavro with the schema from line 2.

Events map to the accumulator exactly as Rumen's ``JobBuilder`` processes ``HistoryEvent``s: statuses go
through ``getPre21Value`` (``SUCCEEDED`` -> ``SUCCESS``), attempt hosts become ``/rack/host``, counters fill
the attempt and task fields, and the per-interval vectors (``clockSplits``, ``cpuUsages``,
``vMemKbytes`` -> ``vmemKbytes``, ``physMemKbytes``) are copied. All times are on the MR AM clock (ms).
A ``<jobId>_conf.xml`` beside a file is read too, in file-name order as TraceBuilder would.

Memory: one job (one file) at a time; events are decoded one by one.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any


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
from mrsim.io import safe_json
from mrsim.io.compressed import open_binary, read_bytes
from mrsim.io.safe_json import JSONValueError

JSON_MAGIC = b"Avro-Json"
BINARY_MAGIC = b"Avro-Binary"
CONTAINER_MAGIC = b"Obj\x01"

_UNION_BRANCHES = {"string", "long", "int", "boolean", "double", "float", "bytes", "array", "map", "null"}


def sniff(head: bytes, name: str) -> bool:
    """True for a ``.jhist`` stream: ``Avro-Json``/``Avro-Binary`` first line or an Avro container."""
    return head.startswith((JSON_MAGIC + b"\n", JSON_MAGIC + b"\r\n", BINARY_MAGIC + b"\n", CONTAINER_MAGIC))


def _plain(value: Any) -> Any:
    """Undo Avro-JSON union wrapping (``{"string": "x"}``, ``{"org...JhCounters": {...}}``)."""
    if isinstance(value, dict) and len(value) == 1:
        (branch, inner), = value.items()
        if branch in _UNION_BRANCHES or branch.startswith("org.apache.hadoop."):
            return inner
    return value


def _counters(value: Any) -> Counters | None:
    """JhCounters ``{"groups": [{"counts": [{"name", "value"}]}]}`` -> ``[(name, value), ...]``."""
    value = _plain(value)
    if not isinstance(value, dict):
        return None
    out: list[tuple[str, int]] = []
    for group in _plain(value.get("groups")) or ():
        for count in _plain(_plain(group).get("counts")) or ():
            count = _plain(count)
            name, number = _plain(count.get("name")), _plain(count.get("value"))
            if isinstance(name, str) and isinstance(number, int):
                out.append((name, number))
    return out


def _splits(body: Mapping[str, Any]) -> dict[str, list[int]]:
    keys = {"clockSplits": "clockSplits", "cpuUsages": "cpuUsages", "vMemKbytes": "vmemKbytes", "physMemKbytes": "physMemKbytes"}
    out = {}
    for source, target in keys.items():
        value = _plain(body.get(source))
        if isinstance(value, list):
            out[target] = [int(v) for v in value]
    return out


class _EventMapper:
    """Applies one ``.jhist`` event to the accumulator (``JobBuilder.process(HistoryEvent)``)."""

    def __init__(self, acc: JobAccumulator) -> None:
        self.acc = acc

    def apply(self, kind: str, body: Mapping[str, Any]) -> None:
        get = lambda key: _plain(body.get(key))  # noqa: E731 - tiny local accessor

        def ident(key: str) -> str:
            value = get(key)
            if not isinstance(value, str) or not value:
                raise ValueError(f"no {key}")
            return value

        acc = self.acc
        if kind == "JOB_SUBMITTED":
            acc.job_submitted(
                job_name=get("jobName"), user=get("userName"), submit_time=int(get("submitTime")), queue=get("jobQueueName")
            )
        elif kind == "JOB_INITED":
            acc.job_inited(
                launch_time=int(get("launchTime")), total_maps=int(get("totalMaps")), total_reduces=int(get("totalReduces"))
            )
        elif kind == "JOB_INFO_CHANGED":
            acc.job_info_changed(launch_time=int(get("launchTime")))
        elif kind == "JOB_QUEUE_CHANGED":
            acc.job_queue(get("jobQueueName"))
        elif kind == "JOB_PRIORITY_CHANGED":
            acc.job_priority(str(get("priority")))
        elif kind == "JOB_STATUS_CHANGED":
            acc.job_status(str(get("jobStatus")))
        elif kind == "JOB_FINISHED":
            acc.job_finished(finish_time=int(get("finishTime")))
        elif kind in ("JOB_FAILED", "JOB_KILLED", "JOB_ERROR"):
            acc.job_unsuccessful(finish_time=int(get("finishTime")), status=str(get("jobStatus") or kind[4:]))
        elif kind == "TASK_STARTED":
            acc.task_started(ident("taskid"), str(get("taskType")), start_time=int(get("startTime")), splits=get("splitLocations"))
        elif kind == "TASK_UPDATED":
            acc.task_updated(ident("taskid"), finish_time=int(get("finishTime")))
        elif kind in ("TASK_FINISHED", "TASK_FAILED"):
            counters = _counters(body.get("counters"))
            acc.task_finished(
                ident("taskid"), finish_time=int(get("finishTime")), status=str(get("status")), counters=counters or []
            )
        elif kind.endswith("_ATTEMPT_STARTED"):
            acc.attempt_started(ident("taskid"), ident("attemptId"), start_time=int(get("startTime")))
        elif kind in ("MAP_ATTEMPT_FINISHED", "REDUCE_ATTEMPT_FINISHED"):
            reduce = kind.startswith("REDUCE")
            acc.attempt_finished(
                ident("taskid"),
                ident("attemptId"),
                status=str(get("taskStatus")),
                finish_time=int(get("finishTime")),
                hostname=get("hostname"),
                rackname=get("rackname"),
                counters=_counters(body.get("counters")),
                shuffle_finished=int(get("shuffleFinishTime")) if reduce else None,
                sort_finished=int(get("sortFinishTime")) if reduce else None,
                splits=_splits(body),
            )
        elif kind in ("SETUP_ATTEMPT_FINISHED", "CLEANUP_ATTEMPT_FINISHED"):
            acc.attempt_finished(
                ident("taskid"),
                ident("attemptId"),
                status=str(get("taskStatus")),
                finish_time=int(get("finishTime")),
                hostname=get("hostname"),
                rackname=get("rackname"),
                counters=_counters(body.get("counters")),
                set_host_name=False,
            )
        elif kind.endswith(("_ATTEMPT_FAILED", "_ATTEMPT_KILLED")):
            acc.attempt_unsuccessful(
                ident("taskid"),
                ident("attemptId"),
                status=str(get("status") or kind.rsplit("_", 1)[-1]),
                finish_time=int(get("finishTime")),
                hostname=get("hostname"),
                rackname=get("rackname"),
                counters=_counters(body.get("counters")),
                splits=_splits(body),
            )
        # AM_STARTED, NORMALIZED_RESOURCE and newer informational events carry nothing Rumen keeps.


def _event_body(event: Any) -> Mapping[str, Any]:
    """The record inside ``Event.event`` (a JSON union wrapper, a fastavro ``(name, record)`` or a dict)."""
    if isinstance(event, tuple) and len(event) == 2:
        event = event[1]
    event = _plain(event)
    return event if isinstance(event, dict) else {}


def _iter_events(fh: IO[bytes], where: str) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """Yield ``(event number or line, type, body)`` from a ``.jhist`` byte stream."""
    head = fh.read(4)
    if head == CONTAINER_MAGIC:
        import fastavro  # here, not at module level: every command imports this reader, few read .jhist files

        fh.seek(0)  # plain and gzip streams are seekable; a 4-byte rewind is cheap for both
        stream = fh
        try:
            for number, record in enumerate(fastavro.reader(stream), start=1):
                yield number, str(record.get("type")), _event_body(record.get("event"))
        except (ValueError, EOFError, StopIteration) as exc:
            raise InputError(f"{where}: corrupt Avro container ({exc})") from None
        return
    magic = (head + fh.readline()).rstrip(b"\r\n")
    schema_line = fh.readline()
    if magic not in (JSON_MAGIC, BINARY_MAGIC):
        raise InputError(f"{where}: line 1: expected 'Avro-Json' or 'Avro-Binary', found {magic[:40]!r}")
    try:
        schema = safe_json.loads(schema_line)
    except ValueError:  # malformed JSON or undecodable bytes
        raise InputError(f"{where}: line 2: the Avro event schema is not valid JSON") from None
    if magic == JSON_MAGIC:
        yield from _iter_json_events(fh, where)
    else:
        yield from _iter_binary_events(fh, where, schema)


def _iter_json_events(fh: IO[bytes], where: str) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    for number, raw in enumerate(fh, start=3):
        if not raw.strip():
            continue
        event = safe_json.fast_loads(raw)
        try:
            if event is safe_json.STRICT:
                event = safe_json.loads(raw)
        except JSONValueError as exc:
            raise InputError(f"{where}: line {number}: {exc.msg}") from None
        except ValueError as exc:  # malformed JSON or undecodable bytes
            if not raw.endswith(b"\n"):
                raise _Truncated(number) from None
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            raise InputError(f"{where}: line {number}: malformed event JSON ({reason})") from None
        if not isinstance(event, dict) or "type" not in event:
            raise InputError(f"{where}: line {number}: an event needs 'type' and 'event'")
        yield number, str(event["type"]), _event_body(event.get("event"))


def _iter_binary_events(fh: IO[bytes], where: str, schema: Any) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    import fastavro  # see _iter_events

    try:
        parsed = fastavro.parse_schema(schema)
    except Exception as exc:  # fastavro raises several types for a bad schema
        raise InputError(f"{where}: line 2: unusable Avro schema ({exc})") from None
    # peek() tells a clean end from a cut record without seeking back (a GzipFile would re-decompress).
    stream = fh if hasattr(fh, "peek") else io.BufferedReader(fh)  # type: ignore[arg-type]
    number = 0
    while True:
        if not stream.peek(1):
            return
        number += 1
        try:
            record = fastavro.schemaless_reader(stream, parsed)
        except (EOFError, StopIteration, IndexError, ValueError, UnicodeDecodeError, OverflowError, MemoryError):
            # MemoryError: a corrupt length field makes the Avro reader ask for more bytes than the machine holds.
            raise _Truncated(number, "is cut off or corrupt; it and the rest of the file") from None
        yield number, str(record.get("type")), _event_body(record.get("event"))


class _Truncated(Exception):
    """The stream ends inside an event (a job still running, or a cut file), or binary data is corrupt."""

    def __init__(self, position: int, what: str = "is cut off (file truncated)") -> None:
        super().__init__(position)
        self.position = position
        self.what = what


def _job_id_of(kind: str, body: Mapping[str, Any]) -> str | None:
    job = _plain(body.get("jobid"))
    if isinstance(job, str):
        return job
    for key in ("taskid", "attemptId"):
        value = _plain(body.get(key))
        if isinstance(value, str):
            return job_id_of_task(value)
    return None


def read_jhist_file(
    path: Path,
    *,
    warnings: list[str] | None = None,
    failed_attempt_host: FailedAttemptHost = FailedAttemptHost.LOGGED,
    conf: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """One ``.jhist`` file -> its ``LoggedJob`` dict (None when it holds no event), with ``conf`` applied last."""
    where = str(path)
    acc: JobAccumulator | None = None
    with open_binary(path) as fh:
        events = _iter_events(fh, where)
        try:
            for position, kind, body in events:
                if acc is None:
                    job_id = _job_id_of(kind, body) or job_id_in(path.name)
                    if job_id is None:
                        continue
                    acc = JobAccumulator(job_id, warnings=warnings, failed_attempt_host=failed_attempt_host)
                    mapper = _EventMapper(acc)
                try:
                    mapper.apply(kind, body)
                except (TypeError, ValueError, AttributeError) as exc:
                    acc.note(f"{where}: event {position} ({kind}) is missing a field or has a bad value ({exc}); skipped")
        except _Truncated as cut:
            owner = acc.job_id if acc else job_id_in(path.name) or "?"
            report(warnings, f"job {owner}: {where}: event {cut.position} {cut.what}; dropped")
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            owner = acc.job_id if acc else job_id_in(path.name) or "?"
            report(warnings, f"job {owner}: {where}: compressed data ends early ({exc}); read up to there")
        except OSError as exc:
            raise InputError(f"{where}: unreadable ({exc})") from None
    if acc is None:
        report(warnings, f"{where}: no job events; skipped")
        return None
    if conf is not None:
        acc.apply_conf(conf)
    return acc.build()


def _conf_beside(path: Path, warnings: list[str] | None) -> dict[str, str] | None:
    job_id = job_id_in(path.name)
    if job_id is None:
        return None
    conf = path.with_name(f"{job_id}_conf.xml")
    if not conf.is_file():
        return None
    try:
        return parse_job_conf(read_bytes(conf), str(conf))
    except InputError as exc:
        report(warnings, f"job {job_id}: {exc}; conf ignored")
        return None


def iter_jhist_jobs(
    path: str | os.PathLike[str],
    *,
    warnings: list[str] | None = None,
    failed_attempt_host: FailedAttemptHost = FailedAttemptHost.LOGGED,
) -> Iterator[dict[str, Any]]:
    """Yield a Rumen ``LoggedJob`` dict for a ``.jhist`` file, or for each one in a directory (name order).

    A ``<jobId>_conf.xml`` beside a history file supplies queue, job name and heap sizes, processed after
    the events as TraceBuilder's name order does. ``warnings`` collects one-line problems naming the job
    (e.g. more reduce tasks than ``totalReduces`` declares: the tasks are kept). Raises
    :class:`InputError` for a missing path or a file that is not a ``.jhist``.
    """
    root = Path(path)
    if root.is_dir():
        files = []
        for child in sorted(root.iterdir(), key=lambda p: p.name):
            if child.is_file() and not child.name.startswith(".") and not child.name.endswith(".crc"):
                with open_binary(child) as fh:
                    if sniff(fh.read(16), child.name):
                        files.append(child)
    elif root.is_file():
        files = [root]
    else:
        raise InputError(f"{root}: no such file or directory")
    for file in files:
        job = read_jhist_file(
            file, warnings=warnings, failed_attempt_host=failed_attempt_host, conf=_conf_beside(file, warnings)
        )
        if job is not None:
            yield job
