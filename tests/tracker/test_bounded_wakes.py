"""Bounded wake-ups (``mrsim/tracker/wakeups.py``) give the reference policy's schedule (every parked tracker with a
free slot woken at once): seeded random and hypothesis-drawn workloads, FIFO, Fair and Capacity, clusters large
enough that most trackers stay parked; invariants after every event. Fewer events is checked, never time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mrsim.tracker.events import ORDER_HEARTBEAT
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.tracker.wakeups import BoundedWakes, grid_index_after
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion
from mrsim.model.templates import JobTemplate, Priority, Workload
from tests.tracker.helpers import random_workload

ENGINE_WORK = ("events", "heartbeats", "wall_s", "events_per_s")


def _json_without_engine_work(result) -> dict:  # type: ignore[no-untyped-def]
    doc = result.to_json_dict()
    doc["summary"] = {k: v for k, v in doc["summary"].items() if k not in ENGINE_WORK}
    # The Fair Scheduler's count of lazy update() calls follows the number of heartbeats it is offered.
    doc["spec"] = dict(doc["spec"], scheduler={k: v for k, v in doc["spec"]["scheduler"].items() if k != "updates"})
    return doc


def _both(workload, cluster, conf, scheduler, config=None, **options):  # type: ignore[no-untyped-def]
    bounded = replay(workload, cluster, conf, create_scheduler(scheduler, config),
                     ReplayOptions(bounded_wakes=True, **options))
    reference = replay(workload, cluster, conf, create_scheduler(scheduler, config),
                       ReplayOptions(bounded_wakes=False, **options))
    return bounded, reference


def _assert_same(bounded, reference) -> None:  # type: ignore[no-untyped-def]
    assert bounded.tasks.equals(reference.tasks)
    assert bounded.jobs.equals(reference.jobs)
    assert _json_without_engine_work(bounded) == _json_without_engine_work(reference)
    assert bounded.summary["events"] <= reference.summary["events"]


def _sparse_workload(seed: int, jobs: int, gap: float) -> Workload:
    """Small jobs far apart on a big cluster: the case where waking every idle tracker costs the most."""
    rng = np.random.default_rng(seed)
    out, t = [], 0.0
    for j in range(jobs):
        t += float(rng.exponential(gap))
        m, r = int(rng.integers(1, 12)), int(rng.integers(0, 4))
        out.append(JobTemplate(job_id=f"job_{j:04d}", submit_s=t, map_durations=rng.lognormal(2.0, 1.0, m),
                               reduce_durations=rng.lognormal(1.5, 1.0, r), typical_shuffle_durations=rng.uniform(0, 3, 2),
                               first_shuffle_durations=rng.uniform(0, 2, 1), priority=Priority(int(rng.integers(0, 5))),
                               user=f"u{j % 3}", queue="default"))
    return Workload.of(out, source=f"sparse seed {seed}")


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
@pytest.mark.parametrize("seed", range(4))
def test_bounded_wakes_give_the_reference_schedule(scheduler, seed):
    w = random_workload(300 + seed, jobs=30)
    conf = HadoopConf(version=HadoopVersion.parse("1.2" if seed % 2 else "0.20"),
                      slowstart_completed_maps=[0.0, 0.05, 0.5, 1.0][seed])
    bounded, reference = _both(w, uniform_cluster(40 + 20 * seed, 2, 1 + seed % 2), conf, scheduler,
                               seed=seed, check_invariants=True)
    _assert_same(bounded, reference)


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
def test_bounded_wakes_save_most_heartbeats_on_a_large_idle_cluster(scheduler):
    w = _sparse_workload(7, jobs=40, gap=20.0)
    bounded, reference = _both(w, uniform_cluster(400, 1, 1), HadoopConf(), scheduler, seed=3)
    _assert_same(bounded, reference)
    # The reference wakes all ~400 idle trackers per arrival; the bounded policy about one per task.
    assert bounded.summary["events"] * 5 < reference.summary["events"]
    if scheduler != "fair":  # Fair's trackers also poll while its lazily updated demand catches up (request_heartbeat)
        assert bounded.summary["events"] < 5 * w.n_tasks


def test_aligned_phases_wake_ties_together():
    w = _sparse_workload(2, jobs=15, gap=10.0)
    bounded, reference = _both(w, uniform_cluster(30, 1, 1), HadoopConf(), "fifo", aligned_heartbeats=True,
                               check_invariants=True)
    _assert_same(bounded, reference)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), nodes=st.integers(1, 60), map_slots=st.integers(1, 3),
       reduce_slots=st.integers(1, 2), slowstart=st.sampled_from([0.0, 0.3, 1.0]),
       scheduler=st.sampled_from(["fifo", "fair", "capacity"]), gap=st.sampled_from([0.5, 5.0, 40.0]))
def test_bounded_wakes_equal_the_reference_on_drawn_workloads(seed, nodes, map_slots, reduce_slots, slowstart,
                                                               scheduler, gap):
    w = _sparse_workload(seed, jobs=12, gap=gap)
    bounded, reference = _both(w, uniform_cluster(nodes, map_slots, reduce_slots),
                               HadoopConf(slowstart_completed_maps=slowstart), scheduler, seed=seed,
                               check_invariants=True)
    _assert_same(bounded, reference)


def test_the_bounded_policy_applies_only_where_it_is_exact():
    w = _sparse_workload(1, jobs=3, gap=5.0)
    cluster = uniform_cluster(4, 1, 1)

    def engine(conf: HadoopConf = HadoopConf(), scheduler: str = "fifo", **kwargs) -> JobTracker:
        jt = JobTracker(w, cluster, conf, create_scheduler(scheduler), **kwargs)
        jt.scheduler.start(jt)
        return jt

    assert not BoundedWakes.applies(engine())  # the default: from 1,000 trackers on
    assert BoundedWakes.applies(engine(bounded_wakes=True))
    assert not BoundedWakes.applies(engine(naive_heartbeats=True, bounded_wakes=True))
    assert not BoundedWakes.applies(engine(heartbeat_interval=0.0, bounded_wakes=True))  # task mode
    assert not BoundedWakes.applies(engine(HadoopConf(outofband_heartbeat=True), bounded_wakes=True))  # phases move
    assert not BoundedWakes.applies(engine(scheduler="srpt", bounded_wakes=True))  # a plug-in that did not opt in
    jt = engine(bounded_wakes=True)
    jt.register("a heartbeat probe", on_heartbeat=lambda tracker: None)
    assert not BoundedWakes.applies(jt)


@pytest.mark.parametrize("phase,time,order,expected", [
    (0.25, 0.0, 0, 0), (0.25, 0.25, 1, 0), (0.25, 0.25, ORDER_HEARTBEAT + 3, 1), (0.25, 0.26, 0, 1),
    (0.0, 3.0, ORDER_HEARTBEAT + 3, 2), (0.0, 3.0, ORDER_HEARTBEAT + 2, 1), (0.1, 100.0, 0, 34),
])
def test_grid_index_after_is_the_first_grid_point_strictly_after_an_event(phase, time, order, expected):
    # tracker 3 (order ORDER_HEARTBEAT + 3), interval 3 s: grid points phase + 3k
    k = grid_index_after(phase, 3.0, ORDER_HEARTBEAT + 3, time, order)
    assert k == expected
    assert (phase + k * 3.0, ORDER_HEARTBEAT + 3) > (time, order)
    assert k == 0 or (phase + (k - 1) * 3.0, ORDER_HEARTBEAT + 3) <= (time, order)
    assert math.isfinite(phase + k * 3.0)


def test_bounded_wakes_on_a_synthetic_rumen_trace_with_launch_delays_and_failed_attempts(tmp_path):
    """``mrsim synth`` traces carry launch delays and failed attempts: those features leave heartbeats to the
    scheduler, so the bounded policy applies, and gives the reference schedule."""
    from mrsim.cli import main as cli
    from mrsim.profiler.workloads import load_workload

    trace = tmp_path / "s.json.gz"
    # 10 jobs (741 tasks) carry launch delays as 25 do; the naive reference on 300 trackers costs ~4x less.
    assert cli(["synth", "--jobs", "10", "--seed", "3", "--mean-interarrival", "10", "-o", str(trace), "--quiet"]) == 0
    w = load_workload(trace)
    assert any("launch_delay_s" in j.extra for j in w.jobs)
    bounded, reference = _both(w, uniform_cluster(300, 1, 1), HadoopConf(), "fifo", check_invariants=True)
    _assert_same(bounded, reference)
    assert bounded.summary["events"] < reference.summary["events"]  # the policy applied


def test_rank_set_finds_the_next_member_like_a_sorted_set():
    """RankSet (the parked trackers' bitmap) against a plain set: the smallest member in [pos, limit) after
    random adds and removes, across word boundaries and at both ends."""
    import random

    from mrsim.tracker.wakeups import RankSet

    rng = random.Random(5)
    for n in (1, 31, 32, 33, 64, 100, 1000):
        ranks = RankSet(n)
        members: set[int] = set()
        for _ in range(400):
            r = rng.randrange(n)
            if r in members and rng.random() < 0.5:
                ranks.remove(r)
                members.discard(r)
            elif r not in members:
                ranks.add(r)
                members.add(r)
            assert len(ranks) == len(members)
            assert all((r in ranks) == (r in members) for r in range(n))
            pos, limit = rng.randrange(n + 1), rng.randrange(n + 1)
            expected = min((r for r in members if pos <= r < limit), default=-1)
            assert ranks.first_from(pos, limit) == expected
        assert ranks.first_from(0, n) == min(members, default=-1)
