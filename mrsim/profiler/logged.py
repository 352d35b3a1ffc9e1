"""Rumen ``LoggedJob``-shaped dicts and the accumulator every log reader feeds.

Every profiler reader (JobHistory 0.20/1.x, ``.jhist``, SLS) turns its input into the same dicts Rumen's
TraceBuilder writes: the JSON keys of ``LoggedJob`` / ``LoggedTask`` / ``LoggedTaskAttempt``, times in epoch
milliseconds, ``-1`` for unknown numbers. :class:`JobAccumulator` plays the part of Rumen's
``JobBuilder`` (``org.apache.hadoop.tools.rumen.JobBuilder``): readers translate their records into its
``job_*`` / ``task_*`` / ``attempt_*`` calls and :meth:`JobAccumulator.build` produces the finished dict,
including the per-locality runtime CDFs and ``mapperTriesToSucceed`` that ``JobBuilder.build`` computes.

The module also holds the helpers the readers share: host parsing (``ParsedHost``), counter lookup
(``LoggedTaskAttempt.incorporateCounters``), job-conf parsing (``JobConfigurationParser``) and a streaming
reader for concatenated JSON objects.
"""

from __future__ import annotations

import enum
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

from mrsim.errors import InputError
from mrsim.io.safe_json import STRICT, JSONValueError, fast_loads, raw_decode, strict_decoder

LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)

#: Percentiles (out of 100) of the attempt-runtime CDFs, as ``JobBuilder.attemptTimesPercentiles``.
CDF_STEPS: tuple[int, ...] = tuple(range(5, 100, 5))

#: ``JobBuilder.MAXIMUM_PREFERRED_LOCATIONS``: a task with more split hosts keeps none of them.
MAX_PREFERRED_LOCATIONS = 25

#: Attempt counter fields filled from counters (Rumen key, Hadoop counter name).
ATTEMPT_COUNTERS: tuple[tuple[str, str], ...] = (
    ("hdfsBytesRead", "HDFS_BYTES_READ"),
    ("hdfsBytesWritten", "HDFS_BYTES_WRITTEN"),
    ("fileBytesRead", "FILE_BYTES_READ"),
    ("fileBytesWritten", "FILE_BYTES_WRITTEN"),
    ("mapInputBytes", "MAP_INPUT_BYTES"),
    ("mapInputRecords", "MAP_INPUT_RECORDS"),
    ("mapOutputBytes", "MAP_OUTPUT_BYTES"),
    ("mapOutputRecords", "MAP_OUTPUT_RECORDS"),
    ("combineInputRecords", "COMBINE_INPUT_RECORDS"),
    ("reduceInputGroups", "REDUCE_INPUT_GROUPS"),
    ("reduceInputRecords", "REDUCE_INPUT_RECORDS"),
    ("reduceShuffleBytes", "REDUCE_SHUFFLE_BYTES"),
    ("reduceOutputRecords", "REDUCE_OUTPUT_RECORDS"),
    ("spilledRecords", "SPILLED_RECORDS"),
)

#: ``resourceUsageMetrics`` fields (bytes, CPU in ms) and their counters.
RESOURCE_COUNTERS: tuple[tuple[str, str], ...] = (
    ("cumulativeCpuUsage", "CPU_MILLISECONDS"),
    ("virtualMemoryUsage", "VIRTUAL_MEMORY_BYTES"),
    ("physicalMemoryUsage", "PHYSICAL_MEMORY_BYTES"),
    ("heapUsage", "COMMITTED_HEAP_BYTES"),
)

#: Task-level byte/record fields per task type (``LoggedTask.incorporateMap/ReduceCounters``).
TASK_COUNTERS: dict[str, tuple[tuple[str, str], ...]] = {
    "MAP": (
        ("inputBytes", "HDFS_BYTES_READ"),
        ("outputBytes", "FILE_BYTES_WRITTEN"),
        ("inputRecords", "MAP_INPUT_RECORDS"),
        ("outputRecords", "MAP_OUTPUT_RECORDS"),
    ),
    "REDUCE": (
        ("inputBytes", "REDUCE_SHUFFLE_BYTES"),
        ("outputBytes", "HDFS_BYTES_WRITTEN"),
        ("inputRecords", "REDUCE_INPUT_RECORDS"),
        ("outputRecords", "REDUCE_OUTPUT_RECORDS"),
    ),
}

