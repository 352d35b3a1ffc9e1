"""``mrsim plot``: figures from sweep results and replay outputs (PNG, SVG or PDF by the output's extension)."""

from __future__ import annotations

from mrsim.cli.flags import add_renamed

import argparse

NAME = "plot"
HELP = "plot sweep results (box, lines, cdf) or one replay (cdf, scatter, timeline)"
DESCRIPTION = (
    "Draw a figure and write it atomically; the format follows the output extension (.png, .svg, .pdf). "
    "Axes are labelled with units; a log scale is used where the values span two decades or more "
    "(override with --xscale/--yscale). See docs/sweeps.md."
)
_SCALES = ["auto", "log", "linear"]


def _common(p: argparse.ArgumentParser) -> None:
    add_renamed(p, ("-o", "--out"), ("--output",), "output", required=True, metavar="FIG.png|svg|pdf",
                help="figure to write")


def _table_options(p: argparse.ArgumentParser, by: bool = True) -> None:
    if by:
        p.add_argument("--by", default="scheduler", help="column giving the colour groups (default scheduler)")
    p.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="keep only rows with this column value (repeatable)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="kind", metavar="KIND")
    sub.required = True

    box = sub.add_parser("box", help="box plots of a metric per scheduler across a parameter",
                         description="Boxes over replications of METRIC, per --by group, at each value of --x.")
    box.add_argument("results", metavar="RESULTS", help="results table (.parquet, or .csv from mrsim sweep --csv)")
    box.add_argument("--metric", required=True, help="metric column, e.g. mean_completion_s")
    add_renamed(box, ("--x",), ("--across",), "across", required=True, metavar="PARAM",
                help="parameter on the x axis, e.g. sigma")
    box.add_argument("--facet", metavar="PARAM", help="one panel per value of this parameter")
    _table_options(box)
    box.add_argument("--yscale", choices=_SCALES, default="auto")
    _common(box)
    box.set_defaults(_plot=_box)

    lines = sub.add_parser("lines", help="a metric against a parameter per scheduler, with replication spread",
                           description="Mean of METRIC over replications against --x, one line per --by group.")
    lines.add_argument("results", metavar="RESULTS", help="results table (.parquet or .csv)")
    lines.add_argument("--metric", required=True, help="metric column")
    lines.add_argument("--x", required=True, metavar="PARAM", help="numeric parameter on the x axis")
    lines.add_argument("--facet", metavar="PARAM", help="one panel per value of this parameter")
    lines.add_argument("--spread", choices=["minmax", "std", "iqr", "none"], default="minmax",
                       help="band around each line over replications (default minmax)")
    _table_options(lines)
    lines.add_argument("--xscale", choices=_SCALES, default="auto")
    lines.add_argument("--yscale", choices=_SCALES, default="auto")
    _common(lines)
    lines.set_defaults(_plot=_lines)

    cdf = sub.add_parser("cdf", help="CDFs of completion time (replays) or of a metric over cells (results)",
                         description="Empirical CDFs, overlaid. Inputs: replay directories (--out DIR), replay "
                                     "--json files, jobs.csv files, or results tables (one curve per --by group).")
    cdf.add_argument("inputs", nargs="+", metavar="DIR_OR_RESULTS")
    cdf.add_argument("--metric", help="column (default completion_s for replays, mean_completion_s for results)")
    cdf.add_argument("--label", action="append", help="legend label per replay input, in order (repeatable)")
    _table_options(cdf)
    cdf.add_argument("--xscale", choices=_SCALES, default="auto")
    _common(cdf)
    cdf.set_defaults(_plot=_cdf)

    scatter = sub.add_parser("scatter", help="simulated vs actual completion time per job, with y = x",
                             description="Needs per-job completion_s and actual_completion_s (a validate JSON, "
                                         "mrsim replay --json of a real trace, or a replay directory).")
    scatter.add_argument("input", metavar="VALIDATE.json")
    scatter.add_argument("--scale", choices=_SCALES, default="auto", help="both axes (default auto)")
    _common(scatter)
    scatter.set_defaults(_plot=_scatter)

    timeline = sub.add_parser("timeline", help="slot-occupancy timeline of one replay, coloured by job",
                              description="Map and reduce slots over time (SimMR Figs. 1, 2). Input: a replay "
                                          "directory written by mrsim replay --out DIR (or its tasks.csv).")
    timeline.add_argument("input", metavar="DIR")
    timeline.add_argument("--title", help="figure title (default: job and task counts)")
    _common(timeline)
    timeline.set_defaults(_plot=_timeline)


def run(args: argparse.Namespace) -> int:
    from mrsim.analysis.plots.output import check_output, save_figure

    check_output(args.output)
    fig = args._plot(args)
    path = save_figure(fig, args.output)
    print(f"wrote {path}")
    return 0


def _scale(name: str):  # -> Scale
    from mrsim.analysis.plots.labels import Scale

    return Scale(name)


def _box(args: argparse.Namespace):
    from mrsim.analysis.plots.box import box_figure
    from mrsim.analysis.plots.inputs import load_results

    return box_figure(load_results(args.results), args.metric, args.across, args.by, facet=args.facet,
                      where=args.where, yscale=_scale(args.yscale))


def _lines(args: argparse.Namespace):
    from mrsim.analysis.plots.inputs import load_results
    from mrsim.analysis.plots.lines import Spread, lines_figure

    return lines_figure(load_results(args.results), args.metric, args.x, args.by, facet=args.facet, where=args.where,
                        spread=Spread(args.spread), xscale=_scale(args.xscale), yscale=_scale(args.yscale))


def _cdf(args: argparse.Namespace):
    from mrsim.analysis.plots.cdf import cdf_figure
    from mrsim.analysis.plots.inputs import load_input

    return cdf_figure([load_input(p) for p in args.inputs], args.metric, args.by, where=args.where,
                      labels=args.label, xscale=_scale(args.xscale))


def _scatter(args: argparse.Namespace):
    from mrsim.analysis.plots.inputs import load_input
    from mrsim.analysis.plots.scatter import scatter_figure

    return scatter_figure(load_input(args.input), scale=_scale(args.scale))


def _timeline(args: argparse.Namespace):
    from mrsim.analysis.plots.inputs import load_tasks
    from mrsim.analysis.plots.timeline import timeline_figure

    tasks, jobs = load_tasks(args.input)
    return timeline_figure(tasks, jobs, title=args.title)
