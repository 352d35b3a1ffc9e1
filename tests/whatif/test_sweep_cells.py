"""Sweep cells over cluster sizes carry the trace's heartbeat by its line and say so per cell."""

from __future__ import annotations

from pathlib import Path

from mrsim.analysis.sweeps import load_spec, plan_cells
from mrsim.analysis.sweeps.runner import run_cell
from tests.data import SHARED_DATA

SPEC = """
name = "sizes"
seed = 0
schedulers = ["fifo"]

[[workloads]]
trace = "{trace}"

[[clusters]]
nodes = 4

[[clusters]]
nodes = 16
"""


def test_each_cell_records_its_heartbeat_and_the_rule(tmp_path: Path):
    trace = SHARED_DATA / "gridmix-system-branch-1" / "trace_10m.json.gz"
    spec = tmp_path / "sweep.toml"
    spec.write_text(SPEC.format(trace=trace))
    rows = {len(cell.cluster.cluster): run_cell(cell) for cell in plan_cells(load_spec(spec))}
    for nodes, row in rows.items():
        # measured 3.009 s on 8 trackers; the 0.21 formula gives 3 s on 4, 8 and 16: kept, not 1.2's 0.3 s
        assert row["heartbeat_interval_s"] == 3.009, nodes
        assert f"Hadoop 0.21 JobTracker formula max(3 s, s*ceil(N/h) s) for {nodes} trackers" in row["heartbeat_rule"]
    assert rows[4]["mean_completion_s"] >= rows[16]["mean_completion_s"]
