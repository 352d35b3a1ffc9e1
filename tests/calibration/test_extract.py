"""Measuring a calibration from hand-built Rumen LoggedJobs (every figure worked out in the comments)."""

from __future__ import annotations

import pytest

from mrsim.calibration.extract import CalibrationCollector


def _task(kind: str, start: int, finish: int, a_start: int, a_finish: int, host: str = "/r1/h1") -> dict:
    return {"taskType": kind, "startTime": start, "finishTime": finish,
            "attempts": [{"result": "SUCCESS", "startTime": a_start, "finishTime": a_finish, "hostName": host}]}


def _job(maps: list[dict], reduces=(), other=(), props=None) -> dict:
    job = {"jobID": "job_201001010000_0001", "submitTime": 1000, "launchTime": 3000, "mapTasks": maps,
           "reduceTasks": list(reduces), "otherTasks": list(other)}
    if props:
        job["jobProperties"] = props
    return job


def test_lags_per_kind_and_init_delay():
    # map: assigned at 10 s, attempt starts at 11.5 s (lag 1.5), ends 20 s, recorded at 20.4 s (report 0.4).
    c = CalibrationCollector()
    c.add_job(_job([_task("MAP", 10_000, 20_400, 11_500, 20_000)],
                   other=[_task("SETUP", 4_000, 6_000, 5_000, 5_900)]))
    cal = c.result("hand")
    assert cal.launch_lag["map"].quantiles == (1.5,)
    assert cal.report_lag["map"].quantiles == (0.4,)
    assert cal.launch_lag["setup"].quantiles == (1.0,)
    assert cal.job_init_delay is not None and cal.job_init_delay.quantiles == (2.0,)  # launch 3 s - submit 1 s
    assert cal.jobs == 1 and cal.attempts == 2 and cal.hosts == 1


def _many_maps(report_ms: list[int]) -> list[dict]:
    return [_task("MAP", 10_000 * i, 10_000 * i + 5_000 + r, 10_000 * i + 1_000, 10_000 * i + 5_000)
            for i, r in enumerate(report_ms, start=1)]


def test_heartbeat_interval_is_twice_the_median_report_lag():
    # 21 report lags 0, 0.1, ..., 2.0 s: median 1.0 s, so the TaskTrackers heartbeated every 2.0 s.
    c = CalibrationCollector()
    c.add_job(_job(_many_maps([100 * k for k in range(21)])))
    cal = c.result("hand", oob_heartbeat=False)
    assert cal.heartbeat_interval_s == pytest.approx(2.0)
    assert cal.heartbeat_source.startswith("trace")


def test_heartbeat_falls_back_to_the_formula_when_the_trace_cannot_tell():
    oob = CalibrationCollector()
    # Out-of-band heartbeats: reports come at once, so report lags say nothing, and the 20 gaps between an attempt's
    # end and the next assignment (0.5, 0.8, ..., 6.2 s) have no mode: at most one lies within 0.1 s of another.
    maps, t = [], 10_000
    for i in range(21):
        maps.append(_task("MAP", t, t + 1_010, t, t + 1_000))
        t += 1_000 + 500 + 300 * i
    oob.add_job(_job(maps, props={"mapreduce.tasktracker.outofband.heartbeat": "true"}))
    cal = oob.result("x")
    assert cal.heartbeat_interval_s is None and "no clear mode" in cal.heartbeat_source
    few = CalibrationCollector()
    few.add_job(_job(_many_maps([500] * 5)))
    assert few.result("x", oob_heartbeat=False).heartbeat_interval_s is None  # 5 < 20 samples
    skewed = CalibrationCollector()
    skewed.add_job(_job(_many_maps([-300] * 3 + [500] * 20)))  # 13 % negative: two clocks
    cal = skewed.result("x", oob_heartbeat=False)
    assert cal.heartbeat_interval_s is None and "negative" in cal.heartbeat_source


