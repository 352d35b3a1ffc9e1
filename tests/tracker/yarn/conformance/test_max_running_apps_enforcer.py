"""Hadoop's ``TestMaxRunningAppsEnforcer`` (``scheduler.fair``), re-expressed: the same queue and user
``maxRunningApps`` limits in an allocation file, apps added and removed through ``FairScheduler.add_app`` /
``remove_app``; the counts of runnable and waiting apps per leaf are the values Hadoop asserts.
"""

from __future__ import annotations

from pathlib import Path

from mrsim.tracker.yarn.schedulers.fair import FairScheduler
from tests.tracker.yarn.conformance.hadoop import MultiNodeRM, allocation_file, app, hadoop

V = "2.4.0 and 3.3.6"


class Enforcer:
    """A Fair Scheduler of the given allocation file; ``add`` submits apps in order (their start times)."""

    def __init__(self, tmp_path: Path, body: str) -> None:
        self.fair = FairScheduler({"config_file": str(allocation_file(tmp_path, body))})
        MultiNodeRM([("host_0", "/rack_0", 8192.0, 8.0)]).start(self.fair)
        self.n = 0

    def add(self, queue: str, user: str = "user", submit: float | None = None):
        a = app(self.n, user, queue, submit=submit)
        self.n += 1
        self.fair.add_app(a)
        return a

    def counts(self, leaf: str) -> tuple[int, int]:
        """(runnable, non-runnable) apps of ``leaf``."""
        q = self.fair.queues[leaf]
        return len(q.apps), len(q.waiting)


@hadoop("TestMaxRunningAppsEnforcer", "testRemoveDoesNotEnableAnyApp", V)
def test_remove_does_not_enable_any_app(tmp_path: Path) -> None:
    e = Enforcer(tmp_path, '<queue name="root"><maxRunningApps>2</maxRunningApps>'
                           '<queue name="queue1"><maxRunningApps>1</maxRunningApps></queue>'
                           '<queue name="queue2"><maxRunningApps>1</maxRunningApps></queue></queue>')
    app1 = e.add("root.queue1")
    e.add("root.queue2")
    e.add("root.queue2")
    assert e.counts("root.queue1") == (1, 0) and e.counts("root.queue2") == (1, 1)
    e.fair.remove_app(app1)
    assert e.counts("root.queue1") == (0, 0) and e.counts("root.queue2") == (1, 1)


@hadoop("TestMaxRunningAppsEnforcer", "testRemoveEnablesAppOnCousinQueue", V)
def test_remove_enables_app_on_cousin_queue(tmp_path: Path) -> None:
    e = Enforcer(tmp_path, '<queue name="queue1" type="parent"><maxRunningApps>2</maxRunningApps></queue>')
    app1 = e.add("root.queue1.subqueue1.leaf1")
    e.add("root.queue1.subqueue2.leaf2")
    e.add("root.queue1.subqueue2.leaf2")
    assert e.counts("root.queue1.subqueue1.leaf1") == (1, 0)
    assert e.counts("root.queue1.subqueue2.leaf2") == (1, 1)
    e.fair.remove_app(app1)
    assert e.counts("root.queue1.subqueue1.leaf1") == (0, 0)
    assert e.counts("root.queue1.subqueue2.leaf2") == (2, 0)


@hadoop("TestMaxRunningAppsEnforcer", "testRemoveEnablesOneByQueueOneByUser", V)
def test_remove_enables_one_by_queue_one_by_user(tmp_path: Path) -> None:
    e = Enforcer(tmp_path, '<queue name="queue1"><queue name="leaf1"><maxRunningApps>2</maxRunningApps></queue>'
                           '<queue name="leaf2"/></queue>'
                           '<user name="user1"><maxRunningApps>1</maxRunningApps></user>')
    app1 = e.add("root.queue1.leaf1", "user1")
    e.add("root.queue1.leaf1", "user2")
    e.add("root.queue1.leaf1", "user3")
    e.add("root.queue1.leaf2", "user1")
    assert e.counts("root.queue1.leaf1") == (2, 1) and e.counts("root.queue1.leaf2") == (0, 1)
    e.fair.remove_app(app1)
    assert e.counts("root.queue1.leaf1") == (2, 0) and e.counts("root.queue1.leaf2") == (1, 0)


@hadoop("TestMaxRunningAppsEnforcer", "testRemoveEnablingOrderedByStartTime", V)
def test_remove_enabling_ordered_by_start_time(tmp_path: Path) -> None:
    e = Enforcer(tmp_path, '<queue name="queue1" type="parent"><maxRunningApps>2</maxRunningApps></queue>')
    app1 = e.add("root.queue1.subqueue1.leaf1", submit=0.0)
    e.add("root.queue1.subqueue2.leaf2", submit=0.0)
    e.add("root.queue1.subqueue2.leaf2", submit=0.0)
    e.add("root.queue1.subqueue1.leaf1", submit=20.0)  # clock.tick(20)
    assert e.counts("root.queue1.subqueue1.leaf1") == (1, 1)
    assert e.counts("root.queue1.subqueue2.leaf2") == (1, 1)
    e.fair.remove_app(app1)
    assert e.counts("root.queue1.subqueue1.leaf1")[0] == 0
    assert e.counts("root.queue1.subqueue2.leaf2") == (2, 0)


@hadoop("TestMaxRunningAppsEnforcer", "testMultipleAppsWaitingOnCousinQueue", V)
def test_multiple_apps_waiting_on_cousin_queue(tmp_path: Path) -> None:
    e = Enforcer(tmp_path, '<queue name="queue1" type="parent"><maxRunningApps>2</maxRunningApps></queue>')
    app1 = e.add("root.queue1.subqueue1.leaf1")
    for _ in range(3):
        e.add("root.queue1.subqueue2.leaf2")
    assert e.counts("root.queue1.subqueue1.leaf1") == (1, 0)
    assert e.counts("root.queue1.subqueue2.leaf2") == (1, 2)
    e.fair.remove_app(app1)
    assert e.counts("root.queue1.subqueue1.leaf1") == (0, 0)
    assert e.counts("root.queue1.subqueue2.leaf2") == (2, 1)
