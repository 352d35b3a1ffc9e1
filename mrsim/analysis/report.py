"""Self-contained HTML reports (``--report FILE.html``, ``run.to_html``): one file, every script and style inline.

Plotting library: Bokeh with ``INLINE`` resources (docs/api.md says why). Only the core BokehJS bundle is
embedded (about 1.3 MB; no widgets, tables, GL or MathJax bundles), so a report opens offline, and zoom,
pan and hover come with every figure.

What a replay report shows (each figure's definitions are in its caption):

* cluster map and reduce slot utilisation over time;
* a per-job timeline (Gantt): one bar per job (waiting then running) up to :data:`GANTT_MAX_BARS` jobs; above
  that, jobs in submit order are grouped into :data:`GANTT_MAX_BARS` buckets, each bar spanning its jobs'
  earliest submit to latest finish with the median start and finish marked, so the picture stays readable;
* completion-time and slowdown CDFs; slowdown = completion / own run span (finish − first task launch), i.e. how
  much queueing stretched the job (the replay does not run each job alone; ``compare`` tables use that);
* per-queue (Fair: per-pool) share of the cluster's slots over time, against Hadoop 1.x's fair share
  (:func:`fair_shares`: weights, min shares and max caps over the demand = running + pending tasks) or the
  capacity guarantee (Capacity);
* running and pending tasks per queue.

The validate report adds the simulated-vs-actual scatter and the error decomposition; the compare report
overlays the schedulers; the sweep report shows each metric's spread across replications. Time series are
downsampled to at most :data:`SERIES_POINTS` points; the file for the 1148-job benchmark stays well under 5 MB.

The page sets ``data-rendered="true"`` on ``<html>`` once BokehJS has built every view, and collects script
errors in ``data-errors`` (``window.onerror``), which the headless-Chromium test reads.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

import numpy as np

from mrsim.io import atomic_path

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mrsim.analysis.comparison import Comparison
    from mrsim.analysis.validation.report import ValidationReport
    from mrsim.model.templates import Workload
    from mrsim.tracker.results import ReplayResult


class Run(Protocol):
    """What a replay report reads of a run (:class:`mrsim.run.results.Run`)."""

    result: "ReplayResult"
    assumptions: list[str]
    notes: list[str]


class ComparisonRun(Protocol):
    """What a comparison report reads (:class:`mrsim.run.results.ComparisonRun`)."""

    comparison: "Comparison"
    workload: "Workload"
    assumptions: list[str]
    notes: list[str]

    @property
    def results(self) -> dict[str, "ReplayResult"]: ...


class ValidationRun(Protocol):
    """What a validation report reads (:class:`mrsim.run.results.ValidationRun`)."""

    report: "ValidationReport"
    assumptions: list[str]
    notes: list[str]

    @property
    def jobs(self) -> "pd.DataFrame": ...


GANTT_MAX_BARS = 1500
SERIES_POINTS = 1200
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
WIDTH = 1100
#: The least figure height (px) whose toolbar, on the right, shows every tool; a shorter figure has it above.
TOOLBAR_BESIDE_MIN_HEIGHT = 300

_HEAD_SCRIPT = """<script>
window.mrsimErrors = [];
window.addEventListener('error', function (e) {
  window.mrsimErrors.push(String(e.message || e));
  document.documentElement.setAttribute('data-errors', window.mrsimErrors.join(' | '));
});
</script>"""

_TAIL_SCRIPT = """<script>
(function wait(n) {
  var roots = document.querySelectorAll('[data-root-id]').length;
  var views = 0;
  try { views = (window.Bokeh && Bokeh.index) ? Object.keys(Bokeh.index).length : 0; } catch (e) { views = 0; }
  if (roots > 0 && views >= roots) {
    document.documentElement.setAttribute('data-rendered', 'true');
    document.title = document.title + ' ';
  } else if (n < 400) {
    setTimeout(function () { wait(n + 1); }, 25);
  } else {
    document.documentElement.setAttribute('data-rendered', 'timeout');
  }
})(0);
</script>"""

_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1140px;
color:#222;padding:0 12px}h1{font-size:1.5em;margin-bottom:4px}h2{font-size:1.15em;margin:28px 0 4px;border-bottom:1px solid #ddd}
p.caption{color:#555;font-size:.9em;margin:2px 0 8px}table.summary{border-collapse:collapse;font-size:.85em;display:block;
max-width:100%;overflow-x:auto}
table.summary td,table.summary th{border:1px solid #ddd;padding:3px 8px;text-align:right}
table.summary th{background:#f4f4f4}table.summary td:first-child,table.summary th:first-child{text-align:left}
ul.assumed{color:#444;font-size:.9em}code{background:#f4f4f4;padding:0 3px}"""


