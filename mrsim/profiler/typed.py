"""Plain Rumen jobs decoded straight into columns: typed JSON decoding that builds no per-attempt dict.

The one-pass ingest (:mod:`mrsim.profiler.ingest`) reads most jobs through
:func:`mrsim.profiler.plain.plain_job`: one Python walk over the dicts ``orjson`` built, proving the job's *plain*
shape (every map and reduce task has one successful attempt with integer times in range and a host name) while
reading a few fields of each task into lists. On the 1148-job benchmark trace, building those 900,000 dicts and
walking them is about half of a ``--no-cache`` replay's parse (``docs/performance.md``, "How a trace is read").

:func:`typed_job` decodes one job object with ``msgspec`` instead, into :class:`msgspec.Struct` types whose fields
carry the walk's conditions as their types (``Literal["SUCCESS"]``, integers in ``(0, 10**14)``, a list of exactly
one attempt, a non-empty host name string): the decoder proves the shape in C while it parses, and the columns are
then read from the structs by one comprehension per column, not by a Python step per attempt. The job-level fields
(all but the two task lists: ``jobProperties``, ``otherTasks``, the times, the CDFs) are kept as raw bytes by the
decoder and decoded by ``orjson``, as the fast path decodes them, so they are the same objects; one holding a run of
19 digits is decoded by the reader's strict decoder instead, as the reader decodes such a job
(:mod:`mrsim.profiler.rumen`: ``orjson`` reads an integer beyond 64 bits as a float). Rumen's ``TraceBuilder`` writes
such a run in every job, the ``Long.MAX_VALUE`` and ``Long.MIN_VALUE`` bounds of an empty ``LoggedDiscreteCDF``.
Such a job whose job-level values hold more ``[`` and ``{`` than half the recursion limit goes to the old path: the
strict decoder refuses deep nesting by the recursion budget, which ``msgspec`` spends too from another depth of the
stack, so near the limit the two could disagree (:func:`_deep`).

**Three schemas, tried in turn**, each a superset of the one before: the lean one (the walk's fields and ``mrsim
synth``'s), then Rumen's (the counters ``TraceBuilder`` writes, ``resourceUsageMetrics``), then the located one
(split locations and attempt locations too). A schema's refusal sends the job on only when the next one lifts its
reason (an unknown field; a location), which the first two meet at the first task or attempt that has it, so a
job without locations never pays for them and a real job pays one or two short false starts (``TraceBuilder``
writes an attempt's ``location`` first: the lean schema refuses the job there and hands it to the located one).

**Real traces' locations.** Rumen writes ``preferredLocations`` on each map (a list of ``{"layers": [rack,
host]}``) and a ``location`` on each attempt (such an object, or null when its host is not in the topology). The
located schema takes a location as the dict ``orjson`` gives: the one key ``layers``, a list of strings (an empty
object is the empty dict). The columns then give the readers what they read of a plain job's task lists and
attempts, the same values as the walk's dicts: per map whether its list is non-empty (``map_locations_given``),
``any_locations`` and ``any_attempt_location`` (an attempt with the key at all, even null); when some task has
split locations, the task lists (the job's and the columns') as dicts holding each task's ``preferredLocations``
alone (the template builder's split hosts, the slot usage's racks, the deferred collectors' copy); when some
attempt has a ``location``, the attempts as ``{"hostName", "location"}`` dicts (the key left out where the attempt
has none), which :func:`mrsim.profiler.topology_infer.attempt_host` and the slot usage read. Each costs one pass over
the tasks or attempts, and a small dict each, only for a job that has them.

**The schema is closed** (``forbid_unknown_fields``): a job, task, attempt, location or usage object with a field
the types do not name takes the old path. So nothing is skipped unread, and every byte of a job the typed decoder
takes is either decoded with a type (strings with their UTF-8 and escapes checked, integers with a range of at most
18 digits) or handed to ``orjson`` or the strict decoder (the job-level values, after the same check for runs of 19
digits the fast path makes). Hence a job it takes is one the reader without it would read, and to the same values;
and the fast path's check for integers of 19 digits or more (a ``translate`` over every byte, about a sixth of the
reader's instructions) is needed only for the job-level bytes and for the objects the typed decoder does not take.
The fields named are those of Rumen's ``LoggedJob``, ``LoggedTask``, ``LoggedTaskAttempt``, ``LoggedLocation`` and
``ResourceUsageMetrics`` that ``mrsim synth`` and Rumen's ``TraceBuilder`` write.

Anything else gives None and the caller decodes the object as before (``orjson``, then the strict standard-library
decoder for what ``orjson`` refuses), so every hostile-input check, one-line error and warning stays where it was:
a job that is not plain, one with a field outside the schema or a location the located schema refuses (another
key, null or non-string layers, a location that is not an object: the walk accepts them and the readers skip,
stringify or refuse them with their one-line error), and whatever ``msgspec`` refuses (bad JSON, ``NaN``, a lone
surrogate, invalid UTF-8, nesting past the interpreter's recursion limit). Duplicate keys: the last one wins in
``msgspec``, ``orjson`` and the standard library alike. The job-level fields come in the schema's order, not the
file's (nothing reads them in order).

Cost: on the benchmark trace about a third of ``orjson`` plus the walk, per job; every plain job of the real Rumen
traces under ``shared/data`` takes it too (``docs/performance.md``, "How a trace is read").
"""

