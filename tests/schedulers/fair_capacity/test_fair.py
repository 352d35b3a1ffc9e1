"""Fair Scheduler: fair shares (docs/hadoop-behaviour.md §7), heartbeat decisions on tiny clusters, preemption.

Each test names the Hadoop 1.2.1 class and method whose behaviour it pins.
"""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.schedulers.fair import compute_fair_shares
from tests.schedulers.fair_capacity.helpers import job, nodes, peak, run, running_at, starts


def test_fair_shares_worked_example():
    """SchedulingAlgorithms.computeFairShares, 7.1: 100 slots; A w2 min10 demand80, B w1 min40 demand30, C w1
    demand100 -> R = 23.33: A = 46.67, B = 30 (min 40 cut to its demand), C = 23.33."""
    a, b, c = compute_fair_shares([2.0, 1.0, 1.0], [10.0, 40.0, 0.0], [80.0, 30.0, 100.0], 100.0)
    assert a == pytest.approx(46.667, abs=1e-3) and b == 30.0 and c == pytest.approx(23.333, abs=1e-3)
    assert a + b + c == pytest.approx(100.0, abs=1e-4)


def test_fair_shares_demand_below_capacity_and_min_share_above_weight():
    # Total demand 30 < 100 slots: everyone gets their demand. A min share above R x weight is honoured.
    assert compute_fair_shares([1.0, 1.0], [0.0, 0.0], [10.0, 20.0], 100.0) == pytest.approx([10.0, 20.0])
    assert compute_fair_shares([1.0, 1.0], [30.0, 0.0], [100.0, 100.0], 40.0) == pytest.approx([30.0, 10.0], abs=1e-4)


def two_long_jobs():
    return [job("A", 0.0, [10.0] * 40, user="alice"), job("B", 1.0, [10.0] * 40, user="bob")]


def test_two_equal_pools_split_slots_evenly_where_fifo_runs_jobs_in_turn():
    """Issue evidence. FairScheduler.assignTasks + FairShareComparator: pools alice and bob (one per user,
    poolnameproperty user.name) have equal weight, so once B arrives each freed slot goes to the pool with fewer
    running maps: 4 + 4 of the 8 slots. JobQueueTaskScheduler gives every slot to A until A has no map left."""
    cluster = nodes(4, 2, 1)
    fair = run(two_long_jobs(), cluster, "fair")
    fifo = run(two_long_jobs(), cluster, "fifo")
    for t in (15.0, 25.0, 35.0, 45.0):
        assert running_at(fair, t, "A") == 4 and running_at(fair, t, "B") == 4
    assert running_at(fifo, 25.0, "A") == 8 and running_at(fifo, 25.0, "B") == 0
    assert min(starts(fifo, "B")) == 50.0 == max(starts(fifo, "A")) + 10.0  # B only after A's last wave
    # FIFO: A done at 50 s, B at 100 s. Fair: A ran 8 maps alone (0-10 s), then 4 per 10 s wave: done at 90 s;
    # B gets the whole cluster for its last 8 maps and ends at 100 s too.
    jf, jo = fair.jobs.set_index("job_id").finish_s, fifo.jobs.set_index("job_id").finish_s
    assert (jo["A"], jo["B"]) == (50.0, 100.0) and (jf["A"], jf["B"]) == (90.0, 100.0)


def test_two_equal_pools_even_split_with_heartbeats():
    # The same on the heartbeat engine (1 s heartbeats): the split stays within one slot of even.
    fair = run(two_long_jobs(), nodes(4, 2, 1), "fair", interval=1.0)
    for t in (25.5, 35.5, 45.5):
        assert abs(running_at(fair, t, "A") - running_at(fair, t, "B")) <= 1


