"""What the Capacity Scheduler's preemption monitor costs a YARN replay (``docs/yarn.md``, "Performance").

    python3 benchmarks/bench_yarn_preemption.py [--jobs 1148] [--repeat 3] [--out benchmarks/results/yarn_preemption.json]

``bench_yarn.py``'s workload (back-to-back arrivals, 64 NodeManagers of 3072 MB, 1 GB containers) under Capacity,
each configuration with the monitor off and on (Hadoop's default knobs), runs interleaved; CPU seconds (the
minimum of the runs) and the ratio on/off in the same process:

* ``one queue``: Capacity's default tree; the monitor runs every 3 s and never finds a queue to take from (its
  cost alone: the snapshot and the ideal assignment per run);
* ``two queues``: the jobs alternate between ``a`` and ``b`` (50 % each, ``a`` may grow to 100 %): the monitor
  marks and kills, and the killed tasks run again.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrsim import compiled_core  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.templates import Workload  # noqa: E402
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload  # noqa: E402
from mrsim.tracker.yarn import YarnConf, create_yarn_scheduler, replay_yarn  # noqa: E402

P = "yarn.scheduler.capacity."
TWO = {P + "root.queues": "a,b", P + "root.a.capacity": "50", P + "root.b.capacity": "50",
       P + "root.a.maximum-capacity": "100", P + "root.a.user-limit-factor": "2"}
ON = {"yarn.resourcemanager.scheduler.monitor.enable": "true"}


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=1148)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="benchmarks/results/yarn_preemption.json")
    args = ap.parse_args()
    base = facebook_like_workload(FacebookLikeSpec(jobs=args.jobs, seed=args.seed, mean_interarrival_s=0.0))
    split = Workload.of([dataclasses.replace(t, queue="b" if k % 2 else "a") for k, t in enumerate(base.jobs)],
                        source=base.source)
    cluster = uniform_cluster(64, 1, 1, cores=4)
    conf = YarnConf(nm_memory_mb=3072.0, nm_vcores=3.0, am_mb=1024.0)
    cases = {"one queue": (base, {}), "two queues": (split, TWO)}
    print(f"workload: {len(base)} jobs, {base.n_tasks:,} tasks; {compiled_core.describe()}")
    times: dict[str, list[float]] = {}
    facts: dict[str, dict] = {}
    for _ in range(max(1, args.repeat)):
        for name, (workload, queues) in cases.items():
            for monitor in ("off", "on"):
                config = {**queues, **(ON if monitor == "on" else {})}
                started = time.process_time()
                result = replay_yarn(workload, cluster, conf, create_yarn_scheduler("capacity", config),
                                     seed=args.seed)
                cpu = time.process_time() - started
                key = f"{name}, monitor {monitor}"
                times.setdefault(key, []).append(cpu)
                facts[key] = {"containers_preempted": result.summary["yarn"].get("containers_preempted", 0),
                              "events": result.summary["events"],
                              "mean_completion_s": result.summary["mean_completion_s"]}
                print(f"{key}: {cpu:.2f} s CPU, {facts[key]}", flush=True)
    doc = {"jobs": len(base), "build": compiled_core.engine_build(), "repeat": args.repeat, "runs": {}}
    for name in cases:
        off, on = min(times[f"{name}, monitor off"]), min(times[f"{name}, monitor on"])
        print(f"{name}: off {off:.2f} s, on {on:.2f} s: {on / off:.2f}x")
        doc["runs"][name] = {"off_cpu_s": round(off, 3), "on_cpu_s": round(on, 3), "ratio": round(on / off, 3),
                             "off": facts[f"{name}, monitor off"], "on": facts[f"{name}, monitor on"]}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
