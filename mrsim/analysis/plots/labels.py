"""Axis labels with units, and when to use a log scale.

A column's label comes from :data:`LABELS` when known, else from its name: ``foo_bar_s`` → ``Foo bar (s)``.
Log axes get ticks where the data are (:func:`log_ticks`), not only at the decades they may not reach.
The automatic scale is logarithmic when every value is positive and they span at least :data:`LOG_SPAN`
(two decades); ``--log``/``--linear`` override it.
"""

from __future__ import annotations

import enum
from typing import Iterable

import numpy as np

#: max / min ratio from which an axis is drawn on a log scale by default.
LOG_SPAN = 100.0

LABELS: dict[str, str] = {
    "completion_s": "Completion time (s)",
    "actual_completion_s": "Actual completion time (s)",
    "mean_completion_s": "Mean completion time (s)",
    "p95_completion_s": "95th-percentile completion time (s)",
    "makespan_s": "Makespan (s)",
    "mean_slowdown": "Mean slowdown (sojourn / size)",
    "deadlines_missed": "Deadlines missed (jobs)",
    "relative_deadline_exceeded": "Relative deadline exceeded (sum over late jobs)",
    "wasted_slot_s": "Wasted slot time (slot-s)",
    "killed_tasks": "Killed tasks (count)",
    "events": "Simulation events (count)",
    "heartbeats": "Heartbeats (count)",
    "jobs": "Jobs (count)",
    "tasks": "Tasks (count)",
    "wall_s": "Simulation wall time (s)",
    "cell_wall_s": "Cell wall time (s)",
    "cell_cpu_s": "Cell CPU time (s)",
    "events_per_s": "Simulation speed (events/s)",
    "interarrival_scale": "Inter-arrival scale (x trace gaps)",
    "mean_interarrival_s": "Mean inter-arrival time (s)",
    "deadline_factor": "Deadline factor df (x T_J)",
    "load_scale": "Load scale F (x arrival rate)",
    "duration_s": "Folded duration (s)",
    "input_cycle_s": "Input cycle (s)",
    "concentration": "Concentration (x jobs per cycle)",
    "load": "Offered load",
    "dn": "d/n (disk / network speed)",
    "sigma": "Size-estimation error sigma",
    "seed": "Seed",
    "scheduler": "Scheduler",
    "cluster": "Cluster",
    "workload": "Workload",
    "cluster_nodes": "Nodes (count)",
    "cluster_map_slots": "Map slots (count)",
    "cluster_reduce_slots": "Reduce slots (count)",
}


def axis_label(column: str) -> str:
    """Human label with unit for a column name, capitalised: ``makespan_s`` → ``Makespan (s)``, an unknown
    ``foo_bar_s`` → ``Foo bar (s)``, ``share_root.a`` → ``Share root.a``."""
    if column in LABELS:
        return LABELS[column]
    text = f"{column[:-2].replace('_', ' ')} (s)" if column.endswith("_s") else column.replace("_", " ")
    return text[:1].upper() + text[1:]


class Scale(enum.Enum):
    """An axis scale choice: decided from the data, or forced."""

    AUTO = "auto"
    LOG = "log"
    LINEAR = "linear"


def use_log(values: Iterable[float] | np.ndarray, scale: Scale = Scale.AUTO) -> bool:
    """True for a log axis: forced by ``scale``, or (AUTO) all finite values positive and spanning >= LOG_SPAN."""
    if scale is not Scale.AUTO:
        return scale is Scale.LOG
    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    arr = arr[np.isfinite(arr)]
    if arr.size == 0 or (arr <= 0).any():
        return False
    return float(arr.max() / arr.min()) >= LOG_SPAN


def log_ticks(ax, axis: str, values: Iterable[float] | np.ndarray) -> None:  # type: ignore[no-untyped-def]
    """Ticks of a log ``axis`` (``"x"`` or ``"y"``) at 1, 2 and 5 times each power of ten within the data's range,
    labelled in plain numbers (``200``, ``5,000``); at most a dozen, thinned to 1 and 3, then decades, when the data
    span more. A range inside one decade (150 to 900 s) thus gets ticks at 200 and 500, not none."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    arr = arr[np.isfinite(arr) & (arr > 0)]
    if arr.size == 0:
        return
    lo, hi = float(arr.min()), float(arr.max())
    ticks: list[float] = []
    for steps in ((1, 2, 5), (1, 3), (1,)):
        ticks = [m * 10.0 ** e for e in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
                 for m in steps if lo <= m * 10.0 ** e <= hi]
        if len(ticks) <= 12:
            break
    if len(ticks) < 2:  # a narrow range: its ends
        ticks = sorted({float(f"{lo:.2g}"), float(f"{hi:.2g}")})
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(FixedLocator(ticks))
    target.set_minor_locator(NullLocator())
    target.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 else f"{v:g}"))


def fmt_value(value: object) -> str:
    """Compact tick/legend text: numbers with %g, others as str."""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)
