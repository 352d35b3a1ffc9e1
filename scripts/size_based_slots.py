"""Do the size-based conclusions of Dell'Amico (RR-13-282, 2013, section 3) survive Hadoop slots?

    python3 scripts/size_based_slots.py --out OUT [--runs 3] [--workers 2] [--plot-only]

Same job sets, same estimation errors, two models: the heartbeat engine with the slot-level plug-ins
(``mrsim.schedulers.srpt``, ``mrsim.schedulers.fsp``, ``mrsim.schedulers.las``, plus Hadoop's FIFO and, when it loads, the Fair
Scheduler as the processor-sharing reference) and the fluid model (:mod:`mrsim.studies.fluid`). Sweeps, per trace:

1. ``sigma``: sigma in 0, 0.5, 1, 2 at load 0.9, d/n 4 (box plots over ``--runs`` error draws; study fig. 3.1-3.3);
2. ``load_sigma{0,0.5}``: load 0.5, 0.9, 1.2 at d/n 4 (means over runs; fig. 3.4, 3.5);
3. ``dn_sigma{0,0.5}``: d/n 1, 4, 10 at load 0.9 (means over runs; fig. 3.6, 3.7).

Workloads (:func:`slot_workload`): the first ``hours`` of each SWIM sample (FB09-0 and FB09-1: 3 h, FB10: 0.5 h) turned
into templates by :func:`mrsim.profiler.swim.swim_to_templates` with per-slot rates that mirror the fluid size
formula (maps read input at r, reduces shuffle at r / (1 + d/n) and write output at r, so a job's slot work is
proportional to its fluid size); the split size is the smallest 64 MB x 2^k that keeps the window under
``--max-maps`` maps and the bytes per reducer the smallest split / (1 + d/n) x 2^k under ``--max-reduces`` reduces (a reduce's shuffle
then takes about as long as a map). Durations
are then multiplied by one factor so that the busier slot pool (map or reduce) has the requested load over the
window (its work / (its slots x the window's submit span)). The fluid run of the same window uses sizes equal to
the jobs' slot work scaled to the same nominal load on one server. Cluster: ``--nodes`` (100) x 2 map + 2 reduce
slots, Hadoop 1.2 heartbeats (1 s at 100 nodes), slow start 0.05, replay seed 0 for the heartbeat phases.

Run ``r`` uses estimation seed ``--seed + r`` for every scheduler and x value, in both models (the plug-ins draw
their errors from the fluid model's stream in trace order, so job j gets the same X in both). Results go to
``OUT/size_based_slots.csv`` (one row per run); PNGs and ``OUT/summary.md`` are drawn from that file, so
``--plot-only`` redraws without simulating.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import TaskScheduler, create_scheduler
from mrsim.profiler.swim import MB, SwimTaskModel, SwimTrace, read_swim, swim_to_templates
from mrsim.io import atomic_path, atomic_write
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from mrsim.schedulers._sizebased import job_work
from mrsim.schedulers.fsp import FspScheduler
from mrsim.schedulers.las import LasScheduler
from mrsim.schedulers.srpt import SrptScheduler
from mrsim.studies.fluid import FluidWorkload, estimate_sizes, simulate

TRACES = {  # label: (file, hours of the window from the first submission)
    "FB09-0": ("FB-2009_samples_24_times_1hr_0.tsv", 3.0),
    "FB09-1": ("FB-2009_samples_24_times_1hr_1.tsv", 3.0),
    "FB10": ("FB-2010_samples_24_times_1hr_0.tsv", 0.5),
}
SIGMAS = (0.0, 0.5, 1.0, 2.0)
LOADS = (0.5, 0.9, 1.2)
DNS = (1.0, 4.0, 10.0)
SWEEP_SIGMAS = (0.0, 0.5)
#: slot-level schedulers: name -> (uses estimates, factory(sigma, seed))
SLOT = {
    "fifo": (False, lambda s, k: create_scheduler("fifo")),
    "fair": (False, lambda s, k: create_scheduler("fair")),
    "las": (False, lambda s, k: LasScheduler({})),
    "srpt": (True, lambda s, k: SrptScheduler({"sigma": s, "seed": k})),
    "fsp-fifo": (True, lambda s, k: FspScheduler({"sigma": s, "seed": k, "late": "fifo"})),
    "fsp-ps": (True, lambda s, k: FspScheduler({"sigma": s, "seed": k, "late": "ps"})),
    "fsp-ps+preempt": (True, lambda s, k: FspScheduler({"sigma": s, "seed": k, "late": "ps", "preempt": True})),
}
SIGMA_SWEEP_ONLY = ("fair", "fsp-ps+preempt")  # the slowest plug-ins run in the sigma sweep only (cost)
FLUID = ("fifo", "ps", "las", "srpt", "fsp-fifo", "fsp-ps")
FLUID_ESTIMATES = {"srpt", "fsp-fifo", "fsp-ps"}
COLUMNS = ("trace", "experiment", "x", "sigma", "load", "dn", "model", "scheduler", "run", "seed",
           "mean_sojourn_s", "killed_tasks", "wasted_slot_s", "wall_s")
RESULTS = "size_based_slots.csv"
STYLE = {"fifo": ("tab:gray", "s"), "fair": ("tab:blue", "o"), "ps": ("tab:blue", "o"), "las": ("tab:purple", "v"),
         "srpt": ("tab:red", "^"), "fsp-fifo": ("tab:orange", "D"), "fsp-ps": ("tab:green", "*"),
         "fsp-ps+preempt": ("tab:olive", "P")}


@dataclass(frozen=True)
class Setup:
    """Fixed study parameters shared by every cell."""

    data: str
    nodes: int = 100
    max_maps: int = 6000
    max_reduces: int = 3000
    base_mb_s: float = 8.0


# ------------------------------------------------------------------------------------------------ workloads

def window(trace: SwimTrace, hours: float) -> SwimTrace:
    """Jobs submitted within ``hours`` of the first submission (file order kept)."""
    keep = trace.submit_s < trace.submit_s[0] + hours * 3600.0
    ids = tuple(j for j, k in zip(trace.job_ids, keep) if k)
    return SwimTrace(f"{trace.source} (first {hours:g} h)", ids, trace.submit_s[keep], trace.input_bytes[keep],
                     trace.shuffle_bytes[keep], trace.output_bytes[keep])


def task_counts(trace: SwimTrace, split: float, per_reducer: float, dn: float) -> tuple[np.ndarray, np.ndarray]:
    """Tasks per job from the bytes each phase handles (our counting rule, see :func:`slot_workload`).

    maps = max(1, ceil((input + output of map-only jobs) / split)); reduces = 0 without shuffle, else
    clip(ceil((shuffle + output / (1 + d/n)) / per_reducer), 1, 999). Cost: O(jobs), vectorised.
    """
    map_only = trace.shuffle_bytes <= 0
    maps = np.maximum(1, np.ceil((trace.input_bytes + np.where(map_only, trace.output_bytes, 0.0)) / split))
    reds = np.clip(np.ceil((trace.shuffle_bytes + trace.output_bytes / (1.0 + dn)) / per_reducer), 1, 999)
    reds[map_only] = 0
    return maps.astype(np.int64), reds.astype(np.int64)


def task_model(trace: SwimTrace, dn: float, setup: Setup) -> SwimTaskModel:
    """Rates mirroring the fluid size formula; the split doubled from 64 MB and the bytes per reducer from
    split / (1 + d/n) (a reduce then takes about as long as a map) until the window's task caps hold."""
    r = setup.base_mb_s
    split = 64 * MB
    while task_counts(trace, split, split, dn)[0].sum() > setup.max_maps:
        split *= 2
    per_reducer = split / (1.0 + dn)
    while task_counts(trace, split, per_reducer, dn)[1].sum() > setup.max_reduces:
        per_reducer *= 2
    return SwimTaskModel(mapred_min_split_size=split, bytes_per_reducer=per_reducer, map_mb_s=r,
                         shuffle_mb_s=r / (1.0 + dn), reduce_mb_s=r)


