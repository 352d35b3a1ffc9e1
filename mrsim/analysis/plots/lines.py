"""A metric against a parameter, one line per group (scheduler): the mean over replications, with their spread
as a band (SimMR Figures 7 and 8: relative deadline exceeded vs mean inter-arrival time)."""

from __future__ import annotations

import enum
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mrsim.errors import InputError

from mrsim.analysis.plots.facets import group_colours, iter_groups, panels
from mrsim.analysis.plots.labels import Scale, axis_label, fmt_value, log_ticks, use_log
from mrsim.analysis.plots.selection import apply_where, check_uniform, metric_values, ordered_values, require_column


class Spread(enum.Enum):
    """The band drawn around each line, over the replications of a point."""

    MINMAX = "minmax"  # smallest to largest replication
    STD = "std"  # mean +- one standard deviation
    IQR = "iqr"  # 25th to 75th percentile
    NONE = "none"


_BAND_TEXT = {Spread.MINMAX: "min to max", Spread.STD: "mean +- 1 sd", Spread.IQR: "25th to 75th pct"}


def _band(values: pd.core.groupby.SeriesGroupBy, spread: Spread) -> tuple[np.ndarray, np.ndarray]:
    if spread is Spread.MINMAX:
        return values.min().to_numpy(float), values.max().to_numpy(float)
    if spread is Spread.IQR:
        return values.quantile(0.25).to_numpy(float), values.quantile(0.75).to_numpy(float)
    mean, std = values.mean().to_numpy(float), values.std(ddof=1).fillna(0.0).to_numpy(float)
    return mean - std, mean + std


def lines_figure(table: pd.DataFrame, metric: str, x: str, by: str = "scheduler", *, facet: str | None = None,
                 where: Sequence[str] = (), spread: Spread = Spread.MINMAX, xscale: Scale = Scale.AUTO,
                 yscale: Scale = Scale.AUTO) -> Figure:
    """Mean of ``metric`` against ``x`` per ``by`` group, with a ``spread`` band. Cost: O(rows)."""
    table = apply_where(table, where)
    for column, what in ((x, "--x"), (by, "--by")):
        require_column(table, column, what)
    if not pd.api.types.is_numeric_dtype(table[x]):
        raise InputError(f"--x {x!r} is not numeric (use plot box for categories)")
    metric_values(table, metric)
    check_uniform(table, (x, by, facet))
    fig, cells = panels(table, facet)
    groups = ordered_values(table[by])
    colours = group_colours(len(groups))
    logx = use_log(table[x].to_numpy(dtype=float), xscale)
    logy = use_log(table[metric].to_numpy(dtype=float), yscale)
    for ax, _, rows in cells:
        for _, value, sub in iter_groups(rows, by):
            colour = colours[groups.index(value)]
            grouped = sub.dropna(subset=[metric]).groupby(x, sort=True)[metric]
            if grouped.ngroups == 0:
                continue
            xs = np.asarray(list(grouped.groups.keys()), dtype=float)
            mean = grouped.mean().to_numpy(float)
            ax.plot(xs, mean, marker="o", markersize=4, color=colour)
            if spread is not Spread.NONE:
                lo, hi = _band(grouped, spread)
                ax.fill_between(xs, lo, hi, color=colour, alpha=0.2, linewidth=0)
        ax.set_xlabel(axis_label(x))
        ax.set_ylabel(axis_label(metric))
        if logx:
            ax.set_xscale("log")
            log_ticks(ax, "x", table[x].to_numpy(dtype=float))
        if logy:
            ax.set_yscale("log")
            log_ticks(ax, "y", table[metric].to_numpy(dtype=float))
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=colours[i], marker="o", markersize=4, label=fmt_value(g))
               for i, g in enumerate(groups)]
    title = axis_label(by) + ("" if spread is Spread.NONE else f"\nline: mean\nband: {_BAND_TEXT[spread]}")
    fig.legend(handles=handles, title=title, loc="outside right upper")
    return fig
