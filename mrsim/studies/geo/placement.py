"""Where a job's tasks live: placement policies and the adapter from :mod:`mrsim.model.templates` workloads.

The paper (section 6) places each job's tasks in the datacenters that hold its input; traces do not record
that, so placement is a modelling choice, made per job with a seeded generator:

* ``UNIFORM``: each task independently in a uniformly random datacenter (a multinomial split).
* ``ZIPF`` with skew ``s >= 0``: each job draws a random ranking of the datacenters; a task lands in the
  datacenter of rank ``r`` (1-based) with probability proportional to ``r ** -s``. The ranking is per job, so
  every datacenter gets the same load on average while each job's sub-jobs are imbalanced; ``s = 0`` is
  ``UNIFORM``, larger ``s`` concentrates a job in fewer datacenters.
* ``RACKS`` (templates only): a map task goes to the datacenter of the rack of its first preferred location
  (``"/rack/host"``; Rumen's ``preferredLocations``). Racks map to datacenters through ``rack_to_dc`` when given,
  else round-robin over the workload's racks in sorted order. Tasks without a location, and reduces, are placed
  uniformly.

Cost: O(D) per job plus O(tasks) to split durations.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from mrsim.errors import InputError
from mrsim.model.templates import Workload
from mrsim.studies.geo.model import Federation, GeoJob, GeoWorkload
from mrsim.studies.geo.streams import named_rng


class PlacementKind(enum.Enum):
    UNIFORM = "uniform"
    ZIPF = "zipf"
    RACKS = "racks"

    @classmethod
    def parse(cls, text: str) -> "PlacementKind":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InputError(f"unknown placement {text!r} (expected uniform, zipf or racks)") from None


@dataclass(frozen=True)
class Placement:
    """A placement policy; ``skew`` is used by ZIPF, ``rack_to_dc`` (rack -> datacenter name) by RACKS."""

    kind: PlacementKind = PlacementKind.UNIFORM
    skew: float = 1.0
    rack_to_dc: Mapping[str, str] | None = field(default=None)

    def __post_init__(self) -> None:
        if not (self.skew >= 0):
            raise InputError(f"placement skew must be >= 0, got {self.skew}")

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind.value}
        if self.kind is PlacementKind.ZIPF:
            out["skew"] = self.skew
        if self.kind is PlacementKind.RACKS and self.rack_to_dc is not None:
            out["rack_to_dc"] = dict(self.rack_to_dc)
        return out


def split_counts(n_tasks: int, n_dc: int, placement: Placement, rng: np.random.Generator) -> np.ndarray:
    """Task counts per datacenter (length ``n_dc``, sums to ``n_tasks``) under UNIFORM or ZIPF. O(D)."""
    if placement.kind is PlacementKind.ZIPF and placement.skew > 0:
        w = np.arange(1, n_dc + 1, dtype=np.float64) ** -placement.skew
        by_rank = rng.multinomial(n_tasks, w / w.sum())
        counts = np.empty(n_dc, dtype=np.int64)
        counts[rng.permutation(n_dc)] = by_rank
        return counts
    if placement.kind is PlacementKind.RACKS:
        raise InputError("rack placement needs tasks with preferred locations (use it with a trace)")
    return rng.multinomial(n_tasks, np.full(n_dc, 1.0 / n_dc))


def job_from_counts(job_id: str, arrival_s: float, counts: np.ndarray, durations: np.ndarray) -> GeoJob:
    """Give the first ``counts[0]`` durations to datacenter 0, the next ``counts[1]`` to 1, and so on."""
    bounds = np.concatenate(([0], np.cumsum(counts)))
    dcs = tuple(int(d) for d in np.flatnonzero(counts))
    return GeoJob(job_id, arrival_s, dcs, tuple(durations[bounds[d] : bounds[d + 1]] for d in dcs))


def _rack_of(location: str) -> str:
    loc = location.strip()
    return loc.rsplit("/", 1)[0] if loc.count("/") >= 2 else ""


def from_templates(
    workload: Workload,
    federation: Federation,
    placement: Placement = Placement(),
    *,
    seed: int = 0,
    include_reduces: bool = False,
) -> GeoWorkload:
    """Place a trace's jobs on ``federation``. Arrival = submit time minus the workload's first submission.

    A job's tasks are its maps; with ``include_reduces`` its reduces are added as further independent tasks
    (an approximation: the federation model has no map-to-reduce barrier or shuffle, so a reduce may run before
    the maps). Jobs left with no task are skipped and listed in ``spec["skipped_jobs"]``.
    """
    rng = named_rng(seed, "placement")
    n_dc = federation.size
    rack_dc: dict[str, int] = {}
    if placement.kind is PlacementKind.RACKS:
        if placement.rack_to_dc is not None:
            rack_dc = {r: federation.index(dc, f"rack {r}: ") for r, dc in placement.rack_to_dc.items()}
        else:
            racks = sorted({_rack_of(loc) for t in workload for locs in (t.map_locations or ()) for loc in locs[:1]} - {""})
            rack_dc = {r: i % n_dc for i, r in enumerate(racks)}
    jobs: list[GeoJob] = []
    skipped: list[str] = []
    origin = workload.origin_s
    for t in workload:
        durs = t.map_durations
        if include_reduces and t.n_reduces:
            durs = np.concatenate((durs, t.reduce_durations))
        if not durs.size:
            skipped.append(t.job_id)
            continue
        arrival = t.submit_s - origin
        if placement.kind is PlacementKind.RACKS:
            where = np.full(durs.size, -1, dtype=np.int64)
            for i, locs in enumerate(t.map_locations or ()):
                if locs:
                    where[i] = rack_dc.get(_rack_of(locs[0]), -1)
            loose = where < 0
            where[loose] = rng.integers(0, n_dc, int(loose.sum()))
            dcs = tuple(int(d) for d in np.unique(where))
            jobs.append(GeoJob(t.job_id, arrival, dcs, tuple(durs[where == d] for d in dcs)))
        else:
            jobs.append(job_from_counts(t.job_id, arrival, split_counts(durs.size, n_dc, placement, rng), durs))
    if not jobs:
        raise InputError(f"{workload.source or 'workload'}: no job has any task to place")
    spec = {
        "kind": "trace",
        "source": workload.source,
        "placement": placement.describe(),
        "seed": seed,
        "include_reduces": include_reduces,
        "skipped_jobs": skipped,
    }
    return GeoWorkload(federation, tuple(jobs), source=workload.source, spec=spec)
