"""Hand-computed replays with each calibration term (heartbeats every 1 s at phase 0 unless stated)."""

from __future__ import annotations

from mrsim.calibration.background import Background, estimate_background
from mrsim.calibration.model import Calibration, Distribution, TrackerOutlier
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from tests.tracker.helpers import finishes, job, job_finish, one_node, run, starts


def _cal(**kw) -> Calibration:
    return Calibration(**{"launch_lag": {"map": Distribution.constant(2.0)}, "source": "hand", **kw})


def test_launch_lag_holds_the_slot_before_the_map_progresses():
    # One map slot. m0 assigned at the t=0 heartbeat, starts 2 s later, runs 10 s: ends 12, reported at the
    # heartbeat at 12. m1 assigned at 12, ends 24. Without calibration: 10 and 20.
    r = run([job("j", 0.0, maps=[10, 10])], one_node(1, 1), interval=1.0, calibration=_cal())
    assert starts(r, "j") == [0, 12]
    assert finishes(r, "j") == [12, 24]
    assert job_finish(r, "j") == 24
    plain = run([job("j", 0.0, maps=[10, 10])], one_node(1, 1), interval=1.0)
    assert job_finish(plain, "j") == 20


def test_first_wave_reduce_cannot_shuffle_before_its_attempt_started():
    # slowstart 0: map and reduce both assigned at t=0. The map (no lag) ends at 10 = map stage done; SimMR's
    # first shuffle would end at 10 + 1 = 11, but the reduce's JVM starts only at 0 + 20 = 20: shuffle ends 20,
    # reduce phase 3 s -> 23, reported at 23.
    cal = Calibration(launch_lag={"reduce": Distribution.constant(20.0)}, source="hand")
    r = run([job("j", 0.0, maps=[10], reduces=[3], first=[1])], one_node(1, 1), interval=1.0, slowstart=0.0,
            calibration=cal)
    assert finishes(r, "j", "REDUCE") == [23]
    assert job_finish(r, "j") == 23


def test_second_wave_reduce_adds_its_lag_before_the_typical_shuffle():
    # slowstart 1: the reduce is assigned at 10 (map reported), starts at 12, typical shuffle 4 -> 16, reduce 3 -> 19.
    cal = Calibration(launch_lag={"reduce": Distribution.constant(2.0)}, source="hand")
    r = run([job("j", 0.0, maps=[10], reduces=[3], typical=[4])], one_node(1, 1), interval=1.0, slowstart=1.0,
            calibration=cal)
    assert starts(r, "j", "REDUCE") == [10]
    assert finishes(r, "j", "REDUCE") == [19]


def test_jvm_reuse_skips_the_lag_after_the_first_task_on_a_tracker():
    # reuse -1 (unlimited): m0 pays 2 s (ends 12), m1 on the same tracker reuses the JVM: 12 -> 22.
    r = run([job("j", 0.0, maps=[10, 10])], one_node(1, 1), interval=1.0, calibration=_cal(jvm_reuse=-1))
    assert finishes(r, "j") == [12, 22]


def test_setup_and_cleanup_take_their_task_time():
    # Setup task: attempt 1 s but task 3 s (JobTracker clock) -> holds the slot 0..3, reported at 3; the map
    # (lag 2 + 10) runs 3..15; cleanup task 4 s: 15..19, reported at 19. Without calibration: 1 + 10 + 1 -> 12.
    template = job("j", 0.0, maps=[10], extra={"setup_s": 1.0, "cleanup_s": 1.0, "setup_task_s": 3.0,
                                               "cleanup_task_s": 4.0})
    r = run([template], one_node(1, 1), interval=1.0, calibration=_cal())
    assert starts(r, "j") == [3]
    assert job_finish(r, "j") == 19
    assert job_finish(run([template], one_node(1, 1), interval=1.0), "j") == 12


