"""Shared fixtures for the resource-cluster tests: small Table 1 clusters and a scheduler that records requests."""

from __future__ import annotations

from pathlib import Path

from mrsim.model.cluster import ClusterSpec, cluster_from_mapping
from mrsim.schedulers.greedy import GreedyScheduler

REPO = Path(__file__).resolve().parents[4]
CLUSTERS = REPO / "examples" / "clusters"
TABLE1 = ((4, 2), (4, 4), (4, 8), (4, 16), (8, 2), (8, 4), (8, 8), (8, 16), (8, 32), (24, 32))


def table1(count: int) -> ClusterSpec:
    """Table 1 with ``count`` machines per configuration, built in memory (same layout as the example files)."""
    doc = {"defaults": {"map_slots": 1000, "reduce_slots": 1000},
           "racks": [{"name": f"/config{i + 1:02d}", "count": count,
                      "resources": {"vcores": c, "memory_mb": g * 1024}} for i, (c, g) in enumerate(TABLE1)]}
    return cluster_from_mapping(doc, f"table1 x{count}")


class RecordingGreedy(GreedyScheduler):
    """Greedy that records each job's resolved requests (engine units) as the engine hands the job over."""

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        self.seen: dict[str, tuple] = {}

    def job_added(self, job) -> None:  # type: ignore[override]
        self.seen[job.job_id] = (job.map_req, job.reduce_req)
        super().job_added(job)
