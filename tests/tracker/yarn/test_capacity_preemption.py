"""The Capacity Scheduler's preemption monitor in replays: off changes nothing, on gives back an under-served
queue's guarantee at the instants the policy's keys give, and every output reports what it killed.

The set-up: 4 NodeManagers of 8 GB (32 GB), queues ``a`` and ``b`` of 50 % each, ``a`` may use the whole cluster
(``maximum-capacity`` 100, ``user-limit-factor`` 2). Job ``ja`` (64 maps of 100 s) fills the cluster from 0 s; job
``jb`` (16 maps of 20 s) arrives in ``b`` at 10 s. Heartbeats are aligned, so every instant below is exact.
"""

from __future__ import annotations

import csv
import json

import pytest

from mrsim.cli import main
from mrsim.tracker.yarn.replay import replay_yarn
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.helpers import SHARED_DATA, capacity_xml, cluster, conf, job, workload, write

P = "yarn.scheduler.capacity."
ON = {"yarn.resourcemanager.scheduler.monitor.enable": "true"}
IDEAL = {**ON, "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor": "1",
         "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round": "1"}
QUEUES = {P + "root.queues": "a,b", P + "root.a.capacity": "50", P + "root.b.capacity": "50",
          P + "root.a.maximum-capacity": "100", P + "root.a.user-limit-factor": "2",
          P + "maximum-am-resource-percent": "0.5"}


def run(extra: dict[str, str] | None = None, check: bool = False):
    w = workload(job("ja", [100.0] * 64, queue="a", user="x"),
                 job("jb", [20.0] * 16, submit=10.0, queue="b", user="y"))
    return replay_yarn(w, cluster(4), conf(), CapacityScheduler({**QUEUES, **(extra or {})}), aligned_heartbeats=True,
                       check=(lambda rm: rm.check_invariants()) if check else None)


def _same(a, b) -> None:
    drop = {"wall_s", "events_per_s"}
    assert {k: v for k, v in a.summary.items() if k not in drop} == {k: v for k, v in b.summary.items() if k not in drop}
    assert a.jobs.equals(b.jobs) and a.tasks.equals(b.tasks) and a.spec.keys() == b.spec.keys()


def test_off_by_default_and_when_the_monitor_is_off() -> None:
    plain = run()
    assert "containers_preempted" not in plain.summary["yarn"] and "yarn_preemption" not in plain.spec
    _same(plain, run({"yarn.resourcemanager.scheduler.monitor.enable": "false",
                      "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor": "1"}))
    # the monitor on with another policy only: no Capacity preemption
    _same(plain, run({**ON, "yarn.resourcemanager.scheduler.monitor.policies": "org.example.OtherPolicy"}))


def test_default_knobs_kill_one_container_every_fifteen_seconds() -> None:
    off, on = run(), run(ON, check=True)
    # jb's AM asks at 10 s; the monitor (every 3 s from 0) marks a's newest container at 12 s and kills it at
    # 12 + 15 = 27 s; its node frees it at its heartbeat at 28 s. Per run, 10 % of 32 GB scaled by the natural
    # termination factor 0.2 rounds to one container, so one container dies every 18 s (marked 3 s after a kill).
    assert [a[:6] for a in on.lost_attempts[:3]] == [("ja", "MAP", 30, "node0004", 9.0, 27.0),
                                                     ("ja", "MAP", 29, "node0003", 9.0, 45.0),
                                                     ("ja", "MAP", 28, "node0002", 9.0, 63.0)]
    assert all(a[6] == "KILLED" for a in on.lost_attempts)
    y = on.summary["yarn"]
    assert y["containers_preempted"] == len(on.lost_attempts) == 5 and y["preempted_mb"] == 5 * 1024.0
    assert on.summary["killed_tasks"] == 5 and y["reduces_preempted"] == 0
    assert on.summary["wasted_slot_s"] == pytest.approx(sum(end - start for *_x, start, end, _r in on.lost_attempts))
    assert y["queues"]["root.a"]["preempted_containers"] == 5 and y["queues"]["root.b"]["preempted_containers"] == 0
    starts = dict(zip(on.jobs.job_id, on.jobs.start_s))
    assert dict(zip(off.jobs.job_id, off.jobs.start_s))["jb"] == 104.0 and starts["jb"] == 46.0
    assert on.spec["yarn_preemption"]["max_wait_before_kill_s"] == 15.0


