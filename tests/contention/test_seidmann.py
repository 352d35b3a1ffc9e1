"""Seidmann's multi-server approximation and the node network (sections 4.5 and 6.3)."""

from __future__ import annotations

import pytest

from mrsim.contention.amva import schweitzer_amva
from mrsim.contention.mva import exact_mva
from mrsim.contention.network import Centre, CentreKind, Network, seidmann, seidmann_split
from mrsim.contention.node import NodeSpec, solve_mix
from mrsim.errors import InputError

Q, D = CentreKind.QUEUE, CentreKind.DELAY


def test_split_values() -> None:
    assert seidmann_split(100.0, 4) == (25.0, 75.0)
    assert seidmann_split(9.0, 1) == (9.0, 0.0)


def test_transformation_of_a_network() -> None:
    net = Network(
        (Centre("cpu", Q, 4), Centre("disk", Q), Centre("net", D)),
        ((100.0, 10.0, 1.0), (8.0, 2.0, 0.0)),
    )
    out = seidmann(net)
    assert [c.name for c in out.centres] == ["cpu", "cpu~delay", "disk", "net"]
    assert out.kinds == (Q, D, Q, D)
    assert out.demands == ((25.0, 75.0, 10.0, 1.0), (2.0, 6.0, 2.0, 0.0))
    assert out.origin == (0, 0, 1, 2)
    assert out.single_server and not net.single_server
    assert out.fold(out.demands[0]) == (100.0, 10.0, 1.0)  # folding the parts restores the demands
    with pytest.raises(InputError, match="apply seidmann"):
        net.require_single_server()
    assert seidmann(out) == out  # idempotent once every centre is single-server


def test_both_solvers_accept_the_transformed_network() -> None:
    out = seidmann(Network((Centre("cpu", Q, 4), Centre("disk", Q)), ((100.0, 10.0),)))
    exact = exact_mva(out.demands[0], 1, kinds=out.kinds)
    approx = schweitzer_amva(out.demands, [1], kinds=out.kinds)
    # One job on an idle 4-core node: no waiting, R = 100 + 10 under both solvers.
    assert exact.response[1] == pytest.approx(110.0, rel=1e-14)
    assert approx.response[0] == pytest.approx(110.0, rel=1e-12)


def test_seidmann_asymptotes() -> None:
    # Many CPU-bound jobs on m cores: throughput tends to m / D (all cores busy), response to N D / m.
    out = seidmann(Network((Centre("cpu", Q, 4),), ((100.0,),)))
    res = exact_mva(out.demands[0], 400, kinds=out.kinds)
    assert res.throughput[400] == pytest.approx(4 / 100.0, rel=1e-12)
    assert res.response[400] == pytest.approx(400 * 100.0 / 4, rel=1e-12)
    assert res.residence[400] == pytest.approx((400 * 100.0 / 4 - 75.0, 75.0), rel=1e-12)
    # Seidmann's known bias: with N <= m it still queues a little (true multi-server value is exactly D).
    assert 100.0 < res.response[2] < 100.0 * 1.1


def test_node_spec_and_solve_mix() -> None:
    spec = NodeSpec(cores=4, disks=2)
    assert spec.resources == ("cpu", "disk0", "disk1")
    assert spec.kinds == (Q, D, Q, Q)
    assert spec.expand([100.0, 3.0, 4.0]) == [25.0, 75.0, 3.0, 4.0]
    sol = solve_mix(spec, [(100.0, 3.0, 4.0)], [1])
    assert sol.response[0] == pytest.approx(107.0, rel=1e-12)
    # Utilization law: one job with X = 1/107 keeps 100/107 of one core busy, i.e. 25/107 of four cores.
    assert sol.utilization == pytest.approx((25.0 / 107.0, 3.0 / 107.0, 4.0 / 107.0), rel=1e-12)
    single = solve_mix(NodeSpec(1, 0), [(100.0,)], [10])
    assert single.response[0] == pytest.approx(1000.0, rel=1e-12)
    assert single.utilization == pytest.approx((1.0,), rel=1e-12)


def test_node_spec_errors() -> None:
    with pytest.raises(InputError, match="cores"):
        NodeSpec(cores=0)
    with pytest.raises(InputError, match="task 7"):
        NodeSpec(2, 1).check((1.0,), "task 7")
    with pytest.raises(InputError, match="disk0 demand"):
        NodeSpec(2, 1).check((1.0, -3.0), "task 7")
    with pytest.raises(InputError, match="server count"):
        Centre("think", D, 3)
