"""``mrsim validate --plot``: simulated vs actual completion time per job, with the y = x line.

Log axes when the values span more than a decade (max / min > 10), linear otherwise. Written atomically with the
non-interactive Agg backend (no display needed). Cost: one matplotlib figure, O(jobs).
"""

from __future__ import annotations

import os

from mrsim.analysis.validation.report import ValidationReport
from mrsim.errors import InputError
from mrsim.io import atomic_path

_DECADE = 10.0


def plot_validation(report: ValidationReport, path: str | os.PathLike[str], title: str = "") -> None:
    """Draw the scored jobs of ``report`` as a scatter plot into the PNG file ``path``."""
    pairs = report.scored_pairs()
    if not pairs:
        raise InputError(f"{path}: nothing to plot (no job has both a SUCCESS outcome and an actual completion time)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    actual = [a for _, a, _ in pairs]
    simulated = [s for _, _, s in pairs]
    values = [v for v in actual + simulated if v > 0]
    lo, hi = min(values), max(values)
    log = lo > 0 and hi / lo > _DECADE
    fig, ax = plt.subplots(figsize=(5.5, 5.0), dpi=120)
    try:
        pad = 1.25 if log else 0.05 * (hi - lo or hi or 1.0)
        low, high = (lo / pad, hi * pad) if log else (max(0.0, lo - pad), hi + pad)
        ax.plot([low, high], [low, high], color="0.5", linewidth=1, linestyle="--", label="y = x (exact)")
        ax.scatter(actual, simulated, s=22, color="tab:blue", alpha=0.8, label=f"jobs ({len(pairs)})")
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("actual completion time (s)")
        ax.set_ylabel("simulated completion time (s)")
        s = report.summary
        subtitle = (f"{report.mode.value}, {report.scheduler}: mean |error| {s['mean_abs_error_pct']:.1f} %, "
                    f"max {s['max_abs_error_pct']:.1f} %")
        ax.set_title(f"{title}\n{subtitle}" if title else subtitle, fontsize=9)
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
        fig.tight_layout()
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png")
    finally:
        plt.close(fig)
