"""The collectors of the one-pass ingest that a command may never read, run when first read.

A ``mrsim replay`` or ``compare`` without ``--background trace`` reads the pass's templates, warnings, workload
hosts, calibration and input report, and never the profiler's observations, its inferred hosts (on a ``mrsim
synth`` trace, whose workload hosts are a placeholder) or the background's waits and usage: on the 1148-job
benchmark trace those three collectors were about 0.65 s of a 4.9 s pass (docs/performance.md, "How
a trace is read"). :class:`LaterCollectors` queues what they need of each job and runs them, in the pass's order, when
something reads one of them: ``mrsim validate``, ``--background trace``, a cache miss saving its entry.

Exactly the same values, warnings and errors: a job is queued only when it is plain (:mod:`mrsim.profiler.plain`)
and :func:`lite_job` proves that none of the three collectors can raise on it (their column paths read a few
job-level fields, the ``otherTasks`` and a few conf keys, all checked here); the collectors add no warning. The
first job that cannot be queued runs the queue through every collector and turns queueing off, so that job and
all later ones take the eager path in the pass's order with every check and one-line error it had. What is kept
per queued job: its columns as int64 arrays (the collectors' lists are rebuilt from them), its list of host names
(8 bytes a task: equal names share one string across the queue), and its job-level fields without the task
lists and with only the conf keys the three collectors read; not the decoded job.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from mrsim.profiler.observe import JobObservation, observe_plain
from mrsim.calibration.background import BackgroundCollector
from mrsim.profiler.plain import PlainJob
from mrsim.profiler.topology_infer import SlotUsage
from mrsim.model.hadoop_conf import KEY_SLOWSTART, KEY_SLOWSTART_NEW
from mrsim.model.memory_slots import ALL_KEYS

_TASK_LISTS = ("mapTasks", "reduceTasks")
_CONF_KEYS = ALL_KEYS | {KEY_SLOWSTART, KEY_SLOWSTART_NEW}
_TIME_KEYS = ("submitTime", "launchTime", "finishTime")


def _scalar(value: object) -> bool:
    """A JSON value that ``str()`` and ``float()`` take without an exception (no container, no huge integer)."""
    kind = type(value)
    return value is None or kind is str or kind is bool or (kind is float and math.isfinite(value)) or \
        (kind is int and -10**18 < value < 10**18)  # type: ignore[operator]


def _time_ok(value: object) -> bool:
    """A time field that ``observe._ms`` reads without an exception (``int()`` of a NaN or infinity raises)."""
    return type(value) is not float or math.isfinite(value)  # type: ignore[arg-type]


def lite_job(job: dict[str, Any], plain: PlainJob,
             names: dict[str, str] | None = None) -> tuple[dict[str, Any], PlainJob] | None:
    """What the observation, slot usage and background need of the plain ``job`` (module docstring), or None
    when one of them could raise on it (then it must run now, where the pass runs it). ``names``: the host names
    kept so far, so that equal names share one string (a decoded name is about 75 bytes, a list entry 8)."""
    if plain.any_attempt_location:  # attempt_host reads an arbitrary ``location`` object
        return None
    for key in _TIME_KEYS:
        if not _time_ok(job.get(key)):
            return None
    others = job.get("otherTasks")
    if others is not None:
        if type(others) is not list:
            return None
        for task in others:  # observe._task_durations calls .get on every element
            if type(task) is not dict or not _time_ok(task.get("startTime")) or not _time_ok(task.get("finishTime")):
                return None
            attempts = task.get("attempts")  # the background iterates them and str()s their ids
            if attempts is not None and (type(attempts) is not list or not all(
                    type(a) is not dict or _scalar(a.get("attemptID")) for a in attempts)):
                return None
    props = job.get("jobProperties")
    if type(props) is dict:
        kept = {k: v for k, v in props.items() if k in _CONF_KEYS}  # same keys, same order
        if not all(_scalar(v) for v in kept.values()):
            return None
        props = kept
    lite = {k: v for k, v in job.items() if k not in _TASK_LISTS}
    if "jobProperties" in job:
        lite["jobProperties"] = props
    if plain.any_locations:  # SlotUsage._add_split_racks reads the tasks' preferredLocations
        for key in _TASK_LISTS:
            tasks = job.get(key) or ()
            for task in tasks:
                for loc in task.get("preferredLocations") or ():
                    layers = loc.get("layers") if type(loc) is dict else None
                    if layers and (type(layers) is not list or not all(type(x) is str for x in layers)):
                        return None
            lite[key] = [{"preferredLocations": task.get("preferredLocations")} for task in tasks]
    task_start, task_finish, attempt_start, attempt_finish = plain.arrays()
    hosts = plain.host_names
    if names is not None:  # one string object per distinct name across the queue, not one per attempt
        share = names.setdefault
        hosts = [share(name, name) for name in hosts]
    columns = PlainJob([], [], plain.n_maps, [], [], [], [], hosts, [], [], [], [], [],
                       plain.any_locations, False, cached=(task_start, task_finish, attempt_start, attempt_finish))
    return lite, columns


#: The per-task lists each collector's column path reads (the slot usage of a job queued here reads only the
#: arrays and host names: no attempt of it has a ``location``).
_LISTS = {"observations": ("task_start", "task_finish", "attempt_start", "attempt_finish"),
          "background": ("task_start", "task_finish"), "usage": ()}
_ARRAY_OF = {"task_start": 0, "task_finish": 1, "attempt_start": 2, "attempt_finish": 3}


def _revived(columns: PlainJob, lists: tuple[str, ...]) -> PlainJob:
    """The queued columns with the per-task ``lists`` rebuilt from the int64 arrays (the same integers)."""
    if not lists:
        return columns
    arrays = columns.arrays()
    return dataclasses.replace(columns, **{name: arrays[_ARRAY_OF[name]].tolist() for name in lists})


@dataclasses.dataclass
class _Queued:
    observed_as: str | None  # the observation's job id; None: the profiler observes no such job
    background_as: str  # the job id the background names
    job: dict[str, Any]
    columns: PlainJob


class LaterCollectors:
    """The observations, slot usage and background of one pass, queued per job while every job can be, run on
    first read (module docstring). Cost when read: what the collectors cost in the pass, plus the lists rebuilt."""

    def __init__(self) -> None:
        self.observations: dict[str, JobObservation] = {}
        self.usage = SlotUsage()
        self.background = BackgroundCollector()
        self._queue: list[_Queued] = []
        self._names: dict[str, str] = {}  # the queued jobs' host names, one string each
        self._pending = {"observations", "usage", "background"}
        self.queueing = True

    def queue(self, job: dict[str, Any], plain: PlainJob | None, observed_as: str | None, background_as: str) -> bool:
        """Queue the job's three calls; False when it cannot be queued: then every queued call has been run and
        the caller runs this job's calls now, as every later job's."""
        if not self.queueing:
            return False
        lite = lite_job(job, plain, self._names) if plain is not None else None
        if lite is None:
            self.run_all()
            return False
        self._queue.append(_Queued(observed_as, background_as, *lite))
        return True

    def run_all(self) -> None:
        for part in ("observations", "usage", "background"):
            self.run(part)
        self.queueing = False

    def run(self, part: str) -> None:
        """Run the queue through one collector (``observations``, ``usage`` or ``background``), once."""
        if part not in self._pending:
            return
        self._pending.discard(part)
        call: Callable[[_Queued, PlainJob], None]
        if part == "observations":
            def call(q: _Queued, columns: PlainJob) -> None:
                if q.observed_as is not None:
                    self.observations[q.observed_as] = observe_plain(q.job, columns)
        elif part == "usage":
            def call(q: _Queued, columns: PlainJob) -> None:
                self.usage.add_plain(q.job, columns)
        else:
            def call(q: _Queued, columns: PlainJob) -> None:
                self.background.add_plain(q.job, q.background_as, columns)
        lists = _LISTS[part]
        for queued in self._queue:
            call(queued, _revived(queued.columns, lists))
        if not self._pending:
            self._queue = []
            self._names = {}

