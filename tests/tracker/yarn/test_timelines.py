"""Hand-computed YARN timelines: AM start, the allocate heartbeat delays, reduce slow start (docs/yarn.md).

Every case: one NodeManager heartbeating at 0, 1, 2, ... s (aligned phases), AM allocates every 1 s from the AM's
start, containers of 1024 MB, zero launch lag. Same-instant order: AM events before NodeManager heartbeats.
"""

from __future__ import annotations

import pytest

from mrsim.tracker.yarn import LaunchLag, create_yarn_scheduler, replay_yarn
from tests.tracker.yarn.helpers import cluster, conf, job, workload


def _run(w, scheduler="fifo", **conf_changes):
    return replay_yarn(w, cluster(), conf(**conf_changes), create_yarn_scheduler(scheduler), aligned_heartbeats=True)


def test_am_then_maps_one_allocate_to_ask_and_one_to_receive() -> None:
    # t=0 submit; NM heartbeat at 0 allocates the AM container; the AM starts at 0 and sleeps one interval;
    # allocate at 1 sends the map asks, served by the NM heartbeat at 1; the AM receives them at its allocate at 2
    # and launches both maps (2 -> 12). The job ends when its last task tells the AM: 12.
    r = _run(workload(job("j1", [10.0, 10.0])))
    jobs = r.jobs
    assert jobs.loc[0, "am_start_s"] == 0.0
    assert jobs.loc[0, "start_s"] == 2.0
    assert jobs.loc[0, "finish_s"] == 12.0
    assert list(r.tasks["start_s"]) == [2.0, 2.0]
    assert r.summary["yarn"]["containers"] == 3


def test_logged_launch_time_sets_the_am_start() -> None:
    # AM container allocated at 0, but the trace's AM started 4.5 s after submission: AM start 4.5, first allocate
    # 5.5 (asks), NM heartbeat at 6 allocates, the AM receives at its allocate at 6.5: maps run 6.5 -> 16.5.
    r = _run(workload(job("j1", [10.0], launch_delay=4.5)))
    assert r.jobs.loc[0, "am_start_s"] == 4.5
    assert r.jobs.loc[0, "start_s"] == 6.5
    assert r.jobs.loc[0, "finish_s"] == 16.5


def test_reduce_slow_start_asks_at_the_next_allocate() -> None:
    # Map 2 -> 12. The AM learns at 12 (umbilical; exits come before allocates at one instant), so its allocate
    # at 12 schedules the reduce (no map outstanding: all reduces at once); that ask goes with the allocate at 13,
    # the NM heartbeat at 13 allocates it, the AM receives it at 14. The map stage is over: typical shuffle 2 s,
    # reduce 3 s -> 14 + 2 + 3 = 19.
    r = _run(workload(job("j1", [10.0], [3.0], typical=[2.0])))
    t = r.tasks.set_index("type")
    assert t.loc["REDUCE", "start_s"] == 14.0
    assert t.loc["REDUCE", "shuffle_end_s"] == 16.0
    assert r.jobs.loc[0, "finish_s"] == 19.0


def test_first_wave_reduce_shuffles_after_the_last_map() -> None:
    # slow start 0: the reduce is asked at the first allocate (1) together with the maps... but asks made during
    # an allocate go with the next one: the maps' asks (made at start) go at 1, the reduce's at 2. NM heartbeat 1:
    # 2 maps (2 x 1024 of 8192); NM heartbeat 2: the reduce; AM receives maps at 2, the reduce at 3.
    # Maps 2 -> 12 and 2 -> 14; first shuffle 1.5 s after the last map's finish: 15.5; reduce 3 s: 18.5.
    r = _run(workload(job("j1", [10.0, 12.0], [3.0], first=[1.5])), slowstart=0.0)
    t = r.tasks
    red = t[t.type == "REDUCE"].iloc[0]
    assert red.start_s == 3.0
    assert red.shuffle_end_s == 15.5
    assert r.jobs.loc[0, "finish_s"] == 18.5