def test_assignmultiple_fills_maps_and_reduces_in_one_heartbeat():
    """FairScheduler.assignTasks (assignmultiple = true): one tracker, 2 map + 2 reduce slots, 1 s heartbeats,
    slow start 0. t=0: two maps (the reduce demand is counted from the first update(), at 0.5 s, which wakes the
    tracker). t=1: both reduces in one heartbeat. FIFO (JobQueueTaskScheduler) gives one reduce per heartbeat."""
    j = [job("J", 0.0, [30.0] * 2, [5.0] * 2)]
    fair = run(j, nodes(1, 2, 2), "fair", interval=1.0, slowstart=0.0)
    fifo = run(j, nodes(1, 2, 2), "fifo", interval=1.0, slowstart=0.0)
    assert starts(fair, "J") == [0.0, 0.0] and starts(fair, "J", "REDUCE") == [1.0, 1.0]
    assert starts(fifo, "J", "REDUCE") == [0.0, 1.0]


def test_assignmultiple_off_gives_one_task_per_heartbeat():
    """maxTasksToAssign: assignmultiple = false -> the loop exits after one task."""
    fair = run([job("J", 0.0, [30.0] * 3)], nodes(1, 3, 1), "fair", {"mapred.fairscheduler.assignmultiple": False},
               interval=1.0)
    assert starts(fair, "J") == [0.0, 1.0, 2.0]


def test_load_manager_spreads_maps_when_demand_is_low():
    """CapBasedLoadManager.canAssignMap: cap = ceil(4 slots x 2 runnable / 8 cluster slots) = 1 map per tracker."""
    fair = run([job("J", 0.0, [30.0] * 2)], nodes(2, 4, 1), "fair", interval=1.0)
    assert sorted(fair.tasks.tracker) == ["n1", "n2"]


def _alloc(tmp_path, body: str) -> str:
    f = tmp_path / "alloc.xml"
    f.write_text(f"<allocations>{body}</allocations>")
    return str(f)


def test_min_share_pool_first(tmp_path):
    """FairShareComparator: pool a (minMaps 3) is needy until it runs 3 maps; then running/weight decides:
    a gets 3 of the 4 slots, b 1 (without the min share: 2 and 2)."""
    jobs = [job("X", 0.0, [50.0] * 8, user="b"), job("Y", 0.0, [50.0] * 8, user="a")]
    with_min = run(jobs, nodes(1, 4, 1), "fair", {"config_file": _alloc(tmp_path, "<pool name='a'><minMaps>3</minMaps></pool>")})
    without = run(jobs, nodes(1, 4, 1), "fair")
    assert (running_at(with_min, 1.0, "Y"), running_at(with_min, 1.0, "X")) == (3, 1)
    assert (running_at(without, 1.0, "Y"), running_at(without, 1.0, "X")) == (2, 2)


def test_weights_and_fifo_mode_inside_a_pool(tmp_path):
    """Pool weight 3 vs 1 -> running/weight gives 3:1; schedulingMode fifo (FifoJobComparator) runs the pool's
    earlier job first, fair mode splits the pool between its jobs."""
    cfg = {"config_file": _alloc(tmp_path, "<pool name='a'><weight>3</weight><schedulingMode>fifo</schedulingMode>"
                                           "</pool><pool name='b'><schedulingMode>fair</schedulingMode></pool>")}
    jobs = [job("A1", 0.0, [50.0] * 8, user="a"), job("A2", 0.0, [50.0] * 8, user="a"),
            job("B1", 0.0, [50.0] * 8, user="b"), job("B2", 0.0, [50.0] * 8, user="b")]
    r = run(jobs, nodes(1, 8, 1), "fair", cfg)
    assert [running_at(r, 1.0, j) for j in ("A1", "A2", "B1", "B2")] == [6, 0, 1, 1]