def test_a_stalled_tracker_starts_nothing_before_its_stall_ends():
    # Two trackers, one map slot each; h2 stalled from 0 to 30 s. At t=0 FIFO puts m0 on h1 and m1 on h2 (both
    # heartbeat at 0, tracker order): m0 ends 0 + 2 + 10 = 12, m1 starts when the stall ends: 30 + 10 = 40.
    cluster = ClusterSpec((TrackerSpec("h1", map_slots=1, reduce_slots=1), TrackerSpec("h2", map_slots=1, reduce_slots=1)))
    cal = _cal(outliers={"h2": TrackerOutlier("h2", ((0.0, 30.0),))})
    r = run([job("j", 0.0, maps=[10, 10])], cluster, interval=1.0, calibration=cal)
    assert sorted(finishes(r, "j")) == [12, 40]
    no_stalls = run([job("j", 0.0, maps=[10, 10])], cluster, interval=1.0, calibration=cal,
                    calibration_parts=frozenset({"launch"}))
    assert sorted(finishes(no_stalls, "j")) == [12, 12]


def test_report_lag_delays_the_out_of_band_heartbeat():
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload

    # Out-of-band heartbeats, interval 100 s: m0 ends at 10, its heartbeat leaves 0.5 s later -> m1 at 10.5.
    cal = Calibration(report_lag={"map": Distribution.constant(0.5)}, source="hand")
    options = ReplayOptions(heartbeat_interval_s=100.0, aligned_heartbeats=True, check_invariants=True, calibration=cal)
    result = replay(Workload.of([job("j", 0.0, maps=[10, 10])]), one_node(1, 1),
                    HadoopConf(outofband_heartbeat=True), create_scheduler("fifo"), options)
    assert starts(result, "j") == [0, 10.5]


def test_background_holds_free_map_slots_before_the_scheduler():
    # Outside work holds both map slots of the only tracker from 0 to 50 s: the traced map waits, is assigned at
    # the heartbeat at 50 and ends at 60. Without it: 0..10.
    bg = Background(times=(0.0, 50.0), map_slots=(2, 0))
    r = run([job("j", 0.0, maps=[10])], one_node(2, 1), interval=1.0, background=bg)
    assert starts(r, "j") == [50]
    assert job_finish(r, "j") == 60


def test_background_estimate_from_a_wait_with_free_slots():
    # 4 map slots. Job B waited from 100 to 400 s for its first map while the trace ran one attempt (100..200):
    # after the grace (5 + 2 x 1 s) the background holds 3 slots to 200 s, then 4 until 400 s.
    bg = estimate_background([("B", 100.0, 400.0)], [(100.0, 1), (200.0, -1)], 4, 1.0)
    assert bg.times == (107.0, 200.0, 400.0)
    assert bg.map_slots == (3, 4, 0)
    assert bg.job_waits["B"] == 293.0
    assert estimate_background([("A", 0.0, 6.0)], [], 4, 1.0).is_empty()  # within the dispatch latency


def test_background_holds_free_reduce_slots_before_the_scheduler():
    # Outside work holds the only reduce slot from 0 to 30 s (slowstart 0). The map runs 0..10; the reduce is ready
    # at once but is assigned only at the heartbeat at 30, after the map stage: typical shuffle 2 s, reduce 3 s ->
    # 35. Without the background the reduce is a first-wave reduce launched at 0: shuffle ends 10 + 1 = 11 -> 14.
    bg = Background(reduce_times=(0.0, 30.0), reduce_slots=(1, 0))
    template = job("j", 0.0, maps=[10], reduces=[3], first=[1], typical=[2])
    r = run([template], one_node(1, 1), interval=1.0, slowstart=0.0, background=bg)
    assert starts(r, "j", "REDUCE") == [30]
    assert job_finish(r, "j") == 35
    assert job_finish(run([template], one_node(1, 1), interval=1.0, slowstart=0.0), "j") == 14


