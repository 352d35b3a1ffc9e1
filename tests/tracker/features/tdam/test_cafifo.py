"""CA-FIFO (section 6.7, Algorithm 9): admission by node utilization on oversubscribed nodes, in both readings of
``maxUtilizedResourceValue(task.demands)`` (current utilization, the default, and utilization predicted with the
task added)."""

from __future__ import annotations

import pytest

from mrsim.contention import NodeSpec, predicted_utilization
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate
from mrsim.schedulers.cafifo import ADMISSION_MODES, DEFAULT_THRESHOLDS, parse_admission, parse_thresholds
from tests.tracker.features.tdam.helpers import cluster, demand_job, node, peak_concurrency, run

# Section 6.7.2's setting: 100-s CPU map tasks (no disk) on a 4-core TaskTracker with more map slots than cores.
CPU_TASKS = demand_job("ingest", 0.0, maps=[(100.0, 0.0)] * 20)


def cpu_limit(threshold: float, admission: str, cores: int = 4) -> int:
    """How many 100-s CPU tasks CA-FIFO lets share a node: ``predicted``, as many as keep the CPU utilization
    below ``threshold``; ``current``, one more (the last is admitted while the node is still below it)."""
    n = 0
    while predicted_utilization(NodeSpec(cores, 1), [((100.0, 0.0), n + 1)])[0] < threshold:
        n += 1
    return n if admission == "predicted" else n + 1


@pytest.mark.parametrize("admission", ADMISSION_MODES)
@pytest.mark.parametrize("interval", [0.0, 3.0])
def test_cafifo_admits_fewer_tasks_and_each_runs_faster_than_fifo(interval, admission):
    oversubscribed = cluster(node(10, cores=4))
    fifo = run([CPU_TASKS], oversubscribed, interval=interval)
    ca = run([CPU_TASKS], oversubscribed, scheduler="cafifo", config={"thresholds": {"cpu": 0.7}, "admission": admission},
             interval=interval)
    assert peak_concurrency(fifo) == 10  # FIFO fills every slot
    limit = cpu_limit(0.7, admission)
    assert 1 <= limit < 10 and peak_concurrency(ca) == limit
    fifo_times = (fifo.tasks.finish_s - fifo.tasks.start_s)
    ca_times = (ca.tasks.finish_s - ca.tasks.start_s)
    assert ca_times.max() < fifo_times.min()  # every admitted task runs faster than any FIFO task
    assert ca.spec["scheduler"]["declined_admissions"] > 0
    assert ca.spec["scheduler"]["thresholds"] == {"cpu": 0.7, "disk": DEFAULT_THRESHOLDS["disk"]}
    assert ca.spec["scheduler"]["admission"] == admission


@pytest.mark.parametrize("admission", ADMISSION_MODES)
def test_higher_threshold_admits_more(admission):
    oversubscribed = cluster(node(10, cores=4))
    peaks = [peak_concurrency(run([CPU_TASKS], oversubscribed, scheduler="cafifo",
                                  config={"thresholds": {"cpu": u}, "admission": admission}))
             for u in (0.5, 0.7, 0.9, 1.5)]
    assert peaks == sorted(peaks) and peaks[0] < peaks[-1] == 10  # 1.5 disables the CPU test


@pytest.mark.parametrize("admission", ADMISSION_MODES)
def test_disk_threshold_gates_io_bound_tasks(admission):
    # Disk-only tasks: the CPU test never binds, the disk test does.
    io = demand_job("io", 0.0, maps=[(1.0, 50.0)] * 8)
    r = run([io], cluster(node(8, cores=4)), scheduler="cafifo",
            config={"thresholds": {"cpu": 1.5, "disk": 0.75}, "admission": admission})
    assert peak_concurrency(r) < 8
    assert peak_concurrency(run([io], cluster(node(8, cores=4)), scheduler="fifo")) == 8


@pytest.mark.parametrize("admission", ADMISSION_MODES)
def test_an_idle_node_always_takes_a_task(admission):
    # One core: a lone CPU task already has CPU utilization 1.0 >= 0.5, so without the progress guarantee it
    # would never run under the predicted reading; under the current one the second task sees 1.0 and waits.
    # Either way the ten tasks run one at a time: 10 x 100 s.
    job = demand_job("t", 0.0, maps=[(100.0, 0.0)] * 10)
    r = run([job], cluster(node(10, cores=1)), scheduler="cafifo", config={"thresholds": {"cpu": 0.5}, "admission": admission})
    assert peak_concurrency(r) == 1
    assert r.summary["makespan_s"] == pytest.approx(1000.0, rel=1e-9)


def test_a_later_job_whose_task_fits_may_pass_a_blocked_one():
    # Algorithm 9 walks the whole queue. One of job A's maps (50 s CPU, 50 s disk) alone puts the disk at 0.50;
    # a second would make it 0.76 >= 0.6, so A waits. Job B's CPU-only maps (10 s) fit beside it (disk 0.48
    # with one of them, CPU 0.80 with four): B runs before A's later maps although A is ahead in FIFO order.
    a = demand_job("A", 0.0, maps=[(50.0, 50.0)] * 4)
    b = demand_job("B", 0.0, maps=[(10.0, 0.0)] * 4)
    r = run([a, b], cluster(node(6, cores=4)), scheduler="cafifo",
            config={"thresholds": {"cpu": 0.9, "disk": 0.6}, "admission": "predicted"})
    t = r.tasks
    first_b = t[(t.job_id == "B")].start_s.min()
    last_a = t[(t.job_id == "A")].start_s.max()
    assert first_b < last_a


