"""Task-to-datacenter placement for replays on a federated cluster (Hung, Golubchik, Yu, SoCC'15, sec. 2 and 6).

The engine runs a job's task only in the datacenter it is placed in (``extra["map_datacenters"]`` /
``["reduce_datacenters"]``, see ``mrsim/tracker/features/federation.py``). Traces do not say where a job's input lives, so
placement is a modelling choice, made here once per workload, before the replay, with the seeded stream
``mrsim.rng.stream(seed, "placement")``. **A job that already carries a placement (a job spec with
``map_datacenters``) always keeps it**; the policy places the others:

* ``auto`` (the CLI default): keep the input's placement, place the rest as ``uniform``.
* ``uniform``: a job's maps are split over the datacenters by a multinomial draw with equal probabilities.
* ``zipf`` with skew ``s >= 0``: per job, a random ranking of the datacenters; rank ``r`` (1-based) draws tasks
  with weight ``r ** -s`` (``mrsim.studies.geo.placement.split_counts``, the standalone simulator's rule). Every
  datacenter gets the same load on average; each job's sub-jobs are imbalanced; ``s = 0`` is ``uniform``.
* ``racks``: a map goes to the datacenter of the rack of its first preferred split location (``"/rack/host"``).
  The rack is looked up, in order, in the explicit rack map (``--rack-map /r1=dc1,...``), then among the
  cluster's racks (and hosts) on the federation; racks found nowhere are dealt round-robin over the datacenters
  in sorted rack order. Maps without a location are placed uniformly at random, one by one.

Counts from ``uniform`` / ``zipf`` are given as a table in datacenter order: the job's first ``c_0`` maps go to
the first datacenter, the next ``c_1`` to the second, and so on. Reduces are not placed here: the engine spreads
them over the job's map datacenters in proportion to its maps (each sub-job shuffles locally). A job without
maps gets its reduces placed by the same rule instead.

Cost: O(D) per job for ``uniform`` / ``zipf``, O(maps) for ``racks``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from mrsim.errors import OptionError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import JobTemplate, Workload
from mrsim.rng import stream
from mrsim.studies.geo.placement import Placement, PlacementKind, split_counts


class PlacementPolicy(enum.Enum):
    AUTO = "auto"
    UNIFORM = "uniform"
    ZIPF = "zipf"
    RACKS = "racks"

    @classmethod
    def parse(cls, text: str) -> "PlacementPolicy":
        try:
            return cls(str(text).strip().lower())
        except ValueError:
            raise OptionError(f"{{placement}}: unknown policy {text!r} (expected auto, uniform, zipf or racks)") from None


@dataclass(frozen=True)
class PlacementSpec:
    """A placement policy with its parameters; ``rack_map`` maps rack names to datacenter names."""

    policy: PlacementPolicy = PlacementPolicy.AUTO
    skew: float = 1.0
    rack_map: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        if not (self.skew >= 0) or self.skew == float("inf"):
            raise OptionError(f"{{placement_skew}} must be a finite number >= 0, got {self.skew}")


@dataclass(frozen=True)
class PlacementReport:
    """What a placement did: recorded in the run's JSON ``spec["placement"]`` and printed by the CLI."""

    policy: str
    seed: int
    kept: int  # jobs whose input already carried a placement
    placed: int  # jobs placed by the policy
    skew: float | None = None
    rack_map: dict[str, str] | None = None
    #: racks: maps placed through the rack map, the cluster's racks, round-robin, and uniformly (no location)
    by_rule: dict[str, int] | None = None

    def to_json(self) -> dict:
        out: dict = {"policy": self.policy, "seed": self.seed, "jobs_kept": self.kept, "jobs_placed": self.placed,
                     "placed_with": "uniform" if self.policy == "auto" else self.policy}
        if self.skew is not None:
            out["skew"] = self.skew
        if self.rack_map is not None:
            out["rack_map"] = self.rack_map
        if self.by_rule is not None:
            out["maps_by_rule"] = self.by_rule
        return out

    def describe(self) -> str:
        how = {"auto": "uniformly (auto)", "uniform": "uniformly", "zipf": f"by Zipf skew {self.skew or 0:g}",
               "racks": "by rack of the first split location"}[self.policy]
        return (f"placement {self.policy}: {self.kept} job(s) kept the input's placement, {self.placed} placed "
                f"{how} (seed {self.seed})")


def parse_rack_map(text: str | None, datacenters: Sequence[str]) -> dict[str, str]:
    """``"/r1=dc1,/r2=dc2"`` -> ``{"/r1": "dc1", "/r2": "dc2"}``; every datacenter must exist. Raises InputError."""
    if not text:
        return {}
    out: dict[str, str] = {}
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        rack, eq, dc = part.partition("=")
        rack, dc = rack.strip(), dc.strip()
        if not eq or not rack or not dc:
            raise OptionError(f"{{rack_map}}: expected RACK=DATACENTER pairs like /r1=dc1,/r2=dc2, got {part!r}")
        if datacenters and dc not in datacenters:
            raise OptionError(f"{{rack_map}}: {rack} maps to datacenter {dc!r}, which the cluster does not have "
                             f"(it has {', '.join(datacenters)})")
        if rack in out and out[rack] != dc:
            raise OptionError(f"{{rack_map}}: rack {rack} is mapped twice")
        out[rack] = dc
    return out