#: Conf keys, first present wins (``JobConfPropertyNames``).
QUEUE_KEYS = ("mapred.job.queue.name", "mapreduce.job.queuename")
JOB_NAME_KEYS = ("mapred.job.name", "mapreduce.job.name")
HEAP_KEYS = ("mapred.child.java.opts",)
MAP_HEAP_KEYS = ("mapred.child.java.opts", "mapreduce.map.java.opts")
REDUCE_HEAP_KEYS = ("mapred.child.java.opts", "mapreduce.reduce.java.opts")

_HEAP = re.compile(r"-Xmx([0-9]+)([kKmMgGtT])")
_BINARY_PREFIX = {"k": 10, "m": 20, "g": 30, "t": 40}
_HOST = re.compile(r"/([^/]+)/([^/]+)")
_JOB_ID = re.compile(r"job_\d+_\d+")

#: The logger a warning goes to when the caller keeps no list (:func:`report`); ``logging`` and ``xml.etree`` are
#: imported where they are used, not by every command that reads a Rumen trace (about 20 ms of start-up).
LOGGER_NAME = "mrsim.profiler"

Counters = Sequence[tuple[str, int]]
"""Counters as ``(name, value)`` pairs in log order; lookups take the first match."""


class FailedAttemptHost(enum.Enum):
    """What ``hostName`` an unsuccessful (FAILED/KILLED) attempt gets.

    ``LOGGED`` follows Rumen on trunk/2.x (after MAPREDUCE-3349): the host the log names, which for
    0.20/1.x logs is a bare host without rack. ``NULL`` follows Hadoop 1.x Rumen, whose gold traces
    carry ``hostName: null`` for every unsuccessful attempt.
    """

    LOGGED = "logged"
    NULL = "null"


def report(warnings: list[str] | None, message: str) -> None:
    """Record a warning: append to the caller's list, or log it when no list was given."""
    if warnings is None:
        import logging

        logging.getLogger(LOGGER_NAME).warning(message)
    else:
        warnings.append(message)


def job_id_in(text: str) -> str | None:
    """The first ``job_<digits>_<digits>`` in a file name or id, or None."""
    match = _JOB_ID.search(text)
    return match.group(0) if match else None


def job_id_of_task(task_or_attempt_id: str) -> str | None:
    """``task_X_Y_m_000001`` / ``attempt_X_Y_m_000001_0`` -> ``job_X_Y`` (None if not shaped so)."""
    parts = task_or_attempt_id.split("_")
    if len(parts) >= 3 and parts[0] in ("task", "attempt"):
        return f"job_{parts[1]}_{parts[2]}"
    return None


# --------------------------------------------------------------------------------------- hosts


def parse_host(name: str | None) -> tuple[str, str] | None:
    """``/rack/host`` -> ``(rack, host)``; anything else (a bare host) -> None. Follows ``ParsedHost.parse``."""
    if not name:
        return None
    match = _HOST.fullmatch(name)
    return (match.group(1), match.group(2)) if match else None


def strip_slash(name: str) -> str:
    """``ParsedHost.process``: drop one leading ``/`` (2.x rack names are logged as ``/default-rack``)."""
    return name[1:] if name.startswith("/") else name


def location(rack: str, host: str) -> dict[str, list[str]]:
    """A ``LoggedLocation``: ``{"layers": [rack, host]}`` with leading slashes removed."""
    return {"layers": [strip_slash(rack), strip_slash(host)]}


def host_name(hostname: str | None, rackname: str | None) -> str | None:
    """``LoggedTaskAttempt.setHostName(host, rack)``: ``/rack/host`` when a rack is known, else the host."""
    if not hostname:
        return None
    if not rackname:
        return hostname
    rack = rackname if rackname.startswith("/") else "/" + rackname
    host = hostname if hostname.startswith("/") else "/" + hostname
    return rack + host