def test_the_current_reading_looks_only_at_the_resources_the_task_uses():
    # Job A's map (1 s CPU, 50 s disk) alone keeps the disk about 98 % busy. In the same heartbeat, A's second map
    # sees that (>= 0.3) and waits in both readings. Job B's map is CPU-only: the current reading looks at the
    # CPU alone (0.5 % busy) and starts it at once; the predicted one also predicts the disk with B added (still
    # about 98 %) and holds B until A's first map has left the node.
    a = demand_job("A", 0.0, maps=[(1.0, 50.0)] * 2)
    b = demand_job("B", 0.0, maps=[(10.0, 0.0)])
    starts = {}
    for admission in ADMISSION_MODES:
        r = run([a, b], cluster(node(4, cores=4)), scheduler="cafifo",
                config={"thresholds": {"cpu": 0.5, "disk": 0.3}, "admission": admission})
        t = r.tasks
        starts[admission] = (t[t.job_id == "B"].start_s.min(), sorted(t[t.job_id == "A"].start_s))
    assert starts["current"][0] == 0.0
    first_a_end = starts["predicted"][1][1]  # A's second map starts when the first has ended
    assert starts["predicted"][0] >= first_a_end > 0.0
    assert starts["current"][1][1] > 0.0  # A's own second map waits under the current reading too


# Hand-computed timelines: ten 100-s CPU maps on one 4-core node with 10 map slots, threshold cpu=0.5, no
# heartbeats. Seidmann's CPU is a queue of D/m = 25 s plus a delay of D(m-1)/m = 75 s; the Bard-Schweitzer AMVA
# with one class per task gives each of n identical tasks a queue residence a with a = 25 (1 + (n-1) a / (a+75))
# (the others' queue length at the CPU, each a/R with R = a + 75), i.e. a^2 + (50 - 25 (n-1)) a - 1875 = 0.
# The node's CPU utilization is then U(n) = n x 25 / R(n): U(1) = 0.25, U(2) = 0.465, U(3) = 0.634.


def seidmann_response(n: int) -> float:
    """R(n), s: n identical 100-s CPU tasks on a 4-core node under Seidmann + Bard-Schweitzer (above)."""
    b = 50.0 - 25.0 * (n - 1)
    return 75.0 + (-b + (b * b + 4 * 1875.0) ** 0.5) / 2


def test_hand_computed_utilizations():
    spec = NodeSpec(4, 1)
    for n, u in ((1, 0.25), (2, 50.0 / seidmann_response(2)), (3, 75.0 / seidmann_response(3))):
        assert predicted_utilization(spec, [((100.0, 0.0), n)])[0] == pytest.approx(u, rel=1e-4)
    assert 50.0 / seidmann_response(2) < 0.5 <= 75.0 / seidmann_response(3)


@pytest.mark.parametrize("admission,waves", [
    # current: tasks 1-3 are admitted at U = 0, 0.25, 0.465 (< 0.5); the fourth sees U(3) = 0.634 and waits. Waves
    # of 3, 3, 3 tasks take R(3) = 75 + sqrt(1875) = 118.30 s each, the last task runs alone for 100 s.
    ("current", [3, 3, 3, 1]),
    # predicted: the second task is admitted because U(2) = 0.465 < 0.5, the third is not (U(3) = 0.634): five
    # waves of two tasks, R(2) = 75 + (-25 + sqrt(8125)) / 2 = 107.57 s each.
    ("predicted", [2, 2, 2, 2, 2]),
])
def test_one_node_timeline_by_hand(admission, waves):
    job = demand_job("j", 0.0, maps=[(100.0, 0.0)] * 10)
    r = run([job], cluster(node(10, cores=4)), scheduler="cafifo", config={"thresholds": {"cpu": 0.5}, "admission": admission})
    t = r.tasks.sort_values(["start_s", "task"])
    expected_start, expected = 0.0, []
    for size in waves:
        wave_end = expected_start + (100.0 if size == 1 else seidmann_response(size))
        expected += [(expected_start, wave_end)] * size
        expected_start = wave_end
    got = [x for pair in zip(t.start_s, t.finish_s) for x in pair]
    assert got == pytest.approx([x for pair in expected for x in pair], rel=1e-6, abs=1e-9)
    assert r.summary["makespan_s"] == pytest.approx(expected[-1][1], rel=1e-6)


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


def test_admission_default_and_bad_values():
    assert parse_admission(None) == "current" == ADMISSION_MODES[0]
    assert parse_admission("Predicted") == "predicted"
    for bad in ("literal", 1, True):
        with pytest.raises(InputError, match="admission must be one of current, predicted"):
            create_scheduler("cafifo", {"admission": bad})


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("interval", [0.7, 3.0])
def test_parked_cafifo_equals_polling_every_heartbeat(seed, interval):
    # Each job's tasks share one demand shape: the parked tracker is woken at every event that can change
    # CA-FIFO's answer, so the schedule equals the naive mode's heartbeat-by-heartbeat polling.
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.model.hadoop_conf import HadoopConf
    from tests.tracker.features.tdam.test_invariants import mixed_cluster, random_workload

    w = random_workload(200 + seed)
    admission = ADMISSION_MODES[seed % 2]
    config = {"thresholds": {"cpu": 0.6, "disk": 0.5}, "admission": admission}
    results = [replay(w, mixed_cluster(), HadoopConf(), create_scheduler("cafifo", config),
                      ReplayOptions(seed=seed, heartbeat_interval_s=interval, contention="tdam", naive_heartbeats=naive,
                                    check_invariants=not naive))
               for naive in (False, True)]
    parked, naive = results
    assert parked.tasks.equals(naive.tasks) and parked.jobs.equals(naive.jobs)
    assert parked.spec["scheduler"]["declined_admissions"] > 0
    assert parked.summary["heartbeats"] < naive.summary["heartbeats"]