from __future__ import annotations

import sys
from itertools import chain
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
import orjson
from msgspec import UNSET, Meta, Raw, UnsetType

from mrsim.profiler.logged_check import MAX_TIME_MS
from mrsim.profiler.plain import PlainJob
from mrsim.io.safe_json import raw_decode, strict_decoder

#: A time ``plain_job`` accepts for a task or attempt start/finish: an integer in ``(0, MAX_TIME_MS)``.
_Time = Annotated[int, Meta(gt=0, lt=MAX_TIME_MS)]
#: A reduce attempt's ``shuffleFinished``/``sortFinished``: absent, null (both read as -1) or an integer in range.
_Phase = Annotated[int, Meta(gt=-MAX_TIME_MS, lt=MAX_TIME_MS)] | None
#: A count the walk does not read (bytes, records, a CPU or memory sample): at most 18 digits, so never a run of 19.
_Count = Annotated[int, Meta(gt=-(10**18), lt=10**18)] | None
#: ``preferredLocations`` in the first two schemas: absent, null or an empty list (a job with split locations gets
#: the located schema).
_NoLocations = Annotated[list[Any], Meta(max_length=0)] | None
#: A ``LoggedLocation`` (a split's or an attempt's): ``{"layers": [rack, host]}``, decoded as the dict ``orjson``
#: gives (a dict, not a struct: the readers take it as it is). Its one key is ``layers``, a list of strings; an
#: empty object is the empty dict, as in ``orjson``. Anything else (another key, null or non-string layers) refuses
#: the job, which then takes the dict path with its checks.
_Location = dict[Literal["layers"], list[str]]