def _logged(job_id: str, launch: float, setup: tuple[float, float], maps: list[tuple[float, float]],
            reduces: list[tuple[float, float, str]], slowstart: float = 0.05) -> dict:
    """A LoggedJob (Rumen) in epoch ms from seconds: SETUP task, maps (start, finish) and reduces (start, finish,
    host), task and attempt times equal."""
    ms = lambda t: int(round(t * 1000))  # noqa: E731
    task = lambda kind, i, a, b, host="h1": {"taskType": kind, "startTime": ms(a), "finishTime": ms(b), "attempts": [  # noqa: E731
        {"attemptID": f"attempt_{job_id}_{'r' if kind == 'REDUCE' else 'm'}_{i:06d}_0", "startTime": ms(a),
         "finishTime": ms(b), "result": "SUCCESS", "hostName": host}]}
    return {"jobID": job_id, "submitTime": ms(launch), "launchTime": ms(launch),
            "jobProperties": {"mapreduce.job.reduce.slowstart.completedmaps": str(slowstart)},
            "otherTasks": [task("SETUP", 99, *setup)], "mapTasks": [task("MAP", i, a, b) for i, (a, b) in enumerate(maps)],
            "reduceTasks": [task("REDUCE", i, a, b, h) for i, (a, b, h) in enumerate(reduces)]}


def test_reduce_background_estimate_counts_only_stretches_without_any_traced_reduce_assignment():
    # Two reduce slots, heartbeat 1 s: grace 5 + 2 = 7 s. Job A (2 maps, slowstart 0.05 -> 1 map needed): setup
    # 1..2, maps end at 5 and 6, so its reduces may run from 5; its first reduce is assigned at 30 (runs 30..40).
    # Job B: setup 15..16, its one map ends at 17 (ready then), first reduce assigned at 36 (36..41). A's
    # assignment at 30 cuts B's wait in two: 17..30 (13 s) and 30..36 (6 s, not above the grace: normal dispatch).
    # A stretch above the grace is held from its start (no reduce slot was free at any heartbeat of it): A 5..30,
    # B 17..30. Held = 2 - traced reduce-slot attempts (none before 30): 2 on 5..30. Explained: A 25 s, B 13 s.
    # Without the cut B's whole wait (19 s) would count and the slots stay held to 36.
    from mrsim.calibration.background import BackgroundCollector

    c = BackgroundCollector()
    c.add_job(_logged("job_1_0001", 0.0, (1.0, 2.0), [(2.0, 5.0), (2.0, 6.0)], [(30.0, 40.0, "h1")]), "A")
    c.add_job(_logged("job_1_0002", 14.0, (15.0, 16.0), [(16.0, 17.0)], [(36.0, 41.0, "h2")]), "B")
    assert c.reduce_ready == [("A", 5.0, 30.0), ("B", 17.0, 36.0)]
    bg = c.estimate(total_map_slots=4, heartbeat_interval_s=1.0, total_reduce_slots=2)
    assert bg.reduce_times == (5.0, 30.0)
    assert bg.reduce_slots == (2, 0)
    assert bg.job_waits == {"A": 25.0, "B": 13.0}
    assert bg.times == ()  # no map wait: A's and B's maps started when their setup ended
    # What a trace store keeps gives the same estimate (the waits already cut at the assignments).
    again = BackgroundCollector.from_stored(c.stored()).estimate(4, 1.0, 2)
    assert again == bg


def test_a_stall_belongs_to_one_launcher_of_its_tracker():
    # TaskTracker.TaskLauncher: map-slot and reduce-slot attempts are started by two threads. h1 runs the map
    # (lag 2, 5 s: 0 -> 7, reported at 7); the reduce (no lag law: 0 s) is handed to h2 at its heartbeat at 7
    # (slowstart 1). h2's *map* launcher is stuck from 0 to 100 s: the reduce starts at once, typical shuffle 4 s
    # and reduce 3 s -> 14. With the whole tracker stalled (part off) it starts at 100 -> 107; with the reduce
    # launcher stuck it starts at 100 as well.
    cluster = ClusterSpec((TrackerSpec("h1", map_slots=1, reduce_slots=0), TrackerSpec("h2", map_slots=0, reduce_slots=1)))
    template = job("j", 0.0, maps=[5], reduces=[3], typical=[4])
    map_stuck = _cal(outliers={"h2": TrackerOutlier("h2", (), map_stalls=((0.0, 100.0),))})
    r = run([template], cluster, interval=1.0, slowstart=1.0, calibration=map_stuck)
    assert starts(r, "j", "REDUCE") == [7]
    assert job_finish(r, "j") == 14
    whole = run([template], cluster, interval=1.0, slowstart=1.0, calibration=map_stuck,
                calibration_parts=frozenset({"launch", "stalls"}))
    assert job_finish(whole, "j") == 107
    reduce_stuck = _cal(outliers={"h2": TrackerOutlier("h2", (), reduce_stalls=((0.0, 100.0),))})
    assert job_finish(run([template], cluster, interval=1.0, slowstart=1.0, calibration=reduce_stuck), "j") == 107


