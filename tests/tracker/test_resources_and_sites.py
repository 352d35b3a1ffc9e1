"""Resource-vector nodes with per-task requests, and federations of datacenters, in the heartbeat engine.

Hand timelines (task mode or aligned heartbeats), request precedence, cluster-file parsing, bad input, and for
every built-in scheduler: invariants after every event and parked == naive heartbeats on seeded workloads.
"""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.features.federation import proportional_split, task_datacenters
from mrsim.tracker.placement import task_request
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import Locality, TaskScheduler, available_schedulers, create_scheduler
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec, TrackerSpec, cluster_from_mapping, load_cluster_file, write_cluster_file
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from tests.tracker.helpers import finishes, job, job_finish, random_workload, run, starts

# ------------------------------------------------------------------------------------------ cluster files


def resource_node(name: str, vcores: float, memory_mb: float, **kw) -> TrackerSpec:
    return TrackerSpec(name, resources=(("memory_mb", float(memory_mb)), ("vcores", float(vcores))), **kw)


def test_resources_merge_and_slot_counts_are_container_equivalents():
    c = cluster_from_mapping({
        "requests": {"map": {"memory_mb": 2048}},
        "defaults": {"resources": {"vcores": 8, "memory_mb": 16384}},
        "racks": [{"name": "/small", "count": 2, "resources": {"vcores": 4}},
                  {"name": "/big", "count": 1, "reduce_slots": 3}],
    }, "t")
    small, big = c.trackers[0], c.trackers[2]
    assert small.resources == (("memory_mb", 16384.0), ("vcores", 4.0))  # per-resource merge
    # map default request: 2048 MB (given) and 1 vcore (YARN default): min(16384/2048, 4/1) = 4
    assert (small.map_slots, small.reduce_slots) == (4, 4)  # reduce: min(16384/1024, 4) = 4
    assert (big.map_slots, big.reduce_slots) == (8, 3)  # explicit reduce_slots kept
    assert c.uses_resources and c.resource_names == ("memory_mb", "vcores")
    assert c.default_request(False) == {"memory_mb": 2048.0, "vcores": 1.0}
    assert c.default_request(True) == {"memory_mb": 1024.0, "vcores": 1.0}
    d = c.describe()
    assert d["resources"] == {"memory_mb": 3 * 16384.0, "vcores": 16.0} and d["configurations"] == 2


def test_datacenters_sections_name_racks_and_nodes(tmp_path):
    c = cluster_from_mapping({
        "defaults": {"map_slots": 2, "reduce_slots": 1},
        "datacenters": [{"name": "us", "count": 2},
                        {"name": "eu", "map_slots": 4, "racks": [{"name": "r1", "count": 1}],
                         "nodes": [{"name": "eu-x"}]}],
    }, "t")
    assert [t.name for t in c.trackers] == ["us-rack1-node001", "us-rack1-node002", "eu-r1-node001", "eu-x"]
    assert [t.datacenter for t in c.trackers] == ["us", "us", "eu", "eu"]
    assert [t.rack for t in c.trackers] == ["/us/rack1", "/us/rack1", "/eu/r1", "/eu/default-rack"]
    assert [t.map_slots for t in c.trackers] == [2, 2, 4, 4]
    assert c.datacenters == ("us", "eu") and c.describe()["datacenters"] == {"us": 2, "eu": 2}
    path = tmp_path / "c.toml"
    write_cluster_file(c, path)
    assert load_cluster_file(path).trackers == c.trackers


def test_resource_cluster_round_trips_through_a_file(tmp_path):
    c = cluster_from_mapping({"requests": {"map": {"memory_mb": 512.0}},
                              "defaults": {"resources": {"vcores": 2, "memory_mb": 4096}}, "racks": [{"name": "/r", "count": 2}]}, "t")
    path = tmp_path / "c.toml"
    write_cluster_file(c, path)
    back = load_cluster_file(path)
    assert back.trackers == c.trackers and back.default_request(False) == c.default_request(False)


