"""``mrsim lotes``: LoTES vs greedy on multi-resource heterogeneous clusters (Tran & Beck).

Subcommands: ``plan`` (stages 1-2: allocation LP, bins, machine-assignment LP), ``run`` (one experiment point,
optionally replicated) and ``sweep`` (policies x machine fractions x loads, with plots). The system is Table 1's
cluster and Table 3's classes; ``--machines-per-config`` scales the cluster down for quick looks.
"""

from __future__ import annotations

from mrsim.cli.flags import add_renamed

import argparse
import sys
from typing import Any

import orjson

from mrsim.errors import InputError, UsageError
from mrsim.io import atomic_write

NAME = "lotes"
HELP = "simulate LoTES and greedy dispatch on a multi-resource data centre (Tran & Beck)"
DESCRIPTION = (
    "LoTES (allocation LP, bin generation, machine-assignment LP, two-level dispatcher) against the greedy "
    "shortest-queue baseline on Table 1's 10,000 machines and Table 3's job classes. Times are in hours."
)


def _floats(text: str) -> list[float]:
    try:
        vals = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"expected comma-separated numbers, got {text!r}") from None
    if not vals:
        raise InputError(f"expected at least one number, got {text!r}")
    return vals


def _policies(text: str) -> list[Any]:
    from mrsim.studies.lotes.policies import Policy

    out = []
    for name in text.split(","):
        try:
            out.append(Policy(name.strip().lower()))
        except ValueError:
            raise UsageError(f"unknown policy {name!r}; choose from lotes, greedy") from None
    return out


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--machines-per-config", type=int, default=None, metavar="N",
                   help="machines per configuration (default: Table 1's 1000)")
    p.add_argument("--mapreduce", action="store_true",
                   help="jobs of 200 maps + 100 reduces (section 7) instead of single tasks")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _sim(p: argparse.ArgumentParser) -> None:
    p.add_argument("--horizon", type=float, default=200.0, help="simulated hours (default 200)")
    p.add_argument("--warmup", type=float, default=None, help="hours not measured (default: half the horizon)")
    p.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    p.add_argument("--replications", type=int, default=1, help="independent replications (default 1)")
    p.add_argument("--samples", type=int, default=200, help="time-series samples per run (default 200)")
    add_renamed(p, ("-o", "--out"), ("--output",), "output", metavar="FILE.json",
                help="also write the JSON result to this file")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="lotes_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("plan", help="solve LoTES stages 1-2 and show lambda*, bins and machine assignment")
    p.add_argument("--machines-fraction", type=float, default=1.0, help="fraction of machines switched on")
    _common(p)
    p.set_defaults(_lotes=_run_plan)

    p = sub.add_parser("run", help="simulate one policy at one load")
    add_renamed(p, ("--scheduler",), ("--policy",), "policy", choices=["lotes", "greedy"], default="lotes",
                help="dispatcher")
    p.add_argument("--load", type=float, default=0.9, help="arrival rate as a fraction of lambda* (default 0.9)")
    p.add_argument("--machines-fraction", type=float, default=1.0,
                   help="fraction of each configuration's machines switched on (load stays relative to all)")
    p.add_argument("--plot", metavar="FILE.png", help="plot jobs in system over time")
    _sim(p)
    _common(p)
    p.set_defaults(_lotes=_run_run)

    p = sub.add_parser("sweep", help="simulate policies x machine fractions x loads")
    p.add_argument("--policies", default="lotes,greedy", help="comma-separated (default lotes,greedy)")
    p.add_argument("--loads", default="0.5,0.6,0.7,0.8,0.85,0.9,0.95", help="comma-separated fractions of lambda*")
    p.add_argument("--machines-fractions", default="1", help="comma-separated, e.g. 1,0.95,0.9 (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--plot", metavar="FILE.png", help="plot waiting time and flow/F against load")
    p.add_argument("--plot-system", metavar="FILE.png", help="plot jobs in system over time for every point")
    p.add_argument("--plot-flow", metavar="FILE.png", help="bar chart of flow time / F for every point")
    _sim(p)
    _common(p)
    p.set_defaults(_lotes=_run_sweep)


def run(args: argparse.Namespace) -> int:
    return int(args._lotes(args) or 0)


def _progress(msg: str) -> None:
    if sys.stderr.isatty():
        print(msg, file=sys.stderr, flush=True)


def _emit(obj: dict[str, Any], args: argparse.Namespace) -> None:
    data = orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY)
    if getattr(args, "output", None):
        with atomic_write(args.output, "wb") as fh:
            fh.write(data + b"\n")
    if args.json:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.flush()


def _spec(args: argparse.Namespace, **over: Any):
    from mrsim.studies.lotes.experiment import RunSpec
    from mrsim.studies.lotes.policies import Policy

    kw = dict(
        horizon=args.horizon,
        warmup=args.warmup,
        seed=args.seed,
        replications=args.replications,
        machines_per_config=args.machines_per_config,
        mapreduce=args.mapreduce,
        samples=args.samples,
    )
    if hasattr(args, "policy"):
        kw.update(policy=Policy(args.policy), load=args.load, machines_fraction=args.machines_fraction)
    kw.update(over)
    return RunSpec(**kw)


