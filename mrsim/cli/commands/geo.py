"""``mrsim geo``: geo-distributed job scheduling across a datacenter federation (see docs/geo.md).

Subcommands:

* ``run``: one policy on one workload; prints a table, or one JSON object with ``--json``.
* ``compare``: several policies (and optionally several utilisations) on identical workloads; ``--plot``
  draws mean completion times.
* ``figures``: the paper's figure families into a directory (PNGs, results.json, summary.md).

A workload is synthetic (``--workload facebook|google|exponential`` with utilisation, datacenters, slots, ...),
a job spec file (``--spec FILE``, JSON or TOML) or a trace (``--trace FILE``, Rumen JSON or SWIM) placed on a
uniform federation.
"""

from __future__ import annotations

from mrsim.cli.flags import add_renamed

import argparse
import sys
from typing import Any, Sequence

import orjson

from mrsim.errors import InputError
from mrsim.io import atomic_write
from mrsim.studies.geo.experiments import improvements, run_workload
from mrsim.studies.geo.model import Federation, GeoWorkload
from mrsim.studies.geo.placement import Placement, PlacementKind, from_templates
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.presets import PRESETS, preset as preset_settings
from mrsim.studies.geo.result import SizeMeasure
from mrsim.studies.geo.spec import load_spec
from mrsim.studies.geo.workloads import DurationModel, Scenario, TraceType, synthesize

NAME = "geo"
HELP = "simulate job scheduling across geo-distributed datacenters (FCFS, SRPT, Reordering, SWAG)"
DESCRIPTION = (
    "Federation simulator after Hung, Golubchik and Yu (SoCC'15): a central controller orders jobs on every "
    "arrival and departure; each datacenter runs its sub-jobs' tasks in that order."
)

#: Scenario flags and their defaults; None in the parsed namespace means "not given".
_DEFAULTS: dict[str, Any] = {
    "workload": "facebook",
    "utilization": "0.8",
    "datacenters": 30,
    "slots": 10,
    "jobs": None,
    "placement": "zipf",
    "skew": 1.0,
    "task_duration": 2.0,
    "durations": "exponential",
}
_DEFAULT_JOBS = {TraceType.FACEBOOK: 2000, TraceType.GOOGLE: 5000, TraceType.EXPONENTIAL: 800}


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _add_workload_args(p: argparse.ArgumentParser, *, many_utils: bool) -> None:
    g = p.add_argument_group("workload (synthetic unless --spec or --trace)")
    g.add_argument("--preset", choices=sorted(PRESETS), metavar="NAME",
                   help="the paper's evaluation set-up for one trace (" + ", ".join(sorted(PRESETS)) + "): fills "
                        "every workload flag not given; stderr and --json say which values the paper states")
    g.add_argument("--workload", choices=[t.value for t in TraceType], help="trace type to mimic (default facebook)")
    g.add_argument("--spec", metavar="FILE", help="job spec (JSON or TOML) with datacenters and per-datacenter tasks")
    g.add_argument("--trace", metavar="FILE", help="job trace to place on the federation (see --trace-format)")
    add_renamed(g, ("--format",), ("--trace-format",), "trace_format", choices=["rumen", "swim"], default="rumen",
                help="format of --trace (default rumen)")
    g.add_argument("--include-reduces", action="store_true", help="with --trace: place reduces as extra tasks too")
    g.add_argument(
        "--utilization",
        metavar="U[,U...]" if many_utils else "U",
        help="target utilisation in (0, 1) (default 0.8)" + ("; a comma list sweeps" if many_utils else ""),
    )
    g.add_argument("--datacenters", type=_positive_int, metavar="N", help="number of datacenters (default 30)")
    g.add_argument("--slots", type=_positive_int, metavar="S", help="slots per datacenter (default 10)")
    g.add_argument("--jobs", type=_positive_int, metavar="N", help="jobs to generate (default 2000/5000/800 by workload)")
    g.add_argument("--placement", choices=[k.value for k in PlacementKind], help="task placement (default zipf)")
    g.add_argument("--skew", type=float, metavar="S", help="Zipf placement skew, >= 0 (default 1.0)")
    g.add_argument("--rack-map", metavar="RACK=DC,...", help="with --placement racks: rack to datacenter-name map")
    g.add_argument("--task-duration", type=float, metavar="SEC", help="mean task duration in s (default 2.0)")
    g.add_argument("--durations", choices=[d.value for d in DurationModel], help="task-duration law (default exponential)")
    g.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    g.add_argument("--measure", choices=[m.value for m in SizeMeasure], default="tasks",
                   help="what policies count as remaining size: queued tasks (paper) or task-seconds")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="geo_command", metavar="SUBCOMMAND", parser_class=type(parser))
    sub.required = True

    run = sub.add_parser("run", help="run one policy on one workload", description="Run one policy on one workload.")
    add_renamed(run, ("--scheduler",), ("--policy",), "policy", default="swag", choices=[p.value for p in Policy],
                help="controller policy (default swag)")
    _add_workload_args(run, many_utils=False)
    run.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    run.add_argument("--out", metavar="FILE", help="also write the JSON record (with its full spec) to FILE")
    run.set_defaults(_geo=_cmd_run)

    cmp_ = sub.add_parser("compare", help="compare policies on identical workloads",
                          description="Run several policies on the same workload(s) and compare them.")
    cmp_.add_argument("--policies", default=",".join(p.value for p in Policy), metavar="P[,P...]",
                      help="comma list of policies (default all)")
    _add_workload_args(cmp_, many_utils=True)
    cmp_.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    cmp_.add_argument("--plot", metavar="FILE.png", help="bar chart (one utilisation) or lines (several)")
    cmp_.add_argument("--out", metavar="FILE", help="also write the JSON object to FILE")
    cmp_.set_defaults(_geo=_cmd_compare)

    fig = sub.add_parser("figures", help="reproduce the paper's figure families as PNGs",
                         description="Run the utilisation, datacenter-count and skew sweeps and draw the figures.")
    add_renamed(fig, ("-o", "--out"), ("--output",), "output", required=True, metavar="DIR", help="output directory")
    fig.add_argument("--quick", action="store_true", help="small plan (seconds; noisy numbers)")
    fig.add_argument("--seeds", default="1", metavar="S[,S...]", help="seeds to average over (default 1)")
    fig.add_argument("--jobs-scale", type=float, default=1.0, metavar="X", help="multiply jobs per run by X")
    fig.add_argument("--workers", type=_positive_int, default=1, metavar="N", help="worker processes (default 1)")
    fig.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    fig.add_argument("--engine", choices=["model", "heartbeat"], default="model",
                     help="model: the paper's push model (the engine in task-completion mode, as every mrsim geo "
                          "command; default); heartbeat: the same policies as --scheduler names through mrsim.replay "
                          "on a federated cluster, with heartbeats and in task mode (docs/geo.md)")
    fig.add_argument("--modes", default="heartbeat,task", metavar="M[,M]",
                     help="with --engine heartbeat: engine modes, heartbeat and/or task (default both)")
    fig.set_defaults(_geo=_cmd_figures)