def test_a_stalled_tracker_becomes_an_outlier_with_its_window():
    # 30 normal maps with lag 1 s on h1..h3, one map on h9 assigned at 500 s that started at 700 s.
    maps = [_task("MAP", 10_000 * i, 10_000 * i + 9_000, 10_000 * i + 1_000, 10_000 * i + 9_000, f"/r/h{i % 3}")
            for i in range(1, 31)]
    maps.append(_task("MAP", 500_000, 710_000, 700_000, 710_000, "/r/h9"))
    c = CalibrationCollector()
    c.add_job(_job(maps))
    cal = c.result("x")
    assert set(cal.outliers) == {"h9"}
    assert cal.outliers["h9"].map_stalls == ((500.0, 700.0),)  # a map: the map-slot launcher stalled
    assert cal.outliers["h9"].stalls == () and cal.outliers["h9"].reduce_stalls == ()
    assert cal.launch_lag["map"].quantiles == (1.0,)  # the stall is not part of the normal law


def test_jvm_reuse_from_the_job_conf():
    c = CalibrationCollector()
    c.add_job(_job(_many_maps([0]), props={"mapred.job.reuse.jvm.num.tasks": "-1"}))
    assert c.result("x").jvm_reuse == -1


def test_a_stall_is_kept_per_launcher_by_the_attempt_id():
    # 300 normal maps (lag 1 s; enough that two stalls stay above the 99th percentile); on h9 a CLEANUP attempt in a reduce slot (attempt id "_r_") assigned at 4000 s started
    # at 4200 s, and a map assigned at 5000 s started at 5200 s: the reduce-slot launcher stalled 4000-4200 s, the
    # map-slot launcher 5000-5200 s (TaskTracker.TaskLauncher: one thread per slot type).
    maps = [_task("MAP", 10_000 * i, 10_000 * i + 9_000, 10_000 * i + 1_000, 10_000 * i + 9_000, f"/r/h{i % 3}")
            for i in range(1, 301)]
    maps.append(_task("MAP", 5_000_000, 5_210_000, 5_200_000, 5_210_000, "/r/h9"))
    cleanup = _task("CLEANUP", 4_000_000, 4_210_000, 4_200_000, 4_210_000, "/r/h9")
    cleanup["attempts"][0]["attemptID"] = "attempt_201001010000_0001_r_000001_0"
    c = CalibrationCollector()
    c.add_job(_job(maps, other=[cleanup]))
    outlier = c.result("x").outliers["h9"]
    assert outlier.map_stalls == ((5000.0, 5200.0),)
    assert outlier.reduce_stalls == ((4000.0, 4200.0),)
    assert outlier.windows(True) == ((4000.0, 4200.0),)
    assert outlier.all_windows() == ((4000.0, 4200.0), (5000.0, 5200.0))


def test_launch_lags_come_from_first_attempts_only():
    # Task 1: one attempt, assigned 10 s, started 11 s (lag 1). Task 2: its original (KILLED) started at 21 s, the
    # successful backup at 45 s; the task start is 20 s (the original's assignment), so 45 - 20 = 25 s would be the
    # original's run plus the backup's launch, not a launch lag: it is left out.
    backup = _task("MAP", 20_000, 50_000, 45_000, 50_000)
    backup["attempts"].insert(0, {"result": "KILLED", "startTime": 21_000, "finishTime": 49_000, "hostName": "/r1/h2"})
    c = CalibrationCollector()
    c.add_job(_job([_task("MAP", 10_000, 20_000, 11_000, 20_000), backup]))
    cal = c.result("hand")
    assert cal.launch_lag["map"].quantiles == (1.0,)
    assert cal.attempts == 2


def test_heartbeat_with_out_of_band_heartbeats_is_the_mode_of_the_gaps_before_regular_heartbeats():
    # Out-of-band heartbeats: a finished attempt is reported at once, so report lags say nothing. One host runs
    # maps of 2 s back to back; each next map is assigned 3.006 s after the previous attempt's end (the next
    # regular heartbeat), except every 4th, assigned 0.05 s after it (the out-of-band heartbeat itself: not a
    # regular gap). 15 regular gaps of 3.006 s -> interval 3.006 s.
    maps, t = [], 10_000
    for i in range(20):
        maps.append(_task("MAP", t, t + 2_010, t, t + 2_000))
        t += 2_000 + (50 if i % 4 == 3 else 3_006)
    c = CalibrationCollector()
    c.add_job(_job(maps, props={"mapreduce.tasktracker.outofband.heartbeat": "true"}))
    cal = c.result("hand")
    assert cal.heartbeat_interval_s == pytest.approx(3.006)
    assert cal.heartbeat_source.startswith("trace: mode of the gaps")