# ---------------------------------------------------------------------------------------------- helpers


def _figure(title: str, x_label: str, y_label: str, height: int = 300, **kwargs: Any):
    from bokeh.plotting import figure

    fig = figure(title=title, width=WIDTH, height=height, tools="pan,xwheel_zoom,box_zoom,reset,save",
                 active_scroll="xwheel_zoom", **kwargs)
    fig.xaxis.axis_label = x_label
    fig.yaxis.axis_label = y_label
    fig.toolbar.logo = None
    if height < TOOLBAR_BESIDE_MIN_HEIGHT:  # beside a short figure the toolbar folds its last tools into a menu
        fig.toolbar_location = "above"
    from bokeh.models import LinearAxis, NumeralTickFormatter

    for axis in (*fig.xaxis, *fig.yaxis):  # 12,500 rather than 1.250e+4; log and category axes keep their labels
        if isinstance(axis, LinearAxis):
            axis.formatter = NumeralTickFormatter(format="0,0.[00]")
    return fig


def _finish_legend(fig) -> None:  # type: ignore[no-untyped-def]
    """The figure's legend beside the plot area, on the right (inside it hid the curves it names); click hides."""
    if fig.legend:
        legend = fig.legend[0]
        if legend in fig.center:
            fig.center.remove(legend)
            fig.add_layout(legend, "right")
        legend.click_policy = "hide"
        legend.location = "top_left"
        legend.label_text_font_size = "9pt"


def _hover(fig, tooltips: list[tuple[str, str]], renderers: list | None = None, mode: str = "mouse") -> None:  # type: ignore[no-untyped-def]
    from bokeh.models import HoverTool

    fig.add_tools(HoverTool(tooltips=tooltips, renderers=renderers or "auto", mode=mode))  # type: ignore[arg-type]


def _cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.sort(values[np.isfinite(values)])
    if len(v) == 0:
        return v, v
    y = np.arange(1, len(v) + 1) / len(v)
    if len(v) > 2 * SERIES_POINTS:  # keep the curve's shape, not every step
        idx = np.unique(np.linspace(0, len(v) - 1, 2 * SERIES_POINTS).astype(int))
        v, y = v[idx], y[idx]
    return v, y


