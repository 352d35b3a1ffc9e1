"""Per-queue metrics once per simulated second, as SLS's ``SchedulerMetrics`` records them.

Columns (one row per leaf queue per second, from the first submission until the last application finishes):
``time_s, queue, allocated_mb, allocated_vcores, pending_mb, pending_vcores, running_containers,
pending_containers, running_apps, pending_apps, share_mb``. ``share_mb`` is the queue's instantaneous fair share
(Fair) or guaranteed capacity (Capacity: absolute capacity x cluster memory; FIFO: the whole cluster). An app is
*running* once its AM container is allocated and *pending* before that. Cost: O(active apps) per second.
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
        for name, apps, share in self.rm.scheduler.queue_rows():
            am = amv = pm = pv = 0.0
            rc = pc = ra = pa = 0
            for app in apps:
                if app.finished:
                    continue
                am += app.used_mem
                amv += app.used_vcores
                rc += app.live
                for ask in app.asks:
                    if ask.total > 0:
                        pm += ask.total * ask.mem
                        pv += ask.total * ask.vcores
                        pc += ask.total
                if app.am_allocated:
                    ra += 1
                else:
                    pa += 1
            self.rows.append((now, name, am, amv, pm, pv, rc, pc, ra, pa, share))

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
