"""Streamed replays (``mrsim replay --stream``, ``mrsim/tracker/features/streaming.py``): jobs read while the replay
runs give the ``--json`` object of the same workload held whole, byte for byte (but the wall-clock fields), and
a finished job's template and state are let go."""

from __future__ import annotations

import gc
import weakref
from typing import Iterator

import numpy as np
import orjson
import pytest

from mrsim.cli import main
from mrsim.tracker.kernel import Kernel
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.profiler.swim import swim_to_templates
from mrsim.profiler.swim_stream import swim_stream
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, iter_facebook_like, streamed_facebook_like
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.streamed import StreamedWorkload
from mrsim.model.templates import JobTemplate

WALL_KEYS = ("wall_s", "events_per_s")  # wall-clock figures: differ between any two runs


def _json_bytes(result) -> bytes:  # type: ignore[no-untyped-def]
    doc = result.to_json_dict()
    doc["summary"] = {k: v for k, v in doc["summary"].items() if k not in WALL_KEYS}
    return orjson.dumps(doc)


def _both(whole, streamed, nodes: int, scheduler: str, **options):  # type: ignore[no-untyped-def]
    cluster = uniform_cluster(nodes, 1, 1)
    opts = ReplayOptions(seed=1, task_results=False, **options)
    a = replay(whole, cluster, HadoopConf(), create_scheduler(scheduler), opts)
    b = replay(streamed, cluster, HadoopConf(), create_scheduler(scheduler), opts)
    return a, b


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
@pytest.mark.parametrize("nodes,gap", [(12, 30.0), (1200, 5.0), (8, 0.0)])  # 1200 nodes: bounded wake-ups
def test_streamed_synth_gives_the_same_json(scheduler, nodes, gap):
    spec = FacebookLikeSpec(jobs=40, seed=5, mean_interarrival_s=gap)  # gap 0: every job at one instant
    a, b = _both(facebook_like_workload(spec), streamed_facebook_like(spec), nodes, scheduler)
    assert _json_bytes(b) == _json_bytes(a)
    assert b.summary["jobs"] == 40 and b.summary["events"] == a.summary["events"]
    assert b.jobs.equals(a.jobs)


def test_streamed_synth_draws_the_templates_of_the_whole_workload():
    spec = FacebookLikeSpec(jobs=5000, seed=3)  # more than one draw chunk (mrsim.profiler.synth.DRAW_CHUNK)
    whole = facebook_like_workload(spec)
    for t, s in zip(whole, iter_facebook_like(spec), strict=True):
        assert (t.job_id, t.submit_s, t.user) == (s.job_id, s.submit_s, s.user)
        assert np.array_equal(t.map_durations, s.map_durations)
        assert np.array_equal(t.reduce_durations, s.reduce_durations)


SWIM_LINES = [  # job id, submit, gap, input, shuffle, output bytes; jobs b2 and b1 share an instant (id order: b1)
    "a0\t0\t0\t200000000\t50000000\t1000",
    "b2\t5\t5\t70000000\t0\t10",
    "b1\t5\t0\t1000\t2000000000\t3000",
    "c3\t9\t4\t900000000\t10\t10",
    "d4\t40\t31\t10\t0\t0",
]


def _swim_file(tmp_path, lines=SWIM_LINES):  # type: ignore[no-untyped-def]
    path = tmp_path / "w.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("scheduler", ["fifo", "fair"])
def test_streamed_swim_gives_the_same_json(tmp_path, scheduler):
    path = _swim_file(tmp_path)
    a, b = _both(swim_to_templates(path), swim_stream(path), 3, scheduler)
    assert _json_bytes(b) == _json_bytes(a)
    assert [j["job_id"] for j in b.to_json_dict()["jobs"]] == ["a0", "b1", "b2", "c3", "d4"]


def test_cli_stream_json_is_byte_identical(tmp_path, capsys):
    path = str(_swim_file(tmp_path))
    outputs = []
    for extra in ([], ["--stream"]):
        assert main(["replay", path, "--nodes", "3", "--json", *extra]) == 0
        doc = orjson.loads(capsys.readouterr().out)
        for key in WALL_KEYS:
            doc["summary"].pop(key)
        outputs.append(orjson.dumps(doc))
    assert outputs[1] == outputs[0]


