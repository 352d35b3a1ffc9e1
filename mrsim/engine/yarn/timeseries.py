"""Per-queue metrics once per simulated second, as SLS's ``SchedulerMetrics`` records them.

Columns (one row per leaf queue per second, from 0 to one second after the last event):
``time_s, queue, allocated_mb, allocated_vcores, pending_mb, pending_vcores, running_containers,
pending_containers, running_apps, pending_apps, share_mb``. ``share_mb`` is the queue's instantaneous fair share
(Fair) or guaranteed capacity (Capacity: absolute capacity x cluster memory; FIFO: the whole cluster). An app is
*running* once its AM container is allocated and *pending* before that. The row of second *s* is the state after
every event before *s* (events at *s* itself come after its sample).

Cost: no event of its own. The RM keeps per-queue totals at every change (O(1) each) and calls :meth:`touch`
before each change; a touch that crosses one or more whole seconds records the state once, as a run of identical
seconds (O(queues)), so a quiet hour costs one run, not 3,600 rows. Rows are expanded only for ``queues.csv``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from mrsim.io import atomic_path

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.engine.yarn.rm import ResourceManager

COLUMNS = ("time_s", "queue", "allocated_mb", "allocated_vcores", "pending_mb", "pending_vcores",
           "running_containers", "pending_containers", "running_apps", "pending_apps", "share_mb")
_ZERO = (0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0)


class QueueSeries:
    """Runs of seconds with identical per-queue state: ``(first_s, last_s, ((queue, values..., share), ...))``."""

    def __init__(self, rm: "ResourceManager") -> None:
        self.rm = rm
        self.runs: list[tuple[int, int, tuple]] = []
        self.next_second = 0  # first second not yet recorded
        # per queue: [seconds, sum allocated MB, peak allocated MB, sum pending MB, peak pending containers,
        #             peak running apps, sum share MB] (the summary, kept as runs are recorded)
        self.acc: dict[str, list] = {}

    def touch(self, now: float) -> None:
        """Record every second up to ``now`` (inclusive when ``now`` is a whole second) with the current state."""
        if now < self.next_second:
            return
        last = math.floor(now)
        stats = self.rm.qstats
        get = stats.get
        snap = tuple([(name, *(get(name) or _ZERO), share) for name, share in self.rm.scheduler.queue_shares()])
        n = last - self.next_second + 1
        acc = self.acc
        # row: (name, allocated MB, allocated vcores, pending MB, pending vcores, running containers, pending
        # containers, running apps, pending apps, share MB)
        for row in snap:
            a = acc.get(row[0])
            if a is None:
                a = acc[row[0]] = [0, 0.0, 0.0, 0.0, 0, 0, 0.0]
            am = row[1]
            a[0] += n
            a[1] += am * n
            if am > a[2]:
                a[2] = am
            a[3] += row[3] * n
            if row[6] > a[4]:
                a[4] = row[6]
            if row[7] > a[5]:
                a[5] = row[7]
            a[6] += row[9] * n
        if self.runs and self.runs[-1][2] == snap and self.runs[-1][1] == self.next_second - 1:
            first = self.runs[-1][0]
            self.runs[-1] = (first, last, snap)
        else:
            self.runs.append((self.next_second, last, snap))
        self.next_second = last + 1

    def finish(self, end: float) -> None:
        """After the last event: record up to the second after it (the final state)."""
        self.touch(math.floor(end) + 1)

    @property
    def rows(self) -> Iterator[tuple]:
        """Every per-second row (expanded from the runs)."""
        for first, last, snap in self.runs:
            for s in range(first, last + 1):
                for q in snap:
                    yield (float(s), *q)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per queue: mean and peak allocated MB, mean pending MB, peak pending containers, peak running apps, mean
        share (means over every second the queue existed)."""
        return {name: {"mean_allocated_mb": round(a[1] / a[0], 3), "peak_allocated_mb": a[2],
                       "mean_pending_mb": round(a[3] / a[0], 3), "peak_pending_containers": a[4],
                       "peak_running_apps": a[5], "mean_share_mb": round(a[6] / a[0], 3)}
                for name, a in self.acc.items() if a[0]}

    def write_to(self, fh) -> None:  # type: ignore[no-untyped-def]
        """``queues.csv`` into an open text file (part of ``replay --out``'s output set)."""
        fh.write(",".join(COLUMNS) + "\n")
        for r in self.rows:
            fh.write(f"{r[0]:.0f},{r[1]},{r[2]:g},{r[3]:g},{r[4]:g},{r[5]:g},{r[6]},{r[7]},{r[8]},{r[9]},"
                     f"{r[10]:g}\n")

    def write_csv(self, out_dir: str | os.PathLike[str]) -> Path:
        """``queues.csv`` in ``out_dir`` (atomically)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "queues.csv"
        with atomic_path(path) as tmp:
            with open(tmp, "w", encoding="utf-8") as fh:
                self.write_to(fh)
        return path
