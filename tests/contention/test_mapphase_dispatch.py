"""Map-phase estimate (eqs. 3.1-3.3) and the stream dispatchers of sections 5.5 / 6.4."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.contention.dispatch import (
    DispatchPolicy,
    Server,
    StreamJob,
    UtilizationMeasure,
    dispatch_stream,
    random_stream,
)
from mrsim.contention.epochs import epochs
from mrsim.contention.mapphase import FractionalConcurrency, map_phase_time, map_phase_time_no_contention
from mrsim.contention.node import NodeSpec
from mrsim.errors import InputError


def test_eq_3_1_on_the_dissertation_example() -> None:
    # Section 3.6: M=54 maps, n=8 slots, c=4 nodes (k=2): 6 full waves, then 6 tasks = 1.5 per node.
    # One core, CPU-only 10 s tasks: T_MVA(s) = 10 s, so a full wave takes 20 s.
    spec = NodeSpec(cores=1, disks=0)
    interp = map_phase_time(54, 8, 4, spec, (10.0,))
    assert interp == pytest.approx(6 * 20.0 + 15.0)  # T_MVA(1.5) interpolated between 10 and 20
    ceil = map_phase_time(54, 8, 4, spec, (10.0,), fractional=FractionalConcurrency.CEIL)
    assert ceil == pytest.approx(6 * 20.0 + 20.0)
    assert map_phase_time(54, 8, 4, spec, (10.0,), gamma=0.8) == pytest.approx(interp / 0.8)  # eq. 3.2
    assert map_phase_time_no_contention(54, 8, 10.0) == pytest.approx(70.0)  # eq. 3.3: 6 waves + 1
    assert map_phase_time_no_contention(48, 8, 10.0) == pytest.approx(60.0)
    # Two cores per node: two tasks per node do not contend for the CPU at all under exact MVA? They do a
    # little under Seidmann's split; the estimate stays between the no-contention and one-core values.
    two = map_phase_time(54, 8, 4, NodeSpec(cores=2, disks=0), (10.0,))
    assert 70.0 < two < interp
    with pytest.raises(InputError, match="divide evenly"):
        map_phase_time(54, 9, 4, spec, (10.0,))


def test_round_robin_and_single_server_sequence() -> None:
    spec = NodeSpec(1, 0)
    jobs = [StreamJob(f"j{i}", 0.0, (10.0,)) for i in range(4)]
    res = dispatch_stream(jobs, [Server(spec), Server(spec)], DispatchPolicy.ROUND_ROBIN)
    assert [o.server for o in res.tasks] == [0, 1, 0, 1]
    assert res.job_end == pytest.approx((20.0, 20.0, 20.0, 20.0))  # two 10 s jobs share each core
    # LMUF-T with threshold 0 admits a job only to an idle server: strictly one after the other.
    seq = dispatch_stream(
        [StreamJob("a", 0.0, (10.0,)), StreamJob("b", 1.0, (5.0,))],
        [Server(spec)],
        DispatchPolicy.LEAST_MAX_UTILIZATION_THRESHOLD,
        threshold=0.0,
    )
    assert seq.job_end == pytest.approx((10.0, 15.0))
    assert seq.job_wait == pytest.approx((0.0, 9.0))


def test_lrt_and_lmuf_avoid_the_loaded_server() -> None:
    spec = NodeSpec(1, 1)
    jobs = [StreamJob("big", 0.0, (100.0, 0.0)), StreamJob("small", 1.0, (10.0, 0.0))]
    for policy in (DispatchPolicy.LEAST_RESPONSE_TIME, DispatchPolicy.LEAST_MAX_UTILIZATION):
        res = dispatch_stream(jobs, [Server(spec), Server(spec)], policy)
        assert [o.server for o in res.tasks] == [0, 1], policy
        assert res.job_end == pytest.approx((100.0, 11.0))
    # A half-speed server doubles every demand.
    slow = dispatch_stream([StreamJob("x", 0.0, (4.0, 1.0))], [Server(spec, slowdown=2.0)], DispatchPolicy.ROUND_ROBIN)
    assert slow.job_end == pytest.approx((10.0,))


def test_dispatch_agrees_with_epochs_per_server() -> None:
    # Whatever the policy, each server's local stream must finish exactly as Algorithm 7 says.
    rng = np.random.default_rng(3)
    types = [("bonnie", (8.2, 9.8)), ("nbench", (25.0, 0.0)), ("dbench", (5.5, 4.5))]  # Table 6.1, workload 1
    stream = random_stream(rng, types, 40, 6.0)
    servers = [Server(NodeSpec(1, 1)), Server(NodeSpec(1, 1)), Server(NodeSpec(1, 1), slowdown=2.0)]
    for policy in DispatchPolicy:
        res = dispatch_stream(stream, servers, policy, threshold=0.7, measure=UtilizationMeasure.CPU)
        assert len(res.tasks) == 40 and all(o.dispatched >= stream[o.job].arrival for o in res.tasks)
        for s, server in enumerate(servers):
            local = [o for o in res.tasks if o.server == s]
            ref = epochs(
                [(o.dispatched, tuple(d * server.slowdown for d in stream[o.job].demands)) for o in local],
                server.spec,
                keep_epochs=False,
            )
            assert [o.end for o in local] == pytest.approx(list(ref.end_times), rel=1e-6), (policy, s)


def test_multi_task_jobs_end_with_their_last_task() -> None:
    spec = NodeSpec(1, 0)
    res = dispatch_stream([StreamJob("mr", 0.0, (10.0,), tasks=3)], [Server(spec)] * 3, DispatchPolicy.ROUND_ROBIN)
    assert sorted(o.server for o in res.tasks) == [0, 1, 2]
    assert res.job_end == pytest.approx((10.0,))
    assert res.makespan == pytest.approx(10.0)
