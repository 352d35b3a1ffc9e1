"""The greedy baseline of Tran & Beck (section 5) on mrsim's heartbeat engine.

Each task, when released, goes to a machine that can start it now (a random rotation over the machines), else
joins the shortest FIFO queue among the machines whose capacity could ever hold it; the chosen TaskTracker
launches it at its next heartbeat. The policy ignores which machine configuration suits the task. Design and costs:
:mod:`mrsim.studies.lotes.heartbeat`; dispatcher: :class:`mrsim.studies.lotes.policies.GreedyDispatcher`. Needs a
resource-vector cluster.
"""

from __future__ import annotations

from mrsim.studies.lotes.heartbeat import DispatchScheduler
from mrsim.studies.lotes.policies import Policy


class GreedyScheduler(DispatchScheduler):
    name = "greedy"
    summary = "greedy (Tran & Beck): start where it fits now, else shortest FIFO queue among capable machines"
    policy = Policy.GREEDY