def split_locations(splits: str | None) -> list[dict[str, list[str]]]:
    """Preferred locations from a comma list of ``/rack/host`` (``JobBuilder.preferredLocationForSplits``).

    Entries without a rack are dropped; more than :data:`MAX_PREFERRED_LOCATIONS` entries yield ``[]``.
    """
    if not splits:
        return []
    tokens = [t for t in splits.split(",") if t]
    if len(tokens) > MAX_PREFERRED_LOCATIONS:
        return []
    out = []
    for token in tokens:
        parsed = parse_host(token)
        if parsed is not None:
            out.append(location(*parsed))
    return out


# ------------------------------------------------------------------------------------ counters


def canonical_counter(name: str) -> str:
    """Counter-name canonical form: lower case, `` -_.`` all mapped to ``|`` (as Rumen matches them)."""
    return name.lower().translate(str.maketrans(" -_.", "||||"))


def counter_lookup(counters: Counters) -> dict[str, int]:
    """Canonical name -> value, keeping the first occurrence (Rumen stops at the first match)."""
    found: dict[str, int] = {}
    for name, value in counters:
        found.setdefault(canonical_counter(name), value)
    return found


# ---------------------------------------------------------------------------------- job conf


def parse_job_conf(data: bytes, where: str) -> dict[str, str]:
    """``<configuration><property><name/><value/>`` -> dict (``JobConfigurationParser``).

    Raises :class:`InputError` naming ``where`` when the XML is malformed.
    """
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise InputError(f"{where}: malformed job conf XML ({exc})") from None
    props: dict[str, str] = {}
    for prop in root.iter("property"):
        name = prop.findtext("name")
        value = prop.findtext("value")
        if name is not None and value is not None:
            props[name.strip()] = value
    return props


def heap_megabytes(conf: Mapping[str, str], keys: Sequence[str]) -> int | None:
    """MB from the last ``-Xmx<n><unit>`` in the first present key (``JobBuilder.extractMegabytes``)."""
    opts = next((conf[k] for k in keys if k in conf), None)
    if opts is None:
        return None
    megabytes = None
    for digits, unit in _HEAP.findall(opts):
        megabytes = (int(digits) << _BINARY_PREFIX[unit.lower()]) >> 20
    return megabytes


# ----------------------------------------------------------------------------------- records


def new_job(job_id: str) -> dict[str, Any]:
    """A ``LoggedJob`` with Rumen's defaults."""
    return {
        "jobID": job_id,
        "user": None,
        "jobName": None,
        "queue": None,
        "priority": "NORMAL",
        "submitTime": -1,
        "launchTime": -1,
        "finishTime": -1,
        "totalMaps": -1,
        "totalReduces": -1,
        "outcome": None,
        "jobtype": "JAVA",
        "heapMegabytes": -1,
        "jobMapMB": -1,
        "jobReduceMB": -1,
        "clusterMapMB": -1,
        "clusterReduceMB": -1,
        "computonsPerMapInputByte": -1,
        "computonsPerMapOutputByte": -1,
        "computonsPerReduceInputByte": -1,
        "computonsPerReduceOutputByte": -1,
        "relativeTime": 0,
        "directDependantJobs": [],
        "mapTasks": [],
        "reduceTasks": [],
        "otherTasks": [],
        "successfulMapAttemptCDFs": None,
        "failedMapAttemptCDFs": None,
        "successfulReduceAttemptCDF": None,
        "failedReduceAttemptCDF": None,
        "mapperTriesToSucceed": None,
        "failedMapperFraction": 0.0,
        "jobProperties": {},
    }


def new_task(task_id: str, task_type: str) -> dict[str, Any]:
    """A ``LoggedTask`` with Rumen's defaults; ``task_type`` is MAP, REDUCE, SETUP or CLEANUP."""
    return {
        "taskID": task_id,
        "taskType": task_type,
        "taskStatus": None,
        "startTime": -1,
        "finishTime": -1,
        "inputBytes": -1,
        "inputRecords": -1,
        "outputBytes": -1,
        "outputRecords": -1,
        "preferredLocations": [],
        "attempts": [],
    }