@pytest.mark.parametrize("doc,message", [
    ({"nodes": [{"name": "a", "resources": {"vcores": 2}}, {"name": "b"}]}, "declares no resources"),
    ({"nodes": [{"name": "a", "datacenter": "x"}, {"name": "b"}]}, "belongs to no datacenter"),
    ({"nodes": [{"name": "a", "resources": {"vcores": -1}}]}, "non-negative"),
    ({"nodes": [{"name": "a", "resources": {"vcores": "many"}}]}, "must be a number"),
    ({"nodes": [{"name": "a", "resources": 4}]}, "must be a table"),
    ({"datacenters": [{"count": 2}]}, "needs a name"),
    ({"datacenters": [{"name": "x", "color": "red"}]}, "unknown key"),
    ({"requests": {"maps": {}}, "nodes": [{"name": "a"}]}, "[requests]"),
])
def test_bad_cluster_files_give_one_line_errors(doc, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        cluster_from_mapping(doc, "bad.toml")


# ------------------------------------------------------------------------------------------ requests


def test_request_precedence_explicit_then_properties_then_rumen_mb_then_default():
    default = {"memory_mb": 1024.0, "vcores": 1.0, "gpu": 0.0}
    explicit = job("a", 0, maps=[1], extra={"map_request": {"vcores": 2}, "map_mb": 3000,
                                            "properties": {"mapreduce.map.memory.mb": "1536"}})
    assert task_request(explicit.template if hasattr(explicit, "template") else explicit, False, default) == \
        {"vcores": 2.0, "memory_mb": 1536.0, "gpu": 0.0}
    hadoop1 = job("b", 0, maps=[1], reduces=[1], extra={"properties": {"mapred.job.reduce.memory.mb": "4096",
                                                                       "mapreduce.reduce.cpu.vcores": "3"}})
    assert task_request(hadoop1, True, default) == {"memory_mb": 4096.0, "vcores": 3.0, "gpu": 0.0}
    rumen = job("c", 0, maps=[1], extra={"map_mb": 2048})
    assert task_request(rumen, False, default) == {"memory_mb": 2048.0, "vcores": 1.0, "gpu": 0.0}
    assert task_request(job("d", 0, maps=[1]), False, default) == default
    with pytest.raises(InputError, match="job e: map_request 'vcores' must be non-negative"):
        task_request(job("e", 0, maps=[1], extra={"map_request": {"vcores": -1}}), False, default)


def test_tasks_share_a_node_only_while_their_requests_fit():
    # One node: 4 vcores, 4096 MB, 10 map slots (not binding). Job A: 3 maps of 10 s requesting 3072 MB each,
    # job B (submitted at 0, after A): 2 maps of 5 s requesting 1024 MB. Task mode, FIFO:
    # t=0: A.m0 (3072) launches, A.m1 does not fit (1024 left) -> FIFO walks on: B.m0 (1024) fits; full.
    # t=5: B.m0 done -> 1024 free: A.m1 does not fit, B.m1 does -> 5-10.
    # t=10: A.m0 and B.m1 done -> 4096 free: A.m1 (3072) 10-20; B has nothing left; A.m2 does not fit.
    # t=20: A.m2 20-30.
    cluster = ClusterSpec((resource_node("n", 4, 4096, map_slots=10, reduce_slots=1),))
    a = job("A", 0.0, maps=[10, 10, 10], extra={"map_request": {"memory_mb": 3072}})
    b = job("B", 0.0, maps=[5, 5], extra={"map_request": {"memory_mb": 1024}})
    r = run([a, b], cluster)
    assert starts(r, "A") == [0, 10, 20]
    assert starts(r, "B") == [0, 5]
    assert job_finish(r, "A") == 30 and job_finish(r, "B") == 10


def test_vcores_bind_as_well_as_memory():
    # 2 vcores, plenty of memory; maps request 1 vcore: two at a time even with 8 map slots.
    cluster = ClusterSpec((resource_node("n", 2, 1 << 20, map_slots=8, reduce_slots=1),))
    r = run([job("j", 0.0, maps=[4, 4, 4, 4, 4], extra={"map_request": {"vcores": 1}})], cluster)
    assert starts(r, "j") == [0, 0, 4, 4, 8]


def test_maps_and_reduces_share_one_pool():
    # 2048 MB, 1024 per task, slow start after 1 of 2 maps: the reduce waits for a map's container.
    cluster = ClusterSpec((resource_node("n", 8, 2048, map_slots=4, reduce_slots=4),))
    j = job("j", 0.0, maps=[10, 20], reduces=[5], typical=[1], first=[1])
    r = run([j], cluster, slowstart=0.5)
    assert starts(r, "j") == [0, 0]
    assert starts(r, "j", "REDUCE") == [10]  # memory frees when m0 finishes at 10
    # first-wave reduce: shuffle ends first_shuffle (1 s) after the last map (20), then 5 s of reduce
    assert finishes(r, "j", "REDUCE") == [26]


def test_request_that_fits_no_node_is_a_clear_error():
    cluster = ClusterSpec((resource_node("n", 4, 4096),))
    with pytest.raises(InputError, match=r"job big: a map task requests memory_mb=8192, vcores=1, which fits on no node"):
        run([job("big", 0.0, maps=[1], extra={"map_request": {"memory_mb": 8192}})], cluster)
    with pytest.raises(InputError, match="request 'gpu', which no node declares"):
        run([job("g", 0.0, maps=[1], extra={"map_request": {"gpu": 1}})], cluster)


def test_kill_gives_resources_back():
    from mrsim.schedulers.fifo import FifoScheduler

    class Killer(FifoScheduler):
        def start(self, jt):
            super().start(jt)
            jt.schedule_timer(4.0, token=1)

        def on_timer(self, now, token):
            assert self.jt.kill_task(self.jt.jobs[0], reduce=False) == 4.0
            assert self.jt.trackers[0].free == [2048.0, 7.0]  # one 1024 MB / 1 vcore map still running

    cluster = ClusterSpec((resource_node("n", 8, 3072, map_slots=4, reduce_slots=1),))
    r = replay(Workload.of([job("A", 0.0, maps=[10, 10])]), cluster, HadoopConf(), Killer(),
               ReplayOptions(heartbeat_interval_s=2.0, aligned_heartbeats=True, check_invariants=True))
    assert starts(r, "A") == [0, 4] and r.summary["killed_tasks"] == 1


def test_setup_and_cleanup_tasks_hold_a_container():
    # 1024 MB node, 1024 MB tasks: setup (2 s) blocks the map until it finishes.
    cluster = ClusterSpec((resource_node("n", 4, 1024, map_slots=2, reduce_slots=1),))
    r = run([job("j", 0.0, maps=[10], extra={"setup_s": 2.0, "cleanup_s": 3.0})], cluster, interval=1.0)
    assert starts(r, "j") == [2] and job_finish(r, "j") == 15


def test_slot_model_is_untouched_without_resources():
    r = run([job("j", 0.0, maps=[10] * 4, extra={"map_request": {"memory_mb": 1 << 30}})],
            ClusterSpec((TrackerSpec("n", map_slots=2, reduce_slots=1),)))
    assert starts(r, "j") == [0, 0, 10, 10]


# ------------------------------------------------------------------------------------------ federations

FED3 = {"defaults": {"map_slots": 1, "reduce_slots": 1},
        "datacenters": [{"name": "dc1", "count": 1}, {"name": "dc2", "count": 1}, {"name": "dc3", "count": 1}]}


def paper_example():
    """The seed's worked example: remaining tasks (1, 10, 1), (3, 8, 0), (7, 0, 6); 1 s tasks."""
    def j(name, counts):
        placed = {f"dc{d + 1}": n for d, n in enumerate(counts) if n}
        return job(name, 0.0, maps=[1.0] * sum(counts), extra={"map_datacenters": placed})
    return [j("A", (1, 10, 1)), j("B", (3, 8, 0)), j("C", (7, 0, 6))]


def test_fifo_on_the_worked_example_gives_the_papers_fcfs_schedule():
    # Each datacenter serves A, then B, then C: dc1 A(0-1) B(1-4) C(4-11); dc2 A(0-10) B(10-18); dc3 A(0-1) C(1-7).
    r = run(paper_example(), cluster_from_mapping(FED3, "fed"))
    assert (job_finish(r, "A"), job_finish(r, "B"), job_finish(r, "C")) == (10, 18, 11)
    t = r.tasks
    by_dc = {dc: list(g.sort_values("start_s").job_id) for dc, g in t.groupby(t.tracker.str[:3])}
    assert by_dc["dc1"] == ["A"] + ["B"] * 3 + ["C"] * 7
    assert by_dc["dc2"] == ["A"] * 10 + ["B"] * 8
    assert by_dc["dc3"] == ["A"] + ["C"] * 6


def test_task_placement_lists_tables_and_proportional_reduces():
    t = job("j", 0, maps=[1] * 5, reduces=[1] * 4, extra={"map_datacenters": ["b", "a", "b", "b", "a"]})
    assert task_datacenters(t, ("a", "b")) == ([1, 0, 1, 1, 0], [0, 0, 1, 1])  # 4 reduces over 2:3 -> 2, 2
    t = job("k", 0, maps=[1] * 3, reduces=[1] * 3, extra={"map_datacenters": {"b": 3}, "reduce_datacenters": {"a": 1, "b": 2}})
    assert task_datacenters(t, ("a", "b")) == ([1, 1, 1], [0, 1, 1])
    assert proportional_split(4, [2, 3]) == [2, 2] and proportional_split(7, [1, 1, 1]) == [3, 2, 2]
    assert sum(proportional_split(100, [3, 5, 11, 0])) == 100


@pytest.mark.parametrize("extra,message", [
    ({}, "no datacenter placement"),
    ({"map_datacenters": {"mars": 2}}, "names datacenter 'mars'"),
    ({"map_datacenters": {"dc1": 1}}, "places 1 task"),
    ({"map_datacenters": "dc1"}, "must be a list"),
])
def test_bad_placements_are_one_line_errors(extra, message):
    with pytest.raises(InputError, match=message):
        run([job("j", 0.0, maps=[1, 1], extra=extra)], cluster_from_mapping(FED3, "fed"))


def test_a_datacenter_without_slots_for_its_tasks_is_an_error():
    fed = cluster_from_mapping({"datacenters": [{"name": "a", "count": 1},
                                                {"name": "b", "count": 1, "reduce_slots": 0}]}, "fed")
    with pytest.raises(InputError, match="datacenter 'b', which has no reduce slots"):
        run([job("j", 0.0, maps=[1], reduces=[1], extra={"map_datacenters": ["b"]})], fed)


# ------------------------------------------------------------------------------------------ every scheduler

FED = {"defaults": {"map_slots": 2, "reduce_slots": 1},
       "datacenters": [{"name": "a", "count": 3}, {"name": "b", "count": 2, "map_slots": 3}, {"name": "c", "count": 1}]}
RES = {"requests": {"map": {"memory_mb": 1024, "vcores": 1}}, "defaults": {"resources": {"vcores": 4, "memory_mb": 8192}},
       "racks": [{"name": "/r1", "count": 3}, {"name": "/r2", "count": 2, "resources": {"vcores": 8, "memory_mb": 4096}}]}
BOTH = {"requests": {"map": {"memory_mb": 1024}}, "defaults": {"resources": {"vcores": 4, "memory_mb": 4096}},
        "datacenters": [{"name": "a", "count": 2}, {"name": "b", "count": 2, "resources": {"memory_mb": 8192}}]}


def decorate(workload: Workload, seed: int, sites: tuple[str, ...], requests: bool) -> Workload:
    rng = np.random.default_rng(seed)
    jobs = []
    for t in workload.jobs:
        extra = dict(t.extra)
        if sites:
            extra["map_datacenters"] = [sites[int(d)] for d in rng.integers(0, len(sites), t.n_maps)]
        if requests:
            extra["map_request"] = {"memory_mb": float(rng.choice([512, 1024, 3000])), "vcores": float(rng.choice([0.5, 1, 2]))}
            extra["reduce_request"] = {"memory_mb": float(rng.choice([1024, 2048]))}
        jobs.append(t.with_changes(extra=extra))
    return Workload.of(jobs, source=workload.source)


SCHEDULERS = sorted(set(available_schedulers()) - {"cafifo"})  # CA-FIFO needs --contention tdam
NEEDS_RESOURCES = {"greedy", "lotes"}  # they place by resource fit: one-site resource clusters only


@pytest.mark.parametrize("kind", ["fed", "res", "both"])
@pytest.mark.parametrize("name", SCHEDULERS)
def test_every_scheduler_keeps_invariants_and_parked_equals_naive(name, kind):
    doc = {"fed": FED, "res": RES, "both": BOTH}[kind]
    cluster = cluster_from_mapping(doc, kind)
    w = decorate(random_workload(3, jobs=20), 3, cluster.datacenters, cluster.uses_resources)
    if name in NEEDS_RESOURCES and (not cluster.uses_resources or cluster.datacenters):
        with pytest.raises(InputError, match="needs a resource-vector cluster|does not support federations"):
            replay(w, cluster, HadoopConf(), create_scheduler(name), ReplayOptions(heartbeat_interval_s=1.0))
        return
    tables = []
    for naive in (False, True):
        r = replay(w, cluster, HadoopConf(), create_scheduler(name),
                   ReplayOptions(heartbeat_interval_s=1.0, naive_heartbeats=naive, check_invariants=not naive, seed=1))
        tables.append(r.tasks.sort_values(["job_id", "type", "task"]).reset_index(drop=True))
    parked, naive_table = tables
    assert parked.equals(naive_table)
    assert len(parked) == w.n_tasks and (parked.finish_s >= parked.start_s).all()
    if cluster.datacenters:  # every task ran in its datacenter
        site_of = {t.name: t.datacenter for t in cluster.trackers}
        for tmpl in w.jobs:
            mine = parked[(parked.job_id == tmpl.job_id) & (parked.type == "MAP")].sort_values("task")
            assert [site_of[x] for x in mine.tracker] == list(tmpl.extra["map_datacenters"])


@pytest.mark.parametrize("speculative", [False, True])
def test_speculation_stays_in_the_datacenter_and_within_resources(speculative):
    cluster = cluster_from_mapping(BOTH, "both")
    w = decorate(random_workload(7, jobs=15), 7, cluster.datacenters, True)
    conf = HadoopConf(map_speculative=speculative, reduce_speculative=speculative)
    r = replay(w, cluster, conf, create_scheduler("fifo"),
               ReplayOptions(heartbeat_interval_s=1.0, check_invariants=True, seed=2))
    site_of = {t.name: t.datacenter for t in cluster.trackers}
    for tmpl in w.jobs:
        mine = r.tasks[(r.tasks.job_id == tmpl.job_id) & (r.tasks.type == "MAP")].sort_values("task")
        assert [site_of[x] for x in mine.tracker] == list(tmpl.extra["map_datacenters"])


class ReducesFirst(TaskScheduler):
    """Launches every reduce it can before any map: first-wave reduces can take every container."""

    name = "reduces-first"

    def assign_tasks(self, tracker):
        jt, n = self.jt, 0
        for running in list(jt.running_jobs.values()):
            while jt.obtain_new_reduce_task(running, tracker):
                n += 1
            while jt.obtain_new_map_task(running, tracker, Locality.ANY):
                n += 1
        return n


def test_reduces_holding_every_container_are_preempted_after_the_delay():
    # YARN's MR AM asks for reduces at a higher priority than maps; this plug-in does the same (reduces first).
    # One node, 2048 MB; 1024 MB tasks; job: 3 maps of 10 s, 2 reduces of 5 s, slow start after 1 map; task mode.
    # t=0: m0, m1. t=10: both end; r0 and r1 take both containers; m2 cannot start and the reduces wait for it:
    # deadlock. At t=300 (last map launch 0 + the 300 s delay) the newest reduce (r1) is preempted (290 s wasted),
    # reduces are held until every map has launched: m2 runs 300-310, then r1 310-315 and r0 (waiting since 10)
    # shuffles from 310 and ends at 315.
    cluster = ClusterSpec((resource_node("n", 8, 2048, map_slots=4, reduce_slots=4),))
    w = Workload.of([job("A", 0.0, maps=[10, 10, 10], reduces=[5, 5])])
    for naive, interval in ((False, 0.0), (False, 1.0), (True, 1.0)):
        r = replay(w, cluster, HadoopConf(slowstart_completed_maps=0.3), ReducesFirst(),
                   ReplayOptions(heartbeat_interval_s=interval, aligned_heartbeats=True, check_invariants=True,
                                 naive_heartbeats=naive))
        assert starts(r, "A") == [0, 0, 300]
        assert starts(r, "A", "REDUCE") == [10, 310]
        assert job_finish(r, "A") == 315
        assert r.summary["reduces_preempted"] == 1 and r.summary["wasted_slot_s"] == 290.0
    # a longer configured delay (mapreduce.job.reducer.unconditional-preempt.delay.sec) moves the preemption
    r = replay(w, cluster, HadoopConf(slowstart_completed_maps=0.3, reducer_preempt_delay_s=1000.0), ReducesFirst(),
               ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True))
    assert starts(r, "A") == [0, 0, 1000] and job_finish(r, "A") == 1015