def test_cold_in_flight_and_warm_launches_of_a_job_on_a_tracker():
    # TaskTracker.localizeJob. h1: the SETUP task (assigned 4 s, starts 5 s: cold setup lag 1.0), then a map
    # assigned at 10 s that starts at 10.01 s (warm 0.01). h2: a map assigned at 10 s starts at 11.7 s (cold 1.7);
    # one assigned at 10.5 s starts at 11.71 s (in flight: it waited for the cold one; in neither law); one
    # assigned at 20 s starts at 20.01 s (warm 0.01). The plain map law holds all four map lags.
    maps = [_task("MAP", 10_000, 15_000, 10_010, 14_000, "/r/h1"), _task("MAP", 10_000, 15_000, 11_700, 14_000, "/r/h2"),
            _task("MAP", 10_500, 16_000, 11_710, 15_000, "/r/h2"), _task("MAP", 20_000, 25_000, 20_010, 24_000, "/r/h2")]
    c = CalibrationCollector()
    c.add_job(_job(maps, other=[_task("SETUP", 4_000, 6_000, 5_000, 5_900, "/r/h1")]))
    cal = c.result("hand")
    assert cal.cold_launch_lag["map"].quantiles == (1.7,)
    assert cal.cold_launch_lag["setup"].quantiles == (1.0,)
    assert cal.warm_launch_lag["map"].quantiles == (0.01,) and cal.warm_launch_lag["map"].samples == 2
    assert cal.launch_lag["map"].samples == 4
    text = cal.to_toml()
    assert "[cold_launch_lag.map]" in text and "[warm_launch_lag.map]" in text
    from mrsim.calibration.model import Calibration
    assert Calibration.from_toml(text, "again").cold_launch_lag == cal.cold_launch_lag


def test_a_launch_that_waited_for_its_slot_is_in_neither_law():
    # h1 runs map A (attempt 10..20 s, still running when B is assigned). Map B of the same job is assigned to
    # h1 at 15 s (the JobTracker saw A's slot free: A was committing) and starts at 20.05 s, when A ended: a slot
    # wait (within 0.1 s of A's end), in neither the cold nor the warm law. Map C, assigned at 30 s, starts at
    # 30.2 s: warm 0.2.
    maps = [_task("MAP", 9_000, 20_010, 10_000, 20_000, "/r/h1"), _task("MAP", 15_000, 30_010, 20_050, 30_000, "/r/h1"),
            _task("MAP", 30_000, 35_010, 30_200, 35_000, "/r/h1")]
    c = CalibrationCollector()
    c.add_job(_job(maps))
    cal = c.result("hand")
    assert cal.cold_launch_lag["map"].quantiles == (1.0,)
    assert cal.warm_launch_lag["map"].quantiles == (0.2,) and cal.warm_launch_lag["map"].samples == 1
    assert cal.launch_lag["map"].samples == 3


