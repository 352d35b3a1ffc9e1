"""LoTES stages 1 and 2 on hand-solvable systems, and the LP constraints on Tables 1 and 3."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.studies.lotes.allocation import solve_allocation
from mrsim.studies.lotes.assignment import build_plan, largest_remainder
from mrsim.studies.lotes.google import table1_cluster, table3_workload
from mrsim.studies.lotes.spec import Cluster, JobClass, MachineConfig, Workload


def _fragmentation_system() -> tuple[Cluster, Workload]:
    # section 4.1: 30 machines of 8 cores, every task needs exactly 3 cores
    cluster = Cluster(("cores",), (MachineConfig("8c", (8.0,), 30),))
    workload = Workload(("cores",), (JobClass("3c", 1.0, 1.0, (3.0,), (0.0,)),))
    return cluster, workload


def test_fluid_lp_promises_80_parallel_tasks_but_bins_allow_60():
    cluster, workload = _fragmentation_system()
    alloc = solve_allocation(cluster, workload)
    # mu = 1 per hour and alpha = 1, so lambda* equals the number of tasks running in parallel
    assert alloc.lam == pytest.approx(80.0)
    assert alloc.parallel_tasks(cluster, workload)[0, 0] == pytest.approx(80.0)
    plan = build_plan(cluster, workload, alloc)
    assert plan.bins == (((2,),),)
    assert plan.machines_per_bin == ((30,),)
    assert plan.lam_assignment == pytest.approx(60.0)
    assert plan.lam_rounded == pytest.approx(60.0)
    assert plan.lam_assignment / alloc.lam == pytest.approx(0.75)


def test_complementary_shapes_are_paired(two_class_system):
    cluster, workload = two_class_system
    alloc = solve_allocation(cluster, workload)
    # 4 cpu machines run 10 X each, 4 mem machines 10 Y each: 40 + 40 in parallel, alpha = 1/2 each
    assert alloc.lam == pytest.approx(80.0)
    assert alloc.classes_of == ((0,), (1,))
    assert alloc.delta[0, 0] == pytest.approx([1.0, 1.0])
    assert alloc.delta[1, 1] == pytest.approx([1.0, 1.0])
    plan = build_plan(cluster, workload, alloc)
    assert plan.bins == (((10, 0),), ((0, 10),))
    assert plan.lam_assignment == pytest.approx(80.0)
    assert plan.rho == ((1.0, 0.0), (0.0, 1.0))


def test_mapreduce_scales_lambda_by_tasks_per_job():
    cluster, workload = _fragmentation_system()
    mr = workload.as_mapreduce(maps=3, reduces=1)
    assert solve_allocation(cluster, mr).lam == pytest.approx(20.0)
    assert build_plan(cluster, mr).lam_assignment == pytest.approx(15.0)


def test_table_system_satisfies_constraints_1_to_4():
    cluster, workload = table1_cluster(), table3_workload()
    alloc = solve_allocation(cluster, workload)
    cap = np.array([c.capacity for c in cluster.configs])
    n = np.array([c.count for c in cluster.configs], dtype=float)
    r = np.array([c.request_mean for c in workload.classes])
    alpha = np.array([c.proportion for c in workload.classes])
    mu = np.array([c.rate for c in workload.classes])
    d = alloc.delta
    assert (d >= 0).all()  # (4)
    assert (d.sum(axis=1) <= 1 + 1e-7).all()  # (3)
    lhs = np.einsum("jkl,jl,j->kl", d, cap, n) * mu[:, None]
    assert (lhs >= alloc.lam * alpha[:, None] * r - 1e-6).all()  # (1)
    ratio = d * cap[:, None, :] / r[None, :, :]
    assert np.allclose(ratio[:, :, 1], ratio[:, :, 0], atol=1e-6)  # (2)
    # the fluid bound cannot beat pooling all cores (or all RAM) of the data centre
    work = (alpha / mu)[:, None] * r
    assert alloc.lam <= ((cap * n[:, None]).sum(axis=0) / work.sum(axis=0)).min() + 1e-6
    plan = build_plan(cluster, workload, alloc)
    assert plan.lam_rounded <= plan.lam_assignment <= alloc.lam + 1e-6
    assert all(sum(m) == 1000 for m in plan.machines_per_bin)
    for k in range(len(workload.classes)):
        assert sum(plan.rho[j][k] for j in range(len(cluster.configs))) == pytest.approx(1.0)
        # a configuration only receives class k if some of its machines emulate a bin containing k
        for j in range(len(cluster.configs)):
            if plan.rho[j][k] > 0:
                assert any(m and plan.bins[j][i][k] for i, m in enumerate(plan.machines_per_bin[j]))


def test_largest_remainder_keeps_the_total():
    assert largest_remainder(np.array([0.5, 0.5, 2.0]), 3) == [1, 0, 2]
    assert largest_remainder(np.array([1.2, 1.3, 0.5]), 3) == [1, 1, 1]
    assert sum(largest_remainder(np.array([0.1] * 7), 10)) == 10
    assert largest_remainder(np.array([0.0, 0.0]), 4) == [2, 2]