def test_reducer_preemption_is_the_feature_replay_attaches_on_resource_clusters():
    # The same deadlock as above, on an engine built by hand with the resources feature: without reducer
    # preemption nothing breaks it (the replay ends with the job stuck: m2 never starts, both reduces wait for
    # it); attached, the timeline above.
    from mrsim.tracker.features.reducer_preemption import ReducerPreemptionFeature
    from mrsim.tracker.features.resources import ResourcesFeature
    from mrsim.tracker.jobtracker import JobTracker

    cluster = ClusterSpec((resource_node("n", 8, 2048, map_slots=4, reduce_slots=4),))
    w = Workload.of([job("A", 0.0, maps=[10, 10, 10], reduces=[5, 5])])
    conf = HadoopConf(slowstart_completed_maps=0.3)
    bare = JobTracker(w, cluster, conf, ReducesFirst(), heartbeat_interval=0.0)
    bare.attach(ResourcesFeature())
    bare.run(bare.check_invariants)
    assert bare.jobs_done == 0 and list(bare.jobs[0].map_start) == [0.0, 0.0, -1.0] and bare.reduces_preempted == 0
    jt = JobTracker(w, cluster, conf, ReducesFirst(), heartbeat_interval=0.0)
    jt.attach(ResourcesFeature())
    jt.attach(ReducerPreemptionFeature())
    jt.run(jt.check_invariants)
    assert list(jt.jobs[0].map_start) == [0.0, 0.0, 300.0] and jt.jobs[0].finish_time == 315.0
    assert jt.reduces_preempted == 1 and jt.wasted_s == 290.0