def run(args: argparse.Namespace) -> int:
    return int(args._geo(args))


# ---------------------------------------------------------------------------------------------- workloads


def _utils(text: str | None) -> list[float]:
    raw = text if text is not None else _DEFAULTS["utilization"]
    out = []
    for tok in raw.split(","):
        try:
            u = float(tok)
        except ValueError:
            raise InputError(f"--utilization: {tok!r} is not a number") from None
        if not 0 < u < 1:
            raise InputError(f"--utilization: {u} is outside (0, 1)")
        out.append(u)
    return out


def _placement(args: argparse.Namespace) -> Placement:
    kind = PlacementKind.parse(args.placement or _DEFAULTS["placement"])
    if args.skew is not None and kind is not PlacementKind.ZIPF:
        raise InputError("--skew only applies to --placement zipf")
    skew = args.skew if args.skew is not None else _DEFAULTS["skew"]
    rack_map = None
    if args.rack_map:
        if kind is not PlacementKind.RACKS:
            raise InputError("--rack-map needs --placement racks")
        rack_map = {}
        for pair in args.rack_map.split(","):
            rack, eq, dc = pair.partition("=")
            if not eq or not rack.strip() or not dc.strip():
                raise InputError(f"--rack-map: {pair!r} is not RACK=DC")
            rack_map[rack.strip()] = dc.strip()
    return Placement(kind, skew, rack_map)


def _scenarios(args: argparse.Namespace) -> list[Scenario]:
    trace = TraceType.parse(args.workload or _DEFAULTS["workload"])
    placement = _placement(args)
    base = Scenario(
        trace=trace,
        utilization=0.5,
        n_datacenters=args.datacenters or _DEFAULTS["datacenters"],
        slots=args.slots or _DEFAULTS["slots"],
        n_jobs=args.jobs or _DEFAULT_JOBS[trace],
        placement=placement,
        seed=args.seed,
        mean_task_s=args.task_duration if args.task_duration is not None else _DEFAULTS["task_duration"],
        durations=DurationModel.parse(args.durations or _DEFAULTS["durations"]),
    )
    from dataclasses import replace

    return [replace(base, utilization=u) for u in _utils(args.utilization)]


