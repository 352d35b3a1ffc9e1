"""Hand-computed timelines on tiny traces (every number below is worked out in the comments)."""

from __future__ import annotations

import pytest

from mrsim.model.cluster import uniform_cluster
from mrsim.model.templates import Priority
from tests.tracker.helpers import finishes, job, job_finish, one_node, run, starts


def test_one_job_four_maps_two_slots_task_mode():
    # Task-driven (SimMR) mode. Load cap: 4 remaining / 2 slots -> cap 2: m0 (10 s) and m1 (20 s) start at 0.
    # t=10 m0 ends -> m2 (30 s) starts at 10, ends 40; t=20 m1 ends -> m3 (40 s) starts at 20, ends 60.
    r = run([job("j", 0.0, maps=[10, 20, 30, 40])], one_node(2, 1))
    assert starts(r, "j") == [0, 0, 10, 20]
    assert finishes(r, "j") == [10, 20, 40, 60]
    assert job_finish(r, "j") == 60


def test_one_job_four_maps_heartbeat_aligned():
    # Heartbeats every 3 s at phase 0. t=0: heartbeat launches m0, m1. m0 ends at 10, reported at the
    # heartbeat at 12 -> m2 starts at 12 (ends 42). m1 ends 20, reported at 21 -> m3 starts at 21 (ends 61).
    # m2's end at 42 is itself a heartbeat instant: completions sort before heartbeats, so it is reported at 42.
    # m3 ends 61 -> reported at 63: the job finishes when the JobTracker learns it, at 63.
    r = run([job("j", 0.0, maps=[10, 20, 30, 40])], one_node(2, 1), interval=3.0)
    assert starts(r, "j") == [0, 0, 12, 21]
    assert finishes(r, "j") == [10, 20, 42, 61]
    assert job_finish(r, "j") == 63


def test_heartbeat_starts_are_on_the_grid_for_late_arrivals():
    # Interval 3 s, phase 0 on the replay clock (0 = first submission). A runs 0-1, reported at 3.
    # B is submitted at 4.5 and waits for the tracker's next heartbeat at 6; it ends at 7, reported at 9.
    r = run([job("A", 0.0, maps=[1]), job("B", 4.5, maps=[1])], one_node(1, 1), interval=3.0)
    assert job_finish(r, "A") == 3
    assert starts(r, "B") == [6]
    assert job_finish(r, "B") == 9


def test_slow_start_launches_reduce_after_threshold():
    # slowstart 0.5 of 4 maps -> threshold ceil(2) = 2. Two map slots: m0, m1 (10 s) run 0-10; both reports at
    # t=10 meet the threshold, so that heartbeat launches m2, m3 and the reduce. The reduce is first-wave: its
    # shuffle ends first-shuffle (5 s) after the last map's finish (20) = 25, then 7 s of reduce -> 32.
    r = run([job("j", 0.0, maps=[10, 10, 10, 10], reduces=[7], first=[5])], one_node(2, 1), slowstart=0.5)
    assert starts(r, "j", "REDUCE") == [10]
    assert finishes(r, "j", "REDUCE") == [32]
    assert job_finish(r, "j") == 32


def test_no_reduce_before_slow_start_even_with_free_slot():
    # With slowstart 1.0 the reduce may start only when all maps are reported.
    r = run([job("j", 0.0, maps=[10, 10, 10, 10], reduces=[7], first=[5], typical=[3])], one_node(2, 1), slowstart=1.0)
    assert starts(r, "j", "REDUCE") == [20]
    # Launched after the map stage: typical shuffle 3 s, then 7 s -> 30.
    assert finishes(r, "j", "REDUCE") == [30]


def test_first_wave_vs_second_wave_reduce():
    # slowstart 0: reduces are schedulable at once. One reduce slot. r0 launches at 0 (first wave): its shuffle
    # ends 5 s after the map stage (maps end at 10) -> 15, reduce phase 7 s -> 22. r1 launches at 22, after the map
    # stage (second wave): typical shuffle 3 s -> 25, then 7 s -> 32.
    r = run([job("j", 0.0, maps=[10, 10], reduces=[7, 7], first=[5], typical=[3])], one_node(2, 1), slowstart=0.0)
    assert starts(r, "j", "REDUCE") == [0, 22]
    assert finishes(r, "j", "REDUCE") == [22, 32]
    t = r.tasks[r.tasks.type == "REDUCE"].sort_values("task")
    assert [round(x, 6) for x in t.shuffle_end_s] == [15, 25]


