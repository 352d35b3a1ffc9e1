"""Two-layer memory-contention model (chapter 4): hand-computed Algorithm 3, Algorithm 5's worked example,
Algorithm 6, eqs. 4.2-4.4, and what Tables 4.3, 4.5 and 4.6 allow to be checked."""

from __future__ import annotations

import pytest

from mrsim.contention.multicore import (
    MemoryDemands,
    demands_from_core_and_stall,
    demands_from_stall,
    memory_contention_multiclass,
    two_layer_multiclass,
    two_layer_single_class,
)
from mrsim.contention.mva import exact_mva
from mrsim.contention.node import NodeSpec, solve_mix
from mrsim.errors import InputError


def test_algorithm_3_by_hand_no_disk() -> None:
    # m=2, D_core=1, D_mem=1. k=1: T=2, X=1/2, n_mem=1/2. k=2: R'_mem=1.5, T=2.5, X=0.8.
    # j=3: no disk, X = m/T(m) = 0.8 (eq. 4.6), R'_CPU = 3/0.8 = 3.75.
    res = two_layer_single_class(2, 3, MemoryDemands(core=1.0, mem_local=1.0))
    assert res.core_time == pytest.approx((0.0, 2.0, 2.5))
    assert res.throughput[1:] == pytest.approx((0.5, 0.8, 0.8))
    assert res.execution_time == pytest.approx(3.75)
    assert res.job_throughput == pytest.approx(0.8)


def test_algorithm_3_by_hand_with_disk_matches_exact_mva_when_balanced() -> None:
    # m=1, D_core=1, D_mem=0, D_d=1. k=1: R'_d=1, T=1, X=1/2, n_d=1/2.
    # j=2: R'_d = 1.5, n_d = 2 * 1/2 = 1, X = 1/1.5, R'_CPU = (2-1)/X = 1.5, R = 3.
    # j=3: R'_d = 2, n_d = 1.5, X = 0.75, R = 4. Both equal exact MVA on two balanced queues, R = D (n+1).
    res = two_layer_single_class(1, 3, MemoryDemands(core=1.0, mem_local=0.0, disk=1.0))
    assert res.response[1:] == pytest.approx((2.0, 3.0, 4.0))
    assert res.disk_residence[1:] == pytest.approx((1.0, 1.5, 2.0))
    assert res.cpu_residence[2:] == pytest.approx((1.5, 2.0))
    exact = exact_mva([1.0, 1.0], 3)
    assert res.response[1:] == pytest.approx(exact.response[1:])


def test_algorithm_3_numa_two_memory_queues() -> None:
    # m=2, D_core=1, D_L=D_R=0.5: k=1 T=2, X=1/2, n_L=n_R=1/4; k=2 R'_L=R'_R=0.625, T=2.25.
    res = two_layer_single_class(2, 2, MemoryDemands(core=1.0, mem_local=0.5, mem_remote=0.5))
    assert res.core_time[1:] == pytest.approx((2.0, 2.25))
    assert res.execution_time == pytest.approx(2.25)


def test_algorithm_3_fewer_jobs_than_cores_and_cap_option() -> None:
    d = MemoryDemands(core=20.16, mem_local=8.88, disk=0.8)  # Table 4.3, Westmere-EP with disk
    few = two_layer_single_class(12, 5, d)
    assert few.execution_time == pytest.approx(few.core_time[5] + few.disk_residence[5])
    printed = two_layer_single_class(12, 18, d)
    capped = two_layer_single_class(12, 18, d, cap_throughput=True)
    assert printed.response[:13] == capped.response[:13]
    # The printed B-S step lets throughput pass the core limit m/T(m) when D_d is small (documented caveat)...
    assert printed.throughput[18] > 12 / printed.core_time[12]
    # ...the cap holds it there, so time grows like j T(m)/m.
    assert capped.throughput[18] == pytest.approx(12 / capped.core_time[12])
    assert capped.execution_time == pytest.approx(18 * capped.core_time[12] / 12)


