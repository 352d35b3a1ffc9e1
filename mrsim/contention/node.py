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
from mrsim.contention.multicore import MemoryDemands, two_layer_multiclass
from mrsim.contention.multiserver import DEFAULT_MAX_STATES, lattice_size
from mrsim.contention.multiserver import _solve as exact_rows
from mrsim.contention.mva import MultiClassResult
from mrsim.contention.network import Centre, CentreKind, Network
from mrsim.errors import InputError


#: CPU models of a node without a memory layer: Seidmann's approximation (the dissertation's) or exact.
CPU_MODELS = ("seidmann", "exact")
#: Memory architectures (chapter 4): none (the CPU/disk model TDAM used), SMP (one memory queue), NUMA
#: (a local and a remote memory queue, section 4.3.2).
MEMORY_ARCHITECTURES = ("none", "smp", "numa")


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """Hardware of one node as the contention model sees it.

    ``cores >= 1`` CPU cores and ``disks >= 0`` disks. ``cpu_model`` picks how the ``m``-core CPU of a node
    without a memory layer is solved: ``"seidmann"`` (section 4.5's queue ``D/m`` plus delay ``D(m-1)/m``, solved
    with Bard-Schweitzer AMVA: the dissertation's model) or ``"exact"`` (an ``m``-server station solved by exact
    multi-server MVA, :mod:`mrsim.contention.multiserver`). ``memory`` switches on chapter 4's two-layer model
    (Algorithms 5 and 6): ``"smp"`` has one memory queue, ``"numa"`` a local and a remote one, and
    ``numa_ratio`` is ``K_N / K_T = D_mem_local / D_mem_remote`` (section 4.3.2; 1.0 is the dissertation's
    measured 4/4). The memory layer models at most one disk (Algorithm 3 has one).
    """

    cores: int = 1
    disks: int = 1
    cpu_model: str = "seidmann"
    memory: str = "none"
    numa_ratio: float = 1.0

    def __post_init__(self) -> None:
        for name, v, low in (("cores", self.cores, 1), ("disks", self.disks, 0)):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise InputError(f"node spec: {name} must be an integer >= {low}, got {v!r}")
        if self.cpu_model not in CPU_MODELS:
            raise InputError(f"node spec: cpu_model must be one of {', '.join(CPU_MODELS)}, got {self.cpu_model!r}")
        if self.memory not in MEMORY_ARCHITECTURES:
            raise InputError(f"node spec: memory must be one of {', '.join(MEMORY_ARCHITECTURES)}, "
                             f"got {self.memory!r}")
        ratio = self.numa_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not math.isfinite(ratio) or ratio <= 0:
            raise InputError(f"node spec: numa_ratio (K_N/K_T) must be a positive number, got {ratio!r}")
        if self.memory != "none":
            if self.disks > 1:
                raise InputError(f"node spec: the memory layer (memory = {self.memory!r}) models one disk "
                                 f"(Algorithm 3), got disks = {self.disks}")
            if self.cpu_model != "seidmann":
                raise InputError(f"node spec: cpu_model = {self.cpu_model!r} applies to nodes without a memory "
                                 f"layer; with memory = {self.memory!r} the cores are chapter 4's application layer")

    @property
    def resources(self) -> tuple[str, ...]:
        """Names of the utilization entries, in order: ``("cpu", "disk0", ...)`` (CPU = fraction of cores busy).
        Without a memory layer they also name the demand vector's entries."""
        return ("cpu",) + tuple(f"disk{i}" for i in range(self.disks))

    @property
    def demand_names(self) -> tuple[str, ...]:
        """Names of the demand-vector entries: :attr:`resources` without a memory layer; ``("core", "mem",
        "disk0")`` on SMP and ``("core", "mem_local", "mem_remote", "disk0")`` on NUMA (Algorithm 5's devices:
        Core-I, Mem-Local, Mem-Remote, disk), the disk only when the node has one."""
        disks = tuple(f"disk{i}" for i in range(self.disks))
        if self.memory == "smp":
            return ("core", "mem") + disks
        if self.memory == "numa":
            return ("core", "mem_local", "mem_remote") + disks
        return ("cpu",) + disks

    @property
    def width(self) -> int:
        """Length of a demand vector on this node (``len(demand_names)``)."""
        return len(self.demand_names)

    @property
    def n_resources(self) -> int:
        """Length of a utilization vector (``1 + disks``)."""
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
            raise InputError(f"{what}: demand vector has {len(vals)} entries, node expects {self.demand_names}")
        for name, x in zip(self.demand_names, vals):
            if not math.isfinite(x) or x < 0.0:
                raise InputError(f"{what}: {name} demand must be finite and non-negative, got {x!r}")
        return vals

    def expand(self, demand: Sequence[float]) -> list[float]:
        """Seidmann-expanded row: ``[cpu/m, cpu (m-1)/m (only if m > 1), disk0, ...]``. No validation. (The
        Seidmann model only: the exact CPU and the memory layer solve the demand vector as it is.)"""
        m = self.cores
        cpu = demand[0]
        if m == 1:
            return [cpu, *demand[1:]]
        return [cpu / m, cpu * (m - 1) / m, *demand[1:]]


