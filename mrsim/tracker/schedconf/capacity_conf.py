"""Capacity Scheduler settings: MRv1 ``capacity-scheduler.xml`` (``CapacitySchedulerConf``, Hadoop 0.20.203-1.2)
or YARN ``capacity-scheduler.xml`` (``yarn.scheduler.capacity.root...``), into one frozen :class:`CapacityConf`:
what the MRv1 Capacity Scheduler (``schedulers/capacity.py``) takes from the one reading of the file
(:func:`mrsim.tracker.schedconf.capacity_file.read_capacity_file`, which YARN's Capacity Scheduler reads too),
layered over ``--mapred-site`` and under the config dict.

Queue names (MRv1, ``QueueManager``): ``mapred.queue.names`` from the replay's ``--mapred-site`` file, or, as an
mrsim convenience, from the capacity file itself or the config dict. If it is set nowhere, the queues are the ones
that have a ``...queue.<q>.capacity`` key, in file order (Hadoop would use just ``default``), with a warning.

Checks Hadoop makes at start-up (``CapacityTaskScheduler.start``, §4.1), each an InputError naming the file:
every queue needs a capacity in [0, 100]; floor(sum of capacities) must be exactly 100; maximum-capacity must be
>= capacity and <= 100 (<= 0 means none); minimum-user-limit-percent in 1..100; user-limit-factor > 0.

YARN (§6.2): ``yarn.scheduler.capacity.root.queues`` and ``<path>.queues`` define the tree; children of each
parent must sum to 100 (Hadoop 3 weights ``2w`` are turned into percentages of their siblings). A leaf's
capacity becomes capacity x its ancestors' capacities (absolute %), its maximum-capacity the product of the
maximum-capacities (-1 = 100 %) along the path; ``minimum-user-limit-percent`` and ``user-limit-factor`` keep
their meaning. Jobs name a leaf by its short name or full path. Not mapped (warned): absolute resources
``[memory=...]`` (an InputError: there is no cluster memory in the slot model), ``maximum-applications``,
``maximum-am-resource-percent``, ``state``, ACLs, ``ordering-policy``, ``node-locality-delay``, priorities and
preemption; YARN orders apps by submission, i.e. supports-priority is false.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Mapping

from mrsim.tracker.schedconf.capacity_file import dialect_of, queue_list, read_capacity_file
from mrsim.tracker.schedconf.document import Dialect
from mrsim.tracker.schedconf.filekind import check_scheduler_file
from mrsim.tracker.schedconf.properties import Layers, dict_layer, file_layer, site_layer
from mrsim.errors import InputError

KEY_QUEUE_NAMES = "mapred.queue.names"  # "default"
C = "mapred.capacity-scheduler."
Q = C + "queue."
DEFAULT_SUPPORTS_PRIORITY = C + "default-supports-priority"  # false
DEFAULT_MIN_USER_LIMIT = C + "default-minimum-user-limit-percent"  # 100
DEFAULT_USER_LIMIT_FACTOR = C + "default-user-limit-factor"  # 1.0
KEY_MAX_TASKS_PER_HEARTBEAT = C + "maximum-tasks-per-heartbeat"  # 32767 (Short.MAX_VALUE)
KEY_MAX_TASKS_AFTER_OFFSWITCH = C + "maximum-tasks-after-offswitch"  # 0
KEY_LOCALITY_WAIT_FACTOR = "mapreduce.job.locality.wait.factor"  # 1.0 (job conf; one value for all jobs here)
KEY_CLUSTER_MAP_MB = "mapred.cluster.map.memory.mb"  # -1: memory-based scheduling off unless all four are set
KEY_CLUSTER_REDUCE_MB = "mapred.cluster.reduce.memory.mb"
KEY_CLUSTER_MAX_MAP_MB = "mapred.cluster.max.map.memory.mb"
KEY_CLUSTER_MAX_REDUCE_MB = "mapred.cluster.max.reduce.memory.mb"
_QUEUE_SUFFIXES = {"capacity", "maximum-capacity", "supports-priority", "minimum-user-limit-percent",
                   "user-limit-factor"}
_QUEUE_NOT_MODELLED = {"maximum-initialized-active-tasks", "maximum-initialized-active-tasks-per-user",
                       "init-accept-jobs-factor", "maximum-initialized-jobs-per-user"}
_GLOBAL_NOT_MODELLED = {C + "maximum-system-jobs", C + "init-poll-interval", C + "init-worker-threads",
                        C + "default-maximum-active-tasks-per-queue", C + "default-maximum-active-tasks-per-user",
                        C + "default-init-accept-jobs-factor", C + "default-maximum-initialized-jobs-per-user",
                        C + "reclaimCapacity.interval"}
_GLOBAL_KNOWN = {DEFAULT_SUPPORTS_PRIORITY, DEFAULT_MIN_USER_LIMIT, DEFAULT_USER_LIMIT_FACTOR,
                 KEY_MAX_TASKS_PER_HEARTBEAT, KEY_MAX_TASKS_AFTER_OFFSWITCH}

Y = "yarn.scheduler.capacity."
_Y_QUEUE_SUFFIXES = {"capacity", "maximum-capacity", "minimum-user-limit-percent", "user-limit-factor", "queues"}


@dataclass(frozen=True)
class QueueConf:
    """One queue. ``capacity_pct`` / ``maximum_capacity_pct`` are % of the cluster's slots of each kind."""

    name: str
    capacity_pct: float
    maximum_capacity_pct: float | None = None
    supports_priority: bool = False
    minimum_user_limit_percent: int = 100
    user_limit_factor: float = 1.0
    aliases: tuple[str, ...] = ()  # YARN: the leaf's full path ``root.a.b`` besides its short name