def slowdowns(jobs: "pd.DataFrame") -> np.ndarray:
    """completion / (finish − start): the module docstring's slowdown (>= 1; NaN for zero-length spans)."""
    span = jobs["finish_s"].to_numpy(float) - jobs["start_s"].to_numpy(float)
    completion = jobs["completion_s"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(span > 0, completion / span, np.nan)


def fair_shares(demand: np.ndarray, weights: np.ndarray, mins: np.ndarray, maxes: np.ndarray,
                capacity: float) -> np.ndarray:
    """Hadoop 1.x ``SchedulingAlgorithms.computeFairShares`` per time row: share_q = clamp(r w_q, min(m_q, d_q),
    d_q) with d_q = min(demand, max), and r chosen (bisection, 60 steps) so the shares sum to min(C, sum d).
    ``demand`` is (T, Q); returns (T, Q) slot counts. Cost O(60 T Q)."""
    d = np.minimum(demand.astype(float), maxes[None, :])
    m = np.minimum(mins[None, :], d)
    target = np.minimum(capacity, d.sum(axis=1))
    w = np.where(weights > 0, weights, 1e-9)[None, :]
    lo = np.zeros(len(d))
    hi = np.full(len(d), float((d / w).max()) + 1.0 if d.size else 1.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        total = np.clip(mid[:, None] * w, m, d).sum(axis=1)
        low = total < target
        lo = np.where(low, mid, lo)
        hi = np.where(low, hi, mid)
    return np.clip(hi[:, None] * w, m, d)


def _grouping(spec: dict) -> tuple[str, str, str]:
    """(job column, singular noun, note) that the per-queue figures group by: Fair pools by user (its default
    ``poolnameproperty``) or by queue; everything else by queue."""
    sched = spec.get("scheduler") or {}
    if sched.get("name") == "fair":
        prop = str(sched.get("poolnameproperty") or "user.name")
        if sched.get("dialect") == "yarn" or prop in ("mapred.job.queue.name", "mapreduce.job.queuename"):
            return "queue", "pool", ""
        if prop == "user.name":
            return "user", "pool", ""
        return "queue", "queue", f" Pools come from {prop}, which the report cannot see: queues are drawn instead."
    return "queue", "queue", ""


def _scheduler_targets(spec: dict, queues: Sequence[str], series: dict[str, dict[str, np.ndarray]],
                       cluster: dict) -> tuple[str, dict[str, np.ndarray]] | None:
    """(label, per-queue target share series) for Fair (fair share) and Capacity (guarantee)."""
    sched = spec.get("scheduler") or {}
    name = str(sched.get("name", ""))
    n = len(next(iter(series.values()))["time_s"]) if series else 0
    if name == "capacity" and sched.get("queues"):
        caps = {q: float(v.get("capacity") or 0.0) / 100.0 for q, v in sched["queues"].items()}
        return "capacity guarantee", {q: np.full(n, caps[q]) for q in queues if q in caps}
    if name == "fair":
        pools = ((sched.get("allocations") or {}).get("pools")) or {}
        alloc = [pools.get(q) or {} for q in queues]
        weights = np.array([float(a.get("weight", 1.0)) for a in alloc])
        total = max(1, int(cluster.get("map_slots") or 0) + int(cluster.get("reduce_slots") or 0))
        out = np.zeros((n, len(queues)))
        for kind, key, cap in (("maps", "Maps", cluster.get("map_slots") or 0),
                               ("reduces", "Reduces", cluster.get("reduce_slots") or 0)):
            demand = np.stack([series[q][f"running_{kind}"] + series[q][f"pending_{kind}"] for q in queues], axis=1)
            mins = np.array([float(a.get(f"min{key}", 0) or 0) for a in alloc])
            maxes = np.array([float(a[f"max{key}"]) if a.get(f"max{key}") is not None else np.inf for a in alloc])
            out += fair_shares(demand, weights, mins, maxes, float(cap))
        return "fair share", {q: out[:, i] / total for i, q in enumerate(queues)}
    return None


def _series_by_queue(result: "ReplayResult") -> dict[str, dict[str, np.ndarray]]:
    from mrsim.analysis.timeseries import queue_timeseries

    frame = queue_timeseries(result, 1.0, SERIES_POINTS, by=_grouping(result.spec)[0])
    return {str(q): {c: g[c].to_numpy() for c in g.columns if c != "queue"} for q, g in frame.groupby("queue", sort=True)}


# --------------------------------------------------------------------------------------------- sections


def utilisation_figure(results: dict[str, "ReplayResult"], series: dict[str, dict[str, dict[str, np.ndarray]]]):
    from mrsim.analysis.timeseries import CLUSTER

    fig = _figure("Cluster slot utilisation", "time (s)", "busy slots / slots", y_range=(0, 1.05))
    for i, (label, result) in enumerate(results.items()):
        c = result.spec.get("cluster", {})
        s = series[label][CLUSTER]
        color = PALETTE[i % len(PALETTE)]
        prefix = f"{label}: " if len(results) > 1 else ""
        for kind, dash in (("maps", "solid"), ("reduces", "dashed")):
            slots = max(1, int(c.get(f"{kind[:-1]}_slots") or 0))
            fig.line(s["time_s"], s[f"running_{kind}"] / slots, color=color, line_dash=dash, line_width=1.5,
                     legend_label=f"{prefix}{kind[:-1]} slots")
    _hover(fig, [("t", "$x{0,0.0} s"), ("utilisation", "$y{0.00}")])
    _finish_legend(fig)
    return fig


def gantt_figure(jobs: "pd.DataFrame", title: str = "Per-job timeline"):
    from bokeh.models import ColumnDataSource

    order = np.argsort(jobs["submit_s"].to_numpy(float), kind="stable")
    j = jobs.iloc[order].reset_index(drop=True)
    n = len(j)
    queues = [str(q) for q in j["queue"]]
    qnames = sorted(set(queues))
    colors = {q: PALETTE[i % len(PALETTE)] for i, q in enumerate(qnames)}
    if n <= GANTT_MAX_BARS:
        src = ColumnDataSource({
            "y": np.arange(n), "submit": j["submit_s"].to_numpy(float), "start": j["start_s"].to_numpy(float),
            "finish": j["finish_s"].to_numpy(float), "job": [str(x) for x in j["job_id"]], "queue": queues,
            "completion": j["completion_s"].to_numpy(float), "maps": j["maps"].to_numpy(), "reduces": j["reduces"].to_numpy(),
            "color": [colors[q] for q in queues],
        })
        caption = f"{n} jobs in submit order; light: waiting (submit to first task), dark: running"
        tips = [("job", "@job"), ("queue", "@queue"), ("submit", "@submit{0,0.0} s"), ("start", "@start{0,0.0} s"),
                ("finish", "@finish{0,0.0} s"), ("completion", "@completion{0,0.0} s"), ("tasks", "@maps maps, @reduces reduces")]
    else:
        k = -(-n // GANTT_MAX_BARS)
        groups = np.arange(n) // k
        g = j.assign(_g=groups).groupby("_g")
        first, last = g["job_id"].first(), g["job_id"].last()
        src = ColumnDataSource({
            "y": np.arange(len(first)), "submit": g["submit_s"].min().to_numpy(), "start": g["start_s"].median().to_numpy(),
            "finish": g["finish_s"].max().to_numpy(), "job": [f"{a} .. {b}" for a, b in zip(first, last)],
            "queue": [f"{k} jobs" for _ in range(len(first))], "completion": g["completion_s"].median().to_numpy(),
            "maps": g["maps"].sum().to_numpy(), "reduces": g["reduces"].sum().to_numpy(),
            "color": [PALETTE[0]] * len(first),
        })
        caption = (f"{n} jobs in submit order, grouped {k} per bar ({len(first)} bars): light from the group's first "
                   "submit, dark from its median first-task launch to its last finish; hover for the group's median "
                   "completion")
        tips = [("jobs", "@job"), ("first submit", "@submit{0,0.0} s"), ("median start", "@start{0,0.0} s"),
                ("last finish", "@finish{0,0.0} s"), ("median completion", "@completion{0,0.0} s"),
                ("tasks", "@maps maps, @reduces reduces")]
    height = int(min(700, max(260, 8 * len(src.data["y"]) + 80)))
    fig = _figure(title, "time (s)", "job (submit order)", height=height)
    fig.y_range.flipped = True
    fig.quad(left="submit", right="start", bottom="y", top=_plus(src, 0.85), source=src, color="color", alpha=0.25)
    legend = {"legend_field": "queue"} if n <= GANTT_MAX_BARS and len(qnames) > 1 else {}
    bars = fig.quad(left="start", right="finish", bottom="y", top=_plus(src, 0.85), source=src, color="color",
                    alpha=0.85, **legend)
    _hover(fig, tips, [bars])
    fig.yaxis.major_label_text_font_size = "8pt"
    if legend:  # one entry per queue, from the bars themselves
        _finish_legend(fig)
        fig.add_layout(fig.legend[0], "right")  # beside the bars, never over them
    return fig, caption


def _plus(src, delta: float) -> str:  # type: ignore[no-untyped-def]
    src.data["top"] = np.asarray(src.data["y"], float) + delta
    return "top"


def cdf_figures(jobs_by_label: dict[str, "pd.DataFrame"]):
    figs = []
    for what, x_label, values_of in (
            ("Job completion time CDF", "completion time (s)", lambda j: j["completion_s"].to_numpy(float)),
            ("Job slowdown CDF", "slowdown = completion / (finish - first task launch)", slowdowns)):
        vals = {label: values_of(j) for label, j in jobs_by_label.items()}
        positive = all((v[np.isfinite(v)] > 0).all() for v in vals.values())
        fig = _figure(what, x_label, "fraction of jobs", height=280, x_axis_type="log" if positive else "linear",
                      y_range=(0, 1.02))
        for i, (label, v) in enumerate(vals.items()):
            x, y = _cdf(v)
            fig.step(x, y, mode="after", color=PALETTE[i % len(PALETTE)], line_width=1.8, legend_label=label)
        _hover(fig, [("x", "$x{0,0.00}"), ("fraction", "$y{0.000}")])
        _finish_legend(fig)
        figs.append(fig)
    return figs


def queue_figures(label: str, result: "ReplayResult", series: dict[str, dict[str, np.ndarray]]):
    from mrsim.analysis.timeseries import CLUSTER

    queues = [q for q in series if q != CLUSTER]
    cluster = result.spec.get("cluster", {})
    prefix = f"{label}: " if label else ""
    _, noun, group_note = _grouping(result.spec)
    share = _figure(f"{prefix}share of the cluster's slots per {noun}", "time (s)", "share of slots", y_range=(0, 1.05))
    targets = _scheduler_targets(result.spec, queues, series, cluster)
    for i, q in enumerate(queues[:len(PALETTE)]):
        color = PALETTE[i % len(PALETTE)]
        share.line(series[q]["time_s"], series[q]["share"], color=color, line_width=1.6, legend_label=q)
        if targets and q in targets[1]:
            share.line(series[q]["time_s"], targets[1][q], color=color, line_dash="dashed", line_width=1.2,
                       legend_label=f"{q} {targets[0]}")
    _hover(share, [("t", "$x{0,0.0} s"), ("share", "$y{0.000}")])
    _finish_legend(share)
    running = _figure(f"{prefix}running tasks per {noun}", "time (s)", "running tasks", height=280)
    pending = _figure(f"{prefix}pending tasks per {noun}", "time (s)", "pending tasks", height=280,
                      x_range=running.x_range)
    for i, q in enumerate(queues[:len(PALETTE)]):
        color = PALETTE[i % len(PALETTE)]
        s = series[q]
        running.line(s["time_s"], s["running_maps"], color=color, line_width=1.6, legend_label=f"{q} maps")
        running.line(s["time_s"], s["running_reduces"], color=color, line_dash="dashed", line_width=1.4,
                     legend_label=f"{q} reduces")
        pending.line(s["time_s"], s["pending_maps"], color=color, line_width=1.6, legend_label=f"{q} maps")
        pending.line(s["time_s"], s["pending_reduces"], color=color, line_dash="dashed", line_width=1.4,
                     legend_label=f"{q} reduces")
    for fig in (running, pending):
        _hover(fig, [("t", "$x{0,0.0} s"), ("tasks", "$y{0,0}")])
        _finish_legend(fig)
    from bokeh.layouts import column

    tasks = column(running, pending)
    what = {"fair share": "Hadoop 1.x fair share: weights, min shares and max caps of the allocation file over the "
                          "demand (running + pending tasks), per slot kind",
            "capacity guarantee": "configured capacity"}
    caption = (f"Solid: share of map + reduce slots the {noun}'s running tasks hold. "
               + (f"Dashed: {targets[0]} ({what[targets[0]]})." if targets
                  else "No fair share or guarantee for this scheduler.")
               + group_note
               + (f" Only the first {len(PALETTE)} of {len(queues)} are drawn." if len(queues) > len(PALETTE) else ""))
    return share, tasks, caption


# ----------------------------------------------------------------------------------------------- pages


def _table(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    def cell(v: Any) -> str:
        if v is None or (isinstance(v, float) and not np.isfinite(v)):
            return "-"
        if isinstance(v, float):
            return f"{v:,.3f}" if abs(v) < 100 else f"{v:,.1f}"
        if isinstance(v, dict):
            return ", ".join(f"{k} {cell(x)}" for k, x in v.items())
        return html.escape(str(v))

    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(r.get(c))}</td>" for c in columns) + "</tr>" for r in rows)
    return f"<table class='summary'><tr>{head}</tr>{body}</table>"


def _page(title: str, intro: str, blocks: list[tuple[str, str, Any]]) -> str:
    """``blocks``: (heading, caption, bokeh model or None). One ``components`` call embeds every figure."""
    from bokeh.embed import components

    models = {f"m{i}": m for i, (_, _, m) in enumerate(blocks) if m is not None}
    script, divs = components(models) if models else ("", {})
    parts = []
    for i, (heading, caption, model) in enumerate(blocks):
        if heading:
            parts.append(f"<h2>{html.escape(heading)}</h2>")
        if caption:
            parts.append(f"<p class='caption'>{caption}</p>")
        if model is not None:
            parts.append(divs[f"m{i}"])
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"{_HEAD_SCRIPT}<style>{_CSS}</style>{_resources().render_js()}</head><body>"
            f"<h1>{html.escape(title)}</h1>{intro}{''.join(parts)}{script}{_TAIL_SCRIPT}</body></html>\n")


def _resources():  # type: ignore[no-untyped-def]
    """BokehJS core only, inline: the figures use no widget, table, GL or MathJax model."""
    from bokeh.resources import Resources

    return Resources(mode="inline", components=["bokeh"])


def _write(path: str | os.PathLike[str], text: str) -> Path:
    out = Path(path)
    with atomic_path(out, "the HTML report") as tmp:  # creates the parent directory, or says why it cannot
        Path(tmp).write_text(text, encoding="utf-8")
    return out


def _assumed(lines: Iterable[str]) -> str:
    items = "".join(f"<li>{html.escape(x)}</li>" for x in lines)
    return f"<ul class='assumed'>{items}</ul>" if items else ""


_SUMMARY_KEYS = ("jobs", "tasks", "makespan_s", "mean_completion_s", "p95_completion_s", "heartbeats", "events",
                 "wasted_slot_s", "deadlines_missed")


def _replay_blocks(label: str, result: "ReplayResult", series: dict[str, dict[str, np.ndarray]]) -> list:
    gantt, gcaption = gantt_figure(result.jobs, f"{label + ': ' if label else ''}per-job timeline")
    share, tasks, qcaption = queue_figures(label, result, series)
    return [("Per-job timeline" + (f" ({label})" if label else ""), gcaption + ". Drag to pan, scroll to zoom time, "
             "box-zoom to read a range of jobs.", gantt),
            ("Share per queue over time" + (f" ({label})" if label else ""), qcaption, share),
            ("Running and pending tasks per queue" + (f" ({label})" if label else ""),
             "Pending = tasks of submitted jobs not yet launched (reduces waiting for slow start included).", tasks)]


def replay_report(run: "Run", path: str | os.PathLike[str], title: str | None = None) -> Path:
    """The replay report (module docstring) for a :class:`mrsim.run.results.Run`."""
    result = run.result
    series = {result.scheduler: _series_by_queue(result)}
    s = result.summary
    title = title or f"mrsim replay: {Path(str(result.spec.get('trace', ''))).name} under {result.scheduler}"
    intro = (_assumed(run.assumptions + [n for n in run.notes])
             + _table([{k: s.get(k) for k in _SUMMARY_KEYS}], [k for k in _SUMMARY_KEYS if k in s]))
    blocks: list = [("Utilisation", "Busy map (solid) and reduce (dashed) slots over all slots of each kind. "
                     "Failed and killed attempts are not drawn.", utilisation_figure({result.scheduler: result}, series))]
    blocks += _replay_blocks("", result, series[result.scheduler])
    cdfs = cdf_figures({result.scheduler: result.jobs})
    blocks += [("Completion time", "Completion = finish - submit.", cdfs[0]),
               ("Slowdown", "Slowdown = completion / (finish - first task launch): 1 when the job never waited.", cdfs[1])]
    return _write(path, _page(title, intro, blocks))


def comparison_report(run: "ComparisonRun", path: str | os.PathLike[str], title: str | None = None) -> Path:
    """The compare report: the table, overlaid utilisation and CDFs, and per-scheduler timelines and queues."""
    results = run.results
    series = {name: _series_by_queue(r) for name, r in results.items()}
    rows = run.comparison.table()
    cols = ["scheduler", "replications", "mean_completion_s", "p95_completion_s", "makespan_s", "mean_slowdown",
            "deadlines_missed", "relative_deadline_exceeded", "slot_share"]
    title = title or f"mrsim compare: {Path(str(run.workload.source)).name}"
    intro = _assumed(run.assumptions + run.notes) + _table(rows, cols) + (
        "<p class='caption'>Table: means over replications; mean_slowdown is against each job run alone on the "
        "cluster. Figures: replication 0 of each scheduler.</p>")
    blocks: list = [("Utilisation", "Busy map (solid) and reduce (dashed) slots per scheduler; click a legend entry "
                     "to hide it.", utilisation_figure(results, series))]
    cdfs = cdf_figures({name: r.jobs for name, r in results.items()})
    blocks += [("Completion time", "Completion = finish - submit.", cdfs[0]),
               ("Slowdown", "Slowdown = completion / (finish - first task launch).", cdfs[1])]
    for name, r in results.items():
        blocks += _replay_blocks(name, r, series[name])
    return _write(path, _page(title, intro, blocks))


def validation_report(run: "ValidationRun", path: str | os.PathLike[str], title: str | None = None) -> Path:
    """The validate report: the scatter and error decomposition, then the replay's figures (shared mode), and the
    completion-time CDFs of the trace and the replay overlaid."""
    import pandas as pd
    from bokeh.models import ColumnDataSource

    report = run.report
    s = report.summary
    jobs = run.jobs
    scored = jobs[jobs["scored"].astype(bool) & jobs["error_pct"].notna()] if "scored" in jobs else jobs.iloc[:0]
    title = title or f"mrsim validate: {Path(str(report.spec.get('trace', ''))).name}"
    keys = ["jobs", "scored_jobs", "mean_abs_error_pct", "max_abs_error_pct", "mean_error_pct"]
    intro = _assumed(run.assumptions + run.notes) + _table([{k: s.get(k) for k in keys}], keys)
    blocks: list = []
    if len(scored):
        actual = scored["actual_completion_s"].to_numpy(float)
        sim = scored["completion_s"].to_numpy(float)
        lo = float(max(1e-3, min(actual.min(), sim.min()) * 0.8))
        hi = float(max(actual.max(), sim.max()) * 1.25)
        fig = _figure("Simulated vs actual completion time", "actual (s)", "simulated (s)", height=480,
                      x_axis_type="log", y_axis_type="log", x_range=(lo, hi), y_range=(lo, hi))
        fig.width = 560
        fig.line([lo, hi], [lo, hi], color="#888", line_dash="dashed", legend_label="simulated = actual")
        src = ColumnDataSource({"actual": actual, "sim": sim, "job": [str(x) for x in scored["job_id"]],
                                "err": scored["error_pct"].to_numpy(float)})
        dots = fig.scatter("actual", "sim", source=src, size=7, alpha=0.7, color=PALETTE[0], legend_label="job")
        _hover(fig, [("job", "@job"), ("actual", "@actual{0,0.0} s"), ("simulated", "@sim{0,0.0} s"),
                     ("error", "@err{+0.0} %")], [dots])
        _finish_legend(fig)
        blocks.append(("Simulated vs actual", "One dot per scored job; the dashed line is a perfect prediction.", fig))
    terms = _decomposition(scored)
    if terms:
        names = list(terms)
        fig = _figure("Error decomposition: mean over scored jobs (s)", "seconds (positive: simulation slower)", "",
                      height=60 + 34 * len(names), y_range=names[::-1])
        values = [terms[k] for k in names]
        fig.hbar(y=names, right=values, left=0, height=0.7,
                 color=[PALETTE[3] if v > 0 else PALETTE[0] for v in values])
        _hover(fig, [("term", "@y"), ("mean", "@right{+0,0.00} s")])
        blocks.append(("Where the error comes from", "completion − actual = (simulated − trace launch delay) + "
                       "(simulated − trace task span) − trace tail, exactly, per job (docs/validation.md); each bar "
                       "is the mean over scored jobs.", fig))
    if report.replay is not None:
        result = report.replay
        series = {result.scheduler: _series_by_queue(result)}
        blocks.append(("Utilisation", "Busy map (solid) and reduce (dashed) slots in the simulated run.",
                       utilisation_figure({result.scheduler: result}, series)))
        blocks += _replay_blocks("", result, series[result.scheduler])
    else:
        blocks.append(("Simulated run", "With --isolate every job runs alone, so there is no shared timeline.", None))
    actual = jobs.assign(completion_s=pd.to_numeric(jobs["actual_completion_s"], errors="coerce"))
    cdf = cdf_figures({"actual (trace)": actual, "simulated": jobs})
    blocks.append(("Completion time", "Completion = finish - submit, in the trace (actual) and in the replay "
                   "(simulated), over the jobs with each.", cdf[0]))
    return _write(path, _page(title, intro, blocks))


def _decomposition(scored: "pd.DataFrame") -> dict[str, float]:
    """Mean of each term of the per-job error identity over the scored jobs (empty when a column is missing)."""
    need = ("completion_s", "actual_completion_s", "sim_launch_delay_s", "trace_launch_delay_s", "sim_task_span_s",
            "trace_task_span_s", "trace_tail_s")
    if not len(scored) or any(c not in scored.columns for c in need):
        return {}
    f = scored[list(need)].astype(float)
    terms = {
        "launch delay (sim - trace)": f["sim_launch_delay_s"] - f["trace_launch_delay_s"],
        "task span (sim - trace)": f["sim_task_span_s"] - f["trace_task_span_s"],
        "trace tail (subtracted)": -f["trace_tail_s"],
        "total: completion - actual": f["completion_s"] - f["actual_completion_s"],
    }
    return {k: float(v.mean()) for k, v in terms.items() if v.notna().any()}


def sweep_report(table: "pd.DataFrame", path: str | os.PathLike[str], title: str = "mrsim sweep",
                 metrics: Sequence[str] = ("mean_completion_s", "p95_completion_s", "makespan_s")) -> Path:
    """The sweep report: per metric, every cell's value against the swept axis, a line through the median of the
    replications and a band from their minimum to maximum, one colour per scheduler (and workload, cluster)."""
    from bokeh.models import ColumnDataSource

    from mrsim.analysis.plots.labels import axis_label

    ident = [c for c in ("workload", "cluster", "scheduler") if c in table.columns]
    skip = set(ident) | {"cell_id", "model", "replication", "seed", "cell_wall_s", "cell_cpu_s"}
    columns = list(table.columns)
    params = columns[:columns.index("replication")] if "replication" in columns else columns  # the model's axes
    axes = [c for c in params if c not in skip and c not in metrics and table[c].nunique(dropna=True) > 1
            and np.issubdtype(table[c].dtype, np.number)]
    x = axes[0] if axes else None
    blocks: list = []
    metrics = [m for m in metrics if m in table.columns]
    xs_all = table[x].to_numpy(float) if x else np.zeros(1)
    log_x = bool(x) and (xs_all > 0).all() and xs_all.max() >= 50 * xs_all.min()  # e.g. 1, 10, 100, 1000
    for m in metrics:
        fig = _figure(axis_label(m), axis_label(x) if x else "cell", axis_label(m), height=320,
                      x_axis_type="log" if log_x else "linear")
        for i, (key, g) in enumerate(table.groupby(ident, sort=True) if ident else [("all", table)]):
            label = " / ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
            color = PALETTE[i % len(PALETTE)]
            xs = g[x].to_numpy(float) if x else np.zeros(len(g))
            fig.scatter(xs, g[m].to_numpy(float), color=color, alpha=0.5, size=6, legend_label=label)
            stats = g.groupby(x if x else (lambda _: 0))[m].agg(["median", "min", "max"]).reset_index()
            xs_u = stats.iloc[:, 0].to_numpy(float)
            src = ColumnDataSource({"x": xs_u, "median": stats["median"].to_numpy(float),
                                    "lo": stats["min"].to_numpy(float), "hi": stats["max"].to_numpy(float)})
            fig.varea(x="x", y1="lo", y2="hi", source=src, color=color, alpha=0.15, legend_label=label)
            fig.line("x", "median", source=src, color=color, line_width=2, legend_label=label)
        _hover(fig, [(x or "cell", "$x{0,0.00}"), (m, "$y{0,0.00}")])
        _finish_legend(fig)
        blocks.append((m, "Dots: every cell (each replication); line: median over replications; band: min to max.",
                       fig))
    intro = (f"<p>{len(table)} cells" + (f", swept axis <code>{html.escape(x)}</code>" if x else "") + "</p>")
    return _write(path, _page(title, intro, blocks))
