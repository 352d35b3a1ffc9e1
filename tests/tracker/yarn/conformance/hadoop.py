"""What every conformance case carries: the Hadoop test it re-expresses, and a small multi-node RM stand-in.

Each case is a Hadoop scheduler unit test (class, method, release line) set up again in mrsim's terms: the same
queues, apps, requests and nodes, asserting the value the Hadoop test asserts. :func:`hadoop` records the source on
the test function (``test_every_case_names_its_hadoop_test`` checks that none is missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from mrsim.tracker.yarn.nodemanager import Container, NodeManager
from mrsim.tracker.yarn.schedulers.base import SchedulerApp
from tests.tracker.yarn.helpers import place_container

F = TypeVar("F", bound=Callable)

GB = 1024.0


@dataclass(frozen=True)
class HadoopTest:
    """``org.apache.hadoop.yarn.server.resourcemanager.scheduler...<cls>#<method>`` as released in ``version``."""

    cls: str
    method: str
    version: str


def hadoop(cls: str, method: str, version: str) -> Callable[[F], F]:
    """Mark a test as the re-expression of Hadoop's ``cls#method`` of release line ``version``."""
    def mark(fn: F) -> F:
        fn.hadoop_test = HadoopTest(cls, method, version)  # type: ignore[attr-defined]
        return fn
    return mark


class MultiNodeRM:
    """Just enough of ResourceManager for a scheduler's ``node_update`` over several named nodes and racks."""

    keeps_pending = True  # pending_mb is kept below at every change, as the real RM does

    def __init__(self, nodes: list[tuple[str, str, float, float]], min_mem: float = GB, min_vcores: float = 1.0,
                 cluster: tuple[float, float] | None = None) -> None:
        self.nodes = [NodeManager(i, host, rack, mem, vc) for i, (host, rack, mem, vc) in enumerate(nodes)]
        self.by_host = {n.name: n for n in self.nodes}
        self.cluster_mem = cluster[0] if cluster else sum(n.mem for n in self.nodes)
        self.cluster_vcores = cluster[1] if cluster else sum(n.vcores for n in self.nodes)
        self.free_mem, self.free_vcores = self.cluster_mem, self.cluster_vcores
        self.min_mem, self.min_vcores = min_mem, min_vcores
        self.memory_only = False
        self.log: list[tuple[str, int, str, int]] = []  # (app, priority, host, locality) per container
        self.scheduler = None

    def start(self, scheduler) -> None:
        self.scheduler = scheduler
        scheduler.start(self)

    def has_room(self, node: NodeManager) -> bool:
        return node.free_mem >= self.min_mem and (self.memory_only or node.free_vcores >= self.min_vcores)

    def allocate(self, app: SchedulerApp, ask, node: NodeManager, locality: int) -> Container:
        c = place_container(self, app, ask, node, locality)
        app.pending_mb -= c.mem
        self.log.append((app.app_id, ask.priority, node.name, locality))
        self.scheduler.charge(app, c.mem, c.vcores, ask.priority == 0)
        return c

    def heartbeat(self, host: str) -> list[tuple[str, int, str, int]]:
        """One NodeManager heartbeat of ``host``: the containers it gave."""
        before = len(self.log)
        self.scheduler.node_update(self.by_host[host])
        return self.log[before:]


def app(index: int, user: str, queue: str = "default", submit: float | None = None,
        am: tuple[float, float] = (GB, 1.0)) -> SchedulerApp:
    return SchedulerApp(index, f"app_{index}", user, queue, float(index if submit is None else submit), am)


def request(a: SchedulerApp, priority: int, mem: float, count: int, hosts: dict[str, int] | None = None,
            racks: dict[str, int] | None = None, vcores: float = 1.0) -> None:
    """``AppSchedulingInfo.updateResourceRequests``: ``count`` containers at ANY, and the host and rack counts."""
    ask = a.ask(priority, mem, vcores)
    a.pending_mb += (count - ask.total) * mem
    ask.total = count
    for h, n in (hosts or {}).items():
        ask.by_host[h] = n
    for r, n in (racks or {}).items():
        ask.by_rack[r] = n


def allocation_file(tmp_path: Path, body: str, name: str = "fair-scheduler.xml") -> Path:
    p = tmp_path / name
    p.write_text(f"<?xml version=\"1.0\"?>\n<allocations>\n{body}\n</allocations>\n")
    return p


def capacity_file(tmp_path: Path, props: dict[str, str], name: str = "capacity-scheduler.xml") -> Path:
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n" for k, v in props.items())
    p = tmp_path / name
    p.write_text(f"<?xml version=\"1.0\"?>\n<configuration>\n{body}</configuration>\n")
    return p