def test_a_backup_that_won_starts_when_it_was_launched():
    # One map slot, a launch lag law for reduces only (the job has none, so maps start at once). m0's successful attempt (10 s) was a backup
    # launched 3 s after its original: the original holds the slot 0..3 and its "failure" is reported at the
    # heartbeat at 3; m0 is handed out again at 3 and ends at 13. m1 (10 s) then runs 13..23. Without the part
    # (or without calibration) m0 runs 0..10 and m1 10..20.
    cal = Calibration(launch_lag={"reduce": Distribution.constant(1.0)}, source="hand")
    template = job("j", 0.0, maps=[10, 10], extra={"backup_map_waits": {"0": 3.0}})
    r = run([template], one_node(1, 1), interval=1.0, calibration=cal)
    assert finishes(r, "j") == [13, 23]
    assert job_finish(r, "j") == 23
    off = run([template], one_node(1, 1), interval=1.0, calibration=cal, calibration_parts=frozenset({"launch"}))
    assert job_finish(off, "j") == 20
    assert job_finish(run([template], one_node(1, 1), interval=1.0), "j") == 20


def _localizing(**kw) -> Calibration:
    # Plain law 2 s (used without the part); cold 2 s, warm 0.5 s (TaskTracker.localizeJob).
    return _cal(cold_launch_lag={"map": Distribution.constant(2.0)}, warm_launch_lag={"map": Distribution.constant(0.5)},
                **kw)


def test_a_job_is_localized_once_per_tracker():
    # One tracker, 2 map slots. t=0: m0 is the job's first task there (cold 2 s: localised at 2, ends 12); m1,
    # assigned at 0 too (or at the heartbeat at 1), waits for that localisation (ends 12). Both reported at 12; m2
    # assigned at 12 is warm: 12.5 + 10 = 22.5, reported at 23. With the plain law every map pays 2 s: m2 ends 24.
    r = run([job("j", 0.0, maps=[10, 10, 10])], one_node(2, 1), interval=1.0, calibration=_localizing())
    assert finishes(r, "j") == [12, 12, 22.5]
    assert job_finish(r, "j") == 23
    plain = run([job("j", 0.0, maps=[10, 10, 10])], one_node(2, 1), interval=1.0, calibration=_localizing(),
                calibration_parts=frozenset({"launch"}))
    assert finishes(plain, "j") == [12, 12, 24]


def test_the_setup_task_localizes_its_job_on_its_tracker():
    # Setup task: attempt 1 s, task 3 s (its 2 s cold lag inside): slot 0..3, the job localised on h1 at 2. The
    # map, assigned at 3 on the same tracker, is warm: 3.5 + 10 = 13.5, reported at 14; cleanup task 4 s: 14..18.
    # Without the part: map 3 + 2 + 10 = 15, cleanup 15..19.
    template = job("j", 0.0, maps=[10], extra={"setup_s": 1.0, "cleanup_s": 1.0, "setup_task_s": 3.0,
                                               "cleanup_task_s": 4.0})
    r = run([template], one_node(1, 1), interval=1.0, calibration=_localizing())
    assert finishes(r, "j") == [13.5]
    assert job_finish(r, "j") == 18
    off = run([template], one_node(1, 1), interval=1.0, calibration=_localizing(),
              calibration_parts=frozenset({"launch", "aux"}))
    assert job_finish(off, "j") == 19


