"""Memory held per task while replaying, this tree and optionally an older one, measured with ``tracemalloc``.

The workload (``mrsim.profiler.synth`` Facebook-like jobs, ``--gap`` seconds apart on average, on ``--nodes`` nodes of
1 map + 1 reduce slot, FIFO, Hadoop 1.2 heartbeats) is built first; tracing starts after it, so the figure is what
the replay itself allocates at its peak (engine state, per-task arrays, result columns), divided by the tasks. The
workload's templates (8 bytes per task duration in numpy, about 2.5 kB per job) are the caller's and not counted;
``--with-workload`` counts them too. Each size is run in a fresh child process, for every variant:

* ``before``: the code at ``--before DIR`` (``git archive COMMIT | tar -x -C DIR``), if given;
* ``kept``: this code with per-task results kept (the default of ``ReplayOptions``, what ``--out`` needs);
* ``dropped``: this code with ``ReplayOptions(task_results=False)`` (what ``mrsim replay --json`` uses): each
  job's per-task state is freed when it finishes.

It prints bytes per task at each size and the growth between sizes (bytes per extra task), which is what the
memory of a long trace follows. The results of every variant are checked to be the same job rows.

Usage: ``python3 benchmarks/bench_memory.py [--jobs 200,800] [--gap 30] [--nodes 1000] [--before DIR]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import gc, hashlib, json, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
jobs, gap, nodes, variant, with_workload = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6] == "1"
cluster = uniform_cluster(nodes, 1, 1, cores=4)
if with_workload:
    tracemalloc.start()
workload = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=3, mean_interarrival_s=gap))
gc.collect()
if not with_workload:
    tracemalloc.start()
options = ReplayOptions(task_results=False) if variant == "dropped" else ReplayOptions()
result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"), options)
peak = tracemalloc.get_traced_memory()[1]
rows = json.dumps(result.to_json_dict()["jobs"], sort_keys=True).encode()
print(json.dumps({"tasks": workload.n_tasks, "peak": peak, "jobs_digest": hashlib.sha256(rows).hexdigest()[:16]}))
"""


def measure(code: Path, jobs: int, gap: float, nodes: int, variant: str, with_workload: bool) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(code), str(jobs), str(gap), str(nodes), variant,
                          "1" if with_workload else "0"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", default="200,800")
    ap.add_argument("--gap", type=float, default=30.0)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    ap.add_argument("--with-workload", action="store_true", help="count the workload's templates too")
    args = ap.parse_args()
    sizes = [int(x) for x in args.jobs.split(",")]
    variants = ([("before", args.before)] if args.before else []) + [("kept", ROOT), ("dropped", ROOT)]
    digests: dict[int, set[str]] = {}
    for name, code in variants:
        rows = [measure(code, jobs, args.gap, args.nodes, name, args.with_workload) for jobs in sizes]
        for jobs, row in zip(sizes, rows):
            digests.setdefault(jobs, set()).add(row["jobs_digest"])
            print(f"{name:>8}: jobs {jobs:>6,}  tasks {row['tasks']:>9,}  traced peak {row['peak'] / 1e6:8.1f} MB  "
                  f"= {row['peak'] / row['tasks']:6.0f} B per task", flush=True)
        for a, b in zip(rows, rows[1:]):
            print(f"{name:>8}: growth {(b['peak'] - a['peak']) / (b['tasks'] - a['tasks']):6.0f} B per extra task "
                  f"({a['tasks']:,} -> {b['tasks']:,} tasks)", flush=True)
    same = all(len(d) == 1 for d in digests.values())
    print(f"job rows identical across variants: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