@dataclass(frozen=True)
class MemoryConf:
    """Memory-based scheduling (``mapred.cluster.*.memory.mb``): slots per task = ceil(job MB / slot MB)."""

    map_slot_mb: float = -1.0
    reduce_slot_mb: float = -1.0
    max_map_mb: float = -1.0
    max_reduce_mb: float = -1.0

    @property
    def enabled(self) -> bool:
        return min(self.map_slot_mb, self.reduce_slot_mb, self.max_map_mb, self.max_reduce_mb) > 0


@dataclass(frozen=True)
class CapacityConf:
    """Effective Capacity Scheduler settings; queues in ``mapred.queue.names`` order (mrsim's tie-break)."""

    queues: tuple[QueueConf, ...] = (QueueConf("default", 100.0),)
    maximum_tasks_per_heartbeat: int = 32767
    maximum_tasks_after_offswitch: int = 0
    locality_wait_factor: float = 1.0
    memory: MemoryConf = field(default_factory=MemoryConf)
    dialect: Dialect = Dialect.MRV1
    sources: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def queue_index(self) -> dict[str, int]:
        """Queue name (and YARN aliases) -> position."""
        out: dict[str, int] = {}
        for i, q in enumerate(self.queues):
            out[q.name] = i
            for a in q.aliases:
                out.setdefault(a, i)
        return out

    def describe(self) -> dict:
        return {
            "dialect": self.dialect.value,
            "queues": {q.name: {"capacity": q.capacity_pct, "maximum-capacity": q.maximum_capacity_pct,
                                "supports-priority": q.supports_priority,
                                "minimum-user-limit-percent": q.minimum_user_limit_percent,
                                "user-limit-factor": q.user_limit_factor} for q in self.queues},
            "maximum-tasks-per-heartbeat": self.maximum_tasks_per_heartbeat,
            "maximum-tasks-after-offswitch": self.maximum_tasks_after_offswitch,
            "locality-wait-factor": self.locality_wait_factor,
            "memory_scheduling": self.memory.enabled,
            "sources": list(self.sources),
        }


