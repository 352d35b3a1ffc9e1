"""Fair Scheduler settings from ``mapred-site.xml`` (MRv1, ``FairScheduler.start``) or ``yarn-site.xml`` (YARN),
plus the allocation file they name: one frozen :class:`FairSchedulerConf`.

Where values come from (later wins): the replay's ``--mapred-site`` file, the ``--scheduler-config`` file when it
is a ``<configuration>`` file, then the Python config dict. ``--scheduler-config`` may instead be the allocation
file itself (root ``<allocations>``). The keys are the ``KEY_*`` (MRv1) and ``YKEY_*`` (YARN) constants below,
each with Hadoop's default beside it (``docs/hadoop-behaviour.md`` §3.1, §6). Keys mrsim does not model are warned
about (:attr:`FairSchedulerConf.warnings`, also in ``describe()``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from mrsim.tracker.schedconf.fair_alloc import ContainerSize, Dialect, FairAllocations, load_allocations
from mrsim.tracker.schedconf.filekind import FileKind, check_scheduler_file
from mrsim.tracker.schedconf.properties import Layers, dict_layer, file_layer
from mrsim.errors import InputError

P = "mapred.fairscheduler."
KEY_ALLOCATION_FILE = P + "allocation.file"  # unset: no pools configured
KEY_POOLNAMEPROPERTY = P + "poolnameproperty"  # user.name
KEY_POOL = P + "pool"  # job conf: explicit pool (read from JobTemplate.extra)
KEY_ALLOW_UNDECLARED = P + "allow.undeclared.pools"  # true
KEY_ASSIGNMULTIPLE = P + "assignmultiple"  # true
KEY_ASSIGNMULTIPLE_MAPS = P + "assignmultiple.maps"  # -1
KEY_ASSIGNMULTIPLE_REDUCES = P + "assignmultiple.reduces"  # -1
KEY_UPDATE_INTERVAL = P + "update.interval"  # 500 ms
KEY_PREEMPTION = P + "preemption"  # false
KEY_PREEMPTION_ONLY_LOG = P + "preemption.only.log"  # false
KEY_PREEMPTION_INTERVAL = P + "preemption.interval"  # 15000 ms
KEY_LOCALITY_DELAY = P + "locality.delay"  # -1 (auto)
KEY_LOCALITY_DELAY_NODE = P + "locality.delay.node"  # locality.delay
KEY_LOCALITY_DELAY_RACK = P + "locality.delay.rack"  # locality.delay
KEY_SIZEBASEDWEIGHT = P + "sizebasedweight"  # false
KEY_LOAD_MAX_DIFF = P + "load.max.diff"  # 0.0
_NOT_MODELLED = {P + "weightadjuster", P + "loadmanager", P + "taskselector", P + "eventlog.enabled",
                 P + "dump.interval", "mapred.newjobweightbooster.factor", "mapred.newjobweightbooster.duration"}

Y = "yarn.scheduler.fair."
YKEY_ALLOCATION_FILE = Y + "allocation.file"
YKEY_USER_AS_DEFAULT_QUEUE = Y + "user-as-default-queue"  # true
YKEY_ALLOW_UNDECLARED = Y + "allow-undeclared-pools"  # true
YKEY_PREEMPTION = Y + "preemption"  # false
YKEY_SIZEBASEDWEIGHT = Y + "sizebasedweight"  # false
YKEY_ASSIGNMULTIPLE = Y + "assignmultiple"  # false
YKEY_MAX_ASSIGN = Y + "max.assign"  # -1
YKEY_THRESHOLD_NODE = Y + "locality.threshold.node"  # -1.0
YKEY_THRESHOLD_RACK = Y + "locality.threshold.rack"  # -1.0
YKEY_DELAY_NODE_MS = Y + "locality-delay-node-ms"  # -1
YKEY_DELAY_RACK_MS = Y + "locality-delay-rack-ms"  # -1
YKEY_UPDATE_INTERVAL = Y + "update-interval-ms"  # 500
_Y_NOT_MODELLED = {Y + "preemption.cluster-utilization-threshold", Y + "continuous-scheduling-enabled",
                   Y + "dynamic.max.assign", Y + "continuous-scheduling-sleep-ms"}

KEY_MAP_MB = "mapreduce.map.memory.mb"  # 1024: one map slot = one container of this size (YARN files)
KEY_REDUCE_MB = "mapreduce.reduce.memory.mb"  # 1024
KEY_MAP_VCORES = "mapreduce.map.cpu.vcores"  # 1
KEY_REDUCE_VCORES = "mapreduce.reduce.cpu.vcores"  # 1

MAX_AUTOCOMPUTED_LOCALITY_DELAY_S = 15.0  # FairScheduler.MAX_AUTOCOMPUTED_LOCALITY_DELAY


@dataclass(frozen=True)
class FairSchedulerConf:
    """Effective Fair Scheduler settings. Times in seconds (Hadoop's keys are ms).

    Locality delays: ``node_delay_s`` / ``rack_delay_s`` are fixed waits; ``None`` means Hadoop's auto value
    min(15 s, 1.5 x heartbeat interval) (both delays, MRv1 default). ``*_delay_intervals`` (YARN locality
    thresholds) are waits in heartbeat intervals, resolved by the scheduler.
    """

    allocations: FairAllocations = field(default_factory=FairAllocations)
    dialect: Dialect = Dialect.MRV1
    poolnameproperty: str = "user.name"
    allow_undeclared_pools: bool = True
    user_as_default_queue: bool = True
    assignmultiple: bool = True
    assignmultiple_maps: int = -1
    assignmultiple_reduces: int = -1
    update_interval_s: float = 0.5
    preemption: bool = False
    preemption_only_log: bool = False
    preemption_interval_s: float = 15.0
    node_delay_s: float | None = None
    rack_delay_s: float | None = None
    node_delay_intervals: float | None = None
    rack_delay_intervals: float | None = None
    sizebasedweight: bool = False
    load_max_diff: float = 0.0
    containers: ContainerSize = field(default_factory=ContainerSize)
    sources: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def locality_delays_s(self, heartbeat_interval_s: float) -> tuple[float, float]:
        """(node, rack) delays in seconds for a cluster whose heartbeat interval is given."""
        auto = min(MAX_AUTOCOMPUTED_LOCALITY_DELAY_S, 1.5 * heartbeat_interval_s)
        node = auto if self.node_delay_s is None else self.node_delay_s
        rack = auto if self.rack_delay_s is None else self.rack_delay_s
        if self.node_delay_intervals is not None:
            node = self.node_delay_intervals * heartbeat_interval_s
        if self.rack_delay_intervals is not None:
            rack = self.rack_delay_intervals * heartbeat_interval_s
        return node, rack

    def describe(self) -> dict:
        return {
            "dialect": self.dialect.value,
            "poolnameproperty": self.poolnameproperty,
            "allow_undeclared_pools": self.allow_undeclared_pools,
            "assignmultiple": self.assignmultiple,
            "assignmultiple_maps": self.assignmultiple_maps,
            "assignmultiple_reduces": self.assignmultiple_reduces,
            "update_interval_s": self.update_interval_s,
            "preemption": self.preemption,
            "preemption_only_log": self.preemption_only_log,
            "preemption_interval_s": self.preemption_interval_s,
            "locality_delay_node_s": self.node_delay_s,
            "locality_delay_rack_s": self.rack_delay_s,
            "sizebasedweight": self.sizebasedweight,
            "load_max_diff": self.load_max_diff,
            "allocations": self.allocations.describe(),
            "sources": list(self.sources),
        }


def _nonneg_ms(layers: Layers, key: str, default: float) -> float:
    value = layers.number(key, default)
    if value < 0:
        raise layers.fail(key, f"must not be negative, got {value:g}")
    return value / 1000.0


def load_fair_conf(config: Mapping[str, object] | None = None,
                   mapred_site: str | os.PathLike[str] | None = None) -> FairSchedulerConf:
    """Build the effective settings from the three layers (see the module docstring). Cost: O(files)."""
    config = dict(config or {})
    layer_list = []
    sources: list[str] = []
    if mapred_site:
        layer_list.append(file_layer(mapred_site))
        sources.append(str(mapred_site))
    alloc_path: Path | None = None
    cfg = config.get("config_file")
    if cfg:
        look = check_scheduler_file("fair", str(cfg))  # not a capacity file (mrsim.tracker.schedconf.filekind)
        if look.kind is FileKind.FAIR_ALLOCATIONS:
            alloc_path = Path(str(cfg))
        else:
            layer_list.append(file_layer(str(cfg)))
        sources.append(str(cfg))
    layer_list.append(dict_layer(config))
    layers = Layers(layer_list)
    if alloc_path is None:
        alloc_path = layers.path(YKEY_ALLOCATION_FILE) or layers.path(KEY_ALLOCATION_FILE)
        if alloc_path is not None:
            sources.append(str(alloc_path))
    containers = ContainerSize(
        layers.number(KEY_MAP_MB, 1024.0), layers.number(KEY_REDUCE_MB, 1024.0),
        layers.number(KEY_MAP_VCORES, 1.0), layers.number(KEY_REDUCE_VCORES, 1.0),
    )
    for key, value in ((KEY_MAP_MB, containers.map_mb), (KEY_REDUCE_MB, containers.reduce_mb),
                       (KEY_MAP_VCORES, containers.map_vcores), (KEY_REDUCE_VCORES, containers.reduce_vcores)):
        if not value > 0:
            raise layers.fail(key, "must be positive")
    allocations = load_allocations(alloc_path, containers) if alloc_path is not None else FairAllocations()
    keys = layers.keys()
    yarn = allocations.dialect is Dialect.YARN or any(k.startswith(Y) for k in keys)
    warnings = list(allocations.warnings)
    for k in sorted(keys):
        if k in _NOT_MODELLED or k in _Y_NOT_MODELLED:
            warnings.append(f"{layers.location(k)}: {k} is not modelled (ignored)")
        elif (k.startswith(P) and k not in _KNOWN) or (k.startswith(Y) and k not in _Y_KNOWN):
            warnings.append(f"{layers.location(k)}: unknown key {k} ignored")

    values: dict[str, object] = {}
    if yarn:
        values["dialect"] = Dialect.YARN
        values["user_as_default_queue"] = layers.boolean(YKEY_USER_AS_DEFAULT_QUEUE, True)
        values["allow_undeclared_pools"] = layers.boolean(YKEY_ALLOW_UNDECLARED, True)
        values["preemption"] = layers.boolean(YKEY_PREEMPTION, False)
        values["sizebasedweight"] = layers.boolean(YKEY_SIZEBASEDWEIGHT, False)
        values["assignmultiple"] = layers.boolean(YKEY_ASSIGNMULTIPLE, False)
        cap = layers.integer(YKEY_MAX_ASSIGN, -1)
        values["assignmultiple_maps"] = values["assignmultiple_reduces"] = cap if cap > 0 else -1
        values["update_interval_s"] = _nonneg_ms(layers, YKEY_UPDATE_INTERVAL, 500.0)
        # YARN default: no locality waiting at all (thresholds -1.0).
        node_ms, rack_ms = layers.number(YKEY_DELAY_NODE_MS, -1.0), layers.number(YKEY_DELAY_RACK_MS, -1.0)
        node_t, rack_t = layers.number(YKEY_THRESHOLD_NODE, -1.0), layers.number(YKEY_THRESHOLD_RACK, -1.0)
        values["node_delay_s"] = node_ms / 1000.0 if node_ms >= 0 else 0.0
        values["rack_delay_s"] = rack_ms / 1000.0 if rack_ms >= 0 else 0.0
        if node_ms < 0 and node_t >= 0:
            values["node_delay_intervals"] = node_t
        if rack_ms < 0 and rack_t >= 0:
            values["rack_delay_intervals"] = rack_t
    else:
        values["poolnameproperty"] = (layers.text(KEY_POOLNAMEPROPERTY, "user.name") or "user.name").strip()
        values["allow_undeclared_pools"] = layers.boolean(KEY_ALLOW_UNDECLARED, True)
        values["assignmultiple"] = layers.boolean(KEY_ASSIGNMULTIPLE, True)
        values["assignmultiple_maps"] = layers.integer(KEY_ASSIGNMULTIPLE_MAPS, -1)
        values["assignmultiple_reduces"] = layers.integer(KEY_ASSIGNMULTIPLE_REDUCES, -1)
        values["update_interval_s"] = _nonneg_ms(layers, KEY_UPDATE_INTERVAL, 500.0)
        values["preemption"] = layers.boolean(KEY_PREEMPTION, False)
        values["preemption_only_log"] = layers.boolean(KEY_PREEMPTION_ONLY_LOG, False)
        values["preemption_interval_s"] = _nonneg_ms(layers, KEY_PREEMPTION_INTERVAL, 15000.0)
        values["sizebasedweight"] = layers.boolean(KEY_SIZEBASEDWEIGHT, False)
        values["load_max_diff"] = layers.number(KEY_LOAD_MAX_DIFF, 0.0)
        default = layers.number(KEY_LOCALITY_DELAY, -1.0)
        node = layers.number(KEY_LOCALITY_DELAY_NODE, default)
        rack = layers.number(KEY_LOCALITY_DELAY_RACK, default)
        # FairScheduler.start: auto-compute when locality.delay is -1 and either delay is -1; then BOTH delays are
        # overwritten on every update() (one explicitly set value is discarded too: Hadoop's quirk, kept).
        if not (default == -1 and (node == -1 or rack == -1)):
            values["node_delay_s"] = max(0.0, node) / 1000.0
            values["rack_delay_s"] = max(0.0, rack) / 1000.0
    if not values["update_interval_s"] > 0:  # type: ignore[operator]
        raise InputError(f"{layers.location(KEY_UPDATE_INTERVAL)}: the update interval must be positive")
    return FairSchedulerConf(allocations=allocations, containers=containers, sources=tuple(sources),
                             warnings=tuple(warnings), **values)  # type: ignore[arg-type]


_KNOWN = {KEY_ALLOCATION_FILE, KEY_POOLNAMEPROPERTY, KEY_POOL, KEY_ALLOW_UNDECLARED, KEY_ASSIGNMULTIPLE,
          KEY_ASSIGNMULTIPLE_MAPS, KEY_ASSIGNMULTIPLE_REDUCES, KEY_UPDATE_INTERVAL, KEY_PREEMPTION,
          KEY_PREEMPTION_ONLY_LOG, KEY_PREEMPTION_INTERVAL, KEY_LOCALITY_DELAY, KEY_LOCALITY_DELAY_NODE,
          KEY_LOCALITY_DELAY_RACK, KEY_SIZEBASEDWEIGHT, KEY_LOAD_MAX_DIFF} | _NOT_MODELLED
_Y_KNOWN = {YKEY_ALLOCATION_FILE, YKEY_USER_AS_DEFAULT_QUEUE, YKEY_ALLOW_UNDECLARED, YKEY_PREEMPTION,
            YKEY_SIZEBASEDWEIGHT, YKEY_ASSIGNMULTIPLE, YKEY_MAX_ASSIGN, YKEY_THRESHOLD_NODE, YKEY_THRESHOLD_RACK,
            YKEY_DELAY_NODE_MS, YKEY_DELAY_RACK_MS, YKEY_UPDATE_INTERVAL} | _Y_NOT_MODELLED
