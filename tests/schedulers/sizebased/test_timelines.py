"""Hand-computed timelines of SRPT, FSP (both late policies) and LAS on one node (task-driven mode unless said)."""

from __future__ import annotations

from mrsim.schedulers.fsp import FspScheduler
from mrsim.schedulers.las import LasScheduler
from mrsim.schedulers.srpt import SrptScheduler
from tests.schedulers.sizebased.helpers import finish, job, map_starts, node, run, with_factors


def test_srpt_serves_10_then_20_then_30():
    # One map slot, three one-map jobs submitted together: least remaining work first.
    r = run([job("A", 0, [30]), job("B", 0, [10]), job("C", 0, [20])], SrptScheduler({}))
    assert map_starts(r) == [("B", 0), ("C", 10), ("A", 30)]
    assert finish(r) == {"A": 60, "B": 10, "C": 30}


def test_srpt_with_heartbeats_every_3_s():
    # Completions are learned at the next heartbeat (0, 3, 6, ...): B 0-10 reported at 12, C 12-32 reported at 33,
    # A 33-63 reported at 63 (a completion at a heartbeat instant sorts before the heartbeat).
    r = run([job("A", 0, [30]), job("B", 0, [10]), job("C", 0, [20])], SrptScheduler({}), interval=3.0)
    assert map_starts(r) == [("B", 0), ("C", 12), ("A", 33)]
    assert finish(r) == {"A": 63, "B": 12, "C": 33}


def test_srpt_credits_reported_work_before_comparing_with_an_arrival():
    # A: three 10 s maps (size 30) at 0; B: one 25 s map at 5. At 10 A has done 10 (remaining 20 < 25), at 20 it
    # has 10 left: A keeps the slot to 30, then B runs 30-55. Without credits B would overtake A at 10.
    r = run([job("A", 0, [10, 10, 10]), job("B", 5, [25])], SrptScheduler({}))
    assert map_starts(r) == [("A", 0), ("A", 10), ("A", 20), ("B", 30)]
    assert finish(r) == {"A": 30, "B": 55}


def test_srpt_follows_estimates_not_sizes():
    # Estimates 30*0.1 = 3, 10*1 = 10, 20*2 = 40: the over-estimated C goes last, the under-estimated A first.
    r = run([job("A", 0, [30]), job("B", 0, [10]), job("C", 0, [20])],
            with_factors(SrptScheduler, [0.1, 1.0, 2.0], {"sigma": 1.0}))
    assert map_starts(r) == [("A", 0), ("B", 30), ("C", 40)]


def test_srpt_reduces_use_the_same_order():
    # Two jobs with one 1 s map and one reduce (typical shuffle 2 s); one map and one reduce slot, slow start 1.0.
    # Sizes: A 1 + 2 + 20 = 23, B 1 + 2 + 5 = 8. B's map runs first (0-1), then A's (1-2); B's reduce at 1 (2 + 5
    # -> 8); A's reduce waits for the reduce slot: 8 + 2 + 20 = 30.
    jobs = [job("A", 0, [1], [20], [2]), job("B", 0, [1], [5], [2])]
    r = run(jobs, SrptScheduler({}), node(1, 1), slowstart=1.0)
    assert finish(r) == {"A": 30, "B": 8}


def test_preemption_kills_the_newest_task_and_counts_wasted_work():
    # A (one 100 s map) runs from 0; B (one 10 s map) arrives at 5. With preemption A's attempt is killed at 5
    # (5 slot-seconds wasted), B runs 5-15 and A reruns 15-115. Without it, B waits until 100.
    jobs = [job("A", 0, [100]), job("B", 5, [10])]
    r = run(jobs, SrptScheduler({"preempt": True}))
    assert finish(r) == {"A": 115, "B": 15}
    assert r.summary["killed_tasks"] == 1 and r.summary["wasted_slot_s"] == 5
    r = run(jobs, SrptScheduler({"preempt": False}))
    assert finish(r) == {"A": 100, "B": 110}
    assert r.summary["killed_tasks"] == 0


def test_preemption_spares_higher_ranked_jobs():
    # Two slots: A (one 100 s map, rank 100) and C (one 8 s map, rank 8) run; B (10 s) arrives at 2 and needs one
    # slot: only A ranks below B, so A's attempt is killed (2 s wasted), B runs 2-12 and A restarts at 8 on the
    # slot C frees.
    jobs = [job("A", 0, [100]), job("C", 0, [8]), job("B", 2, [10])]
    r = run(jobs, SrptScheduler({"preempt": True}), node(2))
    assert finish(r) == {"A": 108, "B": 12, "C": 8}
    assert r.summary["killed_tasks"] == 1 and r.summary["wasted_slot_s"] == 2


