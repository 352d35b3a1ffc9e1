"""The link between :mod:`mrsim.studies.lotes` and mrsim's own cluster model and heartbeat engine (docs/resources.md).

Three conversions, all in one place so that ``mrsim lotes`` (the push model) and the heartbeat
schedulers see the same system:

* :func:`lotes_cluster` - a resource-vector :class:`~mrsim.model.cluster.ClusterSpec` (``resources = {vcores, memory_mb}``
  per node) as a LoTES :class:`~mrsim.studies.lotes.spec.Cluster`: one machine configuration per distinct capacity vector,
  in first-appearance order, with its node count. ``units="lotes"`` gives Table 1's units (cores, GB of RAM) so
  that ``mrsim lotes``'s job stream can be drawn unchanged; ``units="engine"`` keeps the cluster's own resource names
  and units (what the heartbeat schedulers plan with).
* :func:`google_workload` - LoTES Table 3 (section 5.1) or its MapReduce variant (section 7) as mrsim
  :class:`~mrsim.model.templates.JobTemplate`\\ s, at a load fraction of the allocation LP's lambda* for the given
  cluster. Jobs are drawn by :class:`mrsim.studies.lotes.workload.JobSource`, so a seed gives exactly the jobs the
  push model (``mrsim lotes run``) sees on the same machines; requests are then rounded to Hadoop's units (see
  :func:`engine_request`).
* :func:`to_logged_job` - a template as a Rumen ``LoggedJob`` carrying its requests the way real traces do
  (``jobMapMB``/``jobReduceMB`` and the job properties ``mapreduce.{map,reduce}.memory.mb`` /
  ``mapreduce.{map,reduce}.cpu.vcores``), so they survive ``mrsim profile`` and the trace store.

Units: the engine's time is seconds; LoTES's is hours (durations are converted with :data:`SECONDS_PER_HOUR`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from mrsim.errors import InputError
from mrsim.profiler.synth import EPOCH_MS, template_to_logged_job
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import JobTemplate
from mrsim.model.templates import Workload as JobWorkload
from mrsim.studies.lotes.allocation import solve_allocation
from mrsim.studies.lotes.google import table3_workload
from mrsim.studies.lotes.spec import Cluster, MachineConfig, Workload
from mrsim.studies.lotes.workload import UNITS_PER, JobSource

SECONDS_PER_HOUR = 3600.0
MB_PER_GB = 1024.0
#: The engine resources Table 3 is expressed in, and their factor from Table 3's units (cores, GB).
ENGINE_RESOURCES: tuple[str, ...] = ("memory_mb", "vcores")
#: Job names of generated jobs: ``lotes-c<class number>-<Table 2 label>-<job number>`` (the class survives Rumen).
CLASS_NAME = re.compile(r"^lotes-c(\d+)-")
#: vcores are kept to 1/1000 (YARN's are integers: fractional vcores are an approximation, docs/resources.md).
VCORE_DECIMALS = 3


def _require_engine_resources(spec: ClusterSpec) -> None:
    if not spec.uses_resources:
        raise InputError(f"{spec.source or 'cluster'}: LoTES needs a resource-vector cluster "
                         "(resources = { vcores = ..., memory_mb = ... } per node; see examples/clusters/lotes_table1_10.toml)")
    if spec.resource_names != ENGINE_RESOURCES:
        raise InputError(f"{spec.source or 'cluster'}: the LoTES Table 3 workload needs exactly the resources "
                         f"vcores and memory_mb, the cluster declares {', '.join(spec.resource_names)}")


def configurations(spec: ClusterSpec) -> tuple[list[tuple[float, ...]], list[list[int]]]:
    """Distinct capacity vectors (``spec.resource_names`` order) in first-appearance order, and the tracker
    indices of each. Cost O(nodes)."""
    caps: dict[tuple[float, ...], list[int]] = {}
    names = spec.resource_names  # a property that scans every node: read once, not per node (was O(nodes^2))
    for i, t in enumerate(spec.trackers):
        caps.setdefault(tuple(t.capacity(r) for r in names), []).append(i)
    return list(caps), list(caps.values())


def lotes_cluster(spec: ClusterSpec, units: str = "engine") -> Cluster:
    """The cluster's machine configurations as a LoTES :class:`Cluster` (see the module docstring)."""
    caps, members = configurations(spec)
    if units == "engine":
        resources = spec.resource_names
        conv = caps
    elif units == "lotes":
        _require_engine_resources(spec)
        resources = ("cores", "ram_gb")
        conv = [(vc, mb / MB_PER_GB) for mb, vc in caps]
    else:  # pragma: no cover - programming error
        raise ValueError(units)
    for cap in conv:
        if any(not c > 0 for c in cap):
            raise InputError(f"{spec.source or 'cluster'}: a node declares a zero capacity ({dict(zip(resources, cap))}); "
                             "LoTES needs positive capacities in every resource")
    return Cluster(resources=tuple(resources), configs=tuple(
        MachineConfig(name=f"{j + 1}:" + "/".join(f"{c:g}" for c in cap), capacity=tuple(float(c) for c in cap),
                      count=len(m)) for j, (cap, m) in enumerate(zip(conv, members))))


