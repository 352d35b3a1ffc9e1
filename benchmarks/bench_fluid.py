"""Fluid-model speed on the SWIM samples, and the ratio against the naive O(n)-per-event reference.

Usage: python3 benchmarks/bench_fluid.py [--data DIR] [--repeat 3] [--sigma 0.5] [--seed 0] [--naive-loads 0.9 2.0]

For every SWIM sample and every discipline it prints the event count, the best-of-``repeat`` wall time of
:func:`mrsim.studies.fluid.simulate` (workload parsing excluded) and events per second. Then, on FB-2010, it runs PS,
FSP+FIFO and FSP+PS in both the fast (virtual-time, O(log n) per event) and the naive (:mod:`mrsim.studies.fluid.naive`,
O(n) per event) versions at each ``--naive-loads`` load, checks they agree, and prints the speed ratio. Event
counts are asserted, so skipping work cannot pass as a speed-up. ``run_fluid`` end to end (parsing and the JSON
contract included) is timed on FB-2009 0 against ``simulate`` alone; ``tests/studies/fluid/test_run.py`` checks only its
event counts. Peak RSS is printed last.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

from mrsim.studies.fluid import FluidPolicy, FluidWorkload, estimate_sizes, run_fluid, simulate
from mrsim.studies.fluid.naive import naive_simulate

FILES = ("FB-2009_samples_24_times_1hr_0.tsv", "FB-2009_samples_24_times_1hr_1.tsv",
         "FB-2010_samples_24_times_1hr_0.tsv")


def _check_events(policy: FluidPolicy, n: int, events: int) -> None:
    if policy in (FluidPolicy.FIFO, FluidPolicy.PS, FluidPolicy.SRPT):
        assert events == 2 * n, (policy, events)
    elif policy is FluidPolicy.LAS:
        assert 2 * n <= events <= 3 * n, (policy, events)  # arrivals, completions, at most n level merges
    else:
        assert 2 * n < events <= 3 * n, (policy, events)  # plus virtual finishes before the last completion


def _best(fn, repeat: int):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


#: The SWIM samples: ``$MRSIM_SHARED_DATA/swim``, else ``../shared/data/swim`` beside the repository.
DEFAULT_SWIM = Path(os.environ.get("MRSIM_SHARED_DATA",
                                   Path(__file__).resolve().parents[2] / "shared" / "data")) / "swim"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_SWIM,
                    help="directory of SWIM .tsv files (default: $MRSIM_SHARED_DATA/swim, else ../shared/data/swim)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sigma", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--naive-loads", type=float, nargs="*", default=[0.9, 2.0])
    args = ap.parse_args(argv)

    print(f"fluid model, sigma={args.sigma}, seed={args.seed}, load 0.9, d/n 4, best of {args.repeat}")
    print(f"{'trace':<36} {'scheduler':<9} {'jobs':>6} {'events':>7} {'wall_ms':>8} {'events/s':>10}")
    for name in FILES:
        w = FluidWorkload.from_swim(args.data / name)
        est = estimate_sizes(w.size_s, args.sigma, args.seed)
        for policy in FluidPolicy:
            wall, out = _best(lambda: simulate(w, policy, est), args.repeat)
            _check_events(policy, len(w), out.events)
            print(f"{name:<36} {policy.value:<9} {len(w):>6} {out.events:>7} {wall * 1e3:>8.1f} "
                  f"{out.events / wall:>10.0f}")

    print()
    print(f"end to end on {FILES[0]}: run_fluid (parse + simulate + JSON), sigma=0, vs simulate alone")
    print(f"{'scheduler':<9} {'events':>7} {'run_fluid_ms':>12} {'simulate_ms':>11} {'ratio':>6}")
    w = FluidWorkload.from_swim(args.data / FILES[0])
    for policy in FluidPolicy:
        e2e_wall, out = _best(lambda: run_fluid(args.data / FILES[0], policy.value, sigma=0.0, seed=0), args.repeat)
        sim_wall, sim = _best(lambda: simulate(w, policy), args.repeat)
        assert out["summary"]["events"] == sim.events, (policy, out["summary"]["events"], sim.events)
        _check_events(policy, len(w), sim.events)
        print(f"{policy.value:<9} {sim.events:>7} {e2e_wall * 1e3:>12.1f} {sim_wall * 1e3:>11.1f} "
              f"{e2e_wall / sim_wall:>6.1f}")

    print()
    print(f"fast vs naive O(n)-per-event reference on {FILES[2]} (sigma={args.sigma})")
    print(f"{'load':>5} {'scheduler':<9} {'events':>7} {'fast_ms':>8} {'naive_ms':>9} {'ratio':>6} {'max|dt|_s':>10}")
    for load in args.naive_loads:
        w = FluidWorkload.from_swim(args.data / FILES[2], load=load)
        est = estimate_sizes(w.size_s, args.sigma, args.seed)
        sub, size, est_l = w.submit_s.tolist(), w.size_s.tolist(), est.tolist()
        for policy in (FluidPolicy.PS, FluidPolicy.FSP_FIFO, FluidPolicy.FSP_PS):
            fast_wall, fast = _best(lambda: simulate(w, policy, est), args.repeat)
            naive_wall, naive = _best(lambda: naive_simulate(sub, size, est_l, policy), 1)
            assert fast.events == naive.events, (policy, fast.events, naive.events)
            diff = max(abs(a - b) for a, b in zip(fast.finish_s, naive.finish_s))
            print(f"{load:>5.2f} {policy.value:<9} {fast.events:>7} {fast_wall * 1e3:>8.1f} {naive_wall * 1e3:>9.1f} "
                  f"{naive_wall / fast_wall:>6.1f} {diff:>10.2e}")
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\npeak RSS {rss_kb / 1024:.0f} MB; python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
