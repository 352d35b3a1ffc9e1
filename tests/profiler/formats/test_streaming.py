"""Readers and the writer hold one job at a time: peak memory does not grow with the number of jobs."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mrsim.profiler.jobhistory import iter_jobhistory_jobs
from mrsim.profiler.rumen_writer import write_rumen_trace
from mrsim.profiler.sls import iter_sls_jobs

MAPS = 30


def _history(job: int) -> str:
    """One synthetic job history section with MAPS map tasks (about 20 KB)."""
    jid = f"job_201001010000_{job:04d}"
    lines = [
        f"\f!!FILE=jt_1_{jid}_u_name!!",
        'Meta VERSION="1" .',
        f'Job JOBID="{jid}" JOBNAME="n" USER="u" SUBMIT_TIME="{job * 1000}" JOBCONF="c" .',
        f'Job JOBID="{jid}" LAUNCH_TIME="{job * 1000 + 1}" TOTAL_MAPS="{MAPS}" TOTAL_REDUCES="0" JOB_STATUS="PREP" .',
    ]
    for m in range(MAPS):
        task, attempt = f"task_201001010000_{job:04d}_m_{m:06d}", f"attempt_201001010000_{job:04d}_m_{m:06d}_0"
        lines += [
            f'Task TASKID="{task}" TASK_TYPE="MAP" START_TIME="{job * 1000 + 2}" SPLITS="/r\\.{m % 7}/h\\.{m}" .',
            f'MapAttempt TASK_TYPE="MAP" TASKID="{task}" TASK_ATTEMPT_ID="{attempt}" START_TIME="{job * 1000 + 3}" TRACKER_NAME="t" HTTP_PORT="1" .',
            f'MapAttempt TASK_TYPE="MAP" TASKID="{task}" TASK_ATTEMPT_ID="{attempt}" TASK_STATUS="SUCCESS" FINISH_TIME="{job * 1000 + 90}" '
            f'HOSTNAME="/r\\.{m % 7}/h\\.{m}" STATE_STRING="" COUNTERS="{{(F)(F)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)({m})]}}" .',
            f'Task TASKID="{task}" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="{job * 1000 + 95}" .',
        ]
    lines.append(f'Job JOBID="{jid}" FINISH_TIME="{job * 1000 + 99}" JOB_STATUS="SUCCESS" FINISHED_MAPS="{MAPS}" FINISHED_REDUCES="0" FAILED_MAPS="0" FAILED_REDUCES="0" .')
    return "\n".join(lines) + "\n"


def _sls_job(job: int) -> str:
    tasks = [{"container.host": f"/r/h{t}", "container.start.ms": job + t, "container.end.ms": job + t + 50} for t in range(MAPS)]
    return json.dumps({"job.id": f"job_{job}", "job.start.ms": job, "job.end.ms": job + 99, "job.tasks": tasks}) + "\n"


def _peak(read: Callable[[], Iterator[dict]]) -> tuple[int, int]:
    """(jobs read, peak traced bytes) while consuming ``read()`` one job at a time."""
    tracemalloc.start()
    try:
        count = 0
        for job in read():
            count += 1
            del job
        return count, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", ["jobhistory", "sls"])
def test_peak_memory_is_flat_in_the_number_of_jobs(tmp_path: Path, kind: str) -> None:
    # Both sizes exceed the readers' 64 KiB read chunk, so both runs are in steady state.
    make, reader, suffix, sizes = {
        "jobhistory": (_history, iter_jobhistory_jobs, "bundle.gz", (12, 96)),
        "sls": (_sls_job, iter_sls_jobs, "sls.json.gz", (60, 480)),
    }[kind]
    peaks = {}
    for jobs in sizes:
        path = tmp_path / f"{jobs}-{suffix}"
        path.write_bytes(gzip.compress("".join(make(j) for j in range(jobs)).encode(), compresslevel=1))
        count, peak = _peak(lambda: reader(path, warnings=[]))
        assert count == jobs
        peaks[jobs] = peak
    # 8x the jobs: the peak may wobble (buffers, interning) but must not scale with the input.
    assert peaks[sizes[1]] < 1.5 * peaks[sizes[0]], peaks


def test_writer_streams_and_is_atomic(tmp_path: Path) -> None:
    def jobs(n: int, fail_at: int | None = None) -> Iterator[dict]:
        for j in range(n):
            if j == fail_at:
                raise RuntimeError("reader failed")
            yield {"jobID": f"job_1_{j:04d}", "mapTasks": [{"taskID": f"t{t}", "attempts": []} for t in range(2000)]}

    target = tmp_path / "out.json.gz"
    with pytest.raises(RuntimeError):
        write_rumen_trace(jobs(5, fail_at=3), target)
    assert list(tmp_path.iterdir()) == []  # no half-written trace, no temporary left behind

    tracemalloc.start()
    try:
        assert write_rumen_trace(jobs(5), target) == 5
        small = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        assert write_rumen_trace(jobs(40), target) == 40
        large = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert large < 1.5 * small
    assert gzip.decompress(target.read_bytes()).count(b"\n") == 40