#: Hadoop reads the task counts with ``Configuration.getInt`` (a Java int) and the factors with ``getFloat``: a
#: larger value is no configuration Hadoop runs, and would reach the engine's C types unchecked.
_JAVA_INT_MAX = 2**31 - 1
_JAVA_FLOAT_MAX = 3.4028234663852886e38


def _user_limit_factor(layers: Layers, key: str, default: float) -> float:
    """``key``'s user-limit-factor (``default`` when unset), within a Java float (:func:`_check_queue` checks that
    it is positive)."""
    value = layers.number(key, default)
    if layers.has(key) and not value <= _JAVA_FLOAT_MAX:
        raise layers.fail(key, f"{value:g} is out of range (a Java float: at most {_JAVA_FLOAT_MAX:.7g})")
    return value


def _task_count(layers: Layers, key: str, default: int, least: int) -> int:
    """``key``'s count of tasks (``default`` when unset) within [``least``, Java int max]."""
    value = layers.integer(key, default)
    if value < least:
        raise layers.fail(key, "must be at least 1" if least else "must not be negative")
    if value > _JAVA_INT_MAX:
        raise layers.fail(key, f"{value} is out of range (a Java int: at most {_JAVA_INT_MAX:,})")
    return value


def _check_queue(layers: Layers, q: QueueConf, cap_key: str, max_key: str, ul_key: str, ulf_key: str) -> None:
    if not 0 <= q.capacity_pct <= 100:
        raise layers.fail(cap_key, f"capacity of queue {q.name!r} must be within [0, 100], got {q.capacity_pct:g}")
    if q.maximum_capacity_pct is not None:
        if q.maximum_capacity_pct > 100 + 1e-9:
            raise layers.fail(max_key, f"maximum-capacity of queue {q.name!r} must be at most 100")
        if q.maximum_capacity_pct < q.capacity_pct - 1e-9:
            raise layers.fail(max_key, f"maximum-capacity of queue {q.name!r} ({q.maximum_capacity_pct:g}) is below "
                                       f"its capacity ({q.capacity_pct:g})")
    if not 1 <= q.minimum_user_limit_percent <= 100:
        raise layers.fail(ul_key, f"minimum-user-limit-percent of queue {q.name!r} must be within 1..100")
    if not q.user_limit_factor > 0:
        raise layers.fail(ulf_key, f"user-limit-factor of queue {q.name!r} must be positive")