def new_attempt(attempt_id: str) -> dict[str, Any]:
    """A ``LoggedTaskAttempt`` with Rumen's defaults."""
    attempt: dict[str, Any] = {
        "attemptID": attempt_id,
        "result": None,
        "startTime": -1,
        "finishTime": -1,
        "shuffleFinished": -1,
        "sortFinished": -1,
        "hostName": None,
        "location": None,
    }
    for key, _ in ATTEMPT_COUNTERS:
        attempt[key] = -1
    attempt["clockSplits"] = []
    attempt["cpuUsages"] = []
    attempt["vmemKbytes"] = []
    attempt["physMemKbytes"] = []
    attempt["resourceUsageMetrics"] = {key: 0 for key, _ in RESOURCE_COUNTERS}
    return attempt


def pre21_value(name: str) -> str:
    """``JobBuilder.getPre21Value``: 2.x status/type names to Rumen's enum (SUCCEEDED -> SUCCESS, ...)."""
    upper = name.upper()
    return {"SUCCEEDED": "SUCCESS", "JOB_SETUP": "SETUP", "JOB_CLEANUP": "CLEANUP", "TASK_CLEANUP": "CLEANUP"}.get(
        upper, upper
    )


def discrete_cdf(values: Iterable[int]) -> dict[str, Any]:
    """A ``LoggedDiscreteCDF`` of ``values`` at :data:`CDF_STEPS` (``Histogram.getCDF``, ``setCDF``).

    Each ranking's datum is the first value whose cumulative count reaches ``step * n // 100``.
    An empty input gives Rumen's empty CDF (Long.MIN/Long.MAX, no rankings). Cost O(n log n).
    """
    counts = Counter(values)
    total = sum(counts.values())
    if total == 0:
        return {"minimum": LONG_MIN, "maximum": LONG_MAX, "numberValues": 0, "rankings": []}
    keys = sorted(counts)
    data = [0] * len(CDF_STEPS)
    cumulative = 0
    cursor = 0
    for key in keys:
        target = CDF_STEPS[cursor] * total // 100
        cumulative += counts[key]
        while cumulative >= target:
            data[cursor] = key
            cursor += 1
            if cursor == len(CDF_STEPS):
                break
            target = CDF_STEPS[cursor] * total // 100
        if cursor == len(CDF_STEPS):
            break
    rankings = [{"relativeRanking": step / 100, "datum": datum} for step, datum in zip(CDF_STEPS, data)]
    return {"minimum": keys[0], "maximum": keys[-1], "numberValues": total, "rankings": rankings}


# -------------------------------------------------------------------------------- accumulator