def _run_plan(args: argparse.Namespace) -> int:
    from mrsim.studies.lotes.allocation import solve_allocation
    from mrsim.studies.lotes.assignment import build_plan
    from mrsim.studies.lotes.experiment import RunSpec, System

    spec = RunSpec(machines_per_config=args.machines_per_config, mapreduce=args.mapreduce,
                   machines_fraction=args.machines_fraction)
    full, active, workload = System().resolve(spec)
    lam_full = solve_allocation(full, workload).lam
    plan = build_plan(active, workload)
    classes = [c.name for c in workload.classes]
    configs = []
    for j, cfg in enumerate(active.configs):
        configs.append({
            "config": cfg.name,
            "machines": cfg.count,
            "classes_from_lp": [classes[k] for k in plan.allocation.classes_of[j]],
            "bins_generated": len(plan.bins[j]),
            "bins_used": [
                {"tasks": {classes[k]: n for k, n in enumerate(plan.bins[j][i]) if n}, "machines": m}
                for i, m in enumerate(plan.machines_per_bin[j]) if m
            ],
            "rho": {classes[k]: plan.rho[j][k] for k in range(len(classes)) if plan.rho[j][k] > 0},
        })
    obj = {
        "lambda_star_full_cluster": lam_full,
        "lambda_allocation": plan.lam_allocation,
        "lambda_assignment": plan.lam_assignment,
        "lambda_rounded": plan.lam_rounded,
        "units": "jobs per hour",
        "configs": configs,
    }
    _emit(obj, args)
    if not args.json:
        print(f"lambda* (allocation LP, all machines): {lam_full:,.1f} jobs/h")
        if args.machines_fraction < 1:
            print(f"allocation LP on the {args.machines_fraction:.0%} of machines on: {plan.lam_allocation:,.1f} jobs/h")
        print(f"machine-assignment LP: {plan.lam_assignment:,.1f} jobs/h; "
              f"rounded to whole machines: {plan.lam_rounded:,.1f} jobs/h")
        print(f"{'config':<12} {'machines':>8} {'LP classes':<20} {'bins':>6}  bins in use (class:count) x machines")
        for c in configs:
            used = "; ".join(
                " ".join(f"{k.split(':')[0]}:{n}" for k, n in b["tasks"].items()) + f" x{b['machines']}"
                for b in c["bins_used"]
            )
            ks = ",".join(k.split(":")[0] for k in c["classes_from_lp"])
            print(f"{c['config']:<12} {c['machines']:>8} {ks:<20} {c['bins_generated']:>6}  {used}")
    return 0


def _fmt_h(x: float) -> str:
    if x != x:
        return "nan"
    return f"{x:.4g} h" if x >= 0.01 else f"{x * 3600:.3g} s"


def _point_rows(points: list[dict[str, Any]]) -> None:
    head = (f"{'policy':<7} {'frac':>5} {'load':>5} {'jobs/h':>9} {'mean wait':>11} {'median wait':>11} "
            f"{'flow/F':>7} {'in system':>10} {'steady':>7} {'wall s':>8}")
    print(head)
    for p in points:
        s, a = p["spec"], p["over_replications"]
        print(
            f"{s['policy']:<7} {s['machines_fraction']:>5.2f} {s['load']:>5.2f} {p['rate']:>9.1f} "
            f"{_fmt_h(a['wait_mean_h']['mean']):>11} {_fmt_h(a['wait_median_h']['mean']):>11} "
            f"{a['flow_over_F']['mean']:>7.3f} {a['jobs_in_system_mean']['mean']:>10.0f} "
            f"{p['steady_replications']:>3}/{len(p['replications']):<3} {a['wall_s']['mean']:>8.1f}"
        )
    unsteady = [p for p in points if p["steady_replications"] < len(p["replications"])]
    for p in unsteady:
        reasons = {r["steady_reason"] for r in p["replications"] if not r["steady"]}
        print(f"warning: {p['spec']['policy']} at load {p['spec']['load']:g} "
              f"(fraction {p['spec']['machines_fraction']:g}) ended before steady state: {'; '.join(sorted(reasons))}; "
              f"its waiting times are lower bounds")


def _run_run(args: argparse.Namespace) -> int:
    from mrsim.studies.lotes.experiment import run_point
    from mrsim.studies.lotes.plots import plot_jobs_in_system

    spec = _spec(args)
    point = run_point(spec, progress=_progress)
    _emit(point, args)
    if args.plot:
        plot_jobs_in_system([point], args.plot)
    if not args.json:
        _point_rows([point])
        r0 = point["replications"][0]
        print(f"lambda* {point['lambda_star']:,.1f} jobs/h; F = {r0['flow_lower_bound_h']:.4g} h; "
              f"events {sum(r['events'] for r in point['replications']):,}; "
              f"{statistics_line(point)}")
    return 0


def statistics_line(point: dict[str, Any]) -> str:
    reps = point["replications"]
    cpu = sum(r["cpu_s"] for r in reps)
    eps = sum(r["events"] for r in reps) / max(cpu, 1e-9)
    util = reps[0]["utilisation"]
    u = ", ".join(f"{k} {v:.1%}" for k, v in util.items())
    return f"{cpu:.1f} CPU s ({eps:,.0f} events per CPU s); utilisation after warm-up: {u}"


def _run_sweep(args: argparse.Namespace) -> int:
    from mrsim.studies.lotes.experiment import sweep, sweep_specs
    from mrsim.studies.lotes.plots import plot_flow_ratio, plot_jobs_in_system, plot_wait_vs_load

    if args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    base = _spec(args)
    specs = sweep_specs(base, _policies(args.policies), _floats(args.loads), _floats(args.machines_fractions))
    points = sweep(specs, jobs=args.jobs, progress=_progress)
    obj = {"points": points}
    _emit(obj, args)
    if args.plot:
        plot_wait_vs_load(points, args.plot)
    if args.plot_system:
        plot_jobs_in_system(points, args.plot_system)
    if args.plot_flow:
        plot_flow_ratio(points, args.plot_flow)
    if not args.json:
        _point_rows(points)
    return 0
