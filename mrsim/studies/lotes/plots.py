"""Matplotlib figures of sweep results (PNG, labelled axes with units), written atomically.

Inputs are the point dictionaries of :func:`mrsim.studies.lotes.experiment.aggregate` (or the JSON a sweep wrote), so
figures can be redrawn from saved results without re-running anything. Points where any replication did not
reach steady state are drawn with hollow markers (hatched bars): their waiting times are lower bounds of a
growing backlog.

Readability rules shared by all figures:

* one colour per policy (LoTES blue, greedy orange), lighter shades for fewer machines switched on, and a
  different marker and line style per policy, so that series with equal values stay visible;
* in the load plots the series are dodged slightly along the load axis, and a legend entry says at which loads a
  series equals an earlier one; in the time plots series that are equal over the whole run are drawn as nested
  lines (the earlier one wider, underneath) and labelled "identical to ...";
* waiting times use a symmetric-log axis whose bottom tick is an exact 0, so that waits of seconds are not drawn
  as zero and zeros are not hidden by a log axis;
* every figure carries a footnote with the cluster size, seed(s), replications and horizon from the specs.
"""

from __future__ import annotations

import math
import os
from typing import Any, Sequence

import numpy as np

from mrsim.io import atomic_path

#: Base colour per policy; unknown policies fall back to matplotlib's cycle.
POLICY_COLOURS = {"lotes": "#1f77b4", "greedy": "#e66100"}
_POLICY_MARKERS = {"lotes": ("o", 9.0), "greedy": ("s", 5.5)}
_POLICY_LINESTYLES = {"lotes": "-", "greedy": (0, (5, 2.5))}
_FALLBACK_MARKERS = [("^", 7.0), ("D", 5.0), ("v", 7.0), ("P", 6.0)]
_LOAD_AXIS = "load (fraction of allocation-LP capacity $\\lambda^*$)"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _policy_name(policy: str) -> str:
    return {"lotes": "LoTES", "greedy": "greedy"}.get(policy, policy)


def _label(spec: dict[str, Any], show_mapreduce: bool = True) -> str:
    name = _policy_name(spec["policy"])
    if spec.get("machines_fraction", 1.0) < 1:
        name += f" ({spec['machines_fraction']:.0%} machines)"
    if spec.get("mapreduce") and show_mapreduce:
        name += ", MapReduce"
    return name


