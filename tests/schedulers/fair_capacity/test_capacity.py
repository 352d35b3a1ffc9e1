"""Capacity Scheduler: user-limit numbers (docs/hadoop-behaviour.md §7) and heartbeat decisions on tiny clusters.

Each test names the Hadoop 1.2.1 class and method whose behaviour it pins.
"""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.model.templates import Priority
from mrsim.schedulers.capacity import user_limit
from tests.schedulers.fair_capacity.helpers import job, nodes, peak, run, running_at, starts

Q = "mapred.capacity-scheduler.queue."


def test_user_limit_worked_numbers():
    """CapacitySchedulerQueue.assignSlotsToJob, 7.1: queue capacity 50 slots, n = 1."""
    assert user_limit(50, 10, 1, 2, 25, 1.0) == 25  # two users, under capacity: max(25, 13)
    assert user_limit(50, 60, 1, 2, 25, 1.0) == 31  # over capacity: cur = 61 -> max(31, 16), cap 50
    assert user_limit(50, 60, 1, 1, 100, 1.0) == 50  # one user, factor 1: never past the capacity
    assert user_limit(50, 60, 1, 1, 100, 2.0) == 61  # factor 2: keeps growing with occupancy
    assert [user_limit(100, 0, 1, k, 25, 1.0) for k in (2, 3, 4, 5)] == [50, 34, 25, 25]  # 4.5's percentages


def two_queues(**extra) -> dict:
    return {"mapred.queue.names": "a,b", Q + "a.capacity": 50, Q + "b.capacity": 50, **extra}


def test_single_user_queue_held_to_capacity_with_factor_1():
    """assignSlotsToJob: with user-limit-factor 1 one user never holds more than the queue's capacity (2 of 4
    map slots) even though queue b leaves its half idle."""
    r = run([job("A", 0.0, [10.0] * 12, queue="a")], nodes(2, 2, 1), "capacity", two_queues(), interval=1.0)
    assert peak(r) == 2 and r.jobs.finish_s.iloc[0] >= 60.0


def test_factor_above_1_grows_to_maximum_capacity():
    """user-limit-factor 2 lets the user reach trunc(2 x 2) = 4 slots (the whole idle cluster); maximum-capacity
    75 % caps the queue at trunc(0.75 x 4) = 3 (assignSlotsToQueue)."""
    grow = run([job("A", 0.0, [10.0] * 12, queue="a")], nodes(2, 2, 1), "capacity",
               two_queues(**{Q + "a.user-limit-factor": 2}), interval=1.0)
    assert peak(grow) == 4
    capped = run([job("A", 0.0, [10.0] * 12, queue="a")], nodes(2, 2, 1), "capacity",
                 two_queues(**{Q + "a.user-limit-factor": 2, Q + "a.maximum-capacity": 75}), interval=1.0)
    assert peak(capped) == 3


def test_two_users_share_a_queue_by_minimum_user_limit():
    """4.5: two active users and minimum-user-limit-percent 50 in a queue of 4 slots (factor 1): each is held to
    max(ceil(4/2), ceil(50% x 4)) = 2 slots."""
    cfg = {Q + "default.capacity": 100, Q + "default.minimum-user-limit-percent": 50}
    jobs = [job("A", 0.0, [10.0] * 8, user="x"), job("B", 0.0, [10.0] * 8, user="y")]
    r = run(jobs, nodes(2, 2, 1), "capacity", cfg, interval=1.0)
    assert running_at(r, 5.0, "A") == 2 and running_at(r, 5.0, "B") == 2


def test_queue_order_by_occupied_over_capacity():
    """CapacityTaskScheduler.queueComparator: each map goes to the queue with the lowest occupied/capacity:
    a (capacity 75 % = 3 slots) and b (25 % = 1 slot), both with work and factor 4 -> 3 and 1 of 4 slots."""
    cfg = {"mapred.queue.names": "a,b", Q + "a.capacity": 75, Q + "b.capacity": 25,
           Q + "a.user-limit-factor": 4, Q + "b.user-limit-factor": 4}
    jobs = [job("A", 0.0, [10.0] * 8, queue="a"), job("B", 0.0, [10.0] * 8, queue="b")]
    r = run(jobs, nodes(1, 4, 1), "capacity", cfg, interval=1.0)
    assert (running_at(r, 1.0, "A"), running_at(r, 1.0, "B")) == (3, 1)


