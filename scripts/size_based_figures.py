"""Regenerate the three figure families of Dell'Amico, RR-13-282 (2013), section 3, in mrsim's fluid model.

    python3 scripts/size_based_figures.py --out OUT [--runs 10 | --paper] [--jobs N] [--plot-only]

Sweeps (one SWIM sample per panel: FB09-0, FB09-1, FB10):

1. mean sojourn vs sigma (load 0.9, d/n 4): box plots over ``--runs`` error draws for the size-based disciplines,
   single lines for FIFO, PS and LAS, which do not use estimates (study figures 3.1-3.3);
2. mean sojourn vs load 0.1-2 at sigma 0 and 0.5 (d/n 4), mean over runs (figures 3.4, 3.5);
3. mean sojourn vs d/n 1-10 at sigma 0 and 0.5 (load 0.9), mean over runs (figures 3.6, 3.7).

Run ``r`` uses seed ``--seed + r`` for every discipline and every x value (common random numbers). Results go to
``OUT/size_based_results.csv`` (one row per simulation), then the PNGs are drawn from that file, so
``--plot-only`` redraws without simulating. The study used 100 runs (``--paper``); the default is 10.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from mrsim.profiler.swim import read_swim
from mrsim.io import atomic_path, atomic_write
from mrsim.studies.fluid import FluidPolicy, FluidWorkload, estimate_sizes, simulate

TRACES = {
    "FB09-0": "FB-2009_samples_24_times_1hr_0.tsv",
    "FB09-1": "FB-2009_samples_24_times_1hr_1.tsv",
    "FB10": "FB-2010_samples_24_times_1hr_0.tsv",
}
SIGMAS = (0.0, 0.25, 0.5, 1.0, 2.0, 3.0)
LOADS = (0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.25, 1.5, 2.0)
DNS = (1.0, 2.0, 4.0, 6.0, 8.0, 10.0)
SWEEP_SIGMAS = (0.0, 0.5)
COLUMNS = ("trace", "experiment", "x", "sigma", "load", "dn", "scheduler", "run", "seed", "mean_sojourn_s")
RESULTS = "size_based_results.csv"
STYLE = {"fifo": ("tab:gray", "s"), "ps": ("tab:blue", "o"), "las": ("tab:purple", "v"),
         "srpt": ("tab:red", "^"), "fsp-fifo": ("tab:orange", "D"), "fsp-ps": ("tab:green", "*")}


def _tasks(data: Path, runs: int, seed: int) -> list[tuple]:
    """One task per (trace, experiment, x, sigma): simulate every discipline for every needed run."""
    tasks = []
    for label, name in TRACES.items():
        path = str(data / name)
        for s in SIGMAS:
            tasks.append((label, path, "sigma", s, s, 0.9, 4.0, runs, seed))
        for s in SWEEP_SIGMAS:
            for load in LOADS:
                tasks.append((label, path, f"load_sigma{s}", load, s, load, 4.0, runs, seed))
            for dn in DNS:
                tasks.append((label, path, f"dn_sigma{s}", dn, s, 0.9, dn, runs, seed))
    return tasks


def _run_task(task: tuple) -> list[tuple]:
    label, path, experiment, x, sigma, load, dn, runs, seed = task
    w = FluidWorkload.from_swim(_trace(path), load=load, dn=dn)
    rows = []
    for policy in FluidPolicy:
        # Without errors, or for size-oblivious disciplines, every run is identical: simulate once.
        n_runs = runs if (policy.uses_estimates and sigma > 0) else 1
        for r in range(n_runs):
            est = estimate_sizes(w.size_s, sigma, seed + r) if policy.uses_estimates else None
            out = simulate(w, policy, est)
            sojourn = float(np.mean(np.asarray(out.finish_s) - w.submit_s))
            rows.append((label, experiment, x, sigma, load, dn, policy.value, r, seed + r, sojourn))
    return rows


_TRACE_CACHE: dict[str, object] = {}


def _trace(path: str):
    if path not in _TRACE_CACHE:
        _TRACE_CACHE[path] = read_swim(path)
    return _TRACE_CACHE[path]


def simulate_all(data: Path, out: Path, runs: int, seed: int, jobs: int) -> Path:
    tasks = _tasks(data, runs, seed)
    t0 = time.perf_counter()
    rows: list[tuple] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for i, chunk in enumerate(pool.map(_run_task, tasks), start=1):
            rows.extend(chunk)
            if sys.stderr.isatty():
                print(f"\r{i}/{len(tasks)} sweep points", end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    target = out / RESULTS
    with atomic_write(target) as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    print(f"{len(rows)} simulations in {time.perf_counter() - t0:.1f} s -> {target}")
    return target


def _load_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for k in ("x", "sigma", "load", "dn", "mean_sojourn_s"):
            r[k] = float(r[k])
    return rows


def _save(fig, path: Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)


def plot_all(results: Path, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _load_rows(results)
    written = []
    size_based = [p.value for p in FluidPolicy if p.uses_estimates]
    oblivious = [p.value for p in FluidPolicy if not p.uses_estimates]

    # Family 1: box plots vs sigma, one figure per trace.
    for label in TRACES:
        sel = [r for r in rows if r["trace"] == label and r["experiment"] == "sigma"]
        if not sel:
            continue
        sigmas = sorted({r["x"] for r in sel})
        fig, ax = plt.subplots(figsize=(9, 4.8))
        width = 0.8 / len(size_based)
        for k, name in enumerate(size_based):
            data = [[r["mean_sojourn_s"] for r in sel if r["scheduler"] == name and r["x"] == s] for s in sigmas]
            pos = [i + (k - (len(size_based) - 1) / 2) * width for i in range(len(sigmas))]
            bp = ax.boxplot(data, positions=pos, widths=width * 0.9, whis=(5, 95), patch_artist=True,
                            showfliers=True, flierprops={"markersize": 3})
            for patch in bp["boxes"]:
                patch.set_facecolor(STYLE[name][0])
                patch.set_alpha(0.6)
            ax.plot([], [], color=STYLE[name][0], lw=6, alpha=0.6, label=name)
        for name in oblivious:
            v = [r["mean_sojourn_s"] for r in sel if r["scheduler"] == name]
            ax.axhline(float(np.mean(v)), color=STYLE[name][0], ls="--", label=name)
        ax.set_xticks(range(len(sigmas)), [f"{s:g}" for s in sigmas])
        ax.set_yscale("log")
        ax.set_xlabel("sigma (estimation error)")
        ax.set_ylabel("mean sojourn time (s)")
        runs = max(int(r["run"]) for r in sel) + 1
        ax.set_title(f"{label}: mean sojourn vs sigma (load 0.9, d/n 4, {runs} runs; whiskers 5-95%)")
        ax.legend(fontsize=8, ncol=3)
        fig.tight_layout()
        path = out / f"sojourn_vs_sigma_{label}.png"
        _save(fig, path)
        plt.close(fig)
        written.append(path)

    # Families 2 and 3: mean over runs vs load and vs d/n, one figure per sigma with one panel per trace.
    for family, xlabel, xscale in (("load", "load", "linear"), ("dn", "d/n", "linear")):
        for s in SWEEP_SIGMAS:
            experiment = f"{family}_sigma{s}"
            fig, axes = plt.subplots(1, len(TRACES), figsize=(4.2 * len(TRACES), 4.2), sharey=False)
            for ax, label in zip(np.atleast_1d(axes), TRACES):
                sel = [r for r in rows if r["trace"] == label and r["experiment"] == experiment]
                for name, (color, marker) in STYLE.items():
                    xs = sorted({r["x"] for r in sel if r["scheduler"] == name})
                    ys = [np.mean([r["mean_sojourn_s"] for r in sel if r["scheduler"] == name and r["x"] == x])
                          for x in xs]
                    ax.plot(xs, ys, color=color, marker=marker, ms=4, label=name)
                ax.set_yscale("log")
                ax.set_xscale(xscale)
                ax.set_xlabel(xlabel)
                ax.set_title(label)
                ax.grid(alpha=0.3)
            np.atleast_1d(axes)[0].set_ylabel("mean sojourn time (s)")
            np.atleast_1d(axes)[0].legend(fontsize=8)
            fig.suptitle(f"mean sojourn vs {xlabel}, sigma = {s:g}")
            fig.tight_layout()
            path = out / f"sojourn_vs_{family}_sigma{s:g}.png"
            _save(fig, path)
            plt.close(fig)
            written.append(path)
    return written


def summarise(results: Path) -> None:
    """Print the medians per trace and sigma (for docs/size_based.md)."""
    rows = [r for r in _load_rows(results) if r["experiment"] == "sigma"]
    for label in TRACES:
        sel = [r for r in rows if r["trace"] == label]
        if not sel:
            continue
        print(f"{label}: median of mean sojourn (s) over runs, load 0.9, d/n 4")
        names = [p.value for p in FluidPolicy]
        print("  sigma " + " ".join(f"{n:>9}" for n in names))
        for s in sorted({r["x"] for r in sel}):
            vals = [np.median([r["mean_sojourn_s"] for r in sel if r["scheduler"] == n and r["x"] == s]) for n in names]
            print(f"  {s:5g} " + " ".join(f"{v:9.4g}" for v in vals))


#: The SWIM samples: ``$MRSIM_SHARED_DATA/swim``, else ``../shared/data/swim`` beside the repository.
DEFAULT_SWIM = Path(os.environ.get("MRSIM_SHARED_DATA",
                                   Path(__file__).resolve().parents[2] / "shared" / "data")) / "swim"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="output directory for the CSV and PNGs")
    ap.add_argument("--data", type=Path, default=DEFAULT_SWIM,
                    help="directory of SWIM .tsv files (default: $MRSIM_SHARED_DATA/swim, else ../shared/data/swim)")
    ap.add_argument("--runs", type=int, default=10, help="error draws per point (default 10)")
    ap.add_argument("--paper", action="store_true", help="use the study's 100 runs per point")
    ap.add_argument("--seed", type=int, default=0, help="seed of run 0 (run r uses seed + r)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--plot-only", action="store_true", help="redraw from an existing results CSV")
    args = ap.parse_args(argv)
    runs = 100 if args.paper else args.runs
    if runs < 1:
        ap.error("--runs must be >= 1")
    results = args.out / RESULTS
    if not args.plot_only:
        simulate_all(args.data, args.out, runs, args.seed, max(1, args.jobs))
    elif not results.exists():
        ap.error(f"{results} does not exist; run without --plot-only first")
    for path in plot_all(results, args.out):
        print(f"wrote {path}")
    summarise(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
