"""The Epochs algorithm (chapter 5, Algorithm 7): Table 5.1 row by row, sanity cases, invariants."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.contention.epochs import EpochJob, epochs
from mrsim.contention.node import NodeSpec
from mrsim.errors import InputError

ONE_CORE_ONE_DISK = NodeSpec(cores=1, disks=1)


def r2(x: float) -> float:
    return round(x, 2)


def test_table_5_1_row_by_row() -> None:
    """Table 5.1: J1 (CPU 2 s, disk 4 s) at t=0, J2 (3 s, 5 s) at t=3 on one CPU and one disk.

    The table prints values rounded to 2 decimals and builds e(E_3) and et(J2) by adding *rounded* durations
    (7.69 + 4.98 = 12.67, 4.69 + 4.98 = 9.67); unrounded, e(E_3) = 12.6751 and et(J2) = 9.6751. So each printed
    cell is checked against our value rounded the same way, and the sums are checked as the table forms them.
    """
    res = epochs([EpochJob("J1", 0.0, (2.0, 4.0)), EpochJob("J2", 3.0, (3.0, 5.0))], ONE_CORE_ONE_DISK)
    e1, e2, e3 = res.epochs
    # Rows 2-3: start events and workload mixes.
    assert [e.events for e in res.epochs] == [("arr J1",), ("arr J2",), ("end J1",)]
    assert [e.mix for e in res.epochs] == [(0,), (0, 1), (1,)]
    # Rows 4-5: durations and end times.
    assert [r2(e.duration) for e in res.epochs] == [3.0, 4.69, 4.98]
    assert r2(e1.end) == 3.0 and r2(e2.end) == 7.69
    assert r2(e2.end) + r2(e3.duration) == pytest.approx(12.67)
    # Rows 6-10: job J1.
    assert e1.residual[0] == (2.0, 4.0) and e2.residual[0] == (1.0, 2.0)
    assert r2(e1.execution_times[0]) == 6.0 and r2(e2.execution_times[0]) == 4.69
    assert e1.accomplished[0] == (1.0, 2.0)
    assert [r2(v) for v in e2.accomplished[0]] == [1.0, 2.0]
    # Rows 11-15: job J2.
    assert e2.residual[1] == (3.0, 5.0)
    assert [r2(v) for v in e3.residual[0]] == [1.87, 3.11]
    assert r2(e2.execution_times[1]) == 12.44 and r2(e3.execution_times[0]) == 4.98
    assert [r2(v) for v in e2.accomplished[1]] == [1.13, 1.89]
    assert [r2(v) for v in e3.accomplished[0]] == [1.87, 3.11]
    # End times and J2's execution time (4.69 + 4.98 = 9.67 in the text).
    assert r2(res.end_times[0]) == 7.69
    assert res.end_times[1] == pytest.approx(12.67, abs=0.01)
    assert r2(e2.duration) + r2(e3.duration) == pytest.approx(9.67)
    assert res.execution_times[1] == pytest.approx(9.67, abs=0.01)
    assert res.execution_times[0] == pytest.approx(7.69, abs=0.005)


def test_ten_cpu_tasks_on_one_core_finish_at_1000_s() -> None:
    # Section 6.6: ten 100-second CPU tasks sharing one core finish together after about 100 x 10 s.
    res = epochs([(0.0, (100.0, 0.0))] * 10, ONE_CORE_ONE_DISK)
    assert res.end_times == pytest.approx([1000.0] * 10, rel=1e-12)
    assert len(res.epochs) == 1  # they all end in the first epoch, together


def test_tables_5_11_and_5_12_unix_benchmarks() -> None:
    """Tables 5.10-5.12: Nbench (25, 0), Bonnie++ (8.2, 9.8), Dbench (5.5, 4.5) on a one-core VM, arriving at
    0, 5, 10, 15, 20, 25 s. The arrival times and demands fully determine the Epochs prediction, so the
    dissertation's *predicted* column is a check of this implementation (not of the model against reality).
    Its values look truncated rather than rounded (39.97 where we get 39.980, 29.9 for 29.98) and its AMVA
    tolerance is not stated, hence 0.02 s on epoch ends and 0.1 s on execution times.
    """
    nb, bo, db = (25.0, 0.0), (8.2, 9.8), (5.5, 4.5)
    jobs = [
        EpochJob("J1", 0, nb), EpochJob("J2", 5, bo), EpochJob("J3", 10, db),
        EpochJob("J1-2", 15, nb), EpochJob("J2-2", 20, bo), EpochJob("J3-2", 25, db),
    ]
    res = epochs(jobs, ONE_CORE_ONE_DISK)
    table_5_11_ends = [5, 10, 15, 20, 25, 39.97, 50.47, 57.23, 67.33, 69.38, 79.59]
    assert [e.end for e in res.epochs] == pytest.approx(table_5_11_ends, abs=0.02)
    assert [e.events[0] for e in res.epochs[6:]] == ["end J3", "end J2", "end J3-2", "end J2-2", "end J1"]
    table_5_12_predicted = {"J1": 69.4, "J1-2": 64.6, "J2": 45.5, "J2-2": 47.3, "J3": 29.9, "J3-2": 32.2}
    got = {j.name: et for j, et in zip(res.jobs, res.execution_times)}
    for name, predicted in table_5_12_predicted.items():
        assert got[name] == pytest.approx(predicted, abs=0.1), name


def test_demand_conservation_eq_5_1() -> None:
    # Eq. 5.1: the accomplished demands of a job over its epochs add up to its demand vector.
    rng = np.random.default_rng(7)
    jobs = [(float(rng.uniform(0, 50)), tuple(rng.uniform(0.5, 20, 3))) for _ in range(12)]
    res = epochs(jobs, NodeSpec(cores=2, disks=2))
    done = {i: np.zeros(3) for i in range(12)}
    for e in res.epochs:
        for pos, i in enumerate(e.mix):
            done[i] += e.accomplished[pos]
            before = done[i] - e.accomplished[pos]  # accomplished in earlier epochs (eq. 5.2)
            assert e.residual[pos] == pytest.approx(tuple(np.asarray(jobs[i][1]) - before), abs=1e-9)
    for i in range(12):
        assert done[i] == pytest.approx(jobs[i][1], rel=1e-9)
        # Contention can only slow a job down: its time is at least its isolated time sum(D) (one job: R = sum D).
        assert res.execution_times[i] >= sum(jobs[i][1]) * (1 - 1e-12)
    ends = [e.end for e in res.epochs]
    assert ends == sorted(ends)


def test_idle_gap_and_simultaneous_arrivals_and_order() -> None:
    jobs = [(0.0, (4.0, 0.0)), (100.0, (2.0, 2.0)), (100.0, (2.0, 2.0)), (3.0, (0.0, 0.0))]
    res = epochs(jobs, ONE_CORE_ONE_DISK)
    assert res.end_times[0] == pytest.approx(4.0)  # alone: no contention
    assert res.end_times[3] == 3.0  # zero demand ends at its start
    assert res.end_times[1] == res.end_times[2]  # identical jobs arriving together end together
    # Two identical jobs on two balanced queues (D = 2 each): Q_k = 1 per queue, so R = 2 (1 + 1/2) * 2 = 6 s,
    # which is also exact MVA's D (n + 1).
    assert res.end_times[1] == pytest.approx(100.0 + 6.0, rel=1e-12)
    shuffled = epochs([jobs[2], jobs[3], jobs[0], jobs[1]], ONE_CORE_ONE_DISK)
    assert sorted(shuffled.end_times) == pytest.approx(sorted(res.end_times))
    assert res.makespan == pytest.approx(106.0)


def test_bad_input() -> None:
    with pytest.raises(InputError, match="job J2"):
        epochs([(0.0, (1.0, 1.0)), (1.0, (1.0,))], ONE_CORE_ONE_DISK)
    with pytest.raises(InputError, match="start time"):
        epochs([EpochJob("x", float("nan"), (1.0, 1.0))], ONE_CORE_ONE_DISK)