def test_container_exit_frees_resources_at_the_next_nm_heartbeat() -> None:
    # A 2048 MB node holds the AM and one map. Map 1 runs 2 -> 4.5; its container is reported at the NM heartbeat
    # at 5, which gives the second map's container; the AM receives it at 6: map 2 runs 6 -> 8.5.
    r = replay_yarn(workload(job("j1", [2.5, 2.5])), cluster(), conf(nm_memory_mb=2048.0),
                    create_yarn_scheduler("fifo"), aligned_heartbeats=True)
    assert sorted(r.tasks["start_s"]) == [2.0, 6.0]
    assert r.jobs.loc[0, "finish_s"] == 8.5


def test_launch_lag_delays_every_task() -> None:
    r = replay_yarn(workload(job("j1", [10.0])), cluster(), conf(task_launch_lag=LaunchLag(0.25)),
                    create_yarn_scheduler("fifo"), aligned_heartbeats=True)
    assert r.jobs.loc[0, "start_s"] == 2.25
    assert r.jobs.loc[0, "finish_s"] == 12.25


def test_container_size_normalised_and_capped() -> None:
    c = conf()
    assert c.normalise(1536, 1) == (2048.0, 1.0)
    assert c.normalise(100000, 9) == (8192.0, 4.0)
    sizes = c.job_sizes({"mapreduce.map.memory.mb": "1500", "yarn.app.mapreduce.am.resource.mb": "512"}, {})
    assert sizes["map"] == (2048.0, 1.0) and sizes["am"] == (1024.0, 1.0)


@pytest.mark.parametrize("scheduler", ["fifo", "capacity", "fair"])
def test_every_scheduler_finishes_a_mixed_workload(scheduler: str) -> None:
    jobs = [job(f"j{i}", [5.0 + i] * (3 + i), [2.0] * (i % 3), submit=float(i), typical=[1.0], first=[0.5])
            for i in range(8)]
    r = replay_yarn(workload(*jobs), cluster(3), conf(), create_yarn_scheduler(scheduler),
                    check=lambda rm: rm.jt.check_invariants())  # the core's, then the RM's (a feature's)
    assert (r.jobs["finish_s"] > r.jobs["start_s"]).all()
    assert r.summary["tasks"] == sum(j.n_tasks for j in jobs)
    assert r.summary["yarn"]["containers"] >= r.summary["tasks"] + len(jobs)


def test_application_masters_filling_the_cluster_is_reported_as_a_stall() -> None:
    # YARN's FIFO scheduler has no AM limit: on a 2048 MB node both AMs are allocated at 0 and no map ever fits,
    # as a real cluster would deadlock. The replay stops with a one-line error instead of polling forever.
    from mrsim.errors import InputError

    w = workload(job("j1", [5.0]), job("j2", [5.0]))
    with pytest.raises(InputError, match="stalled: 2 application"):
        replay_yarn(w, cluster(), conf(nm_memory_mb=2048.0), create_yarn_scheduler("fifo"), aligned_heartbeats=True)
    # Capacity's maximum-am-resource-percent (0.1 of 2048 MB: one AM at a time) avoids it.
    r = replay_yarn(w, cluster(), conf(nm_memory_mb=2048.0), create_yarn_scheduler("capacity"), aligned_heartbeats=True)
    assert list(r.jobs["am_start_s"]) == [0.0, 7.0]


@pytest.mark.parametrize("scheduler", ["fifo", "capacity", "fair"])
def test_parked_ramping_ams_match_polling_ones_here(scheduler: str) -> None:
    # Parking AMs that only wait for the reduce ramp-up is an approximation of polling every second (rm.py);
    # on this contended workload with reduces it changes nothing.
    jobs = [job(f"j{i}", [5.0 + i] * (3 + 2 * i), [2.0] * (1 + i % 3), submit=float(3 * i), typical=[1.0],
                first=[0.5]) for i in range(12)]
    parked = replay_yarn(workload(*jobs), cluster(3), conf(), create_yarn_scheduler(scheduler))
    polled = replay_yarn(workload(*jobs), cluster(3), conf(), create_yarn_scheduler(scheduler), poll_ams=True)
    assert list(parked.jobs["finish_s"]) == list(polled.jobs["finish_s"])
    assert parked.summary["events"] <= polled.summary["events"]
