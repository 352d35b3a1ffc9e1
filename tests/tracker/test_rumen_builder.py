"""Rumen LoggedJob -> template rules (SimMR III-A) on hand-written jobs."""

from __future__ import annotations

import gzip

import pytest

from mrsim.errors import InputError
from mrsim.profiler.builder import template_from_logged_job, workload_from_logged_jobs
from mrsim.profiler.rumen import iter_rumen_jobs
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job


def attempt(start, finish, result="SUCCESS", shuffle=-1, sort=-1):
    return {"attemptID": "a", "result": result, "startTime": start, "finishTime": finish,
            "shuffleFinished": shuffle, "sortFinished": sort}


def logged(maps, reduces, outcome="SUCCESS"):
    return {"jobID": "job_1_0001", "submitTime": 1000, "finishTime": 200000, "outcome": outcome,
            "mapTasks": [{"taskID": f"m{i}", "taskType": "MAP", "attempts": a} for i, a in enumerate(maps)],
            "reduceTasks": [{"taskID": f"r{i}", "taskType": "REDUCE", "attempts": a} for i, a in enumerate(reduces)]}


def test_first_and_typical_shuffle_split_at_map_stage_end():
    # Maps end at 11000 and 21000 -> map stage end 21000.
    job = logged(
        maps=[[attempt(1000, 11000)], [attempt(900, 5000, "FAILED"), attempt(6000, 21000)]],
        reduces=[
            [attempt(5000, 40000, shuffle=24000, sort=25000)],  # first wave: 25000 - 21000 = 4 s; reduce 15 s
            [attempt(30000, 50000, shuffle=33000, sort=34000)],  # typical: 34000 - 30000 = 4 s; reduce 16 s
        ],
    )
    t = template_from_logged_job(job)
    assert t.map_durations.tolist() == [10.0, 15.0]
    assert t.first_shuffle_durations.tolist() == [4.0]
    assert t.typical_shuffle_durations.tolist() == [4.0]
    assert t.reduce_durations.tolist() == [15.0, 16.0]
    assert t.actual_completion_s == pytest.approx(199.0)
    assert t.extra["unsuccessful_attempts"] == 1


def test_out_of_order_phases_are_clamped_with_a_warning():
    warnings = []
    job = logged(maps=[[attempt(1000, 2000)]], reduces=[[attempt(3000, 5000, shuffle=9000, sort=9500)]])
    t = template_from_logged_job(job, warnings=warnings)
    assert t.reduce_durations.tolist() == [0.0] and t.typical_shuffle_durations.tolist() == [2.0]
    assert any("out of order" in w and "job_1_0001" in w for w in warnings)


def test_success_job_without_tasks_is_an_error_and_failed_one_is_skipped():
    with pytest.raises(InputError, match="job_1_0001"):
        template_from_logged_job(logged([], []))
    warnings = []
    assert template_from_logged_job(logged([[attempt(1, 5, "FAILED")]], [], outcome="FAILED"), warnings=warnings) is None
    assert warnings


def test_synthetic_round_trip_through_rumen(tmp_path):
    from mrsim.profiler.rumen_writer import write_rumen_trace

    w = facebook_like_workload(FacebookLikeSpec(jobs=8, seed=1))
    path = tmp_path / "t.json.gz"
    write_rumen_trace((template_to_logged_job(t) for t in w), path)
    back = workload_from_logged_jobs(iter_rumen_jobs(path))
    assert [j.job_id for j in back] == [j.job_id for j in w]
    for a, b in zip(w, back):
        assert a.map_durations.tolist() == pytest.approx(b.map_durations.tolist())
        assert a.reduce_durations.tolist() == pytest.approx(b.reduce_durations.tolist())
        assert a.typical_shuffle_durations.tolist() == pytest.approx(b.typical_shuffle_durations.tolist())
        assert a.submit_s == pytest.approx(b.submit_s) and b.actual_completion_s is None


def test_rumen_stream_reader_handles_concatenation_and_unsorted_input(tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"jobID": "b", "submitTime": 5000, "mapTasks": [{"attempts": [{"result": "SUCCESS", "startTime": 5000, "finishTime": 6000}]}]}'
                 '{"jobID": "a", "submitTime": 1000, "mapTasks": [{"attempts": [{"result": "SUCCESS", "startTime": 1000, "finishTime": 3000}]}]}\n')
    w = workload_from_logged_jobs(iter_rumen_jobs(p), source=str(p))
    assert [j.job_id for j in w] == ["a", "b"]
    with gzip.open(tmp_path / "noext", "wt") as fh:  # gzip detected by content, not name
        fh.write(p.read_text())
    assert len(list(iter_rumen_jobs(tmp_path / "noext"))) == 2


def test_large_ints_and_sentinels_do_not_break_reading(tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"jobID": "x", "submitTime": 1000, "successfulReduceAttemptCDF": {"maximum": 9223372036854775807, '
                 '"minimum": -9223372036854775808}, "mapTasks": [{"attempts": [{"result": "SUCCESS", "startTime": 1000, "finishTime": 2000}]}]}')
    assert workload_from_logged_jobs(iter_rumen_jobs(p))[0].map_durations.tolist() == [1.0]


def test_concurrent_attempts_are_marked_speculative_not_replayed_as_failures():
    # Task 0: a failed attempt 1000-3000, then success 4000-9000 -> one failure to replay (2 s).
    # Task 1: success 1000-6000 and a KILLED attempt 3000-6500 overlapping it -> a speculative loser, marked.
    job = logged(
        maps=[[attempt(1000, 3000, "FAILED"), attempt(4000, 9000)],
              [attempt(1000, 6000), attempt(3000, 6500, "KILLED")]],
        reduces=[],
    )
    t = template_from_logged_job(job)
    assert t.extra["failed_map_attempts"] == {"0": [2.0]}
    assert t.extra["speculative_attempts"] == 1
    assert t.extra["unsuccessful_attempts"] == 2


def test_a_backup_that_won_keeps_the_wait_since_its_original_started():
    # Task 0: original 1000-9000 KILLED, backup (the success) 4000-7000: the backup was launched 3 s after the
    # original started, so the task could not finish before 4 s + 3 s. Task 1: the success started first and a
    # later KILLED duplicate lost: no wait (the success is not a backup).
    job = logged(
        maps=[[attempt(1000, 9000, "KILLED"), attempt(4000, 7000)],
              [attempt(1000, 6000), attempt(3000, 6500, "KILLED")]],
        reduces=[],
    )
    t = template_from_logged_job(job)
    assert t.extra["backup_map_waits"] == {"0": 3.0}
    assert "backup_reduce_waits" not in t.extra
    assert t.extra["speculative_attempts"] == 2 and "failed_map_attempts" not in t.extra