def test_a_stand_in_typical_array_is_drawn_once_through_by_both_waves():
    # The trace had no first-wave reduce (first=[]): its three typical shuffles 2, 4 and 30 s stand in for both
    # waves, on one counter, in launch order (mrsim.tracker.state.JobState.next_first_shuffle). slowstart 0, two
    # reduce slots: r0 and r1 launch at 0 (first wave); when the map stage ends at 10 they draw 2 and 4 s from the
    # last map's finish -> shuffles end 12 and 14, 1 s of reduce -> 13 and 15. r2 launches at 13 (second wave) and
    # draws the third duration, 30 s from its launch -> 43, ends 44. (With one counter per wave it drew the first,
    # 2 s, again and the 30-s shuffle was never replayed: 5m_stream_trace job 0920, docs/validation.md.)
    r = run([job("j", 0.0, maps=[10, 10], reduces=[1, 1, 1], typical=[2, 4, 30])], one_node(2, 2), slowstart=0.0)
    assert starts(r, "j", "REDUCE") == [0, 0, 13]
    t = r.tasks[r.tasks.type == "REDUCE"].sort_values("task")
    assert [round(x, 6) for x in t.shuffle_end_s] == [12, 14, 43]
    assert finishes(r, "j", "REDUCE") == [13, 15, 44]


def test_a_stand_in_first_wave_array_is_drawn_once_through_by_both_waves():
    # The reverse: no later-wave reduce in the trace (typical=[]), first-wave shuffles 5 and 50 s. One reduce slot,
    # slowstart 0: r0 launches at 0, draws 5 s from the map stage's end (10) -> 15, ends 16. r1 launches at 16,
    # after the map stage, and draws the second duration, 50 s -> 66, ends 67 (not 5 s again -> 22).
    r = run([job("j", 0.0, maps=[10, 10], reduces=[1, 1], first=[5, 50])], one_node(2, 1), slowstart=0.0)
    assert starts(r, "j", "REDUCE") == [0, 16]
    assert finishes(r, "j", "REDUCE") == [16, 67]


def test_first_shuffle_measured_from_last_map_finish_not_its_report():
    # Heartbeats every 4 s: maps end at 10 but are reported at 12. The first-wave reduce's shuffle ends
    # 5 s after the maps' own finish (15), not after the report (17): the profile already includes that delay.
    r = run([job("j", 0.0, maps=[10], reduces=[7], first=[5])], one_node(1, 1), interval=4.0, slowstart=0.0)
    t = r.tasks[r.tasks.type == "REDUCE"]
    assert round(float(t.shuffle_end_s.iloc[0]), 6) == 15
    assert round(float(t.finish_s.iloc[0]), 6) == 22
    assert job_finish(r, "j") == 24  # reported at the heartbeat at 24


def test_first_shuffle_never_ends_before_the_map_stage_is_known():
    # First shuffle 0.5 s, but the map end (10) is only known at the heartbeat at 12: the shuffle ends at 12.
    r = run([job("j", 0.0, maps=[10], reduces=[1], first=[0.5])], one_node(1, 1), interval=4.0, slowstart=0.0)
    t = r.tasks[r.tasks.type == "REDUCE"]
    assert round(float(t.shuffle_end_s.iloc[0]), 6) == 12
    assert round(float(t.finish_s.iloc[0]), 6) == 13


def test_node_speed_scales_durations():
    from mrsim.model.cluster import ClusterSpec, TrackerSpec

    cluster = ClusterSpec((TrackerSpec("fast", map_slots=1, reduce_slots=1, speed=2.0),))
    r = run([job("j", 0.0, maps=[10, 10])], cluster)
    assert finishes(r, "j") == [5, 10]


def test_out_of_band_heartbeat_reports_immediately():
    # With OOB heartbeats the completion at 10 triggers a heartbeat at 10 (not at the grid time 12).
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload

    conf = HadoopConf(outofband_heartbeat=True)
    w = Workload.of([job("j", 0.0, maps=[10, 10])])
    r = replay(w, one_node(1, 1), conf, create_scheduler("fifo"),
               ReplayOptions(heartbeat_interval_s=3.0, aligned_heartbeats=True, check_invariants=True))
    assert starts(r, "j") == [0, 10]
    assert job_finish(r, "j") == 20


@pytest.mark.parametrize("interval", [0.0, 3.0])
def test_map_only_and_reduce_only_jobs(interval):
    r = run([job("m", 0.0, maps=[5]), job("r", 0.0, reduces=[4], typical=[1])], one_node(1, 1), interval=interval)
    assert job_finish(r, "m") >= 5
    assert finishes(r, "r", "REDUCE")[0] - starts(r, "r", "REDUCE")[0] == pytest.approx(5)