def test_slot_waits_are_matched_per_host_and_slot_side():
    # h1 map A runs 10..20 s. On h1, map B (assigned 15 s) starts at 20.05 s, within 0.1 s of A's end: a slot
    # wait, in neither law. At the same instants map D on h2 and reduce R on h1 start too, but no attempt ended
    # near 20 s on h2's map side (C ended at 6 s) nor on h1's reduce side: both are warm launches of 5.05 s.
    # Cold: A (1.0 s, first on h1) and C (0.5 s, first on h2).
    maps = [_task("MAP", 9_000, 20_010, 10_000, 20_000, "/r/h1"), _task("MAP", 15_000, 30_010, 20_050, 30_000, "/r/h1"),
            _task("MAP", 5_000, 6_010, 5_500, 6_000, "/r/h2"), _task("MAP", 15_000, 30_010, 20_050, 30_000, "/r/h2")]
    c = CalibrationCollector()
    c.add_job(_job(maps, reduces=[_task("REDUCE", 15_000, 30_010, 20_050, 30_000, "/r/h1")]))
    cal = c.result("hand")
    assert cal.launch_lag["map"].samples == 4
    cold = cal.cold_launch_lag["map"]
    assert cold.samples == 2 and (cold.quantiles[0], cold.quantiles[-1]) == (0.5, 1.0)
    assert cal.warm_launch_lag["map"].quantiles == (5.05,) and cal.warm_launch_lag["map"].samples == 1
    assert cal.warm_launch_lag["reduce"].quantiles == (5.05,)
    assert "reduce" not in cal.cold_launch_lag


def test_few_report_lags_rule_out_hadoop_1_1s_heartbeat_formula():
    # Four maps on one host (the Gridmix wordcount trace's pattern): report lags 2.0, 2.2, 2.4, 2.9 s. Too few for
    # 2 x median, but their median, 2.3 s, is far above Hadoop 1.1+'s max(0.3 s, 1/100 s) = 0.3 s for one host
    # (twice it: 0.6 s), and within 0.20-1.0's max(3 s, ceil(1/100) s) = 3 s: that JobTracker's interval.
    c = CalibrationCollector()
    c.add_job(_job(_many_maps([2_000, 2_200, 2_400, 2_900])))
    cal = c.result("hand", oob_heartbeat=False)
    assert cal.heartbeat_interval_s == 3.0
    assert cal.heartbeat_source.startswith("trace") and "2.30 s" in cal.heartbeat_source
    # 0.5 s lags (median 0.5 <= 2 x 0.3 s: RPC time could explain them), two lags (fewer than 3), and lags whose
    # median, 4 s, no JobTracker minimum explains: the formula stays, and the note says how few lags there were.
    for lags in ([500] * 5, [2_000, 2_900], [4_000] * 4):
        c = CalibrationCollector()
        c.add_job(_job(_many_maps(lags)))
        cal = c.result("hand", oob_heartbeat=False)
        assert cal.heartbeat_interval_s is None and cal.heartbeat_source == (
            f"formula: only {len(lags)} report lags (fewer than 20)")
    # a negative lag (two clocks) makes the lags no bound on the interval
    c = CalibrationCollector()
    c.add_job(_job(_many_maps([-100, 2_000, 2_200, 2_400])))
    assert c.result("hand", oob_heartbeat=False).heartbeat_interval_s is None


# The collector keeps its samples as columns: a chunk per plain job (add_plain), rows buffered for the others
# (add_job). The tests below pin what that must not change: the order of the samples, the ties, the empty cases.
# (The attempt ends are the exception: add_plain sorts each job's by time; every reader of them sorts them.)


def _attempt_id(job: int, kind: str, task: int) -> str:
    return f"attempt_201001010000_{job:04d}_{'r' if kind == 'REDUCE' else 'm'}_{task:06d}_0"


def _plainable(n: int, hosts: tuple[str, ...], t0: int, *, other: bool = True) -> dict:
    """A job that mrsim.profiler.plain takes: maps and reduces of one SUCCESS attempt each, spread over ``hosts``;
    with a SETUP task on the first host (its attempt starts before the job's maps there) when ``other``."""
    maps = [_task("MAP", t0 + 1_000 * i, t0 + 1_000 * i + 4_400, t0 + 1_000 * i + 30 * i - 60, t0 + 1_000 * i + 4_000,
                  hosts[i % len(hosts)]) for i in range(6)]
    reduces = [_task("REDUCE", t0 + 9_000 + 500 * i, t0 + 20_000, t0 + 9_100 + 500 * i, t0 + 19_700,
                     hosts[(i + 1) % len(hosts)]) for i in range(3)]
    for kind, tasks in (("MAP", maps), ("REDUCE", reduces)):
        for i, task in enumerate(tasks):
            task["attempts"][0]["attemptID"] = _attempt_id(n, kind, i)
    others = [_task("SETUP", t0 - 2_000, t0 - 500, t0 - 1_900, t0 - 600, hosts[0])] if other else []
    job = _job(maps, reduces, others)
    job["jobID"] = f"job_201001010000_{n:04d}"
    return job


