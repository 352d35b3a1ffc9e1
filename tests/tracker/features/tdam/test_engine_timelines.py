"""The Epochs algorithm end to end through the replay engine: hand-computable timelines (task mode)."""

from __future__ import annotations

import pytest

from mrsim.contention import EpochJob, NodeSpec, epochs
from mrsim.profiler.jobspec import load_jobspec
from mrsim.model.templates import JobTemplate
from tests.tracker.features.tdam.helpers import EXAMPLES, cluster, demand_job, finish, node, run, task_times


def test_table_5_1_through_the_engine():
    # Two single-task jobs on one node with one core and one disk (section 5.3): J1 (CPU 2 s, disk 4 s) at 0,
    # J2 (3 s, 5 s) at 3. Task mode launches each map at its job's arrival.
    r = run(load_jobspec(EXAMPLES / "table_5_1.toml"), cluster(node(2, cores=1)))
    j1, j2 = finish(r, "J1"), finish(r, "J2")
    assert round(j1, 2) == 7.69  # e(E_2) = 3 + 4.69
    assert round(j2, 2) == 12.68 and round(j2 - 3.0, 2) == 9.68  # unrounded 12.6751 / 9.6751
    # Table 5.1 adds rounded durations: 7.69 + 4.98 = 12.67 and 4.69 + 4.98 = 9.67.
    assert round(7.69 + round(j2 - j1, 2), 2) == 12.67 and round(round(j1 - 3.0, 2) + round(j2 - j1, 2), 2) == 9.67
    # And exactly what the literal Algorithm 7 gives for the same local stream.
    literal = epochs([EpochJob("J1", 0.0, (2.0, 4.0)), EpochJob("J2", 3.0, (3.0, 5.0))], NodeSpec(1, 1))
    assert (j1, j2) == pytest.approx(literal.end_times, rel=1e-9)
    assert r.summary["makespan_s"] == pytest.approx(12.675060, abs=1e-6)


def test_table_5_1_without_contention_uses_the_demand_totals():
    r = run(load_jobspec(EXAMPLES / "table_5_1.toml"), cluster(node(2, cores=1)), contention=None)
    assert (finish(r, "J1"), finish(r, "J2")) == (6.0, 11.0)


def test_ten_100s_cpu_tasks_on_one_core_take_1000s():
    # Tables 6.4-6.6, row 1 (section 6.6): ten concurrent 100-s CPU tasks on one core; 10 map slots.
    workload = load_jobspec(EXAMPLES / "ten_cpu_tasks_one_core.toml")
    one_core = cluster(node(10, cores=1))
    tdam = run(workload, one_core)
    plain = run(workload, one_core, contention=None)
    assert plain.summary["makespan_s"] == 100.0  # the trace's view: every task alone
    assert tdam.summary["makespan_s"] == pytest.approx(1000.0, rel=1e-9)
    assert all(s == 0.0 and f == pytest.approx(1000.0, rel=1e-9) for s, f in task_times(tdam, "type1"))


def test_ten_tasks_in_heartbeat_mode_start_on_the_grid():
    # Same job with 3-s heartbeats (phase 0): the JobTracker launches all ten at the heartbeat at 0 and learns
    # of their shared end (1000 s) at the heartbeat at 1002.
    r = run(load_jobspec(EXAMPLES / "ten_cpu_tasks_one_core.toml"), cluster(node(10, cores=1)), interval=3.0)
    assert {s for s, _ in task_times(r, "type1")} == {0.0}
    assert finish(r, "type1") == pytest.approx(1002.0)


def test_slower_tasks_do_not_change_a_lone_task_and_speed_divides_demands():
    # Alone on an idle node a task takes the sum of its demands, divided by the node's speed.
    r = run([demand_job("a", 0.0, maps=[(6.0, 2.0)])], cluster(node(1, cores=4, speed=2.0)))
    assert finish(r, "a") == pytest.approx(4.0, rel=1e-12)


def test_missing_demands_fall_back_to_trace_durations_on_the_cpu_with_a_warning():
    job = JobTemplate("plain", 0.0, [30.0, 30.0], [])
    r = run([job], cluster(node(2, cores=2)))
    assert any("no service demands" in w and "plain" in w for w in r.warnings)
    # Two 30-s CPU tasks on two cores. Seidmann's 2-server CPU is a 15-s queue plus a 15-s delay, and
    # Bard-Schweitzer with N = 2 sees half of the queue: R = 15 (1 + Q/2), Q = 2R / (R + 15), so
    # R^2 - 15R - 225 = 0, R = 24.27 and each task takes 24.27 + 15 = 39.27 s (a true 2-server queue: 30 s).
    t = task_times(r, "plain")
    assert t[0][1] == t[1][1] == pytest.approx(15.0 + (15.0 + (225.0 + 900.0) ** 0.5) / 2.0, rel=1e-7)
    alone = run([JobTemplate("one", 0.0, [30.0], [])], cluster(node(2, cores=2)))
    assert finish(alone, "one") == pytest.approx(30.0, rel=1e-12)  # alone: exactly the trace duration


