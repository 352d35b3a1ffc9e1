"""Fair Scheduler allocation files: MRv1 ``fair-scheduler.xml`` (``PoolManager.reloadAllocs``, Hadoop 0.20.205-1.2)
and YARN ``fair-scheduler.xml`` (``AllocationFileLoaderService``, Hadoop 2/3), both into :class:`FairAllocations`:
what the MRv1 Fair Scheduler (``schedulers/fair.py``) takes from the one reading of the file
(:func:`mrsim.tracker.schedconf.allocation_file.read_allocation_file`, which YARN's Fair Scheduler reads too).

MRv1 (``docs/hadoop-behaviour.md`` §3.2): root ``<allocations>``; ``<pool name>`` with ``minMaps``, ``minReduces``,
``maxMaps``, ``maxReduces``, ``maxRunningJobs``, ``weight``, ``minSharePreemptionTimeout`` (s), ``schedulingMode``;
``<user name>`` with ``maxRunningJobs``; top-level ``userMaxJobsDefault``, ``poolMaxJobsDefault``,
``defaultMinSharePreemptionTimeout`` (s), ``fairSharePreemptionTimeout`` (s), ``defaultPoolSchedulingMode``.
Timeouts are seconds in the file; they are kept in seconds here (Hadoop keeps ms). Unknown elements are
warned about and ignored, as Hadoop logs and ignores them.

YARN (§6.1), mapped onto the same slot-based pools. What maps and what does not:

* ``<queue name>`` (or ``<pool>``), nestable; a leaf becomes one pool named by its full path ``root.a.b``.
* ``minResources`` / ``maxResources`` ("X mb, Y vcores", "memory-mb=X, vcores=Y", or "N%") become min/max
  **slots of each kind**: containers = floor(min(X / container MB, Y / container vcores)) with the container size
  of a map (``mapreduce.map.memory.mb``, 1024; ``mapreduce.map.cpu.vcores``, 1) for map slots and of a reduce for
  reduce slots; a percentage is that fraction of the cluster's map (reduce) slots. YARN has one pool of
  resources for both kinds, so the same container count applies to maps and to reduces (approximation).
* ``weight``: a top-level queue keeps its weight; a nested queue gets parent weight x its weight / sum of its
  siblings' weights, so a fully busy hierarchy gets the same shares flat (approximation: YARN first
  redistributes an idle child's share to its siblings, flat pools give it to everyone).
* ``maxRunningApps`` -> maxRunningJobs; ``userMaxAppsDefault`` / ``queueMaxAppsDefault`` -> the job defaults;
  ``schedulingPolicy`` fair/fifo -> schedulingMode (``drf`` -> fair: with slots there is one resource);
  ``minSharePreemptionTimeout``, ``fairSharePreemptionTimeout`` (per queue, Hadoop 3),
  ``fairSharePreemptionThreshold`` (0.5), ``allowPreemptionFrom``; ``queuePlacementPolicy`` rules ``specified``,
  ``user``, ``primaryGroup`` (the user's own name: mrsim has no group data), ``default``, ``reject``.
* Not mapped (warned): limits and policies on parent queues (min/maxResources, maxRunningApps, fifo ordering of
  children), ``maxAMShare`` (no ApplicationMasters), ACLs, ``maxChildResources``, ``maxContainerAllocation``,
  ``reservation``, the placement rules ``secondaryGroupExistingQueue`` and ``nestedUserQueue``.
"""

from __future__ import annotations

import enum
import math
import os
import re
from dataclasses import dataclass, field

from mrsim.tracker.schedconf.allocation_file import AllocationFile, read_allocation_file
from mrsim.tracker.schedconf.document import Dialect, Element
from mrsim.tracker.schedconf.xmltree import Where
from mrsim.errors import InputError


INF = math.inf


#: Hadoop reads the allocation file's counts with ``Integer.parseInt``.
_JAVA_INT_MAX = 2**31 - 1

class SchedulingMode(enum.Enum):
    """How a pool orders its own jobs (``Pool.SchedulingMode``): fair sharing or FIFO."""

    FAIR = "fair"
    FIFO = "fifo"


class PlacementKind(enum.Enum):
    """YARN ``queuePlacementPolicy`` rules (``QueuePlacementRule``)."""

    SPECIFIED = "specified"
    USER = "user"
    PRIMARY_GROUP = "primaryGroup"
    DEFAULT = "default"
    REJECT = "reject"


