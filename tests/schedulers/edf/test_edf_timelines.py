"""MaxEDF and MinEDF on hand-computed timelines (task-completion mode: no heartbeat delays)."""

from __future__ import annotations

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from mrsim.schedulers.maxedf import MaxEdfScheduler
from mrsim.schedulers.minedf import MinEdfScheduler
from tests.schedulers.edf.helpers import peak_concurrency


def run(jobs, scheduler, nodes=1, maps=1, reduces=1):
    options = ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True)
    return replay(Workload.of(jobs, source="test"), uniform_cluster(nodes, maps, reduces), HadoopConf(), scheduler,
                  options)


def finishes(result) -> dict[str, float]:
    return {j: round(f, 6) for j, f in zip(result.jobs.job_id, result.jobs.finish_s)}


def map_starts(result, job_id) -> list[float]:
    t = result.tasks
    return sorted(round(s, 6) for s in t[(t.job_id == job_id) & (t.type == "MAP")].start_s)


def test_registered_names():
    assert isinstance(create_scheduler("maxedf"), MaxEdfScheduler)
    assert isinstance(create_scheduler("minedf"), MinEdfScheduler)


def test_maxedf_urgent_job_overtakes_at_the_next_free_slot():
    # One map slot. A (2 maps of 10 s, deadline 100) starts at 0; B arrives at 1 with deadline 20 (absolute 21):
    # it gets the slot when A's first map ends (t=10), not after A (no preemption, no FIFO).
    jobs = [JobTemplate("A", 0.0, [10.0, 10.0], [], deadline_s=100.0),
            JobTemplate("B", 1.0, [5.0], [], deadline_s=20.0)]
    r = run(jobs, MaxEdfScheduler())
    assert map_starts(r, "A") == [0.0, 15.0] and map_starts(r, "B") == [10.0]
    assert finishes(r) == {"A": 25.0, "B": 15.0}
    assert r.summary["deadlines_missed"] == 0
    fifo = run(jobs, create_scheduler("fifo"))
    assert finishes(fifo) == {"A": 20.0, "B": 25.0}  # FIFO misses B's deadline: (24 - 20) / 20 = 0.2
    assert fifo.summary["relative_deadline_exceeded"] == 0.2


def test_jobs_without_deadline_run_after_deadlined_jobs_in_submit_order():
    jobs = [JobTemplate("C", 0.0, [3.0, 3.0], []), JobTemplate("E", 0.5, [1.0], []),
            JobTemplate("D", 2.0, [3.0], [], deadline_s=1000.0)]
    r = run(jobs, MaxEdfScheduler())
    # t=0 C0; t=3 D (finite deadline first); t=6 C1 (C before E: submit order); t=9 E.
    assert map_starts(r, "C") == [0.0, 6.0] and map_starts(r, "D") == [3.0] and map_starts(r, "E") == [9.0]


def test_equal_deadlines_tie_by_submit_order_and_every_free_slot_is_used():
    jobs = [JobTemplate("A", 0.0, [4.0] * 3, [2.0, 2.0], deadline_s=50.0),
            JobTemplate("B", 0.0, [4.0] * 3, [2.0], deadline_s=50.0)]
    r = run(jobs, MaxEdfScheduler(), maps=4, reduces=3)
    # Four map slots: A's 3 maps and one of B's at t=0 (the rest of B at 4). All of A's reduces launch in the
    # same heartbeat (no one-reduce-per-heartbeat limit) once slow start is met at t=4.
    assert map_starts(r, "A") == [0.0, 0.0, 0.0] and map_starts(r, "B") == [0.0, 4.0, 4.0]
    red = r.tasks[(r.tasks.type == "REDUCE")]
    assert sorted(round(s, 6) for s in red.start_s) == [4.0, 4.0, 4.0]
    assert finishes(r) == {"A": 6.0, "B": 10.0}


def test_minedf_caps_a_job_at_its_wanted_slots_and_gives_spare_slots_to_the_next_job():
    # A: 8 maps of 10 s, deadline 45 s. Average bound: a = (8*10 + 7*10)/2 = 75, c = (0 + 10)/2 = 5,
    # so S_M = 75/(45 - 5) = 1.875 -> 2 slots (model time 42.5 s). B (no deadline) takes the other 2 slots.
    jobs = [JobTemplate("A", 0.0, [10.0] * 8, [], deadline_s=45.0), JobTemplate("B", 0.0, [10.0, 10.0], [])]
    sched = MinEdfScheduler()
    r = run(jobs, sched, maps=4)
    wanted = sched.wanted(sched.jt.jobs[0])
    assert (wanted.maps, wanted.reduces) == (2, 0)
    assert wanted.allocation.estimate_s == 42.5
    assert map_starts(r, "A") == [0.0, 0.0, 10.0, 10.0, 20.0, 20.0, 30.0, 30.0]  # never more than 2 at once
    assert map_starts(r, "B") == [0.0, 0.0]
    assert finishes(r) == {"A": 40.0, "B": 10.0}  # two slots idle from t=10: MinEDF is not work-conserving
    assert r.summary["deadlines_missed"] == 0
    # MaxEDF gives A all four slots first: A done at 20, B waits until then.
    m = run(jobs, MaxEdfScheduler(), maps=4)
    assert finishes(m) == {"A": 20.0, "B": 30.0}


def test_minedf_reduce_quota_counts_reduces_waiting_for_the_map_stage():
    # One 10 s map, 4 reduces of 10 s, no shuffle, deadline 30 s. Average bound: a = (10 + 0)/2 = 5,
    # b = (4*10 + 3*10)/2 = 35, c = (0 + 20)/2 = 10; Lagrange point with D - c = 20:
    # S_M = sqrt(5)(sqrt(5) + sqrt(35))/20 = 0.91 -> 1, S_R = sqrt(35)(sqrt(5) + sqrt(35))/20 = 2.41 -> 3.
    job = JobTemplate("A", 0.0, [10.0], [10.0] * 4, deadline_s=30.0)
    sched = MinEdfScheduler()
    r = run([job], sched, maps=1, reduces=4)
    want = sched.wanted(sched.jt.jobs[0])
    assert (want.maps, want.reduces) == (1, 3)
    red = r.tasks[r.tasks.type == "REDUCE"].sort_values("task")
    # Slow start (5 % of 1 map) is met only when the map ends at 10: 3 reduces then, the 4th when one ends.
    assert [round(s, 6) for s in red.start_s] == [10.0, 10.0, 10.0, 20.0]
    assert peak_concurrency(red.start_s, red.finish_s) == 3
    assert finishes(r) == {"A": 30.0}


def test_minedf_equals_maxedf_without_deadlines():
    jobs = [JobTemplate("A", 0.0, [3.0, 5.0, 2.0], [4.0]), JobTemplate("B", 1.0, [1.0], [2.0, 2.0])]
    a, b = run(jobs, MaxEdfScheduler(), maps=2, reduces=2), run(jobs, MinEdfScheduler(), maps=2, reduces=2)
    assert a.tasks.equals(b.tasks)