def test_ideal_knobs_take_back_the_guarantee_in_one_wait() -> None:
    on = run(IDEAL, check=True)
    # every run takes all of b's demand: its AM's container (killed at 27 s), then its 16 maps' (asked once the AM
    # started at 28 s, marked at 30 and 33 s, killed at 45 and 48 s)
    kills = [a[5] for a in on.lost_attempts]
    assert kills[0] == 27.0 and len(kills) == on.summary["yarn"]["containers_preempted"] == 16
    assert set(kills[1:]) <= {45.0, 48.0}
    assert dict(zip(on.jobs.job_id, on.jobs.finish_s))["jb"] < dict(zip(run().jobs.job_id, run().jobs.finish_s))["jb"]


def test_a_killed_task_runs_again_and_the_job_completes_all_its_tasks() -> None:
    on = run(IDEAL)
    tasks = on.tasks[on.tasks.job_id == "ja"]
    assert len(tasks) == 64 and (tasks.finish_s > tasks.start_s).all()
    for _job_id, _kind, task, _node, _start, end, _r in on.lost_attempts:
        row = tasks[tasks.task == task].iloc[0]
        assert row.start_s >= end  # the successful attempt starts after the kill


def test_disable_preemption_keeps_the_queue_s_containers() -> None:
    on = run({**IDEAL, P + "root.a.disable_preemption": "true"})
    assert on.summary["yarn"]["containers_preempted"] == 0
    assert on.spec["yarn_preemption"]["disabled_queues"] == ["root.a"]


def test_observe_only_kills_nothing() -> None:
    on = run({**IDEAL, "yarn.resourcemanager.monitor.capacity.preemption.observe_only": "true"})
    assert on.summary["yarn"]["containers_preempted"] == 0
    _same_jobs = run().jobs
    assert on.jobs.equals(_same_jobs)


def test_bad_values_are_one_line_errors() -> None:
    from mrsim.errors import InputError

    with pytest.raises(InputError, match="total_preemption_per_round = '2' is outside"):
        run({**ON, "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round": "2"})
    with pytest.raises(InputError, match="monitor.enable = 'yes' is not true or false"):
        run({"yarn.resourcemanager.scheduler.monitor.enable": "yes"})


SLS = SHARED_DATA / "sls" / "test-resources" / "inputsls.json"


@pytest.mark.skipif(not SLS.exists(), reason="shared data absent")
def test_cli_reports_preemption_in_json_and_out(tmp_path, capsys) -> None:
    site = write(tmp_path, "yarn-site.xml", capacity_xml(ON))
    out = tmp_path / "out"
    code = main(["replay", str(SLS), "--engine", "yarn", "--scheduler", "capacity", "--nodes", "2", "--yarn-site",
                 str(site), "--json", "--out", str(out)])
    stdout, err = capsys.readouterr()
    doc = json.loads(stdout)
    assert code == 0 and "not modelled" not in err
    assert doc["summary"]["yarn"]["containers_preempted"] == 0 and doc["spec"]["yarn_preemption"]["policy"] == \
        "ProportionalCapacityPreemptionPolicy"
    header = next(csv.reader(open(out / "queues.csv")))
    assert header[-2:] == ["preempted_containers", "preempted_mb"]
    code = main(["replay", str(SLS), "--engine", "yarn", "--scheduler", "capacity", "--nodes", "2", "--json"])
    assert "yarn_preemption" not in json.loads(capsys.readouterr()[0])["spec"]


def test_preempted_reduces_run_again_and_every_invariant_holds() -> None:
    # reduce-heavy jobs alternating between the queues, users spread, both queues elastic: reduces are the
    # newest containers of their apps and are preempted; every task still finishes once, after its kills
    jobs = [job(f"j{k:02d}", [2.0, 3.0], [60.0 + 10 * (k % 4)] * 12, submit=float(15 * k), first=[5.0],
                typical=[2.0], queue="b" if k % 2 else "a", user=f"u{k % 3}") for k in range(8)]
    elastic = {**QUEUES, P + "root.b.maximum-capacity": "100", P + "root.b.user-limit-factor": "2",
               "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "3000",
               **{k: v for k, v in IDEAL.items()}}
    result = replay_yarn(workload(*jobs), cluster(4), conf(), CapacityScheduler(elastic), aligned_heartbeats=True,
                         check=lambda rm: rm.check_invariants())
    reduces = [a for a in result.lost_attempts if a[1] == "REDUCE"]
    assert reduces and len(result.lost_attempts) == result.summary["yarn"]["containers_preempted"]
    tasks = result.tasks
    assert len(tasks) == 8 * 14 and not tasks.finish_s.isna().any() and (tasks.finish_s >= tasks.start_s).all()
    for job_id, kind, task, _node, _start, end, _r in reduces:
        row = tasks[(tasks.job_id == job_id) & (tasks.type == kind) & (tasks.task == task)].iloc[0]
        assert row.start_s >= end
