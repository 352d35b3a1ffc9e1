"""``replay --out DIR``: jobs.csv, tasks.csv, attempts.csv, timeseries.csv (and queues.csv in YARN mode), written
as one unit (a reader sees the previous set or the new one, never a mix).

``timeseries.csv`` is :func:`mrsim.analysis.timeseries.queue_timeseries` at one-second steps (capped at 200,000 grid points
per queue: longer runs get a coarser, announced step); ``attempts.csv`` is :func:`mrsim.analysis.timeseries.attempts_frame`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.results import ReplayResult


class Run(Protocol):
    """What the outputs read of a run (:class:`mrsim.run.results.Run`): its result and notes."""

    result: "ReplayResult"
    notes: list[str]

MAX_SERIES_POINTS = 200_000


def write_replay_outputs(run: "Run", out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write the four CSV files into ``out_dir``; returns their paths. A coarser step than 1 s is noted in
    ``run.notes``."""
    from mrsim.analysis.timeseries import attempts_frame, queue_timeseries

    series = queue_timeseries(run.result, 1.0, MAX_SERIES_POINTS)
    times = series["time_s"].unique()
    if len(times) > 1 and times[1] - times[0] > 1.0 + 1e-9:
        run.notes.append(f"timeseries.csv step is {times[1] - times[0]:.3f} s (makespan over {MAX_SERIES_POINTS:,} s)")
    extra: dict = {"attempts.csv": attempts_frame(run.result), "timeseries.csv": series}
    queues = getattr(run.result, "queue_series", None)  # YARN mode: per-queue metrics per second (docs/yarn.md)
    if queues is not None:
        extra["queues.csv"] = queues.write_to
    return run.result.write_csv(out_dir, extra)
