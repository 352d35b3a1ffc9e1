"""Simulated against actual completion time per job, with the y = x line (SimMR's validation figures)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mrsim.analysis.plots.inputs import InputKind, PlotInput
from mrsim.analysis.plots.labels import Scale, log_ticks, use_log
from mrsim.errors import InputError


def scatter_figure(item: PlotInput, *, scale: Scale = Scale.AUTO) -> Figure:
    """One point per job with both times known; both axes share one scale. Title: mean relative error.

    The relative error of a job is ``|simulated - actual| / actual``. Cost: O(jobs).
    """
    if item.kind is not InputKind.JOBS:
        raise InputError(f"{item.source}: plot scatter needs per-job output (validate or replay JSON, or jobs.csv)")
    table = item.table
    for column in ("completion_s", "actual_completion_s"):
        if column not in table.columns:
            raise InputError(f"{item.source}: no {column!r} per job")
    sim = table["completion_s"].to_numpy(dtype=float)
    actual = table["actual_completion_s"].to_numpy(dtype=float)
    ok = np.isfinite(sim) & np.isfinite(actual)
    if not ok.any():
        raise InputError(f"{item.source}: no job has both a simulated and an actual completion time")
    sim, actual = sim[ok], actual[ok]
    both = np.concatenate([sim, actual])
    log = use_log(both, scale)
    fig = Figure(figsize=(6.0, 5.6), layout="constrained")
    ax = fig.add_subplot()
    ax.scatter(actual, sim, s=12, alpha=0.7, edgecolors="none", label="job")
    lo, hi = float(both.min()), float(both.max())
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        log_ticks(ax, "x", both)
        log_ticks(ax, "y", both)
        lo, hi = lo / 1.2, hi * 1.2
    else:
        pad = 0.05 * (hi - lo or 1.0)
        lo, hi = min(0.0, lo - pad), hi + pad
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, linestyle="--", label="y = x")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("Actual completion time (s)")
    ax.set_ylabel("Simulated completion time (s)")
    positive = actual > 0
    if positive.any():
        err = np.abs(sim[positive] - actual[positive]) / actual[positive]
        ax.set_title(f"{item.label}: {ok.sum()} jobs, mean relative error {100 * err.mean():.1f} %")
    ax.grid(alpha=0.3)
    fig.legend(loc="outside right upper")  # beside the axes: no dot is hidden
    return fig