def _jobs_of_both_kinds() -> list[dict]:
    """Plain jobs (mrsim.profiler.plain) and jobs that are not, interleaved: a retry, negative launch lags (each job's
    first two maps), an attempt without a host name ("/r/": the empty host), a repeated job id, OOB confs."""
    jobs = [_plainable(1, ("/r/h1", "/r/h2"), 100_000), _plainable(2, ("/r/h2", "/r/h3"), 120_000, other=False)]
    retried = _plainable(3, ("/r/h1", "/r/h3"), 140_000)
    retried["mapTasks"][1]["attempts"].insert(0, {"result": "FAILED", "startTime": 141_010, "finishTime": 142_000,
                                                  "hostName": "/r/h2", "attemptID": _attempt_id(3, "MAP", 1)[:-1] + "9"})
    jobs.append(retried)
    jobs.append(_plainable(4, ("/r/", "/r/h4"), 160_000))
    jobs.append(_plainable(1, ("/r/h1",), 180_000))  # the same id again: its stalls are named job_..._0001#2
    no_time = _plainable(5, ("/r/h2",), 200_000)
    no_time["reduceTasks"][0]["finishTime"] = -1  # no report lag for it
    jobs.append(no_time)
    jobs.append(_plainable(6, ("/r/h4", "/r/h1", "/r/h5"), 220_000))
    for job in jobs[-2:]:
        job["jobProperties"] = {"mapreduce.tasktracker.outofband.heartbeat": "true"}
    return jobs


def _through(jobs: list[dict], plain_path: bool, result_after: int | None = None) -> CalibrationCollector:
    from mrsim.profiler.plain import plain_job

    c = CalibrationCollector()
    for i, job in enumerate(jobs):
        plain = plain_job(job) if plain_path else None
        c.add_job(job) if plain is None else c.add_plain(job, plain)
        if i == result_after:
            c.result("early")  # reading the columns midway must not change what comes after
    return c


def test_plain_and_general_paths_interleaved_give_the_same_samples_in_the_same_order():
    from mrsim.profiler.plain import plain_job

    jobs = _jobs_of_both_kinds()
    assert [plain_job(j) is not None for j in jobs] == [True, True, False, True, True, False, True]
    general = _through(jobs, plain_path=False)
    for columns in (_through(jobs, plain_path=True), _through(jobs, plain_path=True, result_after=2)):
        for mine, theirs in zip((columns.launches, columns.reports), (general.launches, general.reports)):
            for a, b in zip(mine.arrays(), theirs.arrays(), strict=True):
                assert a.dtype == b.dtype and a.tolist() == b.tolist()
        # the attempt ends: the same rows (each plain job's in time order)
        assert [a.dtype for a in columns.ends.arrays()] == [a.dtype for a in general.ends.arrays()]
        assert sorted(zip(*(a.tolist() for a in columns.ends.arrays()))) == \
            sorted(zip(*(a.tolist() for a in general.ends.arrays())))
        assert columns.hosts == general.hosts and columns.job_ids == general.job_ids
        assert columns.result("s") == general.result("s")
    cal = general.result("s")
    assert "job_201001010000_0001#2" in general.job_ids
    assert cal.hosts == 5  # h1..h5: the empty host name is no host
    assert cal.notes[0].startswith("14 launch lag(s) were negative")  # the first two maps of each of the 7 jobs


