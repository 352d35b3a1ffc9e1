"""Contention-aware replay (``--contention tdam``) against plain replay on the foundation benchmark workload.

Workload and cluster as ``bench_replay.py``: the synthetic Facebook-like trace (``mrsim.profiler.synth``, 1148 jobs, about
264,000 tasks, back-to-back arrivals) on 64 nodes x (1 map + 1 reduce slot, 4 cores, 1 disk), FIFO, Hadoop 1.2
heartbeats (0.64 s) unless ``--mode task``. The target is a contention-aware run within 3x the plain run's
engine time, in the same process.

Demands (``--demands``):

* ``fallback`` (default): the workload has none, so every task's demand is its trace duration on the CPU (the
  engine's documented fallback): one demand shape, the cheapest case for the mix cache;
* ``mixed``: every job gets a CPU/disk split drawn from the named stream ``bench-tdam-split`` (disk share uniform
  in [0, 0.6], rounded to 0.05, so about 13 shapes), total demand = trace duration: exercises multi-shape mixes.

Both engines are built as :func:`mrsim.tracker.replay.replay` builds them and timed around ``run()`` only (wall
and process CPU time; the shared machine's load moves wall time, so ``--repeat N`` alternates the two N times
and reports the best of each). Each run asserts that every task finished and that the contention run ended at
least one node epoch per task, so skipping work cannot pass as a speed-up. Prints events, events/s, peak RSS,
makespan, a digest of the task table (equal digests before and after a change: identical results), the model's
counters (epochs, AMVA solves, cache hit rate) and the ratios.

* ``shapes6``: the mixed-demand case, its own workload (:func:`shapes6_workload`: 120 jobs, 25,200 tasks,
  six demand shapes) on 32 nodes x (4 map, 2 reduce slots, 4 cores, 1 disk); ``--jobs`` does not apply.

``--no-cache-run`` adds one TDAM run with the mix cache off (every epoch's mix solved afresh), prints that ratio
beside the cached one and asserts both give identical task tables.

``--only plain|tdam`` runs that one replay once and stops (for an instruction count: ``valgrind --tool=callgrind
--collect-atstart=no --toggle-collect='CPyDef_jobtracker___JobTracker___run' python3 benchmarks/bench_tdam.py
--demands shapes6 --only tdam`` counts the timed region of the compiled engine).

Usage: ``python3 benchmarks/bench_tdam.py [--jobs 1148] [--mode heartbeat|task] [--demands fallback|mixed|shapes6]
[--repeat 3] [--profile] [--no-cache-run] [--only plain|tdam]``; ``--jobs 200`` gives a quick run.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import pstats
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrsim.tracker.features.contention import ContentionFeature  # noqa: E402
from mrsim.io.gc_policy import engine_gc  # noqa: E402
from mrsim.tracker.jobtracker import JobTracker  # noqa: E402
from mrsim.tracker.replay import ReplayOptions  # noqa: E402
from mrsim.tracker.results import collect_result  # noqa: E402
from mrsim.tracker.scheduling import create_scheduler  # noqa: E402
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.demands import DEMAND_RESOURCES  # noqa: E402
from mrsim.model.hadoop_conf import HadoopConf  # noqa: E402
from mrsim.model.templates import JobTemplate, Workload  # noqa: E402
from mrsim.rng import stream  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def with_mixed_demands(workload: Workload, seed: int) -> Workload:
    """Per job, split each task's trace duration into CPU and disk seconds (disk share in [0, 0.6], 0.05 steps)."""
    shares = np.round(stream(seed, "bench-tdam-split").uniform(0.0, 0.6, len(workload)) / 0.05) * 0.05
    jobs = []
    for t, share in zip(workload, shares):
        split = np.array([1.0 - share, share, 0.0])
        jobs.append(t.with_changes(map_demands=np.outer(t.map_durations, split),
                                   reduce_demands=np.outer(t.reduce_durations, split),
                                   demand_resources=DEMAND_RESOURCES))
    return Workload.of(jobs, source=workload.source + " (mixed demands)")


SHAPES6_DISK_SHARES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)


def shapes6_workload(seed: int, jobs: int = 120, maps: int = 180, reduces: int = 30) -> Workload:
    """The mixed-demand case: ``jobs`` jobs of ``maps + reduces`` tasks (120 x 210 = 25,200), job ``j`` with
    disk share ``SHAPES6_DISK_SHARES[j % 6]`` of every task's duration (six demand shapes), durations lognormal
    (median 30 s maps, 60 s reduces) from the named stream ``bench-tdam-shapes6``, one job every 15 s."""
    rng = stream(seed, "bench-tdam-shapes6")
    templates = []
    for j in range(jobs):
        share = SHAPES6_DISK_SHARES[j % len(SHAPES6_DISK_SHARES)]
        split = np.array([1.0 - share, share, 0.0])
        m = np.round(rng.lognormal(np.log(30.0), 0.5, maps), 3)
        r = np.round(rng.lognormal(np.log(60.0), 0.5, reduces), 3)
        templates.append(JobTemplate(job_id=f"job{j:03d}", submit_s=15.0 * j, map_durations=m, reduce_durations=r,
                                     first_shuffle_durations=[5.0] * reduces, typical_shuffle_durations=[5.0] * reduces,
                                     map_demands=np.outer(m, split), reduce_demands=np.outer(r, split),
                                     demand_resources=DEMAND_RESOURCES))
    return Workload.of(templates, source="shapes6")