def test_the_documented_resource_cluster_example_parses_as_described():
    import tomllib
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "cluster.md").read_text()
    block = text.split("## Resources", 1)[1].split("```toml", 1)[1].split("```", 1)[0]
    c = cluster_from_mapping(tomllib.loads(block), "docs/cluster.md")
    small, big = c.trackers[0], c.trackers[-1]
    assert len(c) == 120 and small.map_slots == 4  # min(4 / 1, 8192 / 2048)
    assert big.resources == (("memory_mb", 16384.0), ("vcores", 24.0))


@pytest.mark.parametrize("kind", ["res", "slots-with-locality"])
@pytest.mark.parametrize("seed", range(3))
def test_fifo_resuming_its_walk_makes_the_same_decisions_as_restarting_at_the_head(seed, kind):
    from mrsim.schedulers.fifo import FifoScheduler

    class RestartAtHead(FifoScheduler):
        """The literal JobQueueTaskScheduler walk: from the head of the queue after every launch."""

        resume_walk = False

    if kind == "res":
        cluster = cluster_from_mapping(RES, "res")
        w = decorate(random_workload(40 + seed, jobs=30), seed, (), True)
    else:
        from mrsim.model.cluster import uniform_cluster

        cluster = uniform_cluster(6, 3, 1, racks=2)
        base = random_workload(40 + seed, jobs=30)
        hosts = [f"/rack{r:02d}/node{n:04d}" for r, n in ((1, 1), (1, 2), (2, 4), (2, 6))]
        rng = np.random.default_rng(seed)
        w = Workload.of([t.with_changes(map_locations=tuple((hosts[int(rng.integers(0, 4))],) for _ in range(t.n_maps)))
                         for t in base.jobs], source="loc")
    tables = []
    for scheduler in (FifoScheduler(), RestartAtHead()):
        r = replay(w, cluster, HadoopConf(), scheduler,
                   ReplayOptions(heartbeat_interval_s=1.0, check_invariants=True, seed=seed))
        tables.append(r.tasks.sort_values(["job_id", "type", "task"]).reset_index(drop=True))
    assert tables[0].equals(tables[1])
