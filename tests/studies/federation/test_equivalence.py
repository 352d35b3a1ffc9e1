"""Every geo policy on seeded random federated workloads (maps and reduces): engine invariants after every event,
parked heartbeats == naive heartbeats, tasks only in their own datacenter, and each datacenter's launches in the
controller's order."""

from __future__ import annotations

import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.studies.federation.placement import PlacementPolicy, PlacementSpec, place_workload
from mrsim.studies.geo.policies import Policy
from tests.tracker.helpers import random_workload

POLICIES = [p.value for p in Policy]


def federation(nodes: tuple[int, ...], map_slots: int = 2, reduce_slots: int = 1) -> ClusterSpec:
    trackers = []
    for d, n in enumerate(nodes):
        for i in range(n):
            trackers.append(TrackerSpec(f"dc{d}-n{i}", rack=f"/dc{d}/rack1", map_slots=map_slots,
                                        reduce_slots=reduce_slots, datacenter=f"dc{d}"))
    return ClusterSpec(tuple(trackers), source=f"federation {nodes}")


def placed(seed: int, cluster: ClusterSpec, jobs: int = 25):
    w, _ = place_workload(random_workload(seed, jobs=jobs), cluster,
                          PlacementSpec(PlacementPolicy.ZIPF, skew=1.0, seed=seed))
    return w


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("seed", range(3))
def test_invariants_and_datacenter_confinement(policy: str, seed: int) -> None:
    cluster = federation((2, 3, 1))
    w = placed(seed, cluster)
    conf = HadoopConf(slowstart_completed_maps=[0.05, 0.5, 1.0][seed])
    for interval in (0.0, 0.7):
        r = replay(w, cluster, conf, create_scheduler(policy),
                   ReplayOptions(heartbeat_interval_s=interval, check_invariants=True, seed=seed))
        tasks = r.tasks
        assert len(tasks) == w.n_tasks and not tasks.duplicated(["job_id", "type", "task"]).any()
        assert (r.jobs.finish_s >= r.jobs.submit_s).all()
        # every map runs in the datacenter its job's placement names
        for t in w:
            want = []
            for dc, count in t.extra.get("map_datacenters", {}).items():
                want += [dc] * count
            got = tasks[(tasks.job_id == t.job_id) & (tasks.type == "MAP")].sort_values("task").tracker
            assert [name.split("-")[0] for name in got] == want
        stats = r.summary["scheduler_stats"]
        assert stats["decisions"] >= 1 and stats["max_jobs_in_system"] >= 1
        assert r.summary["federation"]["size_classes"]["small"]["jobs"] + \
            r.summary["federation"]["size_classes"]["medium"]["jobs"] == len(w)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("interval,oob", [(0.7, False), (3.0, False), (1.0, True)])
def test_parked_heartbeats_equal_naive_heartbeats(policy: str, interval: float, oob: bool) -> None:
    cluster = federation((3, 2, 2))
    w = placed(7, cluster, jobs=30)
    conf = HadoopConf(outofband_heartbeat=oob)
    fast = replay(w, cluster, conf, create_scheduler(policy), ReplayOptions(heartbeat_interval_s=interval, seed=2))
    naive = replay(w, cluster, conf, create_scheduler(policy),
                   ReplayOptions(heartbeat_interval_s=interval, seed=2, naive_heartbeats=True))
    assert fast.tasks.equals(naive.tasks)
    assert fast.jobs.equals(naive.jobs)
    assert fast.summary["events"] < naive.summary["events"]


def test_policies_differ_and_swag_helps_on_a_skewed_federation() -> None:
    # Not a regression pin: only that the policies produce different schedules on the same random input and that
    # the SRPT family beats FCFS on mean completion here (many small jobs behind large ones).
    cluster = federation((2, 2, 2), map_slots=1, reduce_slots=1)
    w = placed(11, cluster, jobs=40)
    means = {p: replay(w, cluster, HadoopConf(), create_scheduler(p), ReplayOptions(heartbeat_interval_s=0.0)
                       ).summary["mean_completion_s"] for p in POLICIES}
    assert len(set(means.values())) > 1
    assert min(means["gsrpt"], means["swag"]) < means["fcfs"]


def test_one_site_cluster_degenerates_to_one_datacenter() -> None:
    from mrsim.model.cluster import uniform_cluster

    w = random_workload(3, jobs=15)
    r = replay(w, uniform_cluster(4, 2, 1), HadoopConf(), create_scheduler("swag"),
               ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True))
    assert "one-site cluster" in r.summary["scheduler_stats"]["note"]
    assert r.summary["federation"]["datacenters"] == ["(one site)"]
    assert len(r.tasks) == w.n_tasks
