"""Box plots of a metric per group (scheduler) across a parameter: one box per (parameter value, group), over
the replications of that point (the size-based study's mean-sojourn-vs-sigma figures)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mrsim.analysis.plots.facets import group_colours, iter_groups, panels
from mrsim.analysis.plots.labels import Scale, axis_label, fmt_value, log_ticks, use_log
from mrsim.analysis.plots.selection import apply_where, check_uniform, metric_values, ordered_values, require_column

#: Share of the gap between two parameter values taken by a group of boxes.
GROUP_WIDTH = 0.8


def box_figure(table: pd.DataFrame, metric: str, across: str, by: str = "scheduler", *, facet: str | None = None,
               where: Sequence[str] = (), yscale: Scale = Scale.AUTO, palette: str = "tab10") -> Figure:
    """Boxes of ``metric`` for each value of ``across`` (x) and each ``by`` group (colour). Cost: O(rows)."""
    table = apply_where(table, where)
    for column, what in ((across, "--across"), (by, "--by")):
        require_column(table, column, what)
    metric_values(table, metric)
    check_uniform(table, (across, by, facet))
    fig, cells = panels(table, facet)
    xs = ordered_values(table[across])
    groups = ordered_values(table[by])
    colours = group_colours(len(groups), palette)
    width = GROUP_WIDTH / max(1, len(groups))
    log = use_log(table[metric].to_numpy(dtype=float), yscale)
    for ax, _, rows in cells:
        for _g, value, sub in iter_groups(rows, by):
            gi = groups.index(value)
            data, positions = [], []
            for xi, x in enumerate(xs):
                vals = sub.loc[sub[across] == x, metric].dropna().to_numpy(dtype=float)
                if vals.size:
                    data.append(vals)
                    positions.append(xi - GROUP_WIDTH / 2 + width * (gi + 0.5))
            if data:
                parts = ax.boxplot(data, positions=positions, widths=width * 0.85, patch_artist=True,
                                   manage_ticks=False, flierprops={"markersize": 3})
                for patch in parts["boxes"]:
                    patch.set_facecolor(colours[gi])
                    patch.set_alpha(0.75)
                for median in parts["medians"]:
                    median.set_color("black")
        ax.set_xticks(np.arange(len(xs)), [fmt_value(x) for x in xs])
        ax.set_xlim(-0.6, len(xs) - 0.4)
        ax.set_xlabel(axis_label(across))
        ax.set_ylabel(axis_label(metric))
        if log:
            ax.set_yscale("log")
            log_ticks(ax, "y", table[metric].to_numpy(dtype=float))
        ax.grid(axis="y", alpha=0.3)
    handles = [Patch(facecolor=colours[i], alpha=0.75, label=fmt_value(g)) for i, g in enumerate(groups)]
    fig.legend(handles=handles, title=axis_label(by), loc="outside right upper")
    return fig
