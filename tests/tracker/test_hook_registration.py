"""Hook registration (``mrsim/tracker/hooks.py``, docs/architecture.md "The engine's hooks"): one API sets every
hook, a single-owner hook has one owner, each hook is called one way, and the kernel has one dispatch table."""

from __future__ import annotations

import pytest

from mrsim.tracker.events import EV_HEARTBEAT, EV_JOB_ARRIVAL, EV_TASK_DONE, EV_TIMER
from mrsim.tracker.features.overheads import JobOverheadsFeature
from mrsim.tracker.hooks import (LISTS, SINGLE_OWNER, CallAssign, CallAux, CallFinishModel, CallHeartbeat,
                                 CallLaunched, FeatureHook, HookClaimError, TaskAssigner)
from mrsim.tracker.jobtracker import (BoundedHeartbeats, Heartbeats, JobArrivals, JobTracker, TaskCompletions,
                                      Timers)
from mrsim.tracker.kernel import UNREGISTERED, CallEnd, CallHandler, EventSink, Kernel
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from tests.tracker.helpers import job, one_node


def engine(**kw) -> JobTracker:
    workload = Workload.of([job("j", 0.0, maps=[5.0, 5.0], reduces=[3.0])], source="test")
    return JobTracker(workload, one_node(1, 1), HadoopConf(), create_scheduler("fifo"), **kw)


class Pick:
    def attach(self, jt: JobTracker) -> None:
        jt.register(self, pick_task=lambda job, tracker, reduce, locality: -1)


class OtherPick:
    def attach(self, jt: JobTracker) -> None:
        jt.register(self, pick_task=lambda job, tracker, reduce, locality: -1)


def test_the_hook_names_are_the_engines_attributes_and_28_in_all():
    jt = engine()
    assert not SINGLE_OWNER & LISTS
    assert len(SINGLE_OWNER) == 17 and len(LISTS) == 12  # 16 overrides of the core, and the scheduler's heartbeat
    for name in SINGLE_OWNER | LISTS:
        assert hasattr(jt, name), name
    for name in LISTS:
        assert getattr(jt, name) == [], name


def test_a_second_claim_on_a_single_owner_hook_names_both_features():
    jt = engine()
    jt.attach(Pick())
    with pytest.raises(HookClaimError, match=r"'pick_task' is claimed by Pick and by OtherPick"):
        jt.attach(OtherPick())


@pytest.mark.parametrize("name", sorted(SINGLE_OWNER))
def test_every_single_owner_hook_refuses_a_second_owner(name: str):
    jt = engine()
    jt.register("first", **{name: lambda *args: None})
    with pytest.raises(HookClaimError, match=f"'{name}' is claimed by first and by second"):
        jt.register("second", **{name: lambda *args: None})


def test_a_feature_cannot_claim_the_heartbeat_a_plug_in_registered():
    jt = engine()
    jt.scheduler.start(jt)  # FIFO registers its compiled heartbeat (FifoCore) as the engine's assign_tasks
    assert jt.hook_owners["assign_tasks"] == "FifoScheduler" and isinstance(jt.assign_tasks, TaskAssigner)
    with pytest.raises(HookClaimError, match="claimed by FifoScheduler and by a feature"):
        jt.register("a feature", assign_tasks=lambda tracker: 0)


def test_the_job_overheads_feature_and_another_apply_aux_owner_collide():
    workload = Workload.of([job("j", 0.0, maps=[5.0], extra={"setup_s": 1.0, "cleanup_s": 1.0})], source="test")
    jt = JobTracker(workload, one_node(1, 1), HadoopConf(), create_scheduler("fifo"))
    jt.register("a container model", apply_aux=lambda tracker, code, now: None)
    with pytest.raises(HookClaimError, match="claimed by a container model and by JobOverheadsFeature"):
        jt.attach(JobOverheadsFeature())


def test_list_hooks_take_any_number_of_owners_in_registration_order():
    jt = engine()
    calls: list[str] = []
    jt.register("a", on_job_done=lambda job: calls.append("a"))
    jt.register("b", on_job_done=lambda job: calls.append("b"))
    jt.run()
    assert calls == ["a", "b"]


def test_an_unknown_hook_is_an_error_naming_the_feature():
    with pytest.raises(ValueError, match="Pick registers an unknown hook 'on_lunch'"):
        engine().register(Pick(), on_lunch=print)


