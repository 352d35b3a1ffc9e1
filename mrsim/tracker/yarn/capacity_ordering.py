"""The order in which a Capacity leaf queue serves its applications: application priorities and the queue's
ordering policy (Hadoop 3's ``FifoOrderingPolicy``, ``FairOrderingPolicy``, ``FifoOrderingPolicyForPendingApps``).

Keys (``capacity-scheduler.xml``; ``yarn.cluster.max-application-priority`` also from the ``--yarn-site`` files):

* ``yarn.scheduler.capacity.<queue-path>.ordering-policy``: ``fifo`` (default) or ``fair`` (or the policies'
  class names); ``...ordering-policy.fair.enable-size-based-weight`` (false);
* ``yarn.cluster.max-application-priority`` (0): an application's priority is capped at it, so with the default
  every application has priority 0 and priorities change nothing;
* ``yarn.scheduler.capacity.<queue-path>.default-application-priority`` (0): the priority of a job that asks for
  none; a job asks with its conf's ``mapreduce.job.priority`` (``VERY_HIGH`` 5, ``HIGH`` 4, ``NORMAL`` 3, ``LOW`` 2,
  ``VERY_LOW`` 1, ``DEFAULT`` 0, or a number: MapReduce's ``TypeConverter.toYarnApplicationPriority``).

``fifo`` serves the higher priority first, then the earlier submission (``PriorityComparator``, ``FifoComparator``);
``fair`` serves the application with the least memory in use first (divided by ``log2(1 + demand MB)`` with size-based
weight, demand being usage plus asks), then the earlier submission (``FairComparator``, ``FifoComparator``: no
priority). Waiting applications are activated by priority, then
submission (``FifoOrderingPolicyForPendingApps``). The preemption monitor takes from the applications in the reverse
of this order. Cost per leaf walk: O(1) for ``fifo`` with equal priorities (the submission order as kept), else
a sort of the active applications, O(a log a).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Mapping

from mrsim.errors import InputError
from mrsim.tracker.schedconf.site_file import read_site_file

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.schedulers.base import SchedulerApp

P = "yarn.scheduler.capacity."
MAX_PRIORITY = "yarn.cluster.max-application-priority"
JOB_PRIORITY = "mapreduce.job.priority"
_NAMED = {"VERY_HIGH": 5, "HIGH": 4, "NORMAL": 3, "LOW": 2, "VERY_LOW": 1, "DEFAULT": 0}
_POLICIES = {"fifo": "fifo", "fair": "fair", "FifoOrderingPolicy": "fifo", "FairOrderingPolicy": "fair"}


def is_ordering_key(key: str) -> bool:
    """A key this module reads (the Capacity Scheduler does not report it as ignored)."""
    return key == MAX_PRIORITY or (key.startswith(P) and (key.endswith(".ordering-policy")
                                                         or key.endswith(".ordering-policy.fair.enable-size-based-weight")
                                                         or key.endswith(".default-application-priority")))


def job_priority(properties: Mapping[str, Any] | None, job_id: str) -> int | None:
    """The priority a job asks for (``mapreduce.job.priority``), or None."""
    text = (properties or {}).get(JOB_PRIORITY)
    if text is None or str(text).strip() == "":
        return None
    value = str(text).strip()
    if value.upper() in _NAMED:
        return _NAMED[value.upper()]
    try:
        return int(value)
    except ValueError:
        raise InputError(f"job {job_id}: {JOB_PRIORITY} = {value!r} is not a JobPriority name or an integer") from None


class Ordering:
    """The ordering settings of one Capacity Scheduler: per leaf path its policy, size-based weight and default
    priority; the cluster's maximum priority."""

    def __init__(self, props: Mapping[str, tuple[str, int]], source: str, site_files: tuple = ()) -> None:
        self.props = props
        self.source = source
        self.max_priority = 0
        for path in site_files:
            found = read_site_file(path).props.get(MAX_PRIORITY)
            if found is not None:
                self.max_priority = self._int(str(found.value), f"{path}:{found.line}", MAX_PRIORITY)
        if MAX_PRIORITY in props:
            self.max_priority = self._int(props[MAX_PRIORITY][0], self._where(MAX_PRIORITY), MAX_PRIORITY)
        self.policy: dict[str, str] = {}
        self.size_based: dict[str, bool] = {}
        self.default_priority: dict[str, int] = {}

    def _where(self, key: str) -> str:
        line = self.props.get(key, ("", 0))[1]
        return f"{self.source}:{line}" if line else self.source

    @staticmethod
    def _int(text: str, where: str, key: str) -> int:
        try:
            return int(str(text).strip())
        except ValueError:
            raise InputError(f"{where}: {key} = {text!r} is not an integer") from None

    def add_leaf(self, path: str) -> None:
        """Read the leaf's keys (a leaf inherits no ordering policy: Hadoop's default is fifo per queue)."""
        key = f"{P}{path}.ordering-policy"
        text = self.props.get(key, ("fifo", 0))[0].strip()
        short = text.rsplit(".", 1)[-1]
        if short not in _POLICIES:
            raise InputError(f"{self._where(key)}: queue {path}: {key} = {text!r} is not fifo or fair")
        self.policy[path] = _POLICIES[short]
        weight_key = f"{key}.fair.enable-size-based-weight"
        weight = self.props.get(weight_key, ("false", 0))[0].strip().lower()
        if weight not in ("true", "false"):
            raise InputError(f"{self._where(weight_key)}: queue {path}: {weight_key} = {weight!r} is not true or false")
        self.size_based[path] = weight == "true"
        pkey = f"{P}{path}.default-application-priority"
        if pkey in self.props:
            self.default_priority[path] = self._int(self.props[pkey][0], self._where(pkey), pkey)

    def priority(self, path: str, asked: int | None) -> int:
        """``CapacityScheduler.checkAndGetApplicationPriority``: the asked priority, else the queue's default; at
        most the cluster's maximum."""
        value = asked if asked is not None else self.default_priority.get(path, 0)
        return min(value, self.max_priority)

    def plain(self, path: str, any_priority: bool) -> bool:
        """Whether the leaf serves in submission order (fifo with every priority equal)."""
        return self.policy.get(path, "fifo") == "fifo" and not any_priority

    def order(self, path: str, apps: "list[SchedulerApp]", priority: "dict[int, int]") -> "list[SchedulerApp]":
        """The leaf's active applications in the order it serves them."""
        if self.policy.get(path, "fifo") == "fair":
            size_based = self.size_based.get(path, False)

            def magnitude(app: "SchedulerApp") -> float:
                used = app.used_mem
                if size_based:
                    weight = math.log1p(app.used_mem + app.pending_mb) / math.log(2)
                    return used / weight if weight else math.inf
                return used

            return sorted(apps, key=lambda a: (magnitude(a), a.order))
        return sorted(apps, key=lambda a: (-priority.get(a.index, 0), a.order))


def load(props: Mapping[str, tuple[str, int]], source: str, site_files: tuple[str | os.PathLike[str], ...],
         leaves: list[str]) -> Ordering:
    ordering = Ordering(props, source, tuple(site_files))
    for path in leaves:
        ordering.add_leaf(path)
    return ordering


def attach_priorities(scheduler: Any, workload: Any) -> None:
    """Give a Capacity Scheduler the priority each job asks for (its conf's ``mapreduce.job.priority``), by app
    index, before the replay starts. Other schedulers ignore job priorities (not modelled)."""
    if getattr(scheduler, "name", "") != "capacity":
        return
    asked: dict[int, int] = {}
    for i, tmpl in enumerate(workload.jobs):
        props = tmpl.extra.get("properties")
        found = job_priority(props if isinstance(props, dict) else None, tmpl.job_id)
        if found is not None:
            asked[i] = found
    scheduler.asked_priority = asked