def _save(fig: Any, path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight", pad_inches=0.15)


def _steady(p: dict[str, Any]) -> bool:
    return p["steady_replications"] == len(p["replications"])


def _uniform(points: Sequence[dict[str, Any]], key: str, default: Any = None) -> Any:
    """The value of ``spec[key]`` if all points share it, else ``None``."""
    vals = {p["spec"].get(key, default) for p in points}
    return vals.pop() if len(vals) == 1 else None


def _fmt_list(vals: Sequence[Any], fmt: str = "{:g}") -> str:
    return ", ".join(fmt.format(v) for v in vals)


# --------------------------------------------------------------------------------------------------- styling


class _Styler:
    """Colour, marker and line style per series: hue by policy, shade by share of machines switched on."""

    def __init__(self, specs: Sequence[dict[str, Any]]):
        import matplotlib.colors as mcolors

        self._mc = mcolors
        self._fractions = sorted({s.get("machines_fraction", 1.0) for s in specs}, reverse=True)
        self._extra: dict[str, int] = {}

    def _base(self, policy: str) -> str:
        if policy in POLICY_COLOURS:
            return POLICY_COLOURS[policy]
        i = self._extra.setdefault(policy, len(self._extra))
        return f"C{(i + 2) % 10}"

    def colour(self, spec: dict[str, Any]) -> Any:
        rgb = np.array(self._mc.to_rgb(self._base(spec["policy"])))
        k = self._fractions.index(spec.get("machines_fraction", 1.0))
        # darkest for all machines on, then towards white (at most half way).
        mix = 0.5 * k / max(len(self._fractions) - 1, 1) if len(self._fractions) > 1 else 0.0
        return tuple(rgb * (1 - mix) + mix)

    def marker(self, spec: dict[str, Any]) -> tuple[str, float]:
        p = spec["policy"]
        if p in _POLICY_MARKERS:
            return _POLICY_MARKERS[p]
        i = self._extra.setdefault(p, len(self._extra))
        return _FALLBACK_MARKERS[i % len(_FALLBACK_MARKERS)]

    def linestyle(self, spec: dict[str, Any]) -> Any:
        return _POLICY_LINESTYLES.get(spec["policy"], (0, (1, 1.5)))


# --------------------------------------------------------------------------------------------------- footnote


def _machines(spec: dict[str, Any]) -> int | None:
    """Machines switched on for ``spec`` on the cluster every experiment uses (Table 1, optionally scaled)."""
    try:
        from mrsim.studies.lotes.google import table1_cluster

        mpc = spec.get("machines_per_config")
        full = table1_cluster() if mpc is None else table1_cluster(int(mpc))
        frac = spec.get("machines_fraction", 1.0)
        return (full.with_fraction(frac) if frac < 1 else full).n_machines
    except Exception:  # pragma: no cover - a spec from another cluster: say nothing rather than guess
        return None


def _footnote(points: Sequence[dict[str, Any]], extra: str = "") -> str:
    """One or two lines: cluster size, seed(s), replications, horizon and warm-up, from the points' specs."""
    if not points:
        return extra
    specs = [p["spec"] for p in points]
    parts: list[str] = []
    full = {s.get("machines_per_config") for s in specs}
    on = sorted({(s.get("machines_fraction", 1.0), _machines(s)) for s in specs}, reverse=True)
    if all(n is not None for _, n in on):
        if len(on) == 1:
            parts.append(f"cluster: {on[0][1]:,} machines (Table 1")
        else:
            parts.append("cluster: " + ", ".join(f"{n:,} machines on ({f:.0%})" for f, n in on) + " (Table 1")
        if len(full) == 1:
            mpc = full.pop()
            parts[-1] += f", {1000 if mpc is None else mpc:,} per configuration)"
        else:
            parts[-1] += ")"
    seeds = sorted({s.get("seed") for s in specs if s.get("seed") is not None})
    if seeds:
        parts.append(("seed " if len(seeds) == 1 else "seeds ") + _fmt_list(seeds))
    reps = sorted({len(p["replications"]) for p in points})
    parts.append(
        f"{_fmt_list(reps)} replication{'s' if reps != [1] else ''} per point"
        + ("" if reps == [1] else " (mean shown)")
    )
    hz = sorted({s.get("horizon") for s in specs if s.get("horizon") is not None})
    wu = sorted({s.get("warmup") for s in specs if s.get("warmup") is not None})
    if hz:
        parts.append(f"horizon {_fmt_list(hz)} h" + (f", warm-up {_fmt_list(wu)} h" if wu else ""))
    if any(s.get("mapreduce") for s in specs):
        parts.append("MapReduce jobs" if all(s.get("mapreduce") for s in specs) else "some MapReduce points")
    # keep each part on one line when wrapping (no break inside "seed 1")
    text = "; ".join(part.replace(" ", "\u00a0") for part in parts)
    return text + ("\n" + extra if extra else "")


def _add_footnote(fig: Any, text: str) -> None:
    """Small grey text under the axes, wrapped to the figure's width."""
    if text:
        import textwrap

        width = int(fig.get_figwidth() * 14)
        text = "\n".join(textwrap.fill(line, width, break_long_words=False) for line in text.split("\n"))
        # a figure-level x label is placed by the constrained layout below the axes, so nothing overlaps it
        fig.supxlabel(text, x=0.005, ha="left", multialignment="left", fontsize="small", color="0.3")


# --------------------------------------------------------------------------------------------------- waits


def _fmt_duration_h(v: float, _pos: Any = None) -> str:
    """Tick label of a duration given in hours, in the unit that reads best (s, min, h)."""
    if v == 0:
        return "0"
    if v < 0:
        return ""
    if v >= 1:
        return f"{v:g} h"
    if v * 60 >= 1:
        return f"{v * 60:.3g} min"
    return f"{v * 3600:.3g} s"


def _wait_axis(ax: Any, values: Sequence[float]) -> str:
    """Symmetric-log y axis for waiting times (hours): an exact 0 at the bottom, log decades above it.

    Returns a footnote sentence describing the axis (empty if it stays linear)."""
    import matplotlib.ticker as mticker

    vals = np.asarray([v for v in values if v == v], dtype=float)
    pos = vals[vals > 0]
    if not len(pos):
        ax.set_ylabel("mean task waiting time (hours)")
        return ""
    lo = math.floor(math.log10(pos.min()))
    hi = math.ceil(math.log10(pos.max()))
    if hi == lo:
        hi += 1
    linthresh = 10.0**lo
    ax.set_yscale("symlog", linthresh=linthresh, linscale=0.35)
    ticks = [0.0] + [10.0**k for k in range(lo, hi + 1)]
    ax.yaxis.set_major_locator(mticker.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(mticker.FuncFormatter(_fmt_duration_h))
    minor = [m * 10.0**k for k in range(lo, hi) for m in range(2, 10)]
    ax.yaxis.set_minor_locator(mticker.FixedLocator(minor))
    ax.set_ylim(-0.15 * linthresh, 10.0**hi * 1.05)
    ax.axhspan(-0.15 * linthresh, linthresh, color="0.92", zorder=0, lw=0)
    ax.set_ylabel("mean task waiting time\n(s, min, h; log scale above 0)")
    return (f"Waiting-time axis: linear from 0 to {_fmt_duration_h(linthresh)} (shaded), logarithmic above; "
            "a marker on 0 means no task waited.")


def _equal_note(x: Sequence[float], y: Sequence[float], earlier: list[tuple[str, dict[float, float]]]) -> str:
    """' = <earlier series> at load a-b' for the loads where this series' value equals an earlier one's."""
    notes = []
    xs = sorted(set(x))
    for name, vals in earlier:
        same = [xi for xi, yi in zip(x, y) if xi in vals and math.isclose(yi, vals[xi], rel_tol=1e-12, abs_tol=0)]
        if not same:
            continue
        same = sorted(same)
        idx = [xs.index(v) for v in same]
        if len(same) == len(xs):
            where = "at every load"
        elif len(same) > 2 and idx == list(range(idx[0], idx[-1] + 1)):
            where = f"at loads {same[0]:g}–{same[-1]:g}"
        else:
            where = f"at load{'s' if len(same) > 1 else ''} {_fmt_list(same)}"
        notes.append(f"= {name} {where}")
        x = [xi for xi in x if xi not in same]
        if not x:
            break
    return f" ({'; '.join(notes)})" if notes else ""


def plot_wait_vs_load(points: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Mean (over replications) of the mean task waiting time, and flow time / F, against load."""
    plt = _pyplot()
    from matplotlib.lines import Line2D

    style = _Styler([p["spec"] for p in points])
    lines: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        lines.setdefault(_label(p["spec"], _uniform(points, "mapreduce") is None), []).append(p)
    loads = sorted({p["spec"]["load"] for p in points})
    gaps = np.diff(loads)
    step = float(gaps.min()) if len(gaps) else 0.1
    dodge = 0.14 * step
    n = len(lines)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    earlier: dict[int, list[tuple[str, dict[float, float]]]] = {0: [], 1: []}
    any_hollow = False
    for i, (name, pts) in enumerate(lines.items()):
        pts = sorted(pts, key=lambda p: p["spec"]["load"])
        spec = pts[0]["spec"]
        colour = style.colour(spec)
        marker, size = style.marker(spec)
        x = [p["spec"]["load"] for p in pts]
        xd = np.array(x) + (i - (n - 1) / 2) * dodge
        st = np.array([_steady(p) for p in pts])
        any_hollow |= bool((~st).any())
        for k, (ax, key) in enumerate(((ax1, "wait_mean_h"), (ax2, "flow_over_F"))):
            y = np.array([p["over_replications"][key]["mean"] for p in pts], dtype=float)
            label = name + _equal_note(x, list(y), earlier[k])
            earlier[k].append((name, dict(zip(x, y))))
            z = 2 + i
            ax.plot(xd, y, ls=style.linestyle(spec), color=colour, lw=1.6, zorder=z, label=label,
                    marker=marker, ms=size, mfc=colour, mec=colour, markevery=list(np.flatnonzero(st)) or [])
            if (~st).any():
                ax.plot(xd[~st], y[~st], ls="none", marker=marker, ms=size, mfc="white", mec=colour, mew=1.6,
                        zorder=z + 0.5)
    axis_note = _wait_axis(ax1, [p["over_replications"]["wait_mean_h"]["mean"] for p in points])
    prefix = "MapReduce: " if _uniform(points, "mapreduce") else ""
    ax1.set_title(prefix + "mean task waiting time" if prefix else "Mean task waiting time")
    ax2.set_ylabel("mean flow time / lower bound F (ratio)")
    ax2.set_title(prefix + ("f" if prefix else "F") + "low time / F (1 = every job served on arrival)")
    ax2.axhline(1.0, color="grey", ls=":", lw=1, zorder=1)
    legends = []
    for ax in (ax1, ax2):
        ax.set_xlabel(_LOAD_AXIS)
        ax.set_xticks(loads, [f"{v:g}" for v in loads])
        ax.grid(True, alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        handles.append(Line2D([], [], ls="none", marker="o", ms=7, mfc="0.35", mec="0.35"))
        labels.append("filled marker: steady state")
        if any_hollow:
            handles.append(Line2D([], [], ls="none", marker="o", ms=7, mfc="white", mec="0.35", mew=1.6))
            labels.append("hollow marker: not steady (lower bound)")
        legends.append((handles, labels))
    # Legends go outside the axes: inside, they would hide points or lines somewhere in the load range. One shared
    # legend when both panels say the same (the "= ... at loads" notes can differ between the two metrics).
    if legends[0][1] == legends[1][1]:
        fig.legend(*legends[0], loc="outside upper center", ncol=len(legends[0][1]), fontsize="small")
    else:
        for ax, (handles, labels) in zip((ax1, ax2), legends):
            ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize="small")
    load_note = axis_note
    if n > 1:
        load_note += (f" Series are offset by up to ±{dodge * (n - 1) / 2:.3g} in load so that equal values stay "
                      "visible.")
    load_note = load_note.strip()
    _add_footnote(fig, _footnote(points, load_note))
    _save(fig, path)
    plt.close(fig)


# --------------------------------------------------------------------------------------------------- time series


def _mean_series(p: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    reps = p["replications"]
    n = min(len(r["series"]["jobs_in_system"]) for r in reps)
    t = np.asarray(reps[0]["series"]["t_h"][:n], dtype=float)
    y = np.mean([r["series"]["jobs_in_system"][:n] for r in reps], axis=0)
    return t, y


def _series_label(p: dict[str, Any], show_load: bool, show_frac: bool, show_mr: bool) -> str:
    s = p["spec"]
    name = _policy_name(s["policy"])
    frac = s.get("machines_fraction", 1.0)
    if frac < 1 or show_frac:
        name += f", {frac:.0%} of machines on"
    if show_load:
        name += f", load {s['load']:g}"
    if s.get("mapreduce") and show_mr:
        name += ", MapReduce"
    return name


def plot_jobs_in_system(points: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Jobs in system over simulated time (mean over replications), one line per point.

    Series equal over the whole run are drawn as nested lines (earlier ones wider, underneath) and the later ones
    are labelled "identical to ..."; LoTES is drawn solid and greedy dashed, so a near-overlap shows both.
    """
    plt = _pyplot()
    style = _Styler([p["spec"] for p in points])
    show_load = _uniform(points, "load") is None
    show_frac = _uniform(points, "machines_fraction", 1.0) is None
    series = [(p, *_mean_series(p)) for p in points]
    show_mr = _uniform(points, "mapreduce") is None
    labels = [_series_label(p, show_load, show_frac, show_mr) for p, _, _ in series]
    # identity classes: a series joins the class of the first earlier series it equals everywhere.
    cls: list[int] = []
    for i, (_, t, y) in enumerate(series):
        for j in range(i):
            tj, yj = series[j][1], series[j][2]
            if cls[j] == j and len(t) == len(tj) and np.array_equal(t, tj) and np.allclose(y, yj, rtol=1e-12, atol=0):
                cls.append(j)
                break
        else:
            cls.append(i)
    members = {c: [i for i in range(len(series)) if cls[i] == c] for c in set(cls)}

    fig, ax = plt.subplots(figsize=(9, 5), layout="constrained")
    base_lw = 1.6
    for i, (p, t, y) in enumerate(series):
        group = members[cls[i]]
        rank = group.index(i)
        lw = base_lw + 2.2 * (len(group) - 1 - rank)  # earlier members of an identical group are wider
        label = labels[i] if rank == 0 else f"{labels[i]} (identical to {labels[cls[i]]})"
        ax.plot(t, y, color=style.colour(p["spec"]), ls=style.linestyle(p["spec"]), lw=lw, label=label,
                zorder=2 + i, solid_capstyle="butt", dash_capstyle="butt")
    warm = points[0]["spec"].get("warmup") if points else None
    if warm:
        ax.axvline(warm, color="grey", ls=":", label="end of warm-up (statistics from here)", zorder=1)
    ax.set_xlabel("simulated time (hours)")
    ax.set_ylabel("jobs in system (count)")
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _p: f"{v:,.0f}"))
    title = "Number of jobs in system"
    if not show_load and points:
        title += f" at load {points[0]['spec']['load']:g}"
    if _uniform(points, "mapreduce"):
        title = "MapReduce: n" + title[1:]
    ax.set_title(title)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", framealpha=0.9)
    note = ""
    if any(len(m) > 1 for m in members.values()):
        note = "Identical series are drawn as nested lines: the first one widest, underneath."
    _add_footnote(fig, _footnote(points, note))
    _save(fig, path)
    plt.close(fig)


# --------------------------------------------------------------------------------------------------- bars


def plot_flow_ratio(points: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Grouped bar chart of mean flow time / F: groups by share of machines on, one bar colour per policy
    (the machines-off experiment, the paper's Figure 4)."""
    plt = _pyplot()
    from matplotlib.patches import Patch

    style = _Styler([p["spec"] for p in points])
    show_load = _uniform(points, "load") is None
    show_mr = _uniform(points, "mapreduce") is None

    def group_key(p: dict[str, Any]) -> tuple:
        s = p["spec"]
        mr = bool(s.get("mapreduce")) if show_mr else False
        return (-s.get("machines_fraction", 1.0), s["load"] if show_load else 0.0, mr)

    groups = sorted({group_key(p) for p in points})
    policies: list[str] = []
    for p in points:
        if p["spec"]["policy"] not in policies:
            policies.append(p["spec"]["policy"])
    width = 0.8 / max(len(policies), 1)
    fig, ax = plt.subplots(figsize=(max(7.5, 1.6 * len(points)), 4.8), layout="constrained")
    top = max((p["over_replications"]["flow_over_F"]["mean"] for p in points), default=1.0)
    any_hatch = False
    for p in points:
        s = p["spec"]
        g = groups.index(group_key(p))
        k = policies.index(s["policy"])
        x = g + (k - (len(policies) - 1) / 2) * width
        v = p["over_replications"]["flow_over_F"]["mean"]
        colour = POLICY_COLOURS.get(s["policy"], style.colour({**s, "machines_fraction": 1.0}))
        steady = _steady(p)
        any_hatch |= not steady
        ax.bar(x, v, width * 0.92, color=colour, edgecolor="white" if steady else "black",
               hatch=None if steady else "//", lw=0.8, zorder=2)
        ax.annotate(f"{v:.3f}" + ("" if steady else "\n(lower bound)"), (x, v), xytext=(0, 3),
                    textcoords="offset points", ha="center", va="bottom", fontsize="small")
    ticks = []
    for f, load, mr in groups:
        t = f"{-f:.0%} of machines on"
        if show_load:
            t += f"\nload {load:g}"
        if show_mr and mr:
            t += "\nMapReduce"
        ticks.append(t)
    ax.set_xticks(range(len(groups)), ticks)
    ax.axhline(1.0, color="grey", ls=":", zorder=1)
    ax.set_ylim(0, top * 1.18)
    ax.set_ylabel("mean flow time / lower bound F (ratio)")
    ax.set_xlabel("share of every configuration's machines switched on")
    title = "Flow time relative to F (1 = every job served on arrival)"
    if not show_load and points:
        load = points[0]["spec"]["load"]
        title = f"Load {load:g} of the full cluster's $\\lambda^*$: " + title[0].lower() + title[1:]
    if _uniform(points, "mapreduce"):
        title = "MapReduce, " + title[0].lower() + title[1:]
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3, zorder=0)
    handles = [Patch(color=POLICY_COLOURS.get(pol, style.colour({"policy": pol, "machines_fraction": 1.0})),
                     label=_policy_name(pol)) for pol in policies]
    if any_hatch:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//",
                             label="hatched: not steady (lower bound)"))
    ax.legend(handles=handles, loc="upper left", fontsize="small", framealpha=0.9)
    _add_footnote(fig, _footnote(points))
    _save(fig, path)
    plt.close(fig)
