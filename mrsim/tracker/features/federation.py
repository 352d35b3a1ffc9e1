"""Datacenter placement of a federation's tasks (Hung, Golubchik, Yu, SoCC'15, section 2), as an engine feature.

On a federated cluster (``[[datacenters]]`` in the cluster file, ``docs/cluster.md``) every task of a job is
placed in one datacenter and runs only on that datacenter's TaskTrackers, so a job is a set of sub-jobs, one per
datacenter holding part of its input. ``mrsim/tracker/replay.py`` attaches :class:`FederationFeature` when the
cluster names datacenters; the core knows only which datacenter each tracker is in (``TrackerState.datacenter``,
``JobTracker.site_slots``: cluster topology, like racks).

Placement: ``extra["map_datacenters"]`` / ``extra["reduce_datacenters"]`` hold either one datacenter name per task
or a table ``{datacenter: task count}`` (tasks are then assigned in index order, table order). Reduces without a
placement are spread over the datacenters holding the job's maps in proportion to their map counts (largest
remainder, ties to the earlier datacenter), so each sub-job shuffles locally.

Hooks (``docs/architecture.md``, "The engine's hooks"):

* ``on_job_arrival``: resolve the job's placement (``JobState.map_dc`` / ``reduce_dc``), its unlaunched tasks per
  datacenter (``dc_maps`` / ``dc_reduces``, stacks popped from the end, lowest index first) and pending counts
  (``dc_maps_pending`` / ``dc_reduces_pending``, read by the geo schedulers). O(tasks) once per job.
* ``pick_task``: a launch on a tracker takes a pending task placed in the tracker's datacenter, requeued ones
  first; maps are rack-local there (no split locations), so node-local and non-local requests get none.
  O(1), plus a scan of the requeued tasks when there are any (rare: kills and replayed failures).
* ``on_requeue``: a killed or failed task counts as pending in its datacenter again. O(1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from mrsim.tracker.scheduling import Locality
from mrsim.tracker.state import JobState, TrackerState
from mrsim.errors import InputError, OptionError
from mrsim.model.templates import JobTemplate

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

_NODE, _NON_LOCAL = Locality.NODE, Locality.NON_LOCAL  # bound once: read on every launch


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
        raise OptionError(f"job {template.job_id}: the cluster is a federation but the job has no datacenter "
                          "placement (give one in the job spec, or choose {placement})")
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


class FederationFeature:
    """Places every task of a federation's jobs in a datacenter and launches it only there (module docstring)."""

    def attach(self, jt: "JobTracker") -> None:
        if not jt.datacenters:
            raise ValueError("FederationFeature needs a federated cluster ([[datacenters]] in the cluster file)")
        self.jt = jt
        jt.register(self, on_job_arrival=self._arrived, pick_task=self._pick, on_requeue=self._requeued)

    def _arrived(self, job: JobState) -> None:
        """Place the job's tasks in datacenters (its sub-jobs); every sub-job's datacenter needs slots for it."""
        jt = self.jt
        map_dc, reduce_dc = task_datacenters(job.template, jt.datacenters)
        n_dc = len(jt.datacenters)
        job.map_dc, job.reduce_dc = map_dc, reduce_dc
        dc_maps: list[list[int]] = [[] for _ in range(n_dc)]
        dc_reduces: list[list[int]] = [[] for _ in range(n_dc)]
        for i in range(len(map_dc) - 1, -1, -1):  # reversed: popped from the end, lowest index first
            dc_maps[map_dc[i]].append(i)
        for i in range(len(reduce_dc) - 1, -1, -1):
            dc_reduces[reduce_dc[i]].append(i)
        job.dc_maps, job.dc_reduces = dc_maps, dc_reduces
        job.dc_maps_pending = [len(x) for x in dc_maps]
        job.dc_reduces_pending = [len(x) for x in dc_reduces]
        for kind, counts in (("map", job.dc_maps_pending), ("reduce", job.dc_reduces_pending)):
            for d, count in enumerate(counts):
                if count and not jt.site_slots[kind == "reduce"][d]:
                    raise InputError(f"job {job.job_id}: {count} {kind} task(s) placed in datacenter "
                                     f"{jt.datacenters[d]!r}, which has no {kind} slots")

    def _pick(self, job: JobState, tracker: TrackerState, reduce: bool, locality: Locality) -> int:
        """A pending task of ``job`` placed in ``tracker``'s datacenter (requeued ones first), or -1 (module doc).

        Updates the per-datacenter pending count and the job's launch counter; the core does the rest."""
        d = tracker.datacenter
        if reduce:
            pending = job.dc_reduces_pending
            if not pending[d]:  # type: ignore[index]
                return -1
            pending[d] -= 1  # type: ignore[index]
            if job.requeued_reduces:
                i = self._requeued_in(job.requeued_reduces, job.reduce_dc, d)  # type: ignore[arg-type]
                if i >= 0:
                    return i
            job.next_reduce += 1
            return job.dc_reduces[d].pop()  # type: ignore[index]
        if locality == _NODE or locality == _NON_LOCAL:
            return -1  # within its datacenter every map is rack-local (no split locations there)
        pending = job.dc_maps_pending
        if not pending[d]:  # type: ignore[index]
            return -1
        pending[d] -= 1  # type: ignore[index]
        if job.requeued_maps:
            i = self._requeued_in(job.requeued_maps, job.map_dc, d)  # type: ignore[arg-type]
            if i >= 0:
                return i
        job.next_map += 1
        return job.dc_maps[d].pop()  # type: ignore[index]

    @staticmethod
    def _requeued_in(requeued: list[int], placed: list[int], d: int) -> int:
        """Take a requeued task placed in ``d`` (the latest first) off ``requeued``, or -1 when there is none."""
        for k in range(len(requeued) - 1, -1, -1):
            if placed[requeued[k]] == d:
                return requeued.pop(k)
        return -1

    def _requeued(self, job: JobState, i: int, reduce: bool) -> None:
        if reduce:
            job.dc_reduces_pending[job.reduce_dc[i]] += 1  # type: ignore[index]
        else:
            job.dc_maps_pending[job.map_dc[i]] += 1  # type: ignore[index]

    def check_invariants(self) -> None:
        """Per running job: its pending tasks per datacenter add up to its pending tasks."""
        for job in self.jt.running_jobs.values():
            assert sum(job.dc_maps_pending) == job.maps_pending, f"{job}: per-datacenter pending maps"  # type: ignore[arg-type]
            assert sum(job.dc_reduces_pending) == job.reduces_pending, f"{job}: per-datacenter pending reduces"  # type: ignore[arg-type]
