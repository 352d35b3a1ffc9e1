"""The paper's figure families through the heartbeat engine (Hung, Golubchik, Yu, SoCC'15, sec. 6).

Run as ``python3 -m mrsim.studies.federation.figures -o docs/figures/geo --workers 2`` (see ``docs/geo.md``). Every cell
is one engine replay: a synthetic workload from :func:`mrsim.studies.geo.workloads.synthesize` turned into engine inputs
(:func:`mrsim.studies.federation.workloads.engine_inputs`), replayed under one geo scheduler
(``schedulers/geo_*.py``). Two engine modes:

* ``heartbeat``: Hadoop 1.2 heartbeats (interval ``max(0.3 s, 10 ms x trackers)``, seeded phases): a freed slot
  waits for its tracker's next heartbeat; this is what the figures show;
* ``task``: task-completion driven (``--heartbeat-interval off``), the paper's push model; each such cell also runs
  the same workload through ``mrsim geo``'s own path (:func:`mrsim.studies.geo.run.simulate`: the engine built
  directly, no replay options or result tables) and records its mean (``standalone_mean_completion_s``, the key
  kept for the ``--json`` contract), a cross-check of ``mrsim.replay`` against the study's run. The paper's model
  written directly is a test oracle now (``tests/oracles/geo_simulator.py``), pinned against both by the tests.

Outputs (all written atomically): ``completion_<trace>.png`` (mean completion vs utilisation, Figure 5 a/c/e),
``fairness_<trace>.png`` (slowdown by size class at the fairness utilisation, Figure 5 b/d/f),
``overhead_decision_time.png`` and ``overhead_jobs_in_system.png`` (Figure 6), ``sensitivity_datacenters.png``
and ``sensitivity_skew.png``, plus ``results.json``, ``improvements.json`` and ``summary.md``.

Slowdown baseline: each job's completion alone on the federation, computed as the list-scheduling makespan of
its sub-jobs (``mrsim.studies.geo.metrics.isolated_completion``); in task mode that is exactly the engine's own isolated
replay; with heartbeats the isolated replay would be slower by up to one heartbeat per task wave, so heartbeat
slowdowns are slightly overstated.

The federation is scaled down from the standalone figures (10 datacenters x 10 slots instead of 30 x 10, and
fewer jobs) to keep the run to a few minutes on two cores; the plan is recorded in ``results.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import orjson

from mrsim.errors import EXIT_USAGE_ERROR, InputError, exit_code_for
from mrsim.io import atomic_write
from mrsim.studies.geo.experiments import improvements
from mrsim.studies.geo.figures import summary_markdown
from mrsim.studies.geo.metrics import isolated_completion
from mrsim.studies.geo.placement import Placement, PlacementKind
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.workloads import SIZE_CLASSES, Scenario, TraceType, synthesize

POLICIES: tuple[str, ...] = tuple(p.value for p in Policy)

#: Jobs per run, chosen so each replay has roughly 50-150 thousand tasks (about 1-2 s each).
ENGINE_JOBS = {TraceType.FACEBOOK: 400, TraceType.GOOGLE: 800, TraceType.EXPONENTIAL: 150}


@dataclass(frozen=True)
class EnginePlan:
    """What the engine figures run (defaults documented in docs/geo.md)."""

    utilizations: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
    traces: tuple[TraceType, ...] = tuple(TraceType)
    jobs: dict[TraceType, int] = field(default_factory=lambda: dict(ENGINE_JOBS))
    n_datacenters: int = 10
    slots: int = 10
    skew: float = 1.0
    seeds: tuple[int, ...] = (1,)
    modes: tuple[str, ...] = ("heartbeat", "task")
    fairness_utilization: float = 0.8
    overhead_trace: TraceType = TraceType.FACEBOOK
    sensitivity_trace: TraceType = TraceType.EXPONENTIAL
    sensitivity_utilization: float = 0.8
    dc_counts: tuple[int, ...] = (3, 5, 10, 20)
    skews: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)

    def base(self, trace: TraceType, seed: int) -> Scenario:
        return Scenario(trace=trace, n_datacenters=self.n_datacenters, slots=self.slots, n_jobs=self.jobs[trace],
                        placement=Placement(PlacementKind.ZIPF, self.skew), seed=seed)

    def describe(self) -> dict[str, Any]:
        return {"utilizations": list(self.utilizations), "traces": [t.value for t in self.traces],
                "jobs": {t.value: n for t, n in self.jobs.items()}, "datacenters": self.n_datacenters,
                "slots_per_datacenter": self.slots, "zipf_skew": self.skew, "seeds": list(self.seeds),
                "modes": list(self.modes), "fairness_utilization": self.fairness_utilization,
                "overhead_trace": self.overhead_trace.value, "sensitivity_trace": self.sensitivity_trace.value,
                "sensitivity_utilization": self.sensitivity_utilization, "dc_counts": list(self.dc_counts),
                "skews": list(self.skews)}


def quick_plan() -> EnginePlan:
    """Seconds, for smoke tests: numbers from it are noisy."""
    return EnginePlan(utilizations=(0.5, 0.8), jobs={TraceType.FACEBOOK: 40, TraceType.GOOGLE: 80,
                                                     TraceType.EXPONENTIAL: 15},
                      n_datacenters=4, slots=4, dc_counts=(2, 4), skews=(0.0, 1.0))


def run_cell(args: tuple[Scenario, str]) -> list[dict[str, Any]]:
    """Every policy on one scenario in one engine mode: one row per policy (the shape ``mrsim.studies.geo.plots`` reads)."""
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.studies.federation.workloads import engine_inputs
    from mrsim.studies.geo.run import simulate

    sc, mode = args
    geo = synthesize(sc)
    workload, cluster = engine_inputs(geo)
    isolated = isolated_completion(geo)
    n_tasks = np.array([j.n_tasks for j in geo.jobs])
    options = ReplayOptions(heartbeat_interval_s=0.0 if mode == "task" else None, seed=sc.seed)
    rows = []
    for policy in POLICIES:
        result = replay(workload, cluster, HadoopConf(), create_scheduler(policy), options)
        comp = result.jobs["completion_s"].to_numpy(float)
        slow = np.where(isolated > 0, comp / np.where(isolated > 0, isolated, 1.0), 1.0)
        by_class = {}
        for name, lo, hi in SIZE_CLASSES:
            mask = (n_tasks >= lo) & (n_tasks <= hi)
            cnt = int(mask.sum())
            by_class[name] = {"jobs": cnt, "mean_completion_s": float(comp[mask].mean()) if cnt else None,
                              "mean_slowdown": float(slow[mask].mean()) if cnt else None}
        stats = result.summary["scheduler_stats"]
        row: dict[str, Any] = {
            "policy": policy,
            "scenario": {**sc.describe(), "mode": mode,
                         "heartbeat_interval_s": result.spec["heartbeat_interval_s"]},
            "mean_completion_s": float(comp.mean()),
            "mean_slowdown": float(slow.mean()),
            "by_class": by_class,
            "decisions": stats["decisions"],
            "mean_jobs_in_system": stats["mean_jobs_in_system"],
            "max_jobs_in_system": stats["max_jobs_in_system"],
            "timing": {k: stats[k] for k in ("decision_ms_mean", "decision_ms_p50", "decision_ms_p95",
                                             "decision_ms_max")},
            "events": result.summary["events"],
            "wall_s": result.summary["wall_s"],
        }
        if mode == "task":
            row["standalone_mean_completion_s"] = float(simulate(geo, Policy(policy)).completion_s.mean())
        rows.append(row)
    return rows


def make_figures(plan: EnginePlan, outdir: str | os.PathLike[str], *, workers: int = 1) -> dict[str, Any]:
    """Run the plan and write every artefact into ``outdir``; returns the improvements and file paths."""
    from mrsim.studies.geo import plots

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    util = [(replace(plan.base(t, s), utilization=u), m) for m in plan.modes for t in plan.traces
            for u in plan.utilizations for s in plan.seeds]
    sens = [plan.base(plan.sensitivity_trace, s) for s in plan.seeds]
    dcs = [(replace(b, n_datacenters=n, utilization=plan.sensitivity_utilization), "heartbeat")
           for n in plan.dc_counts for b in sens]
    skews = [(replace(b, placement=Placement(PlacementKind.ZIPF, k), utilization=plan.sensitivity_utilization),
              "heartbeat") for k in plan.skews for b in sens]
    cells = util + dcs + skews
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(run_cell, cells))
    else:
        parts = [run_cell(c) for c in cells]
    n_util, n_dc = len(util), len(dcs)
    util_rows = [r for p in parts[:n_util] for r in p]
    dc_rows = [r for p in parts[n_util:n_util + n_dc] for r in p]
    skew_rows = [r for p in parts[n_util + n_dc:] for r in p]
    hb = [r for r in util_rows if r["scenario"]["mode"] == "heartbeat"]
    task = [r for r in util_rows if r["scenario"]["mode"] == "task"]
    shown = hb or task
    label = "heartbeat engine" if hb else "engine, task mode"
    paths: list[str] = []
    for t in plan.traces:
        mine = [r for r in shown if r["scenario"]["trace"] == t.value]
        p = out / f"completion_{t.value}.png"
        plots.line_plot(mine, "utilization", lambda r: r["mean_completion_s"], p,
                        xlabel="utilisation (offered load / total slots, fraction)",
                        ylabel="mean job completion time (s)",
                        title=f"{t.value}-like ({label}): completion vs utilisation", logy=True)
        paths.append(str(p))
        fair = [r for r in mine if abs(r["scenario"]["utilization"] - plan.fairness_utilization) < 1e-9]
        if fair:
            p = out / f"fairness_{t.value}.png"
            plots.class_bars(fair, p, title=f"{t.value}-like ({label}), utilisation {plan.fairness_utilization}: "
                                            "slowdown by job size")
            paths.append(str(p))
    ov = [r for r in shown if r["scenario"]["trace"] == plan.overhead_trace.value]
    for name, y, ylabel, title in (
        ("overhead_decision_time.png", lambda r: r["timing"]["decision_ms_mean"],
         "controller wall time per decision (ms)", "computation overhead"),
        ("overhead_jobs_in_system.png", lambda r: r["mean_jobs_in_system"],
         "time-average jobs in the system (jobs)", "communication overhead proxy"),
    ):
        p = out / name
        plots.line_plot(ov, "utilization", y, p, xlabel="utilisation (fraction)", ylabel=ylabel,
                        title=f"{plan.overhead_trace.value}-like ({label}): {title}", logy=True)
        paths.append(str(p))
    for name, rows, key, xlabel in (("sensitivity_datacenters.png", dc_rows, "datacenters", "number of datacenters"),
                                    ("sensitivity_skew.png", skew_rows, "skew", "Zipf placement skew s (0 = uniform)")):
        p = out / name
        plots.line_plot(rows, key, lambda r: r["mean_completion_s"], p, xlabel=xlabel,
                        ylabel="mean job completion time (s)",
                        title=f"{plan.sensitivity_trace.value}-like ({label}), utilisation "
                              f"{plan.sensitivity_utilization}", logy=True)
        paths.append(str(p))
    imp = {
        "heartbeat": improvements(hb, ("trace", "utilization")),
        "task": improvements(task, ("trace", "utilization")),
        "datacenters": improvements(dc_rows, ("trace", "datacenters")),
        "skew": improvements(skew_rows, ("trace", "skew")),
    }
    cross = [abs(r["mean_completion_s"] - r["standalone_mean_completion_s"]) for r in task]
    check = {"task_cells": len(task), "max_abs_diff_vs_standalone_s": max(cross) if cross else None}
    with atomic_write(out / "results.json", "wb") as fh:
        fh.write(orjson.dumps({"plan": plan.describe(), "standalone_check": check, "utilization": util_rows,
                               "datacenters": dc_rows, "skew": skew_rows},
                              option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
    with atomic_write(out / "improvements.json", "wb") as fh:
        fh.write(orjson.dumps(imp, option=orjson.OPT_INDENT_2))
    md = []
    for mode in ("heartbeat", "task"):
        if imp[mode]:
            md.append(f"Engine mode: {mode}\n\n" + summary_markdown(imp[mode]))
    md.append(f"Task-mode cross-check of the replay against mrsim geo's run (mrsim.studies.geo.run): {check}\n")
    with atomic_write(out / "summary.md") as fh:
        fh.write("\n".join(md))
    paths += [str(out / n) for n in ("results.json", "improvements.json", "summary.md")]
    return {"plan": plan.describe(), "improvements": imp, "standalone_check": check, "files": paths}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, prog="python3 -m mrsim.studies.federation.figures",
                                description="The geo paper's figure families through the heartbeat engine "
                                            "(docs/geo.md, 'Federations in the heartbeat engine').")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="output directory (PNGs, results.json, ...)")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--seeds", default="1", metavar="S,...", help="workload seeds, averaged (default 1)")
    p.add_argument("--modes", default="heartbeat,task", help="engine modes: heartbeat, task or both (default)")
    p.add_argument("--quick", action="store_true", help="a tiny plan (seconds) for a first look")
    args = p.parse_args(argv)
    try:
        seeds = tuple(int(s) for s in str(args.seeds).split(",") if s.strip())
        modes = tuple(m.strip() for m in str(args.modes).split(",") if m.strip())
        if not seeds:
            raise ValueError
    except ValueError:
        print(f"mrsim: error: --seeds expects integers like 1,2,3, got {args.seeds!r}", file=sys.stderr)
        return EXIT_USAGE_ERROR
    if not modes or set(modes) - {"heartbeat", "task"}:
        print(f"mrsim: error: --modes expects heartbeat and/or task, got {args.modes!r}", file=sys.stderr)
        return EXIT_USAGE_ERROR
    if args.workers < 1:
        print("mrsim: error: --workers must be at least 1", file=sys.stderr)
        return EXIT_USAGE_ERROR
    plan = quick_plan() if args.quick else EnginePlan()
    plan = replace(plan, seeds=seeds, modes=modes)
    try:
        res = make_figures(plan, args.out, workers=args.workers)
    except InputError as exc:
        print(f"mrsim: error: {exc}", file=sys.stderr)
        return exit_code_for(exc)
    print("\n".join(res["files"]))
    print(f"task-mode cross-check against mrsim geo's run: {res['standalone_check']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
