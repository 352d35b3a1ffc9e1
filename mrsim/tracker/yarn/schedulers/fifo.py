"""YARN's FIFO scheduler (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler``, 2.x/3.x).

One queue, ``default``. On a NodeManager heartbeat, applications are served in submission (application id) order;
for each, its priorities in order (AM 0, reduces 10, maps 20), and at each priority as many containers as the
node holds: node-local first, then rack-local, then off-switch (``assignContainersOnNode``), with no delay
scheduling. Every application's queue name is ignored (FIFO has one queue). Headroom is the cluster's free memory.
Containers are counted by memory alone, as ``FifoScheduler`` does with its ``DefaultResourceCalculator``: vcores are
not a limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.yarn.schedulers.base import SchedulerApp, YarnScheduler, assign_one
from mrsim.model.yarn_version import from_config

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.nodemanager import NodeManager


class FifoScheduler(YarnScheduler):
    name = "fifo"
    hadoop_class = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
    memory_only = True

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        self.version = from_config(config)
        self.apps: dict[int, SchedulerApp] = {}  # insertion order = submission order
        self._shares: list | None = None
        if config and config.get("config_file"):
            self.warnings.append(f"{config['config_file']}: the YARN FIFO scheduler has no configuration file (ignored)")

    def add_app(self, app: SchedulerApp) -> None:
        app.queue = "default"
        self.apps[app.index] = app

    def remove_app(self, app: SchedulerApp) -> None:
        self.apps.pop(app.index, None)

    def node_update(self, node: "NodeManager") -> None:
        rm = self.rm
        assert rm is not None
        min_mem = rm.min_mem
        for app in list(self.apps.values()):
            while assign_one(rm, app, node, memory_only=True):
                pass
            if node.free_mem < min_mem:
                return

    def headroom(self, app: SchedulerApp) -> float:
        assert self.rm is not None
        return max(0.0, self.rm.free_mem)

    def queue_shares(self) -> list:
        """One queue with the whole cluster: built once (the time series rebuilds its rows when the list changes)."""
        assert self.rm is not None
        if self._shares is None:
            self._shares = [("default", self.rm.cluster_mem)]
        return self._shares