class _CountingSource:
    """Synthetic jobs 100 s apart that each run for 1 s, recording how many templates are alive as each is read."""

    def __init__(self, jobs: int) -> None:
        self.warnings: list[str] = []
        self.total = jobs
        self.alive: weakref.WeakSet = weakref.WeakSet()
        self.most_alive = 0

    def jobs(self) -> Iterator[JobTemplate]:
        for j in range(self.total):
            self.most_alive = max(self.most_alive, len(self.alive))
            t = JobTemplate(job_id=f"job_{j:05d}", submit_s=100.0 * j, map_durations=np.ones(3),
                            reduce_durations=np.ones(1))
            self.alive.add(t)
            yield t


def test_a_streamed_replay_lets_finished_jobs_go():
    # With the cyclic collector off, a template counts as gone only if plain reference counting frees it: a finished
    # job must leave no reference cycle behind (and the test needs no full collection per job read).
    source = _CountingSource(300)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        result = replay(StreamedWorkload(source, "counting"), uniform_cluster(4, 2, 2), HadoopConf(),
                        create_scheduler("fifo"), ReplayOptions(task_results=False))
    finally:
        if was_enabled:
            gc.enable()
    assert result.summary["jobs"] == 300 and result.summary["tasks"] == 1200
    assert source.most_alive <= 2  # the job in flight and the next arrival, never the trace


def test_kernel_arrivals_pop_before_same_instant_events_in_index_order():
    k = Kernel()
    popped = []
    k.register(0, lambda now, order, a, b: popped.append(("arrival", a)))
    k.register(1, lambda now, order, a, b: popped.append(("other", a)))
    k.schedule(5.0, 0, 1, 99)
    k.schedule_arrival(5.0, 0, 0, 2)
    k.schedule_arrival(5.0, 0, 0, 1)
    k.schedule(4.0, 0, 1, 98)
    k.run()
    assert popped == [("other", 98), ("arrival", 1), ("arrival", 2), ("other", 99)]


def test_out_of_order_stream_is_one_clear_error(tmp_path):
    path = _swim_file(tmp_path, ["a\t10\t0\t100\t0\t0", "b\t3\t0\t100\t0\t0"])
    with pytest.raises(InputError, match=r"w\.tsv:2: job b is submitted at 3 s, before line 1"):
        replay(swim_stream(path), uniform_cluster(2, 1, 1), HadoopConf(), create_scheduler("fifo"),
               ReplayOptions(task_results=False))


def test_what_a_stream_cannot_replay_is_refused(tmp_path, capsys):
    path = str(_swim_file(tmp_path))
    with pytest.raises(InputError, match="per-task results"):
        replay(swim_stream(path), uniform_cluster(2, 1, 1), HadoopConf(), create_scheduler("fifo"), ReplayOptions())
    with pytest.raises(InputError, match="the 'srpt' scheduler"):
        replay(swim_stream(path), uniform_cluster(2, 1, 1), HadoopConf(), create_scheduler("srpt"),
               ReplayOptions(task_results=False))

    class _Delayed(_CountingSource):
        def jobs(self) -> Iterator[JobTemplate]:
            yield JobTemplate(job_id="job_1", submit_s=0.0, map_durations=np.ones(1), reduce_durations=np.ones(1),
                              extra={"launch_delay_s": 2.0})

    with pytest.raises(InputError, match="job job_1: its trace records 'launch_delay_s'"):
        replay(StreamedWorkload(_Delayed(1), "delayed"), uniform_cluster(2, 1, 1), HadoopConf(),
               create_scheduler("fifo"), ReplayOptions(task_results=False))
    assert main(["replay", path, "--stream", "--out", str(tmp_path / "o")]) != 0
    assert "--out is not supported" in capsys.readouterr().err
    assert main(["replay", "synth:x", "--stream", "--json"]) != 0
    assert "expected synth:JOBS" in capsys.readouterr().err
