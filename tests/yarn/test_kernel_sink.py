"""YARN mode's events reach the ResourceManager by the kernel's feature sink (``Kernel.add_sink``,
``ResourceManager.handle``): the same results as the handlers registered in the kernel's table, which a kernel
without the sink calls."""

from __future__ import annotations

import pytest

from mrsim.tracker.gc_policy import yarn_gc
from mrsim.tracker.kernel import EventSink, Kernel
from mrsim.tracker.yarn import YarnConf, create_yarn_scheduler
from mrsim.tracker.yarn.replay import collect_yarn_result, yarn_jobtracker
from mrsim.tracker.yarn.rm import ResourceManager
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster


def _replay(scheduler: str, sink: bool) -> tuple[list, list, int]:
    workload = facebook_like_workload(FacebookLikeSpec(jobs=40, seed=5, mean_interarrival_s=2.0))
    cluster = uniform_cluster(6, 1, 1, cores=4)
    rm = ResourceManager(workload, cluster, YarnConf(nm_memory_mb=3072.0, nm_vcores=3.0, am_mb=1024.0),
                         create_yarn_scheduler(scheduler), seed=5)
    jt = yarn_jobtracker(rm, workload, cluster, 5)
    kinds = (rm.ev_exit, rm.ev_am_start, rm.ev_allocate, rm.ev_commit)
    assert jt.kernel.feature_sink is rm
    assert (jt.kernel.feature_lo, jt.kernel.feature_hi) == (min(kinds), max(kinds) + 1)
    if not sink:
        jt.kernel.feature_sink = None  # the run loop calls the registered handlers instead
    with yarn_gc():
        jt.run(None)
    rm.finish()
    result = collect_yarn_result(rm, 1.0, 5, "auto", True, ())
    # repr: NaN (no deadline, no shuffle end for maps) never compares equal
    jobs = [list(map(repr, values)) for values in result.job_columns.values()]
    tasks = [list(map(repr, values)) for values in result.task_columns.values()]
    return jobs, tasks, rm.kernel.events


@pytest.mark.parametrize("scheduler", ["capacity", "fair"])
def test_the_feature_sink_gives_the_registered_handlers_results(scheduler: str) -> None:
    assert _replay(scheduler, True) == _replay(scheduler, False)


def test_one_feature_sink_per_kernel() -> None:
    kernel = Kernel()
    sink = EventSink()  # add_sink only stores it
    kernel.add_sink(5, 9, sink)
    assert kernel.feature_sink is sink and (kernel.feature_lo, kernel.feature_hi) == (5, 9)
    with pytest.raises(ValueError, match="already has a feature sink"):
        kernel.add_sink(9, 10, sink)
