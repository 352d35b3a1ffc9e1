"""``mrsim geo figures``: reproduce the paper's figure families (Hung, Golubchik, Yu, SoCC'15, section 6).

Three sweeps, all on synthetic workloads (:mod:`mrsim.studies.geo.workloads`) with every policy:

1. *utilisation*: each trace type at each utilisation -> ``completion_<trace>.png`` (mean completion time vs
   utilisation, the paper's Figure 5 a/c/e), ``fairness_<trace>.png`` (mean slowdown per size class at
   ``fairness_utilization``, Figure 5 b/d/f) and ``overhead.png`` (controller time per decision and mean jobs in
   the system vs utilisation for ``overhead_trace``, Figure 6);
2. *datacenters*: ``sensitivity_datacenters.png``, mean completion vs number of datacenters (slots per
   datacenter fixed, arrival rate scaled to keep the utilisation);
3. *skew*: ``sensitivity_skew.png``, mean completion vs Zipf placement skew (0 = uniform).

It also writes ``results.json`` (every row with its full scenario), ``improvements.json`` and ``summary.md``
(SWAG's and Reordering's gains over the SRPT variants per trace and utilisation). Cost: one simulation per
(scenario, policy); the default plan takes a few minutes on two cores, ``quick`` a few seconds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import orjson

from mrsim.io import atomic_write
from mrsim.studies.geo import plots
from mrsim.studies.geo.experiments import ALL_POLICIES, improvements, sweep
from mrsim.studies.geo.placement import Placement, PlacementKind
from mrsim.studies.geo.result import SizeMeasure
from mrsim.studies.geo.workloads import Scenario, TraceType

#: Jobs per run by trace type, chosen so each run has roughly 0.4-0.7 million tasks.
DEFAULT_JOBS = {TraceType.FACEBOOK: 2000, TraceType.GOOGLE: 5000, TraceType.EXPONENTIAL: 800}


@dataclass(frozen=True)
class FigurePlan:
    """What ``figures`` runs. Defaults are documented in docs/geo.md."""

    utilizations: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
    traces: tuple[TraceType, ...] = tuple(TraceType)
    jobs: dict[TraceType, int] = field(default_factory=lambda: dict(DEFAULT_JOBS))
    n_datacenters: int = 30
    slots: int = 10
    skew: float = 1.0
    seeds: tuple[int, ...] = (1,)
    fairness_utilization: float = 0.8
    overhead_trace: TraceType = TraceType.FACEBOOK
    sensitivity_trace: TraceType = TraceType.EXPONENTIAL
    sensitivity_utilization: float = 0.8
    dc_counts: tuple[int, ...] = (5, 10, 20, 30, 50)
    skews: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)

    def base(self, trace: TraceType, seed: int) -> Scenario:
        return Scenario(
            trace=trace,
            n_datacenters=self.n_datacenters,
            slots=self.slots,
            n_jobs=self.jobs[trace],
            placement=Placement(PlacementKind.ZIPF, self.skew),
            seed=seed,
        )

    def describe(self) -> dict[str, Any]:
        return {
            "utilizations": list(self.utilizations),
            "traces": [t.value for t in self.traces],
            "jobs": {t.value: n for t, n in self.jobs.items()},
            "datacenters": self.n_datacenters,
            "slots_per_datacenter": self.slots,
            "zipf_skew": self.skew,
            "seeds": list(self.seeds),
            "fairness_utilization": self.fairness_utilization,
            "overhead_trace": self.overhead_trace.value,
            "sensitivity_trace": self.sensitivity_trace.value,
            "sensitivity_utilization": self.sensitivity_utilization,
            "dc_counts": list(self.dc_counts),
            "skews": list(self.skews),
        }


def quick_plan(seed: int = 1) -> FigurePlan:
    """A small plan (seconds) for smoke tests and a first look; numbers from it are noisy."""
    return FigurePlan(
        utilizations=(0.5, 0.8),
        jobs={TraceType.FACEBOOK: 60, TraceType.GOOGLE: 150, TraceType.EXPONENTIAL: 30},
        n_datacenters=5,
        seeds=(seed,),
        dc_counts=(3, 5),
        skews=(0.0, 1.0),
    )


def make_figures(
    plan: FigurePlan,
    outdir: str | os.PathLike[str],
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run the plan's sweeps and write every artefact into ``outdir``; returns the improvements and paths."""
    out = Path(outdir)
    util_sc = [
        replace(plan.base(t, s), utilization=u) for t in plan.traces for u in plan.utilizations for s in plan.seeds
    ]
    sens_base = [plan.base(plan.sensitivity_trace, s) for s in plan.seeds]
    dc_sc = [replace(b, n_datacenters=n, utilization=plan.sensitivity_utilization) for n in plan.dc_counts for b in sens_base]
    skew_sc = [
        replace(b, placement=Placement(PlacementKind.ZIPF, k), utilization=plan.sensitivity_utilization)
        for k in plan.skews
        for b in sens_base
    ]
    total = len(util_sc) + len(dc_sc) + len(skew_sc)
    done = 0

    def tick(_i: int, _n: int) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    rows = sweep(util_sc + dc_sc + skew_sc, ALL_POLICIES, SizeMeasure.TASKS, workers=workers, progress=tick)
    per = len(ALL_POLICIES)
    util_rows = rows[: len(util_sc) * per]
    dc_rows = rows[len(util_sc) * per : (len(util_sc) + len(dc_sc)) * per]
    skew_rows = rows[(len(util_sc) + len(dc_sc)) * per :]

    paths: list[str] = []
    for t in plan.traces:
        mine = [r for r in util_rows if r["scenario"]["trace"] == t.value]
        p = out / f"completion_{t.value}.png"
        plots.line_plot(
            mine, "utilization", lambda r: r["mean_completion_s"], p,
            xlabel="utilisation (offered load / total slots, fraction)",
            ylabel="mean job completion time (s)",
            title=f"{t.value}-like workload: completion time vs utilisation", logy=True,
        )
        paths.append(str(p))
        fair = [r for r in mine if abs(r["scenario"]["utilization"] - plan.fairness_utilization) < 1e-9]
        if fair:
            p = out / f"fairness_{t.value}.png"
            plots.class_bars(fair, p, title=f"{t.value}-like, utilisation {plan.fairness_utilization}: slowdown by job size")
            paths.append(str(p))
    ov = [r for r in util_rows if r["scenario"]["trace"] == plan.overhead_trace.value]
    p = out / "overhead_decision_time.png"
    plots.line_plot(
        ov, "utilization", lambda r: r["timing"]["decision_ms_mean"], p,
        xlabel="utilisation (fraction)", ylabel="controller CPU time per decision (ms)",
        title=f"{plan.overhead_trace.value}-like: computation overhead", logy=True,
    )
    paths.append(str(p))
    p = out / "overhead_jobs_in_system.png"
    plots.line_plot(
        ov, "utilization", lambda r: r["mean_jobs_in_system"], p,
        xlabel="utilisation (fraction)", ylabel="time-average jobs in the system (jobs)",
        title=f"{plan.overhead_trace.value}-like: communication overhead proxy", logy=True,
    )
    paths.append(str(p))
    p = out / "sensitivity_datacenters.png"
    plots.line_plot(
        dc_rows, "datacenters", lambda r: r["mean_completion_s"], p,
        xlabel="number of datacenters", ylabel="mean job completion time (s)",
        title=f"{plan.sensitivity_trace.value}-like, utilisation {plan.sensitivity_utilization}", logy=True,
    )
    paths.append(str(p))
    p = out / "sensitivity_skew.png"
    plots.line_plot(
        skew_rows, "skew", lambda r: r["mean_completion_s"], p,
        xlabel="Zipf placement skew s (0 = uniform)", ylabel="mean job completion time (s)",
        title=f"{plan.sensitivity_trace.value}-like, utilisation {plan.sensitivity_utilization}", logy=True,
    )
    paths.append(str(p))

    imp = {
        "utilization": improvements(util_rows, ("trace", "utilization")),
        "datacenters": improvements(dc_rows, ("trace", "datacenters")),
        "skew": improvements(skew_rows, ("trace", "skew")),
    }
    with atomic_write(out / "results.json", "wb") as fh:
        fh.write(orjson.dumps({"plan": plan.describe(), "utilization": util_rows, "datacenters": dc_rows, "skew": skew_rows},
                              option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
    with atomic_write(out / "improvements.json", "wb") as fh:
        fh.write(orjson.dumps(imp, option=orjson.OPT_INDENT_2))
    with atomic_write(out / "summary.md") as fh:
        fh.write(summary_markdown(imp["utilization"]))
    paths += [str(out / n) for n in ("results.json", "improvements.json", "summary.md")]
    return {"plan": plan.describe(), "improvements": imp, "files": paths}


def _pct(x: Any) -> str:
    return f"{100 * x:+.1f}%" if isinstance(x, float) else "-"


def summary_markdown(imp: list[dict[str, Any]]) -> str:
    """A table of reductions in mean completion time (positive = the newer policy is faster)."""
    lines = [
        "| trace | utilisation | SWAG vs G-SRPT | SWAG vs I-SRPT | SWAG vs G-SRPT+R | SWAG vs I-SRPT+R "
        "| Reorder on G-SRPT | Reorder on I-SRPT |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in imp:
        lines.append(
            f"| {r['trace']} | {r['utilization']} | {_pct(r.get('swag_vs_gsrpt'))} | {_pct(r.get('swag_vs_isrpt'))} "
            f"| {_pct(r.get('swag_vs_reorder_gsrpt'))} | {_pct(r.get('swag_vs_reorder_isrpt'))} "
            f"| {_pct(r.get('reorder_vs_gsrpt'))} | {_pct(r.get('reorder_vs_isrpt'))} |"
        )
    return "\n".join(lines) + "\n"