def _resplit(w: Workload, trace: SwimTrace, model: SwimTaskModel, dn: float) -> list[JobTemplate]:
    """Keep each phase's work from ``swim_to_templates`` but cut it into :func:`task_counts` equal tasks.

    ``swim_to_templates`` counts maps from input bytes and reduces from shuffle bytes only, so a map-only
    generator writing 200 GB from 47 KB of input (FB09-0 job358) becomes one 49-hour map; such single tasks would
    dominate every mean sojourn in the slot model while the fluid model spreads them over the cluster.
    """
    maps, reds = task_counts(trace, model.split_bytes, model.bytes_per_reducer, dn)
    by_id = {jid: k for k, jid in enumerate(trace.job_ids)}
    out = []
    for j in w.jobs:
        k = by_id[j.job_id]
        changes: dict = {}
        n_m = int(maps[k])
        if n_m != j.n_maps:
            changes["map_durations"] = np.full(n_m, float(j.map_durations.sum()) / n_m)
        n_r = int(reds[k])
        if n_r != j.n_reduces and j.n_reduces:
            changes["reduce_durations"] = np.full(n_r, float(j.reduce_durations.sum()) / n_r)
            changes["typical_shuffle_durations"] = np.full(n_r, float(j.typical_shuffle_durations.sum()) / n_r)
        out.append(j.with_changes(**changes) if changes else j)
    return out


