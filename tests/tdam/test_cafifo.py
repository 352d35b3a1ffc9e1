"""CA-FIFO (section 6.7, Algorithm 9): admission by predicted node utilization on oversubscribed nodes."""

from __future__ import annotations

import pytest

from mrsim.contention import NodeSpec, predicted_utilization
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate
from mrsim.schedulers.cafifo import DEFAULT_THRESHOLDS, parse_thresholds
from tests.tdam.helpers import cluster, demand_job, node, peak_concurrency, run

# Section 6.7.2's setting: 100-s CPU map tasks (no disk) on a 4-core TaskTracker with more map slots than cores.
CPU_TASKS = demand_job("ingest", 0.0, maps=[(100.0, 0.0)] * 20)


def cpu_limit(threshold: float, cores: int = 4) -> int:
    """How many 100-s CPU tasks keep the node's predicted CPU utilization below ``threshold``."""
    n = 0
    while predicted_utilization(NodeSpec(cores, 1), [((100.0, 0.0), n + 1)])[0] < threshold:
        n += 1
    return n


@pytest.mark.parametrize("interval", [0.0, 3.0])
def test_cafifo_admits_fewer_tasks_and_each_runs_faster_than_fifo(interval):
    oversubscribed = cluster(node(10, cores=4))
    fifo = run([CPU_TASKS], oversubscribed, interval=interval)
    ca = run([CPU_TASKS], oversubscribed, scheduler="cafifo", config={"thresholds": {"cpu": 0.7}}, interval=interval)
    assert peak_concurrency(fifo) == 10  # FIFO fills every slot
    limit = cpu_limit(0.7)
    assert 1 <= limit < 10 and peak_concurrency(ca) == limit
    fifo_times = (fifo.tasks.finish_s - fifo.tasks.start_s)
    ca_times = (ca.tasks.finish_s - ca.tasks.start_s)
    assert ca_times.max() < fifo_times.min()  # every admitted task runs faster than any FIFO task
    assert ca.spec["scheduler"]["declined_admissions"] > 0
    assert ca.spec["scheduler"]["thresholds"] == {"cpu": 0.7, "disk": DEFAULT_THRESHOLDS["disk"]}


def test_higher_threshold_admits_more():
    oversubscribed = cluster(node(10, cores=4))
    peaks = [peak_concurrency(run([CPU_TASKS], oversubscribed, scheduler="cafifo", config={"thresholds": {"cpu": u}}))
             for u in (0.5, 0.7, 0.9, 1.5)]
    assert peaks == sorted(peaks) and peaks[0] < peaks[-1] == 10  # 1.5 disables the CPU test


def test_disk_threshold_gates_io_bound_tasks():
    # Disk-only tasks: the CPU test never binds, the disk test does.
    io = demand_job("io", 0.0, maps=[(1.0, 50.0)] * 8)
    r = run([io], cluster(node(8, cores=4)), scheduler="cafifo", config={"thresholds": {"cpu": 1.5, "disk": 0.75}})
    assert peak_concurrency(r) < 8
    assert peak_concurrency(run([io], cluster(node(8, cores=4)), scheduler="fifo")) == 8


def test_an_idle_node_always_takes_a_task():
    # One core: a lone CPU task already has CPU utilization 1.0 >= 0.5, so without the progress guarantee it
    # would never run. With it, the ten tasks run one at a time: 10 x 100 s.
    job = demand_job("t", 0.0, maps=[(100.0, 0.0)] * 10)
    r = run([job], cluster(node(10, cores=1)), scheduler="cafifo", config={"thresholds": {"cpu": 0.5}})
    assert peak_concurrency(r) == 1
    assert r.summary["makespan_s"] == pytest.approx(1000.0, rel=1e-9)


def test_a_later_job_whose_task_fits_may_pass_a_blocked_one():
    # Algorithm 9 walks the whole queue. One of job A's maps (50 s CPU, 50 s disk) alone puts the disk at 0.50;
    # a second would make it 0.76 >= 0.6, so A waits. Job B's CPU-only maps (10 s) fit beside it (disk 0.48
    # with one of them, CPU 0.80 with four): B runs before A's later maps although A is ahead in FIFO order.
    a = demand_job("A", 0.0, maps=[(50.0, 50.0)] * 4)
    b = demand_job("B", 0.0, maps=[(10.0, 0.0)] * 4)
    r = run([a, b], cluster(node(6, cores=4)), scheduler="cafifo", config={"thresholds": {"cpu": 0.9, "disk": 0.6}})
    t = r.tasks
    first_b = t[(t.job_id == "B")].start_s.min()
    last_a = t[(t.job_id == "A")].start_s.max()
    assert first_b < last_a


def test_reduces_are_gated_unless_configured_otherwise():
    job = demand_job("r", 0.0, reduces=[(100.0, 0.0)] * 6)
    gated = run([job], cluster(node(1, cores=4, reduce_slots=6)), scheduler="cafifo", config={"thresholds": {"cpu": 0.7}})
    free = run([job], cluster(node(1, cores=4, reduce_slots=6)), scheduler="cafifo",
               config={"thresholds": {"cpu": 0.7}, "gate_reduces": False})
    assert peak_concurrency(gated, "REDUCE") < peak_concurrency(free, "REDUCE")


def test_cafifo_needs_the_contention_model():
    with pytest.raises(InputError, match="--contention tdam"):
        run([JobTemplate("j", 0.0, [1.0], [])], cluster(node(1)), scheduler="cafifo", contention=None)


@pytest.mark.parametrize("bad,match", [
    ({"net": 0.5}, "no threshold for resource"),
    ({"cpu": 0.0}, "positive"),
    ({"cpu": "high"}, "not a number"),
    ("cpu=0.7", "must map resources"),
])
def test_bad_thresholds_are_input_errors(bad, match):
    with pytest.raises(InputError, match=match):
        create_scheduler("cafifo", {"thresholds": bad})


def test_threshold_defaults_and_overrides():
    assert parse_thresholds(None) == {"cpu": 0.7, "disk": 0.75}
    assert parse_thresholds({"CPU": 0.9}) == {"cpu": 0.9, "disk": 0.75}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("interval", [0.7, 3.0])
def test_parked_cafifo_equals_polling_every_heartbeat(seed, interval):
    # Each job's tasks share one demand shape: the parked tracker is woken at every event that can change
    # CA-FIFO's answer, so the schedule equals the naive mode's heartbeat-by-heartbeat polling.
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.model.hadoop_conf import HadoopConf
    from tests.tdam.test_invariants import mixed_cluster, random_workload

    w = random_workload(200 + seed)
    results = [replay(w, mixed_cluster(), HadoopConf(), create_scheduler("cafifo", {"thresholds": {"cpu": 0.6, "disk": 0.5}}),
                      ReplayOptions(seed=seed, heartbeat_interval_s=interval, contention="tdam", naive_heartbeats=naive,
                                    check_invariants=not naive))
               for naive in (False, True)]
    parked, naive = results
    assert parked.tasks.equals(naive.tasks) and parked.jobs.equals(naive.jobs)
    assert parked.spec["scheduler"]["declined_admissions"] > 0
    assert parked.summary["heartbeats"] < naive.summary["heartbeats"]