@dataclass(frozen=True)
class PlacementRule:
    kind: PlacementKind
    create: bool = True
    queue: str = "root.default"  # for DEFAULT


@dataclass(frozen=True)
class ContainerSize:
    """YARN: one map (reduce) slot is one container of this size (``mapreduce.{map,reduce}.memory.mb`` etc.)."""

    map_mb: float = 1024.0
    reduce_mb: float = 1024.0
    map_vcores: float = 1.0
    reduce_vcores: float = 1.0


@dataclass(frozen=True)
class PoolAllocation:
    """One pool's settings as written; ``None`` means "use the file's default"."""

    name: str
    min_maps: int = 0
    min_reduces: int = 0
    max_maps: int | None = None  # None: unlimited
    max_reduces: int | None = None
    max_running_jobs: int | None = None
    weight: float = 1.0
    min_share_preemption_timeout_s: float | None = None
    fair_share_preemption_timeout_s: float | None = None  # YARN 3.x per-queue; MRv1 has one global value
    fair_share_preemption_threshold: float | None = None
    scheduling_mode: SchedulingMode | None = None
    min_share_fraction: float | None = None  # YARN "N%": fraction of the cluster's slots of each kind
    max_share_fraction: float | None = None
    allow_preemption_from: bool = True
    line: int = 0


@dataclass(frozen=True)
class FairAllocations:
    """Everything an allocation file says. Immutable; the scheduler resolves defaults through the methods."""

    pools: tuple[PoolAllocation, ...] = ()
    user_max_jobs: tuple[tuple[str, int], ...] = ()
    user_max_jobs_default: int | None = None
    pool_max_jobs_default: int | None = None
    default_min_share_preemption_timeout_s: float = INF
    fair_share_preemption_timeout_s: float = INF
    fair_share_preemption_threshold: float = 0.5  # MRv1: "half of the fair share"
    default_pool_scheduling_mode: SchedulingMode = SchedulingMode.FAIR
    dialect: Dialect = Dialect.MRV1
    placement: tuple[PlacementRule, ...] = ()
    source: str = ""
    warnings: tuple[str, ...] = ()
    _by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({p.name: p for p in self.pools})

    def pool(self, name: str) -> PoolAllocation | None:
        return self._by_name.get(name)

    def declared(self, name: str) -> bool:
        return name in self._by_name

    def user_limit(self, user: str) -> int | None:
        for name, limit in self.user_max_jobs:
            if name == user:
                return limit
        return self.user_max_jobs_default

    def pool_limit(self, name: str) -> int | None:
        p = self._by_name.get(name)
        if p is not None and p.max_running_jobs is not None:
            return p.max_running_jobs
        return self.pool_max_jobs_default

    def mode(self, name: str) -> SchedulingMode:
        p = self._by_name.get(name)
        return p.scheduling_mode if p is not None and p.scheduling_mode is not None else self.default_pool_scheduling_mode

    def min_share_timeout_s(self, name: str) -> float:
        p = self._by_name.get(name)
        if p is not None and p.min_share_preemption_timeout_s is not None:
            return p.min_share_preemption_timeout_s
        return self.default_min_share_preemption_timeout_s

    def fair_share_timeout_s(self, name: str) -> float:
        p = self._by_name.get(name)
        if p is not None and p.fair_share_preemption_timeout_s is not None:
            return p.fair_share_preemption_timeout_s
        return self.fair_share_preemption_timeout_s

    def fair_share_threshold(self, name: str) -> float:
        p = self._by_name.get(name)
        if p is not None and p.fair_share_preemption_threshold is not None:
            return p.fair_share_preemption_threshold
        return self.fair_share_preemption_threshold

    def describe(self) -> dict:
        return {
            "source": self.source,
            "dialect": self.dialect.value,
            "pools": {p.name: {k: v for k, v in (
                ("minMaps", p.min_maps), ("minReduces", p.min_reduces), ("maxMaps", p.max_maps),
                ("maxReduces", p.max_reduces), ("maxRunningJobs", p.max_running_jobs), ("weight", p.weight),
                ("minSharePreemptionTimeout_s", p.min_share_preemption_timeout_s),
                ("schedulingMode", p.scheduling_mode.value if p.scheduling_mode else None),
                ("minShareFraction", p.min_share_fraction), ("maxShareFraction", p.max_share_fraction),
            ) if v is not None} for p in self.pools},
            "userMaxJobs": dict(self.user_max_jobs),
            "userMaxJobsDefault": self.user_max_jobs_default,
            "poolMaxJobsDefault": self.pool_max_jobs_default,
            "defaultMinSharePreemptionTimeout_s": _finite(self.default_min_share_preemption_timeout_s),
            "fairSharePreemptionTimeout_s": _finite(self.fair_share_preemption_timeout_s),
            "defaultPoolSchedulingMode": self.default_pool_scheduling_mode.value,
            "placement": [r.kind.value for r in self.placement],
        }


