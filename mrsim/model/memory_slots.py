"""Hadoop 1 memory-based scheduling: a high-RAM job's task takes several slots of its TaskTracker.

With memory-based scheduling configured, one map (reduce) slot stands for ``mapred.cluster.map.memory.mb``
(``mapred.cluster.reduce.memory.mb``; 0.21+ names ``mapreduce.cluster.mapmemory.mb`` /
``mapreduce.cluster.reducememory.mb``) MB, and a task of a job asking ``mapred.job.map.memory.mb``
(``mapreduce.map.memory.mb``) MB takes ``ceil(job memory / slot memory)`` slots
(``JobConf.computeNumSlotsPerMap`` / ``computeNumSlotsPerReduce``, read through
``JobInProgress.getNumSlotsPerMap`` / ``getNumSlotsPerReduce``). A TaskTracker counts occupied slots, not tasks
(``TaskTrackerStatus.countOccupiedMapSlots``), and a task is handed out only where that many slots are free (the
Capacity Scheduler's ``MemoryMatcher``; the TaskTracker's ``TaskLauncher`` also waits for them). Either slot memory
unset (Hadoop's default, -1) turns the feature off: one slot per task.

The slot memory is a JobTracker setting; a trace records it only through the job confs, which carry the
submitting client's copy. Gridmix's synthetic jobs copy the *source* cluster's values, which can contradict the
cluster they ran on (a conf asking 2048 MB per map with a recorded maximum of 1024 MB could not have been admitted
there). So a conf's slot memory is believed only when the conf is consistent (its job memory does not exceed its
own recorded ``mapred.cluster.max.*.memory.mb`` / ``mapreduce.jobtracker.max*memory.mb``), and the cluster's slot
memory is the largest such value in the trace (an approximation, documented in docs/hadoop-behaviour.md).
Cost: O(jobs) once per replay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

#: (slot memory, job memory, cluster maximum) keys per task type, Hadoop 1 names then 0.21+/2.x names.
KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "map": (("mapred.cluster.map.memory.mb", "mapreduce.cluster.mapmemory.mb"),
            ("mapred.job.map.memory.mb", "mapreduce.map.memory.mb"),
            ("mapred.cluster.max.map.memory.mb", "mapreduce.jobtracker.maxmapmemory.mb")),
    "reduce": (("mapred.cluster.reduce.memory.mb", "mapreduce.cluster.reducememory.mb"),
               ("mapred.job.reduce.memory.mb", "mapreduce.reduce.memory.mb"),
               ("mapred.cluster.max.reduce.memory.mb", "mapreduce.jobtracker.maxreducememory.mb")),
}

#: Every key above (what a trace's reader keeps of a job conf for this module).
ALL_KEYS = frozenset(k for triple in KEYS.values() for names in triple for k in names)


def _mb(props: Mapping[str, str], names: tuple[str, ...]) -> float | None:
    """The first of ``names`` that ``props`` holds as a positive number (MB), else None."""
    for name in names:
        raw = props.get(name)
        if raw is None:
            continue
        try:
            value = float(str(raw).strip())
        except ValueError:
            continue
        if value > 0 and math.isfinite(value):
            return value
    return None


def cluster_slot_mb(confs: Iterable[Mapping[str, str]], kind: str) -> float | None:
    """The cluster's memory per ``kind`` ("map" / "reduce") slot in MB as the trace's consistent confs record it
    (the largest value), or None when no conf records it (memory-based scheduling off)."""
    slot_keys, job_keys, max_keys = KEYS[kind]
    best: float | None = None
    for props in confs:
        slot = _mb(props, slot_keys)
        if slot is None:
            continue
        job, cap = _mb(props, job_keys), _mb(props, max_keys)
        if job is not None and cap is not None and job > cap:
            continue  # a copied conf the cluster could not have admitted (see the module docstring)
        best = slot if best is None else max(best, slot)
    return best


def slots_per_task(props: Mapping[str, str] | None, kind: str, slot_mb: float | None) -> int:
    """``ceil(job memory / slot memory)`` for one job's conf (``JobConf.computeNumSlotsPerMap``), at least 1;
    1 when either is unknown."""
    if not props or slot_mb is None:
        return 1
    job = _mb(props, KEYS[kind][1])
    if job is None:
        return 1
    return max(1, math.ceil(job / slot_mb))


@dataclass(frozen=True)
class MemorySlots:
    """What a replay assumed: the cluster's slot memory (MB, None = unset) and the jobs taking several slots."""
    map_slot_mb: float | None
    reduce_slot_mb: float | None
    wide_jobs: tuple[tuple[str, int, int], ...]  # (job id, slots per map, slots per reduce) where either > 1

    def describe(self) -> dict:
        """The ``--json`` spec's ``memory_slots`` part."""
        return {"map_slot_mb": self.map_slot_mb, "reduce_slot_mb": self.reduce_slot_mb,
                "jobs": [{"job_id": j, "slots_per_map": m, "slots_per_reduce": r} for j, m, r in self.wide_jobs]}


def plan(templates: Iterable, map_cap: int, reduce_cap: int) -> tuple[list[tuple[int, int]], MemorySlots]:
    """Slots per map and per reduce for each template (workload order) and the summary to announce.

    ``map_cap`` / ``reduce_cap``: the smallest tracker's map / reduce slots; a task never asks for more (a task
    wider than every tracker would never start; Hadoop's Capacity Scheduler rejects such jobs at submission).
    """
    templates = list(templates)
    confs = [p for p in (t.extra.get("properties") for t in templates) if isinstance(p, dict)]
    map_mb, reduce_mb = cluster_slot_mb(confs, "map"), cluster_slot_mb(confs, "reduce")
    widths: list[tuple[int, int]] = []
    wide: list[tuple[str, int, int]] = []
    for t in templates:
        props = t.extra.get("properties")
        props = props if isinstance(props, dict) else None
        m = min(slots_per_task(props, "map", map_mb), max(1, map_cap))
        r = min(slots_per_task(props, "reduce", reduce_mb), max(1, reduce_cap))
        widths.append((m, r))
        if m > 1 or r > 1:
            wide.append((t.job_id, m, r))
    return widths, MemorySlots(map_mb, reduce_mb, tuple(wide))
