"""``mrsim check-scheduler``: built-ins pass; deliberately broken schedulers fail with a shrunk trace."""

from __future__ import annotations

import json
import time

import pytest

from mrsim.analysis.checker import (FailureKind, Mode, Shape, check_scheduler, generate_cases, run_case)
from mrsim.cli import main
from mrsim.tracker.scheduling import Locality, create_scheduler
from mrsim.profiler.workloads import load_workload
from mrsim.model.cluster import load_cluster_file
from mrsim.schedulers.maxedf import MaxEdfScheduler


class GreedyScheduler(MaxEdfScheduler):
    """Broken on purpose: after a useful heartbeat it launches one map more than the tracker has free slots."""

    name = "greedy"

    def assign_tasks(self, tracker):
        n = super().assign_tasks(tracker)
        if n and self.map_queue:
            job = self.map_queue[0]
            if self.jt.obtain_new_map_task(job, tracker, Locality.ANY):
                self.refresh_job(job)
                n += 1
        return n


class LazyScheduler(MaxEdfScheduler):
    """Broken on purpose: declines while a job is younger than 2 s and never asks to be woken again."""

    name = "lazy"

    def assign_tasks(self, tracker):
        if any(self.jt.now < job.submit + 2.0 for job in self.map_queue):
            return 0
        return super().assign_tasks(tracker)


class SlowScheduler(MaxEdfScheduler):
    name = "slow"

    def assign_tasks(self, tracker):
        time.sleep(0.004)
        return super().assign_tasks(tracker)


@pytest.mark.parametrize("name", ["fifo", "maxedf", "minedf"])
def test_builtins_pass_the_whole_battery(name):
    report = check_scheduler(lambda: create_scheduler(name), name=name)
    assert report.passed, [(f.case.name, f.message) for f in report.failures]
    assert len(report.cases) == len(Shape) * len(Mode) and report.decisions > 1000


def test_battery_is_seeded_and_covers_its_shapes():
    a, b = generate_cases(3), generate_cases(3)
    assert [c.workload.n_tasks for c in a] == [c.workload.n_tasks for c in b]
    assert [c.workload.n_tasks for c in a] != [c.workload.n_tasks for c in generate_cases(4)]
    by_shape = {c.shape: c for c in a}
    assert all(j.n_reduces == 0 for j in by_shape[Shape.MAP_ONLY].workload.jobs)
    assert len(by_shape[Shape.TINY_CLUSTER].cluster) == 1
    assert len({j.priority for j in by_shape[Shape.PRIORITIES].workload.jobs}) > 1
    assert any(j.n_maps == 0 for j in by_shape[Shape.EDGE_CASES].workload.jobs)
    assert {c.interval for c in a} == {None, 0.0, 3.0}


def test_over_assignment_is_caught_and_shrunk():
    report = check_scheduler(GreedyScheduler, shapes=[Shape.QUEUES], modes=[Mode.HEARTBEAT])
    assert not report.passed
    (failure,) = report.failures
    assert failure.kind is FailureKind.OVER_ASSIGN and "free slots" in failure.message
    small = failure.case
    assert failure.original_jobs == 12 and len(small.workload) == 1
    assert small.workload.n_tasks == 3 and len(small.cluster) == 1  # 2 free map slots + the extra map
    assert all(float(d).is_integer() for j in small.workload.jobs for d in j.map_durations)
    # the shrunk case still fails the same way
    assert run_case(small, GreedyScheduler).failure[0] is FailureKind.OVER_ASSIGN


def test_parked_tracker_bug_is_caught_as_stall_or_parked_vs_naive():
    report = check_scheduler(LazyScheduler, shapes=[Shape.MAP_ONLY], modes=[Mode.HEARTBEAT, Mode.OUT_OF_BAND])
    kinds = {f.case.mode: f.kind for f in report.failures}
    assert kinds == {Mode.HEARTBEAT: FailureKind.STALL, Mode.OUT_OF_BAND: FailureKind.PARKED_NAIVE}
    parked = next(f for f in report.failures if f.kind is FailureKind.PARKED_NAIVE)
    assert "request_heartbeat" in parked.message and len(parked.case.workload) == 1


def test_slow_decisions_are_caught():
    report = check_scheduler(SlowScheduler, shapes=[Shape.TINY_CLUSTER], modes=[Mode.TASK], max_decision_s=0.001,
                             shrink_budget=1)
    assert [f.kind for f in report.failures] == [FailureKind.SLOW_DECISION]
    assert report.max_decision_s >= 0.004


def test_cli_passes_with_exit_0(capsys):
    code = main(["check-scheduler", "fifo", "--shapes", "bursts,priorities", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["passed"] and len(doc["cases"]) == 6 and doc["failures"] == []


def test_cli_fails_with_exit_1_and_prints_the_shrunk_trace(capsys):
    target = f"{__name__}:GreedyScheduler"
    code = main(["check-scheduler", target, "--shapes", "map-only", "--modes", "task"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL map-only/task" in out and "FAILED [over-assign]" in out
    assert "shrunk from" in out and '"mapTasks"' in out and "reproduce: mrsim replay" in out


def test_cli_out_writes_a_trace_that_reproduces(capsys, tmp_path):
    target = f"{__name__}:GreedyScheduler"
    code = main(["check-scheduler", target, "--shapes", "heterogeneous", "--modes", "heartbeat", "--json",
                 "--out", str(tmp_path)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and not doc["passed"]
    (failure,) = doc["failures"]
    trace, cluster_file = failure["files"]
    assert failure["kind"] == "over-assign" and failure["shrunk"]["tasks"] < failure["original"]["tasks"]
    # Reload what was written and check it again: the same failure.
    from dataclasses import replace

    case = next(c for c in generate_cases(0, [Shape.HETEROGENEOUS], [Mode.HEARTBEAT]))
    again = replace(case, workload=load_workload(trace), cluster=load_cluster_file(cluster_file))
    assert again.workload.n_tasks == failure["shrunk"]["tasks"]
    assert run_case(again, GreedyScheduler).failure[0] is FailureKind.OVER_ASSIGN
    assert f"--cluster {cluster_file}" in failure["reproduce"]


def test_cli_bad_input(capsys):
    assert main(["check-scheduler", "nosuch"]) == 2
    assert main(["check-scheduler", "no.such.module:Thing"]) == 1  # a plug-in that fails to load
    assert main(["check-scheduler", "fifo", "--modes", "sometimes"]) == 2
    err = capsys.readouterr().err
    assert err.count("mrsim: error:") == 3