def _finite(x: float) -> float | None:
    return None if math.isinf(x) else x


# ------------------------------------------------------------------------------------------------- parsing

_IGNORED_QUEUE = {"maxAMShare", "aclSubmitApps", "aclAdministerApps", "maxChildResources", "maxContainerAllocation",
                  "reservation", "aclAdministerReservations", "aclListReservations", "aclSubmitReservations"}
_IGNORED_TOP = {"queueMaxAMShareDefault", "queueMaxResourcesDefault", "reservation-agent", "reservation-policy",
                "reservation-planner"}

_MB = re.compile(r"(\d+(?:\.\d+)?)\s*mb\b", re.I)
_VCORES = re.compile(r"(\d+(?:\.\d+)?)\s*vcores\b", re.I)
_KV = re.compile(r"(memory-mb|memory|vcores)\s*=\s*(\d+(?:\.\d+)?)\s*(%?)", re.I)
_PCT = re.compile(r"(\d+(?:\.\d+)?)\s*%")


@dataclass
class _Resources:
    """A parsed YARN resource string: absolute (MB, vcores) or a fraction of the cluster."""

    mb: float | None = None
    vcores: float | None = None
    fraction: float | None = None

    def containers(self, mb: float, vcores: float) -> int:
        counts = []
        if self.mb is not None:
            counts.append(self.mb / mb)
        if self.vcores is not None:
            counts.append(self.vcores / vcores)
        return int(math.floor(min(counts))) if counts else 0


def parse_resources(text: str, where: str) -> _Resources:
    """YARN resource strings: ``"1024 mb, 2 vcores"``, ``"memory-mb=1024, vcores=2"``, ``"50%"``, ``"50% memory"``."""
    t = text.strip()
    kv = _KV.findall(t)
    if kv:
        res = _Resources()
        for name, value, pct in kv:
            v = float(value)
            if pct:
                res.fraction = v / 100.0 if res.fraction is None else min(res.fraction, v / 100.0)
            elif name.lower().startswith("memory"):
                res.mb = v
            else:
                res.vcores = v
        return res
    mb, vc = _MB.search(t), _VCORES.search(t)
    if mb or vc:
        return _Resources(float(mb.group(1)) if mb else None, float(vc.group(1)) if vc else None)
    pcts = _PCT.findall(t)
    if pcts:
        return _Resources(fraction=min(float(p) for p in pcts) / 100.0)
    raise InputError(f"{where}: cannot read resources {text!r} (expected e.g. '1024 mb, 1 vcores' or '50%')")