def test_plain_functions_on_object_hooks_sit_behind_their_adapters_and_objects_are_kept():
    jt = engine()
    fn = print
    jt.register("f", on_launch=fn, on_heartbeat=fn, finish_model=fn, apply_aux=fn, after_event=fn)
    assert isinstance(jt.on_launch[0], CallLaunched) and jt.on_launch[0].call is fn
    assert isinstance(jt.on_heartbeat[0], CallHeartbeat) and isinstance(jt.finish_model, CallFinishModel)
    assert isinstance(jt.apply_aux, CallAux) and isinstance(jt.after_event[0], CallEnd)
    hook, sink = FeatureHook(), EventSink()
    jt.register("o", on_launch=hook, after_event=sink)
    assert jt.on_launch[1] is hook and jt.after_event[1] is sink


def test_a_plug_in_without_a_compiled_heartbeat_is_called_through_its_assign_tasks():
    workload = Workload.of([job("j", 0.0, maps=[5.0])], source="test")
    jt = JobTracker(workload, one_node(1, 1), HadoopConf(), create_scheduler("fair"))
    jt.run()
    assert "assign_tasks" not in jt.hook_owners and isinstance(jt.assign_tasks, CallAssign)
    assert jt.jobs_done == 1


def test_the_core_kinds_are_table_entries_calling_one_handler_each():
    jt = engine()
    jt.run()
    table = jt.kernel.handlers
    assert [type(table[kind]) for kind in (EV_JOB_ARRIVAL, EV_TASK_DONE, EV_HEARTBEAT, EV_TIMER)] == [
        JobArrivals, TaskCompletions, Heartbeats, Timers]
    big = engine(bounded_wakes=True)
    big.run()
    assert type(big.kernel.handlers[EV_HEARTBEAT]) is BoundedHeartbeats


def test_the_kernel_table_holds_sinks_and_wraps_functions():
    k = Kernel()
    seen: list[tuple[int, float, int, int, int]] = []
    # an EventSink given as it is (compiled classes take no interpreted subclass: CallHandler stands for one)
    sink = CallHandler(lambda now, order, a, b: seen.append((1, now, order, a, b)))
    k.register(2, sink)
    k.register(5, sink)  # one object may handle several kinds
    k.register(0, lambda now, order, a, b: seen.append((0, now, order, a, b)))
    assert k.handlers[2] is sink and k.handlers[5] is sink and isinstance(k.handlers[0], CallHandler)
    assert k.handlers[1] is UNREGISTERED
    k.schedule(1.0, 0, 5, 7, 8)
    k.schedule(0.5, 0, 2, 1, 2)
    k.schedule(0.5, 1, 0, 3, 4)
    k.run()
    assert seen == [(1, 0.5, 0, 1, 2), (0, 0.5, 1, 3, 4), (1, 1.0, 0, 7, 8)]
    with pytest.raises(ValueError, match="already has a handler"):
        k.register(5, sink)


def test_yarn_mode_registers_one_compiled_handler_per_resource_manager_kind():
    from mrsim.tracker.yarn import YarnConf, create_yarn_scheduler
    from mrsim.tracker.yarn.replay import yarn_jobtracker
    from mrsim.tracker.yarn.rm import AmAllocates, AmCommits, AmStarts, ContainerExits, NodeHeartbeats, ResourceManager
    from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
    from mrsim.model.cluster import uniform_cluster

    workload = facebook_like_workload(FacebookLikeSpec(jobs=4, seed=5, mean_interarrival_s=2.0))
    cluster = uniform_cluster(2, 1, 1, cores=4)
    rm = ResourceManager(workload, cluster, YarnConf(nm_memory_mb=3072.0, nm_vcores=3.0, am_mb=1024.0),
                         create_yarn_scheduler("fair"), seed=5)
    jt = yarn_jobtracker(rm, workload, cluster, 5)
    table = jt.kernel.handlers
    assert [type(table[kind]) for kind in (rm.ev_exit, rm.ev_am_start, rm.ev_allocate, rm.ev_commit)] == [
        ContainerExits, AmStarts, AmAllocates, AmCommits]
    assert jt.apply_aux is rm.node_calls and isinstance(rm.node_calls, NodeHeartbeats)
    assert jt.hook_owners["apply_aux"] == jt.hook_owners["hold_job_start"] == "ResourceManager"
