"""The ResourceManager's preemption settings: which keys turn it on, with Hadoop's defaults.

Capacity (``ProportionalCapacityPreemptionPolicy``, Hadoop 3 ``yarn-default.xml`` and
``CapacitySchedulerConfiguration``), read from the ``--yarn-site`` files and then ``capacity-scheduler.xml`` (the
scheduler's configuration is loaded over yarn-site.xml, as the RM loads it):

* ``yarn.resourcemanager.scheduler.monitor.enable`` (false) and ``...scheduler.monitor.policies`` (the
  ``ProportionalCapacityPreemptionPolicy`` class): preemption runs only when both say so;
* ``yarn.resourcemanager.monitor.capacity.preemption.`` + ``monitoring_interval`` (3000 ms),
  ``max_wait_before_kill`` (15000 ms), ``total_preemption_per_round`` (0.1), ``max_ignored_over_capacity`` (0.1),
  ``natural_termination_factor`` (0.2), ``observe_only`` (false);
* ``yarn.scheduler.capacity.<queue-path>.disable_preemption`` (false; a queue inherits its parent's value).

Fair's preemption (``FSPreemptionThread``, ``yarn.scheduler.fair.preemption``) is not modelled: the Fair Scheduler
reports its keys as ignored.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Mapping

from mrsim.errors import InputError
from mrsim.tracker.schedconf.site_file import read_site_file

MONITOR_ENABLE = "yarn.resourcemanager.scheduler.monitor.enable"
MONITOR_POLICIES = "yarn.resourcemanager.scheduler.monitor.policies"
PCPP = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy"
PRE = "yarn.resourcemanager.monitor.capacity.preemption."
INTERVAL = PRE + "monitoring_interval"
MAX_WAIT = PRE + "max_wait_before_kill"
PER_ROUND = PRE + "total_preemption_per_round"
IGNORED_OVER = PRE + "max_ignored_over_capacity"
NATURAL = PRE + "natural_termination_factor"
OBSERVE_ONLY = PRE + "observe_only"
DISABLE = "disable_preemption"  # yarn.scheduler.capacity.<queue-path>.disable_preemption

#: yarn-site keys read here (the ``--yarn-site`` check of unmodelled keys skips them)
HONOURED = frozenset({MONITOR_ENABLE, MONITOR_POLICIES, INTERVAL, MAX_WAIT, PER_ROUND, IGNORED_OVER, NATURAL,
                      OBSERVE_ONLY})


def is_preemption_key(key: str) -> bool:
    """A key of the Capacity Scheduler's preemption (this module's), in yarn-site.xml or capacity-scheduler.xml."""
    return key in HONOURED or key.startswith(PRE) or (key.startswith("yarn.scheduler.capacity.")
                                                      and key.endswith("." + DISABLE))


@dataclass(frozen=True)
class CapacityPreemption:
    """``ProportionalCapacityPreemptionPolicy``'s settings (times in seconds, fractions)."""

    interval_s: float = 3.0
    max_wait_s: float = 15.0
    total_preemption_per_round: float = 0.1
    max_ignored_over_capacity: float = 0.1
    natural_termination_factor: float = 0.2
    observe_only: bool = False
    sources: tuple[str, ...] = ()

    def describe(self) -> dict:
        return {"policy": PCPP.rsplit(".", 1)[-1], "monitoring_interval_s": self.interval_s,
                "max_wait_before_kill_s": self.max_wait_s,
                "total_preemption_per_round": self.total_preemption_per_round,
                "max_ignored_over_capacity": self.max_ignored_over_capacity,
                "natural_termination_factor": self.natural_termination_factor, "observe_only": self.observe_only,
                "sources": list(self.sources)}


def site_values(files: tuple[str | os.PathLike[str], ...]) -> dict[str, tuple[str, str]]:
    """``key -> (value, where)`` of every property of ``files`` (later files win)."""
    out: dict[str, tuple[str, str]] = {}
    for path in files:
        for key, prop in read_site_file(path).props.items():
            out[key] = (str(prop.value).strip(), f"{path}:{prop.line}" if prop.line else str(path))
    return out


def _bool(values: Mapping[str, tuple[str, str]], key: str, default: bool) -> bool:
    if key not in values:
        return default
    text, where = values[key]
    if text.lower() not in ("true", "false"):
        raise InputError(f"{where}: {key} = {text!r} is not true or false")
    return text.lower() == "true"


def _number(values: Mapping[str, tuple[str, str]], key: str, default: float, low: float, high: float) -> float:
    if key not in values:
        return default
    text, where = values[key]
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {key} = {text!r} is not a number") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise InputError(f"{where}: {key} = {text!r} is outside [{low:g}, {high:g}]")
    return value


def capacity_preemption(values: Mapping[str, tuple[str, str]]) -> CapacityPreemption | None:
    """The policy's settings when the monitor is on with ``ProportionalCapacityPreemptionPolicy``, else None."""
    if not _bool(values, MONITOR_ENABLE, False):
        return None
    policies = values.get(MONITOR_POLICIES, (PCPP, ""))[0]
    if not any(p.strip().rsplit(".", 1)[-1] == "ProportionalCapacityPreemptionPolicy" for p in policies.split(",")):
        return None
    big = float(2 ** 40)
    return CapacityPreemption(
        interval_s=_number(values, INTERVAL, 3000.0, 1.0, big) / 1000.0,
        max_wait_s=_number(values, MAX_WAIT, 15000.0, 0.0, big) / 1000.0,
        total_preemption_per_round=_number(values, PER_ROUND, 0.1, 0.0, 1.0),
        max_ignored_over_capacity=_number(values, IGNORED_OVER, 0.1, 0.0, big),
        natural_termination_factor=_number(values, NATURAL, 0.2, 0.0, 1.0),
        observe_only=_bool(values, OBSERVE_ONLY, False),
        sources=tuple(sorted({where.rsplit(":", 1)[0] for key, (_v, where) in values.items()
                              if (key in HONOURED or key.startswith(PRE)) and where})))


def disabled_queues(values: Mapping[str, tuple[str, str]], paths: list[str]) -> set[str]:
    """Queue paths with preemption disabled (``disable_preemption``, inherited from the parent unless set)."""
    out: set[str] = set()
    for path in sorted(paths, key=lambda p: p.count(".")):
        key = f"yarn.scheduler.capacity.{path}.{DISABLE}"
        parent = path.rsplit(".", 1)[0] if "." in path else None
        inherited = parent in out if parent is not None else False
        if _bool(values, key, inherited):
            out.add(path)
    return out
