"""Resource-vector clusters in the heartbeat engine: LoTES vs greedy, and the cost of the resource fit.

Modes (results in docs/resources.md):

* ``sweep``: LoTES vs greedy through ``mrsim.tracker.replay`` on Table 1 scaled to ``--per-config`` machines per
  configuration, Table 3 single-task jobs (``--mapreduce`` for 200/100-task jobs) at each ``--loads`` fraction of
  lambda*, ``--hours`` of arrivals, measured after ``--warmup`` hours (default: half). Per run: mean / median wait
  (task start - job submit, h), mean flow time (job finish - submit, h), flow/F, mean jobs in system after
  warm-up, the steady-state verdict of ``mrsim.studies.lotes.metrics.steady_state`` on the jobs in system sampled over the
  arrival window, events, heartbeats, wall and CPU seconds. Prints a markdown table; ``--out DIR`` writes
  ``resources_sweep.json`` and the figures.
* ``ratio``: the same workload replayed by FIFO on the resource cluster and on a same-sized slot cluster
  (one node per resource node, slots = the resource node's container equivalents for the workload's mean
  request), to price the fit check per event. The slot replay ignores requests, so the schedules differ: the
  figure is the cost per event, not per run. Asserts event counts.

Run: ``python3 benchmarks/bench_resources.py sweep --per-config 10 --hours 200 --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.io import atomic_write
from mrsim.model.cluster import cluster_from_mapping
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.studies.lotes.bridge import GoogleTraceSpec, google_workload, table3
from mrsim.studies.lotes.metrics import steady_state

TABLE1 = ((4, 2), (4, 4), (4, 8), (4, 16), (8, 2), (8, 4), (8, 8), (8, 16), (8, 32), (24, 32))


def table1(count: int, slots: int = 1000):
    return cluster_from_mapping({"defaults": {"map_slots": slots, "reduce_slots": slots}, "racks": [
        {"name": f"/config{i + 1:02d}-{c}c-{g}g", "count": count, "resources": {"vcores": c, "memory_mb": g * 1024}}
        for i, (c, g) in enumerate(TABLE1)]}, f"Table 1 x {count}")


def in_system(submit: np.ndarray, finish: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Jobs submitted and not finished at each time (vectorised count)."""
    s = np.sort(submit)
    f = np.sort(finish)
    return np.searchsorted(s, times, side="right") - np.searchsorted(f, times, side="right")


def run_point(policy: str, load: float, args: argparse.Namespace, cluster, cache: dict) -> dict:
    key = load
    if key not in cache:
        cache.clear()
        cache[key] = google_workload(cluster, GoogleTraceSpec(load=load, hours=args.hours, seed=args.seed,
                                                              mapreduce=args.mapreduce))
    w, info = cache[key]
    conf = HadoopConf(slowstart_completed_maps=1.0)  # the paper releases reduces when the last map ends
    wall0, cpu0 = time.perf_counter(), time.process_time()
    r = replay(w, cluster, conf, create_scheduler(policy),
               ReplayOptions(seed=args.seed, heartbeat_interval_s=args.heartbeat))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    jobs, tasks = r.jobs, r.tasks
    warm = (args.warmup if args.warmup is not None else args.hours / 2) * 3600.0
    end = args.hours * 3600.0
    origin = w.origin_s
    sub = jobs.submit_s.to_numpy()
    fin = jobs.finish_s.to_numpy()
    measured = (sub >= warm) & (sub <= end)
    t = tasks.merge(jobs[["job_id", "submit_s"]], on="job_id")
    t = t[(t.submit_s >= warm) & (t.submit_s <= end)]
    wait_h = (t.start_s - t.submit_s).to_numpy() / 3600.0
    flow_h = (fin[measured] - sub[measured]) / 3600.0
    F = table3(GoogleTraceSpec(mapreduce=args.mapreduce)).lower_bound_flow()
    times = np.linspace(0.0, end, 201)
    n_sys = in_system(sub, fin, times)
    verdict = steady_state(list(times / 3600.0), list(n_sys.astype(float)), warm / 3600.0)
    del origin
    return {"policy": policy, "load": load, "jobs_per_h": info["rate_per_h"], "jobs": len(w),
            "measured_jobs": int(measured.sum()), "wait_mean_h": float(wait_h.mean()),
            "wait_median_h": float(np.median(wait_h)), "wait_p95_h": float(np.quantile(wait_h, 0.95)),
            "flow_mean_h": float(flow_h.mean()), "flow_over_F": float(flow_h.mean() / F),
            "jobs_in_system": float(n_sys[times >= warm].mean()), "steady": verdict.steady,
            "steady_reason": verdict.reason, "events": r.summary["events"], "heartbeats": r.summary["heartbeats"],
            "wall_s": wall, "cpu_s": cpu, "series_h": list(times / 3600.0), "series_jobs": n_sys.tolist()}


def fmt_h(x: float) -> str:
    if x == 0:
        return "0"
    return f"{x * 3600:.3g} s" if x < 0.1 else f"{x:.3g} h"