def test_a_collector_without_attempts():
    cal = CalibrationCollector().result("none")
    assert (cal.launch_lag, cal.report_lag, cal.cold_launch_lag, cal.warm_launch_lag) == ({}, {}, {}, {})
    assert (cal.outliers, cal.stalled_tasks, cal.assignment_bursts, cal.stall_threshold_s) == ({}, (), (), None)
    assert cal.heartbeat_interval_s is None and cal.heartbeat_source == "formula: the trace records no report lags"
    assert (cal.jobs, cal.attempts, cal.hosts, cal.job_init_delay) == (0, 0, 0, None)
    # a job whose attempts never started: counted, no sample
    c = CalibrationCollector()
    c.add_job(_job([_task("MAP", 10_000, 20_000, -1, 20_000)]))
    cal = c.result("x")
    assert (cal.jobs, cal.attempts, cal.hosts, cal.launch_lag) == (1, 1, 0, {})
    assert cal.report_lag["map"].quantiles == (0.0,)


def test_a_hosts_first_assignment_tie_goes_to_the_first_kind():
    # On h1, job 1's reduce and job 2's map are both assigned at 20 s; job 1's reduce comes first in the trace.
    # A host's first assignment is its earliest, and of equal ones the first kind in KINDS order (map, reduce,
    # setup, cleanup), then the first in the trace: the map's, so h1 is a fresh host of job 2's maps (ready at its
    # launch, 3 s: offset 17 s), and job 1's reduces see only h2's first assignment (its map at 5 s is earlier).
    one = _job([_task("MAP", 5_000, 6_000, 5_100, 5_900, "/r/h2")], [_task("REDUCE", 20_000, 30_000, 20_100, 29_000)])
    two = _job([_task("MAP", 20_000, 30_000, 20_100, 29_000)])
    two["jobID"] = "job_201001010000_0002"
    c = CalibrationCollector()
    c.add_job(one)
    c.add_job(two)
    bursts = {(b.job, b.kind): b for b in c.result("x").assignment_bursts}
    assert set(bursts) == {("job_201001010000_0001", "map"), ("job_201001010000_0002", "map")}
    assert bursts["job_201001010000_0002", "map"].offsets_s == (17.0,)
    assert bursts["job_201001010000_0001", "map"].offsets_s == (2.0,)


def test_an_end_and_an_assignment_at_one_instant():
    # Out-of-band heartbeats; h1 runs maps of 2 s, each next one assigned 3.006 s after the previous attempt's
    # end: 15 regular gaps, interval 3.006 s (as in the test above). Then each of those assignments gets an attempt
    # end on h1 at the same instant (a failed attempt of another job: an end, no launch): a host's events at one
    # instant are taken ends first, so every assignment now follows an end by 0 s, and no gap is left.
    maps, t = [], 10_000
    for _i in range(16):
        maps.append(_task("MAP", t, t + 2_010, t, t + 2_000))
        t += 2_000 + 3_006
    props = {"mapreduce.tasktracker.outofband.heartbeat": "true"}
    c = CalibrationCollector()
    c.add_job(_job(maps, props=props))
    assert c.result("x").heartbeat_interval_s == pytest.approx(3.006)
    failed = [_task("MAP", m["startTime"] - 500, m["startTime"] + 10, m["startTime"] - 500, m["startTime"])
              for m in maps[1:]]
    for task in failed:
        task["attempts"][0]["result"] = "FAILED"
    other = _job(failed, props=props)
    other["jobID"] = "job_201001010000_0002"
    c.add_job(other)
    cal = c.result("x")
    assert cal.heartbeat_interval_s is None and "only 0 regular heartbeats" in cal.heartbeat_source


# result()'s shortcuts against the plain numpy they replace (random and boundary cases; docs/performance.md,
# "How a trace is read").


