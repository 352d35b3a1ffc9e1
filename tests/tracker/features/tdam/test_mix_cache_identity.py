"""The engine's shortcuts change no result: the mix cache (solved mixes shared across nodes and epochs, keyed by
the canonical mix) against solving every epoch afresh, and lazily published predictions (FIFO) against
publishing at every epoch, on seeded random workloads with six-plus demand shapes, kills included."""

from __future__ import annotations

import pytest

from mrsim.tracker.features.contention import ContentionFeature
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.replay import ReplayOptions
from mrsim.tracker.results import collect_result
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.schedulers.fifo import FifoScheduler
from tests.tracker.features.tdam.test_invariants import KillingFifo, mixed_cluster, random_workload


def run(workload, scheduler, interval, cache_mixes=True):
    jt = JobTracker(workload, mixed_cluster(), HadoopConf(), scheduler, heartbeat_interval=interval, seed=1)
    model = ContentionFeature(cache_mixes=cache_mixes)
    jt.attach(model)
    jt.run(jt.check_invariants)
    return model, collect_result(jt, ReplayOptions(heartbeat_interval_s=interval, seed=1), 0.0)


@pytest.mark.parametrize("seed,interval", [(11, None), (12, 0.0), (13, 2.0)])
def test_results_identical_with_and_without_the_mix_cache(seed, interval):
    w = random_workload(seed, jobs=30)
    cached_jt, cached = run(w, create_scheduler("fifo"), interval)
    fresh_jt, fresh = run(w, create_scheduler("fifo"), interval, cache_mixes=False)
    assert cached.tasks.equals(fresh.tasks) and cached.jobs.equals(fresh.jobs)
    hits = cached_jt.contention_stats()["hits"]
    assert hits > 0 and fresh_jt.contention_stats()["hits"] == 0  # the cache was used, and then not at all
    assert fresh_jt.contention_stats()["solves"] > cached_jt.contention_stats()["solves"]


class EagerFifo(FifoScheduler):
    name = "eager-fifo"
    reads_task_predictions = True


class EagerKillingFifo(KillingFifo):
    name = "eager-killing-fifo"
    reads_task_predictions = True


@pytest.mark.parametrize("interval", [0.0, 1.5])
@pytest.mark.parametrize("lazy,eager", [(FifoScheduler, EagerFifo), (KillingFifo, EagerKillingFifo)])
def test_lazy_predictions_equal_eager_ones(interval, lazy, eager):
    # FIFO reads no running task's predicted finish, so the engine publishes them only before a kill; the
    # schedule (kills included: the victim is chosen among tasks whose finish lies ahead) must not change.
    w = random_workload(21, jobs=30)
    _, a = run(w, lazy(), interval)
    _, b = run(w, eager(), interval)
    assert a.tasks.equals(b.tasks) and a.jobs.equals(b.jobs)