def _trace_workload(args: argparse.Namespace) -> GeoWorkload:
    try:
        if args.trace_format == "rumen":
            from mrsim.profiler.builder import load_rumen_workload

            templates = load_rumen_workload(args.trace)
        else:
            from mrsim.profiler.swim import swim_to_templates

            templates = swim_to_templates(args.trace)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"{args.trace}: the {args.trace_format} reader is not available ({exc})") from None
    fed = Federation.uniform(args.datacenters or _DEFAULTS["datacenters"], args.slots or _DEFAULTS["slots"])
    return from_templates(templates, fed, _placement(args), seed=args.seed, include_reduces=args.include_reduces)


def _apply_preset(args: argparse.Namespace, *, one_utilization: bool) -> dict[str, Any] | None:
    """Fill the workload flags the user did not give from ``--preset`` (in place), announce the values used on
    stderr, and return the record ``--json`` carries (None without a preset). ``run`` takes one utilisation: the
    preset's highest, the "higher utilization" at which the paper reports its gains."""
    name = getattr(args, "preset", None)
    if not name:
        return None
    if args.spec or args.trace:
        raise InputError("--preset describes a synthetic workload; drop --spec/--trace or the preset")
    settings = preset_settings(name)
    applied: dict[str, Any] = {}
    for dest, setting in settings.items():
        if getattr(args, dest) is not None or dest == "skew" and args.placement != "zipf":
            continue  # given by the user, or a skew without Zipf placement
        value = setting.value
        if dest == "utilization" and one_utilization:
            value = str(value).split(",")[-1]
        setattr(args, dest, value)
        applied[dest] = value
    if applied:
        stated = [f"{k} {v}" for k, v in applied.items() if settings[k].stated]
        unstated = [f"{k} {v}" for k, v in applied.items() if not settings[k].stated]
        print(f"mrsim geo: preset {name}: from the paper: {', '.join(stated) or 'none'}; not stated in the "
              f"available text, mrsim's defaults: {', '.join(unstated) or 'none'}", file=sys.stderr)
    return {"name": name, "applied": applied, "settings": {k: v.describe() for k, v in settings.items()}}


def _workloads(args: argparse.Namespace) -> list[GeoWorkload]:
    """Every workload the command runs: one per utilisation for synthetic input, else exactly one."""
    if args.spec and args.trace:
        raise InputError("give --spec or --trace, not both")
    if args.spec or args.trace:
        synthetic_only = [f for f in ("workload", "utilization", "jobs", "task_duration", "durations") if getattr(args, f) is not None]
        if synthetic_only:
            flags = ", ".join("--" + f.replace("_", "-") for f in synthetic_only)
            raise InputError(f"{flags} only apply to synthetic workloads, not to --spec/--trace input")
        if args.spec:
            if any(getattr(args, f) is not None for f in ("datacenters", "slots", "placement", "skew")):
                raise InputError("--spec fixes datacenters, slots and placement; drop --datacenters/--slots/--placement/--skew")
            return [load_spec(args.spec)]
        return [_trace_workload(args)]
    if args.include_reduces:
        raise InputError("--include-reduces only applies to --trace input")
    return [synthesize(sc) for sc in _scenarios(args)]


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r  {done}/{total} done", end="" if done < total else "\n", file=sys.stderr, flush=True)


def _dump(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)


def _write_out(path: str | None, obj: Any) -> None:
    if path:
        with atomic_write(path, "wb") as fh:
            fh.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS))


# ---------------------------------------------------------------------------------------------- output


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.4g}" if abs(x) < 1e5 else f"{x:.3e}"
    return str(x)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    line = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in cells)])


_COLUMNS = ("policy", "mean JCT s", "p95 JCT s", "slowdown", "small", "medium", "large", "jobs in sys", "ms/decision")


def _row_cells(r: dict[str, Any]) -> list[Any]:
    bc = r["by_class"]
    return [
        r["policy"], r["mean_completion_s"], r["p95_completion_s"], r["mean_slowdown"],
        bc["small"]["mean_slowdown"], bc["medium"]["mean_slowdown"], bc["large"]["mean_slowdown"],
        r["mean_jobs_in_system"], r["timing"]["decision_ms_mean"],
    ]


def _describe_workload(w: GeoWorkload) -> str:
    load = w.offered_load()
    return (f"{w.source}: {len(w)} jobs, {w.n_tasks} tasks on {w.federation.size} datacenters "
            f"({w.federation.total_slots} slots)" + ("" if load != load else f"; realised load {load:.3f}"))


# ---------------------------------------------------------------------------------------------- commands


