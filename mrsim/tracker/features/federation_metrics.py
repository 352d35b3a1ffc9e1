"""Federation metrics of one engine replay (Hung, Golubchik, Yu, SoCC'15, sec. 6): ``summary["federation"]``.

* **Size classes** by a job's total tasks (maps + reduces), as the paper: small 1-150, medium 151-500,
  large 501+ (:data:`SIZE_CLASSES`, which the geo study's workloads share). Per class: job count, mean completion (s), mean slowdown.
* **Slowdown** = completion / baseline. The baseline is stated in ``slowdown_baseline``:

  - ``"isolated-replay"`` when every job carries ``extra["isolated_completion_s"]``, i.e. its completion when
    replayed alone on the same cluster under FIFO through the same engine (``mrsim compare`` computes it for
    every replication; heartbeat delays included, so slowdowns near 1 are exact, not optimistic);
  - ``"lower-bound"`` otherwise (``mrsim replay``): a bound no schedule can beat, computed without replays:
    over the job's datacenters, the longest of (its longest map there, its map work there spread over the
    datacenter's map slots), divided by the datacenter's fastest node speed, plus the longest reduce phase
    (shuffle and heartbeat delays left out). Slowdowns against it are >= 1 and *overstate* the isolated one.

* **Per-datacenter utilisation**: busy map (reduce) slot-seconds of the datacenter's trackers over
  (its map (reduce) slots x makespan); a reduce is busy from launch, including its shuffle wait.

Cost: O(tasks) once, at the end of a run (numpy; never on the hot path).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from mrsim.model.templates import ISOLATED_KEY  # where mrsim compare stores each job's isolated completion

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState

#: The paper's size classes by total tasks (maps + reduces): ``(name, first, last)``, last inclusive.
SIZE_CLASSES: tuple[tuple[str, int, float], ...] = (("small", 1, 150), ("medium", 151, 500), ("large", 501, math.inf))


def _r(x: float) -> float | None:
    return None if not np.isfinite(x) else round(float(x), 6)


def lower_bound_s(job: "JobState", jt: "JobTracker") -> float:
    """The documented lower bound on ``job``'s completion alone on the cluster (module docstring), s."""
    n_dc = max(1, len(jt.datacenters))
    slots = [0] * n_dc
    speed = [0.0] * n_dc
    for t in jt.trackers:
        slots[t.datacenter] += t.map_slots
        speed[t.datacenter] = max(speed[t.datacenter], t.speed)
    maps = np.asarray(job.template.map_durations, dtype=float)
    where = np.asarray(job.map_dc if job.map_dc is not None else [0] * maps.size, dtype=np.int64)
    bound = 0.0
    for d in set(where.tolist()):
        durs = maps[where == d]
        s = speed[d] or 1.0
        bound = max(bound, max(float(durs.max()), float(durs.sum()) / max(1, slots[d])) / s)
    reduces = np.asarray(job.template.reduce_durations, dtype=float)
    if reduces.size:
        bound += float(reduces.max()) / (max(speed) or 1.0)
    return bound


def federation_summary(jt: "JobTracker", completion: np.ndarray, makespan: float) -> dict:
    """``summary["federation"]`` (module docstring). ``completion`` is per job in workload order (s)."""
    jobs = jt.jobs
    n_tasks = np.fromiter((j.n_maps + j.n_reduces for j in jobs), dtype=np.int64, count=len(jobs))
    given = [j.template.extra.get(ISOLATED_KEY) for j in jobs]
    if jobs and all(g is not None for g in given):
        baseline = np.asarray(given, dtype=float)
        kind = "isolated-replay"
    else:
        baseline = np.fromiter((lower_bound_s(j, jt) for j in jobs), dtype=float, count=len(jobs))
        kind = "lower-bound"
    slow = np.ones_like(completion)
    pos = baseline > 0
    slow[pos] = completion[pos] / baseline[pos]
    classes: dict[str, dict] = {}
    for name, lo, hi in SIZE_CLASSES:
        mask = (n_tasks >= lo) & (n_tasks <= hi)
        cnt = int(mask.sum())
        classes[name] = {
            "jobs": cnt,
            "mean_completion_s": _r(float(completion[mask].mean())) if cnt else None,
            "mean_slowdown": _r(float(slow[mask].mean())) if cnt else None,
        }
    out: dict = {
        "datacenters": list(jt.datacenters) or ["(one site)"],
        "size_classes": classes,
        "class_bounds_tasks": {name: [lo, None if hi == float("inf") else int(hi)] for name, lo, hi in SIZE_CLASSES},
        "mean_slowdown": _r(float(slow.mean())) if len(jobs) else None,
        "slowdown_baseline": kind,
        "utilisation": dc_utilisation(jt, makespan),
    }
    if jt.datacenters:
        subs = sum(len(set(j.map_dc or ()) | set(j.reduce_dc or ())) for j in jobs)
        out["mean_subjobs_per_job"] = _r(subs / len(jobs)) if jobs else None
    return out


def dc_utilisation(jt: "JobTracker", makespan: float) -> dict[str, dict[str, float | None]]:
    """Per datacenter: busy map / reduce slot-seconds over (slots x makespan) (module docstring)."""
    n_dc = max(1, len(jt.datacenters))
    names = list(jt.datacenters) or ["(one site)"]
    tracker_dc = np.fromiter((t.datacenter for t in jt.trackers), dtype=np.int64, count=len(jt.trackers))
    busy = np.zeros((2, n_dc))
    for j in jt.jobs:
        for kind, start, finish, where in ((0, j.map_start, j.map_finish, j.map_tracker),
                                           (1, j.reduce_start, j.reduce_finish, j.reduce_tracker)):
            if not len(start):
                continue
            s = np.asarray(start, dtype=float)
            f = np.asarray(finish, dtype=float)
            w = np.asarray(where, dtype=np.int64)
            ok = (w >= 0) & np.isfinite(f) & np.isfinite(s)
            np.add.at(busy[kind], tracker_dc[w[ok]], f[ok] - s[ok])
    maps, reduces = jt.site_slots
    out: dict[str, dict[str, float | None]] = {}
    for d in range(n_dc):
        def share(kind: int, slots: int, d: int = d) -> float | None:
            return _r(busy[kind][d] / (slots * makespan)) if slots and makespan > 0 else None
        out[names[d]] = {"map": share(0, maps[d]), "reduce": share(1, reduces[d]),
                         "map_slots": maps[d], "reduce_slots": reduces[d]}
    return out