def _fsp_late_case(late: str):
    # Two map slots, no reduce slots: the virtual PS cluster has capacity 2. X and Y (four 10 s maps each) arrive at
    # 0 with estimates 0.2 and 0.1 slot-seconds (factors 0.005 and 0.0025): virtual tags 0.2 and 0.1; Y finishes
    # virtually at 0.1, X at 0.15, so both are late from then on. Z (two 10 s maps, exact estimate 20) arrives at 5
    # on an empty virtual cluster: tag 20, virtual finish 5 + 20 / 2 = 15.
    jobs = [job("X", 0, [10] * 4), job("Y", 0, [10] * 4), job("Z", 5, [10] * 2)]
    return run(jobs, with_factors(FspScheduler, [0.005, 0.0025, 1.0], {"sigma": 1.0, "late": late}), node(2))


def test_fsp_fifo_serves_late_jobs_one_at_a_time_in_lateness_order():
    # t=0: nobody late, tag order: Y, Y. t=10: X and Y late, tag order Y, Y -> Y done 20. t=20: X (tag 0.2) and Z
    # (late since 15, tag 20): X, X; t=30: X, X -> X done 40; Z 40-50.
    r = _fsp_late_case("fifo")
    assert finish(r) == {"X": 40, "Y": 20, "Z": 50}
    assert map_starts(r)[:4] == [("Y", 0), ("Y", 0), ("Y", 10), ("Y", 10)]


def test_fsp_ps_shares_slots_between_late_jobs():
    # t=0 as above (Y, Y). t=10: X and Y late, one slot each (fewest running first, ties to the earlier job): X, Y.
    # t=20: X, Y, Z late with nothing running: X, then Y (0 running < X's 1) -> Y done 30. t=30: X, Z. t=40: X, Z
    # -> X and Z done 50.
    r = _fsp_late_case("ps")
    assert finish(r) == {"X": 50, "Y": 30, "Z": 50}
    assert map_starts(r)[2:6] == [("X", 10), ("Y", 10), ("X", 20), ("Y", 20)]


def test_fsp_exact_estimates_order_by_virtual_finish():
    # One slot, capacity 1. A (30 s) at 0, B (10 s) at 1: virtual tags 30 and V(1) + 10 = 1 + 10 = 11, so FSP (like
    # SRPT) prefers B; without preemption B waits for A's map to end at 30.
    r = run([job("A", 0, [30]), job("B", 1, [10])], FspScheduler({"preempt": True}))
    assert finish(r) == {"A": 41, "B": 11}
    assert r.summary["wasted_slot_s"] == 1
    r = run([job("A", 0, [30]), job("B", 1, [10])], FspScheduler({}))
    assert finish(r) == {"A": 30, "B": 40}


def test_las_round_robin_on_one_slot():
    # Three jobs of three 10 s maps: attained service is credited when each map is reported, so the slot rotates.
    jobs = [job(j, 0, [10, 10, 10]) for j in "ABC"]
    r = run(jobs, LasScheduler({}))
    assert [j for j, _ in map_starts(r)] == list("ABCABCABC")
    assert finish(r) == {"A": 70, "B": 80, "C": 90}


def test_las_ties_share_slots():
    # Two slots, two fresh jobs: one slot each (fewest running tasks first), not both to the earlier job.
    r = run([job("A", 0, [10, 10]), job("B", 0, [10, 10])], LasScheduler({}), node(2))
    assert map_starts(r) == [("A", 0), ("B", 0), ("A", 10), ("B", 10)]


def test_las_new_job_goes_first_and_preempts_only_with_preempt():
    # A (three 10 s maps) from 0; B (one 10 s map) at 15 has attained 0 < A's 10: it gets the slot when A's second
    # map ends at 20; with preemption A's running map is killed at 15 (5 s wasted).
    jobs = [job("A", 0, [10, 10, 10]), job("B", 15, [10])]
    assert finish(run(jobs, LasScheduler({}))) == {"A": 40, "B": 30}
    r = run(jobs, LasScheduler({"preempt": True}))
    assert finish(r) == {"A": 45, "B": 25}
    assert r.summary["wasted_slot_s"] == 5
