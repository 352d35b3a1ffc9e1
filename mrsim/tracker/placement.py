"""Per-task resource requests, resolved once per job when it arrives, and the trackers' datacenters.

Requests (resource-vector clusters, ``docs/cluster.md``): a job's map (reduce) tasks all request the same vector,
taken from, in order of precedence,

1. ``extra["map_request"]`` / ``extra["reduce_request"]``: a table of resource amounts (job specs, generators);
2. the job's configuration kept by the profiler: ``mapreduce.map.memory.mb`` (or Hadoop 1's
   ``mapred.job.map.memory.mb``) as ``memory_mb`` and ``mapreduce.map.cpu.vcores`` as ``vcores``;
3. ``extra["map_mb"]`` (Rumen's ``jobMapMB``) as ``memory_mb``;
4. the cluster's default request (``[requests]``, else YARN's 1024 MB and 1 vcore).

Each source fills only the resources it names; the next fills the rest.

Sites (federations): :func:`tracker_sites` gives each tracker its datacenter index, the cluster's topology (like
its racks). Where a federation's *tasks* run is the federation feature's business
(``mrsim/tracker/features/federation.py``), attached by ``mrsim/tracker/replay.py``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from mrsim.tracker.state import TrackerState
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import JobTemplate

_PROPERTY_KEYS = {
    False: (("memory_mb", ("mapreduce.map.memory.mb", "mapred.job.map.memory.mb")),
            ("vcores", ("mapreduce.map.cpu.vcores",))),
    True: (("memory_mb", ("mapreduce.reduce.memory.mb", "mapred.job.reduce.memory.mb")),
           ("vcores", ("mapreduce.reduce.cpu.vcores",))),
}


def task_request(template: JobTemplate, reduce: bool, default: Mapping[str, float]) -> dict[str, float]:
    """The resource request of one of the job's map (``reduce=False``) or reduce tasks (see the module doc)."""
    extra = template.extra
    kind = "reduce" if reduce else "map"
    request: dict[str, float] = {}
    explicit = extra.get(f"{kind}_request")
    if explicit is not None:
        if not isinstance(explicit, Mapping):
            raise InputError(f"job {template.job_id}: {kind}_request must be a table of resource amounts")
        for name, amount in explicit.items():
            try:
                value = float(amount)
            except (TypeError, ValueError):
                raise InputError(f"job {template.job_id}: {kind}_request {name!r} is not a number ({amount!r})") from None
            if not value >= 0:
                raise InputError(f"job {template.job_id}: {kind}_request {name!r} must be non-negative, got {amount!r}")
            request[str(name)] = value
    props: Any = extra.get("properties") or {}  # anything: a non-table fails the lookups below
    for resource, keys in _PROPERTY_KEYS[reduce]:
        if resource in request:
            continue
        for key in keys:
            try:
                value = float(props[key])
            except (KeyError, TypeError, ValueError):
                continue
            if value > 0:
                request[resource] = value
                break
    mb = extra.get(f"{kind}_mb")
    if "memory_mb" not in request and isinstance(mb, (int, float)) and mb > 0:
        request["memory_mb"] = float(mb)
    for resource, amount in default.items():
        request.setdefault(resource, float(amount))
    return request


# ------------------------------------------------------------------ helpers of the JobTracker core


def tracker_sites(trackers: Sequence[TrackerState], cluster: ClusterSpec) -> tuple[list[int], list[int]]:
    """Give each tracker its datacenter index (0 on one-site clusters) and return the map and reduce slots per
    datacenter (``JobTracker.site_slots``)."""
    dc_index = {name: d for d, name in enumerate(cluster.datacenters)}
    n_sites = max(1, len(cluster.datacenters))
    site_slots: tuple[list[int], list[int]] = ([0] * n_sites, [0] * n_sites)
    for state, spec in zip(trackers, cluster.trackers):
        state.datacenter = dc_index.get(spec.datacenter, 0)
        site_slots[0][state.datacenter] += state.map_slots
        site_slots[1][state.datacenter] += state.reduce_slots
    return site_slots


