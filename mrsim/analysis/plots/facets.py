"""Small multiples: one panel per value of a facet column, in a grid of at most :data:`MAX_COLUMNS` columns."""

from __future__ import annotations

import math
from typing import Any, Iterator

import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mrsim.analysis.plots.labels import fmt_value
from mrsim.analysis.plots.selection import ordered_values, require_column

MAX_COLUMNS = 3
PANEL_SIZE_IN = (5.0, 3.6)


def panels(table: pd.DataFrame, facet: str | None, *, sharex: bool = False,
           sharey: bool = True) -> tuple[Figure, list[tuple[Axes, Any, pd.DataFrame]]]:
    """A figure and ``(axes, facet value, rows)`` per panel (one panel with value None when ``facet`` is None)."""
    if facet is None:
        groups: list[tuple[Any, pd.DataFrame]] = [(None, table)]
    else:
        require_column(table, facet, "--facet")
        groups = [(v, table[table[facet] == v]) for v in ordered_values(table[facet])]
    n = len(groups)
    cols = min(n, MAX_COLUMNS)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(PANEL_SIZE_IN[0] * cols + 1.5, PANEL_SIZE_IN[1] * rows + 0.4), layout="constrained")
    axes = fig.subplots(rows, cols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    out = []
    for ax, (value, rows_) in zip(axes, groups):
        if facet is not None:
            ax.set_title(f"{facet} = {fmt_value(value)}")
        out.append((ax, value, rows_))
    return fig, out


def iter_groups(table: pd.DataFrame, by: str) -> Iterator[tuple[int, Any, pd.DataFrame]]:
    """``(index, value, rows)`` per distinct value of ``by`` in :func:`ordered_values` order."""
    for i, value in enumerate(ordered_values(table[by])):
        yield i, value, table[table[by] == value]


def group_colours(n: int, palette: str = "tab10") -> list[tuple[float, float, float, float]]:
    """``n`` colours from a qualitative palette, cycling past its size."""
    cmap = colormaps[palette]
    size = getattr(cmap, "N", 10)
    return [cmap(i % size) for i in range(n)]
