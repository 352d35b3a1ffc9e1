"""Frozen descriptions of a multi-resource cluster and its workload (Tran & Beck, section 3).

A :class:`Cluster` is a set of machine configurations, each with a capacity per named resource and a machine
count (``c_jl`` and ``n_j`` in the paper). A :class:`Workload` is a set of job classes, each with a proportion
``alpha_k``, a mean task processing time ``1/mu_k`` and per-resource request means ``r_kl`` with coefficients of
variation. Both are immutable: every simulation builds fresh live state from them, so one description can feed
many sweep points (the Omega-simulator habit).

Units: time is in **hours** throughout :mod:`mrsim.studies.lotes` (Table 3 gives hours); resource amounts are in the
resource's own unit (cores, GB of RAM, ...), the same unit for capacities and requests.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, replace

from mrsim.errors import InputError, UsageError


class JobShape(enum.Enum):
    """How many tasks a job has and how they depend on each other."""

    #: One task per job: the job starts and ends with its task (paper section 5).
    SINGLE_TASK = "single"
    #: ``maps`` map tasks released at arrival, ``reduces`` reduce tasks released when the last map ends (section 7).
    MAPREDUCE = "mapreduce"


@dataclass(frozen=True)
class MachineConfig:
    """``count`` identical machines, each with ``capacity[l]`` of resource ``l``."""

    name: str
    capacity: tuple[float, ...]
    count: int


@dataclass(frozen=True)
class Cluster:
    """Machine configurations over the named ``resources`` (the paper's ``M``, ``c_jl``, ``n_j``)."""

    resources: tuple[str, ...]
    configs: tuple[MachineConfig, ...]

    def __post_init__(self) -> None:
        if not self.resources:
            raise InputError("cluster: no resources declared")
        if len(set(self.resources)) != len(self.resources):
            raise InputError(f"cluster: duplicate resource names in {list(self.resources)}")
        if not self.configs:
            raise InputError("cluster: no machine configurations")
        names = [c.name for c in self.configs]
        if len(set(names)) != len(names):
            raise InputError(f"cluster: duplicate configuration names in {names}")
        for c in self.configs:
            if len(c.capacity) != len(self.resources):
                raise InputError(
                    f"cluster: configuration {c.name!r} has {len(c.capacity)} capacities for "
                    f"{len(self.resources)} resources"
                )
            if any(not (math.isfinite(x) and x > 0) for x in c.capacity):
                raise InputError(f"cluster: configuration {c.name!r} needs positive finite capacities")
            if c.count < 0:
                raise InputError(f"cluster: configuration {c.name!r} has a negative machine count")
        if self.n_machines == 0:
            raise InputError("cluster: no machines")

    @property
    def n_machines(self) -> int:
        return sum(c.count for c in self.configs)

    def with_counts(self, count: int) -> "Cluster":
        """The same configurations with ``count`` machines each (for scaled-down experiments)."""
        if count < 1:
            raise InputError(f"machines per configuration must be at least 1, got {count}")
        return replace(self, configs=tuple(replace(c, count=count) for c in self.configs))

    def with_fraction(self, fraction: float) -> "Cluster":
        """Keep ``round(fraction * n_j)`` machines of every configuration (the machines-off experiment)."""
        if not (0.0 < fraction <= 1.0):
            raise UsageError(f"machines fraction must be in (0, 1], got {fraction}")
        return replace(
            self, configs=tuple(replace(c, count=int(round(fraction * c.count))) for c in self.configs)
        )


@dataclass(frozen=True)
class JobClass:
    """One job class: proportion ``alpha_k``, mean task time (hours), request means and CVs per resource."""

    name: str
    proportion: float
    mean_duration: float
    request_mean: tuple[float, ...]
    request_cv: tuple[float, ...]

    @property
    def rate(self) -> float:
        """Service rate ``mu_k`` (tasks per hour on its resources)."""
        return 1.0 / self.mean_duration


@dataclass(frozen=True)
class Workload:
    """Job classes over ``resources`` and the job shape (single task or MapReduce)."""

    resources: tuple[str, ...]
    classes: tuple[JobClass, ...]
    shape: JobShape = JobShape.SINGLE_TASK
    maps: int = 200
    reduces: int = 100

    def __post_init__(self) -> None:
        if not self.classes:
            raise InputError("workload: no job classes")
        total = sum(c.proportion for c in self.classes)
        if abs(total - 1.0) > 1e-6:
            raise InputError(f"workload: class proportions sum to {total:.6g}, expected 1")
        for c in self.classes:
            if not (c.proportion >= 0 and math.isfinite(c.proportion)):
                raise InputError(f"workload: class {c.name!r} has an invalid proportion {c.proportion}")
            if not (c.mean_duration > 0 and math.isfinite(c.mean_duration)):
                raise InputError(f"workload: class {c.name!r} needs a positive mean processing time")
            if len(c.request_mean) != len(self.resources) or len(c.request_cv) != len(self.resources):
                raise InputError(f"workload: class {c.name!r} needs one request mean and CV per resource")
            if any(not (x > 0 and math.isfinite(x)) for x in c.request_mean):
                raise InputError(f"workload: class {c.name!r} needs positive request means (paper section 3)")
            if any(not (0 <= x <= 1) for x in c.request_cv):
                raise InputError(f"workload: class {c.name!r} has a CV outside [0, 1]")
        if self.shape is JobShape.MAPREDUCE and (self.maps < 1 or self.reduces < 0):
            raise InputError("workload: a MapReduce job needs at least one map and no negative reduce count")

    @property
    def tasks_per_job(self) -> int:
        return 1 if self.shape is JobShape.SINGLE_TASK else self.maps + self.reduces

    def as_mapreduce(self, maps: int = 200, reduces: int = 100) -> "Workload":
        return replace(self, shape=JobShape.MAPREDUCE, maps=maps, reduces=reduces)

    def check_against(self, cluster: Cluster) -> None:
        """Resources must match by name and order, and every class mean must fit on some configuration."""
        if tuple(self.resources) != tuple(cluster.resources):
            raise InputError(
                f"workload resources {list(self.resources)} do not match cluster resources {list(cluster.resources)}"
            )
        for c in self.classes:
            if not any(
                all(r <= cap for r, cap in zip(c.request_mean, cfg.capacity)) for cfg in cluster.configs if cfg.count
            ):
                raise InputError(f"workload: class {c.name!r} mean request fits on no machine configuration")

    def lower_bound_flow(self) -> float:
        """``F``: mean flow time (hours) if every job found enough free resources on arrival (section 5, Fig. 4).

        Single task: ``sum_k alpha_k / mu_k``. MapReduce with exponential task times: a stage of ``n`` tasks that
        all start at once ends after the maximum of ``n`` exponentials, whose mean is ``H_n / mu_k`` (``H_n`` the
        n-th harmonic number), so ``F = sum_k alpha_k (H_maps + H_reduces) / mu_k``. Exact for this model.
        """
        if self.shape is JobShape.SINGLE_TASK:
            factor = 1.0
        else:
            factor = _harmonic(self.maps) + _harmonic(self.reduces)
        return sum(c.proportion * c.mean_duration for c in self.classes) * factor


def _harmonic(n: int) -> float:
    return sum(1.0 / i for i in range(1, n + 1))
