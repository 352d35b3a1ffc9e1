"""Hadoop 3's capacities beside percentages: absolute resources (``[memory=10240,vcores=12]``) and weights (``3w``).

``yarn.scheduler.capacity.<path>.capacity`` (and ``.maximum-capacity`` for absolute resources) takes, in Hadoop 3:

* a percentage of the parent (``40``; siblings sum to 100);
* a weight (``3w``, Hadoop 3.3+): the queue's share of its parent is its weight over its siblings' weights
  (``CapacitySchedulerConfiguration.getNonLabeledQueueWeight``; siblings may not mix weights and percentages);
* an absolute resource (``[memory=10240,vcores=12]``, Hadoop 3.1+, ``AbsoluteResourceType``): the queue's
  effective capacity is that memory, its share of the parent that memory over the parent's effective memory
  (``ParentQueue.calculateEffectiveResourcesAndCapacity``); siblings and a parent's children use one kind; the
  children's memory may not exceed the parent's. Memory only (``DefaultResourceCalculator``): the vcores are read
  and checked, not used.

:func:`rewrite` turns weights into the equivalent percentages before the queue tree is built, and absolute
capacities into provisional percentages (each sibling's memory over their sum, so that the tree's checks hold);
:func:`resolve` sets the absolute queues' real fractions once the cluster's memory is known (the scheduler's
start). Cost O(queues).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from mrsim.errors import InputError

P = "yarn.scheduler.capacity."
_ABSOLUTE = re.compile(r"^\[(.*)\]$")
_WEIGHT = re.compile(r"^([0-9]*\.?[0-9]+)\s*w$")


@dataclass(frozen=True)
class Absolute:
    """A queue's absolute capacity and maximum (MB; None: not absolute)."""

    min_mb: float | None
    max_mb: float | None


def _where(props: Mapping[str, tuple[str, int]], source: str, key: str) -> str:
    line = props.get(key, ("", 0))[1]
    return f"{source}:{line}" if line else source


def parse_absolute(text: str, where: str, key: str) -> float | None:
    """Memory (MB) of ``[memory=X,vcores=Y]``, or None when ``text`` is not an absolute resource."""
    m = _ABSOLUTE.match(text.strip())
    if m is None:
        return None
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in m.group(1).split(","))):
        name, _, value = part.partition("=")
        try:
            values[name.strip()] = float(value.strip())
        except ValueError:
            raise InputError(f"{where}: {key} = {text!r}: {part!r} is not name=number") from None
    if "memory" not in values and "memory-mb" not in values:
        raise InputError(f"{where}: {key} = {text!r} names no memory")
    mem = values.get("memory", values.get("memory-mb", 0.0))
    if mem < 0 or any(v < 0 for v in values.values()):
        raise InputError(f"{where}: {key} = {text!r} is negative")
    return mem


def rewrite(props: dict[str, tuple[str, int]], source: str) -> dict[str, Absolute]:
    """Rewrite ``props`` in place (weights and absolute capacities as percentages); return the absolute queues
    by path."""
    absolute: dict[str, Absolute] = {}
    kinds: dict[str, str] = {"root": "percent"}

    def walk(path: str) -> None:
        kids = [k.strip() for k in props.get(f"{P}{path}.queues", ("", 0))[0].split(",") if k.strip()]
        if not kids:
            return
        texts = {k: props.get(f"{P}{path}.{k}.capacity", ("", 0))[0].strip() for k in kids}
        kind_of = {}
        for k, t in texts.items():
            key = f"{P}{path}.{k}.capacity"
            kind_of[k] = ("weight" if _WEIGHT.match(t) else
                          "absolute" if parse_absolute(t, _where(props, source, key), key) is not None else "percent")
        found = set(kind_of.values())
        if len(found) > 1:
            raise InputError(f"{source}: queue {path}: the capacities of its children ({', '.join(kids)}) mix "
                             f"{' and '.join(sorted(found))} values")
        kind = found.pop()
        if kinds.get(path) == "absolute" and kind != "absolute":
            raise InputError(f"{source}: queue {path} has an absolute capacity and its children {kind} ones: a "
                             "parent and its children use one kind")
        if kind == "weight":
            weights = {k: float(_WEIGHT.match(texts[k]).group(1)) for k in kids}  # type: ignore[union-attr]
            total = sum(weights.values())
            for k in kids:
                key = f"{P}{path}.{k}.capacity"
                share = 100.0 * weights[k] / total if total > 0 else 100.0 / len(kids)
                props[key] = (repr(share), props[key][1])
        elif kind == "absolute":
            mems = {}
            for k in kids:
                key = f"{P}{path}.{k}.capacity"
                mems[k] = parse_absolute(texts[k], _where(props, source, key), key) or 0.0
            total = sum(mems.values())
            for k in kids:
                key = f"{P}{path}.{k}.capacity"
                props[key] = (repr(100.0 * mems[k] / total if total > 0 else 100.0 / len(kids)), props[key][1])
                mkey = f"{P}{path}.{k}.maximum-capacity"
                max_mb = None
                if mkey in props:
                    max_mb = parse_absolute(props[mkey][0], _where(props, source, mkey), mkey)
                    if max_mb is None:
                        raise InputError(f"{_where(props, source, mkey)}: queue {path}.{k}: {mkey} must be an "
                                         "absolute resource like its capacity")
                    props[mkey] = ("100", props[mkey][1])
                absolute[f"{path}.{k}"] = Absolute(mems[k], max_mb)
        for k in kids:
            kinds[f"{path}.{k}"] = kind
            walk(f"{path}.{k}")

    walk("root")
    return absolute


def resolve(scheduler: Any, cluster_mb: float) -> None:
    """Set the absolute queues' fractions of their parents from the cluster's memory (top down), and check that no
    parent's children ask for more than it has. ``scheduler``: a Capacity Scheduler after its tree is built."""
    absolute: dict[str, Absolute] = scheduler.absolute
    if not absolute:
        return

    def walk(queue: Any) -> None:
        kids = [k for k in queue.children if k.path in absolute]
        if kids:
            parent_mb = queue.abs_capacity * cluster_mb
            parent_max_mb = queue.abs_max * cluster_mb
            asked = sum(absolute[k.path].min_mb or 0.0 for k in kids)
            if asked > parent_mb + 1e-6:
                raise InputError(f"{scheduler.source}: queue {queue.path}: the absolute capacities of its children "
                                 f"({', '.join(k.name for k in kids)}) sum to {asked:g} MB, more than its "
                                 f"{parent_mb:g} MB")
            for k in kids:
                spec = absolute[k.path]
                k.capacity = (spec.min_mb or 0.0) / parent_mb if parent_mb > 0 else 0.0
                max_mb = spec.max_mb if spec.max_mb is not None else parent_max_mb
                if max_mb < (spec.min_mb or 0.0):
                    raise InputError(f"{scheduler.source}: queue {k.path}: maximum-capacity {max_mb:g} MB is below "
                                     f"its capacity {spec.min_mb:g} MB")
                if max_mb > parent_max_mb + 1e-6:
                    raise InputError(f"{scheduler.source}: queue {k.path}: maximum-capacity {max_mb:g} MB is greater "
                                     f"than its parent's maximum, {parent_max_mb:g} MB")
                k.max_capacity = max_mb / parent_max_mb if parent_max_mb > 0 else 0.0
                k.abs_capacity = queue.abs_capacity * k.capacity
                k.abs_max = queue.abs_max * k.max_capacity
        for k in queue.children:
            walk(k)

    walk(scheduler.root)