def table_digest(tasks) -> str:
    """sha256 (first 16 hex digits) of every cell of a task table: equal digests, identical results."""
    import pandas as pd

    return hashlib.sha256(pd.util.hash_pandas_object(tasks, index=False).to_numpy().tobytes()).hexdigest()[:16]


def run(contention, workload, cluster, interval, seed, label, profile=False, cache_mixes=True):
    """One replay built and run as :func:`mrsim.tracker.replay.replay` does it (``contention``: attach the TDAM feature);
    returns (wall s, CPU s, task table)."""
    gc.collect()
    jt = JobTracker(workload, cluster, HadoopConf(), create_scheduler("fifo"), heartbeat_interval=interval, seed=seed)
    model = ContentionFeature(cache_mixes=cache_mixes) if contention else None
    if model is not None:
        jt.attach(model)
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with engine_gc():  # the GC setting mrsim.tracker.replay runs the engine with
        jt.run()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    if prof:
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    result = collect_result(jt, ReplayOptions(heartbeat_interval_s=interval, seed=seed), wall)
    s = result.summary
    assert s["jobs"] == len(workload) and jt.jobs_done == len(workload) and s["tasks"] == workload.n_tasks
    assert jt.tasks_done == workload.n_tasks, "not every task finished"
    assert result.tasks.finish_s.ge(result.tasks.start_s).all(), "a task finished before it started"
    print(f"{label:<22} wall {wall:7.3f} s  CPU {cpu:7.3f} s  events {s['events']:>9,}  events/s "
          f"{s['events'] / wall:>9,.0f}  peak RSS {peak_rss_mb():6.0f} MB  makespan {s['makespan_s']:>12,.0f} s  "
          f"digest {table_digest(result.tasks)}")
    if model is not None:
        st = model.contention_stats()
        lookups = st["hits"] + st["solves"]
        assert st["epochs"] >= workload.n_tasks, "fewer node epochs than tasks: the model was skipped"
        print(f"{'':<22} epochs {st['epochs']:,}  AMVA solves {st['solves']:,}  cache hit rate "
              f"{st['hits'] / max(1, lookups):.1%}  shapes {st['shapes']}  sweeps/solve "
              f"{st['sweeps'] / max(1, st['solves']):.1f}  non-converged {st['nonconverged']}")
    return wall, cpu, result.tasks


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=1148)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", choices=["heartbeat", "task"], default="heartbeat")
    ap.add_argument("--demands", choices=["fallback", "mixed", "shapes6"], default="fallback",
                    help="shapes6: the 120 jobs / 25,200 tasks / six shapes on 32 nodes (ignores --jobs)")
    ap.add_argument("--repeat", type=int, default=1, help="alternate plain and tdam runs N times; report the best")
    ap.add_argument("--profile", action="store_true", help="cProfile the (first) contention run")
    ap.add_argument("--no-cache-run", action="store_true",
                    help="also run TDAM with the mix cache off (every epoch solved afresh): the ratio without the "
                         "cache, and a check that both give identical task tables")
    ap.add_argument("--only", choices=["plain", "tdam"],
                    help="run only this replay, once, and stop (for callgrind; no ratio)")
    args = ap.parse_args()

    if args.demands == "shapes6":
        workload = shapes6_workload(args.seed)
        cluster = uniform_cluster(32, 4, 2, cores=4)
        shape = "32 x (4 map, 2 reduce, 4 cores, 1 disk)"
    else:
        workload = facebook_like_workload(FacebookLikeSpec(jobs=args.jobs, seed=args.seed, mean_interarrival_s=0.0))
        if args.demands == "mixed":
            workload = with_mixed_demands(workload, args.seed)
        cluster = uniform_cluster(64, 1, 1, cores=4)
        shape = "64 x (1 map, 1 reduce, 4 cores, 1 disk)"
    print(f"workload: {len(workload)} jobs, {workload.n_tasks:,} tasks; cluster {shape}; mode {args.mode}; "
          f"demands {args.demands}")
    interval = 0.0 if args.mode == "task" else None
    if args.only:
        run(args.only == "tdam", workload, cluster, interval, args.seed, "--contention tdam" if args.only == "tdam"
            else "plain replay")
        return
    plain_runs, tdam_runs, uncached_runs = [], [], []
    for rep in range(args.repeat):  # alternate, so machine-load drift hits both alike
        plain_runs.append(run(False, workload, cluster, interval, args.seed, "plain replay"))
        tdam_runs.append(run(True, workload, cluster, interval, args.seed, "--contention tdam",
                             args.profile and rep == 0))
        if args.no_cache_run and rep == 0:  # slow: once is enough
            uncached_runs.append(run(True, workload, cluster, interval, args.seed,
                                     "tdam, mix cache off", cache_mixes=False))
            assert uncached_runs[0][2].equals(tdam_runs[0][2]), "the mix cache changed the results"
            print(f"{'':<22} identical task tables with and without the mix cache")
    pw, pc = min(r[0] for r in plain_runs), min(r[1] for r in plain_runs)
    tw, tc = min(r[0] for r in tdam_runs), min(r[1] for r in tdam_runs)
    print(f"best of {args.repeat}: plain {pw:.3f} s wall / {pc:.3f} s CPU, tdam {tw:.3f} s wall / {tc:.3f} s CPU")
    if uncached_runs:
        uw, uc = uncached_runs[0][:2]
        print(f"ratio tdam/plain without the mix cache = {uw / pw:.2f}x wall, {uc / pc:.2f}x CPU")
    print(f"ratio tdam/plain = {tw / pw:.2f}x wall, {tc / pc:.2f}x CPU (target <= 3x)")

if __name__ == "__main__":
    main()