def _mrv1_queues(layers: Layers, capacity_file: str | None, warnings: list[str]) -> tuple[QueueConf, ...]:
    names_text = layers.text(KEY_QUEUE_NAMES)
    if names_text is not None:
        names = queue_list(names_text)
    else:
        names = []
        for layer in layers.layers:
            for key in layer.props:
                if key.startswith(Q) and key.endswith(".capacity"):
                    name = key[len(Q):-len(".capacity")]
                    if name not in names:
                        names.append(name)
        if not names:
            names = ["default"]
            if not layers.has(Q + "default.capacity"):
                return (QueueConf("default", 100.0),)
        else:
            warnings.append(f"{capacity_file or 'scheduler config'}: {KEY_QUEUE_NAMES} is not set; using the queues "
                            f"that have a capacity: {', '.join(names)}")
    if len(set(names)) != len(names):
        raise layers.fail(KEY_QUEUE_NAMES, "a queue is listed twice")
    d_prio = layers.boolean(DEFAULT_SUPPORTS_PRIORITY, False)
    d_ul = layers.integer(DEFAULT_MIN_USER_LIMIT, 100)
    d_ulf = _user_limit_factor(layers, DEFAULT_USER_LIMIT_FACTOR, 1.0)
    queues = []
    for name in names:
        base = Q + name + "."
        if not layers.has(base + "capacity"):
            raise InputError(f"{capacity_file or 'capacity scheduler config'}: queue {name!r} (from {KEY_QUEUE_NAMES}) "
                             f"doesn't have configured capacity ({base}capacity)")
        cap = layers.number(base + "capacity", 0.0)
        mx = layers.number(base + "maximum-capacity", -1.0)
        q = QueueConf(
            name=name, capacity_pct=cap, maximum_capacity_pct=mx if mx > 0 else None,
            supports_priority=layers.boolean(base + "supports-priority", d_prio),
            minimum_user_limit_percent=layers.integer(base + "minimum-user-limit-percent", d_ul),
            user_limit_factor=_user_limit_factor(layers, base + "user-limit-factor", d_ulf),
        )
        _check_queue(layers, q, base + "capacity", base + "maximum-capacity", base + "minimum-user-limit-percent",
                     base + "user-limit-factor")
        queues.append(q)
    total = sum(q.capacity_pct for q in queues)
    if math.floor(total + 1e-9) != 100:
        where = capacity_file or layers.location(Q + names[0] + ".capacity")
        raise InputError(f"{where}: the capacities of queues {', '.join(names)} add up to {total:g}, not 100 "
                         f"(CapacityTaskScheduler requires exactly 100)")
    for key in sorted(layers.keys()):
        if key.startswith(Q):
            rest = key[len(Q):]
            qname, _, suffix = rest.rpartition(".")
            if suffix in _QUEUE_NOT_MODELLED:
                warnings.append(f"{layers.location(key)}: {key} is not modelled (jobs are initialized at submission)")
            elif qname not in names:
                warnings.append(f"{layers.location(key)}: {key}: queue {qname!r} is not in {KEY_QUEUE_NAMES} (ignored)")
            elif suffix not in _QUEUE_SUFFIXES:
                warnings.append(f"{layers.location(key)}: unknown key {key} ignored")
        elif key in _GLOBAL_NOT_MODELLED:
            warnings.append(f"{layers.location(key)}: {key} is not modelled (jobs are initialized at submission)")
        elif key.startswith(C) and key not in _GLOBAL_KNOWN:
            warnings.append(f"{layers.location(key)}: unknown key {key} ignored")
    return tuple(queues)


_WEIGHT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*w\s*$", re.I)


def _yarn_queues(layers: Layers, warnings: list[str]) -> tuple[QueueConf, ...]:
    leaves: list[QueueConf] = []

    def children_of(path: str) -> list[str]:
        return queue_list(layers.text(f"{Y}{path}.queues"))

    def percent(path: str, key: str, default: float) -> float:
        full = f"{Y}{path}.{key}"
        text = layers.text(full)
        if text is None:
            return default
        if "[" in text:
            raise layers.fail(full, "absolute resources cannot be mapped onto slots (give a percentage)")
        return layers.number(full, default)

    def walk(path: str, abs_cap: float, abs_max: float) -> None:
        kids = children_of(path)
        if not kids:
            mulp = layers.integer(f"{Y}{path}.minimum-user-limit-percent", 100)
            ulf = _user_limit_factor(layers, f"{Y}{path}.user-limit-factor", 1.0)
            short = path.rsplit(".", 1)[-1]
            q = QueueConf(short, abs_cap, abs_max if abs_max < 100 - 1e-9 else None, False, mulp, ulf, (path,))
            _check_queue(layers, q, f"{Y}{path}.capacity", f"{Y}{path}.maximum-capacity",
                         f"{Y}{path}.minimum-user-limit-percent", f"{Y}{path}.user-limit-factor")
            leaves.append(q)
            return
        weights = {}
        caps = {}
        for k in kids:
            key = f"{Y}{path}.{k}.capacity"
            text = layers.text(key)
            if text is None:
                raise InputError(f"{layers.location(f'{Y}{path}.queues')}: queue {path}.{k} has no capacity ({key})")
            m = _WEIGHT.match(text)
            if m:
                weights[k] = float(m.group(1))
            else:
                caps[k] = percent(f"{path}.{k}", "capacity", 0.0)
        if weights and caps:
            raise layers.fail(f"{Y}{path}.queues", "children mix weights and percentages")
        if weights:
            total_w = sum(weights.values())
            caps = {k: 100.0 * w / total_w if total_w else 0.0 for k, w in weights.items()}
        total = sum(caps.values())
        if abs(total - 100.0) > 1e-6 and not (total == 0 and all(v == 0 for v in caps.values())):
            raise InputError(f"{layers.location(f'{Y}{path}.{kids[0]}.capacity')}: the capacities of the children of "
                             f"{path} ({', '.join(kids)}) add up to {total:g}, not 100")
        for k in kids:
            child = f"{path}.{k}"
            mx = percent(child, "maximum-capacity", -1.0)
            child_max = abs_max * (mx if mx > 0 else 100.0) / 100.0
            if not 0 <= caps[k] <= 100:
                raise layers.fail(f"{Y}{child}.capacity", f"must be within [0, 100], got {caps[k]:g}")
            walk(child, abs_cap * caps[k] / 100.0, child_max)

    if not layers.has(Y + "root.queues"):
        raise InputError(f"{layers.location(Y + 'root.queues')}: {Y}root.queues is not set")
    walk("root", 100.0, 100.0)
    shorts = [q.name for q in leaves]
    for q in leaves:
        if shorts.count(q.name) > 1:
            warnings.append(f"leaf queue name {q.name!r} is not unique; jobs must use the full path")
    for key in sorted(layers.keys()):
        if key.startswith(Y + "root"):
            suffix = key.rsplit(".", 1)[-1]
            if suffix not in _Y_QUEUE_SUFFIXES:
                warnings.append(f"{layers.location(key)}: {key} is not modelled (ignored)")
        elif key.startswith(Y):
            warnings.append(f"{layers.location(key)}: {key} is not modelled (ignored)")
    return tuple(leaves)


