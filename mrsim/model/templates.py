"""Job templates: the replayable summary of one MapReduce job (SimMR section III-A).

A :class:`JobTemplate` holds, per job, the arrays SimMR's MRProfiler extracts from a real run:

* ``map_durations``: one duration per map task (s);
* ``first_shuffle_durations``: for reduces of the *first wave* (launched before the map stage ended), only the
  part of the shuffle that did **not** overlap the map stage: sort-finished minus map-stage-end (s);
* ``typical_shuffle_durations``: shuffle (+ sort) of later-wave reduces: sort-finished minus start (s);
* ``reduce_durations``: one per reduce task, reduce phase only: finish minus sort-finished (s);

plus the job's identity (id, name, user, queue, priority), submit time, outcome, an optional relative deadline,
optional per-task service demands for contention models, and optional preferred split locations per map.

Durations are numpy ``float64`` arrays in seconds, never per-task Python objects. Templates are immutable
(frozen dataclasses over read-only arrays), so one workload can feed many replays.

How a replay uses the shuffle arrays (SimMR III-B): the k-th reduce of a job that starts *before* the job's map
stage is complete finishes its shuffle ``first_shuffle_durations[k % n_first]`` seconds after the map stage
completes; the k-th reduce that starts after it takes ``typical_shuffle_durations[k % n_typical]`` seconds from
its launch. If a job's trace has no first-wave reduces, first-wave replays use the typical array, and vice versa,
both waves then drawing that one array on one counter in launch order (each duration once before any twice:
``JobState.next_first_shuffle``); if both are empty the shuffle takes 0 s. The reduce phase then takes ``reduce_durations[i]`` for reduce ``i``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from mrsim.errors import InputError


class Priority(enum.IntEnum):
    """Hadoop's ``JobPriority``; lower value sorts first (VERY_HIGH is served before NORMAL)."""

    VERY_HIGH = 0
    HIGH = 1
    NORMAL = 2
    LOW = 3
    VERY_LOW = 4

    @classmethod
    def parse(cls, value: object, *, default: "Priority | None" = None) -> "Priority":
        if value is None or value == "":
            return default if default is not None else cls.NORMAL
        try:
            return cls[str(value).strip().upper()]
        except KeyError:
            raise InputError(f"unknown job priority {value!r} (expected one of {', '.join(p.name for p in cls)})") from None


class Outcome(str, enum.Enum):
    """How the job ended in the trace (Rumen's ``outcome``)."""

    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    KILLED = "KILLED"
    UNKNOWN = "UNKNOWN"


#: Resource names used by per-task service demands, in column order.
DEMAND_RESOURCES: tuple[str, ...] = ("cpu", "disk", "memory")

#: Key of ``JobTemplate.extra`` holding the job's completion time alone on the cluster, T_J (s): written by
#: :mod:`mrsim.studies.deadlines` / ``mrsim compare``, read by the federation metrics. Defined with the data model so
#: readers need not import the deadline tools (which import the replay engine).
ISOLATED_KEY = "isolated_completion_s"


def _finite_non_negative(arr: np.ndarray) -> bool:
    """Every entry of a non-empty array is finite and >= 0 (-0.0 included). Two reductions and no temporary
    array: a NaN makes ``min`` NaN, which fails the comparison; a streamed replay builds four arrays per job."""
    return bool(arr.min() >= 0.0 and arr.max() < np.inf)


def _frozen_array(values: Iterable[float] | np.ndarray, what: str, job_id: str) -> np.ndarray:
    arr = np.array(values, dtype=np.float64, copy=True).reshape(-1)
    if arr.size and not _finite_non_negative(arr):
        raise InputError(f"job {job_id}: {what} must be finite and non-negative")
    arr.setflags(write=False)
    return arr


