"""Empirical CDFs overlaid: per-job completion times of several replays, or a metric over the cells of a sweep
(one curve per scheduler)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
from matplotlib.figure import Figure

from mrsim.analysis.plots.facets import group_colours
from mrsim.analysis.plots.inputs import InputKind, PlotInput
from mrsim.analysis.plots.labels import Scale, axis_label, fmt_value, log_ticks, use_log
from mrsim.analysis.plots.selection import apply_where, metric_values, ordered_values, require_column
from mrsim.errors import InputError

DEFAULT_METRIC = {InputKind.JOBS: "completion_s", InputKind.RESULTS: "mean_completion_s"}


def _curves(inputs: Sequence[PlotInput], metric: str | None, by: str, where: Sequence[str],
            labels: Sequence[str] | None) -> tuple[list[tuple[str, np.ndarray]], str, str]:
    kinds = {i.kind for i in inputs}
    if len(kinds) != 1:
        raise InputError("plot cdf: give either replay outputs or sweep results tables, not both")
    kind = kinds.pop()
    column = metric or DEFAULT_METRIC[kind]
    curves: list[tuple[str, np.ndarray]] = []
    for n, item in enumerate(inputs):
        table = item.table
        if kind is InputKind.RESULTS:
            table = apply_where(table, where)
            require_column(table, by, "--by")
            metric_values(table, column)
            for value in ordered_values(table[by]):
                vals = table.loc[table[by] == value, column].to_numpy(dtype=float)
                name = fmt_value(value) if len(inputs) == 1 else f"{item.label}: {fmt_value(value)}"
                curves.append((name, vals))
        else:
            if column not in table.columns:
                raise InputError(f"{item.source}: no {column!r} column in the jobs")
            name = labels[n] if labels else item.label
            curves.append((name, table[column].to_numpy(dtype=float)))
    names = [c[0] for c in curves]
    if kind is InputKind.JOBS and not labels and len(set(names)) < len(names):  # e.g. two fifo runs
        curves = [(f"{name} ({Path(item.source).name})", v) for (name, v), item in zip(curves, inputs)]
    ylabel = "Fraction of jobs" if kind is InputKind.JOBS else "Fraction of cells"
    return curves, axis_label(column), ylabel


def cdf_figure(inputs: Sequence[PlotInput], metric: str | None = None, by: str = "scheduler", *,
               where: Sequence[str] = (), labels: Sequence[str] | None = None, xscale: Scale = Scale.AUTO) -> Figure:
    """Step ECDFs (``P(X <= x)``) of each input's values; NaNs (unfinished, unknown) are left out. Cost: O(n log n)."""
    if labels and len(labels) != len(inputs):
        raise InputError(f"--label given {len(labels)} times for {len(inputs)} inputs")
    curves, xlabel, ylabel = _curves(inputs, metric, by, where, labels)
    fig = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    colours = group_colours(len(curves))
    every = np.concatenate([v[np.isfinite(v)] for _, v in curves]) if curves else np.empty(0)
    if every.size == 0:
        raise InputError("plot cdf: no finite values to plot")
    for (name, values), colour in zip(curves, colours):
        v = np.sort(values[np.isfinite(values)])
        if v.size == 0:
            continue
        y = np.arange(1, v.size + 1) / v.size
        ax.step(np.concatenate([[v[0]], v]), np.concatenate([[0.0], y]), where="post", color=colour,
                label=f"{name} (n={v.size})")
    if use_log(every, xscale):
        ax.set_xscale("log")
        log_ticks(ax, "x", every)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    fig.legend(loc="outside right upper", fontsize="small")  # beside the axes: curves are never hidden
    return fig
