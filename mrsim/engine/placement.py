"""Per-task resource requests and datacenter placement, resolved once per job when it arrives.

Requests (resource-vector clusters, ``docs/cluster.md``): a job's map (reduce) tasks all request the same vector,
taken from, in order of precedence,

1. ``extra["map_request"]`` / ``extra["reduce_request"]``: a table of resource amounts (job specs, generators);
2. the job's configuration kept by the profiler: ``mapreduce.map.memory.mb`` (or Hadoop 1's
   ``mapred.job.map.memory.mb``) as ``memory_mb`` and ``mapreduce.map.cpu.vcores`` as ``vcores``;
3. ``extra["map_mb"]`` (Rumen's ``jobMapMB``) as ``memory_mb``;
4. the cluster's default request (``[requests]``, else YARN's 1024 MB and 1 vcore).

Each source fills only the resources it names; the next fills the rest.

Placement (federations): ``extra["map_datacenters"]`` / ``extra["reduce_datacenters"]`` hold either one
datacenter name per task or a table ``{datacenter: task count}`` (tasks are then assigned in index order, table
order). Reduces without a placement are spread over the datacenters holding the job's maps in proportion to
their map counts (largest remainder, ties to the earlier datacenter), so each sub-job shuffles locally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from mrsim.engine.state import JobState, TrackerState
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import JobTemplate

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.engine.jobtracker import JobTracker

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


def _expand(value: object, n: int, what: str, job_id: str, index: Mapping[str, int]) -> list[int]:
    if isinstance(value, Mapping):
        out: list[int] = []
        for name, count in value.items():
            if str(name) not in index:
                raise InputError(f"job {job_id}: {what} names datacenter {name!r}, which the cluster does not have "
                                 f"(it has {', '.join(index)})")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InputError(f"job {job_id}: {what} count for {name!r} must be a non-negative integer")
            out += [index[str(name)]] * count
    elif isinstance(value, Sequence) and not isinstance(value, str):
        out = []
        for name in value:
            d = index.get(str(name))
            if d is None:
                raise InputError(f"job {job_id}: {what} names datacenter {name!r}, which the cluster does not have "
                                 f"(it has {', '.join(index)})")
            out.append(d)
    else:
        raise InputError(f"job {job_id}: {what} must be a list of datacenter names or a table of counts")
    if len(out) != n:
        raise InputError(f"job {job_id}: {what} places {len(out)} task(s) but the job has {n}")
    return out


def proportional_split(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` items over ``weights`` by largest remainder (ties to the lower index). Exact: sums to total."""
    weight_sum = sum(weights)
    if weight_sum <= 0 or total <= 0:
        return [0] * len(weights)
    shares = [total * w // weight_sum for w in weights]
    rest = total - sum(shares)
    order = sorted(range(len(weights)), key=lambda d: (-((total * weights[d]) % weight_sum), d))
    for d in order[:rest]:
        shares[d] += 1
    return shares


def task_datacenters(template: JobTemplate, datacenters: Sequence[str]) -> tuple[list[int], list[int]]:
    """Datacenter index of each map and each reduce of the job (see the module doc). Raises InputError."""
    index = {name: d for d, name in enumerate(datacenters)}
    extra = template.extra
    if template.n_maps and "map_datacenters" not in extra:
        raise InputError(f"job {template.job_id}: the cluster is a federation but the job has no datacenter "
                         "placement (give one in the job spec, or choose --placement)")
    map_dc = _expand(extra.get("map_datacenters", []), template.n_maps, "map_datacenters", template.job_id, index)
    if "reduce_datacenters" in extra:
        reduce_dc = _expand(extra["reduce_datacenters"], template.n_reduces, "reduce_datacenters", template.job_id, index)
    else:
        counts = [0] * len(datacenters)
        for d in map_dc:
            counts[d] += 1
        if not map_dc:
            counts[0] = 1
        reduce_dc = [d for d, share in enumerate(proportional_split(template.n_reduces, counts)) for _ in range(share)]
    return map_dc, reduce_dc


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


def pick_in_datacenter(job: JobState, tracker: TrackerState, reduce: bool) -> int:
    """A pending task of ``job`` placed in ``tracker``'s datacenter (requeued ones first), or -1.

    Updates the per-datacenter pending count and the job's launch counter. Cost: O(1), plus a scan of the
    requeued tasks when there are any (rare: kills and replayed failures).
    """
    d = tracker.datacenter
    pending = job.dc_reduces_pending if reduce else job.dc_maps_pending
    assert pending is not None
    if pending[d] == 0:
        return -1
    pending[d] -= 1
    requeued = job.requeued_reduces if reduce else job.requeued_maps
    if requeued:
        placed = job.reduce_dc if reduce else job.map_dc
        assert placed is not None
        for k in range(len(requeued) - 1, -1, -1):
            if placed[requeued[k]] == d:
                return requeued.pop(k)
    stack = (job.dc_reduces if reduce else job.dc_maps)[d]  # type: ignore[index]
    if reduce:
        job.next_reduce += 1
    else:
        job.next_map += 1
    return stack.pop()


def setup_datacenters(jt: "JobTracker", job: JobState) -> None:
    """Place the job's tasks in datacenters (its sub-jobs); every sub-job's datacenter needs slots for it."""
    map_dc, reduce_dc = task_datacenters(job.template, jt.datacenters)
    n_dc = len(jt.datacenters)
    job.map_dc, job.reduce_dc = map_dc, reduce_dc
    job.dc_maps = [[] for _ in range(n_dc)]
    job.dc_reduces = [[] for _ in range(n_dc)]
    for i in range(len(map_dc) - 1, -1, -1):  # reversed: popped from the end, lowest index first
        job.dc_maps[map_dc[i]].append(i)
    for i in range(len(reduce_dc) - 1, -1, -1):
        job.dc_reduces[reduce_dc[i]].append(i)
    job.dc_maps_pending = [len(x) for x in job.dc_maps]
    job.dc_reduces_pending = [len(x) for x in job.dc_reduces]
    for kind, counts in (("map", job.dc_maps_pending), ("reduce", job.dc_reduces_pending)):
        for d, count in enumerate(counts):
            if count and not jt.site_slots[kind == "reduce"][d]:
                raise InputError(f"job {job.job_id}: {count} {kind} task(s) placed in datacenter "
                                 f"{jt.datacenters[d]!r}, which has no {kind} slots")
