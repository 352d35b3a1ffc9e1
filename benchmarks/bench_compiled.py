"""The compiled engine core (mypyc) against the pure-Python engine, in the same run.

Replays the SimMR-scale workload of ``bench_replay.py`` (1148 jobs, about 300,000 tasks, back-to-back arrivals,
64 nodes with 1 map + 1 reduce slot, FIFO, Hadoop 1.2 heartbeats) in two child processes of this checkout: one
with the compiled core, one with ``MRSIM_PURE_PYTHON=1`` (``mrsim/compiled_core.py``). Each child measures the
engine's CPU time (``JobTracker.run``, ``time.process_time``; min of ``--repeat`` runs) and one heapq *hold* in the
same process (``bench_replay.hold_cost_s``), and prints engine CPU per event in microseconds and as a multiple of
the hold. The parent prints the pure / compiled ratio and checks that both builds produced the same results
(every job's finish time, the event and heartbeat counts).

Usage: ``python3 benchmarks/bench_compiled.py [--jobs 1148] [--repeat 3]``. Needs a compiled build
(``pip install -e .``); without one it says so and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, {bench_dir!r})
import bench_replay  # patches JobTracker.run to record its CPU time
from mrsim import compiled_core
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf

workload = facebook_like_workload(FacebookLikeSpec(jobs={jobs}, seed=1, mean_interarrival_s=0.0))
cluster = uniform_cluster(64, 1, 1, cores=4)
hold = bench_replay.hold_cost_s()
engine = []
for _ in range({repeat}):
    result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions())
    engine.append(bench_replay._ENGINE_CPU[0])
digest = hashlib.sha256(json.dumps([list(result.jobs.finish_s), result.summary["events"],
                                    result.summary["heartbeats"]]).encode()).hexdigest()
print(json.dumps({{"build": compiled_core.engine_build(), "hold_s": hold, "engine_cpu_s": engine,
                  "events": result.summary["events"], "tasks": workload.n_tasks, "digest": digest}}))
"""


def measure(pure: bool, jobs: int, repeat: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "MRSIM_PURE_PYTHON"}
    if pure:
        env["MRSIM_PURE_PYTHON"] = "1"
    code = _CHILD.format(bench_dir=str(REPO / "benchmarks"), jobs=jobs, repeat=repeat)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    if proc.returncode != 0:
        sys.exit(f"bench_compiled: the {'pure' if pure else 'compiled'} run failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=1148)
    ap.add_argument("--repeat", type=int, default=3, help="engine runs per build; the minimum is reported")
    args = ap.parse_args()
    runs = {}
    for pure in (True, False):  # one after the other: two engines at once would share the two cores
        runs["pure" if pure else "compiled"] = measure(pure, args.jobs, args.repeat)
    if runs["compiled"]["build"] != "compiled":
        sys.exit("bench_compiled: no compiled engine core in this checkout (pip install -e . builds it); "
                 "`mrsim --version` says why")
    first = runs["pure"]
    print(f"workload: {args.jobs} jobs, {first['tasks']:,} tasks, 64 nodes x (1 map + 1 reduce), FIFO, Hadoop 1.2 "
          f"heartbeats; {first['events']:,} events; engine CPU min of {args.repeat}")
    for name, r in runs.items():
        cpu = min(r["engine_cpu_s"])
        per_event = cpu / r["events"]
        print(f"{name:<9} engine {cpu:6.2f} s CPU (runs {', '.join(f'{c:.2f}' for c in r['engine_cpu_s'])})  "
              f"{per_event * 1e6:5.2f} us/event = {per_event / r['hold_s']:4.1f} holds "
              f"(hold {r['hold_s'] * 1e9:.0f} ns in that process)")
    same = runs["pure"]["digest"] == runs["compiled"]["digest"] and runs["pure"]["events"] == runs["compiled"]["events"]
    ratio = min(runs["pure"]["engine_cpu_s"]) / min(runs["compiled"]["engine_cpu_s"])
    print(f"pure / compiled engine CPU = {ratio:.2f}x; results identical: {'yes' if same else 'NO'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