def test_one_reduce_per_heartbeat_and_many_maps():
    """assignTasks: addMapTasks fills all free map slots, addReduceTask gives at most one reduce."""
    r = run([job("J", 0.0, [30.0] * 3, [5.0] * 2)], nodes(1, 3, 2), "capacity", interval=1.0, slowstart=0.0)
    assert starts(r, "J") == [0.0, 0.0, 0.0] and starts(r, "J", "REDUCE") == [0.0, 1.0]


def test_jobs_in_a_queue_by_start_time_or_priority():
    """JobQueuesManager: start-time order; with supports-priority a later VERY_HIGH job goes first."""
    jobs = [job("Early", 0.0, [10.0] * 2), job("Urgent", 0.5, [10.0] * 2, priority=Priority.VERY_HIGH)]
    hold = [job("A_hold", 0.0, [1.0] * 2)]  # sorts first; holds both slots until 1 s, so both jobs wait
    plain = run(hold + jobs, nodes(1, 2, 1), "capacity", interval=1.0)
    prio = run(hold + jobs, nodes(1, 2, 1), "capacity", {Q + "default.capacity": 100,
                                                        Q + "default.supports-priority": True}, interval=1.0)
    assert starts(plain, "Early") == [1.0, 1.0] and starts(plain, "Urgent") == [11.0, 11.0]
    assert starts(prio, "Urgent") == [1.0, 1.0] and starts(prio, "Early") == [11.0, 11.0]


def test_high_memory_job_takes_two_slots_per_map():
    """JobConf.computeNumSlotsPerMap: 2048 MB maps on 1024 MB slots take 2 slots each, so a 4-slot tracker runs 2
    of them at once. Without the memory keys (the default) every task takes one slot."""
    mem = {"mapred.cluster.map.memory.mb": 1024, "mapred.cluster.reduce.memory.mb": 1024,
           "mapred.cluster.max.map.memory.mb": 4096, "mapred.cluster.max.reduce.memory.mb": 4096}
    j = [job("H", 0.0, [10.0] * 4, extra={"mapred.job.map.memory.mb": 2048})]
    assert peak(run(j, nodes(1, 4, 1), "capacity", mem, interval=1.0)) == 2
    assert peak(run(j, nodes(1, 4, 1), "capacity", interval=1.0)) == 4
    too_big = [job("H", 0.0, [10.0], extra={"mapred.job.map.memory.mb": 8192})]
    with pytest.raises(InputError, match="job H: mapred.job.map.memory.mb = 8192 MB exceeds"):
        run(too_big, nodes(1, 4, 1), "capacity", mem)


def test_high_memory_job_reserves_a_tracker():
    """TaskSchedulingMgr.getTaskFromQueue: a 3-slot map does not fit a tracker with 2 free slots; the tracker is
    reserved for it (the reservation counts as occupied) until the small task ends, then the big map runs; S2, a
    1-slot job submitted meanwhile, waits behind the reservation."""
    mem = {"mapred.cluster.map.memory.mb": 1024, "mapred.cluster.reduce.memory.mb": 1024,
           "mapred.cluster.max.map.memory.mb": 4096, "mapred.cluster.max.reduce.memory.mb": 4096}
    jobs = [job("S", 0.0, [5.0], user="x"), job("Big", 0.5, [10.0], user="y",
                                                  extra={"mapred.job.map.memory.mb": 3072}),
            job("S2", 1.5, [5.0], user="z")]
    r = run(jobs, nodes(1, 3, 1), "capacity", mem, interval=1.0)
    assert starts(r, "Big") == [5.0] and starts(r, "S2") == [15.0]


def test_unknown_queue_is_rejected():
    with pytest.raises(InputError, match="job J: queue 'nope' is not one of the configured queues"):
        run([job("J", 0.0, [1.0], queue="nope")], nodes(1, 1, 1), "capacity")


def test_yarn_capacity_file_replays(tmp_path):
    """yarn.scheduler.capacity.root.* keys: jobs name a leaf by its short name."""
    f = tmp_path / "cs.xml"
    props = {"yarn.scheduler.capacity.root.queues": "a,b", "yarn.scheduler.capacity.root.a.capacity": 50,
             "yarn.scheduler.capacity.root.b.capacity": 50, "yarn.scheduler.capacity.root.b.queues": "c",
             "yarn.scheduler.capacity.root.b.c.capacity": 100}
    f.write_text("<configuration>" + "".join(f"<property><name>{k}</name><value>{v}</value></property>"
                                             for k, v in props.items()) + "</configuration>")
    r = run([job("J", 0.0, [10.0] * 6, queue="c")], nodes(2, 2, 1), "capacity", {"config_file": str(f)}, interval=1.0)
    assert peak(r) == 2  # leaf c has 50 % of 4 slots, user-limit-factor 1
