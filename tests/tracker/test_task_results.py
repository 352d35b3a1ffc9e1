"""``ReplayOptions(task_results=False)`` drops a finished job's per-task state: the job rows, the summary and the
``--json`` object stay the same (locality counts tallied as jobs finish), and ``tasks`` says it was not kept."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from tests.tracker.helpers import random_workload


def _without_wall(result) -> dict:  # type: ignore[no-untyped-def]
    doc = result.to_json_dict()
    doc["summary"] = {k: v for k, v in doc["summary"].items() if k not in ("wall_s", "events_per_s")}
    return doc


def _local_workload() -> Workload:
    """Jobs with split locations on the cluster's hosts, so the summary has locality counts."""
    rng = np.random.default_rng(4)
    jobs = []
    for j in range(12):
        m = int(rng.integers(2, 15))
        locs = tuple((f"/default-rack/node{int(rng.integers(0, 8)):04d}",) for _ in range(m))
        jobs.append(JobTemplate(job_id=f"job_{j:03d}", submit_s=5.0 * j, map_durations=rng.lognormal(2, 1, m),
                                reduce_durations=rng.lognormal(1.5, 1, 2), typical_shuffle_durations=np.array([1.0]),
                                map_locations=locs))
    return Workload.of(jobs, source="local")


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
@pytest.mark.parametrize("options", [{}, {"contention": "tdam"}, {"heartbeat_interval_s": 0.0}, {"bounded_wakes": True}])
def test_dropping_task_results_changes_no_figure(scheduler, options):
    w = random_workload(11, jobs=20)
    cluster = uniform_cluster(6, 2, 2)
    conf = HadoopConf(map_speculative=True) if scheduler == "fifo" and not options else HadoopConf()
    kept = replay(w, cluster, conf, create_scheduler(scheduler), ReplayOptions(seed=2, **options))
    dropped = replay(w, cluster, conf, create_scheduler(scheduler), ReplayOptions(seed=2, task_results=False, **options))
    assert _without_wall(dropped) == _without_wall(kept)
    assert dropped.jobs.equals(kept.jobs)
    with pytest.raises(ValueError, match="per-task results were not kept"):
        _ = dropped.tasks


def test_locality_counts_are_tallied_as_jobs_finish():
    w = _local_workload()
    cluster = uniform_cluster(8, 1, 1)
    kept = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(locality="on"))
    dropped = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(locality="on", task_results=False))
    assert kept.summary["node_local_maps"] + kept.summary["rack_local_maps"] + kept.summary["off_switch_maps"] == w.n_maps
    assert _without_wall(dropped) == _without_wall(kept)


def test_a_replay_without_task_results_holds_no_finished_jobs_tasks():
    from mrsim.tracker.jobtracker import JobTracker

    w = facebook_like_workload(FacebookLikeSpec(jobs=10, seed=2))
    jt = JobTracker(w, uniform_cluster(16, 1, 1), HadoopConf(), create_scheduler("fifo"))
    jt.keep_task_results = False
    jt.run()
    assert all(len(j.map_start) == len(j.map_dur) == len(j.reduce_finish) == 0 for j in jt.jobs)


@pytest.mark.parametrize("seed", range(8))
def test_a_backup_that_wins_after_its_job_is_released_is_a_stale_completion(seed):
    """A speculative backup can finish a job while the killed original's completion is still queued; with the
    job's per-task arrays freed that late event must be ignored as a tombstone (it crashed the replay once)."""
    w = random_workload(100 + seed, jobs=15)
    conf = HadoopConf(map_speculative=True, reduce_speculative=True)
    kept = replay(w, uniform_cluster(4, 2, 2), conf, create_scheduler("fifo"), ReplayOptions(seed=seed))
    dropped = replay(w, uniform_cluster(4, 2, 2), conf, create_scheduler("fifo"),
                     ReplayOptions(seed=seed, task_results=False))
    assert _without_wall(dropped) == _without_wall(kept)


def test_the_rumen_counters_trace_replays_speculatively_without_task_results(capsys, tmp_path):
    """Hadoop's Rumen counters trace under --speculative: `mrsim replay --json` (no per-task results kept) gives
    what `--out` (all kept) gives."""
    import json

    from mrsim.cli import main
    from tests.data import SHARED_DATA

    trace = SHARED_DATA / "rumen" / "small-trace-test" / "counters-test-trace.json.gz"
    if not trace.exists():
        pytest.skip("shared data absent")
    docs = []
    for extra in ([], ["--out", str(tmp_path / "out")]):
        assert main(["replay", str(trace), "--json", "--speculative", "--no-cache", *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        for key in ("wall_s", "events_per_s"):
            doc["summary"].pop(key)
        doc["spec"].pop("out", None)
        docs.append(doc)
    assert docs[0] == docs[1]