def sweep(args: argparse.Namespace) -> None:
    cluster = table1(args.per_config)
    loads = [float(x) for x in args.loads.split(",")]
    rows = []
    cache: dict = {}
    for load in loads:
        for policy in args.policies.split(","):
            row = run_point(policy, load, args, cluster, cache)
            rows.append(row)
            print(f"{policy} {load}: wait {row['wait_mean_h']:.4g} h, flow/F {row['flow_over_F']:.4f}, "
                  f"{row['events']:,} events, {row['wall_s']:.1f} s", file=sys.stderr, flush=True)
    print("| policy | load | jobs/h | mean wait | median wait | p95 wait | mean flow | flow/F | jobs in system | steady "
          "| events | heartbeats | wall s | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        steady = "yes" if r["steady"] else f"**no** ({r['steady_reason'].split(':')[-1].strip().split(' ')[0]})"
        print(f"| {r['policy']} | {r['load']:g} | {r['jobs_per_h']:,.1f} | {fmt_h(r['wait_mean_h'])} | "
              f"{fmt_h(r['wait_median_h'])} | {fmt_h(r['wait_p95_h'])} | {r['flow_mean_h']:.3g} h | "
              f"{r['flow_over_F']:.3f} | {r['jobs_in_system']:,.0f} | {steady} | {r['events']:,} | "
              f"{r['heartbeats']:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} |")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        spec = {k: v for k, v in vars(args).items() if k != "func"}
        with atomic_write(out / "resources_sweep.json") as fh:
            json.dump({"spec": spec, "rows": rows}, fh, indent=1)
        plot(rows, out, args)


def plot(rows: list[dict], out: Path, args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mrsim.io import atomic_path

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for policy in args.policies.split(","):
        rs = [r for r in rows if r["policy"] == policy]
        a.plot([r["load"] for r in rs], [r["wait_mean_h"] for r in rs], "o-", label=policy)
        b.plot([r["load"] for r in rs], [r["flow_over_F"] for r in rs], "o-", label=policy)
    a.set_xlabel("load (fraction of lambda*)"), a.set_ylabel("mean task wait (h)"), a.legend()
    b.set_xlabel("load (fraction of lambda*)"), b.set_ylabel("mean flow time / F"), b.legend()
    fig.suptitle(f"heartbeat engine, Table 1 x {args.per_config} per configuration, Table 3, {args.hours:g} h")
    fig.tight_layout()
    with atomic_path(out / "resources_wait_flow_vs_load.png") as p:
        fig.savefig(p, dpi=110, format="png")
    plt.close(fig)
    top = max(r["load"] for r in rows)
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in rows:
        if r["load"] == top:
            ax.plot(r["series_h"], r["series_jobs"], label=r["policy"])
    ax.set_xlabel("time (h)"), ax.set_ylabel("jobs in system"), ax.legend()
    ax.set_title(f"jobs in system at load {top:g}")
    fig.tight_layout()
    with atomic_path(out / "resources_jobs_in_system.png") as p:
        fig.savefig(p, dpi=110, format="png")
    plt.close(fig)


def ratio(args: argparse.Namespace) -> None:
    """FIFO on the resource cluster vs the same-sized slot cluster, same workload: cost per event."""
    res = table1(args.per_config)
    w, info = google_workload(res, GoogleTraceSpec(load=args.loads_one, hours=args.hours, seed=args.seed))
    # slot twin: each node's slots = how many mean-sized Table 3 requests (0.42 vcores, 805 MB) it holds
    mean_mb = float(np.mean([t.extra["map_request"]["memory_mb"] for t in w.jobs]))
    mean_vc = float(np.mean([t.extra["map_request"]["vcores"] for t in w.jobs]))
    slots = cluster_from_mapping({"racks": [
        {"name": f"/config{i + 1:02d}", "count": args.per_config,
         "map_slots": max(1, int(min(c / mean_vc, g * 1024 / mean_mb))), "reduce_slots": 1}
        for i, (c, g) in enumerate(TABLE1)]}, "slot twin")
    out = {}
    for name, cluster in (("resources", res), ("slots", slots)):
        t0, c0 = time.perf_counter(), time.process_time()
        r = replay(w, cluster, HadoopConf(), create_scheduler("fifo"),
                   ReplayOptions(seed=args.seed, heartbeat_interval_s=args.heartbeat))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert r.summary["events"] > len(w), "the replay skipped work"
        out[name] = (r.summary["events"], r.summary["heartbeats"], wall, cpu)
        print(f"{name:9s} {len(cluster):5d} nodes  {r.summary['events']:>10,} events  {r.summary['heartbeats']:>10,} "
              f"heartbeats  {wall:7.2f} s wall  {cpu:7.2f} s CPU  {cpu / r.summary['events'] * 1e6:6.2f} us/event")
    per = {k: v[3] / v[0] for k, v in out.items()}
    print(f"CPU per event, resources / slots: {per['resources'] / per['slots']:.2f}  "
          f"(jobs {len(w):,}, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


def main() -> None:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("--per-config", type=int, default=10)
    s.add_argument("--loads", default="0.5,0.7,0.8,0.85,0.9,0.95")
    s.add_argument("--policies", default="lotes,greedy")
    s.add_argument("--hours", type=float, default=200.0)
    s.add_argument("--warmup", type=float, default=None)
    s.add_argument("--heartbeat", type=float, default=None, help="heartbeat interval, s (default Hadoop 1.2's)")
    s.add_argument("--mapreduce", action="store_true")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", default=os.environ.get("OUT"))
    s.set_defaults(func=sweep)
    r = sub.add_parser("ratio")
    r.add_argument("--per-config", type=int, default=10)
    r.add_argument("--loads-one", type=float, default=0.8)
    r.add_argument("--hours", type=float, default=50.0)
    r.add_argument("--heartbeat", type=float, default=None)
    r.add_argument("--seed", type=int, default=1)
    r.set_defaults(func=ratio)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