def slot_workload(label: str, load: float, dn: float, setup: Setup) -> tuple[Workload, FluidWorkload, dict]:
    """The window of ``label`` as slot templates at ``load`` (busier pool), and the matching fluid workload."""
    name, hours = TRACES[label]
    trace = window(read_swim(os.path.join(setup.data, name)), hours)
    model = task_model(trace, dn, setup)
    w = swim_to_templates(trace, model)
    jobs = _resplit(w, trace, model, dn)
    map_work = sum(float(j.map_durations.sum()) for j in jobs)
    total = sum(job_work(j) for j in jobs)
    span = jobs[-1].submit_s - jobs[0].submit_s
    slots = 2 * setup.nodes
    busier = max(map_work, total - map_work) / slots
    c = load * span / busier
    scaled = [j.with_changes(map_durations=j.map_durations * c, reduce_durations=j.reduce_durations * c,
                             typical_shuffle_durations=j.typical_shuffle_durations * c) for j in jobs]
    slot_w = Workload.of(scaled, source=w.source)
    # Fluid: same jobs in trace order, sizes = slot work scaled to `load` on one server over the same span.
    work = np.array([job_work(j) for j in jobs])
    fluid = FluidWorkload.from_sizes([j.submit_s for j in jobs], work * (load * span / total),
                                     [j.job_id for j in jobs], source=w.source)
    cluster_maps = cluster_reduces = setup.nodes * 2
    isolated = np.mean([_isolated(j, cluster_maps, cluster_reduces) for j in scaled])
    info = {"isolated_s": float(isolated), "jobs": len(jobs), "maps": slot_w.n_maps, "reduces": slot_w.n_reduces,
            "split_mb": model.split_bytes / MB, "bytes_per_reducer": model.bytes_per_reducer, "scale": c,
            "span_s": span, "map_load": map_work * c / slots / span,
            "reduce_load": (total - map_work) * c / slots / span}
    return slot_w, fluid, info


def _isolated(job: JobTemplate, map_slots: int, reduce_slots: int) -> float:
    """Sojourn of ``job`` alone on the cluster, ignoring heartbeats and slow start (s): map waves of its longest
    map, then reduce waves of its longest shuffle + reduce. The slot model's floor; the fluid model has none."""
    m = math.ceil(job.n_maps / map_slots) * float(job.map_durations.max()) if job.n_maps else 0.0
    if not job.n_reduces:
        return m
    shuffle = float(job.typical_shuffle_durations.max()) if job.typical_shuffle_durations.size else 0.0
    return m + math.ceil(job.n_reduces / reduce_slots) * (shuffle + float(job.reduce_durations.max()))


_CACHE: dict[tuple, tuple] = {}


def _workload(label: str, load: float, dn: float, setup: Setup) -> tuple[Workload, FluidWorkload, dict]:
    key = (label, load, dn)
    if key not in _CACHE:
        _CACHE.clear()  # one workload at a time per worker (tasks are grouped by workload)
        _CACHE[key] = slot_workload(label, load, dn, setup)
    return _CACHE[key]


# ------------------------------------------------------------------------------------------------ cells

def _cells(runs: int, seed: int) -> list[tuple]:
    """One cell = (trace, experiment, x, sigma, load, dn, scheduler, run): a slot replay; fluid rows ride along."""
    cells = []
    points = []
    for label in TRACES:
        for s in SIGMAS:
            points.append((label, "sigma", s, s, 0.9, 4.0))
        for s in SWEEP_SIGMAS:
            for load in LOADS:
                points.append((label, f"load_sigma{s:g}", load, s, load, 4.0))
            for dn in DNS:
                points.append((label, f"dn_sigma{s:g}", dn, s, 0.9, dn))
    for point in points:
        label, experiment, x, s, load, dn = point
        for name, (uses, _) in SLOT.items():
            if name in SIGMA_SWEEP_ONLY and experiment != "sigma":
                continue
            n = runs if (uses and s > 0) else 1
            for r in range(n):
                cells.append((*point, "slot", name, r, seed + r))
        for name in FLUID:
            n = runs if (name in FLUID_ESTIMATES and s > 0) else 1
            for r in range(n):
                cells.append((*point, "fluid", name, r, seed + r))
    return cells


