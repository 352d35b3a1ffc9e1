"""NodeManagers and containers: the resources of one node and what runs in them.

A NodeManager heartbeats to the ResourceManager every ``yarn.resourcemanager.nodemanagers.heartbeat-interval-ms``
at ``phase + k * interval``: it is a tracker of the JobTracker core, whose heartbeat grid, parking and reports it
uses (``mrsim/tracker/heartbeats.py``); this object holds only what a node has beyond a tracker, its memory and
vcores. A container that exits is reported in the node's next heartbeat: only then does the RM free its resources
and tell the scheduler (``RMNodeImpl.StatusUpdateWhenHealthyTransition`` then ``nodeUpdate``).
"""

from __future__ import annotations

import math
from typing import Final

# Final: the compiled core inlines them (a plain module attribute costs a dict lookup at every use)
INF: Final = math.inf

AM: Final = 0
MAP: Final = 1
REDUCE: Final = 2


class Container:
    """One allocated container. ``task`` is the map/reduce index (-1 for the AM); times in seconds (-1: not yet)."""

    __slots__ = ("app", "node", "mem", "vcores", "kind", "task", "priority", "locality", "start", "finish",
                 "killed", "exit_seq", "seq")

    def __init__(self, app: int, node: int, mem: float, vcores: float, kind: int, priority: int, locality: int) -> None:
        self.app = app
        self.node = node
        self.mem = mem
        self.vcores = vcores
        self.kind = kind
        self.task = -1
        self.priority = priority
        self.locality = locality
        self.start = -1.0
        self.finish = -1.0
        self.killed = False
        self.exit_seq = 0
        self.seq = 0  # allocation order over the replay (the container id's sequence number)


class NodeManager:
    """One node's capacity and free resources (its heartbeats are its core tracker's, of the same index)."""

    __slots__ = ("index", "name", "rack", "mem", "vcores", "free_mem", "free_vcores", "running", "speed")

    def __init__(self, index: int, name: str, rack: str, mem: float, vcores: float, speed: float = 1.0) -> None:
        self.index = index
        self.name = name
        self.rack = rack
        self.mem = mem
        self.vcores = vcores
        self.free_mem = mem
        self.free_vcores = vcores
        self.running = 0
        self.speed = speed

    def hold(self, c: Container) -> None:
        self.free_mem -= c.mem
        self.free_vcores -= c.vcores
        self.running += 1

    def release(self, c: Container) -> None:
        self.running -= 1
        if self.running == 0:  # exact reset: no floating-point drift on an idle node
            self.free_mem, self.free_vcores = self.mem, self.vcores
        else:
            self.free_mem += c.mem
            self.free_vcores += c.vcores
