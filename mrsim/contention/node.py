"""The queueing network of one worker node: an ``m``-core CPU and ``d`` disks (TDAM, dissertation chapter 6).

A task's service demands on a node form a *demand vector* ``(cpu, disk0, ..., disk{d-1})`` in seconds: total CPU
seconds (summed over the task's life, not per core) and seconds of service at each disk.

The CPU is an ``m``-server queue approximated with Seidmann's method (section 4.5): a queue with demand
``D_cpu / m`` followed by a delay centre with demand ``D_cpu (m - 1) / m``; each disk is a load-independent queue.
This is the "model without memory contention" of chapter 4 and the per-node server QN of TDAM / CA-Mumak
(sections 6.3 and 6.5). Mixes are solved with Bard-Schweitzer AMVA (:mod:`mrsim.contention.amva`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from mrsim.contention.amva import DEFAULT_MAX_ITER, DEFAULT_TOL, amva_core
from mrsim.contention.mva import MultiClassResult
from mrsim.contention.network import Centre, CentreKind, Network
from mrsim.errors import InputError


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """Hardware of one node as the contention model sees it: ``cores >= 1`` CPU cores and ``disks >= 0`` disks."""

    cores: int = 1
    disks: int = 1

    def __post_init__(self) -> None:
        for name, v, low in (("cores", self.cores, 1), ("disks", self.disks, 0)):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise InputError(f"node spec: {name} must be an integer >= {low}, got {v!r}")

    @property
    def resources(self) -> tuple[str, ...]:
        """Names of the demand-vector entries, in order: ``("cpu", "disk0", ...)``."""
        return ("cpu",) + tuple(f"disk{i}" for i in range(self.disks))

    @property
    def width(self) -> int:
        """Length of a demand vector on this node (``1 + disks``)."""
        return 1 + self.disks

    @property
    def kinds(self) -> tuple[CentreKind, ...]:
        """Centre kinds of the Seidmann-expanded network (see :meth:`expand`)."""
        delay = (CentreKind.DELAY,) if self.cores > 1 else ()
        return (CentreKind.QUEUE,) + delay + (CentreKind.QUEUE,) * self.disks

    def network(self, demand_rows: Sequence[Sequence[float]]) -> Network:
        """The node as a :class:`Network` with a multi-server CPU (before Seidmann), one row per class."""
        centres = (Centre("cpu", CentreKind.QUEUE, self.cores),) + tuple(
            Centre(f"disk{i}", CentreKind.QUEUE) for i in range(self.disks)
        )
        return Network(centres, tuple(tuple(r) for r in demand_rows))

    def check(self, demand: Sequence[float], what: str) -> tuple[float, ...]:
        """Validate one demand vector; raise :class:`InputError` mentioning ``what`` (e.g. the task key)."""
        vals = tuple(float(x) for x in demand)
        if len(vals) != self.width:
            raise InputError(f"{what}: demand vector has {len(vals)} entries, node expects {self.resources}")
        for name, x in zip(self.resources, vals):
            if not math.isfinite(x) or x < 0.0:
                raise InputError(f"{what}: {name} demand must be finite and non-negative, got {x!r}")
        return vals

    def expand(self, demand: Sequence[float]) -> list[float]:
        """Seidmann-expanded row: ``[cpu/m, cpu (m-1)/m (only if m > 1), disk0, ...]``. No validation."""
        m = self.cores
        cpu = demand[0]
        if m == 1:
            return [cpu, *demand[1:]]
        return [cpu / m, cpu * (m - 1) / m, *demand[1:]]


def node_demand(spec: NodeSpec, cpu: float, disk: float = 0.0, *, speed: float = 1.0) -> tuple[float, ...]:
    """Demand vector on ``spec`` for a task needing ``cpu`` CPU seconds and ``disk`` disk seconds on a speed-1 node.

    The disk demand is striped evenly over the node's disks (an assumption: traces give one disk figure), and
    every demand is divided by ``speed`` (``mrsim.cluster.TrackerSpec.speed``: > 1 is faster). Raises
    :class:`InputError` for disk demand on a node without disks or a non-positive speed.
    """
    if not math.isfinite(speed) or speed <= 0:
        raise InputError(f"node speed must be positive and finite, got {speed!r}")
    if disk > 0 and spec.disks == 0:
        raise InputError(f"a task needs {disk} s of disk but the node has no disk")
    share = disk / spec.disks if spec.disks else 0.0
    return spec.check((cpu / speed,) + (share / speed,) * spec.disks, "task")


@dataclass(frozen=True, slots=True)
class NodeSolution:
    """One solved mix on a node.

    ``response[c]``: response time of a class-``c`` job (s); ``utilization``: per resource of
    :attr:`NodeSpec.resources`, busy fraction in [0, 1] (CPU: mean fraction of cores busy); ``amva``: the raw
    solution on the expanded network.
    """

    response: tuple[float, ...]
    utilization: tuple[float, ...]
    amva: MultiClassResult


def solve_mix(
    spec: NodeSpec,
    demand_rows: Sequence[Sequence[float]],
    populations: Sequence[float],
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    checked: bool = False,
) -> NodeSolution:
    """Solve a mix of job classes on one node with Seidmann + Bard-Schweitzer AMVA. Cost O(sweeps x C x K).

    ``demand_rows[c]`` is class ``c``'s demand vector, ``populations[c]`` its job count. Pass ``checked=True``
    only with rows already validated by :meth:`NodeSpec.check` (the hot path does).
    """
    if not checked:
        demand_rows = [spec.check(r, f"class {c}") for c, r in enumerate(demand_rows)]
        if len(populations) != len(demand_rows):
            raise InputError(f"got {len(populations)} populations for {len(demand_rows)} classes")
        for c, (row, n) in enumerate(zip(demand_rows, populations)):
            if not math.isfinite(n) or n < 0:
                raise InputError(f"class {c}: population must be finite and non-negative, got {n!r}")
            if n > 0 and sum(row) <= 0.0:
                raise InputError(f"class {c}: a job with zero total demand cannot be solved (it takes no time)")
    rows = [spec.expand(r) for r in demand_rows]
    kinds = spec.kinds
    is_queue = [k is CentreKind.QUEUE for k in kinds]
    res = amva_core(rows, [float(n) for n in populations], is_queue, [0.0] * len(rows), tol, max_iter)
    return NodeSolution(res.response, _resource_utilization(spec, res.utilization), res)


def _resource_utilization(spec: NodeSpec, centre_util: Sequence[float]) -> tuple[float, ...]:
    # The Seidmann queue part carries D/m per job, so its utilization is already the per-core busy fraction.
    off = 2 if spec.cores > 1 else 1
    return (centre_util[0],) + tuple(centre_util[off:])