def test_priority_beats_submit_order_when_a_slot_frees():
    # A (NORMAL) fills the only map slot from 0 to 10; B (HIGH, submitted at 1) and C (NORMAL, at 0.5) wait.
    # At 10 FIFO's order is priority first: B, then C.
    jobs = [job("A", 0.0, maps=[10]), job("C", 0.5, maps=[10]), job("B", 1.0, maps=[10], priority=Priority.HIGH)]
    r = run(jobs, one_node(1, 1))
    assert starts(r, "B") == [10]
    assert starts(r, "C") == [20]


def test_fifo_serves_jobs_in_submit_order():
    jobs = [job("A", 0.0, maps=[10, 10, 10]), job("B", 1.0, maps=[10])]
    r = run(jobs, one_node(1, 1))
    assert starts(r, "A") == [0, 10, 20]
    assert starts(r, "B") == [30]


def test_fifo_gives_at_most_one_reduce_per_heartbeat():
    # A reduce-only job with 3 reduces on a tracker with 3 reduce slots, heartbeats every 1 s:
    # cap = ceil(3/3 * 3) = 3, but JobQueueTaskScheduler hands out at most one reduce per heartbeat.
    r = run([job("j", 0.0, reduces=[100, 100, 100], typical=[0])], one_node(1, 3), interval=1.0)
    assert starts(r, "j", "REDUCE") == [0, 1, 2]


def test_fifo_load_cap_spreads_maps_over_trackers():
    # docs/hadoop-behaviour.md §7, JobQueueTaskScheduler's load factor:
    # 10 trackers x 4 map slots; 12 remaining maps -> load factor 0.3 ->
    # per-tracker cap ceil(0.3 * 4) = 2. Aligned heartbeats at 0 in tracker order: trackers 1-6 get 2 maps each.
    r = run([job("j", 0.0, maps=[100] * 12)], uniform_cluster(10, 4, 1), interval=1.0)
    per_tracker = r.tasks.groupby("tracker").size().to_dict()
    assert sorted(per_tracker.values()) == [2] * 6
    assert set(per_tracker) == {f"node{i:04d}" for i in range(1, 7)}


def test_several_local_maps_in_one_heartbeat():
    # Without padding pressure FIFO hands out as many (rack-)local maps as the cap allows in one heartbeat.
    r = run([job("j", 0.0, maps=[5, 5, 5, 5])], uniform_cluster(1, 4, 1), interval=1.0)
    assert starts(r, "j") == [0, 0, 0, 0]


def test_kill_task_requeues_and_counts_wasted_work():
    # A scheduler that kills job A's newest map at t=4 (once) and otherwise behaves like FIFO.
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.model.cluster import uniform_cluster
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload
    from mrsim.schedulers.fifo import FifoScheduler

    class Killer(FifoScheduler):
        def start(self, jt):
            super().start(jt)
            jt.schedule_timer(4.0, token=7)

        def on_timer(self, now, token):
            assert (now, token) == (4.0, 7)
            assert self.jt.kill_task(self.jt.jobs[0], reduce=False) == 4.0

    # One node, 2 map slots, heartbeat every 2 s. m0 (10 s), m1 (10 s) start at 0. At t=4 the newest (m1) is
    # killed (4 s wasted); the freed slot is offered at the next heartbeat, t=4: m1 runs 4 -> 14, reported at 14.
    r = replay(Workload.of([job("A", 0.0, maps=[10, 10])]), uniform_cluster(1, 2, 1), HadoopConf(), Killer(),
               ReplayOptions(heartbeat_interval_s=2.0, aligned_heartbeats=True, check_invariants=True))
    assert starts(r, "A") == [0, 4]
    assert job_finish(r, "A") == 14
    assert r.summary["killed_tasks"] == 1 and r.summary["wasted_slot_s"] == 4.0


def test_locality_node_local_first_then_off_switch_with_slowdown():
    # Hosts A, B on /r1 and C on /r2, one map slot each; aligned heartbeats in tracker order A, B, C at t=0.
    # m0's split is on A, m1's on C. A takes m0 node-local. B has nothing node- or rack-local (m0 taken), so
    # FIFO's non-local call gives it m1 off-switch (JobQueueTaskScheduler has no delay): 10 s x 2 (slowdown).
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.model.cluster import ClusterSpec, TrackerSpec
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload

    cluster = ClusterSpec((TrackerSpec("A", "/r1", 1, 1), TrackerSpec("B", "/r1", 1, 1), TrackerSpec("C", "/r2", 1, 1)))
    j = job("j", 0.0, maps=[10, 10], map_locations=(("/r1/A",), ("/r2/C",)))
    r = replay(Workload.of([j]), cluster, HadoopConf(), create_scheduler("fifo"),
               ReplayOptions(heartbeat_interval_s=1.0, aligned_heartbeats=True, check_invariants=True,
                             off_switch_slowdown=2.0))
    t = r.tasks.sort_values("task")
    assert list(t.tracker) == ["A", "B"]
    assert list(t.locality) == [1, 3]
    assert finishes(r, "j") == [10, 20]
    assert (r.summary["node_local_maps"], r.summary["off_switch_maps"]) == (1, 1)


