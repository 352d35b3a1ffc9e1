"""attempts.csv lists every attempt: a replayed failure before the success, by hand (interval 1 s, one map slot)."""

from __future__ import annotations

from mrsim.analysis.timeseries import attempts_frame
from tests.tracker.helpers import job, one_node, run


def test_failed_attempt_then_success_are_both_listed():
    # m0's logged failed attempt holds the slot 0..5, is reported at 5; the task goes back to the queue and its
    # successful attempt runs 5..15 at that heartbeat. Attempt ids count in start order: _0 FAILED, _1 SUCCESS.
    r = run([job("job_1_0001", 0.0, maps=[10], extra={"failed_map_attempts": {"0": [5.0]}})], one_node(1, 1),
            interval=1.0)
    rows = attempts_frame(r)
    assert list(rows["attempt_id"]) == ["attempt_1_0001_m_000000_0", "attempt_1_0001_m_000000_1"]
    assert list(rows["result"]) == ["FAILED", "SUCCESS"]
    assert list(rows["start_s"]) == [0.0, 5.0] and list(rows["finish_s"]) == [5.0, 15.0]
    assert r.summary["failed_attempts_replayed"] == 1


def test_no_lost_attempts_keeps_one_row_per_task():
    r = run([job("job_1_0002", 0.0, maps=[3, 4])], one_node(2, 1), interval=1.0)
    rows = attempts_frame(r)
    assert list(rows["result"]) == ["SUCCESS", "SUCCESS"] and list(rows["attempt"]) == [0, 0]
