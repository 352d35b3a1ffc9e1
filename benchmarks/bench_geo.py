"""Benchmark of the geo study (``mrsim geo``): the engine form against the test oracle, in one run. Not a test.

``mrsim geo`` runs the paper's push model on the engine (``mrsim/studies/geo/run.py``: the JobTracker in task
mode with the federation feature and the geo controller); ``tests/oracles/geo_simulator.py`` is the same model
written directly on the kernel. For each case and policy, both run on the same workload (engine inputs built once
per case, outside the timing, as ``mrsim geo`` does per scenario): CPU seconds of each, their ratio, the model's
events (every task finish and every arrival; asserted equal, and the finish times asserted identical, so skipping
work cannot pass as a speed-up), the engine's kernel events, and controller decisions. CPU time is reported
because the machine is shared: wall time there measures the neighbours as much as the code. Min of ``--repeat``.

    python3 benchmarks/bench_geo.py            # the paper-sized cases (a few minutes)
    python3 benchmarks/bench_geo.py --quick    # 100 exponential jobs on 10 datacenters, seconds
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.oracles

from mrsim.studies.geo.policies import Policy  # noqa: E402
from mrsim.studies.geo.run import prepare, simulate  # noqa: E402
from mrsim.studies.geo.workloads import Scenario, TraceType, synthesize  # noqa: E402
from tests.oracles.geo_simulator import simulate as oracle_simulate  # noqa: E402

CASES = {
    "facebook-0.9": Scenario(trace=TraceType.FACEBOOK, utilization=0.9, n_jobs=2000, seed=1),
    "google-0.9": Scenario(trace=TraceType.GOOGLE, utilization=0.9, n_jobs=5000, seed=1),
    "exponential-0.9": Scenario(trace=TraceType.EXPONENTIAL, utilization=0.9, n_jobs=800, seed=1),
}
QUICK = {
    "exponential-0.8-small": Scenario(trace=TraceType.EXPONENTIAL, utilization=0.8, n_jobs=100, n_datacenters=10, seed=1),
}


def cpu(fn):  # type: ignore[no-untyped-def]
    c0 = time.process_time()
    out = fn()
    return time.process_time() - c0, out


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="runs per case and form; the minimum is printed")
    ap.add_argument("--policies", default=",".join(p.value for p in Policy), help="comma list (default all)")
    args = ap.parse_args()
    cases = QUICK if args.quick else CASES
    policies = [Policy.parse(p) for p in args.policies.split(",") if p.strip()]
    print(f"{'case':22s} {'policy':14s} {'model ev':>9s} {'engine ev':>9s} {'oracle s':>8s} {'engine s':>8s} "
          f"{'ratio':>6s} {'us/ev eng':>9s} {'decisions':>9s}")
    totals = [0.0, 0.0]
    for name, sc in cases.items():
        w = synthesize(sc)
        inputs = prepare(w)
        expected_events = w.n_tasks + len(w)
        for p in policies:
            t_oracle = t_engine = float("inf")
            for _ in range(args.repeat):
                t, ref = cpu(lambda: oracle_simulate(w, p))
                t_oracle = min(t_oracle, t)
                t, res = cpu(lambda: simulate(w, p, inputs=inputs))
                t_engine = min(t_engine, t)
            assert ref.n_events == res.n_events == expected_events, (ref.n_events, res.n_events, expected_events)
            assert np.array_equal(ref.finish_s, res.finish_s), "the engine form left the oracle"
            totals[0] += t_oracle
            totals[1] += t_engine
            print(f"{name:22s} {p.value:14s} {res.n_events:9d} {res.engine_events:9d} {t_oracle:8.2f} {t_engine:8.2f} "
                  f"{t_engine / t_oracle:6.2f} {1e6 * t_engine / res.n_events:9.2f} {res.decision_at_s.size:9d}")
    print(f"total CPU s: oracle {totals[0]:.2f}, engine {totals[1]:.2f} (ratio {totals[1] / totals[0]:.2f})")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss_mb:.0f} MB")


if __name__ == "__main__":
    main()
