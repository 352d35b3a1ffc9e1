"""Matplotlib figures of sweep results (PNG, labelled axes with units), written atomically.

Inputs are the point dictionaries of :func:`mrsim.lotes.experiment.aggregate` (or the JSON a sweep wrote), so
figures can be redrawn from saved results without re-running anything. Points where any replication did not
reach steady state are drawn with hollow markers: their waiting times are lower bounds of a growing backlog.
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any, Sequence

import numpy as np

from mrsim.io import atomic_path


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _label(spec: dict[str, Any]) -> str:
    name = "LoTES" if spec["policy"] == "lotes" else "greedy"
    if spec.get("machines_fraction", 1.0) < 1:
        name += f" ({spec['machines_fraction']:.0%} machines)"
    if spec.get("mapreduce"):
        name += ", MapReduce"
    return name


def _save(fig: Any, path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")


def plot_wait_vs_load(points: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Mean (over replications) of the mean task waiting time, and flow time / F, against load."""
    plt = _pyplot()
    lines: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in points:
        lines[_label(p["spec"])].append(p)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, pts in lines.items():
        pts = sorted(pts, key=lambda p: p["spec"]["load"])
        x = [p["spec"]["load"] for p in pts]
        w = [p["over_replications"]["wait_mean_h"]["mean"] for p in pts]
        f = [p["over_replications"]["flow_over_F"]["mean"] for p in pts]
        steady = [p["steady_replications"] == len(p["replications"]) for p in pts]
        for ax, y in ((ax1, w), (ax2, f)):
            (ln,) = ax.plot(x, y, "-", label=name)
            xs = np.array(x)
            ys = np.array(y)
            st = np.array(steady)
            ax.plot(xs[st], ys[st], "o", color=ln.get_color())
            if (~st).any():
                ax.plot(xs[~st], ys[~st], "o", mfc="none", color=ln.get_color())
    ax1.set_xlabel("load (fraction of allocation-LP capacity $\\lambda^*$)")
    ax1.set_ylabel("mean task waiting time (hours)")
    ax1.set_title("Waiting time (hollow: not steady, lower bound)")
    ax2.set_xlabel("load (fraction of allocation-LP capacity $\\lambda^*$)")
    ax2.set_ylabel("mean flow time / lower bound F")
    ax2.set_title("Normalised flow time")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend()
    _save(fig, path)
    plt.close(fig)


def plot_jobs_in_system(points: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Jobs in system over simulated time (mean over replications), one line per point."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in points:
        reps = p["replications"]
        t = reps[0]["series"]["t_h"]
        n = min(len(r["series"]["jobs_in_system"]) for r in reps)
        y = np.mean([r["series"]["jobs_in_system"][:n] for r in reps], axis=0)
        ax.plot(t[:n], y, label=f"{_label(p['spec'])}, load {p['spec']['load']:g}")
    warm = points[0]["spec"]["warmup"] if points else None
    if warm:
        ax.axvline(warm, color="grey", ls=":", label="end of warm-up")
    ax.set_xlabel("simulated time (hours)")
    ax.set_ylabel("jobs in system")
    ax.set_title("Number of jobs in system")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    _save(fig, path)
    plt.close(fig)


def plot_flow_ratio(points: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Bar chart of mean flow time / F per point (the machines-off experiment, the paper's Figure 4)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(8.0, 1.5 * len(points)), 4.2))
    labels = [
        f"{'LoTES' if p['spec']['policy'] == 'lotes' else 'greedy'}\n"
        f"{p['spec'].get('machines_fraction', 1.0):.0%} on\nload {p['spec']['load']:g}"
        + ("\nMapReduce" if p["spec"].get("mapreduce") else "")
        for p in points
    ]
    vals = [p["over_replications"]["flow_over_F"]["mean"] for p in points]
    bars = ax.bar(range(len(points)), vals)
    for b, p in zip(bars, points):
        if p["steady_replications"] < len(p["replications"]):
            b.set_hatch("//")
    ax.axhline(1.0, color="grey", ls=":")
    ax.set_xticks(range(len(points)), labels, fontsize="small")
    ax.set_ylabel("mean flow time / lower bound F")
    ax.set_xlabel("policy, share of machines switched on, load (fraction of the full cluster's $\\lambda^*$)")
    ax.set_title("Flow time relative to every job served on arrival (hatched: not steady)")
    ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)
    plt.close(fig)