def test_calibration_from_another_log_replays_the_stalls_the_replayed_trace_recorded():
    # --calibration-from: laws from another log (lag 2 s, and a stall of h2 at 1000-1030 s in *that* run's clock),
    # stall windows also from the replayed trace itself (h2's map launcher stuck 0-30 s in its clock). Two trackers,
    # one map slot each: m0 on h1 ends 0 + 2 + 10 = 12; m1 on h2 starts when the replayed run's stall ends: 30 + 10
    # = 40. With the other log's window alone (the model before) h2 is never stalled inside this run: 12 and 12.
    from mrsim.calibration.choice import choose

    cluster = ClusterSpec((TrackerSpec("h1", map_slots=1, reduce_slots=1), TrackerSpec("h2", map_slots=1, reduce_slots=1)))
    given = _cal(outliers={"h2": TrackerOutlier("h2", (), "other run", map_stalls=((1000.0, 1030.0),))},
                 stall_threshold_s=60.0)
    measured = Calibration(launch_lag={"map": Distribution.constant(0.5)}, stall_threshold_s=20.0, source="replayed",
                           outliers={"h2": TrackerOutlier("h2", (), "this run", map_stalls=((0.0, 30.0),))})
    choice = choose(measured, 2, given=given, given_source="other.toml")
    cal = choice.calibration
    assert cal is not None and cal.launch_lag == given.launch_lag  # the laws stay the given calibration's
    assert cal.outliers["h2"].map_stalls == ((0.0, 30.0), (1000.0, 1030.0))
    assert cal.stall_threshold_s == 20.0  # the threshold the replayed trace's windows were measured under
    assert any("stall windows of h2 come from the replayed trace" in n for n in choice.notes)
    r = run([job("j", 0.0, maps=[10, 10])], cluster, interval=1.0, calibration=cal)
    assert sorted(finishes(r, "j")) == [12, 40]
    before = run([job("j", 0.0, maps=[10, 10])], cluster, interval=1.0, calibration=given)
    assert sorted(finishes(before, "j")) == [12, 12]
    # Nothing recorded, or the stalls part off: the given calibration as it is.
    assert choose(Calibration(source="replayed"), 2, given=given).calibration is given
    assert choose(measured, 2, frozenset({"launch"}), given=given).calibration is given


def _stuck_b(**kw) -> Calibration:
    # The trace: h2's map launcher stuck 0-30 s, and the attempt stuck there was job B's map 0 (lag 30 s).
    from mrsim.calibration.model import StalledTask

    return _cal(outliers={"h2": TrackerOutlier("h2", (), "this run", map_stalls=((0.0, 30.0),))},
                stalled_tasks=(StalledTask("B", "map", 0, "h2", False, 0.0, 30.0),), stall_threshold_s=20.0, **kw)


def test_a_stall_is_carried_by_the_task_the_trace_shows_stuck():
    # TaskTracker.TaskLauncher: the trace shows B's map waiting 30 s in h2's stuck map launcher. The replay's FIFO
    # places differently: trackers heartbeat at 0 in cluster order, so h2 takes A's map and h1 B's. With the stall
    # carried by its task (part carry, default): A's map on h2 starts normally (the window, explained by B's
    # carried stall, is not replayed): 0 + 2 + 10 = 12; B's map carries its recorded 30 s on h1: 0 + 30 + 10 = 40.
    # With the tracker's window instead (the model before): A pays it (30 + 10 = 40), B does not (12).
    cluster = ClusterSpec((TrackerSpec("h2", map_slots=1, reduce_slots=1), TrackerSpec("h1", map_slots=1, reduce_slots=1)))
    jobs = [job("A", 0.0, maps=[10]), job("B", 0.0, maps=[10])]
    r = run(jobs, cluster, interval=1.0, calibration=_stuck_b())
    assert (job_finish(r, "A"), job_finish(r, "B")) == (12, 40)
    assert finishes(r, "B") == [40]
    assert r.to_json_dict()["spec"]["calibration"]["carried_stalls"] == 1
    windows = run(jobs, cluster, interval=1.0, calibration=_stuck_b(),
                  calibration_parts=frozenset({"launch", "stalls", "launchers"}))
    assert (job_finish(windows, "A"), job_finish(windows, "B")) == (40, 12)
    # The same jobs in the other tracker order (B's map on h2, as in the trace): the same 12 / 40 with the part.
    flipped = ClusterSpec(tuple(reversed(cluster.trackers)))
    again = run(jobs, flipped, interval=1.0, calibration=_stuck_b())
    assert (job_finish(again, "A"), job_finish(again, "B")) == (12, 40)