def node_demand(spec: NodeSpec, cpu: float, disk: float = 0.0, *, speed: float = 1.0,
                memory: float = 0.0) -> tuple[float, ...]:
    """Demand vector on ``spec`` for a task needing ``cpu`` CPU seconds, ``disk`` disk seconds and ``memory``
    memory-stall seconds on a speed-1 node (:func:`layout_vector`, validated).

    Raises :class:`InputError` for disk demand on a node without disks, a negative demand or a non-positive speed.
    """
    if not math.isfinite(speed) or speed <= 0:
        raise InputError(f"node speed must be positive and finite, got {speed!r}")
    if disk > 0 and spec.disks == 0:
        raise InputError(f"a task needs {disk} s of disk but the node has no disk")
    return spec.check(layout_vector(spec, cpu, disk, memory, speed), "task")


def layout_vector(spec: NodeSpec, cpu: float, disk: float, memory: float, speed: float) -> tuple[float, ...]:
    """Unchecked demand vector (``spec.demand_names``), every entry divided by ``speed``.

    Without a memory layer, memory-stall seconds are core time (``cpu + memory`` on the CPU) and the disk demand
    is striped evenly over the node's disks (an assumption: traces give one disk figure). With one, ``cpu`` is
    Core-I's ``D_core`` and ``memory`` is ``D_mem`` (eqs. 4.2-4.4), split on NUMA as
    ``D_local / D_remote = numa_ratio`` (section 4.3.2).
    """
    if spec.memory == "none":
        c = (cpu + memory) / speed
        d = spec.disks
        if d == 1:
            return (c, disk / speed)
        if d == 0:
            return (c,)
        share = disk / d / speed
        return (c,) + (share,) * d
    tail = (disk / speed,) if spec.disks else ()
    if spec.memory == "smp":
        return (cpu / speed, memory / speed) + tail
    remote = memory / (1.0 + spec.numa_ratio)
    return (cpu / speed, (memory - remote) / speed, remote / speed) + tail


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
    """Solve a mix of job classes on one node with the node's model (:func:`solve_rows`).

    ``demand_rows[c]`` is class ``c``'s demand vector (``spec.demand_names``), ``populations[c]`` its job count.
    Pass ``checked=True`` only with rows already validated by :meth:`NodeSpec.check` (the hot path does).
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
    return solve_rows(spec, demand_rows, populations, tol, max_iter)[0]


def solve_rows(
    spec: NodeSpec,
    rows: Sequence[Sequence[float]],
    populations: Sequence[float],
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    max_states: int = DEFAULT_MAX_STATES,
) -> tuple[NodeSolution, bool]:
    """Unchecked dispatch to the node's model; returns ``(solution, fell_back)``.

    * no memory layer, ``cpu_model = "seidmann"``: Seidmann's CPU + disks, Bard-Schweitzer AMVA;
    * no memory layer, ``cpu_model = "exact"``: an ``m``-server CPU + disks, exact multi-server MVA
      (:func:`mrsim.contention.multiserver.exact_multiserver_mva`). Fractional populations or a lattice larger
      than ``max_states`` fall back to Seidmann + AMVA and return ``fell_back = True``;
    * ``memory = "smp"`` / ``"numa"``: chapter 4's two-layer multi-class model (Algorithms 5 and 6,
      :func:`mrsim.contention.multicore.two_layer_multiclass`). Utilization: CPU = ``sum_r X_r T_r / m`` (time a
      job holds a core, executing or stalled on memory; capped at 1), disk = ``sum_r X_r D_d,r``.
    """
    pops = [float(n) for n in populations]
    if spec.memory != "none":
        return _solve_memory(spec, rows, pops, tol, max_iter), False
    if spec.cpu_model == "exact":
        ints = [int(n) for n in pops]
        if ints == pops:
            solved = _solve_exact_by_shape(spec, rows, ints, max_states)
            if solved is not None:
                return solved, False
        fell_back = True
    else:
        fell_back = False
    expanded = [spec.expand(r) for r in rows]
    is_queue = [k is CentreKind.QUEUE for k in spec.kinds]
    res = amva_core(expanded, pops, is_queue, [0.0] * len(rows), tol, max_iter)
    return NodeSolution(res.response, _resource_utilization(spec, res.utilization), res), fell_back


def _solve_exact_by_shape(spec: NodeSpec, rows: Sequence[Sequence[float]], pops: list[int],
                          max_states: int) -> NodeSolution | None:
    """Exact multi-server MVA with classes of one demand shape merged (None when the lattice is too large).

    Classes whose demand rows are proportional (the same unit vector to 12 decimals, as :class:`MixCache` interns
    shapes) are one class in the solve, with the summed population: the product-form weight of every state scales
    by ``alpha ** N_c`` when class ``c``'s demands scale by ``alpha``, so such classes see the same queues and a
    class's response time is its size times the merged unit class's. One job per class (the literal Epochs
    algorithm, the dispatchers) would otherwise make the lattice ``2 ** jobs``. Empty classes (what-if queries)
    are kept apart from populated ones: an arriving job sees the mix, not itself. ``amva`` of the result is the
    merged network's solution.
    """
    index: dict[tuple[tuple[float, ...], bool], int] = {}
    unit_rows: list[list[float]] = []
    counts: list[int] = []
    where: list[tuple[int, float]] = []  # per original class: (merged class, size)
    for row, n in zip(rows, pops):
        size = math.fsum(row)
        unit = tuple(round(x / size, 12) for x in row) if size > 0 else tuple(0.0 for _ in row)
        key = (unit, n == 0)
        g = index.get(key)
        if g is None:
            g = index[key] = len(unit_rows)
            total = math.fsum(unit) or 1.0
            unit_rows.append([x / total for x in unit])
            counts.append(0)
        counts[g] += n
        where.append((g, size))
    if lattice_size(counts) > max_states:
        return None
    res = exact_rows(unit_rows, counts, [spec.cores] + [1] * spec.disks)
    response = tuple(size * res.response[g] for g, size in where)
    return NodeSolution(response, res.utilization, res)


def memory_demands(spec: NodeSpec, row: Sequence[float]) -> MemoryDemands:
    """A demand vector in ``spec.demand_names`` order as chapter 4's :class:`MemoryDemands`."""
    disk = row[-1] if spec.disks else 0.0
    if spec.memory == "smp":
        return MemoryDemands(core=row[0], mem_local=row[1], disk=disk)
    return MemoryDemands(core=row[0], mem_local=row[1], mem_remote=row[2], disk=disk)


def _solve_memory(spec: NodeSpec, rows: Sequence[Sequence[float]], pops: list[float], tol: float,
                  max_iter: int) -> NodeSolution:
    res = two_layer_multiclass(spec.cores, pops, [memory_demands(spec, r) for r in rows], tol=tol, max_iter=max_iter)
    x, t = res.throughput, res.memory.core_time
    busy = sum(x[r] * t[r] for r in range(len(rows))) / spec.cores
    util: tuple[float, ...] = (min(1.0, busy),)
    if spec.disks:
        util += (sum(x[r] * rows[r][-1] for r in range(len(rows))),)
    return NodeSolution(res.response, util, res.memory.amva)


def _resource_utilization(spec: NodeSpec, centre_util: Sequence[float]) -> tuple[float, ...]:
    # The Seidmann queue part carries D/m per job, so its utilization is already the per-core busy fraction.
    off = 2 if spec.cores > 1 else 1
    return (centre_util[0],) + tuple(centre_util[off:])
