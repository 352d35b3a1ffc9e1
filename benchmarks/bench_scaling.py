"""How replay cost grows with jobs, tasks and nodes; writes ``docs/img/scaling.png`` and prints the table behind it.

Workloads are ``mrsim.profiler.synth`` Facebook-like traces (back-to-back arrivals, as in ``bench_replay.py``), replayed in
this process under FIFO with Hadoop 1.2 heartbeats on uniform clusters of 1 map + 1 reduce slot per node. Two
sweeps, each point the minimum CPU time of ``--repeat`` runs:

* **jobs** (and so tasks): ``--jobs`` sizes on 64 nodes;
* **nodes**: ``--nodes`` sizes with a fixed 400-job workload;
* **wake-ups** (``--wake-nodes``, default 1,000 and 10,000): ``--wake-jobs`` jobs arriving 30 s apart on average
  (``mrsim synth``'s default) on large clusters, where most trackers are idle and every arrival used to wake
  all of them; each point runs the reference wake policy (``ReplayOptions(bounded_wakes=False)``, every idle
  tracker woken) and the bounded one (``mrsim/tracker/wakeups.py``) in the same process and checks that both give
  the same jobs and tasks.

For every point it prints engine CPU time (``JobTracker.run``), events, events per task, CPU per task and the growth
of peak RSS, and the ratio of CPU per event to one heapq "hold" (``bench_replay.hold_cost_s``) measured in the same
run, which is what to compare across machines. Peak RSS is the process's high-water mark, so only its growth
between successive larger points means something; memory per task is fitted on the jobs sweep.

Usage: ``python3 benchmarks/bench_scaling.py [--jobs 100,200,400,800,1600] [--nodes 16,64,256,1024] [--repeat 2]
[--wake-nodes 1000,10000] [--wake-jobs 300] [--only-wakes]``
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import _ENGINE_CPU, hold_cost_s  # noqa: E402  (also times JobTracker.run)

from mrsim.tracker.replay import ReplayOptions, replay  # noqa: E402
from mrsim.tracker.scheduling import create_scheduler  # noqa: E402
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.hadoop_conf import HadoopConf  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "img" / "scaling.png"


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def point(jobs: int, nodes: int, repeat: int) -> dict:
    workload = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=1, mean_interarrival_s=0.0))
    cluster = uniform_cluster(nodes, 1, 1, cores=4)
    best = float("inf")
    summary: dict = {}
    for _ in range(repeat):
        gc.collect()
        result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions())
        best = min(best, _ENGINE_CPU[0])
        summary = result.summary
        del result
    return {"jobs": jobs, "nodes": nodes, "tasks": workload.n_tasks, "events": summary["events"],
            "engine_cpu_s": best, "rss_mb": rss_mb()}


def wake_point(jobs: int, nodes: int, repeat: int) -> dict:
    """Reference and bounded wake policies on spread arrivals (see the module docstring)."""
    workload = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=3, mean_interarrival_s=30.0))
    cluster = uniform_cluster(nodes, 1, 1, cores=4)
    row: dict = {"jobs": jobs, "nodes": nodes, "tasks": workload.n_tasks}
    results = {}
    for name, bounded in (("reference", False), ("bounded", True)):
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"),
                            ReplayOptions(bounded_wakes=bounded))
            best = min(best, _ENGINE_CPU[0])
        row[name] = {"events": result.summary["events"], "heartbeats": result.summary["heartbeats"],
                     "engine_cpu_s": best}
        results[name] = result
    assert results["bounded"].tasks.equals(results["reference"].tasks), "the wake policies disagree"
    assert results["bounded"].jobs.equals(results["reference"].jobs), "the wake policies disagree"
    return row


def show_wakes(row: dict) -> None:
    ref, new = row["reference"], row["bounded"]
    tasks = row["tasks"]
    print(f"wake-ups: jobs {row['jobs']:>5,} (30 s apart)  nodes {row['nodes']:>6,}  tasks {tasks:>8,}  "
          f"events/task reference {ref['events'] / tasks:5.2f} -> bounded {new['events'] / tasks:5.2f}  "
          f"heartbeats {ref['heartbeats']:,} -> {new['heartbeats']:,}  engine CPU {ref['engine_cpu_s']:6.2f} -> "
          f"{new['engine_cpu_s']:6.2f} s ({new['engine_cpu_s'] / ref['engine_cpu_s']:.2f}x)  same schedule",
          flush=True)


def show(row: dict, hold: float) -> None:
    per_event = row["engine_cpu_s"] / row["events"]
    print(f"jobs {row['jobs']:>6,}  nodes {row['nodes']:>6,}  tasks {row['tasks']:>9,}  events {row['events']:>10,}  "
          f"events/task {row['events'] / row['tasks']:5.2f}  engine CPU {row['engine_cpu_s']:7.2f} s  "
          f"CPU/task {row['engine_cpu_s'] / row['tasks'] * 1e6:6.1f} us  CPU/event {per_event / hold:4.1f} holds  "
          f"peak RSS {row['rss_mb']:7.1f} MB", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", default="100,200,400,800,1600")
    ap.add_argument("--nodes", default="16,64,256,1024")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--wake-nodes", default="1000,10000")
    ap.add_argument("--wake-jobs", type=int, default=300)
    ap.add_argument("--only-wakes", action="store_true", help="run only the wake-up sweep (no plot)")
    args = ap.parse_args()
    hold = hold_cost_s()
    print(f"baseline: one hold (heappop + heappush, 1024-event heapq) = {hold * 1e9:.0f} ns CPU")
    for nodes in (int(x) for x in args.wake_nodes.split(",") if x):
        show_wakes(wake_point(args.wake_jobs, nodes, args.repeat))
    if args.only_wakes:
        return
    started = time.perf_counter()
    by_jobs = []
    for jobs in (int(x) for x in args.jobs.split(",")):
        by_jobs.append(point(jobs, 64, args.repeat))
        show(by_jobs[-1], hold)
    by_nodes = []
    for nodes in (int(x) for x in args.nodes.split(",")):
        by_nodes.append(point(400, nodes, args.repeat))
        show(by_nodes[-1], hold)
    grow = [(b["rss_mb"] - a["rss_mb"]) / (b["tasks"] - a["tasks"]) * 1e6 for a, b in zip(by_jobs, by_jobs[1:])
            if b["tasks"] > a["tasks"] and b["rss_mb"] > a["rss_mb"]]
    if grow:
        print(f"peak RSS growth per task on the jobs sweep: {max(grow):.0f} B (largest step); "
              f"24 GB would hold about {24e9 / (max(grow)):,.0f} tasks at that rate (extrapolated)")
    print(f"sweep took {time.perf_counter() - started:.0f} s wall")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    tasks = [r["tasks"] for r in by_jobs]
    left.loglog(tasks, [r["engine_cpu_s"] for r in by_jobs], "o-", label="engine CPU (s)")
    left.loglog(tasks, [r["events"] / 1e5 for r in by_jobs], "s--", label="events / 1e5")
    left.set_xlabel("tasks (jobs swept, 64 nodes)")
    left.set_title("cost vs tasks")
    left.legend()
    left.grid(True, which="both", alpha=0.3)
    nodes = [r["nodes"] for r in by_nodes]
    right.semilogx(nodes, [r["engine_cpu_s"] / r["tasks"] * 1e6 for r in by_nodes], "o-", label="CPU per task (us)")
    right.semilogx(nodes, [r["events"] / r["tasks"] for r in by_nodes], "s--", label="events per task")
    right.set_xlabel(f"nodes (400 jobs, {by_nodes[0]['tasks']:,} tasks)")
    right.set_title("cost vs nodes")
    right.legend()
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle("mrsim replay, FIFO, Hadoop 1.2 heartbeats, 1 map + 1 reduce slot per node")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=90)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