class _Parser:
    def __init__(self, path: str, containers: ContainerSize) -> None:
        self.path = path
        self.w = Where(path)
        self.containers = containers
        self.warnings: list[str] = []
        self.pools: list[PoolAllocation] = []
        self.yarn = False

    def warn(self, node: Element, text: str) -> None:
        self.warnings.append(f"{self.w.at(node.line)}: {text}")

    def _int(self, node: Element) -> int:
        """A count of slots or jobs: a Java int, as Hadoop's ``Integer.parseInt`` reads it, not negative."""
        value = self.w.integer(node.text, f"<{node.tag}>", node.line)
        if value < 0:
            raise InputError(f"{self.w.at(node.line)}: <{node.tag}> must not be negative, got {value}")
        if value > _JAVA_INT_MAX:
            raise InputError(f"{self.w.at(node.line)}: <{node.tag}> {value} is out of range (Hadoop reads it as a "
                             f"Java int: at most {_JAVA_INT_MAX:,})")
        return value

    def _job_limit(self, node: Element) -> int:
        """A running-job limit: :meth:`_int`, and at least 1 (0 would let no job of the pool or user run: the
        replay could never end)."""
        value = self._int(node)
        if value == 0:
            raise InputError(f"{self.w.at(node.line)}: <{node.tag}> 0 lets no job run (the replay would never "
                             "end); give 1 or more, or leave the element out for no limit")
        return value

    def _seconds(self, node: Element) -> float:
        value = self.w.number(node.text, f"<{node.tag}>", node.line)
        if value < 0:
            raise InputError(f"{self.w.at(node.line)}: <{node.tag}> must not be negative, got {value}")
        return value

    def _mode(self, node: Element) -> SchedulingMode:
        text = node.text.strip().lower()
        if text == "drf":
            self.warn(node, "schedulingPolicy drf is read as fair (with slots there is a single resource)")
            return SchedulingMode.FAIR
        try:
            return SchedulingMode(text)
        except ValueError:
            raise InputError(f"{self.w.at(node.line)}: <{node.tag}> {node.text!r} is not fair or fifo") from None

    # --------------------------------------------------------------------------------------------- queues

    def queue(self, node: Element, parent: str | None, parent_weight: float, sibling_weight_sum: float) -> None:
        name = node.attrs.get("name", "").strip()
        if not name:
            raise InputError(f"{self.w.at(node.line)}: <{node.tag}> needs a name attribute")
        if self.yarn:
            if parent is None:
                full = name if name == "root" or name.startswith("root.") else f"root.{name}"
            else:
                full = f"{parent}.{name}"
        else:
            full = name
        fields: dict[str, object] = {"name": full, "line": node.line}
        children = [c for c in node.children if c.tag in ("queue", "pool")]
        weight = 1.0
        for child in node.children:
            tag = child.tag
            if tag in ("queue", "pool"):
                continue
            if tag == "minMaps":
                fields["min_maps"] = self._int(child)
            elif tag == "minReduces":
                fields["min_reduces"] = self._int(child)
            elif tag == "maxMaps":
                fields["max_maps"] = self._int(child)
            elif tag == "maxReduces":
                fields["max_reduces"] = self._int(child)
            elif tag in ("maxRunningJobs", "maxRunningApps"):
                fields["max_running_jobs"] = self._job_limit(child)
            elif tag == "weight":
                weight = self.w.number(child.text, "<weight>", child.line)
                if not weight > 0:
                    raise InputError(f"{self.w.at(child.line)}: <weight> must be positive, got {child.text!r}")
            elif tag == "minSharePreemptionTimeout":
                fields["min_share_preemption_timeout_s"] = self._seconds(child)
            elif tag == "fairSharePreemptionTimeout":
                fields["fair_share_preemption_timeout_s"] = self._seconds(child)
            elif tag == "fairSharePreemptionThreshold":
                fields["fair_share_preemption_threshold"] = self.w.number(child.text, "<fairSharePreemptionThreshold>", child.line)
            elif tag in ("schedulingMode", "schedulingPolicy"):
                fields["scheduling_mode"] = self._mode(child)
            elif tag in ("minResources", "maxResources"):
                res = parse_resources(child.text, self.w.at(child.line))
                lo = tag == "minResources"
                if res.fraction is not None:
                    fields["min_share_fraction" if lo else "max_share_fraction"] = res.fraction
                else:
                    c = self.containers
                    fields["min_maps" if lo else "max_maps"] = res.containers(c.map_mb, c.map_vcores)
                    fields["min_reduces" if lo else "max_reduces"] = res.containers(c.reduce_mb, c.reduce_vcores)
            elif tag == "allowPreemptionFrom":
                fields["allow_preemption_from"] = self.w.boolean(child.text, "<allowPreemptionFrom>", child.line)
            elif tag in _IGNORED_QUEUE:
                self.warn(child, f"<{tag}> is not modelled (ignored)")
            else:
                self.warn(child, f"unknown element <{tag}> in <{node.tag}> ignored")
        if self.yarn and parent is not None and sibling_weight_sum > 0:
            effective = parent_weight * weight / sibling_weight_sum
        else:
            effective = weight
        fields["weight"] = effective
        if children or node.attrs.get("type") == "parent":
            for key in ("min_maps", "max_maps", "max_running_jobs", "min_share_fraction", "max_share_fraction"):
                if key in fields:
                    self.warn(node, f"limits on parent queue {full!r} are not enforced (only leaf queues become pools)")
                    break
            if fields.get("scheduling_mode") is SchedulingMode.FIFO:
                self.warn(node, f"fifo ordering between the children of {full!r} is not modelled (children are flat pools)")
            total = 0.0
            for c in children:
                total += _weight_of(c, self.w)
            for c in children:
                self.queue(c, full, effective, total)
            return
        pool = PoolAllocation(**fields)  # type: ignore[arg-type]
        for lo, hi in ((pool.min_maps, pool.max_maps), (pool.min_reduces, pool.max_reduces)):
            if hi is not None and hi < lo:
                self.warn(node, f"pool {full!r}: a maximum is below its minimum (Hadoop only logs this)")
                break
        if any(p.name == full for p in self.pools):
            raise InputError(f"{self.w.at(node.line)}: pool {full!r} is declared twice")
        self.pools.append(pool)

    # --------------------------------------------------------------------------------------------- file

    def parse(self, document: AllocationFile) -> FairAllocations:
        root = document.root
        self.dialect = document.dialect
        if root.tag != "allocations":
            raise InputError(f"{self.w.at(root.line)}: bad fair scheduler allocation file: the top-level element is "
                             f"<{root.tag}>, expected <allocations>")
        self.yarn = self.dialect is Dialect.YARN
        top: dict[str, object] = {}
        users: list[tuple[str, int]] = []
        placement: list[PlacementRule] = []
        for child in root.children:
            tag = child.tag
            if tag in ("pool", "queue"):
                if self.yarn and child.attrs.get("name", "").strip() == "root":
                    # An explicit <queue name="root"> holds the top level.
                    inner = [c for c in child.children if c.tag in ("queue", "pool")]
                    total = sum(_weight_of(c, self.w) for c in inner)
                    for c in inner:
                        self.queue(c, "root", total, total)  # top level keeps raw weights
                    continue
                self.queue(child, None, 1.0, 0.0)
            elif tag == "user":
                name = child.attrs.get("name", "").strip()
                if not name:
                    raise InputError(f"{self.w.at(child.line)}: <user> needs a name attribute")
                for g in child.children:
                    if g.tag in ("maxRunningJobs", "maxRunningApps"):
                        users.append((name, self._job_limit(g)))
                    else:
                        self.warn(g, f"unknown element <{g.tag}> in <user> ignored")
            elif tag in ("userMaxJobsDefault", "userMaxAppsDefault"):
                top["user_max_jobs_default"] = self._job_limit(child)
            elif tag in ("poolMaxJobsDefault", "queueMaxAppsDefault"):
                top["pool_max_jobs_default"] = self._job_limit(child)
            elif tag == "defaultMinSharePreemptionTimeout":
                top["default_min_share_preemption_timeout_s"] = self._seconds(child)
            elif tag in ("fairSharePreemptionTimeout", "defaultFairSharePreemptionTimeout"):
                top["fair_share_preemption_timeout_s"] = self._seconds(child)
            elif tag == "defaultFairSharePreemptionThreshold":
                top["fair_share_preemption_threshold"] = self.w.number(child.text, f"<{tag}>", child.line)
            elif tag in ("defaultPoolSchedulingMode", "defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode"):
                top["default_pool_scheduling_mode"] = self._mode(child)
            elif tag == "queuePlacementPolicy":
                placement = self.placement(child)
            elif tag in _IGNORED_TOP:
                self.warn(child, f"<{tag}> is not modelled (ignored)")
            else:
                self.warn(child, f"unknown element <{tag}> ignored")
        return FairAllocations(
            pools=tuple(self.pools), user_max_jobs=tuple(users), placement=tuple(placement),
            dialect=Dialect.YARN if self.yarn else Dialect.MRV1, source=self.path, warnings=tuple(self.warnings),
            **top,  # type: ignore[arg-type]
        )

    def placement(self, node: Element) -> list[PlacementRule]:
        rules: list[PlacementRule] = []
        for r in node.children:
            if r.tag != "rule":
                self.warn(r, f"unknown element <{r.tag}> in <queuePlacementPolicy> ignored")
                continue
            name = r.attrs.get("name", "")
            create = r.attrs.get("create", "true").strip().lower() != "false"
            try:
                kind = PlacementKind(name)
            except ValueError:
                self.warn(r, f"placement rule {name!r} is not modelled (skipped)")
                continue
            queue = r.attrs.get("queue", "default").strip() or "default"
            if not queue.startswith("root"):
                queue = f"root.{queue}"
            rules.append(PlacementRule(kind, create, queue))
        return rules


def _weight_of(node: Element, w: Where) -> float:
    for c in node.children:
        if c.tag == "weight":
            return w.number(c.text, "<weight>", c.line)
    return 1.0


def load_allocations(path: str | os.PathLike[str], containers: ContainerSize = ContainerSize()) -> FairAllocations:
    """Parse an MRv1 or YARN allocation file (the dialect is detected from its elements). Cost: O(file)."""
    return _Parser(str(path), containers).parse(read_allocation_file(path))
