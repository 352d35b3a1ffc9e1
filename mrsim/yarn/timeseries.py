"""Per-queue metrics once per simulated second, as SLS's ``SchedulerMetrics`` records them.

Columns (one row per leaf queue per second, from the first submission until the last application finishes):
``time_s, queue, allocated_mb, allocated_vcores, pending_mb, pending_vcores, running_containers,
pending_containers, running_apps, pending_apps, share_mb``. ``share_mb`` is the queue's instantaneous fair share
(Fair) or guaranteed capacity (Capacity: absolute capacity x cluster memory; FIFO: the whole cluster). An app is
*running* once its AM container is allocated and *pending* before that. The RM keeps the per-queue totals up to date at every change (O(1) each), so a sample
costs O(queues).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from mrsim.io import atomic_path

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.yarn.rm import ResourceManager

COLUMNS = ("time_s", "queue", "allocated_mb", "allocated_vcores", "pending_mb", "pending_vcores",
           "running_containers", "pending_containers", "running_apps", "pending_apps", "share_mb")


class QueueSeries:
    """Samples the scheduler's leaf queues; rows are plain tuples (one list for the whole run)."""

    def __init__(self, rm: "ResourceManager") -> None:
        self.rm = rm
        self.rows: list[tuple] = []

    def sample(self, now: float) -> None:
        stats = self.rm.qstats
        for name, share in self.rm.scheduler.queue_shares():
            q = stats.get(name)
            if q is None:
                self.rows.append((now, name, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, share))
            else:
                self.rows.append((now, name, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], share))

    def summary(self) -> dict[str, dict[str, float]]:
        """Per queue: mean and peak allocated MB, mean pending MB, peak pending containers, peak running apps."""
        out: dict[str, dict[str, float]] = {}
        count: dict[str, int] = {}
        for row in self.rows:
            q = out.setdefault(row[1], {"mean_allocated_mb": 0.0, "peak_allocated_mb": 0.0, "mean_pending_mb": 0.0,
                                        "peak_pending_containers": 0, "peak_running_apps": 0, "mean_share_mb": 0.0})
            count[row[1]] = count.get(row[1], 0) + 1
            q["mean_allocated_mb"] += row[2]
            q["peak_allocated_mb"] = max(q["peak_allocated_mb"], row[2])
            q["mean_pending_mb"] += row[4]
            q["peak_pending_containers"] = max(q["peak_pending_containers"], row[7])
            q["peak_running_apps"] = max(q["peak_running_apps"], row[8])
            q["mean_share_mb"] += row[10]
        for name, q in out.items():
            n = count[name]
            for key in ("mean_allocated_mb", "mean_pending_mb", "mean_share_mb"):
                q[key] = round(q[key] / n, 3)
        return out

    def write_csv(self, out_dir: str | os.PathLike[str]) -> Path:
        """``queues.csv`` in ``out_dir`` (atomically)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "queues.csv"
        with atomic_path(path) as tmp:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(",".join(COLUMNS) + "\n")
                for r in self.rows:
                    fh.write(f"{r[0]:.0f},{r[1]},{r[2]:g},{r[3]:g},{r[4]:g},{r[5]:g},{r[6]},{r[7]},{r[8]},{r[9]},"
                             f"{r[10]:g}\n")
        return path
