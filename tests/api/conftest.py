"""Fixtures: a small "real" Rumen trace (named hosts, actual completion times) made in the test, no shared data."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.profiler.rumen_writer import write_rumen_trace
from mrsim.profiler.synth import template_to_logged_job
from mrsim.model.templates import JobTemplate


def real_like_trace(path: Path) -> Path:
    """Four jobs; maps alternate between hostA and hostB, every reduce runs on hostB (so hostA has 0 reduce
    slots when inferred). Actual completion times are set, so validate scores every job."""
    jobs = []
    for i in range(4):
        t = JobTemplate(job_id=f"job_201001010000_{i + 1:04d}", submit_s=1000.0 + 10.0 * i, map_durations=[5.0, 6.0, 7.0, 8.0],
                        reduce_durations=[4.0], first_shuffle_durations=[], typical_shuffle_durations=[2.0],
                        actual_completion_s=22.0 + i, queue="a" if i % 2 else "b")
        logged = template_to_logged_job(t)
        for k, task in enumerate(logged["mapTasks"]):
            task["attempts"][0]["hostName"] = "/rack1/hostA" if k % 2 == 0 else "/rack1/hostB"
        for task in logged["reduceTasks"]:
            task["attempts"][0]["hostName"] = "/rack1/hostB"
        jobs.append(logged)
    write_rumen_trace(jobs, path)
    return path


@pytest.fixture
def real_trace(tmp_path: Path) -> Path:
    return real_like_trace(tmp_path / "real.json")