def run_cell(cell: tuple, setup: Setup) -> tuple | None:
    label, experiment, x, sigma, load, dn, model, name, run, seed = cell
    slot_w, fluid_w, _ = _workload(label, load, dn, setup)
    t0 = time.perf_counter()
    if model == "fluid":
        est = estimate_sizes(fluid_w.size_s, sigma, seed) if name in FLUID_ESTIMATES else None
        out = simulate(fluid_w, name, est)
        sojourn = float(np.mean(np.asarray(out.finish_s) - fluid_w.submit_s))
        killed, wasted = 0, 0.0
    else:
        try:
            scheduler: TaskScheduler = SLOT[name][1](sigma, seed)
        except Exception:  # the Fair Scheduler is another plug-in; a failed load drops its rows only
            return None
        cluster = uniform_cluster(setup.nodes, 2, 2)
        result = replay(slot_w, cluster, HadoopConf(), scheduler, ReplayOptions(seed=0))
        sojourn = float(result.summary["mean_completion_s"])
        killed, wasted = int(result.summary["killed_tasks"]), float(result.summary["wasted_slot_s"])
    return (label, experiment, x, sigma, load, dn, model, name, run, seed, sojourn, killed, wasted,
            round(time.perf_counter() - t0, 3))


def _run_group(args: tuple) -> list[tuple]:
    cells, setup = args
    rows = []
    for c in cells:
        row = run_cell(c, setup)
        if row is not None:
            rows.append(row)
    return rows


def simulate_all(out: Path, runs: int, seed: int, workers: int, setup: Setup) -> Path:
    cells = _cells(runs, seed)
    # A run depends on (trace, sigma, load, dn, model, scheduler, seed), not on the experiment naming it: the
    # load 0.9 and d/n 4 points of the sweeps repeat the sigma sweep's, so each distinct run is simulated once.
    # Schedulers that use no estimate give the same run at every sigma.
    unique: dict[tuple, list[tuple]] = {}
    for c in cells:
        uses = SLOT[c[7]][0] if c[6] == "slot" else c[7] in FLUID_ESTIMATES
        unique.setdefault((c[0], c[3] if uses else 0.0, c[4], c[5], c[6], c[7], c[9]), []).append(c)
    groups: dict[tuple, list[tuple]] = {}
    for _key, same in unique.items():  # group by workload so each worker builds it once
        c = same[0]
        groups.setdefault((c[0], c[4], c[5], c[6] == "slot" and c[7]), []).append(c)
    jobs = sorted(groups.values(), key=len, reverse=True)
    t0 = time.perf_counter()
    done: dict[tuple, tuple] = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, chunk in enumerate(pool.map(_run_group, [(g, setup) for g in jobs]), start=1):
            for row in chunk:
                uses = SLOT[row[7]][0] if row[6] == "slot" else row[7] in FLUID_ESTIMATES
                done[(row[0], row[3] if uses else 0.0, row[4], row[5], row[6], row[7], row[9])] = row
            _write(out / RESULTS, unique, done)  # after every group: an interrupted sweep keeps its rows
            if sys.stderr.isatty():
                print(f"\r{i}/{len(jobs)} groups", end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    target = out / RESULTS
    n_rows = _write(target, unique, done)
    print(f"{len(done)} distinct runs ({n_rows} rows) in {time.perf_counter() - t0:.1f} s on {workers} "
          f"worker(s) -> {target}")
    return target


def _write(target: Path, unique: dict[tuple, list[tuple]], done: dict[tuple, tuple]) -> int:
    """Write every finished run once per experiment naming it (sigma and x as that experiment has them)."""
    rows = []
    for key, same in unique.items():
        row = done.get(key)
        if row is None:
            continue  # not run yet, or a plug-in that failed to load
        for c in same:
            rows.append((c[0], c[1], c[2], c[3]) + row[4:])
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[6], r[7], r[8]))
    with atomic_write(target) as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return len(rows)


# ------------------------------------------------------------------------------------------------ plots, tables

def _load_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for k in ("x", "sigma", "load", "dn", "mean_sojourn_s", "wasted_slot_s", "wall_s"):
            r[k] = float(r[k])
        r["run"] = int(r["run"])
        r["killed_tasks"] = int(r["killed_tasks"])
    return rows


def _save(fig, path: Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)