def test_eqs_4_2_to_4_4() -> None:
    # E(1) = 40 s, D_d = 10 s, 25 % stalls: T(1) = 30, D_mem = 7.5, D_core = 22.5.
    d = demands_from_stall(40.0, 10.0, 0.25)
    assert (d.core, d.mem_local, d.mem_remote, d.disk) == pytest.approx((22.5, 7.5, 0.0, 10.0))
    assert d.stall_fraction == pytest.approx(0.25)
    # NUMA with K_N/K_T = 4/4 = 1 (section 4.3.2): equal local and remote halves.
    numa = demands_from_stall(40.0, 10.0, 0.25, numa_ratio=1.0)
    assert (numa.mem_local, numa.mem_remote) == pytest.approx((3.75, 3.75))
    skew = demands_from_stall(40.0, 10.0, 0.25, numa_ratio=4.0)
    assert skew.mem_local / skew.mem_remote == pytest.approx(4.0)
    assert demands_from_core_and_stall(22.5, 0.25).mem_local == pytest.approx(7.5)
    with pytest.raises(InputError, match="fraction"):
        demands_from_stall(40.0, 10.0, 30.0)  # a percentage, not a fraction
    with pytest.raises(InputError, match="E\\(1\\) > D_d"):
        demands_from_stall(5.0, 10.0, 0.3)


def test_table_4_3_consistency_with_eq_4_3() -> None:
    """Table 4.3 gives D_core, D_mem and PercStalledBackendCycles; eq. 4.3 says D_mem / (D_core + D_mem) = p.

    Three columns agree within the 1-point rounding of the printed percentages. The Sandy Bridge "disk access"
    column does not (8.67 / 19.61 = 44 %, printed 34 %): a misprint in one of the three numbers, so that column
    cannot be used to test eq. 4.3; this test records the discrepancy instead of hiding it.
    """
    columns = {
        "westmere disk": (20.16, 8.88, 0.30),
        "sandy bridge no disk": (26.26, 11.8, 0.31),
        "westmere no disk": (19.70, 8.31, 0.30),
    }
    for name, (core, mem, p) in columns.items():
        assert MemoryDemands(core, mem).stall_fraction == pytest.approx(p, abs=0.01), name
        # And eq. 4.4 recovers D_core from E(1) - D_d = D_core + D_mem within the same rounding.
        derived = demands_from_stall(core + mem + 1.0, 1.0, p)
        assert derived.core == pytest.approx(core, abs=0.01 * (core + mem)), name
    assert abs(MemoryDemands(10.94, 8.67).stall_fraction - 0.34) > 0.09


def test_table_4_5_numa_parameters() -> None:
    # Table 4.5 lists D_Mem-Local = D_Mem-Remote for every program (K_N/K_T = 1) and the stall percentage
    # equals (D_L + D_R) / (D_core + D_L + D_R) within the printed rounding, for all six columns.
    columns = [
        (7.08, 0.1, 0.03), (14.7, 3.2, 0.30), (26.55, 13.0, 0.50),
        (27.94, 0.43, 0.03), (25.2, 5.4, 0.30), (8.65, 2.3, 0.35),
    ]
    for core, half, p in columns:
        d = MemoryDemands(core, half, half)
        assert d.stall_fraction == pytest.approx(p, abs=0.01)
        derived = demands_from_stall(d.cpu_time, 0.0, p, numa_ratio=1.0)
        assert derived.mem_local == derived.mem_remote
        assert derived.memory == pytest.approx(d.memory, abs=0.01 * d.cpu_time)


def test_algorithm_5_worked_example() -> None:
    # Section 4.6: three classes, 12 cores, N = (8, 12, 4) gives N^mem = (4, 6, 2).
    d = [MemoryDemands(1.0, 0.1), MemoryDemands(2.0, 0.2), MemoryDemands(3.0, 0.3)]
    res = memory_contention_multiclass(12, [8, 12, 4], d)
    assert res.n_mem == pytest.approx((4.0, 6.0, 2.0), rel=1e-15)
    assert res.amva.converged
    # T_r = D_core + R'_mem >= D_core + D_mem (memory contention only adds time).
    for r in range(3):
        assert res.core_time[r] >= d[r].cpu_time


def test_algorithm_6_without_memory_demand_by_hand() -> None:
    # No memory demand: T_r = D_core. m=4, N=(4,4): N^mem=(2,2), X=(2/10, 2/20), R'_CPU = (4/0.2, 4/0.1).
    d = [MemoryDemands(10.0, 0.0), MemoryDemands(20.0, 0.0)]
    res = two_layer_multiclass(4, [4, 4], d)
    assert res.throughput == pytest.approx((0.2, 0.1))
    assert res.response == pytest.approx((20.0, 40.0))
    # Fewer jobs than cores and no memory demand: nobody waits, R = D_core.
    alone = two_layer_multiclass(4, [1, 2], d)
    assert alone.response == pytest.approx((10.0, 20.0))