def _frozen_demands(values: np.ndarray | None, n: int, what: str, job_id: str) -> np.ndarray | None:
    if values is None:
        return None
    arr = np.array(values, dtype=np.float64, copy=True)
    if arr.ndim != 2 or arr.shape[0] != n:
        raise InputError(f"job {job_id}: {what} must have one row per task ({n}), got shape {arr.shape}")
    if arr.size and not _finite_non_negative(arr):
        raise InputError(f"job {job_id}: {what} must be finite and non-negative")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class JobTemplate:
    """One job as a replayable template. Times in seconds. See the module docstring for the array semantics.

    Attributes:
        job_id: Hadoop job id, e.g. ``job_200904211745_0002``.
        submit_s: submission time in seconds on the trace's clock (any origin; replays shift to the first job).
        deadline_s: optional deadline *relative to submission* (s), as in SimMR section V.
        actual_completion_s: finish minus submit in the trace (s), or None when unknown.
        map_demands / reduce_demands: optional ``(n_tasks, len(demand_resources))`` service demands (s).
        map_locations: optional preferred split hosts per map, as ``"/rack/host"`` strings.
    """

    job_id: str
    submit_s: float
    map_durations: np.ndarray
    reduce_durations: np.ndarray
    first_shuffle_durations: np.ndarray = field(default_factory=lambda: np.empty(0))
    typical_shuffle_durations: np.ndarray = field(default_factory=lambda: np.empty(0))
    name: str = ""
    user: str = "default"
    queue: str = "default"
    priority: Priority = Priority.NORMAL
    outcome: Outcome = Outcome.SUCCESS
    deadline_s: float | None = None
    actual_completion_s: float | None = None
    map_demands: np.ndarray | None = None
    reduce_demands: np.ndarray | None = None
    demand_resources: tuple[str, ...] = DEMAND_RESOURCES
    map_locations: tuple[tuple[str, ...], ...] | None = None
    extra: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        jid = self.job_id
        if not jid:
            raise InputError("a job has an empty job id")
        if not math.isfinite(self.submit_s):
            raise InputError(f"job {jid}: submit time is not a finite number")
        set_ = object.__setattr__
        set_(self, "map_durations", _frozen_array(self.map_durations, "map durations", jid))
        set_(self, "reduce_durations", _frozen_array(self.reduce_durations, "reduce durations", jid))
        set_(self, "first_shuffle_durations", _frozen_array(self.first_shuffle_durations, "first-shuffle durations", jid))
        set_(self, "typical_shuffle_durations", _frozen_array(self.typical_shuffle_durations, "typical-shuffle durations", jid))
        set_(self, "map_demands", _frozen_demands(self.map_demands, self.n_maps, "map demands", jid))
        set_(self, "reduce_demands", _frozen_demands(self.reduce_demands, self.n_reduces, "reduce demands", jid))
        if not isinstance(self.priority, Priority):
            set_(self, "priority", Priority.parse(self.priority))
        if not isinstance(self.outcome, Outcome):
            try:
                set_(self, "outcome", Outcome(str(self.outcome).upper()))
            except ValueError:
                set_(self, "outcome", Outcome.UNKNOWN)
        if self.map_locations is not None and len(self.map_locations) != self.n_maps:
            raise InputError(f"job {jid}: {len(self.map_locations)} map locations for {self.n_maps} maps")
        if self.deadline_s is not None and not (self.deadline_s > 0):
            raise InputError(f"job {jid}: deadline must be positive, got {self.deadline_s}")

    @property
    def n_maps(self) -> int:
        return int(self.map_durations.size)

    @property
    def n_reduces(self) -> int:
        return int(self.reduce_durations.size)

    @property
    def n_tasks(self) -> int:
        return self.n_maps + self.n_reduces

    def with_changes(self, **changes: object) -> "JobTemplate":
        """A copy with some fields replaced (templates are immutable)."""
        values = {f: getattr(self, f) for f in self.__dataclass_fields__}
        values.update(changes)
        return JobTemplate(**values)  # type: ignore[arg-type]


@dataclass(frozen=True, eq=False)
class Workload:
    """An immutable, submit-ordered sequence of job templates plus where it came from.

    ``jobs`` are sorted by (submit time, job id); ``origin_s`` is the first submission, the zero of every replay
    clock. ``warnings`` carries non-fatal problems found while building it (each names the job).
    """

    jobs: tuple[JobTemplate, ...]
    source: str = ""
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.jobs, key=lambda j: (j.submit_s, j.job_id)))
        object.__setattr__(self, "jobs", ordered)

    @classmethod
    def of(cls, jobs: Sequence[JobTemplate], source: str = "", warnings: Sequence[str] = ()) -> "Workload":
        return cls(tuple(jobs), source, tuple(warnings))

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self) -> Iterator[JobTemplate]:
        return iter(self.jobs)

    def __getitem__(self, index: int) -> JobTemplate:
        return self.jobs[index]

    @property
    def origin_s(self) -> float:
        return self.jobs[0].submit_s if self.jobs else 0.0

    @property
    def n_tasks(self) -> int:
        return sum(j.n_tasks for j in self.jobs)

    @property
    def n_maps(self) -> int:
        return sum(j.n_maps for j in self.jobs)

    @property
    def n_reduces(self) -> int:
        return sum(j.n_reduces for j in self.jobs)
