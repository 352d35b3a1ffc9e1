"""Write Rumen job traces and cluster topologies, as TraceBuilder's ``DefaultOutputter`` does.

A trace is a stream of concatenated ``LoggedJob`` JSON objects (one per job, no enclosing array); a
topology is one ``LoggedNetworkTopology`` object ``{"name": "<root>", "children": [rack, ...]}`` whose
racks hold hosts with ``"children": null``. Both are gzip-compressed when the target name ends in
``.gz`` (Rumen picks the codec from the extension) and appear atomically.

The topology follows Rumen's ``TopologyBuilder``: every ``/rack/host`` seen as a split location or as
the host of an attempt. Bare host names (0.20 logs name failed attempts without a rack) cannot be placed
and are left out, as in Rumen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson

from mrsim.profiler.logged import strip_slash
from mrsim.io import atomic_write

Host = tuple[str, str]
"""``(rack, host)`` without leading slashes."""


def _dumps(value: Any, pretty: bool) -> bytes:
    option = orjson.OPT_INDENT_2 if pretty else 0
    return orjson.dumps(value, option=option)


def write_rumen_trace(jobs: Iterable[Mapping[str, Any]], path: str | os.PathLike[str], *, pretty: bool = False) -> int:
    """Write ``jobs`` as a Rumen trace at ``path``; return the number of jobs written.

    One job is serialised at a time, so memory does not grow with the trace. Objects are separated
    by a newline. ``pretty`` indents by two spaces (Rumen pretty-prints by default; the content is the same).
    """
    count = 0
    with atomic_write(path, "wb", what="the Rumen trace") as fh:
        for job in jobs:
            fh.write(_dumps(job, pretty))
            fh.write(b"\n")
            count += 1
    return count


def job_hosts(job: Mapping[str, Any]) -> Iterator[Host]:
    """The ``(rack, host)`` pairs a job names: split locations and attempt locations."""
    for key in ("mapTasks", "reduceTasks", "otherTasks"):
        for task in job.get(key) or ():
            for loc in task.get("preferredLocations") or ():
                layers = loc.get("layers") or []
                if len(layers) >= 2:
                    yield strip_slash(layers[0]), strip_slash(layers[1])
            for attempt in task.get("attempts") or ():
                loc = attempt.get("location")
                if loc and len(loc.get("layers") or []) >= 2:
                    yield strip_slash(loc["layers"][0]), strip_slash(loc["layers"][1])


class TopologyCollector:
    """Collects hosts from jobs as they stream past, for :func:`write_rumen_topology`.

    ``for job in collector.observe(iter_jobhistory_jobs(p)): ...`` leaves ``collector.hosts`` filled.
    """

    def __init__(self) -> None:
        self.hosts: set[Host] = set()

    def add_job(self, job: Mapping[str, Any]) -> None:
        self.hosts.update(job_hosts(job))

    def observe(self, jobs: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        for job in jobs:
            self.add_job(job)
            yield job


def topology_from_hosts(hosts: Iterable[Host]) -> dict[str, Any]:
    """A ``LoggedNetworkTopology`` dict: racks and hosts sorted by name (Rumen's order is a hash order)."""
    racks: dict[str, set[str]] = {}
    for rack, host in hosts:
        racks.setdefault(rack, set()).add(host)
    return {
        "name": "<root>",
        "children": [
            {"name": rack, "children": [{"name": host, "children": None} for host in sorted(racks[rack])]}
            for rack in sorted(racks)
        ],
    }


def write_rumen_topology(
    topology: Mapping[str, Any] | Iterable[Host], path: str | os.PathLike[str], *, pretty: bool = False
) -> None:
    """Write a topology at ``path``: a ready ``LoggedNetworkTopology`` dict or ``(rack, host)`` pairs."""
    if not isinstance(topology, Mapping):
        topology = topology_from_hosts(topology)
    with atomic_write(path, "wb", what="the Rumen trace") as fh:
        fh.write(_dumps(dict(topology), pretty))
        fh.write(b"\n")