def load_capacity_conf(config: Mapping[str, object] | None = None,
                       mapred_site: str | os.PathLike[str] | None = None) -> CapacityConf:
    """Build the effective Capacity Scheduler settings. ``config["config_file"]`` is a capacity-scheduler.xml
    (MRv1 or YARN keys); the other config entries are Hadoop keys that override the files. Cost: O(files)."""
    config = dict(config or {})
    layer_list = []
    sources = []
    if mapred_site:
        layer_list.append(file_layer(mapred_site))
        sources.append(str(mapred_site))
    cfg = config.get("config_file")
    if cfg:
        check_scheduler_file("capacity", str(cfg))  # not a fair file nor another XML (schedconf.filekind)
        layer_list.append(site_layer(read_capacity_file(str(cfg)).site))
        sources.append(str(cfg))
    layer_list.append(dict_layer(config))
    layers = Layers(layer_list)
    warnings: list[str] = []
    yarn = dialect_of(layers.keys()) is Dialect.YARN
    if yarn:
        queues = _yarn_queues(layers, warnings)
    else:
        queues = _mrv1_queues(layers, str(cfg) if cfg else None, warnings)
    per_hb = _task_count(layers, KEY_MAX_TASKS_PER_HEARTBEAT, 32767, 1)
    after = _task_count(layers, KEY_MAX_TASKS_AFTER_OFFSWITCH, 0, 0)
    memory = MemoryConf(layers.number(KEY_CLUSTER_MAP_MB, -1.0), layers.number(KEY_CLUSTER_REDUCE_MB, -1.0),
                        layers.number(KEY_CLUSTER_MAX_MAP_MB, -1.0), layers.number(KEY_CLUSTER_MAX_REDUCE_MB, -1.0))
    return CapacityConf(
        queues=queues, maximum_tasks_per_heartbeat=per_hb, maximum_tasks_after_offswitch=after,
        locality_wait_factor=layers.number(KEY_LOCALITY_WAIT_FACTOR, 1.0), memory=memory,
        dialect=Dialect.YARN if yarn else Dialect.MRV1, sources=tuple(sources), warnings=tuple(warnings),
    )