def test_median_and_stall_limit_equal_numpys():
    import numpy as np

    from mrsim.calibration.extract import OUTLIER_MIN_EXCESS_S, _median, _stall_limit

    rng = np.random.default_rng(18)
    cases = [np.zeros(20), np.full(21, 2.5), np.arange(20) / 1000.0, np.r_[np.zeros(99), 31.0],
             np.r_[np.zeros(98), 30.0, 30.0], np.r_[np.ones(50), np.full(50, 40.0)]]
    for n in (2, 3, 20, 21, 99, 100, 101, 1_000, 1_001):
        cases += [rng.integers(0, 5_000, n) / 1000.0, np.round(rng.exponential(10.0, n), 3),
                  np.round(np.r_[rng.exponential(1.0, n), rng.uniform(30, 300, max(1, n // 40))], 3)]
    above = 0
    for lags in cases:
        p99, median = float(np.quantile(lags, 0.99)), float(np.median(lags))
        above += p99 > median + OUTLIER_MIN_EXCESS_S
        before = lags.copy()
        assert repr(_stall_limit(lags)) == repr((max(p99, median + OUTLIER_MIN_EXCESS_S), median))
        assert repr(_median(lags)) == repr(median)
        assert np.array_equal(lags, before)  # the input is not partitioned in place
    assert above >= 5  # the quantile's own path is taken too


def test_slot_waits_equal_a_launch_by_launch_search():
    import numpy as np

    from mrsim.calibration.extract import SLOT_WAIT_S

    rng = np.random.default_rng(7)
    for trial in range(40):
        hosts = int(rng.integers(1, 6))
        c = CalibrationCollector()
        for h in range(hosts):
            c._code(f"h{h}")
        n_ends, n_launches = int(rng.integers(0, 300)), int(rng.integers(1, 300))
        # On a millisecond grid over a few seconds: windows that begin or end exactly at an end are common.
        ends = (rng.integers(0, hosts, n_ends), rng.random(n_ends) < 0.5, rng.integers(0, 4_000, n_ends) / 1000.0)
        for k in range(0, n_ends, 37):  # in chunks, and some as rows (both ways of adding)
            if k % 2:
                c.ends.rows.extend(zip(*(a[k:k + 37].tolist() for a in ends)))
            else:
                c.ends.extend(*(a[k:k + 37] for a in ends))
        assigned = rng.integers(0, 4_000, n_launches)
        started = assigned + rng.integers(0, 300, n_launches)
        code, side = rng.integers(0, hosts, n_launches), rng.random(n_launches) < 0.5
        c.launches.extend(np.zeros(n_launches, dtype=np.int8), code, (started - assigned) / 1000.0, assigned / 1000.0,
                          started / 1000.0, side, np.zeros(n_launches, dtype=np.int8), np.arange(n_launches))
        launches = c._launch_columns()
        want = []
        for i in range(n_launches):
            s, a = float(launches.started[i]), float(launches.assigned[i])
            low, high = max(s - SLOT_WAIT_S, a), s + SLOT_WAIT_S
            want.append(any(ec == code[i] and es == side[i] and low < et <= high
                            for ec, es, et in zip(*(x.tolist() for x in ends))))
        assert c._slot_waits(launches).tolist() == want, trial


def test_sample_columns_read_midway_and_added_to_after():
    import numpy as np

    from mrsim.calibration.extract import _Columns

    cols = _Columns(np.int8, np.float64)
    cols.extend(np.arange(3), np.arange(3) / 2)
    cols.rows.extend([(7, 0.25), (8, 0.5)])
    first = cols.arrays()
    assert [a.tolist() for a in first] == [[0, 1, 2, 7, 8], [0.0, 0.5, 1.0, 0.25, 0.5]]
    assert not first[0].flags.writeable  # a view of the collector's buffer: read-only
    kinds, values = cols.block(2000)  # filled in place, the buffers grown past their first capacity
    kinds[:] = 5
    values[:] = np.arange(2000)
    cols.rows.append((9, -1.0))
    again = cols.arrays()
    assert [a.tolist() for a in first] == [[0, 1, 2, 7, 8], [0.0, 0.5, 1.0, 0.25, 0.5]]  # read before: unchanged
    assert again[0].dtype == np.int8 and again[0].size == 2006 and again[0][5:-1].tolist() == [5] * 2000
    assert again[1][-2:].tolist() == [1999.0, -1.0]
    empty = _Columns(np.int64, np.bool_).arrays()
    assert [(a.dtype, a.size) for a in empty] == [(np.dtype(np.int64), 0), (np.dtype(np.bool_), 0)]
