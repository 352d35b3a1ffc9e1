"""Small workloads, clusters and a stub ResourceManager for the YARN-mode tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mrsim.tracker.yarn.config import YarnConf
from mrsim.tracker.yarn.nodemanager import Container, NodeManager
from mrsim.tracker.yarn.schedulers.base import SchedulerApp
from mrsim.model.cluster import uniform_cluster
from mrsim.model.templates import JobTemplate, Workload
from tests.data import shared_data_dir

REPO = Path(__file__).resolve().parents[3]
SHARED_DATA = shared_data_dir()  # $MRSIM_SHARED_DATA or ../shared/data (tests/data.py)


def job(job_id: str, maps: list[float], reduces: list[float] = (), *, submit: float = 0.0, user: str = "u",
        queue: str = "default", first: list[float] = (), typical: list[float] = (), launch_delay: float | None = None,
        props: dict | None = None) -> JobTemplate:
    extra: dict = {}
    if launch_delay is not None:
        extra["launch_delay_s"] = launch_delay
    if props:
        extra["properties"] = props
    return JobTemplate(job_id, submit, np.array(maps, float), np.array(reduces, float), np.array(first, float),
                       np.array(typical, float), user=user, queue=queue, extra=extra)


def workload(*jobs: JobTemplate) -> Workload:
    return Workload.of(list(jobs), source="test")


def cluster(nodes: int = 1, racks: int = 1):
    return uniform_cluster(nodes, 1, 1, racks=racks)


def conf(**changes) -> YarnConf:
    """YARN defaults except the AM container, which is one minimum allocation (1024 MB) unless given."""
    changes.setdefault("am_mb", 1024.0)
    return YarnConf(**changes)


def place_container(rm, app: SchedulerApp, ask, node: NodeManager, locality: int) -> Container:
    """A stand-in RM's bookkeeping of one allocation, as ``ResourceManager.allocate`` does it: the ask is taken,
    the container held on ``node``, the cluster's free totals and the app's usage and live count updated."""
    ask.take(node.name, node.rack, locality)
    c = Container(app.index, node.index, ask.mem, ask.vcores, 1, ask.priority, locality)
    node.hold(c)
    rm.free_mem -= c.mem
    rm.free_vcores -= c.vcores
    app.used_mem += c.mem
    app.used_vcores += c.vcores
    app.live += 1
    return c


class StubRM:
    """Just enough of ResourceManager for a scheduler's ``node_update``: one node, allocation bookkeeping."""

    def __init__(self, mem: float, vcores: float, memory_only: bool = False) -> None:
        self.nodes = [NodeManager(0, "node0001", "/default-rack", mem, vcores)]
        self.cluster_mem, self.cluster_vcores = mem, vcores
        self.free_mem, self.free_vcores = mem, vcores
        self.min_mem, self.min_vcores = 1.0, 1.0
        self.memory_only = memory_only
        self.given: dict[str, int] = {}
        self.order: list[str] = []

    def has_room(self, node: NodeManager) -> bool:
        return node.free_mem >= self.min_mem and (self.memory_only or node.free_vcores >= self.min_vcores)

    def allocate(self, app: SchedulerApp, ask, node: NodeManager, locality: int) -> Container:
        c = place_container(self, app, ask, node, locality)
        self.given[app.app_id] = self.given.get(app.app_id, 0) + 1
        self.order.append(app.app_id)
        self.scheduler.charge(app, c.mem, c.vcores, ask.priority == 0)
        return c

    def run(self, scheduler) -> None:
        """NodeManager heartbeats until one gives nothing."""
        self.scheduler = scheduler
        scheduler.start(self)
        while True:
            before = sum(self.given.values())
            scheduler.node_update(self.nodes[0])
            if sum(self.given.values()) == before:
                return


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def capacity_xml(props: dict[str, str]) -> str:
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n" for k, v in props.items())
    return f"<?xml version=\"1.0\"?>\n<configuration>\n{body}</configuration>\n"