def test_max_running_jobs_makes_jobs_wait(tmp_path):
    """FairScheduler.updateRunnability: pool a maxRunningJobs 1 -> A2 is not runnable until A1 is done; it
    becomes runnable at the next update() (every 0.5 s) after A1's completion, which wakes the trackers."""
    cfg = {"config_file": _alloc(tmp_path, "<pool name='a'><maxRunningJobs>1</maxRunningJobs></pool>")}
    jobs = [job("A1", 0.0, [10.0] * 2, user="a"), job("A2", 0.2, [10.0] * 2, user="a")]
    r = run(jobs, nodes(1, 4, 1), "fair", cfg, interval=1.0)
    a1_done = float(r.jobs.set_index("job_id").finish_s["A1"])
    assert a1_done == 10.0 and starts(r, "A2") == [11.0, 11.0]  # runnable at the 10.5 update, next heartbeat 11
    free = run(jobs, nodes(1, 4, 1), "fair", interval=1.0)
    assert starts(free, "A2") == [1.0, 1.0]


def test_max_maps_caps_a_pool(tmp_path):
    """PoolSchedulable.assignTask skips a pool whose running maps reached maxMaps."""
    cfg = {"config_file": _alloc(tmp_path, "<pool name='a'><maxMaps>2</maxMaps></pool>")}
    r = run([job("A", 0.0, [10.0] * 6, user="a")], nodes(2, 2, 1), "fair", cfg, interval=1.0)
    assert peak(r) == 2 and r.jobs.finish_s.iloc[0] > 29.0


def located(job_id, submit, maps, **kw):
    return job(job_id, submit, maps, map_locations=tuple(("/default-rack/elsewhere",) for _ in maps), **kw)


def test_delay_scheduling_waits_for_node_locality_then_goes_rack_local():
    """FairScheduler.getAllowedLocalityLevel / updateLocalityWaitTimes. Maps with split locations on a host that
    is not in the cluster are never node-local; the job waits locality.delay.node (auto: 1.5 x 1 s heartbeat)
    of consecutive skipped heartbeats: skipped at 0 and 1 (waited 1 s), at t=2 it has waited 2 s >= 1.5 s and
    launches rack-local maps; its next maps go at rack level at once."""
    r = run([located("J", 0.0, [10.0] * 4)], nodes(1, 2, 1), "fair", interval=1.0)
    assert starts(r, "J") == [2.0, 2.0, 12.0, 12.0]
    # A job whose maps have no split location (nonLocalMaps) never waits.
    assert starts(run([job("J", 0.0, [10.0] * 4)], nodes(1, 2, 1), "fair", interval=1.0), "J") == [0.0, 0.0, 10.0, 10.0]
    # Explicit delays: node 0 s (both keys set, so no auto-compute) -> no wait.
    cfg = {"mapred.fairscheduler.locality.delay.node": 0, "mapred.fairscheduler.locality.delay.rack": 0}
    assert starts(run([located("J", 0.0, [10.0] * 2)], nodes(1, 2, 1), "fair", cfg, interval=1.0), "J") == [0.0, 0.0]


def test_min_share_preemption_kills_newest_tasks_after_timeout(tmp_path):
    """FairScheduler.preemptTasksIfNecessary / tasksToPreempt / preemptTasks. 4 map slots. Pool b runs X (2 maps,
    started at 0) and X2 (2 maps, started at 3); Y arrives in pool a (minMaps 2, minSharePreemptionTimeout 5 s) at
    4. Pool a is below its min share from then on; preemption checks run at the first update (0.5 s) and then
    every 15 s, so at 15.5 (11.5 s > 5 s) 2 tasks are due: fair shares a = 2, b = 2, and the 2 newest tasks of b
    (X2's, 12.5 s of work each) are killed. Y's maps start at once; X2's maps rerun after them."""
    alloc = _alloc(tmp_path, "<pool name='a'><minMaps>2</minMaps><minSharePreemptionTimeout>5"
                             "</minSharePreemptionTimeout></pool>")
    cfg = {"config_file": alloc, "mapred.fairscheduler.preemption": True,
           "mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"}
    jobs = [job("X", 0.0, [100.0] * 2, queue="b"), job("X2", 3.0, [100.0] * 2, queue="b"),
            job("Y", 4.0, [10.0] * 2, queue="a")]
    r = run(jobs, nodes(2, 2, 1), "fair", cfg)
    assert r.summary["killed_tasks"] == 2 and r.summary["wasted_slot_s"] == pytest.approx(25.0)
    assert starts(r, "Y") == [15.5, 15.5] and starts(r, "X") == [0.0, 0.0] and starts(r, "X2") == [25.5, 25.5]
    assert r.spec["scheduler"]["tasks_preempted"] == 2
    # Off unless enabled, as in Hadoop: Y then waits for X's maps.
    off = run(jobs, nodes(2, 2, 1), "fair", dict(cfg, **{"mapred.fairscheduler.preemption": False}))
    assert off.summary["killed_tasks"] == 0 and starts(off, "Y") == [100.0, 100.0]
    # preemption.only.log computes but does not kill.
    logged = run(jobs, nodes(2, 2, 1), "fair", dict(cfg, **{"mapred.fairscheduler.preemption.only.log": True}))
    assert logged.summary["killed_tasks"] == 0


