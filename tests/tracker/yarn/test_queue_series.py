"""The per-queue series samples only the queues whose totals changed (docs/yarn.md, "Per-queue time series").

The reference below is the series as it was first written: every queue sampled at every touch, each sum added at
every touch. Both are run on the same replays (fractional fair shares and capacities, queues created by
placement, several users) and must give the same runs, the same CSV and the same summary, to the last bit.

The reference is swapped in by replacing the ``QueueSeries`` the RM module names, which only the pure build honours
(the compiled RM builds its series directly). With the compiled core, the comparison runs in a child process with
``MRSIM_PURE_PYTHON=1``; ``tests/tracker/yarn/test_compiled_yarn.py`` checks that both builds give the same results."""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mrsim import compiled_core
from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn import rm as rm_module
from mrsim.tracker.yarn.timeseries import QueueSeries

from .helpers import capacity_xml, cluster, conf, job, workload, write

_ZERO = (0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0)


class _EveryQueueSeries(QueueSeries):
    """Samples every queue at every touch and adds every sum at every touch (into lists of its own)."""

    def __init__(self, rm) -> None:
        super().__init__(rm)
        self.reference_acc: dict[str, list] = {}
        self.reference_runs: list[tuple[int, int, tuple]] = []

    @property
    def runs(self) -> list[tuple[int, int, tuple]]:  # type: ignore[override]
        return self.reference_runs

    def touch(self, now: float) -> None:
        if now < self.next_second:
            return
        for q in self.dirty:
            q.marked = False
        self.dirty.clear()
        last = math.floor(now)
        n = last - self.next_second + 1
        stats = self.rm.qstats
        snap = tuple((name, *(stats[name].values() if name in stats else _ZERO), share)
                     for name, share in self.rm.scheduler.queue_shares())
        for row in snap:
            a = self.reference_acc.setdefault(row[0], [0, 0.0, 0.0, 0.0, 0, 0, 0.0])
            a[0] += n
            a[1] += row[1] * n
            a[2] = max(a[2], row[1])
            a[3] += row[3] * n
            a[4] = max(a[4], row[6])
            a[5] = max(a[5], row[7])
            a[6] += row[9] * n
        runs = self.reference_runs
        if runs and runs[-1][2] == snap and runs[-1][1] == self.next_second - 1:
            runs[-1] = (runs[-1][0], last, snap)
        else:
            runs.append((self.next_second, last, snap))
        self.next_second = last + 1

    def finish(self, end: float) -> None:
        self.touch(math.floor(end) + 1)

    def summary(self) -> dict[str, dict[str, float]]:
        return {name: {"mean_allocated_mb": round(a[1] / a[0], 3), "peak_allocated_mb": a[2],
                       "mean_pending_mb": round(a[3] / a[0], 3), "peak_pending_containers": a[4],
                       "peak_running_apps": a[5], "mean_share_mb": round(a[6] / a[0], 3)}
                for name, a in self.reference_acc.items() if a[0]}


def _workload():
    """Five users arriving in bursts, AMs of two sizes, maps and reduces: every queue changes often."""
    rng = np.random.default_rng(11)
    jobs = []
    for i in range(30):
        maps = rng.uniform(2.0, 30.0, int(rng.integers(1, 10))).round(1).tolist()
        reduces = rng.uniform(2.0, 9.0, int(rng.integers(0, 3))).round(1).tolist()
        props = {"yarn.app.mapreduce.am.resource.mb": "2048"} if i % 4 == 0 else None
        jobs.append(job(f"j{i:02d}", maps, reduces, submit=float(7 * (i // 5)) + 0.3 * (i % 5), user=f"user{i % 5}",
                        queue=("a", "b", "c")[i % 3], typical=[1.0] * len(reduces), props=props))
    return workload(*jobs)


def _series(scheduler_factory, monkeypatch, reference: bool):
    if reference:
        monkeypatch.setattr(rm_module, "QueueSeries", _EveryQueueSeries)
    try:
        r = replay_yarn(_workload(), cluster(3), conf(nm_memory_mb=7168.0), scheduler_factory(), seed=2)
    finally:
        monkeypatch.undo()
    csv = io.StringIO()
    r.queue_series.write_to(csv)
    # the raw sums too: the summary rounds them to 3 decimals, which would hide a last-bit difference
    series = r.queue_series
    acc = series.reference_acc if reference else {name: a.as_list() for name, a in series.acc.items()}
    return series.runs, csv.getvalue(), r.summary["yarn"]["queues"], acc


COMPILED = compiled_core.engine_build() == "compiled"


@pytest.mark.skipif(COMPILED, reason="the compiled RM cannot take the reference series: run in the pure build by "
                                     "test_reference_comparison_runs_in_the_pure_build")
@pytest.mark.parametrize("name", ["fair", "fair-weights", "capacity", "fifo"])
def test_sampling_changed_queues_equals_sampling_every_queue(tmp_path, monkeypatch, name) -> None:
    fair_xml = write(tmp_path, "fair.xml", """<allocations>
      <queue name="a"><weight>3</weight></queue><queue name="b"><weight>0.7</weight></queue>
      <queue name="c"><minResources>3000 mb, 1 vcores</minResources></queue></allocations>""")
    cap_xml = write(tmp_path, "cs.xml", capacity_xml({
        "yarn.scheduler.capacity.root.queues": "a,b,c", "yarn.scheduler.capacity.root.a.capacity": "33.3",
        "yarn.scheduler.capacity.root.b.capacity": "33.3", "yarn.scheduler.capacity.root.c.capacity": "33.4",
        "yarn.scheduler.capacity.maximum-am-resource-percent": "0.5",
        "yarn.scheduler.capacity.root.a.user-limit-factor": "2"}))
    factories = {
        "fair": lambda: create_yarn_scheduler("fair"),  # a queue per user, created as users arrive
        "fair-weights": lambda: create_yarn_scheduler("fair", {"config_file": str(fair_xml)}),
        "capacity": lambda: create_yarn_scheduler("capacity", {"config_file": str(cap_xml)}),
        "fifo": lambda: create_yarn_scheduler("fifo"),
    }
    fast = _series(factories[name], monkeypatch, False)
    ref = _series(factories[name], monkeypatch, True)
    assert fast[0] == ref[0]
    assert fast[1] == ref[1]
    assert fast[2] == ref[2]
    assert fast[3] == ref[3]
    assert len(fast[0]) > 10 and fast[2]


@pytest.mark.skipif(not COMPILED, reason="the pure build runs the comparison itself")
def test_reference_comparison_runs_in_the_pure_build() -> None:
    repo = Path(__file__).resolve().parents[3]
    env = {**os.environ, compiled_core.PURE_ENV: "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider",
                           f"{Path(__file__).relative_to(repo)}::test_sampling_changed_queues_equals_sampling_every_queue"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout, done.stdout[-2000:]