def test_typical_reduce_loads_the_node_only_after_its_shuffle():
    # slowstart 1.0: the reduce launches when the map stage is reported (t=10, task mode), shuffles 3 s
    # (typical, time-based), then needs 5 s of CPU alone: 13 -> 18.
    job = demand_job("j", 0.0, maps=[(10.0, 0.0)], reduces=[(5.0, 0.0)], typical=[3.0])
    r = run([job], cluster(node(1, cores=1)), slowstart=1.0)
    (start, end), = task_times(r, "j", "REDUCE")
    assert (start, end) == (10.0, 18.0)
    assert r.tasks[r.tasks.type == "REDUCE"].shuffle_end_s.iloc[0] == 13.0


def test_first_wave_filler_does_not_slow_the_maps():
    # slowstart 0: the reduce is a first-wave filler from t=0 but loads the node only after the map stage plus
    # its first-shuffle (2 s). Two 10-s CPU maps share the one core: both end at 20, not later; the reduce
    # (5 s CPU) then runs alone 22 -> 27.
    job = demand_job("j", 0.0, maps=[(10.0, 0.0), (10.0, 0.0)], reduces=[(5.0, 0.0)], first=[2.0])
    r = run([job], cluster(node(2, cores=1)), slowstart=0.0)
    assert [f for _, f in task_times(r, "j")] == pytest.approx([20.0, 20.0], rel=1e-12)
    assert task_times(r, "j", "REDUCE") == [(0.0, pytest.approx(27.0, rel=1e-12))]


def test_reduce_contends_with_a_later_map():
    # Job A's reduce (8 s CPU) runs alone from 0 (no maps: map stage done, no shuffle). Job B's map (8 s CPU)
    # arrives at 4 on the same one-core node. Two one-job classes at one queue: Schweitzer gives each
    # R = 2 D, i.e. half the core each. A's last 4 s take 8: A ends at 12; B has done 4 s by then and runs
    # its last 4 s alone: 16.
    a = demand_job("A", 0.0, reduces=[(8.0, 0.0)])
    b = demand_job("B", 4.0, maps=[(8.0, 0.0)])
    r = run([a, b], cluster(node(1, cores=1, reduce_slots=1)))
    assert finish(r, "A") == pytest.approx(12.0, rel=1e-12)
    assert finish(r, "B") == pytest.approx(16.0, rel=1e-12)


def test_failed_launch_requests_return_falsy_and_launch_nothing():
    from mrsim.tracker.scheduling import Locality
    from mrsim.schedulers.fifo import FifoScheduler

    class Probing(FifoScheduler):
        name = "probing"
        probes: list = []

        def assign_tasks(self, tracker):
            for job in list(self.map_queue):
                # No split locations: node-local-only and non-local-only requests get nothing.
                self.probes.append(self.jt.obtain_new_map_task(job, tracker, Locality.NODE))
                self.probes.append(self.jt.obtain_new_map_task(job, tracker, Locality.NON_LOCAL))
            return super().assign_tasks(tracker)

    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload

    sched = Probing()
    r = replay(Workload.of([demand_job("j", 0.0, maps=[(4.0, 0.0)] * 2)]), cluster(node(1, cores=1)), HadoopConf(),
               sched, ReplayOptions(heartbeat_interval_s=0.0, contention="tdam", check_invariants=True))
    assert sched.probes and not any(sched.probes)
    assert task_times(r, "j") == [(0.0, 4.0), (4.0, 8.0)]


def test_locality_picks_the_map_and_its_slowdown_scales_the_demand():
    # Two maps whose splits live on n2 and n1; one map slot on each node. With locality on, n1 takes map 1
    # (node-local) and n2 takes map 0. The rack-local factor never applies: both run node-local, 10 s each.
    # A third map with its split on an unknown host runs rack-local on whichever node frees first: x2 = 20 s.
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload

    locs = (("/default-rack/n2",), ("/default-rack/n1",), ("/default-rack/elsewhere",))
    job = demand_job("j", 0.0, maps=[(10.0, 0.0)] * 3, map_locations=locs)
    r = replay(Workload.of([job]), cluster(node(1, cores=1), node(1, cores=1, name="n2")), HadoopConf(),
               create_scheduler_fifo(), ReplayOptions(heartbeat_interval_s=0.0, contention="tdam", check_invariants=True,
                                                      locality="on", rack_local_slowdown=2.0))
    t = r.tasks.sort_values("task")
    assert t.tracker.tolist()[:2] == ["n2", "n1"]
    assert (t.finish_s - t.start_s).round(9).tolist() == [10.0, 10.0, 20.0]


def create_scheduler_fifo():
    from mrsim.tracker.scheduling import create_scheduler

    return create_scheduler("fifo")