def test_fair_share_preemption_after_its_timeout(tmp_path):
    """tasksToPreempt, fair-share part: pool a below half its fair share (2 of 4 slots -> floor(2/2) = 1 > 0
    running) for fairSharePreemptionTimeout 10 s gets up to its fair share: 2 tasks killed at 15.5."""
    alloc = _alloc(tmp_path, "<fairSharePreemptionTimeout>10</fairSharePreemptionTimeout>")
    cfg = {"config_file": alloc, "mapred.fairscheduler.preemption": True}
    jobs = [job("X", 0.0, [100.0] * 4, user="b"), job("Y", 4.0, [10.0] * 2, user="a")]
    r = run(jobs, nodes(2, 2, 1), "fair", cfg)
    assert r.summary["killed_tasks"] == 2 and starts(r, "Y") == [15.5, 15.5]


def test_pool_names_and_undeclared_pools(tmp_path):
    """PoolManager.getPoolName: explicit mapred.fairscheduler.pool (JobTemplate.extra) beats poolnameproperty;
    allow.undeclared.pools = false rejects a job whose pool is not in the file."""
    from mrsim.tracker.scheduling import create_scheduler

    s = create_scheduler("fair", {"mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"})
    r = run([job("J", 0.0, [1.0], queue="q1", extra={"mapred.fairscheduler.pool": "special"}),
             job("K", 0.0, [1.0], queue="q1")], nodes(1, 2, 1), "fair",
            {"mapred.fairscheduler.poolnameproperty": "mapred.job.queue.name"})
    assert r.jobs.finish_s.max() == 1.0
    assert s.fconf.poolnameproperty == "mapred.job.queue.name"
    cfg = {"config_file": _alloc(tmp_path, "<pool name='a'/>"), "mapred.fairscheduler.allow.undeclared.pools": False}
    with pytest.raises(InputError, match="job J: pool 'zed' is not declared"):
        run([job("J", 0.0, [1.0], user="zed")], nodes(1, 1, 1), "fair", cfg)


def test_yarn_fair_file_replays(tmp_path):
    """A Hadoop 2 fair-scheduler.xml: queues placed by the default policy (specified queue, else root.<user>)."""
    f = tmp_path / "fair-scheduler.xml"
    f.write_text("<allocations><queue name='prod'><weight>3</weight></queue>"
                 "<queuePlacementPolicy><rule name='specified'/><rule name='default'/></queuePlacementPolicy>"
                 "</allocations>")
    jobs = [job("P", 0.0, [50.0] * 8, queue="prod"), job("D", 0.0, [50.0] * 8, queue="default")]
    r = run(jobs, nodes(1, 4, 1), "fair", {"config_file": str(f), "yarn.scheduler.fair.assignmultiple": True})
    assert (running_at(r, 1.0, "P"), running_at(r, 1.0, "D")) == (3, 1)  # root.prod w3 vs root.default w1
