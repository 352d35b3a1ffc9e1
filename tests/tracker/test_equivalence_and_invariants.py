"""Seeded random workloads: invariants after every event, and fast (parked) heartbeats == naive heartbeats."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from tests.tracker.helpers import random_workload


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("interval,oob", [(0.0, False), (0.7, False), (3.0, False), (1.0, True)])
def test_invariants_hold_after_every_event(seed, interval, oob):
    w = random_workload(seed)
    conf = HadoopConf(slowstart_completed_maps=[0.0, 0.05, 0.5, 1.0][seed % 4], outofband_heartbeat=oob)
    r = replay(w, uniform_cluster(6, 2, 1), conf, create_scheduler("fifo"),
               ReplayOptions(heartbeat_interval_s=interval, check_invariants=True, seed=seed))
    tasks = r.tasks
    # each task ran exactly once, time never goes backwards within a task, every job finished
    assert len(tasks) == w.n_tasks
    assert not tasks.duplicated(["job_id", "type", "task"]).any()
    assert (tasks.start_s >= 0).all() and (tasks.finish_s >= tasks.start_s).all()
    red = tasks[tasks.type == "REDUCE"]
    assert (red.shuffle_end_s >= red.start_s - 1e-9).all() and (red.finish_s >= red.shuffle_end_s - 1e-9).all()
    assert (r.jobs.finish_s >= r.jobs.submit_s).all()
    # no task starts before its job was submitted; slots never over-used (replayed per tracker over time)
    merged = tasks.merge(r.jobs[["job_id", "submit_s"]], on="job_id")
    assert (merged.start_s >= merged.submit_s - 1e-9).all()
    for (_tracker, kind), grp in tasks.groupby(["tracker", "type"]):
        ev = sorted([(s, 1) for s in grp.start_s] + [(f, -1) for f in grp.finish_s], key=lambda x: (x[0], x[1]))
        level = peak = 0
        for _, d in ev:
            level += d
            peak = max(peak, level)
        assert peak <= (2 if kind == "MAP" else 1)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("version", ["1.2", "0.20"])
def test_parked_heartbeats_equal_naive_heartbeats(seed, version):
    from mrsim.model.hadoop_conf import HadoopVersion

    w = random_workload(100 + seed, jobs=30)
    conf = HadoopConf(version=HadoopVersion.parse(version))
    cluster = uniform_cluster(8 + seed, 2, 2)
    fast = replay(w, cluster, conf, create_scheduler("fifo"), ReplayOptions(seed=seed))
    naive = replay(w, cluster, conf, create_scheduler("fifo"), ReplayOptions(seed=seed, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks)
    assert fast.jobs.equals(naive.jobs)
    assert fast.summary["events"] < naive.summary["events"]


def test_same_seed_same_result_and_seed_changes_phases():
    w = facebook_like_workload(FacebookLikeSpec(jobs=15, seed=3))
    c = uniform_cluster(16, 2, 2)
    a = replay(w, c, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=5))
    b = replay(w, c, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=5))
    d = replay(w, c, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=6))
    assert a.tasks.equals(b.tasks) and a.jobs.equals(b.jobs)
    assert not a.tasks.equals(d.tasks)


def test_parked_equals_naive_with_real_locality():
    # The zombie trace on its own topology: split locations name the cluster's hosts (node/rack/off-switch).
    from mrsim.profiler.rumen import read_rumen_topology
    from mrsim.profiler.workloads import load_workload
    from mrsim.model.cluster import cluster_from_rumen_topology
    from tests.tracker.helpers import SHARED_DATA

    trace = SHARED_DATA / "rumen" / "zombie" / "input-trace.json"
    if not trace.exists():
        pytest.skip("../shared/data not present")
    topo = SHARED_DATA / "rumen" / "zombie" / "input-topology.json"
    cluster = cluster_from_rumen_topology(read_rumen_topology(topo), str(topo), {"map_slots": 1, "reduce_slots": 1})
    w = load_workload(trace)
    fast = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=3, check_invariants=True))
    naive = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=3, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks)
    assert fast.summary["node_local_maps"] > 0 and fast.summary["off_switch_maps"] >= 0


@pytest.mark.parametrize("seed", range(3))
def test_parked_equals_naive_with_speculation_on_heterogeneous_nodes(seed):
    from mrsim.model.cluster import ClusterSpec, TrackerSpec

    rng = np.random.default_rng(seed)
    cluster = ClusterSpec(tuple(TrackerSpec(f"n{i}", map_slots=2, reduce_slots=1, speed=float(rng.choice([0.3, 1.0, 1.5])))
                                for i in range(7)))
    conf = HadoopConf(map_speculative=True, reduce_speculative=True)
    w = random_workload(300 + seed, jobs=20)
    fast = replay(w, cluster, conf, create_scheduler("fifo"), ReplayOptions(seed=seed, check_invariants=True))
    naive = replay(w, cluster, conf, create_scheduler("fifo"), ReplayOptions(seed=seed, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks)
    assert fast.summary["speculative_attempts"] == naive.summary["speculative_attempts"] > 0
    assert len(fast.tasks) == w.n_tasks


def test_parked_equals_naive_with_setup_and_cleanup_tasks():
    from mrsim.profiler.workloads import load_workload
    from tests.tracker.helpers import SHARED_DATA

    trace = SHARED_DATA / "gridmix-system-branch-1" / "trace_10m.json.gz"
    if not trace.exists():
        pytest.skip("../shared/data not present")
    w = load_workload(trace)
    assert all("setup_s" in j.extra and "launch_delay_s" in j.extra for j in w)
    cluster = uniform_cluster(6, 2, 1)
    fast = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=2, check_invariants=True))
    naive = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=2, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks) and fast.jobs.equals(naive.jobs)
    plain = replay(w, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=2, job_overheads=False))
    assert (fast.jobs.completion_s.values > plain.jobs.completion_s.values).all()


def test_parked_equals_naive_with_replayed_failed_attempts():
    from mrsim.profiler.workloads import load_workload
    from tests.tracker.helpers import SHARED_DATA

    trace = SHARED_DATA / "rumen" / "small-trace-test" / "job-tracker-logs-trace-output.gz"
    if not trace.exists():
        pytest.skip("../shared/data not present")
    w = load_workload(trace)
    assert any("failed_map_attempts" in j.extra for j in w)
    cluster = uniform_cluster(10, 2, 1)
    conf = HadoopConf(map_speculative=True)
    fast = replay(w, cluster, conf, create_scheduler("fifo"), ReplayOptions(seed=4, check_invariants=True))
    naive = replay(w, cluster, conf, create_scheduler("fifo"), ReplayOptions(seed=4, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks) and fast.jobs.equals(naive.jobs)
    assert fast.summary["failed_attempts_replayed"] > 0 and fast.summary["wasted_slot_s"] > 0
