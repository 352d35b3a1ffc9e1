"""Hadoop 1 memory-based scheduling (mrsim.model.memory_slots): hand-computed timelines and the conf rules."""

from __future__ import annotations

from mrsim.model.memory_slots import cluster_slot_mb, slots_per_task
from tests.tracker.helpers import job, one_node, run, starts, finishes

SLOT = {"mapreduce.cluster.mapmemory.mb": "1536", "mapreduce.cluster.reducememory.mb": "4096"}
HIGH = {**SLOT, "mapreduce.map.memory.mb": "2048", "mapreduce.reduce.memory.mb": "4096"}
NORMAL = {**SLOT, "mapreduce.map.memory.mb": "1536", "mapreduce.reduce.memory.mb": "4096"}


def test_two_slot_maps_run_two_at_a_time_on_four_slots():
    # ceil(2048 / 1536) = 2 slots per map; 4 map slots -> 2 maps at once: waves at 0 and 10 s.
    result = run([job("a", 0.0, maps=[10.0] * 4, extra={"properties": HIGH})], one_node(4, 1))
    assert starts(result, "a") == [0.0, 0.0, 10.0, 10.0]
    assert finishes(result, "a") == [10.0, 10.0, 20.0, 20.0]
    assert result.spec["memory_slots"]["jobs"] == [{"job_id": "a", "slots_per_map": 2, "slots_per_reduce": 1}]


def test_one_slot_maps_fill_the_tracker():
    result = run([job("a", 0.0, maps=[10.0] * 4, extra={"properties": NORMAL})], one_node(4, 1))
    assert starts(result, "a") == [0.0, 0.0, 0.0, 0.0]
    assert result.spec["memory_slots"]["jobs"] == []


def test_free_slots_left_by_a_wide_job_go_to_the_next_job():
    # a: 3 two-slot maps; b: 2 one-slot maps of 5 s. t=0: a takes 2 maps (4 slots). t=10: a's third map takes 2
    # slots, b's maps the other 2 (10-15).
    result = run([job("a", 0.0, maps=[10.0] * 3, extra={"properties": HIGH}),
                  job("b", 0.0, maps=[5.0] * 2, extra={"properties": NORMAL})], one_node(4, 1))
    assert starts(result, "a") == [0.0, 0.0, 10.0]
    assert starts(result, "b") == [10.0, 10.0]
    assert finishes(result, "b") == [15.0, 15.0]


def test_without_memory_keys_nothing_changes():
    result = run([job("a", 0.0, maps=[10.0] * 4)], one_node(4, 1))
    assert starts(result, "a") == [0.0, 0.0, 0.0, 0.0]
    assert "memory_slots" not in result.spec


def test_slots_per_task_rounds_up_and_defaults_to_one():
    assert slots_per_task(HIGH, "map", 1536.0) == 2
    assert slots_per_task(NORMAL, "map", 1536.0) == 1
    assert slots_per_task({"mapred.job.map.memory.mb": "4096"}, "map", 1536.0) == 3
    assert slots_per_task(HIGH, "map", None) == 1  # memory-based scheduling off (Hadoop's default -1)
    assert slots_per_task({}, "map", 1536.0) == 1


def test_cluster_slot_memory_ignores_confs_the_cluster_could_not_have_admitted():
    # A Gridmix job's conf copied from another cluster: slot 800 MB, asks 2048 MB above its own maximum 1024 MB.
    copied = {"mapreduce.cluster.mapmemory.mb": "800", "mapreduce.map.memory.mb": "2048",
              "mapreduce.jobtracker.maxmapmemory.mb": "1024"}
    native = {**NORMAL, "mapreduce.jobtracker.maxmapmemory.mb": "6144"}
    assert cluster_slot_mb([copied, native], "map") == 1536.0
    assert cluster_slot_mb([copied], "map") is None
    assert cluster_slot_mb([{}], "map") is None


def test_inferred_slots_count_the_slots_high_ram_attempts_held():
    from mrsim.profiler.topology_infer import SlotUsage

    def logged(job_id, props, windows):
        tasks = [{"taskType": "MAP", "attempts": [{"hostName": "/r1/h1", "startTime": s, "finishTime": f}]}
                 for s, f in windows]
        return {"jobID": job_id, "jobProperties": props, "mapTasks": tasks, "reduceTasks": []}

    usage = SlotUsage()
    # Two 2-slot maps at once on h1: 4 slots held, not 2 (the engine then runs 2 at once again).
    usage.add_job(logged("job_1", HIGH, [(1000, 2000), (1000, 2000)]))
    assert [h.map_slots for h in usage.hosts()] == [4]
    plain = SlotUsage()
    plain.add_job(logged("job_1", {}, [(1000, 2000), (1000, 2000)]))
    assert [h.map_slots for h in plain.hosts()] == [2]


def test_memory_slots_off_counts_one_slot_per_task():
    # --memory-slots off: the same 2-slot maps as above fill the 4 slots at once (the engine before the feature).
    result = run([job("a", 0.0, maps=[10.0] * 4, extra={"properties": HIGH})], one_node(4, 1), memory_slots=False)
    assert starts(result, "a") == [0.0, 0.0, 0.0, 0.0]
    assert finishes(result, "a") == [10.0, 10.0, 10.0, 10.0]
    assert "memory_slots" not in result.spec


def test_memory_slots_off_infers_one_slot_per_attempt():
    from mrsim.profiler.store import merge_hosts
    from mrsim.profiler.topology_infer import SlotUsage, cluster_from_hosts

    usage = SlotUsage()
    usage.add_job({"jobID": "job_1", "jobProperties": HIGH, "reduceTasks": [],
                   "mapTasks": [{"taskType": "MAP", "attempts": [{"hostName": "/r1/h1", "startTime": 1000,
                                                                  "finishTime": 2000}]} for _ in range(2)]})
    hosts = [h.as_dict() for h in usage.hosts()]
    assert hosts[0]["map_slots"] == 4 and hosts[0]["map_tasks"] == 2  # 2 attempts of 2 slots each
    assert [t.map_slots for t in cluster_from_hosts(hosts).trackers] == [4]
    assert [t.map_slots for t in cluster_from_hosts(hosts, memory_slots=False).trackers] == [2]
    # A store keeps both (merged by maximum); hosts without high-RAM attempts carry neither key.
    merged = merge_hosts(hosts, [{"rack": "r1", "host": "h1", "map_slots": 3, "reduce_slots": 0, "attempts": 3}])
    assert merged is not None and merged[0]["map_slots"] == 4 and merged[0]["map_tasks"] == 3
