"""Reproduce SimMR Fig. 8 (MinEDF vs MaxEDF on the synthetic Facebook-like workload), larger than the test.

Sweep: mean inter-arrival time × deadline factor × replications. For each (arrival mean, replication r) one
workload is drawn (``mrsim.profiler.synth``, seed = SEED + r), each job's T_J is measured alone on the cluster, and for
each deadline factor the deadlines are drawn (seed SEED + r) and the workload is replayed under MaxEDF, MinEDF
(ARIA average bound, the default) and MinEDF with the upper bound. The sweep writes one CSV row per replay;
``plot`` draws the mean relative deadline exceeded (± standard error over replications) against the mean
inter-arrival time, one panel per deadline factor, like SimMR Fig. 7/8.

    python3 scripts/edf_figures.py all --out docs/figures          # sweep + plot (defaults below)
    python3 scripts/edf_figures.py plot --out docs/figures         # re-plot from the CSV

Defaults follow SimMR's testbed where it states them (64 worker nodes, one map and one reduce slot each,
task-completion-driven replay: ``--heartbeat-interval off``); workload size, arrival means and the number of
replications are mrsim choices (SimMR ran 400 replications and does not give its synthetic workload's size).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run from a source checkout without installing
    sys.path.insert(0, str(REPO))

from mrsim.tracker.replay import ReplayOptions, replay  # noqa: E402
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload  # noqa: E402
from mrsim.io import atomic_path, atomic_write  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.hadoop_conf import HadoopConf  # noqa: E402
from mrsim.studies.deadlines import assign_deadlines, isolated_completion_times  # noqa: E402

CSV_NAME = "edf_fig8.csv"
PNG_NAME = "edf_fig8.png"
FIELDS = ("mean_interarrival_s", "replication", "seed", "deadline_factor", "scheduler", "relative_deadline_exceeded",
          "deadlines_missed", "jobs", "mean_completion_s", "makespan_s")
VARIANTS = {"maxedf": ("maxedf", {}), "minedf": ("minedf", {}), "minedf-upper": ("minedf", {"bound": "upper"})}


def _point(args: tuple) -> list[dict]:
    """All replays of one (arrival mean, replication): the unit of parallel work."""
    from mrsim.tracker.scheduling import create_scheduler

    ia, rep, seed, jobs, nodes, map_slots, reduce_slots, interval, factors = args
    cluster = uniform_cluster(nodes, map_slots, reduce_slots)
    conf = HadoopConf()
    options = ReplayOptions(heartbeat_interval_s=interval, seed=seed)
    workload = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=seed, mean_interarrival_s=ia))
    iso = isolated_completion_times(workload, cluster, conf, options)
    rows = []
    for df in factors:
        w = assign_deadlines(workload, cluster, conf, df, seed, options, isolated=iso)
        for label, (name, config) in VARIANTS.items():
            s = replay(w, cluster, conf, create_scheduler(name, config), options).summary
            rows.append({"mean_interarrival_s": ia, "replication": rep, "seed": seed, "deadline_factor": df,
                         "scheduler": label, "relative_deadline_exceeded": s["relative_deadline_exceeded"],
                         "deadlines_missed": s["deadlines_missed"], "jobs": s["jobs"],
                         "mean_completion_s": s["mean_completion_s"], "makespan_s": s["makespan_s"]})
    return rows


def sweep(a: argparse.Namespace) -> Path:
    arrivals = [float(x) for x in a.arrivals.split(",")]
    factors = [float(x) for x in a.factors.split(",")]
    interval = 0.0 if a.heartbeat_interval == "off" else float(a.heartbeat_interval)
    work = [(ia, r, a.seed + r, a.jobs, a.nodes, a.map_slots, a.reduce_slots, interval, factors)
            for ia in arrivals for r in range(a.replications)]
    started = time.perf_counter()
    rows: list[dict] = []
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers) as pool:
            for part in pool.map(_point, work):
                rows.extend(part)
    else:
        for item in work:
            rows.extend(_point(item))
    rows.sort(key=lambda r: (r["mean_interarrival_s"], r["deadline_factor"], r["scheduler"], r["replication"]))
    out = Path(a.out) / CSV_NAME
    with atomic_write(out) as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}: {len(rows)} replays in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return out


def plot(a: argparse.Namespace) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    with open(Path(a.out) / CSV_NAME, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    factors = sorted({float(r["deadline_factor"]) for r in rows})
    arrivals = sorted({float(r["mean_interarrival_s"]) for r in rows})
    fig, axes = plt.subplots(1, len(factors), figsize=(4.6 * len(factors), 3.9), squeeze=False)
    styles = {"maxedf": ("MaxEDF", "tab:red", "-", "o"), "minedf": ("MinEDF (average bound)", "tab:blue", "-", "s"),
              "minedf-upper": ("MinEDF (upper bound)", "tab:blue", "--", "^")}
    for ax, df in zip(axes[0], factors):
        for label, (text, color, line, marker) in styles.items():
            means, errs = [], []
            for ia in arrivals:
                vals = np.array([float(r["relative_deadline_exceeded"]) for r in rows
                                 if float(r["deadline_factor"]) == df and float(r["mean_interarrival_s"]) == ia
                                 and r["scheduler"] == label])
                means.append(vals.mean() if vals.size else np.nan)
                errs.append(vals.std(ddof=1) / np.sqrt(vals.size) if vals.size > 1 else 0.0)
            ax.errorbar(arrivals, means, yerr=errs, label=text, color=color, linestyle=line, marker=marker,
                        capsize=3, markersize=4)
        reps = len({r["replication"] for r in rows})
        ax.set_xscale("log")
        ax.set_xlabel("mean inter-arrival time (s)")
        ax.set_ylabel(f"relative deadline exceeded (mean of {reps})")
        ax.set_title(f"deadline factor {df:g}")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    out = Path(a.out) / PNG_NAME
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    print(f"wrote {out}", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    p.add_argument("step", choices=["all", "sweep", "plot"], help="sweep (CSV), plot (PNG from the CSV), or both")
    p.add_argument("--out", default="docs/figures", help="output directory (default docs/figures)")
    p.add_argument("--jobs", type=int, default=100, help="jobs per workload (default 100)")
    p.add_argument("--arrivals", default="300,1000,3000,10000,30000", help="mean inter-arrival times, s")
    p.add_argument("--factors", default="1,1.5,3", help="deadline factors (default 1,1.5,3)")
    p.add_argument("--replications", type=int, default=10, help="replications per point (default 10)")
    p.add_argument("--seed", type=int, default=0, help="replication r uses seed SEED + r (default 0)")
    p.add_argument("--nodes", type=int, default=64)
    p.add_argument("--map-slots", type=int, default=1)
    p.add_argument("--reduce-slots", type=int, default=1)
    p.add_argument("--heartbeat-interval", default="off", help="seconds, or off (SimMR's mode; default)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
    a = p.parse_args(argv)
    if a.step in ("all", "sweep"):
        sweep(a)
    if a.step in ("all", "plot"):
        plot(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