class _Attempt(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The one attempt of a plain task (``LoggedTaskAttempt``): the fields the walk reads, typed as it checks them.
    Only these (and ``mrsim synth``'s): every field declared costs each attempt a default when it is absent."""

    startTime: _Time
    finishTime: _Time
    hostName: Annotated[str, Meta(min_length=1)]
    attemptID: str
    result: Literal["SUCCESS"]
    location: UnsetType = UNSET  # present at all (even null): the dict path (the host comes from there)
    shuffleFinished: _Phase = None  # read for reduces only
    sortFinished: _Phase = None


class _Usage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An attempt's ``resourceUsageMetrics`` (Rumen's ``ResourceUsageMetrics``): counters the walk does not read."""

    cumulativeCpuUsage: _Count = None
    virtualMemoryUsage: _Count = None
    physicalMemoryUsage: _Count = None
    heapUsage: _Count = None


class _RumenAttempt(_Attempt, forbid_unknown_fields=True, gc=False):
    """:class:`_Attempt` with the other fields Rumen's ``TraceBuilder`` writes, typed so that none is skipped."""

    hdfsBytesRead: _Count = None
    hdfsBytesWritten: _Count = None
    fileBytesRead: _Count = None
    fileBytesWritten: _Count = None
    mapInputRecords: _Count = None
    mapInputBytes: _Count = None
    mapOutputBytes: _Count = None
    mapOutputRecords: _Count = None
    combineInputRecords: _Count = None
    reduceInputGroups: _Count = None
    reduceInputRecords: _Count = None
    reduceShuffleBytes: _Count = None
    reduceOutputRecords: _Count = None
    spilledRecords: _Count = None
    clockSplits: list[_Count] | None = None
    cpuUsages: list[_Count] | None = None
    vmemKbytes: list[_Count] | None = None
    physMemKbytes: list[_Count] | None = None
    resourceUsageMetrics: _Usage | None = None


class _LocatedAttempt(_RumenAttempt, forbid_unknown_fields=True, gc=False):
    """:class:`_RumenAttempt` with its ``location``: absent, null or a :data:`_Location` (Rumen's ``TraceBuilder``
    writes one on every attempt, null when the host is not in the topology)."""

    location: _Location | None | UnsetType = UNSET


def _task(name: str, kind: str, attempt: type, extra: tuple[tuple[str, Any, Any], ...],
          locations: Any = _NoLocations) -> type:
    """A plain ``LoggedTask`` of ``kind`` (``MAP``/``REDUCE``) whose one attempt is an ``attempt``."""
    return msgspec.defstruct(name, [
        ("startTime", _Time), ("finishTime", _Time),
        ("attempts", Annotated[list[attempt], Meta(min_length=1, max_length=1)]),  # type: ignore[valid-type]
        ("taskType", Literal[kind] | None, None), ("preferredLocations", locations, None),  # type: ignore[valid-type]
        ("taskID", str | None, None), ("taskStatus", str | None, None), *extra], forbid_unknown_fields=True, gc=False)


_RUMEN_TASK_FIELDS = tuple((name, _Count, None) for name in ("inputBytes", "inputRecords", "outputBytes",
                                                              "outputRecords", "numberMaps", "numberReduces"))
_MapTask, _ReduceTask = _task("_MapTask", "MAP", _Attempt, ()), _task("_ReduceTask", "REDUCE", _Attempt, ())
_RumenMapTask = _task("_RumenMapTask", "MAP", _RumenAttempt, _RUMEN_TASK_FIELDS)
_RumenReduceTask = _task("_RumenReduceTask", "REDUCE", _RumenAttempt, _RUMEN_TASK_FIELDS)
_SplitLocations = list[_Location] | None  # absent, null or a list of locations (empty: none given)
_LocatedMapTask = _task("_LocatedMapTask", "MAP", _LocatedAttempt, _RUMEN_TASK_FIELDS, _SplitLocations)
_LocatedReduceTask = _task("_LocatedReduceTask", "REDUCE", _LocatedAttempt, _RUMEN_TASK_FIELDS, _SplitLocations)


#: The job-level fields of a ``LoggedJob`` (Rumen's, and those mrsim's log readers add), kept as raw bytes.
_JOB_FIELDS = ("jobID", "jobName", "user", "queue", "priority", "submitTime", "launchTime", "finishTime",
               "totalMaps", "totalReduces", "outcome", "jobtype", "heapMegabytes", "jobMapMB", "jobReduceMB",
               "clusterMapMB", "clusterReduceMB", "computonsPerMapInputByte", "computonsPerMapOutputByte",
               "computonsPerReduceInputByte", "computonsPerReduceOutputByte", "relativeTime", "directDependantJobs",
               "otherTasks", "successfulMapAttemptCDFs", "failedMapAttemptCDFs", "successfulReduceAttemptCDF",
               "failedReduceAttemptCDF", "mapperTriesToSucceed", "failedMapperFraction", "jobProperties")



def _job(name: str, map_task: type, reduce_task: type) -> msgspec.json.Decoder:
    """A decoder of a ``LoggedJob`` with typed task lists and its job-level fields as raw bytes."""
    return msgspec.json.Decoder(msgspec.defstruct(name, [
        ("mapTasks", list[map_task]), ("reduceTasks", list[reduce_task]),  # type: ignore[valid-type]
        *((field, Raw | UnsetType, UNSET) for field in _JOB_FIELDS)], forbid_unknown_fields=True, gc=False))


#: The lean schema first (the walk's fields and ``mrsim synth``'s); a job with a field only Rumen writes then gets
#: the second, which names them too (an unknown field fails at its first task: the first try costs little); a job
#: with a split location or an attempt ``location`` (every plain job of Rumen's ``TraceBuilder``: it writes a
#: ``location`` on each attempt, often null) gets the third, which types those too (the first two refuse them at
#: the first one: a real job's first attempt). So a job without locations never pays for them.
_LEAN, _RUMEN = _job("_Job", _MapTask, _ReduceTask), _job("_RumenJob", _RumenMapTask, _RumenReduceTask)
_LOCATED = _job("_LocatedJob", _LocatedMapTask, _LocatedReduceTask)
_LOCATED_JOB = _LOCATED.type
#: Where a validation error of the first two schemas means "has locations": the error's path ends at one.
_AT_LOCATIONS = (".location`", ".preferredLocations`")
_TASK_KEYS = ("mapTasks", "reduceTasks")
#: Digits to ``0``, every other byte to a space: a run of 19 marks an integer orjson may read as a float.
_DIGIT_CLASS = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_LONG_RUN = b"0" * 19
_STRICT = strict_decoder()  # the reader's strict decoder (mrsim.profiler.rumen._iter_strict), for _strict_value


class TypedJob(dict):  # type: ignore[type-arg]
    """A job decoded by :func:`typed_job`: its job-level fields as ``orjson`` gives them, ``mapTasks`` and
    ``reduceTasks`` as lists of typed tasks (read through :attr:`columns` only) or, when some task has split
    locations, of dicts holding each task's ``preferredLocations`` alone (what the readers of a plain job's task
    lists read: :func:`_split_lists`), the columns, and the object's bytes, from which :meth:`full` decodes the
    whole job as the fast path would (for error messages and for the collectors' general paths, which walk task
    dicts)."""

    __slots__ = ("columns", "piece", "source", "offset", "length", "times")

    columns: PlainJob
    piece: bytes | memoryview | None  # None once pickled (mrsim.profiler.rumen_worker): read again from the source when needed
    source: str
    offset: int  # where the object starts in the (decompressed) input, and its length in bytes
    length: int
    times: np.ndarray | None  # typed_job's (4, tasks) array whose rows are the columns' arrays (None: not made so)

    def full(self) -> dict[str, Any]:
        """The job as the reader decodes it without the typed decoder (``orjson``, or the strict decoder for an object
        holding a run of 19 digits: :mod:`mrsim.profiler.rumen`). Cost: the object decoded whole, as the fast path
        would; called rarely (an error message, a repeated job id)."""
        piece = self.piece
        if piece is None:  # rare (an error message, a repeated job id): read the input again up to the object
            from mrsim.io.compressed import open_binary

            with open_binary(self.source) as fh:
                fh.seek(self.offset)
                piece = fh.read(self.length)
        if bytes(piece).translate(_DIGIT_CLASS).find(_LONG_RUN) < 0:
            try:
                return orjson.loads(piece)
            except orjson.JSONDecodeError:  # cannot happen (the typed decoder took it): the strict reading
                pass
        # a run of 19 digits (a job-level value the typed decoder read the strict way): the reader's strict reading
        return raw_decode(_STRICT, bytes(piece).decode("utf-8", "replace"))[0]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled without its typed tasks: the job-level fields (the task lists as placeholders, in their place),
        the four time columns as one ``(4, tasks)`` array and the reduces' phase ends as one ``(2, reduces)`` array
        (a buffer each, not an object per value), the attempt ids as one newline-joined string when no id holds a
        newline, the host names as codes into their distinct values (no codes when all are one name); its bytes
        only when :attr:`piece` is a ``bytes`` object (the forked reader makes it one for a job whose :meth:`full`
        the pass may need: :mod:`mrsim.profiler.rumen_worker`), not a view of the reader's buffer. Cost: a few C calls
        over each column, about 10 us a job plus the bytes copied (the 1148-job trace: about 20 MB)."""
        c = self.columns
        hosts = c.host_names
        # One host name (value compares, no hashing; the last name first, so that a job on several hosts seldom
        # pays the count)
        if hosts and hosts[0] == hosts[-1] and hosts.count(hosts[0]) == len(hosts):
            names: list[str] = [hosts[0]]
            codes: np.ndarray | None = None
        else:
            distinct = dict.fromkeys(hosts)
            code_of = {name: code for code, name in enumerate(distinct)}
            names = list(distinct)
            codes = np.fromiter(map(code_of.__getitem__, hosts), dtype=np.int32, count=len(hosts))
        fields = {key: (None if key in _TASK_KEYS else value) for key, value in self.items()}
        ids = c.attempt_ids
        # One string for the ids when no id holds a newline: a list of 300,000 short strings costs the pickle and the
        # unpickling a step each (about 0.04 s and 0.02 s on the 1148-job trace), one string and a split far less.
        joined = "\n".join(ids)
        packed: str | list[str] = joined if ids and joined.count("\n") == len(ids) - 1 else ids
        # The times as one buffer: typed_job's own array, else the columns' arrays stacked (a job made otherwise).
        times = self.times if self.times is not None else np.stack(c.arrays())
        # The phase ends likewise (integers in range, see _Phase): 200,000 pickled one by one on the 1148-job trace.
        shuffles, sorts = c.shuffle_finished, c.sort_finished
        n_reduces = len(shuffles)
        phases = np.fromiter(chain(shuffles, sorts), dtype=np.int64, count=2 * n_reduces).reshape(2, n_reduces) \
            if n_reduces else None
        columns = (c.n_maps, len(c.reduces), names, codes, packed, phases, times,
                   (c.map_locations_given, c.maps, c.reduces) if c.any_locations else None,
                   c.attempts if c.any_attempt_location else None)
        piece = self.piece if type(self.piece) is bytes else None
        return _unpickled, (fields, columns, self.source, self.offset, self.length, piece)


def _unpickled(fields: dict[str, Any], columns: tuple[Any, ...], source: str, offset: int, length: int,
               piece: bytes | None = None) -> TypedJob:
    """A :class:`TypedJob` from :meth:`TypedJob.__reduce__`'s parts: the same fields and columns; the task lists
    hold placeholders (``None``) of the same lengths (the dicts of :func:`_split_lists` when some task has split
    locations), and :meth:`TypedJob.full` decodes ``piece``, else reads the bytes again (an error message: once)."""
    n_maps, n_reduces, names, codes, ids, phases, times, splits, where = columns
    if type(ids) is str:  # joined by __reduce__ (no id held a newline)
        ids = ids.split("\n")
    if splits is None:
        given, maps, reduces = [False] * n_maps, [None] * n_maps, [None] * n_reduces
    else:
        given, maps, reduces = splits
    job = TypedJob()
    for key, value in fields.items():
        job[key] = maps if key == "mapTasks" else reduces if key == "reduceTasks" else value
    times.setflags(write=False)  # before the rows are taken: read-only views, as typed_job makes them
    task_start, task_finish, attempt_start, attempt_finish = times.tolist()
    shuffles, sorts = phases.tolist() if phases is not None else ([], [])
    hosts = [names[0]] * times.shape[1] if codes is None else list(map(names.__getitem__, codes.tolist()))
    job.columns = PlainJob(maps, reduces, n_maps, task_start, task_finish, attempt_start, attempt_finish, hosts, ids,
                           shuffles, sorts, [] if where is None else where, given, splits is not None,
                           where is not None, cached=(times[0], times[1], times[2], times[3]))
    job.piece, job.source, job.offset, job.length, job.times = piece, source, offset, length, times
    return job


def full_job(job: Any) -> Any:
    """``job`` with task dicts: a :class:`TypedJob` decoded whole, anything else as it is."""
    return job.full() if type(job) is TypedJob else job


def _phase(values: list[int | None]) -> list[int]:
    """``plain._reduce_time`` of decoded phase ends: null and absent read as -1."""
    if None in values:
        return [-1 if v is None else v for v in values]
    return values  # type: ignore[return-value]


def _split_lists(maps: list[Any], reduces: list[Any]) -> tuple[list[bool], list[dict[str, Any]],
                                                                  list[dict[str, Any]]] | None:
    """``(given per map, map dicts, reduce dicts)`` when some task of the located schema has a non-empty
    ``preferredLocations`` list, else None. Each dict holds the task's ``preferredLocations`` alone (the list of
    location dicts ``orjson`` gives, or None when absent or null): what the readers of a plain job's task lists
    take from them (the template builder's split hosts, the slot usage's racks, the deferred collectors' copy), by
    ``.get``, which gives None for an absent key as for a null one. Cost: one pass over the tasks, and a
    small dict per task only for a job with split locations."""
    splits = [task.preferredLocations for task in maps]
    given = list(map(bool, splits))
    reduce_splits = [task.preferredLocations for task in reduces]
    if not (any(given) or any(reduce_splits)):
        return None
    return (given, [{"preferredLocations": where} for where in splits],
            [{"preferredLocations": where} for where in reduce_splits])


def _attempt_dicts(attempts: list[Any], hosts: list[str]) -> list[dict[str, Any]] | None:
    """Per attempt of the located schema, ``{"hostName": ..., "location": ...}`` (without ``location`` when the
    attempt has none), when some attempt has the key (even null), else None: what
    :func:`mrsim.profiler.topology_infer.attempt_host` and the slot usage read of a plain job's attempts (``"location"
    in attempt``, then its layers or the host name), the same values as the dicts ``orjson`` gives. Cost: one
    pass over the attempts, and a small dict per attempt only for a job whose attempts have locations."""
    where = [attempt.location for attempt in attempts]
    absent = where.count(UNSET)
    if absent == len(where):
        return None
    if not absent:  # Rumen's TraceBuilder: a location (null or not) on every attempt
        return [{"hostName": host, "location": at} for host, at in zip(hosts, where)]
    return [{"hostName": host} if at is UNSET else {"hostName": host, "location": at} for host, at in zip(hosts, where)]


def _strict_value(value: bytes) -> Any:
    """A job-level value holding a run of 19 or more digits, as the standard library's strict decoder reads it: the
    reader hands a job holding one to that decoder (:mod:`mrsim.profiler.rumen`), which keeps every integer exact,
    where ``orjson`` reads one beyond 64 bits as a float. Rumen's ``TraceBuilder`` writes such runs in every job:
    ``Long.MAX_VALUE`` and ``Long.MIN_VALUE`` as the bounds of an empty ``LoggedDiscreteCDF`` (the attempt-time
    CDFs). Raises ``ValueError`` for what that decoder refuses (invalid UTF-8: the old path decides)."""
    text = value.decode("utf-8")
    obj, end = raw_decode(_STRICT, text)
    if end != len(text):  # cannot happen (msgspec's Raw is one value): refused, to be safe
        raise ValueError("not one JSON value")
    return obj


def _deep(decoded: Any) -> bool:
    """Whether the job-level values of a job the reader would decode the strict way (one holds a run of 19 digits)
    may nest deep enough for that decoder to refuse the job: more ``[`` and ``{`` in them than half the interpreter's
    recursion limit. The strict decoder refuses nesting by the same recursion budget ``msgspec`` spends, from
    another depth of the stack, so near the limit they could disagree; far from it (Rumen's jobs: at most 132 of
    them under ``shared/data``) both take the job. Cost: two ``count``s of the job-level bytes, for such jobs only."""
    brackets = 0
    for name in _JOB_FIELDS:
        raw = getattr(decoded, name)
        if raw is not UNSET:
            value = bytes(raw)
            brackets += value.count(b"[") + value.count(b"{")
    return brackets >= sys.getrecursionlimit() // 2


def _decode(piece: bytes | memoryview) -> Any:
    """The job decoded by the first schema that takes it (:data:`_LEAN`, :data:`_RUMEN`, :data:`_LOCATED`), or
    None. A schema's refusal sends the job to the next one only when its reason is one the next one lifts: a field
    only Rumen writes (an unknown field), a split or attempt location; any other refusal is final."""
    try:
        try:
            return _LEAN.decode(piece)
        except msgspec.ValidationError as exc:
            message = str(exc)
            if message.endswith(_AT_LOCATIONS):
                return _LOCATED.decode(piece)
            if "unknown field" not in message:
                return None
        try:
            return _RUMEN.decode(piece)
        except msgspec.ValidationError as exc:
            if not str(exc).endswith(_AT_LOCATIONS):
                return None
        return _LOCATED.decode(piece)
    except (msgspec.DecodeError, RecursionError, ValueError):  # a ValidationError; invalid UTF-8 in a string
        return None


def typed_job(piece: bytes | memoryview, source: str = "", offset: int = 0) -> TypedJob | None:
    """``piece`` (one JSON object) as a :class:`TypedJob` with its :class:`PlainJob` columns, or None when it is not
    a plain job in the schemas, or the typed decoder refuses it, or ``orjson`` or the strict decoder refuses a
    job-level value (the caller then decodes it as before, with its checks). ``source`` and ``offset``: the input
    and where the object starts in it (decompressed), for :meth:`TypedJob.full` after pickling."""
    decoded = _decode(piece)
    if decoded is None:
        return None
    maps, reduces = decoded.mapTasks, decoded.reduceTasks
    if not (maps or reduces):
        return None
    job = TypedJob()
    loads = orjson.loads
    digits = _DIGIT_CLASS
    strict = False
    try:
        for name in _JOB_FIELDS:
            raw = getattr(decoded, name)
            if raw is not UNSET:
                value = bytes(raw)
                if value.translate(digits).find(_LONG_RUN) >= 0:  # orjson may read it otherwise: the strict way
                    job[name] = _strict_value(value)
                    strict = True
                else:
                    job[name] = loads(value)
    except (orjson.JSONDecodeError, ValueError):  # what orjson or the strict decoder refuses: the old path
        return None
    if strict and _deep(decoded):
        return None
    if not job.get("jobID"):
        return None
    job["mapTasks"], job["reduceTasks"] = maps, reduces
    n = len(maps)
    tasks = maps + reduces
    # One comprehension per column: CPython 3.11+ specializes its attribute read of a struct's slot, which made it
    # about a quarter cheaper than ``list(map(attrgetter(...), tasks))`` (a call per element) on the benchmark trace.
    attempts = [task.attempts[0] for task in tasks]
    task_start, task_finish = [t.startTime for t in tasks], [t.finishTime for t in tasks]
    attempt_start, attempt_finish = [a.startTime for a in attempts], [a.finishTime for a in attempts]
    count = len(tasks)
    # The four columns as the rows of one array (fromiter: no dtype discovery per element): the forked reader pickles
    # it as one buffer (TypedJob.__reduce__), and the collectors read the rows, contiguous views like arrays of
    # their own.
    times = np.fromiter(chain(task_start, task_finish, attempt_start, attempt_finish), dtype=np.int64,
                        count=4 * count).reshape(4, count)
    if not (times[2] <= times[3]).all():  # plain: 0 < attempt start <= attempt finish
        return None
    times.setflags(write=False)  # before the rows are taken: they are read-only views then
    arrays = (times[0], times[1], times[2], times[3])
    reduce_attempts = attempts[n:]
    hosts = [a.hostName for a in attempts]
    splits = where = None
    if type(decoded) is _LOCATED_JOB:
        splits, where = _split_lists(maps, reduces), _attempt_dicts(attempts, hosts)
        if splits is not None:
            job["mapTasks"], job["reduceTasks"] = maps, reduces = splits[1], splits[2]
    job.columns = PlainJob(
        maps, reduces, n, task_start, task_finish, attempt_start, attempt_finish, hosts,
        [a.attemptID for a in attempts], _phase([a.shuffleFinished for a in reduce_attempts]),
        _phase([a.sortFinished for a in reduce_attempts]), attempts if where is None else where,
        [False] * n if splits is None else splits[0], splits is not None, where is not None, cached=arrays)
    job.piece, job.source, job.offset, job.length, job.times = piece, source, offset, len(piece), times
    return job
