"""Sweeps: build each workload once from its frozen :class:`Scenario`, run every policy on it, keep flat rows.

Every row carries the full scenario it ran with (``row["scenario"]``) beside its metrics, so a results file is
self-describing; plotting (:mod:`mrsim.studies.geo.plots`) only reads rows. Policies compared on one scenario see the
identical workload (same seed, same streams). Cost: one engine run per (scenario, policy)
(:func:`mrsim.studies.geo.run.simulate`), the engine inputs built once per scenario.
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Sequence

from mrsim.studies.geo.metrics import isolated_completion, summarize
from mrsim.studies.geo.model import GeoWorkload
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.result import SizeMeasure
from mrsim.studies.geo.run import prepare, simulate
from mrsim.studies.geo.workloads import Scenario, synthesize

ALL_POLICIES: tuple[Policy, ...] = tuple(Policy)


def run_workload(
    workload: GeoWorkload, policies: Sequence[Policy], measure: SizeMeasure = SizeMeasure.TASKS
) -> list[dict[str, Any]]:
    """One summary row per policy on ``workload`` (isolated times computed once)."""
    iso = isolated_completion(workload)
    load = workload.offered_load()
    inputs = prepare(workload)
    rows = []
    for p in policies:
        row = summarize(simulate(workload, p, measure, inputs=inputs), iso)
        row["scenario"] = dict(workload.spec)
        row["offered_load"] = None if math.isnan(load) else load
        rows.append(row)
    return rows


def _run_scenario(args: tuple[Scenario, tuple[Policy, ...], SizeMeasure]) -> list[dict[str, Any]]:
    sc, policies, measure = args
    return run_workload(synthesize(sc), policies, measure)


def sweep(
    scenarios: Iterable[Scenario],
    policies: Sequence[Policy] = ALL_POLICIES,
    measure: SizeMeasure = SizeMeasure.TASKS,
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Rows for every (scenario, policy), in scenario then policy order. ``workers > 1`` uses processes.

    Results do not depend on ``workers`` except the CPU-time ``timing`` fields.
    """
    jobs = [(sc, tuple(policies), measure) for sc in scenarios]
    rows: list[dict[str, Any]] = []
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for i, part in enumerate(pool.map(_run_scenario, jobs)):
                rows.extend(part)
                if progress:
                    progress(i + 1, len(jobs))
    else:
        for i, job in enumerate(jobs):
            rows.extend(_run_scenario(job))
            if progress:
                progress(i + 1, len(jobs))
    return rows


def improvement(base: float, new: float) -> float:
    """Relative reduction of mean completion time, ``1 - new / base`` (0.25 means 25% shorter)."""
    return 1.0 - new / base if base > 0 else 0.0


def improvements(rows: Sequence[dict[str, Any]], keys: Sequence[str] = ("trace", "utilization")) -> list[dict[str, Any]]:
    """Per group of rows (same scenario ``keys`` and seed), SWAG's and Reordering's gains over the SRPT variants.

    Groups lacking a needed policy leave that figure out. Seeds are averaged (mean completion per policy).
    """
    groups: dict[tuple, dict[str, list[float]]] = {}
    for r in rows:
        g = tuple(r["scenario"].get(k) for k in keys)
        groups.setdefault(g, {}).setdefault(r["policy"], []).append(r["mean_completion_s"])
    out = []
    for g, by in groups.items():
        m = {p: sum(v) / len(v) for p, v in by.items()}
        rec: dict[str, Any] = dict(zip(keys, g))
        rec["mean_completion_s"] = m
        pairs = {
            "swag_vs_gsrpt": ("gsrpt", "swag"),
            "swag_vs_isrpt": ("isrpt", "swag"),
            "swag_vs_reorder_gsrpt": ("reorder-gsrpt", "swag"),
            "swag_vs_reorder_isrpt": ("reorder-isrpt", "swag"),
            "reorder_vs_gsrpt": ("gsrpt", "reorder-gsrpt"),
            "reorder_vs_isrpt": ("isrpt", "reorder-isrpt"),
        }
        for name, (a, b) in pairs.items():
            if a in m and b in m:
                rec[name] = improvement(m[a], m[b])
        if "swag" in m and "gsrpt" in m and "isrpt" in m:
            rec["swag_vs_best_srpt"] = improvement(min(m["gsrpt"], m["isrpt"]), m["swag"])
        out.append(rec)
    return out