def rack_of(location: str) -> str:
    """``"/rack/host"`` -> ``"/rack"``; ``""`` when the location names no rack."""
    loc = location.strip()
    return loc.rsplit("/", 1)[0] if loc.count("/") >= 2 else ""


def _has_placement(t: JobTemplate) -> bool:
    return "map_datacenters" in t.extra or (t.n_maps == 0 and "reduce_datacenters" in t.extra)


def place_workload(workload: Workload, cluster: ClusterSpec, spec: PlacementSpec) -> tuple[Workload, PlacementReport]:
    """A copy of ``workload`` whose every job has a datacenter placement on ``cluster`` (module docstring).

    Raises InputError when the cluster is not a federation and the policy is not ``auto`` (``auto`` on a one-site
    cluster returns the workload unchanged).
    """
    dcs = cluster.datacenters
    if not dcs:
        if spec.policy is not PlacementPolicy.AUTO:
            raise OptionError(f"{{placement}} {spec.policy.value}: the cluster is not a federation (give a cluster file "
                             "with [[datacenters]]; see docs/cluster.md)")
        if spec.rack_map:
            raise OptionError("{rack_map}: the cluster is not a federation")
        return workload, PlacementReport("auto", spec.seed, 0, 0)
    if spec.rack_map and spec.policy is not PlacementPolicy.RACKS:
        raise OptionError("{rack_map} needs {placement} racks")
    for rack, dc in spec.rack_map.items():
        if dc not in dcs:
            raise OptionError(f"{{rack_map}}: {rack} maps to datacenter {dc!r}, which the cluster does not have "
                             f"(it has {', '.join(dcs)})")
    rng = stream(spec.seed, "placement")
    n_dc = len(dcs)
    kind = PlacementKind.ZIPF if spec.policy is PlacementPolicy.ZIPF else PlacementKind.UNIFORM
    counts_rule = Placement(kind, spec.skew)
    rack_dc: dict[str, tuple[int, str]] = {}
    by_rule: dict[str, int] | None = None
    if spec.policy is PlacementPolicy.RACKS:
        rack_dc = _rack_table(workload, cluster, spec.rack_map)
        by_rule = {"rack_map": 0, "cluster": 0, "round_robin": 0, "no_location": 0}
    jobs: list[JobTemplate] = []
    kept = placed = 0
    for t in workload:
        if _has_placement(t):
            jobs.append(t)
            kept += 1
            continue
        placed += 1
        extra = dict(t.extra)
        if t.n_maps == 0:
            if t.n_reduces:
                extra["reduce_datacenters"] = _table(split_counts(t.n_reduces, n_dc, counts_rule, rng), dcs)
        elif spec.policy is PlacementPolicy.RACKS:
            assert by_rule is not None
            extra["map_datacenters"] = [dcs[d] for d in _by_racks(t, rack_dc, n_dc, rng, by_rule)]
        else:
            extra["map_datacenters"] = _table(split_counts(t.n_maps, n_dc, counts_rule, rng), dcs)
        jobs.append(t.with_changes(extra=extra))
    report = PlacementReport(
        spec.policy.value, spec.seed, kept, placed,
        skew=spec.skew if spec.policy is PlacementPolicy.ZIPF else None,
        rack_map=dict(spec.rack_map) if spec.policy is PlacementPolicy.RACKS else None,
        by_rule=by_rule,
    )
    return Workload.of(jobs, source=workload.source, warnings=workload.warnings), report


def _table(counts: np.ndarray, dcs: Sequence[str]) -> dict[str, int]:
    return {dcs[d]: int(c) for d, c in enumerate(counts.tolist()) if c}


def _rack_table(workload: Workload, cluster: ClusterSpec,
                rack_map: Mapping[str, str]) -> dict[str, tuple[int, str]]:
    """Rack (or host) name -> (datacenter index, rule that decided it), rules in precedence order (module doc)."""
    dcs = cluster.datacenters
    index = {name: d for d, name in enumerate(dcs)}
    table: dict[str, tuple[int, str]] = {}
    seen = sorted({rack_of(locs[0]) for t in workload if t.map_locations for locs in t.map_locations if locs} - {""})
    for t in cluster.trackers:
        table.setdefault(t.rack, (index[t.datacenter], "cluster"))
        table.setdefault(t.name, (index[t.datacenter], "cluster"))
    for r, dc in rack_map.items():
        table[r] = (index[dc], "rack_map")
    unknown = [r for r in seen if r not in table]
    for i, r in enumerate(unknown):
        table[r] = (i % len(dcs), "round_robin")
    return table


def _by_racks(t: JobTemplate, rack_dc: Mapping[str, tuple[int, str]], n_dc: int, rng: np.random.Generator,
              by_rule: dict[str, int]) -> list[int]:
    """Datacenter index of each map of ``t`` (module docstring); counts the rule used per map in ``by_rule``."""
    locations = t.map_locations or ()
    out: list[int] = []
    for i in range(t.n_maps):
        locs = locations[i] if i < len(locations) else ()
        hit = None
        if locs:
            hit = rack_dc.get(rack_of(locs[0])) or rack_dc.get(locs[0].strip().rsplit("/", 1)[-1])
        if hit is None:
            d, rule = int(rng.integers(0, n_dc)), "no_location"
        else:
            d, rule = hit
        by_rule[rule] += 1
        out.append(d)
    return out
