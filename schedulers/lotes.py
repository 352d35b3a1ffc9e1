"""LoTES (Tran & Beck, "Google Data center Scheduling", sections 4.1-4.3) on mrsim's heartbeat engine.

Stages 1 and 2 (allocation LP, non-dominated bins, machine-assignment LP) run once at start on the cluster's
machine configurations and the trace's job classes; stage 3, the two-level dispatcher, runs when each task is
released, and the chosen TaskTracker launches the task at its next heartbeat. The design (dispatch on release,
launch on heartbeat), the class rule and the costs are in :mod:`mrsim.studies.lotes.heartbeat`; docs/resources.md has the
tutorial and results. Needs a resource-vector cluster (``--cluster examples/clusters/lotes_table1_10.toml``).
"""

from __future__ import annotations

from mrsim.studies.lotes.heartbeat import DispatchScheduler
from mrsim.studies.lotes.policies import Policy


class LotesScheduler(DispatchScheduler):
    name = "lotes"
    summary = "LoTES (Tran & Beck): LP-planned bins per machine configuration, two-level dispatch; resource clusters"
    policy = Policy.LOTES
