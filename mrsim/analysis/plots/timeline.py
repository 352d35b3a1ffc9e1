"""Slot-occupancy timeline of one replay (SimMR Figures 1 and 2): time on x, one lane per map or reduce slot on
y, each task a bar in its slot, coloured by job; a reduce's shuffle is drawn light and its reduce phase solid.

Lanes: the replay records the tracker of each task, not the slot, so each tracker's tasks are packed greedily
(in start order, onto the lowest-numbered free lane): a tracker gets as many lanes as it ever ran tasks of that
kind at once, which never exceeds its slots. All bars of one kind are a single ``PolyCollection`` (one draw call
for hundreds of thousands of tasks), rasterised in vector output above :data:`RASTER_ABOVE` bars so SVGs stay small.
Cost: O(tasks log tasks).
"""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mrsim.analysis.plots.facets import group_colours
from mrsim.analysis.plots.labels import fmt_value
from mrsim.errors import InputError

RASTER_ABOVE = 5000
LEGEND_MAX_JOBS = 12
SHUFFLE_ALPHA = 0.35


def assign_lanes(tracker: np.ndarray, start: np.ndarray,
                 finish: np.ndarray) -> tuple[np.ndarray, list[tuple[str, int, int]]]:
    """Global lane per task and ``(tracker, first lane, lanes)`` per tracker (trackers in name order).

    Within a tracker a task takes the lowest lane free at its start (a lane is free again at its last task's
    finish); trackers are stacked one above the other.
    """
    lanes = np.empty(len(start), dtype=np.int64)
    blocks: list[tuple[str, int, int]] = []
    offset = 0
    frame = pd.DataFrame({"tracker": tracker, "start": start, "finish": finish})
    for name, group in frame.groupby("tracker", sort=True):
        order = group.sort_values(["start", "finish"], kind="stable")
        free: list[int] = []
        busy: list[tuple[float, int]] = []
        used = 0
        for idx, s, f in zip(order.index.to_numpy(), order["start"].to_numpy(), order["finish"].to_numpy()):
            while busy and busy[0][0] <= s:
                heapq.heappush(free, heapq.heappop(busy)[1])
            if free:
                lane = heapq.heappop(free)
            else:
                lane, used = used, used + 1
            heapq.heappush(busy, (f, lane))
            lanes[idx] = offset + lane
        blocks.append((str(name), offset, used))
        offset += used
    return lanes, blocks


def _bars(x0: np.ndarray, x1: np.ndarray, lane: np.ndarray) -> np.ndarray:
    y0, y1 = lane + 0.1, lane + 0.9
    return np.stack([np.stack([x0, y0], 1), np.stack([x0, y1], 1), np.stack([x1, y1], 1), np.stack([x1, y0], 1)], 1)


def _collection(verts: np.ndarray, colours: np.ndarray, alpha: float) -> PolyCollection:
    faces = colours.copy()
    faces[:, 3] = alpha
    coll = PolyCollection(verts, facecolors=faces, edgecolors="none", linewidths=0)
    coll.set_rasterized(len(verts) > RASTER_ABOVE)
    return coll


def timeline_figure(tasks: pd.DataFrame, jobs: pd.DataFrame | None = None, *, title: str | None = None) -> Figure:
    """Map lanes above, reduce lanes below, shared time axis. ``jobs`` (jobs.csv) fixes the colour order by
    submission; without it, jobs are ordered by their first task's start."""
    if tasks.empty:
        raise InputError("timeline: the replay has no tasks")
    tasks = tasks.reset_index(drop=True)
    if jobs is not None and "job_id" in jobs.columns:
        by_submit = jobs.sort_values("submit_s", kind="stable") if "submit_s" in jobs else jobs
        order = list(by_submit["job_id"])
    else:
        order = list(tasks.sort_values("start_s", kind="stable")["job_id"].drop_duplicates())
    index = {j: i for i, j in enumerate(order)}
    job_idx = tasks["job_id"].map(index).fillna(len(order)).to_numpy(dtype=np.int64)
    palette = np.array(group_colours(10, "tab10"))  # saturated only: light shades mean "shuffle"
    colours = palette[job_idx % len(palette)]
    kinds = [(k, tasks.index[tasks["type"].astype(str).str.upper() == k].to_numpy()) for k in ("MAP", "REDUCE")]
    kinds = [(k, rows) for k, rows in kinds if rows.size]
    heights = []
    lanes_by_kind = {}
    for kind, rows in kinds:
        sub = tasks.loc[rows]
        lanes, blocks = assign_lanes(sub["tracker"].astype(str).to_numpy(), sub["start_s"].to_numpy(float),
                                     sub["finish_s"].to_numpy(float))
        lanes_by_kind[kind] = (lanes, blocks)
        heights.append(max(1, sum(b[2] for b in blocks)))
    fig = Figure(figsize=(10.0, 6.5), layout="constrained")
    axes = fig.subplots(len(kinds), 1, sharex=True, squeeze=False, height_ratios=heights).ravel()
    end = float(tasks["finish_s"].max())
    for ax, (kind, rows) in zip(axes, kinds):
        sub = tasks.loc[rows]
        lanes, blocks = lanes_by_kind[kind]
        start, finish = sub["start_s"].to_numpy(float), sub["finish_s"].to_numpy(float)
        cols = colours[rows]
        if kind == "REDUCE" and "shuffle_end_s" in sub.columns:
            shuffle_end = sub["shuffle_end_s"].to_numpy(float)
            has = np.isfinite(shuffle_end)
            split = np.where(has, np.clip(shuffle_end, start, finish), start)
            ax.add_collection(_collection(_bars(start[has], split[has], lanes[has]), cols[has], SHUFFLE_ALPHA))
            ax.add_collection(_collection(_bars(split, finish, lanes), cols, 1.0))
        else:
            ax.add_collection(_collection(_bars(start, finish, lanes), cols, 1.0))
        total = max(1, sum(b[2] for b in blocks))
        if len(blocks) <= 64:
            for _, first, _n in blocks[1:]:
                ax.axhline(first, color="0.85", linewidth=0.5)
        ax.set_ylim(0, total)
        ax.set_ylabel(f"{kind.lower()} slot ({total} in use on {len(blocks)} trackers)")
        ax.margins(x=0)
    axes[-1].set_xlim(0, end * 1.01 if end > 0 else 1.0)
    axes[-1].set_xlabel("time since the first submission (s)")
    handles = []
    if len(order) <= LEGEND_MAX_JOBS:
        handles = [Patch(color=palette[i % len(palette)], label=fmt_value(j)) for i, j in enumerate(order)]
    else:  # too many jobs for one entry each: say how colours map to jobs instead of dropping the legend
        handles = [Patch(color=palette[i], label=f"jobs {i + 1}, {i + 1 + len(palette)}, ..." if i < len(order) - len(palette) else f"job {i + 1}")
                   for i in range(len(palette))]
        handles.append(Patch(color="white", label=f"({len(order)} jobs in submit order; colours repeat every {len(palette)})"))
    handles.append(Patch(color="0.5", alpha=SHUFFLE_ALPHA, label="shuffle phase"))
    fig.legend(handles=handles, loc="outside right upper", fontsize="small", title="job" if len(handles) > 1 else None)
    fig.suptitle(title or f"slot occupancy: {len(order)} jobs, {len(tasks)} tasks")
    return fig
