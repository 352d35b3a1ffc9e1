"""LoTES vs greedy on Tran & Beck's data centre: speed figures and the experiments reported in docs/lotes.md.

Usage (from the repository root)::

    python3 benchmarks/bench_lotes.py speed                      # ~1-2 min: events/s at 10,000 machines
    python3 benchmarks/bench_lotes.py sweep --jobs 2 --out DIR   # loads 0.5-0.95, both policies, 200 h each
    python3 benchmarks/bench_lotes.py machines-off --out DIR     # load 0.8, 100/95/90 % of machines, both policies
    python3 benchmarks/bench_lotes.py mapreduce --out DIR        # section 7: 200 maps + 100 reduces per job
    python3 benchmarks/bench_lotes.py backlog                    # cost per event as the backlog grows
    python3 benchmarks/bench_lotes.py oracle                     # the engine against the standalone oracle
    python3 benchmarks/bench_lotes.py replot --out DIR           # redraw figures from the JSON in DIR

Each mode prints a table and, with ``--out``, writes the JSON results and PNG figures there. Every run asserts
its event count: events must equal job arrivals plus task completions, and the arrivals must equal those of an
independent replay of the arrival stream, so that skipping work cannot pass as a speed-up.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path

import orjson

from mrsim.io import atomic_write
from mrsim.studies.lotes.experiment import RunSpec, System, replication_seed, sweep, sweep_specs
from mrsim.studies.lotes.policies import Policy
from mrsim.studies.lotes.workload import JobSource


def _check_events(point: dict) -> None:
    spec = point["spec"]
    system = System()
    _, active, workload = system.resolve(RunSpec(**{**spec, "policy": Policy(spec["policy"]), "warmup": spec["warmup"]}))
    for r in point["replications"]:
        completions = r["tasks_released"] - r["tasks_running_end"] - r["tasks_queued_end"]
        assert r["events"] == r["jobs_arrived"] + completions, "event count does not add up"
        src = JobSource(workload, active, point["rate"], replication_seed(spec["seed"], r["replication"]))
        n = 0
        while src.next_job()[0] <= spec["horizon"]:
            n += 1
        assert n == r["jobs_arrived"], f"simulator saw {r['jobs_arrived']} arrivals, the stream has {n}"


def _table(points: list[dict]) -> None:
    print(f"{'policy':<7} {'frac':>5} {'load':>5} {'jobs/h':>8} {'mean wait':>12} {'median wait':>12} {'flow/F':>7} "
          f"{'in system':>10} {'steady':>7} {'events':>11} {'wall s':>7} {'cpu s':>7} {'ev/cpu s':>9}")
    for p in points:
        s, a = p["spec"], p["over_replications"]
        reps = p["replications"]
        ev = sum(r["events"] for r in reps)
        wall = sum(r["wall_s"] for r in reps)
        cpu = sum(r.get("cpu_s", math.nan) for r in reps)
        wait = a["wait_mean_h"]["mean"]
        med = a["wait_median_h"]["mean"]
        print(f"{s['policy']:<7} {s['machines_fraction']:>5.2f} {s['load']:>5.2f} {p['rate']:>8.0f} "
              f"{wait:>10.4g} h {med:>10.4g} h {a['flow_over_F']['mean']:>7.3f} {a['jobs_in_system_mean']['mean']:>10.0f} "
              f"{p['steady_replications']:>3}/{len(reps):<3} {ev:>11,} {wall:>7.1f} {cpu:>7.1f} {ev / cpu:>9,.0f}")
        for r in reps:
            if not r["steady"]:
                print(f"        not steady (rep {r['replication']}): {r['steady_reason']}; "
                      f"{r['tasks_queued_end']:,} tasks queued at the end")


#: The load whose jobs-in-system curves are drawn (the paper's Figure 3 uses 0.9).
SYSTEM_PLOT_LOAD = 0.9


def _figures(points: list[dict], d: Path, name: str, plots: list[str]) -> None:
    from mrsim.studies.lotes import plots as P

    for kind in plots:
        pts = points
        if kind == "jobs_in_system" and any(p["spec"]["load"] == SYSTEM_PLOT_LOAD for p in points):
            pts = [p for p in points if p["spec"]["load"] == SYSTEM_PLOT_LOAD]
        getattr(P, f"plot_{kind}")(pts, d / f"{name}_{kind}.png")


PLOTS = {
    "lotes_sweep": ["wait_vs_load", "jobs_in_system"],
    "lotes_machines_off": ["flow_ratio", "jobs_in_system"],
    "lotes_mapreduce": ["wait_vs_load", "jobs_in_system"],
}


def _save(points: list[dict], out: str | None, name: str, plots: list[str]) -> None:
    if not out:
        return
    d = Path(out)
    with atomic_write(d / f"{name}.json", "wb") as fh:
        fh.write(orjson.dumps({"points": points}))
    _figures(points, d, name, plots)
    print(f"wrote {d / (name + '.json')} and {len(plots)} figure(s)")


def _fmt_wait(h: float) -> str:
    if h != h:
        return "nan"
    if h == 0:
        return "0"
    return f"{h * 3600:.3g} s" if h < 0.1 else f"{h:.3g} h"


def _markdown(points: list[dict]) -> None:
    """The table docs/lotes.md shows (mean over replications; wall and CPU seconds summed)."""
    print("| policy | machines on | load | jobs/h | mean wait | median wait | p95 wait | flow/F | jobs in system "
          "| steady | events | wall s | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in points:
        s, a, reps = p["spec"], p["over_replications"], p["replications"]
        cpu = sum(r.get("cpu_s", math.nan) for r in reps)
        st = "yes" if p["steady_replications"] == len(reps) else f"**no** (+{reps[0]['steady_growth']:.0%})"
        rate = f"{p['rate']:,.0f}" if p["rate"] >= 100 else f"{p['rate']:.2f}"
        print(f"| {s['policy']} | {s['machines_fraction']:.0%} | {s['load']:g} | {rate} "
              f"| {_fmt_wait(a['wait_mean_h']['mean'])} | {_fmt_wait(a['wait_median_h']['mean'])} "
              f"| {_fmt_wait(sum(r['wait_p95_h'] for r in reps) / len(reps))} | {a['flow_over_F']['mean']:.3f} "
              f"| {a['jobs_in_system_mean']['mean']:,.0f} | {st} | {sum(r['events'] for r in reps):,} "
              f"| {sum(r['wall_s'] for r in reps):.0f} | {'n/a' if cpu != cpu else f'{cpu:.0f}'} |")


def _replot(out: str | None) -> int:
    if not out:
        print("replot needs --out DIR", file=sys.stderr)
        return 2
    d = Path(out)
    for name, plots in PLOTS.items():
        f = d / f"{name}.json"
        if f.exists():
            points = orjson.loads(f.read_bytes())["points"]
            _table(points)
            _markdown(points)
            _figures(points, d, name, plots)
            print(f"redrew {len(plots)} figure(s) from {f}")
    return 0


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _backlog(a: argparse.Namespace) -> int:
    """Greedy far above capacity: the backlog grows without bound, the marginal CPU cost per event must not.

    Runs with the same seed are prefixes of one another, so the cost of the events between two horizons is the
    difference of the two runs' CPU times.
    """
    from mrsim.studies.lotes.experiment import run_replication

    n = a.machines_per_config or 100
    load = float(a.loads) if a.loads else 1.3
    horizons = [25.0, 50.0, 100.0, 200.0, 400.0]
    prev_ev, prev_cpu = 0, 0.0
    print(f"greedy at load {load:g}, {n} machines per configuration")
    print(f"{'horizon h':>9} {'queued at end':>14} {'events':>11} {'segment us/event':>17}")
    for h in horizons:
        spec = RunSpec(policy=Policy.GREEDY, load=load, horizon=h, warmup=0.0, seed=a.seed, machines_per_config=n)
        r = run_replication(spec, 0)
        seg = (r["cpu_s"] - prev_cpu) / (r["events"] - prev_ev) * 1e6
        print(f"{h:>9g} {r['tasks_queued_end']:>14,} {r['events']:>11,} {seg:>17.2f}")
        prev_ev, prev_cpu = r["events"], r["cpu_s"]
    return 0


def _oracle(a: argparse.Namespace) -> int:
    """``mrsim lotes`` runs on the JobTracker engine (``mrsim/studies/lotes/engine.py``); the standalone
    simulator it replaced is the test oracle (``tests/oracles/lotes_engine.py``). Both run the same replications in
    this process, alternately (min CPU seconds of ``--replications`` tries each); every figure must be identical."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.oracles
    from mrsim.studies.lotes.engine import simulate
    from mrsim.studies.lotes.experiment import lam_star, plan_for
    from tests.oracles.lotes_engine import simulate as oracle

    n = a.machines_per_config  # None: Table 1's 1000 per configuration (10,000 machines)
    horizon = a.horizon or 10.0
    loads = [float(x) for x in a.loads.split(",")] if a.loads else [0.9]
    tries = max(1, a.replications)
    print(f"{'policy':<7} {'shape':<9} {'load':>5} {'events':>10} {'engine ev':>10} {'oracle cpu s':>12} "
          f"{'engine cpu s':>12} {'ratio':>6} {'engine us/event':>15}")
    for mapreduce in (False, True):
        for policy in (Policy.LOTES, Policy.GREEDY):
            for load in loads:
                spec = RunSpec(policy=policy, load=load, horizon=horizon * (3 if mapreduce else 1), seed=a.seed,
                               machines_per_config=n, mapreduce=mapreduce)
                full, active, workload = System().resolve(spec)
                plan = plan_for(active, workload) if policy is Policy.LOTES else None
                kw = dict(rate=load * lam_star(full, workload), horizon=spec.horizon, warmup=spec.effective_warmup,
                          seed=replication_seed(a.seed, 0), plan=plan)
                best = {"oracle": math.inf, "engine": math.inf}
                results = {}
                for _ in range(tries):
                    for name, sim in (("oracle", oracle), ("engine", simulate)):
                        r = sim(active, workload, policy, **kw)
                        best[name] = min(best[name], r.cpu_seconds)
                        results[name] = r
                o, e = results["oracle"], results["engine"]
                same = (o.events, o.waits.total, o.flows.total, o.jobs_in_system, o.tasks_queued_end) == (
                    e.events, e.waits.total, e.flows.total, e.jobs_in_system, e.tasks_queued_end)
                assert same, f"{policy.value} at load {load}: the engine's figures differ from the oracle's"
                print(f"{policy.value:<7} {'mapreduce' if mapreduce else 'single':<9} {load:>5.2f} {e.events:>10,} "
                      f"{e.engine_events:>10,} {best['oracle']:>12.2f} {best['engine']:>12.2f} "
                      f"{best['engine'] / best['oracle']:>6.2f} {best['engine'] / e.events * 1e6:>15.2f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["speed", "sweep", "machines-off", "mapreduce", "backlog", "replot", "oracle"])
    ap.add_argument("--horizon", type=float, default=None, help="simulated hours per run")
    ap.add_argument("--replications", type=int, default=1)
    ap.add_argument("--machines-per-config", type=int, default=None)
    ap.add_argument("--loads", default=None, help="comma-separated loads")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=None, help="directory for JSON and PNG results")
    a = ap.parse_args()
    if a.mode == "replot":
        return _replot(a.out)
    if a.mode == "backlog":
        return _backlog(a)
    if a.mode == "oracle":
        return _oracle(a)
    loads = [float(x) for x in a.loads.split(",")] if a.loads else None
    base = RunSpec(seed=a.seed, replications=a.replications, machines_per_config=a.machines_per_config)
    t0 = time.perf_counter()
    if a.mode == "speed":
        base = replace(base, horizon=a.horizon or 30.0, load=0.9)
        specs = sweep_specs(base, [Policy.LOTES, Policy.GREEDY], loads or [0.9])
        plots: list[str] = []
        name = "lotes_speed"
    elif a.mode == "sweep":
        base = replace(base, horizon=a.horizon or 200.0)
        specs = sweep_specs(base, [Policy.LOTES, Policy.GREEDY], loads or [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95])
        name = "lotes_sweep"
        plots = PLOTS[name]
    elif a.mode == "machines-off":
        base = replace(base, horizon=a.horizon or 200.0)
        specs = sweep_specs(base, [Policy.LOTES, Policy.GREEDY], loads or [0.8], [1.0, 0.95, 0.9])
        name = "lotes_machines_off"
        plots = PLOTS[name]
    else:
        base = replace(base, horizon=a.horizon or 600.0, mapreduce=True)
        specs = sweep_specs(base, [Policy.LOTES, Policy.GREEDY], loads or [0.6, 0.7, 0.8, 0.9])
        name = "lotes_mapreduce"
        plots = PLOTS[name]
    points = sweep(specs, jobs=a.jobs, progress=_progress)
    for p in points:
        _check_events(p)
    _table(points)
    total = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"total wall {total:.1f} s with {a.jobs} process(es); peak RSS {max(rss, kids):.0f} MB; "
          f"cpu {os.cpu_count()} cores; python {sys.version.split()[0]}")
    _save(points, a.out, name, plots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
