"""Seeded random workloads: invariants after every event, parked heartbeats == naive heartbeats for every plug-in
and configuration, determinism per seed, and a SWIM smoke run."""

from __future__ import annotations

import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.schedulers.fsp import FspScheduler
from mrsim.schedulers.las import LasScheduler
from mrsim.schedulers.srpt import SrptScheduler
from tests.tracker.helpers import SHARED_DATA
from tests.tracker.test_equivalence_and_invariants import random_workload

PLUGINS = {
    "srpt": lambda seed: SrptScheduler({"sigma": 1.0, "seed": seed}),
    "srpt+preempt": lambda seed: SrptScheduler({"sigma": 0.5, "seed": seed, "preempt": True}),
    "fsp-fifo": lambda seed: FspScheduler({"sigma": 1.0, "seed": seed, "late": "fifo"}),
    "fsp-ps+preempt": lambda seed: FspScheduler({"sigma": 1.0, "seed": seed, "late": "ps", "preempt": True}),
    "las": lambda seed: LasScheduler({}),
    "las+preempt": lambda seed: LasScheduler({"preempt": True}),
}


@pytest.mark.parametrize("plugin", sorted(PLUGINS))
@pytest.mark.parametrize("seed,interval,oob", [(0, None, False), (1, 3.0, True), (2, 0.7, False)])
def test_parked_equals_naive_with_invariants(plugin, seed, interval, oob):
    w = random_workload(200 + seed, jobs=25)
    cluster = uniform_cluster(4 + seed, 2, 2)
    conf = HadoopConf(outofband_heartbeat=oob, slowstart_completed_maps=[0.05, 0.0, 1.0][seed])
    fast = replay(w, cluster, conf, PLUGINS[plugin](seed),
                  ReplayOptions(seed=seed, heartbeat_interval_s=interval, check_invariants=True))
    naive = replay(w, cluster, conf, PLUGINS[plugin](seed),
                   ReplayOptions(seed=seed, heartbeat_interval_s=interval, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks)
    assert fast.jobs.equals(naive.jobs)
    assert fast.summary["wasted_slot_s"] == naive.summary["wasted_slot_s"]
    assert fast.summary["events"] < naive.summary["events"]
    tasks = fast.tasks
    assert len(tasks) == w.n_tasks and (tasks.finish_s >= tasks.start_s).all()
    assert (fast.jobs.finish_s >= fast.jobs.submit_s).all()
    if "preempt" not in plugin:
        assert fast.summary["killed_tasks"] == 0


def test_task_driven_mode_invariants_for_every_plugin():
    w = random_workload(300, jobs=25)
    for make in PLUGINS.values():
        r = replay(w, uniform_cluster(3, 2, 1), HadoopConf(), make(3),
                   ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True))
        assert len(r.tasks) == w.n_tasks


def test_same_seed_same_schedule_sigma_changes_it():
    w = random_workload(400, jobs=30)
    c = uniform_cluster(3, 2, 2)

    def mean(config: dict) -> float:
        return replay(w, c, HadoopConf(), SrptScheduler(config), ReplayOptions(seed=1)).summary["mean_completion_s"]

    exact = mean({"sigma": 0.0, "seed": 1})
    assert exact == mean({"sigma": 0.0, "seed": 2})  # sigma 0: the seed is irrelevant
    noisy = [mean({"sigma": 2.0, "seed": s}) for s in (1, 1, 2, 3)]
    assert noisy[0] == noisy[1]
    assert len({exact, *noisy[1:]}) > 1  # errors change the schedule for some seed


def test_registry_names():
    # srpt/fsp/las are registered in pyproject.toml's mrsim.schedulers entry points (the skip that waited for the
    # registration is gone: a missing registration is now a failure).
    for name, cls in (("srpt", SrptScheduler), ("fsp", FspScheduler), ("las", LasScheduler)):
        s = create_scheduler(name, {"preempt": True})
        assert isinstance(s, cls) and s.settings.preempt


def test_swim_window_replays_under_every_plugin():
    path = SHARED_DATA / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
    if not path.exists():
        pytest.skip("../shared/data not present")
    from mrsim.profiler.swim import MB, SwimTaskModel, SwimTrace, read_swim, swim_to_templates

    t = read_swim(path)
    n = 60
    sub = SwimTrace("fb09 head", t.job_ids[:n], t.submit_s[:n], t.input_bytes[:n], t.shuffle_bytes[:n], t.output_bytes[:n])
    w = swim_to_templates(sub, SwimTaskModel(mapred_min_split_size=4096 * MB, bytes_per_reducer=16e9))
    results = {}
    for name, make in PLUGINS.items():
        r = replay(w, uniform_cluster(5, 2, 2), HadoopConf(), make(0), ReplayOptions(seed=0))
        results[name] = r.summary["mean_completion_s"]
        assert r.summary["jobs"] == n
    fifo = replay(w, uniform_cluster(5, 2, 2), HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=0))
    assert min(results.values()) < fifo.summary["mean_completion_s"]