def _values(rows: list[dict], **match: object) -> list[float]:
    return [r["mean_sojourn_s"] for r in rows if all(r[k] == v for k, v in match.items())]


def plot_all(results: Path, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _load_rows(results)
    written = []
    for label in TRACES:
        sel = [r for r in rows if r["trace"] == label and r["experiment"] == "sigma"]
        if not sel:
            continue
        sigmas = sorted({r["x"] for r in sel})
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
        for ax, model in zip(axes, ("slot", "fluid")):
            names = [n for n in dict.fromkeys(r["scheduler"] for r in sel if r["model"] == model)]
            boxed = [n for n in names if len({r["run"] for r in sel if r["model"] == model and r["scheduler"] == n}) > 1]
            width = 0.8 / max(1, len(boxed))
            for k, name in enumerate(boxed):
                data = [_values(sel, model=model, scheduler=name, x=s) for s in sigmas]
                pos = [i + (k - (len(boxed) - 1) / 2) * width for i in range(len(sigmas))]
                bp = ax.boxplot(data, positions=pos, widths=width * 0.9, whis=(5, 95), patch_artist=True,
                                showfliers=True, flierprops={"markersize": 3})
                for patch in bp["boxes"]:
                    patch.set_facecolor(STYLE[name][0])
                    patch.set_alpha(0.6)
                ax.plot([], [], color=STYLE[name][0], lw=6, alpha=0.6, label=name)
            for name in names:
                if name in boxed:
                    continue
                v = _values(sel, model=model, scheduler=name)
                ax.axhline(float(np.mean(v)), color=STYLE[name][0], ls="--", label=name)
            ax.set_xticks(range(len(sigmas)), [f"{s:g}" for s in sigmas])
            ax.set_yscale("log")
            ax.set_xlabel("sigma (estimation error)")
            ax.set_title(f"{model} model")
            ax.legend(fontsize=7, ncol=3)
        axes[0].set_ylabel("mean sojourn time (s)")
        runs = max(r["run"] for r in sel) + 1
        fig.suptitle(f"{label}: mean sojourn vs sigma (load 0.9, d/n 4, {runs} runs; whiskers 5-95%)")
        fig.tight_layout()
        path = out / f"slots_sojourn_vs_sigma_{label}.png"
        _save(fig, path)
        plt.close(fig)
        written.append(path)

    for family, xlabel in (("load", "load (busier slot pool)"), ("dn", "d/n")):
        for s in SWEEP_SIGMAS:
            experiment = f"{family}_sigma{s:g}"
            fig, axes = plt.subplots(1, len(TRACES), figsize=(4.4 * len(TRACES), 4.2))
            for ax, label in zip(np.atleast_1d(axes), TRACES):
                sel = [r for r in rows if r["trace"] == label and r["experiment"] == experiment]
                for model, ls in (("slot", "-"), ("fluid", ":")):
                    for name in dict.fromkeys(r["scheduler"] for r in sel if r["model"] == model):
                        xs = sorted({r["x"] for r in sel if r["model"] == model and r["scheduler"] == name})
                        ys = [np.mean(_values(sel, model=model, scheduler=name, x=x)) for x in xs]
                        color, marker = STYLE[name]
                        ax.plot(xs, ys, color=color, marker=marker, ms=4, ls=ls, label=f"{name} ({model})")
                ax.set_yscale("log")
                ax.set_xlabel(xlabel)
                ax.set_title(label)
                ax.grid(alpha=0.3)
            np.atleast_1d(axes)[0].set_ylabel("mean sojourn time (s)")
            np.atleast_1d(axes)[-1].legend(fontsize=6, ncol=2)
            fig.suptitle(f"mean sojourn vs {xlabel}, sigma = {s:g} (solid: slots, dotted: fluid)")
            fig.tight_layout()
            path = out / f"slots_sojourn_vs_{family}_sigma{s:g}.png"
            _save(fig, path)
            plt.close(fig)
            written.append(path)
    return written


def summary_markdown(results: Path, setup: Setup) -> str:
    """Medians over runs per trace and sigma, both models, plus the workloads used (markdown)."""
    rows = _load_rows(results)
    lines = ["| trace | jobs | maps | reduces | split MB | bytes/reducer | map load | reduce load | mean isolated sojourn (s) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for label in TRACES:
        _, _, info = slot_workload(label, 0.9, 4.0, setup)
        lines.append(f"| {label} | {info['jobs']} | {info['maps']} | {info['reduces']} | {info['split_mb']:g} | "
                     f"{info['bytes_per_reducer']:.0e} | {info['map_load']:.2f} | {info['reduce_load']:.2f} | "
                     f"{info['isolated_s']:,.0f} |")
    lines.append("")
    sel = [r for r in rows if r["experiment"] == "sigma"]
    slot_names = [n for n in SLOT if any(r["scheduler"] == n and r["model"] == "slot" for r in sel)]
    head = "| trace | sigma | " + " | ".join(slot_names) + " | " + " | ".join(f"fluid {n}" for n in FLUID) + " |"
    lines += [head, "|" + "---|" * (2 + len(slot_names) + len(FLUID))]
    for label in TRACES:
        for s in SIGMAS:
            cells = []
            for model, names in (("slot", slot_names), ("fluid", FLUID)):
                for n in names:
                    v = _values(sel, trace=label, model=model, scheduler=n, x=s)
                    cells.append(f"{np.median(v):,.0f}" if v else "")
            lines.append(f"| {label} | {s:g} | " + " | ".join(cells) + " |")
    lines.append("")
    pre = [r for r in sel if r["scheduler"] == "fsp-ps+preempt"]
    if pre:
        lines.append("fsp-ps+preempt, median killed tasks / wasted slot-hours per run: " + "; ".join(
            f"{label} sigma {s:g}: {np.median([r['killed_tasks'] for r in pre if r['trace'] == label and r['x'] == s]):.0f}"
            f" / {np.median([r['wasted_slot_s'] for r in pre if r['trace'] == label and r['x'] == s]) / 3600:.1f}"
            for label in TRACES for s in SIGMAS if any(r['trace'] == label and r['x'] == s for r in pre)))
        lines.append("")
    for family in ("load", "dn"):
        for s in SWEEP_SIGMAS:
            experiment = f"{family}_sigma{s:g}"
            sub = [r for r in rows if r["experiment"] == experiment]
            if not sub:
                continue
            names = [n for n in dict.fromkeys((r["model"], r["scheduler"]) for r in sub)]
            lines.append(f"Means over runs, {experiment}:")
            lines.append("")
            lines.append("| trace | x | " + " | ".join(f"{m} {n}" for m, n in names) + " |")
            lines.append("|" + "---|" * (2 + len(names)))
            for label in TRACES:
                for x in sorted({r["x"] for r in sub if r["trace"] == label}):
                    vals = [_values(sub, trace=label, model=m, scheduler=n, x=x) for m, n in names]
                    lines.append(f"| {label} | {x:g} | " + " | ".join(f"{np.mean(v):,.0f}" if v else "" for v in vals) + " |")
            lines.append("")
    walls = [r["wall_s"] for r in rows if r["model"] == "slot"]
    if walls:
        lines.append(f"Slot replays: {len(walls)}, wall per replay median {np.median(walls):.2f} s, max {max(walls):.2f} s.")
    return "\n".join(lines) + "\n"


#: The SWIM samples: ``$MRSIM_SHARED_DATA/swim``, else ``../shared/data/swim`` beside the repository.
DEFAULT_SWIM = Path(os.environ.get("MRSIM_SHARED_DATA",
                                   Path(__file__).resolve().parents[2] / "shared" / "data")) / "swim"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="output directory for the CSV, PNGs and summary.md")
    ap.add_argument("--data", type=Path, default=DEFAULT_SWIM,
                    help="directory of SWIM .tsv files (default: $MRSIM_SHARED_DATA/swim, else ../shared/data/swim)")
    ap.add_argument("--runs", type=int, default=2, help="error draws per point for size-based schedulers (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="estimation seed of run 0 (run r uses seed + r)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--nodes", type=int, default=100, help="nodes of 2 map + 2 reduce slots (default 100)")
    ap.add_argument("--max-maps", type=int, default=6000, help="cap on maps per trace window (sets the split)")
    ap.add_argument("--max-reduces", type=int, default=3000, help="cap on reduces per trace window")
    ap.add_argument("--plot-only", action="store_true", help="redraw from an existing results CSV")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    setup = Setup(str(args.data), args.nodes, args.max_maps, args.max_reduces)
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / RESULTS
    if not args.plot_only:
        simulate_all(args.out, args.runs, args.seed, max(1, args.workers), setup)
    elif not results.exists():
        ap.error(f"{results} does not exist; run without --plot-only first")
    for path in plot_all(results, args.out):
        print(f"wrote {path}")
    text = summary_markdown(results, setup)
    with atomic_write(args.out / "summary.md") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