def test_locality_auto_ignores_locations_on_unknown_hosts():
    # Split hosts unknown to the cluster: the job's maps are rack-local everywhere (several per heartbeat).
    j = job("j", 0.0, maps=[5, 5, 5, 5], map_locations=(("/x/h1",),) * 4)
    r = run([j], uniform_cluster(1, 4, 1), interval=1.0)
    assert starts(r, "j") == [0, 0, 0, 0]
    assert "node_local_maps" not in r.summary


def test_speculative_backup_on_a_faster_node_wins():
    # Nodes "slow" (speed 0.25) and "fast" (speed 1), one map slot each, heartbeats every 1 s, aligned.
    # Job: 2 maps of 100 s. t=0: slow takes m0 (400 s), fast takes m1 (100 s, done at 100, reported at 100).
    # From t=100 the fast node is free: the job has no pending map, m0's progress is 0.25 while the job's average
    # is (1 + 0.25) / 2 = 0.625 >= 0.25 + 0.2 and 60 s have passed -> a backup of m0 starts on "fast" at 100
    # and ends at 200, before the original (400): the backup wins, the original is killed (200 s wasted).
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.model.cluster import ClusterSpec, TrackerSpec
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload

    cluster = ClusterSpec((TrackerSpec("slow", map_slots=1, reduce_slots=1, speed=0.25),
                           TrackerSpec("fast", map_slots=1, reduce_slots=1)))
    conf = HadoopConf(map_speculative=True)
    opts = dict(heartbeat_interval_s=1.0, aligned_heartbeats=True)
    r = replay(Workload.of([job("j", 0.0, maps=[100, 100])]), cluster, conf, create_scheduler("fifo"),
               ReplayOptions(check_invariants=True, **opts))
    assert finishes(r, "j") == [200, 100]
    assert list(r.tasks.sort_values("task").tracker) == ["fast", "fast"]
    assert r.summary["speculative_attempts"] == 1 and r.summary["speculative_wins"] == 1
    assert r.summary["wasted_slot_s"] == 200.0  # the killed original had run from 0 to 200


def test_launch_delay_setup_and_cleanup_tasks():
    # Trace overheads: launch 5 s after submission, setup 2 s, cleanup 3 s; one node, one map slot, heartbeats
    # every 1 s. Inited at 5 -> the heartbeat at 5 gives the setup task (the scheduler is not called) -> done at 7,
    # reported at 7: the job is RUNNING and the same heartbeat launches its map (10 s) -> ends 17, reported at 17,
    # which queues the cleanup task and hands it out in that heartbeat -> ends 20, reported at 20: job done.
    extra = {"launch_delay_s": 5.0, "setup_s": 2.0, "cleanup_s": 3.0}
    r = run([job("j", 0.0, maps=[10], extra=extra)], one_node(1, 1), interval=1.0)
    assert starts(r, "j") == [7]
    assert job_finish(r, "j") == 20
    r0 = run([job("j", 0.0, maps=[10], extra=extra)], one_node(1, 1), interval=1.0, job_overheads=False)
    assert starts(r0, "j") == [0] and job_finish(r0, "j") == 10


def test_failed_attempts_are_replayed_as_wasted_slot_time():
    # m0 (10 s) had one failed attempt of 4 s in the trace; m1 (5 s) none. One map slot, task mode:
    # m0's failed attempt runs 0-4, fails, m0 goes back to the front of the queue and runs 4-14, then m1 14-19.
    r = run([job("j", 0.0, maps=[10, 5], extra={"failed_map_attempts": {"0": [4.0]}})], one_node(1, 1))
    assert starts(r, "j") == [4, 14]
    assert job_finish(r, "j") == 19
    assert r.summary["failed_attempts_replayed"] == 1 and r.summary["wasted_slot_s"] == 4.0
    off = run([job("j", 0.0, maps=[10, 5], extra={"failed_map_attempts": {"0": [4.0]}})], one_node(1, 1),
              failed_attempts=False)
    assert job_finish(off, "j") == 15
