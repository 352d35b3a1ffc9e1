"""Suspicious-but-usable inputs: checks that add a warning (with counts) instead of failing.

They run where a workload or a cluster is complete -- after loading, before replaying -- and cost O(jobs) or
O(nodes) once. Under the global ``--strict`` flag every warning becomes an error (:mod:`mrsim.io.policy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import Workload

#: Longer than any idle period of one production trace (a holiday week); shorter than the gap between two
#: traces of different years mixed in one store (the 2009 and 2010 logs: 295 days).
SUBMISSION_GAP_WARN_S = 30 * 86400.0


def submission_gap_warnings(workload: Workload, threshold_s: float = SUBMISSION_GAP_WARN_S) -> list[str]:
    """One warning per gap between consecutive submissions longer than ``threshold_s``: traces of different
    periods mixed together replay with the idle time in between, which every makespan then includes."""
    jobs = workload.jobs
    out = []
    for before, after in zip(jobs, jobs[1:]):
        gap = after.submit_s - before.submit_s
        if gap > threshold_s:
            out.append(f"gap of {gap / 86400:.0f} days between the submissions of jobs {before.job_id} and "
                       f"{after.job_id}: traces of different periods mixed? the replay includes the idle time")
    return out


def zero_slot_warnings(cluster: ClusterSpec) -> list[str]:
    """Warn (with counts) about TaskTrackers that can run no map or no reduce: an inferred cluster gives a
    host 0 map slots when only reduces ran there, which silently shrinks the cluster the replay uses."""
    if cluster.uses_resources:
        return []
    out = []
    for kind, attr in (("map", "map_slots"), ("reduce", "reduce_slots")):
        zero = [t.name for t in cluster.trackers if getattr(t, attr) == 0]
        if zero and len(zero) < len(cluster.trackers):
            out.append(f"cluster {cluster.source}: {len(zero)} of {len(cluster.trackers)} TaskTrackers have 0 "
                       f"{kind} slots (e.g. {zero[0]}); they run no {kind} task")
        elif zero:
            out.append(f"cluster {cluster.source}: no TaskTracker has a {kind} slot; {kind} tasks cannot run")
    return out


def with_warnings(workload: Workload, extra: Sequence[str]) -> Workload:
    """``workload`` with ``extra`` warnings appended (the same object when there are none)."""
    return replace(workload, warnings=(*workload.warnings, *extra)) if extra else workload
