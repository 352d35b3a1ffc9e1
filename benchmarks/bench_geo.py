"""Benchmark of the geo-distributed federation simulator (mrsim.studies.geo). Prints figures; not a test.

For each policy on fixed synthetic workloads: simulated events, wall and CPU time, events per CPU second,
controller CPU time per decision (mean and p99), mean jobs per decision, and peak RSS. CPU time is reported
because the machine is shared: wall time there measures the neighbours as much as the code. Each case asserts its event count (every task finish and every arrival is one
event), so skipping work cannot pass as a speed-up.

    python3 benchmarks/bench_geo.py            # default cases
    python3 benchmarks/bench_geo.py --quick    # small cases, seconds
"""

from __future__ import annotations

import argparse
import resource
import time

from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.simulator import simulate
from mrsim.studies.geo.workloads import Scenario, TraceType, synthesize

CASES = {
    "facebook-0.9": Scenario(trace=TraceType.FACEBOOK, utilization=0.9, n_jobs=2000, seed=1),
    "google-0.9": Scenario(trace=TraceType.GOOGLE, utilization=0.9, n_jobs=5000, seed=1),
    "exponential-0.9": Scenario(trace=TraceType.EXPONENTIAL, utilization=0.9, n_jobs=800, seed=1),
}
QUICK = {
    "exponential-0.8-small": Scenario(trace=TraceType.EXPONENTIAL, utilization=0.8, n_jobs=100, n_datacenters=10, seed=1),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    cases = QUICK if args.quick else CASES
    print(f"{'case':22s} {'policy':14s} {'events':>9s} {'wall s':>7s} {'cpu s':>6s} {'ev/cpu-s':>9s} "
          f"{'decisions':>9s} {'ms/dec':>7s} {'p99 ms':>7s} {'jobs/dec':>8s}")
    for name, sc in cases.items():
        w = synthesize(sc)
        expected_events = w.n_tasks + len(w)
        for p in Policy:
            t0, c0 = time.perf_counter(), time.process_time()
            r = simulate(w, p)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            assert r.n_events == expected_events, (r.n_events, expected_events)
            ms = r.decision_ns / 1e6
            p99 = sorted(ms)[int(0.99 * (len(ms) - 1))]
            print(f"{name:22s} {p.value:14s} {r.n_events:9d} {wall:7.2f} {cpu:6.2f} {r.n_events / cpu:9.0f} "
                  f"{len(ms):9d} {ms.mean():7.3f} {p99:7.2f} {r.decision_jobs.mean():8.1f}")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss_mb:.0f} MB")


if __name__ == "__main__":
    main()
