"""Axis labels with units, and when to use a log scale.

A column's label comes from :data:`LABELS` when known, else from its name: ``foo_bar_s`` → ``foo bar (s)``.
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
    "completion_s": "completion time (s)",
    "actual_completion_s": "actual completion time (s)",
    "mean_completion_s": "mean completion time (s)",
    "p95_completion_s": "95th-percentile completion time (s)",
    "makespan_s": "makespan (s)",
    "mean_slowdown": "mean slowdown (sojourn / size)",
    "deadlines_missed": "deadlines missed (jobs)",
    "relative_deadline_exceeded": "relative deadline exceeded (sum over late jobs)",
    "wasted_slot_s": "wasted slot time (slot-s)",
    "killed_tasks": "killed tasks (count)",
    "events": "simulation events (count)",
    "heartbeats": "heartbeats (count)",
    "jobs": "jobs (count)",
    "tasks": "tasks (count)",
    "wall_s": "simulation wall time (s)",
    "cell_wall_s": "cell wall time (s)",
    "cell_cpu_s": "cell CPU time (s)",
    "events_per_s": "simulation speed (events/s)",
    "interarrival_scale": "inter-arrival scale (x trace gaps)",
    "mean_interarrival_s": "mean inter-arrival time (s)",
    "deadline_factor": "deadline factor df (x T_J)",
    "load_scale": "load scale F (x arrival rate)",
    "duration_s": "folded duration (s)",
    "input_cycle_s": "input cycle (s)",
    "concentration": "concentration (x jobs per cycle)",
    "load": "offered load",
    "dn": "d/n (disk / network speed)",
    "sigma": "size-estimation error sigma",
    "seed": "seed",
    "cluster_nodes": "nodes (count)",
    "cluster_map_slots": "map slots (count)",
    "cluster_reduce_slots": "reduce slots (count)",
}


def axis_label(column: str) -> str:
    """Human label with unit for a column name."""
    if column in LABELS:
        return LABELS[column]
    if column.endswith("_s"):
        return f"{column[:-2].replace('_', ' ')} (s)"
    return column.replace("_", " ")


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


def fmt_value(value: object) -> str:
    """Compact tick/legend text: numbers with %g, others as str."""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)