def _cmd_run(args: argparse.Namespace) -> int:
    if args.utilization is not None and "," in args.utilization:
        raise InputError("--utilization takes one value for 'run' (use 'compare' to sweep)")
    preset = _apply_preset(args, one_utilization=True)
    (w,) = _workloads(args)
    (row,) = run_workload(w, [Policy.parse(args.policy)], SizeMeasure.parse(args.measure))
    if preset is not None:
        row["preset"] = preset
    _write_out(args.out, row)
    if args.json:
        sys.stdout.buffer.write(_dump(row) + b"\n")
        return 0
    print(_describe_workload(w))
    print("slowdown columns: mean per size class (small 1-150, medium 151-500, large 501+ tasks)")
    print(_table(_COLUMNS, [_row_cells(row)]))
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    policies = []
    for tok in args.policies.split(","):
        if tok.strip():
            p = Policy.parse(tok)
            if p not in policies:
                policies.append(p)
    if not policies:
        raise InputError("--policies: no policy given")
    measure = SizeMeasure.parse(args.measure)
    preset = _apply_preset(args, one_utilization=False)
    workloads = _workloads(args)
    rows: list[dict[str, Any]] = []
    for i, w in enumerate(workloads):
        rows.extend(run_workload(w, policies, measure))
        _progress(i + 1, len(workloads))
    keys = ("trace", "utilization") if workloads[0].spec.get("kind") == "synthetic" else ("kind",)
    imp = improvements(rows, keys)
    result: dict[str, Any] = {"rows": rows, "improvements": imp}
    if preset is not None:
        result["preset"] = preset
    _write_out(args.out, result)
    if args.plot:
        from mrsim.studies.geo import plots

        if len(workloads) > 1:
            plots.line_plot(rows, "utilization", lambda r: r["mean_completion_s"], args.plot,
                            xlabel="utilisation (fraction)", ylabel="mean job completion time (s)",
                            title=workloads[0].source, logy=True)
        else:
            plots.policy_bars(rows, args.plot, title=_describe_workload(workloads[0]))
    if args.json:
        sys.stdout.buffer.write(_dump(result) + b"\n")
        return 0
    for w in workloads:
        print(_describe_workload(w))
        mine = [r for r in rows if r["scenario"] == dict(w.spec)]
        print(_table(_COLUMNS, [_row_cells(r) for r in mine]))
        print()
    for rec in imp:
        parts = [f"{k}={v}" for k, v in rec.items() if k in keys]
        gains = [f"{k} {100 * v:+.1f}%" for k, v in rec.items() if k.startswith(("swag_", "reorder_"))]
        if gains:
            print(" ".join(parts) + ": reduction of mean JCT: " + ", ".join(gains))
    return 0


def _engine_figures(args: argparse.Namespace, seeds: tuple[int, ...]) -> int:
    """``--engine heartbeat``: the figure families through the JobTracker emulation (mrsim.studies.federation.figures)."""
    from dataclasses import replace

    from mrsim.studies.federation.figures import EnginePlan, make_figures, quick_plan as engine_quick_plan

    modes = tuple(m.strip() for m in str(args.modes).split(",") if m.strip())
    if not modes or set(modes) - {"heartbeat", "task"}:
        raise InputError(f"--modes expects heartbeat and/or task, got {args.modes!r}")
    plan = engine_quick_plan() if args.quick else EnginePlan()
    plan = replace(plan, seeds=seeds, modes=modes,
                   jobs={t: max(1, round(n * args.jobs_scale)) for t, n in plan.jobs.items()})
    result = make_figures(plan, args.output, workers=args.workers)
    if args.json:
        sys.stdout.buffer.write(_dump(result) + b"\n")
        return 0
    print("\n".join(result["files"]))
    print(f"task-mode cross-check against mrsim geo's run: {result['standalone_check']}")
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from mrsim.studies.geo.figures import FigurePlan, make_figures, quick_plan

    try:
        seeds = tuple(int(s) for s in args.seeds.split(",") if s.strip())
    except ValueError:
        raise InputError(f"--seeds: {args.seeds!r} is not a comma list of integers") from None
    if not seeds:
        raise InputError("--seeds: no seed given")
    if not args.jobs_scale > 0:
        raise InputError(f"--jobs-scale must be positive, got {args.jobs_scale}")
    if args.engine == "heartbeat":
        return _engine_figures(args, seeds)
    plan = quick_plan() if args.quick else FigurePlan()
    plan = replace(plan, seeds=seeds, jobs={t: max(1, round(n * args.jobs_scale)) for t, n in plan.jobs.items()})
    result = make_figures(plan, args.output, workers=args.workers, progress=_progress)
    if args.json:
        sys.stdout.buffer.write(_dump(result) + b"\n")
        return 0
    from mrsim.studies.geo.figures import summary_markdown

    print(summary_markdown(result["improvements"]["utilization"]), end="")
    print(f"wrote {len(result['files'])} files to {args.output}")
    return 0
