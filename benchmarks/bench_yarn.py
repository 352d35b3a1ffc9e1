"""YARN mode against Hadoop 1 mode on the SimMR-scale workload of ``bench_replay.py`` (1148 jobs, ~300,000 tasks).

Both runs replay the same synthetic workload (``mrsim.profiler.synth``, seed 1, back-to-back arrivals) on 64 nodes:

* Hadoop 1 mode: ``bench_replay.py``'s heartbeat run (1 map + 1 reduce slot per TaskTracker, FIFO, 0.64 s
  heartbeats, parked trackers);
* YARN mode: 64 NodeManagers of 3072 MB and 3 vcores (room for the two task containers of a TaskTracker plus an
  ApplicationMaster), 1024 MB AM / map / reduce containers, 1 s NodeManager and AM heartbeats, under YARN's
  Capacity (Hadoop's default scheduler, ``maximum-am-resource-percent`` 0.1) and Fair (``maxAMShare`` 0.5)
  schedulers; the per-queue time series is on, as in ``mrsim replay``. YARN's FIFO scheduler is not run by
  default: it has no ApplicationMaster limit, so 1148 simultaneous submissions fill every container with AMs
  before the first AM asks for a task, and the replay stops with the "stalled" error, as the real cluster would
  deadlock (``--schedulers fifo`` shows it).

Both engines run the build this process imports: the compiled core (mypyc; since the YARN modules joined
``mrsim/compiled_core.py`` it holds both engines' heartbeat paths) or, with ``MRSIM_PURE_PYTHON=1``, the pure sources
of both. The first line says which, so a ratio is always compiled / compiled or pure / pure.

It prints CPU time, events and the ratio YARN / Hadoop 1 per scheduler (the issue's target: at most 2x). The two
engines do different work: the YARN replay emulates every NodeManager heartbeat that can allocate and every
ApplicationMaster allocate that can change something (asks, containers, reduce ramp-up), which the slot engine
has no equivalent of; the event counts are printed so the ratio can be read against them.

``--digest`` also prints an MD5 digest of each YARN replay's jobs and tasks tables and per-queue series, so a change
meant to be a pure speed-up can be checked to leave every result identical (compare the digests before and after).

``--repeat N`` runs every replay N times, interleaved (Hadoop 1, then each YARN scheduler, N rounds), and prints
each CPU time, the minimum, and the ratio of the minima, so the load of a shared machine weighs on both sides alike.

Usage: ``python3 benchmarks/bench_yarn.py [--jobs 1148] [--schedulers capacity,fair] [--repeat 3] [--profile]
[--digest]``
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrsim import compiled_core  # noqa: E402
from mrsim.tracker.replay import ReplayOptions, replay  # noqa: E402
from mrsim.tracker.scheduling import create_scheduler  # noqa: E402
from mrsim.tracker.yarn import YarnConf, create_yarn_scheduler, replay_yarn  # noqa: E402
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.hadoop_conf import HadoopConf  # noqa: E402


def timed(fn):
    gc.collect()
    started = time.process_time()
    result = fn()
    return time.process_time() - started, result


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=1148)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--schedulers", default="capacity,fair")
    ap.add_argument("--profile", action="store_true", help="cProfile the first YARN run")
    ap.add_argument("--digest", action="store_true", help="print a digest of each YARN replay's results")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each replay, interleaved; the minimum is kept")
    args = ap.parse_args()
    workload = facebook_like_workload(FacebookLikeSpec(jobs=args.jobs, seed=args.seed, mean_interarrival_s=0.0))
    print(f"workload: {len(workload)} jobs, {workload.n_tasks:,} tasks; {compiled_core.describe()} "
          "(both engines)")
    cluster = uniform_cluster(64, 1, 1, cores=4)
    conf = YarnConf(nm_memory_mb=3072.0, nm_vcores=3.0, am_mb=1024.0)
    names = args.schedulers.split(",")
    times: dict[str, list[float]] = {"mr1": [], **{name: [] for name in names}}
    results: dict = {}
    for round_ in range(max(1, args.repeat)):
        cpu, results["mr1"] = timed(lambda: replay(workload, cluster, HadoopConf(), create_scheduler("fifo"),
                                                   ReplayOptions()))
        times["mr1"].append(cpu)
        for i, name in enumerate(names):
            def run():
                return replay_yarn(workload, cluster, conf, create_yarn_scheduler(name), seed=args.seed)
            profile = args.profile and i == 0 and round_ == 0
            if profile:
                prof = cProfile.Profile()
                prof.enable()
            cpu, results[name] = timed(run)
            if profile:
                prof.disable()
                pstats.Stats(prof).sort_stats("tottime").print_stats(15)
            else:
                times[name].append(cpu)
    base = min(times["mr1"])
    s = results["mr1"].summary
    print(f"{'Hadoop 1 (fifo, heartbeats)':<30} CPU {base:8.2f} s  events {s['events']:>10,}  "
          f"makespan {s['makespan_s']:>12,.0f} s  runs {_runs(times['mr1'])}")
    for name in names:
        r = results[name]
        s = r.summary
        assert s["jobs"] == len(workload) and s["tasks"] == workload.n_tasks
        y = s["yarn"]
        cpu = min(times[name]) if times[name] else float("nan")  # nan: the only run was profiled
        print(f"{'YARN (' + name + ')':<30} CPU {cpu:8.2f} s  events {s['events']:>10,}  makespan "
              f"{s['makespan_s']:>12,.0f} s  NM heartbeats {y['nm_heartbeats']:>9,}  AM allocates "
              f"{y['am_allocates']:>9,}  ratio {cpu / base:6.2f}x  runs {_runs(times[name])}")
        if args.digest:
            print(f"{'':<30} digest {digest(r)}")


def _runs(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def digest(result) -> str:
    """MD5 of the jobs and tasks columns (repr of every value) and the per-queue series runs."""
    h = hashlib.md5()
    for table in (result.job_columns, result.task_columns):
        for name, values in table.items():
            h.update(name.encode())
            h.update(repr([repr(v) for v in list(values)]).encode())
    series = getattr(result, "queue_series", None)
    if series is not None:
        h.update(repr(series.runs).encode())
    return h.hexdigest()


if __name__ == "__main__":
    main()