def test_a_carried_stall_is_paid_once_and_a_stuck_setup_task_keeps_its_task_time():
    from mrsim.calibration.model import StalledTask

    # One tracker, one map slot. The trace: job j's SETUP task waited 30 s in the stuck launcher (attempt 1 s, task
    # 33 s: above the 20-s threshold) and its map 1 waited 25 s. Carried: the setup task holds the slot for its task
    # time, 0..33; m0 (lag 2) 33..45, reported at 45; m1 carries 25 s: 45 + 25 + 10 = 80; cleanup (attempt 1 s, no
    # task time: + lag 2) 80..83. A failed first attempt of m1 would pay the 25 s, its retry a normal lag: here m1
    # has none. Without the part, the setup task's lag above the threshold is replayed by the window (none left
    # here): attempt 1 + lag 2 = 3; m0 3..15; m1 15 + 2 + 10 = 27; cleanup 27..30.
    cal = _cal(stalled_tasks=(StalledTask("j", "setup", 0, "n1", False, 0.0, 30.0),
                              StalledTask("j", "map", 1, "n1", False, 40.0, 25.0)), stall_threshold_s=20.0)
    template = job("j", 0.0, maps=[10, 10], extra={"setup_s": 1.0, "setup_task_s": 33.0, "cleanup_s": 1.0})
    r = run([template], one_node(1, 1), interval=1.0, calibration=cal)
    assert starts(r, "j") == [33, 45]
    assert finishes(r, "j") == [45, 80]
    assert job_finish(r, "j") == 83
    off = run([template], one_node(1, 1), interval=1.0, calibration=cal,
              calibration_parts=frozenset({"launch", "aux", "stalls"}))
    assert finishes(off, "j") == [15, 27]
    assert job_finish(off, "j") == 30


def test_stalled_tasks_are_measured_with_their_template_index_and_kept_in_the_toml():
    import pytest

    from mrsim.calibration.extract import CalibrationCollector
    from mrsim.calibration.model import StalledTask
    from mrsim.errors import InputError
    from mrsim.profiler.builder import template_from_logged_job

    # 30 maps launched 1 s after their assignment on h1; map 5 has no successful attempt (the template drops it),
    # map 12 (template index 11) waited 100 s on h2: a stall (above the 99th percentile and 30 s over the median).
    ms = lambda t: int(round(t * 1000))  # noqa: E731
    maps = []
    for i in range(30):
        a, host, lag = 1000.0 + i, ("h2" if i == 12 else "h1"), (100.0 if i == 12 else 1.0)
        result = "FAILED" if i == 5 else "SUCCESS"
        maps.append({"taskType": "MAP", "startTime": ms(a), "finishTime": ms(a + lag + 5), "attempts": [
            {"attemptID": f"attempt_x_0001_m_{i:06d}_0", "startTime": ms(a + lag), "finishTime": ms(a + lag + 5),
             "result": result, "hostName": f"/r/{host}"}]})
    logged = {"jobID": "job_x_0001", "submitTime": ms(1000.0), "launchTime": ms(1000.0), "mapTasks": maps,
              "reduceTasks": []}
    collector = CalibrationCollector()
    collector.add_job(logged)
    cal = collector.result("hand")
    assert cal.stalled_tasks == (StalledTask("job_x_0001", "map", 11, "h2", False, 1012.0, 100.0),)
    template = template_from_logged_job(logged)
    assert template is not None and template.map_durations[11] == 5.0 and len(template.map_durations) == 29
    again = Calibration.from_toml(cal.to_toml(), "t.toml")
    assert again.stalled_tasks == cal.stalled_tasks
    # --calibration-from: the replayed trace's stalled tasks come with its windows.
    assert _cal().with_recorded_stalls(cal).stalled_tasks == cal.stalled_tasks
    bad = cal.to_toml().replace("lag_s = 100.0", "lag_s = -1.0")
    with pytest.raises(InputError, match=r"stalled_tasks\[0\]\.lag_s"):
        Calibration.from_toml(bad, "t.toml")
    with pytest.raises(InputError, match="unknown calibration key 'slot'"):
        Calibration.from_toml(cal.to_toml().replace("reduce_slot =", "slot ="), "t.toml")
