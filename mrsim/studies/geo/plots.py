"""Matplotlib figures drawn from sweep rows (never from live simulations), written atomically as PNG.

Figure families follow the paper's section 6: mean completion time against utilisation per trace type,
slowdown by job-size class (fairness), controller overhead (decision time, jobs in the system), and
sensitivity to the number of datacenters and to placement skew. Every axis names its quantity and unit.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")  # files only; never open a window
import matplotlib.pyplot as plt  # noqa: E402

from mrsim.io import atomic_path  # noqa: E402
from mrsim.studies.geo.policies import Policy  # noqa: E402

_STYLE = {
    Policy.FCFS: ("tab:gray", "o"),
    Policy.GSRPT: ("tab:blue", "s"),
    Policy.ISRPT: ("tab:orange", "^"),
    Policy.REORDER_GSRPT: ("tab:cyan", "D"),
    Policy.REORDER_ISRPT: ("tab:red", "v"),
    Policy.SWAG: ("tab:green", "*"),
}


def _save(fig: Any, path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)


def _mean_by(rows: Sequence[dict[str, Any]], x_key: str, y: Any) -> dict[str, list[tuple[float, float]]]:
    """policy -> sorted (x, mean over seeds of y(row)) points."""
    acc: dict[tuple[str, float], list[float]] = {}
    for r in rows:
        acc.setdefault((r["policy"], float(r["scenario"][x_key])), []).append(float(y(r)))
    out: dict[str, list[tuple[float, float]]] = {}
    for (p, x), vals in sorted(acc.items(), key=lambda kv: kv[0][1]):
        out.setdefault(p, []).append((x, sum(vals) / len(vals)))
    return out


def line_plot(
    rows: Sequence[dict[str, Any]],
    x_key: str,
    y: Any,
    path: str | os.PathLike[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    logy: bool = False,
) -> None:
    """One line per policy of ``y(row)`` (averaged over seeds) against ``row["scenario"][x_key]``."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = _mean_by(rows, x_key, y)
    for p in Policy:
        if p.value not in series:
            continue
        xs, ys = zip(*series[p.value])
        color, marker = _STYLE[p]
        ax.plot(xs, ys, marker=marker, color=color, label=p.label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def class_bars(rows: Sequence[dict[str, Any]], path: str | os.PathLike[str], *, title: str) -> None:
    """Grouped bars: mean slowdown per size class (small/medium/large) for each policy (averaged over rows)."""
    classes = ("small", "medium", "large")
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    present = [p for p in Policy if any(r["policy"] == p.value for r in rows)]
    width = 0.8 / max(1, len(present))
    for i, p in enumerate(present):
        mine = [r for r in rows if r["policy"] == p.value]
        vals = []
        for c in classes:
            xs = [r["by_class"][c]["mean_slowdown"] for r in mine if r["by_class"][c]["jobs"]]
            vals.append(sum(xs) / len(xs) if xs else float("nan"))
        pos = [k + (i - (len(present) - 1) / 2) * width for k in range(len(classes))]
        ax.bar(pos, vals, width=width, color=_STYLE[p][0], label=p.label)
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels(["small (1-150 tasks)", "medium (151-500)", "large (501+)"])
    ax.set_ylabel("mean slowdown (completion / isolated completion, ratio)")
    ax.set_xlabel("job size class")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


def policy_bars(rows: Sequence[dict[str, Any]], path: str | os.PathLike[str], *, title: str) -> None:
    """Mean completion time (s) per policy for a ``compare`` run (one bar per policy, averaged over rows)."""
    present = [p for p in Policy if any(r["policy"] == p.value for r in rows)]
    vals = []
    for p in present:
        xs = [r["mean_completion_s"] for r in rows if r["policy"] == p.value]
        vals.append(sum(xs) / len(xs))
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    ax.bar(range(len(present)), vals, color=[_STYLE[p][0] for p in present])
    ax.set_xticks(range(len(present)))
    ax.set_xticklabels([p.label for p in present], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("mean job completion time (s)")
    ax.set_xlabel("controller policy")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)
