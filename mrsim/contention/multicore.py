"""Two-layer memory-contention model of a multi-core computer (dissertation chapter 4, Algorithms 3, 5 and 6).

Bottom layer (*memory-contention model*, Fig. 4.2): at most ``m`` jobs can be on the ``m`` cores. A job on a core
alternates between executing (delay centre *Core-I*, demand ``D_core``) and accessing shared memory (load-
independent queues: *Memory*, or *Mem-Local* and *Mem-Remote* on NUMA), and also uses the disk. Its solution
gives ``T(k) = D_core + R'_mem(k)``: the time a job holds a core (executing, waiting for or accessing memory)
at concurrency ``k <= m``.

Top layer (*application-level model*): ``n`` jobs compete for the ``m`` cores, each holding a core for ``T``,
and for the disk.

Parameters from measurements (section 4.3.1) at concurrency 1, with ``E(1)`` the elapsed time and ``p`` the
``PercStalledBackendCycles`` fraction::

    T(1)   = D_core + D_mem = E(1) - D_d          (4.2)
    D_mem  = T(1) * p                               (4.3)
    D_core = (E(1) - D_d) * (1 - p)                 (4.4)

and on NUMA ``D_mem_local / D_mem_remote = K_N / K_T`` (section 4.3.2; the dissertation's measurements give
``K_N = K_T = 4``, hence equal halves, as in Table 4.5).

Everything here is approximate (Bard-Schweitzer scaling above ``m`` jobs, AMVA for multiple classes); the
docstrings say where this code interprets or extends the printed pseudo-code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from mrsim.contention.amva import DEFAULT_MAX_ITER, DEFAULT_TOL, amva_core
from mrsim.contention.mva import MultiClassResult
from mrsim.errors import InputError

#: K_N / K_T measured in section 4.3.2 (K_N = 4 local accesses per remote one, K_T = 4x slower remote access).
DISSERTATION_NUMA_RATIO = 1.0


@dataclass(frozen=True, slots=True)
class MemoryDemands:
    """Service demands of one job class for the two-layer model (seconds, measured at concurrency 1).

    ``mem_local`` is the whole memory demand ``D_Mem`` on an SMP machine; on NUMA it is ``D_Mem-Local`` and
    ``mem_remote`` is ``D_Mem-Remote``. ``disk`` is ``D_d``.
    """

    core: float
    mem_local: float
    mem_remote: float = 0.0
    disk: float = 0.0

    def __post_init__(self) -> None:
        for name in ("core", "mem_local", "mem_remote", "disk"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise InputError(f"memory demands: {name} must be a finite non-negative number of seconds, got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.core + self.mem_local + self.mem_remote + self.disk <= 0.0:
            # A disk-only class (a reduce writing its output) holds no core: T = 0 and Algorithms 5 and 6 still apply.
            raise InputError("memory demands: a job must need some service (core + memory + disk > 0)")

    @property
    def memory(self) -> float:
        """Total memory demand ``D_mem = D_mem_local + D_mem_remote`` (s)."""
        return self.mem_local + self.mem_remote

    @property
    def cpu_time(self) -> float:
        """``T(1) = D_core + D_mem``: CPU time including memory stalls (s), eq. 4.2."""
        return self.core + self.memory

    @property
    def stall_fraction(self) -> float:
        """``PercStalledBackendCycles`` implied by eq. 4.3: ``D_mem / T(1)`` (0 for a disk-only class)."""
        return self.memory / self.cpu_time if self.cpu_time > 0 else 0.0


def _split(memory: float, numa_ratio: float | None) -> tuple[float, float]:
    if numa_ratio is None:
        return memory, 0.0
    if not math.isfinite(numa_ratio) or numa_ratio <= 0:
        raise InputError(f"NUMA ratio K_N/K_T must be positive and finite, got {numa_ratio!r}")
    remote = memory / (1.0 + numa_ratio)
    return memory - remote, remote


def _check_fraction(p: float) -> None:
    if not math.isfinite(p) or not 0.0 <= p < 1.0:
        raise InputError(f"backend-stall fraction must be in [0, 1) (e.g. 0.30 for 30%), got {p!r}")


def demands_from_stall(
    elapsed: float, disk: float, stall_fraction: float, *, numa_ratio: float | None = None
) -> MemoryDemands:
    """Eqs. 4.2-4.4: demands from ``E(1)`` (s), ``D_d`` (s) and ``PercStalledBackendCycles`` as a fraction.

    ``numa_ratio`` is ``K_N / K_T = D_mem_local / D_mem_remote``; None means SMP (one memory queue).
    """
    _check_fraction(stall_fraction)
    if not math.isfinite(elapsed) or not math.isfinite(disk) or disk < 0 or elapsed <= disk:
        raise InputError(f"need E(1) > D_d >= 0 seconds, got E(1)={elapsed!r}, D_d={disk!r}")
    t1 = elapsed - disk  # eq. 4.2
    local, remote = _split(t1 * stall_fraction, numa_ratio)  # eq. 4.3
    return MemoryDemands(core=t1 * (1.0 - stall_fraction), mem_local=local, mem_remote=remote, disk=disk)  # eq. 4.4


def demands_from_core_and_stall(
    core: float, stall_fraction: float, disk: float = 0.0, *, numa_ratio: float | None = None
) -> MemoryDemands:
    """Demands when ``D_core`` and the stall fraction are known but ``D_mem`` is not (Table 4.6's columns).

    From eqs. 4.3 and 4.4, ``D_mem / D_core = p / (1 - p)``.
    """
    _check_fraction(stall_fraction)
    memory = core * stall_fraction / (1.0 - stall_fraction)
    local, remote = _split(memory, numa_ratio)
    return MemoryDemands(core=core, mem_local=local, mem_remote=remote, disk=disk)


# --------------------------------------------------------------------------------------------- single class


@dataclass(frozen=True, slots=True)
class TwoLayerSingleResult:
    """Algorithm 3's outputs. Index ``j`` of the tuples is concurrency ``j`` (index 0 unused, zeros).

    ``core_time[k]`` is ``T(k)`` for ``k <= m``; ``response[j]`` is ``R_0(j)`` and ``throughput[j]`` is ``X_0(j)``
    for ``j <= max(n, m)``; ``disk_residence[j]`` is ``R'_d(j)``; ``cpu_residence[j]`` is the CPU residence
    (``T(j)`` for ``j <= m``, ``R'_CPU(j)`` above). Seconds and jobs/second.
    """

    cores: int
    population: int
    core_time: tuple[float, ...]
    response: tuple[float, ...]
    throughput: tuple[float, ...]
    disk_residence: tuple[float, ...]
    cpu_residence: tuple[float, ...]

    @property
    def execution_time(self) -> float:
        """``R = R_0(n)``, the job execution time at the requested concurrency (s)."""
        return self.response[self.population]

    @property
    def job_throughput(self) -> float:
        """``X = X_0(n)`` (jobs/s)."""
        return self.throughput[self.population]


def two_layer_single_class(
    cores: int, population: int, demands: MemoryDemands, *, cap_throughput: bool = False
) -> TwoLayerSingleResult:
    """Algorithm 3 (section 4.3.1), with the NUMA extension of section 4.3.2. Cost O(max(m, n)).

    Memory layer, exact single-class MVA for ``k = 1 .. m`` (lines 1-12)::

        R'_d(k) = D_d [1 + n_d(k-1)];  R'_L(k) = D_L [1 + n_L(k-1)];  R'_R(k) = D_R [1 + n_R(k-1)]
        T(k) = D_core + R'_L(k) + R'_R(k);  X_0(k) = k / (T(k) + R'_d(k));  n_i(k) = X_0(k) R'_i(k)

    Application layer for ``j = m+1 .. n`` (lines 16-27)::

        R'_d(j) = D_d [1 + n_d(j-1)];  n_d(j) = j/(j-1) n_d(j-1)          (Bard-Schweitzer)
        X_0(j) = n_d(j) / R'_d(j) if D_d > 0 else m / T(m)               (eq. 4.6)
        R'_CPU(j) = (j - n_d(j)) / X_0(j);  R_0(j) = R'_CPU(j) + R'_d(j)

    For ``n < m`` the answer is the memory layer's ``R_0(n) = T(n) + R'_d(n)``: with fewer jobs than cores
    nobody waits for a core (Algorithm 3 only spells out ``n >= m``).

    Caveat of the printed algorithm: the B-S step grows the disk queue in proportion to ``j``, so when the disk
    demand is small next to ``T(m)`` the line-20 throughput keeps rising past the core limit ``m / T(m)`` and
    the execution time barely grows above ``m`` jobs (Table 4.3's Westmere-with-disk column shows it; see
    docs/contention.md). ``cap_throughput=True`` bounds ``X_0(j)`` by ``m / T(m)`` (every core busy) and then
    takes ``R_0(j) = j / X_0(j)`` (Little's law), ``R'_CPU(j) = R_0(j) - R'_d(j)``; off by default, because it is
    not in the dissertation. Uncapped, these formulas equal lines 24-26.
    """
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise InputError(f"cores must be a positive integer, got {cores!r}")
    if isinstance(population, bool) or not isinstance(population, int) or population < 1:
        raise InputError(f"population must be a positive integer, got {population!r}")
    m, n = cores, population
    dd, dl, dr, dc = demands.disk, demands.mem_local, demands.mem_remote, demands.core
    top = max(m, n)
    t_core = [0.0] * (m + 1)
    resp = [0.0] * (top + 1)
    thr = [0.0] * (top + 1)
    res_d = [0.0] * (top + 1)
    res_cpu = [0.0] * (top + 1)
    n_d = n_l = n_r = 0.0
    for k in range(1, m + 1):
        rd = dd * (1.0 + n_d)
        rl = dl * (1.0 + n_l)
        rr = dr * (1.0 + n_r)
        t = dc + rl + rr
        x = k / (t + rd)
        n_d, n_l, n_r = x * rd, x * rl, x * rr
        t_core[k], res_d[k], res_cpu[k], thr[k], resp[k] = t, rd, t, x, t + rd
    t_m = t_core[m]
    for j in range(m + 1, n + 1):
        rd = dd * (1.0 + n_d)
        n_d = j / (j - 1) * n_d  # Bard-Schweitzer (line 19)
        x = n_d / rd if dd > 0.0 else m / t_m  # line 20 / eq. 4.6
        if cap_throughput and x > m / t_m:
            x = m / t_m
        r0 = j / x  # = (j - n_d)/x + R'_d when uncapped (lines 24-26)
        res_d[j], res_cpu[j], thr[j], resp[j] = rd, r0 - rd, x, r0
    return TwoLayerSingleResult(m, n, tuple(t_core), tuple(resp), tuple(thr), tuple(res_d), tuple(res_cpu))


# --------------------------------------------------------------------------------------------- multiple classes


@dataclass(frozen=True, slots=True)
class MemoryLayerResult:
    """Algorithm 5's outputs: ``n_mem[r]`` jobs of class ``r`` on cores and ``core_time[r] = T_r`` (s).

    ``amva`` is the raw solution of the memory-layer network, centres ``(core, mem_local, mem_remote, disk)``.
    """

    n_mem: tuple[float, ...]
    core_time: tuple[float, ...]
    amva: MultiClassResult


_MEM_QUEUE = (False, True, True, True)  # core-I is a delay centre; memories and disk are queues


def _check_classes(populations: Sequence[float], demands: Sequence[MemoryDemands]) -> tuple[float, ...]:
    pops = tuple(float(n) for n in populations)
    if len(pops) != len(demands) or not pops:
        raise InputError(f"need one population per class, got {len(pops)} populations for {len(demands)} classes")
    for r, n in enumerate(pops):
        if not math.isfinite(n) or n < 0:
            raise InputError(f"class {r}: population must be finite and non-negative, got {n!r}")
        if not isinstance(demands[r], MemoryDemands):
            raise InputError(f"class {r}: demands must be a MemoryDemands, got {demands[r]!r}")
    if sum(pops) <= 0:
        raise InputError("the population vector is all zeros")
    return pops


def memory_contention_multiclass(
    cores: int,
    populations: Sequence[float],
    demands: Sequence[MemoryDemands],
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
) -> MemoryLayerResult:
    """Algorithm 5 (section 4.6): the memory-contention layer for multiple classes. Cost: one AMVA solve.

    Line 5: ``N_r^mem = N_r / sum_s N_s * min(sum_s N_s, m)`` (non-integer in general); line 10 solves the
    closed network (Core-I delay, Mem-Local, Mem-Remote and disk queues) at ``N^mem`` with AMVA and returns
    ``T_r = D_core,r + R'_L,r + R'_R,r``, the time a class-``r`` job holds a core.
    """
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise InputError(f"cores must be a positive integer, got {cores!r}")
    pops = _check_classes(populations, demands)
    total = sum(pops)
    n_mem = tuple(n / total * min(total, cores) for n in pops)
    rows = [(d.core, d.mem_local, d.mem_remote, d.disk) for d in demands]
    res = amva_core(rows, n_mem, _MEM_QUEUE, [0.0] * len(rows), tol, max_iter)
    core_time = tuple(res.residence[r][0] + res.residence[r][1] + res.residence[r][2] for r in range(len(rows)))
    return MemoryLayerResult(n_mem, core_time, res)


@dataclass(frozen=True, slots=True)
class TwoLayerMultiResult:
    """Per-class results of the two-layer multi-class model (seconds, jobs/second, jobs).

    ``response[r]`` is ``R'_CPU,r + R'_d,r``, the class-``r`` execution time; ``disk_jobs[r]`` the mean number of
    class-``r`` jobs at the disk.
    """

    throughput: tuple[float, ...]
    response: tuple[float, ...]
    cpu_residence: tuple[float, ...]
    disk_residence: tuple[float, ...]
    disk_jobs: tuple[float, ...]
    memory: MemoryLayerResult


def two_layer_multiclass(
    cores: int,
    populations: Sequence[float],
    demands: Sequence[MemoryDemands],
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    cap_throughput: bool = False,
) -> TwoLayerMultiResult:
    """Algorithms 5 and 6 (section 4.6): execution time per class on an ``m``-core SMP or NUMA machine.

    * ``sum N <= m``: every job has a core; the memory layer (Algorithm 5 at ``N^mem = N``) is the answer,
      ``R_r = T_r + R'_d,r``.
    * ``sum N > m`` and no disk demand: Algorithm 6. Little's law per class on the cores,
      ``X_r = N_r^mem / T_r`` and ``R'_CPU,r = N_r / X_r``. (Algorithm 6 prints the numerator as
      ``N_r m / sum N``, which equals ``N_r^mem`` exactly when ``sum N >= m``; the text says the busy cores are
      apportioned "as in Algorithm 5", which is what is used, so small populations stay correct too.)
    * ``sum N > m`` with disk demand: the dissertation only says "regular AMVA enhanced by the B-S
      approximation". This code uses the multi-class form of Algorithm 3's lines 16-26, which reduces to
      Algorithm 3 for one class: ``n_d,r = (N_r / N_r^mem) n_d,r(N^mem)`` (B-S scaling),
      ``R'_d,r = D_d,r (1 + sum_s n_d,s - n_d,r / N_r)`` (Schweitzer arrival instant),
      ``X_r = n_d,r / R'_d,r``; a class without disk demand gets ``X_r = c_r / T_r`` with its share ``c_r`` of
      the busy cores, apportioned like Algorithm 5 over the jobs not at the disk. Then
      ``R'_CPU,r = (N_r - n_d,r) / X_r``. This branch is an interpretation; treat it as approximate.
      ``cap_throughput=True`` scales every ``X_r`` down by a common factor when the busy cores it implies,
      ``sum_r X_r T_r``, exceed ``m``, and then takes ``R_r = N_r / X_r`` (the same caveat and option as in
      :func:`two_layer_single_class`).
    """
    pops = _check_classes(populations, demands)
    mem = memory_contention_multiclass(cores, pops, demands, tol=tol, max_iter=max_iter)
    n_cls = len(pops)
    total = sum(pops)
    t = mem.core_time
    amva = mem.amva
    if total <= cores:
        x = amva.throughput
        r_d = tuple(amva.residence[r][3] for r in range(n_cls))
        q_d = tuple(amva.queue_length[r][3] for r in range(n_cls))
        resp = tuple(t[r] + r_d[r] for r in range(n_cls))
        return TwoLayerMultiResult(x, resp, t, r_d, q_d, mem)
    if all(d.disk == 0.0 for d in demands):
        x = tuple(mem.n_mem[r] / t[r] if pops[r] > 0 else 0.0 for r in range(n_cls))
        r_cpu = tuple(pops[r] / x[r] if pops[r] > 0 else t[r] * total / cores for r in range(n_cls))
        zeros = (0.0,) * n_cls
        return TwoLayerMultiResult(x, r_cpu, r_cpu, zeros, zeros, mem)
    n_d = [pops[r] / mem.n_mem[r] * amva.queue_length[r][3] if pops[r] > 0 else 0.0 for r in range(n_cls)]
    disk_total = sum(n_d)
    r_d = []
    for r in range(n_cls):
        own = n_d[r] / pops[r] if pops[r] > 0 else 0.0
        r_d.append(demands[r].disk * (1.0 + disk_total - own))
    at_cpu = [pops[r] - n_d[r] for r in range(n_cls)]
    cpu_total = sum(at_cpu)
    busy = min(float(cores), cpu_total)
    x = []
    for r in range(n_cls):
        if pops[r] <= 0:
            x.append(0.0)
        elif demands[r].disk > 0.0:
            x.append(n_d[r] / r_d[r])
        else:
            x.append(at_cpu[r] / cpu_total * busy / t[r])
    busy_implied = sum(x[r] * t[r] for r in range(n_cls))
    if cap_throughput and busy_implied > cores:
        x = [v * cores / busy_implied for v in x]
    # R_r = N_r / X_r is lines 24-26 of Algorithm 3 per class (identical when uncapped).
    resp = tuple(pops[r] / x[r] if x[r] > 0 else t[r] * total / cores + r_d[r] for r in range(n_cls))
    r_cpu = tuple(resp[r] - r_d[r] for r in range(n_cls))
    return TwoLayerMultiResult(tuple(x), resp, r_cpu, tuple(r_d), tuple(n_d), mem)
