"""YARN mode's calibration: the job-commit tail (``mrsim.tracker.yarn.calibration``), hand-computed timelines.

Same setting as ``test_timelines.py``: one 8 GB NodeManager heartbeating at 0, 1, 2, ... s, AM allocates every 1 s
from the AM's start, 1024 MB containers, zero launch lag.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mrsim.calibration.model import Distribution
from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn.calibration import YarnCalibration
from tests.tracker.yarn.helpers import SHARED_DATA, cluster, conf, job, workload

RUMEN_YARN = SHARED_DATA / "sls" / "main-data" / "2jobs2min-rumen-jh.json"


def _run(w, calibration, scheduler="fifo", seed=0):
    return replay_yarn(w, cluster(), conf(), create_yarn_scheduler(scheduler), aligned_heartbeats=True,
                       calibration=calibration, seed=seed)


def test_the_am_commits_for_the_jobs_own_tail_then_unregisters() -> None:
    # Without calibration: AM at 0, asks at 1, NM heartbeat 1 allocates, the AM receives at 2, maps 2 -> 12, the job
    # ends at 12. With j1's own tail of 3.5 s the AM commits 12 -> 15.5 and only then unregisters: finish 15.5.
    w = workload(job("j1", [10.0, 10.0]))
    plain = _run(w, None)
    assert plain.jobs.loc[0, "finish_s"] == 12.0
    r = _run(w, YarnCalibration.from_tails({"j1": 3.5}, "t"))
    assert r.jobs.loc[0, "finish_s"] == 15.5
    assert r.jobs.loc[0, "start_s"] == 2.0
    assert list(r.tasks["finish_s"]) == [12.0, 12.0]  # the tasks are unchanged: the tail comes after them
    assert r.spec["yarn_calibration"]["commit_tail"]["jobs_with_own_tail"] == 1
    assert plain.spec["yarn_calibration"] is None


def test_the_am_holds_its_container_while_it_commits() -> None:
    # One NM of 2048 MB. j1 (submitted at 0): AM container at 0, map asked at 1, allocated by the NM heartbeat at 1
    # (the node is now full), received at 2: map 2 -> 12. j2 is submitted at 5 and waits for room.
    # Without calibration j1 ends at 12 and both its containers exit at 12: the NM heartbeat at 12 frees 2048 MB and
    # allocates j2's AM (start 12); j2 asks at 13, the NM heartbeat at 13 allocates its map, received at 14:
    # map 14 -> 24.
    # With j1's commit tail of 10 s, j1's AM commits 12 -> 22 holding its container: the NM heartbeat at 12 frees
    # only the map's 1024 MB, which j2's AM takes (start 12); j2's map ask (13) waits until j1's AM container exits
    # at 22 and the NM heartbeat at 22 allocates it; j2's AM, parked since its allocate at 13, receives it at its
    # next allocate after 22 (12 + 11 x 1 = 23): map 23 -> 33.
    w = workload(job("j1", [10.0]), job("j2", [10.0], submit=5.0))
    c = conf(nm_memory_mb=2048)

    def run(calibration):
        r = replay_yarn(w, cluster(), c, create_yarn_scheduler("fifo"), aligned_heartbeats=True,
                        calibration=calibration)
        return r.jobs.set_index("job_id")

    plain = run(None)
    assert plain.loc["j1", "finish_s"] == 12.0
    assert (plain.loc["j2", "am_start_s"], plain.loc["j2", "start_s"], plain.loc["j2", "finish_s"]) == (12.0, 14.0, 24.0)
    jobs = run(YarnCalibration(commit_s={"j1": 10.0}))
    assert jobs.loc["j1", "finish_s"] == 22.0
    assert (jobs.loc["j2", "am_start_s"], jobs.loc["j2", "start_s"], jobs.loc["j2", "finish_s"]) == (12.0, 23.0, 33.0)


def test_a_job_without_its_own_tail_draws_from_the_law() -> None:
    # A constant law (one value) draws that value; a job with its own tail keeps it.
    cal = YarnCalibration(commit_s={"j1": 1.0}, commit_law=Distribution.constant(4.0))
    assert cal.commit_times(["j1", "j2"], seed=0) == [1.0, 4.0]
    r = _run(workload(job("j1", [10.0]), job("j2", [10.0])), cal)
    jobs = r.jobs.set_index("job_id")
    assert jobs.loc["j1", "finish_s"] == 12.0 + 1.0
    assert jobs.loc["j2", "finish_s"] == 12.0 + 4.0
    assert r.spec["yarn_calibration"]["commit_tail"] == {"jobs_with_own_tail": 1, "jobs_drawn_from_law": 1,
                                                        "law": "4.00 s (constant)"}


def test_measured_tails_clamp_negatives_and_skip_unknown() -> None:
    cal = YarnCalibration.from_tails({"a": 2.0, "b": -1.0, "c": None}, "trace")
    assert cal is not None and dict(cal.commit_s) == {"a": 2.0, "b": 0.0}
    assert cal.commit_law is not None and cal.commit_law.samples == 2
    assert YarnCalibration.from_tails({"a": None}) is None
    # A law drawn by seed: reproducible per seed, within the recorded range
    law = YarnCalibration(commit_law=Distribution.of([1.0, 3.0]))
    draws = law.commit_times(["x", "y", "z"], seed=5)
    assert draws == law.commit_times(["x", "y", "z"], seed=5)
    assert all(1.0 <= d <= 3.0 for d in draws)


def test_zero_tail_changes_nothing() -> None:
    w = workload(job("j1", [10.0, 10.0], [3.0], typical=[2.0]))
    plain = _run(w, None)
    zero = _run(w, YarnCalibration(commit_s={"j1": 0.0}))
    assert plain.jobs.finish_s.tolist() == zero.jobs.finish_s.tolist()
    assert plain.summary["events"] == zero.summary["events"]


@pytest.mark.skipif(not RUMEN_YARN.exists(), reason="shared data absent")
def test_validate_replays_each_jobs_commit_tail_and_no_calibration_turns_it_off() -> None:
    def run(*flags: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "mrsim", "validate", str(RUMEN_YARN), "--json", "--quiet",
                              "--no-cache", *flags], capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    on, off = run(), run("--no-calibration")
    assert on["spec"]["yarn_calibration"]["commit_tail"]["jobs_with_own_tail"] == 2
    assert off["spec"]["yarn_calibration"] is None
    tails = {j["job_id"]: j["trace_tail_s"] for j in on["jobs"]}
    for a, b in zip(on["jobs"], off["jobs"]):
        # the tail is added after the last task: the same replay up to it (FIFO, two jobs that do not wait for
        # each other's AM containers)
        assert a["completion_s"] == pytest.approx(b["completion_s"] + tails[a["job_id"]], abs=1e-6)
