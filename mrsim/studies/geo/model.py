"""Frozen descriptions of a datacenter federation and its jobs (Hung, Golubchik, Yu, SoCC'15, section 2).

A :class:`Federation` is a tuple of datacenters, each with a number of computing slots. A :class:`GeoJob` is a
set of *sub-jobs*, one per datacenter that holds part of its input; each sub-job is an array of task durations
(seconds). A job completes when the last task of its last sub-job completes.

These objects are immutable specifications: one :class:`GeoWorkload` feeds any number of simulations (one per
policy), so every policy sees identical jobs, placements and task durations. Live state lives in
:mod:`mrsim.studies.geo.simulator` only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from mrsim.errors import InputError


@dataclass(frozen=True)
class Federation:
    """Datacenters and their slot counts. ``names[d]`` has ``slots[d]`` slots; index ``d`` is the DC id."""

    names: tuple[str, ...]
    slots: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.names:
            raise InputError("a federation needs at least one datacenter")
        if len(self.names) != len(self.slots):
            raise InputError(f"{len(self.names)} datacenter names for {len(self.slots)} slot counts")
        if len(set(self.names)) != len(self.names):
            raise InputError("datacenter names must be unique")
        for name, s in zip(self.names, self.slots):
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 1:
                raise InputError(f"datacenter {name}: slots must be a positive integer, got {s!r}")
        object.__setattr__(self, "slots", tuple(int(s) for s in self.slots))

    @classmethod
    def uniform(cls, n_datacenters: int, slots: int) -> "Federation":
        """``n_datacenters`` datacenters named ``dc0``, ``dc1``, ... each with ``slots`` slots."""
        if n_datacenters < 1:
            raise InputError(f"number of datacenters must be at least 1, got {n_datacenters}")
        return cls(tuple(f"dc{d}" for d in range(n_datacenters)), (slots,) * n_datacenters)

    @property
    def size(self) -> int:
        return len(self.names)

    @property
    def total_slots(self) -> int:
        return sum(self.slots)

    def index(self, name: str, where: str = "") -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise InputError(f"{where}unknown datacenter {name!r} (known: {', '.join(self.names)})") from None


def _frozen_durations(values: Sequence[float] | np.ndarray, job_id: str, dc: str) -> np.ndarray:
    arr = np.array(values, dtype=np.float64, copy=True).reshape(-1)
    if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr < 0)):
        raise InputError(f"job {job_id}: task durations in datacenter {dc} must be finite and non-negative")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class GeoJob:
    """One job across the federation.

    Attributes:
        job_id: unique name.
        arrival_s: arrival time at the central controller (s).
        dcs: datacenter indices holding at least one of its tasks, ascending.
        durations: ``durations[k]`` is the read-only array of task durations (s) of the sub-job in ``dcs[k]``,
            in launch order.
    """

    job_id: str
    arrival_s: float
    dcs: tuple[int, ...]
    durations: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        if not self.job_id:
            raise InputError("a job has an empty id")
        if not math.isfinite(self.arrival_s) or self.arrival_s < 0:
            raise InputError(f"job {self.job_id}: arrival time must be finite and >= 0, got {self.arrival_s}")
        if len(self.dcs) != len(self.durations):
            raise InputError(f"job {self.job_id}: {len(self.dcs)} datacenters for {len(self.durations)} sub-jobs")
        pairs = sorted(zip(self.dcs, self.durations), key=lambda p: p[0])
        dcs = tuple(int(d) for d, _ in pairs)
        if len(set(dcs)) != len(dcs):
            raise InputError(f"job {self.job_id}: a datacenter appears twice")
        durs = tuple(_frozen_durations(a, self.job_id, str(d)) for d, a in pairs)
        # Empty sub-jobs carry no work; dropping them keeps "one sub-job per datacenter holding input" true.
        keep = [k for k, a in enumerate(durs) if a.size]
        if not keep:
            raise InputError(f"job {self.job_id}: has no tasks")
        object.__setattr__(self, "dcs", tuple(dcs[k] for k in keep))
        object.__setattr__(self, "durations", tuple(durs[k] for k in keep))

    @property
    def n_tasks(self) -> int:
        return sum(int(a.size) for a in self.durations)

    def tasks_in(self, dc: int) -> int:
        """Number of tasks the job has in datacenter ``dc`` (0 if none)."""
        for d, a in zip(self.dcs, self.durations):
            if d == dc:
                return int(a.size)
        return 0


@dataclass(frozen=True, eq=False)
class GeoWorkload:
    """Jobs in arrival order (stable: equal arrival times keep input order) on a federation.

    ``spec`` records how the workload was made (trace type, utilisation, seed, placement, ...) so that every
    result can be stored beside the full specification it ran with.
    """

    federation: Federation
    jobs: tuple[GeoJob, ...]
    source: str = ""
    spec: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        jobs = tuple(sorted(self.jobs, key=lambda j: j.arrival_s))  # sorted() is stable
        seen: set[str] = set()
        for j in jobs:
            if j.job_id in seen:
                raise InputError(f"{self.source or 'workload'}: duplicate job id {j.job_id!r}")
            seen.add(j.job_id)
        n = self.federation.size
        for j in jobs:
            if j.dcs and (j.dcs[0] < 0 or j.dcs[-1] >= n):
                raise InputError(f"job {j.job_id}: datacenter index out of range for {n} datacenters")
        object.__setattr__(self, "jobs", jobs)

    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def n_tasks(self) -> int:
        return sum(j.n_tasks for j in self.jobs)

    def offered_load(self) -> float:
        """Realised utilisation: task-seconds per second of arrivals over total slots. NaN for < 2 jobs.

        Approximate: the work of ``n`` jobs is spread over the ``n - 1`` inter-arrival gaps, so it is scaled by
        ``(n - 1) / n``. Cost O(total tasks).
        """
        n = len(self.jobs)
        if n < 2:
            return float("nan")
        span = self.jobs[-1].arrival_s - self.jobs[0].arrival_s
        if span <= 0:
            return float("nan")
        work = sum(float(a.sum()) for j in self.jobs for a in j.durations)
        return work * (n - 1) / n / (self.federation.total_slots * span)