@dataclass(frozen=True)
class GoogleTraceSpec:
    """LoTES Table 3 workload for a cluster: ``load`` x lambda* jobs per hour for ``hours`` hours.

    ``mapreduce``: every job has ``maps`` map and ``reduces`` reduce tasks (section 7), else one task per job.
    """

    load: float = 0.8
    hours: float = 10.0
    mapreduce: bool = False
    maps: int = 200
    reduces: int = 100
    seed: int = 0

    def validate(self) -> None:
        if not (self.load > 0 and math.isfinite(self.load)):
            raise InputError(f"--load must be a positive fraction of lambda*, got {self.load}")
        if not (self.hours > 0 and math.isfinite(self.hours)):
            raise InputError(f"--hours must be positive, got {self.hours}")
        if self.maps < 1 or self.reduces < 0:
            raise InputError("--lotes-google: a MapReduce job needs at least one map and no negative reduce count")


def table3(spec: GoogleTraceSpec) -> Workload:
    """Table 3 in LoTES units, single-task or MapReduce."""
    w = table3_workload()
    return w.as_mapreduce(spec.maps, spec.reduces) if spec.mapreduce else w


def lambda_star(cluster: ClusterSpec, spec: GoogleTraceSpec) -> float:
    """lambda* (jobs per hour) of the allocation LP for this cluster and the spec's job shape."""
    return solve_allocation(lotes_cluster(cluster, "lotes"), table3(spec)).lam


def engine_request(units: list[int]) -> dict[str, float]:
    """A drawn LoTES request (integer micro-units of cores and GB) in the engine's units: ``memory_mb`` rounded to a
    whole MB (Hadoop's ``mapreduce.map.memory.mb`` is an integer), ``vcores`` to 1/1000, both at least one unit of
    that resolution."""
    cores = units[0] / UNITS_PER
    gb = units[1] / UNITS_PER
    return {"memory_mb": float(max(1, round(gb * MB_PER_GB))),
            "vcores": max(10.0 ** -VCORE_DECIMALS, round(cores, VCORE_DECIMALS))}


def _seconds(hours: list[float]) -> np.ndarray:
    """Durations in s rounded to whole ms (Rumen's resolution), at least 1 ms."""
    return np.maximum(1.0, np.rint(np.asarray(hours, dtype=float) * SECONDS_PER_HOUR * 1000.0)) / 1000.0


def google_workload(cluster: ClusterSpec, spec: GoogleTraceSpec) -> tuple[JobWorkload, dict]:
    """Draw the workload (see the module docstring). Returns the templates and a summary (lambda*, rate, counts).

    Every job's ``extra`` holds ``map_request`` (and ``reduce_request``) in engine units and ``lotes_class`` (0-based);
    its name starts ``lotes-c<k+1>-`` so the class survives a Rumen round trip. Cost O(tasks).
    """
    spec.validate()
    lotes_cl = lotes_cluster(cluster, "lotes")
    workload = table3(spec)
    lam = solve_allocation(lotes_cl, workload).lam
    rate = spec.load * lam
    source = JobSource(workload, lotes_cl, rate, spec.seed)
    labels = [c.name.split(":", 1)[1].replace("*", "x") for c in workload.classes]
    jobs: list[JobTemplate] = []
    width = 7
    while True:
        t_h, k, req, req2 = source.next_job()
        if t_h > spec.hours:
            break
        n = len(jobs) + 1
        if spec.mapreduce:
            maps = _seconds(source.durations(k, spec.maps))
            reduces = _seconds(source.durations(k, spec.reduces))
        else:
            maps = _seconds([source.duration()])
            reduces = np.zeros(0)
        extra: dict[str, object] = {"lotes_class": k, "map_request": engine_request(req)}
        if spec.mapreduce and req2 is not None:
            extra["reduce_request"] = engine_request(req2)
        jobs.append(JobTemplate(
            job_id=f"job_{EPOCH_MS // 1000}_{n:0{width}d}",
            submit_s=EPOCH_MS / 1000.0 + round(t_h * SECONDS_PER_HOUR, 3),
            map_durations=maps,
            reduce_durations=reduces,
            typical_shuffle_durations=np.zeros(len(reduces)),
            name=f"lotes-c{k + 1}-{labels[k]}-{n}",
            user="lotes",
            extra=extra,
        ))
    if not jobs:
        raise InputError(f"--hours {spec.hours:g} at {rate:.3g} jobs/h gives no job; give a longer horizon")
    info = {"lambda_star_per_h": lam, "rate_per_h": rate, "load": spec.load, "hours": spec.hours,
            "mapreduce": spec.mapreduce, "jobs": len(jobs), "seed": spec.seed,
            "configurations": len(lotes_cl.configs), "nodes": lotes_cl.n_machines}
    kind = f"mapreduce {spec.maps}x{spec.reduces}" if spec.mapreduce else "single-task"
    return JobWorkload.of(jobs, source=f"lotes-google {kind} load={spec.load:g} hours={spec.hours:g} seed={spec.seed}"), info


def to_logged_job(t: JobTemplate) -> dict:
    """Rumen ``LoggedJob`` of a generated template with its requests as Hadoop records them (module docstring)."""
    job = template_to_logged_job(t)
    props: dict[str, str] = {}
    for kind in ("map", "reduce"):
        req = t.extra.get(f"{kind}_request")
        if not isinstance(req, Mapping):
            continue
        mb = int(req["memory_mb"])
        job["jobMapMB" if kind == "map" else "jobReduceMB"] = mb
        props[f"mapreduce.{kind}.memory.mb"] = str(mb)
        props[f"mapreduce.{kind}.cpu.vcores"] = f"{float(req['vcores']):g}"
    if props:
        job["jobProperties"] = props
    return job


def class_of(template: JobTemplate) -> int | None:
    """The generator's class label (0-based) from ``extra`` or, after a Rumen round trip, from the job name."""
    k = template.extra.get("lotes_class")
    if isinstance(k, int):
        return k
    m = CLASS_NAME.match(template.name or "")
    return int(m.group(1)) - 1 if m else None