class JobAccumulator:
    """Builds one ``LoggedJob`` dict from history events, the way Rumen's ``JobBuilder`` does.

    Readers call the ``job_*``, ``task_*`` and ``attempt_*`` methods in log order and :meth:`apply_conf`
    for a job conf, then :meth:`build` once. Times are epoch ms. Tasks are created only by
    :meth:`task_started` and attempts only for an existing task, as in ``JobBuilder``; events that
    cannot be attached are counted and reported by :meth:`build` as one warning naming the job.
    Memory is proportional to this one job's tasks and attempts.
    """

    def __init__(
        self,
        job_id: str,
        *,
        warnings: list[str] | None = None,
        failed_attempt_host: FailedAttemptHost = FailedAttemptHost.LOGGED,
    ) -> None:
        self.job_id = job_id
        self.job = new_job(job_id)
        self._warnings = warnings
        self._failed_attempt_host = failed_attempt_host
        self._tasks: dict[str, dict[str, Any]] = {}
        self._attempts: dict[str, dict[str, Any]] = {}
        self._orphans: dict[str, None] = {}  # ids of tasks/attempts whose records were dropped, in order
        self._notes: list[str] = []
        self._finished = False
        self.has_events = False

    # ---- job level

    def job_submitted(
        self, *, job_name: str | None, user: str | None, submit_time: int, queue: str | None = None
    ) -> None:
        """JobSubmitted: name, user, submit time; the queue only when logged (1.x ``JOB_QUEUE``, 2.x)."""
        self.has_events = True
        self.job["jobName"] = job_name
        self.job["user"] = user
        self.job["submitTime"] = submit_time
        if queue is not None:
            self.job["queue"] = queue

    def job_queue(self, queue: str | None) -> None:
        """JobQueueChange."""
        if queue is not None:
            self.job["queue"] = queue

    def job_priority(self, priority: str) -> None:
        """JobPriorityChange."""
        self.job["priority"] = priority.upper()

    def job_status(self, status: str) -> None:
        """JobStatusChanged: the outcome follows the last logged status (PREP, RUNNING, SUCCESS, ...)."""
        self.has_events = True
        self.job["outcome"] = pre21_value(status)

    def job_inited(self, *, launch_time: int, total_maps: int, total_reduces: int) -> None:
        """JobInited: launch time and the declared task counts."""
        self.has_events = True
        self.job["launchTime"] = launch_time
        self.job["totalMaps"] = total_maps
        self.job["totalReduces"] = total_reduces

    def job_info_changed(self, *, launch_time: int) -> None:
        """JobInfoChange: Rumen takes only the launch time from it."""
        self.job["launchTime"] = launch_time

    def job_finished(self, *, finish_time: int) -> None:
        """JobFinished: outcome SUCCESS."""
        self.has_events = True
        self._finished = True
        self.job["finishTime"] = finish_time
        self.job["outcome"] = "SUCCESS"

    def job_unsuccessful(self, *, finish_time: int, status: str) -> None:
        """JobUnsuccessfulCompletion (FAILED, KILLED; 2.x ERROR is recorded as FAILED)."""
        self.has_events = True
        self._finished = True
        self.job["finishTime"] = finish_time
        outcome = pre21_value(status)
        if outcome not in ("FAILED", "KILLED"):
            self._notes.append(f"unsuccessful completion status {status!r} recorded as FAILED")
            outcome = "FAILED"
        self.job["outcome"] = outcome

    def apply_conf(self, conf: Mapping[str, str]) -> None:
        """``JobBuilder.process(Properties)``: queue (if set), job name (always, even to null), heap sizes.

        Like Rumen, whichever of the conf and the JobSubmitted record is processed last decides the job
        name, so a conf without ``mapred.job.name`` processed after the history clears it.
        """
        queue = next((conf[k] for k in QUEUE_KEYS if k in conf), None)
        if queue is not None:
            self.job["queue"] = queue
        self.job["jobName"] = next((conf[k] for k in JOB_NAME_KEYS if k in conf), None)
        for field, keys in (("heapMegabytes", HEAP_KEYS), ("jobMapMB", MAP_HEAP_KEYS), ("jobReduceMB", REDUCE_HEAP_KEYS)):
            megabytes = heap_megabytes(conf, keys)
            if megabytes is not None:
                self.job[field] = megabytes
        self.job["jobProperties"] = dict(conf)

    # ---- tasks

    def task_started(self, task_id: str, task_type: str, *, start_time: int, splits: str | None) -> None:
        """TaskStarted: creates the task (MAP/REDUCE/SETUP/CLEANUP) with its split locations."""
        self.has_events = True
        task_type = pre21_value(task_type)
        task = self._tasks.get(task_id)
        if task is None:
            task = new_task(task_id, task_type)
            self._tasks[task_id] = task
            key = {"MAP": "mapTasks", "REDUCE": "reduceTasks"}.get(task_type, "otherTasks")
            self.job[key].append(task)
        task["startTime"] = start_time
        task["preferredLocations"] = split_locations(splits)

    def task_updated(self, task_id: str, *, finish_time: int) -> None:
        """TaskUpdated: finish time only."""
        task = self._task(task_id)
        if task is not None:
            task["finishTime"] = finish_time

    def task_finished(self, task_id: str, *, finish_time: int, status: str, counters: Counters | None) -> None:
        """TaskFinished / TaskFailed: finish time, status and task-level byte/record counters."""
        task = self._task(task_id)
        if task is None:
            return
        task["finishTime"] = finish_time
        task["taskStatus"] = pre21_value(status)
        fields = TASK_COUNTERS.get(task["taskType"])
        if counters and fields:
            found = counter_lookup(counters)
            for key, name in fields:
                value = found.get(canonical_counter(name))
                if value is not None:
                    task[key] = value

    # ---- attempts

    def attempt_started(self, task_id: str, attempt_id: str, *, start_time: int) -> None:
        """TaskAttemptStarted: start time (TaskTracker clock in 0.20/1.x, MR AM clock in 2.x)."""
        attempt = self._attempt(task_id, attempt_id)
        if attempt is not None:
            attempt["startTime"] = start_time

    def attempt_finished(
        self,
        task_id: str,
        attempt_id: str,
        *,
        status: str,
        finish_time: int,
        hostname: str | None,
        rackname: str | None,
        counters: Counters | None,
        set_host_name: bool = True,
        shuffle_finished: int | None = None,
        sort_finished: int | None = None,
        splits: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        """Map/Reduce/TaskAttemptFinished: result, host, location, finish/phase times, counters.

        ``set_host_name=False`` mirrors Rumen's ``TaskAttemptFinished`` (setup/cleanup in 2.x, or a 0.20
        reduce success without phase times), which sets the location but not ``hostName``.
        """
        attempt = self._attempt(task_id, attempt_id)
        if attempt is None:
            return
        attempt["result"] = pre21_value(status)
        if set_host_name:
            attempt["hostName"] = host_name(hostname, rackname)
        self._set_location(attempt, hostname, rackname)
        attempt["finishTime"] = finish_time
        if shuffle_finished is not None:
            attempt["shuffleFinished"] = shuffle_finished
        if sort_finished is not None:
            attempt["sortFinished"] = sort_finished
        self._apply_attempt_counters(attempt, counters)
        self._apply_splits(attempt, splits)

    def attempt_unsuccessful(
        self,
        task_id: str,
        attempt_id: str,
        *,
        status: str,
        finish_time: int,
        hostname: str | None,
        rackname: str | None,
        counters: Counters | None,
        splits: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        """TaskAttemptUnsuccessfulCompletion: FAILED or KILLED attempt."""
        attempt = self._attempt(task_id, attempt_id)
        if attempt is None:
            return
        attempt["result"] = pre21_value(status)
        if self._failed_attempt_host is FailedAttemptHost.LOGGED:
            attempt["hostName"] = host_name(hostname, rackname)
        self._set_location(attempt, hostname, rackname)
        attempt["finishTime"] = finish_time
        self._apply_attempt_counters(attempt, counters)
        self._apply_splits(attempt, splits)

    # ---- build

    def note(self, message: str) -> None:
        """Add a reader-specific remark to this job's warnings (reported once by :meth:`build`)."""
        self._notes.append(message)

    def build(self) -> dict[str, Any]:
        """The finished ``LoggedJob`` dict, with ``JobBuilder.build``'s CDFs; reports this job's warnings."""
        job = self.job
        add_statistics(job)
        self._check(job)
        if self._orphans:
            ids = list(self._orphans)
            shown = ", ".join(ids[:3]) + (" ..." if len(ids) > 3 else "")
            self._notes.append(f"records of {len(ids)} task(s)/attempt(s) whose task never started were dropped: {shown}")
        for message in self._notes:
            report(self._warnings, f"job {self.job_id}: {message}")
        return job

    # ---- internals

    def _task(self, task_id: str, orphan_id: str | None = None) -> dict[str, Any] | None:
        task = self._tasks.get(task_id)
        if task is None:
            self._orphans[orphan_id or task_id] = None
        return task

    def _attempt(self, task_id: str, attempt_id: str) -> dict[str, Any] | None:
        self.has_events = True
        attempt = self._attempts.get(attempt_id)
        if attempt is not None:
            return attempt
        task = self._task(task_id, attempt_id)
        if task is None:
            return None
        attempt = new_attempt(attempt_id)
        self._attempts[attempt_id] = attempt
        task["attempts"].append(attempt)
        return attempt

    @staticmethod
    def _set_location(attempt: dict[str, Any], hostname: str | None, rackname: str | None) -> None:
        if rackname:
            if hostname:
                attempt["location"] = location(rackname, hostname)
            return
        parsed = parse_host(hostname)
        if parsed is not None:
            attempt["location"] = location(*parsed)

    @staticmethod
    def _apply_attempt_counters(attempt: dict[str, Any], counters: Counters | None) -> None:
        if not counters:
            return
        found = counter_lookup(counters)
        for key, name in ATTEMPT_COUNTERS:
            value = found.get(canonical_counter(name))
            if value is not None:
                attempt[key] = value
        metrics = attempt["resourceUsageMetrics"]
        for key, name in RESOURCE_COUNTERS:
            value = found.get(canonical_counter(name))
            if value is not None:
                metrics[key] = value

    @staticmethod
    def _apply_splits(attempt: dict[str, Any], splits: Mapping[str, Sequence[int]] | None) -> None:
        if splits:
            for key in ("clockSplits", "cpuUsages", "vmemKbytes", "physMemKbytes"):
                if splits.get(key) is not None:
                    attempt[key] = list(splits[key])

    def _check(self, job: dict[str, Any]) -> None:
        if not self._finished:
            self._notes.append(
                f"never logged its finish (log truncated or job still running); outcome left as {job['outcome']}"
            )
        unfinished = [t["taskID"] for key in ("mapTasks", "reduceTasks", "otherTasks") for t in job[key] if t["taskStatus"] is None]
        if unfinished and (self._finished or len(unfinished) < 4):
            shown = ", ".join(unfinished[:3]) + (" ..." if len(unfinished) > 3 else "")
            self._notes.append(f"{len(unfinished)} task(s) never logged a finish: {shown}")
        elif unfinished:
            self._notes.append(f"{len(unfinished)} task(s) never logged a finish")
        for key, total_key in (("mapTasks", "totalMaps"), ("reduceTasks", "totalReduces")):
            declared, logged = job[total_key], len(job[key])
            if declared >= 0 and logged > declared:
                self._notes.append(f"declares {total_key}={declared} but logs {logged} {key}; all logged tasks kept")
            elif declared >= 0 and logged < declared and job["outcome"] == "SUCCESS":
                self._notes.append(f"succeeded with {total_key}={declared} but logs only {logged} {key}")


def add_statistics(job: dict[str, Any]) -> None:
    """Fill a job's runtime CDFs and ``mapperTriesToSucceed`` from its attempts (``JobBuilder.build``).

    Map CDFs are per locality distance of a successful attempt to its split hosts (0 node, 1 rack,
    2 off-rack, 3 unknown); failed maps always land in slot 3, as in Rumen. Reduce CDFs are not split.
    """
    succeeded_maps: list[list[int]] = [[], [], [], []]
    failed_maps: list[list[int]] = [[], [], [], []]
    tries: Counter[int] = Counter()
    for task in job["mapTasks"]:
        for attempt in task["attempts"]:
            start, finish = attempt["startTime"], attempt["finishTime"]
            if not (start > 0 and finish > 0):
                continue
            distance = 3
            if attempt["result"] == "SUCCESS":
                here = attempt["location"]
                if here is not None:
                    for loc in task["preferredLocations"]:
                        distance = min(distance, _distance(loc, here))
                succeeded_maps[distance].append(finish - start)
                tries[_attempt_number(attempt["attemptID"])] += 1
            elif attempt["result"] == "FAILED":
                failed_maps[distance].append(finish - start)
    succeeded_reduces = []
    failed_reduces = []
    for task in job["reduceTasks"]:
        for attempt in task["attempts"]:
            # JobBuilder enters reduce runtimes even when a time is missing (-1); kept for fidelity.
            runtime = attempt["finishTime"] - attempt["startTime"]
            if attempt["result"] == "SUCCESS":
                succeeded_reduces.append(runtime)
            elif attempt["result"] == "FAILED":
                failed_reduces.append(runtime)
    job["successfulMapAttemptCDFs"] = [discrete_cdf(v) for v in succeeded_maps]
    job["failedMapAttemptCDFs"] = [discrete_cdf(v) for v in failed_maps]
    job["successfulReduceAttemptCDF"] = discrete_cdf(succeeded_reduces)
    job["failedReduceAttemptCDF"] = discrete_cdf(failed_reduces)
    total = sum(tries.values())
    if total:
        shares = [0.0] * (max(tries) + 1)
        for number, count in tries.items():
            shares[number] = count / total
        job["mapperTriesToSucceed"] = shares
    else:
        job["mapperTriesToSucceed"] = None


def _distance(preferred: Mapping[str, Any], actual: Mapping[str, Any]) -> int:
    """``ParsedHost.distance``: 0 same host, 1 same rack, 2 otherwise."""
    p_rack, p_host = (strip_slash(x) for x in preferred["layers"][:2])
    a_rack, a_host = (strip_slash(x) for x in actual["layers"][:2])
    if p_host == a_host:
        return 0
    return 1 if p_rack == a_rack else 2


def _attempt_number(attempt_id: str) -> int:
    tail = attempt_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


# ------------------------------------------------------------------------------ JSON streams


_BOUNDARY = re.compile(r"\}[ \t\r\n]*\{")


def _fast_object(buffer: str, eof: bool) -> tuple[Any, int]:
    """``(object, end)`` of the JSON object at the start of ``buffer`` decoded by orjson, cut at the next ``}``
    *whitespace* ``{`` (between two top-level objects; inside a string only by accident, and then orjson refuses
    the piece), or ``(STRICT, 0)`` when the standard library must decode it (see :func:`fast_loads`)."""
    if not buffer.startswith("{"):
        return STRICT, 0
    match = _BOUNDARY.search(buffer, 1)
    if match is None and not eof:
        return STRICT, 0  # the object may go on past the buffer: the strict path reads more
    end = match.start() + 1 if match is not None else len(buffer.rstrip())
    value = fast_loads(buffer[:end])
    if type(value) is not dict:
        return STRICT, 0
    return value, end


def iter_json_objects(fh: IO[str], where: str, *, chunk_chars: int = 1 << 16) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, value)`` for each top-level JSON value of a concatenated stream (no array needed).

    Reads ``chunk_chars`` at a time, so memory stays near the size of the largest single value.
    Raises :class:`InputError` naming ``where`` and the line of a malformed or truncated value.
    """
    decoder = strict_decoder()
    buffer = ""
    line = 1
    eof = False
    while True:
        stripped = buffer.lstrip()
        line += buffer.count("\n", 0, len(buffer) - len(stripped))
        buffer = stripped
        if not buffer:
            if eof:
                return
            buffer = fh.read(chunk_chars)
            eof = not buffer
            continue
        value, end = _fast_object(buffer, eof)
        try:
            if value is STRICT:
                value, end = raw_decode(decoder, buffer)
        except JSONValueError as exc:
            raise InputError(f"{where}: line {line}: {exc.msg}") from None
        except json.JSONDecodeError as exc:
            if not eof:
                more = fh.read(max(chunk_chars, len(buffer)))
                if more:
                    buffer += more
                    continue
                eof = True
                continue
            raise InputError(f"{where}: line {line + buffer.count(chr(10), 0, exc.pos)}: malformed JSON ({exc.msg})") from None
        # A number at the very end of a chunk may be cut ("12" of "123"); read on to be sure.
        if end == len(buffer) and not eof and not isinstance(value, (dict, list)):
            more = fh.read(chunk_chars)
            if more:
                buffer += more
                continue
            eof = True
        yield line, value
        line += buffer.count("\n", 0, end)
        buffer = buffer[end:]
