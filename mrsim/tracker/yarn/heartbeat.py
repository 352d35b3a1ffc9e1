"""The YARN scheduler as the JobTracker core's scheduler plug-in: a NodeManager heartbeat is a tracker heartbeat.

In YARN mode the core (``mrsim/tracker/jobtracker.py``) runs the NodeManagers' heartbeats as it runs TaskTrackers'
(one grid, one parking rule, completions reported in the next heartbeat): at a heartbeat it applies the node's
reported container exits (the ResourceManager's ``apply_aux`` hook frees them), then asks its scheduler plug-in for
work. :class:`NodeUpdates` is that plug-in: it hands the heartbeat to the ResourceManager
(``ResourceManager.node_heartbeat``), which runs the YARN scheduler's ``nodeUpdate`` container by container
(``mrsim/tracker/yarn/schedulers/``). It launches no core task (containers are not slots), so it returns 0; a node
that still has room for outstanding asks asks the core for its next heartbeat (``jt.request_heartbeat``).

Interpreted on purpose: every core plug-in subclasses :class:`mrsim.tracker.scheduling.TaskScheduler`, which stays
interpreted, and a compiled class cannot subclass it. Its ``start`` binds ``assign_tasks`` to the compiled
``ResourceManager.node_calls.assign_tasks`` (a ``mrsim.tracker.hooks.TaskAssigner``, as the FIFO plug-in binds its
compiled core), which the core calls directly from compiled code: a heartbeat runs no interpreted frame and no
Python-level call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.scheduling import TaskScheduler

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import TrackerState
    from mrsim.tracker.yarn.rm import ResourceManager


class NodeUpdates(TaskScheduler):
    """The core's plug-in in YARN mode: each heartbeat is the ResourceManager's ``nodeUpdate`` of that node."""

    name = "yarn-node-updates"

    def __init__(self, rm: "ResourceManager") -> None:
        super().__init__()
        self.rm = rm

    def start(self, jt: "JobTracker") -> None:
        super().start(jt)
        self.rm.start()
        # the engine calls the compiled NodeManager heartbeat directly (no interpreted frame, no Python-level call)
        jt.register(self, assign_tasks=self.rm.node_calls)

    def assign_tasks(self, tracker: "TrackerState") -> int:
        return self.rm.node_heartbeat(tracker)