def test_multiclass_reduces_to_single_class() -> None:
    # With one class the multi-class algorithms follow Algorithm 3 line by line, given the memory layer.
    # Exact check: redo lines 16-26 by hand from the multi-class memory layer's own numbers.
    m = 4
    for d in (MemoryDemands(26.26, 11.8), MemoryDemands(20.16, 8.88, 0.0, 0.8), MemoryDemands(10.94, 8.67, 0.0, 8.93)):
        for n in (6, 12, 18):
            multi = two_layer_multiclass(m, [n], [d])
            mem = multi.memory
            t_m = mem.core_time[0]
            n_d = mem.amva.queue_length[0][3]  # n_d(m)
            if d.disk == 0.0:
                expected = n * t_m / m  # X = m / T(m), R = n / X
            else:
                r_d = d.disk * (1 + (n - 1) / m * n_d)  # D_d [1 + n_d(n-1)] with n_d(j) = j/m n_d(m)
                expected = n / ((n / m * n_d) / r_d)
            assert multi.response[0] == pytest.approx(expected, rel=1e-12), (d, n)
    # Against Algorithm 3 itself the only difference is AMVA instead of exact MVA in the memory layer.
    # Stated tolerance: 8 %, Schweitzer's single-class error with a delay centre (Core-I); see test_amva.
    for d in (MemoryDemands(26.26, 11.8), MemoryDemands(20.16, 8.88, 0.0, 0.8), MemoryDemands(10.94, 8.67, 0.0, 8.93)):
        for n in (1, 3, 4, 8, 12, 18):
            single = two_layer_single_class(m, n, d)
            multi = two_layer_multiclass(m, [n], [d])
            assert multi.response[0] == pytest.approx(single.execution_time, rel=0.08), (d, n)


def test_section_4_7_quoted_model_outputs() -> None:
    """Section 4.7 quotes the dissertation's own model outputs for HBench at concurrency 12 with UBench and
    MBench at 4 on the 12-core NUMA server: 245 s with memory contention, 93 s without. The text does not say
    which workload; Table 4.5's Workload 1 is assumed. These are outputs of the same models, so they check
    our reading of Algorithms 5/6 and of the "w/o memory" model (Seidmann + AMVA on D_core + D_mem), not the
    model against measurements (measured: 210 +- 10 s). Stated tolerance 5 %: the dissertation's AMVA
    tolerance is unknown. (We get 237.6 s and 92.4 s.)
    """
    w1 = [MemoryDemands(7.08, 0.1, 0.1), MemoryDemands(14.7, 3.2, 3.2), MemoryDemands(26.55, 13.0, 13.0)]
    pops = [4, 4, 12]
    with_memory = two_layer_multiclass(12, pops, w1)
    without = solve_mix(NodeSpec(cores=12, disks=0), [(d.cpu_time,) for d in w1], pops)
    assert with_memory.response[2] == pytest.approx(245.0, rel=0.05)
    assert without.response[2] == pytest.approx(93.0, rel=0.05)


def test_table_4_6_with_disk_is_monotone() -> None:
    # Table 4.6 prints D_core, D_Disk and the stall percentage but no D_mem and no model outputs; D_mem is
    # derived by eqs. 4.3-4.4 (D_mem = D_core p / (1 - p)). Only invariants can be checked: MBench's time
    # grows with its concurrency (Fig. 4.14 set-up: UBench and HBench fixed at 4 on 4 cores) and never
    # drops below its isolated time D_core + D_mem + D_d.
    ub = demands_from_core_and_stall(10.8, 0.03, 0.0)
    mb = demands_from_core_and_stall(22.3, 0.30, 2.5)
    hb = demands_from_core_and_stall(71.2, 0.50, 4.0)
    assert hb.memory == pytest.approx(71.2)
    previous = 0.0
    for n in range(1, 13):
        res = two_layer_multiclass(4, [4, n, 4], [ub, mb, hb])
        assert res.response[1] >= mb.cpu_time + mb.disk
        assert res.response[1] > previous
        previous = res.response[1]
