"""The resources feature (``mrsim/tracker/features/resources.py``) on the engine's hooks: which hooks it sets on which
cluster, what the JobTracker's plug-in API delegates to it, where in a job's arrival its requests are resolved, and
hand-computed timelines with and without it (task mode, one node, FIFO)."""

from __future__ import annotations

from mrsim.tracker.features.resources import ResourcesFeature
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from tests.tracker.helpers import job, one_node

SLOT = {"mapreduce.cluster.mapmemory.mb": "1536", "mapreduce.cluster.reducememory.mb": "4096"}
HIGH = {**SLOT, "mapreduce.map.memory.mb": "2048", "mapreduce.reduce.memory.mb": "4096"}  # 2 slots per map


def engine(jobs, cluster: ClusterSpec) -> JobTracker:
    return JobTracker(Workload.of(jobs, source="test"), cluster, HadoopConf(slowstart_completed_maps=0.05),
                      create_scheduler("fifo"), heartbeat_interval=0.0, aligned_heartbeats=True)


def map_starts(jt: JobTracker, index: int = 0) -> list[float]:
    return list(jt.jobs[index].map_start)


def resource_node(vcores: float, memory_mb: float, **kw) -> TrackerSpec:
    return TrackerSpec("n", resources=(("memory_mb", float(memory_mb)), ("vcores", float(vcores))), **kw)


def test_a_slot_cluster_with_one_slot_tasks_gets_no_hook():
    jt = engine([job("a", 0.0, maps=[10.0] * 4)], one_node(4, 1))
    feature = ResourcesFeature()
    jt.attach(feature)
    assert (jt.task_fits, jt.fits_request, jt.hold_resources, jt.release_resources) == (None, None, None, None)
    assert jt.on_job_setup == [] and jt.on_launch == []
    assert jt.fits(jt.trackers[0], (1e12,))  # no resource vectors: every request fits, slots alone decide
    jt.run(jt.check_invariants)
    assert map_starts(jt) == [0.0, 0.0, 0.0, 0.0]
    assert feature.describe_run() is None  # no slot memory in the confs: the --json spec has no memory_slots


def test_high_ram_maps_set_only_the_fit_check_and_take_two_slots():
    # ceil(2048 / 1536) = 2 slots per map on 4 map slots: two maps at a time, waves at 0 and 10 s.
    jt = engine([job("a", 0.0, maps=[10.0] * 4, extra={"properties": HIGH})], one_node(4, 1))
    feature = ResourcesFeature()
    jt.attach(feature)
    assert jt.task_fits is not None
    assert (jt.fits_request, jt.hold_resources, jt.release_resources) == (None, None, None)
    assert (jt.jobs[0].map_width, jt.jobs[0].reduce_width) == (2, 1)
    jt.run(jt.check_invariants)
    assert map_starts(jt) == [0.0, 0.0, 10.0, 10.0]
    key, spec, summary = feature.describe_run()
    assert key == "memory_slots" and summary == {}
    assert spec == {"map_slot_mb": 1536.0, "reduce_slot_mb": 4096.0,
                    "jobs": [{"job_id": "a", "slots_per_map": 2, "slots_per_reduce": 1}]}


def test_memory_slots_off_and_an_engine_without_the_feature_give_one_slot_per_task():
    jobs = [job("a", 0.0, maps=[10.0] * 4, extra={"properties": HIGH})]
    off = engine(jobs, one_node(4, 1))
    feature = ResourcesFeature(memory_slots=False)
    off.attach(feature)
    assert off.task_fits is None and feature.describe_run() is None
    off.run(off.check_invariants)
    bare = engine(jobs, one_node(4, 1))
    bare.run(bare.check_invariants)
    assert map_starts(off) == map_starts(bare) == [0.0, 0.0, 0.0, 0.0]


def test_on_a_resource_cluster_every_hook_is_set_and_fits_delegates_to_the_feature():
    # 2 vcores / 2048 MB, maps of 1 vcore / 1024 MB: two at a time although the node has 4 map slots.
    jt = engine([job("a", 0.0, maps=[10.0] * 4, extra={"map_request": {"vcores": 1, "memory_mb": 1024}})],
                ClusterSpec((resource_node(2, 2048, map_slots=4, reduce_slots=1),)))
    feature = ResourcesFeature()
    jt.attach(feature)
    assert None not in (jt.task_fits, jt.fits_request, jt.hold_resources, jt.release_resources)
    assert [hook.call for hook in jt.on_launch] == [feature._launched]  # a plain function behind its adapter
    assert jt.on_job_setup == [feature._resolve_requests]
    tracker = jt.trackers[0]
    assert tracker.capacity == (2048.0, 2.0) and tracker.free == [2048.0, 2.0]  # resource_names order
    assert jt.fits(tracker, (2048.0, 2.0)) and not jt.fits(tracker, (2048.0, 2.5))
    jt.run(jt.check_invariants)
    assert jt.jobs[0].map_req == (1024.0, 1.0) and jt.jobs[0].reduce_req is None  # no reduces: no request
    assert map_starts(jt) == [0.0, 0.0, 10.0, 10.0]
    assert tracker.free == [2048.0, 2.0]  # all given back (an idle node is reset to its capacity)


def test_requests_are_resolved_after_the_arrival_hooks_and_before_the_job_may_be_held():
    seen: list[tuple[str, object]] = []

    class Probe:
        def attach(self, jt: JobTracker) -> None:
            jt.register(self, on_job_arrival=lambda job: seen.append(("arrival", job.map_req)),
                        on_job_setup=lambda job: seen.append(("setup", job.map_req)), hold_job_start=self.hold)

        def hold(self, job, now: float) -> bool:
            seen.append(("hold", job.map_req))
            return False  # RUNNING now

    jt = engine([job("a", 0.0, maps=[1.0], extra={"map_request": {"memory_mb": 512}})],
                ClusterSpec((resource_node(1, 1024, map_slots=1, reduce_slots=1),)))
    jt.attach(ResourcesFeature())  # first, as mrsim/tracker/replay.py attaches it
    jt.attach(Probe())
    jt.run(jt.check_invariants)
    assert seen == [("arrival", None), ("setup", (512.0, 1.0)), ("hold", (512.0, 1.0))]
