"""Fair and Capacity schedulers on the Facebook-like synthetic workload: speed, events, and a parked-vs-naive check.

Usage (from the repository root)::

    python3 benchmarks/bench_schedulers_fc.py            # 200 jobs on 100 nodes (about a minute)
    python3 benchmarks/bench_schedulers_fc.py --jobs 50  # quicker

Runs FIFO (baseline), Fair with one pool per user (10 pools), Fair with an allocation file (three pools by queue
with min shares, weights, a capped pool and preemption) and Capacity with three queues, all on the same workload
(``mrsim.profiler.synth.facebook_like_workload``; queues assigned round-robin by user). Prints events, heartbeats, timer
events, wall time, events/s and the ratio to FIFO's wall time. Every run asserts its event count: events = job
arrivals + task completions (killed attempts included, their events are popped as tombstones) + heartbeats +
scheduler timer events, so skipping work cannot pass as a speed-up. A smaller workload is also replayed with
naive heartbeats to show that parked heartbeats give identical results with fewer events.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from mrsim.tracker.replay import ReplayOptions, ReplayResult, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload

ALLOC = """<allocations>
  <pool name="default"><minMaps>40</minMaps><minReduces>10</minReduces><weight>2</weight>
    <minSharePreemptionTimeout>60</minSharePreemptionTimeout></pool>
  <pool name="a"><maxMaps>80</maxMaps><schedulingMode>fifo</schedulingMode></pool>
  <pool name="b"><minMaps>20</minMaps><maxRunningJobs>5</maxRunningJobs></pool>
  <fairSharePreemptionTimeout>300</fairSharePreemptionTimeout>
</allocations>"""
Q = "mapred.capacity-scheduler.queue."
CAPACITY = {"mapred.queue.names": "default,a,b", Q + "default.capacity": 50, Q + "a.capacity": 30,
            Q + "b.capacity": 20, Q + "a.user-limit-factor": 2, Q + "b.maximum-capacity": 40,
            Q + "default.minimum-user-limit-percent": 25}


def workload(jobs: int, seed: int) -> Workload:
    w = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=seed))
    queues = ("default", "a", "b")
    return Workload.of([j.with_changes(queue=queues[int(j.user[4:]) % 3]) for j in w.jobs], source=w.source)


def check_events(r: ReplayResult, w: Workload) -> None:
    s = r.summary
    timers = r.spec["scheduler"].get("timer_events", 0)
    expected = len(w) + w.n_tasks + s["killed_tasks"] + s["heartbeats"] + timers
    assert s["events"] == expected, f"{r.scheduler}: {s['events']} events, expected {expected}"


def main() -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=200)
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    w = workload(args.jobs, args.seed)
    cluster = uniform_cluster(args.nodes, 2, 2)
    conf = HadoopConf()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "alloc.xml").write_text(ALLOC)
    runs = [
        ("fifo", "fifo", {}),
        ("fair (pool per user)", "fair", {}),
        ("fair (3 pools, preemption)", "fair", {"config_file": str(tmp / "alloc.xml"),
                                                "mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name",
                                                "mapred.fairscheduler.preemption": True}),
        ("capacity (3 queues)", "capacity", CAPACITY),
    ]
    print(f"workload: {w.source}, {len(w)} jobs, {w.n_tasks:,} tasks; cluster {args.nodes} nodes x (2 map, 2 reduce)")
    print(f"{'scheduler':<28} {'events':>9} {'heartbeats':>10} {'timers':>7} {'killed':>6} {'wall s':>7} "
          f"{'events/s':>9} {'x fifo':>6} {'mean completion s':>18}")
    base = None
    for label, name, cfg in runs:
        started = time.perf_counter()
        r = replay(w, cluster, conf, create_scheduler(name, cfg), ReplayOptions(seed=args.seed))
        wall = time.perf_counter() - started
        check_events(r, w)
        base = base or wall
        s = r.summary
        print(f"{label:<28} {s['events']:>9,} {s['heartbeats']:>10,} {r.spec['scheduler'].get('timer_events', 0):>7,} "
              f"{s['killed_tasks']:>6} {wall:>7.2f} {s['events'] / wall:>9,.0f} {wall / base:>6.2f} "
              f"{s['mean_completion_s']:>18,.1f}")
    small = workload(max(10, args.jobs // 4), args.seed)
    for label, name, cfg in runs[1:]:
        fast = replay(small, cluster, conf, create_scheduler(name, cfg), ReplayOptions(seed=args.seed))
        naive = replay(small, cluster, conf, create_scheduler(name, cfg),
                       ReplayOptions(seed=args.seed, naive_heartbeats=True))
        assert fast.tasks.equals(naive.tasks) and fast.jobs.equals(naive.jobs), f"{label}: parked != naive"
        check_events(fast, small)
        print(f"parked == naive, {label:<28} {len(small)} jobs: {fast.summary['events']:,} vs "
              f"{naive.summary['events']:,} events ({naive.summary['events'] / fast.summary['events']:.1f}x)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
