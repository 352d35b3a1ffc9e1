"""YARN mode runs with the cyclic collector off (``mrsim/io/gc_policy.py``): that is safe only if a replay makes
no garbage cycle per event or per job, which these tests check, and only if the collector's state comes back."""

from __future__ import annotations

import gc

import pytest

from mrsim.io.gc_policy import yarn_gc
from mrsim.tracker.yarn import YarnConf, create_yarn_scheduler, replay_yarn
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster


def test_yarn_gc_turns_the_collector_off_and_restores_it() -> None:
    assert gc.isenabled()
    with yarn_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with yarn_gc():
            raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with yarn_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


def _garbage_cycles(jobs: int, scheduler: str) -> int:
    """Objects in unreachable cycles a replay of ``jobs`` jobs leaves while its result is alive."""
    workload = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=3, mean_interarrival_s=5.0))
    cluster = uniform_cluster(8, 1, 1, cores=4)
    conf = YarnConf(nm_memory_mb=3072.0, nm_vcores=3.0, am_mb=1024.0)
    gc.collect()
    gc.disable()
    try:
        result = replay_yarn(workload, cluster, conf, create_yarn_scheduler(scheduler), seed=3)
        found = gc.collect()
        assert result.summary["jobs"] == jobs
    finally:
        gc.enable()
    return found


@pytest.mark.parametrize("scheduler", ["capacity", "fair"])
def test_a_yarn_replay_makes_no_garbage_cycle_per_job(scheduler: str) -> None:
    # the few cycles a replay leaves (set-up) do not grow with the workload: nothing accumulates while the
    # collector is off
    small, large = _garbage_cycles(10, scheduler), _garbage_cycles(60, scheduler)
    assert large <= small + 50, (small, large)
