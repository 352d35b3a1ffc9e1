"""The Fair scheduler's heartbeat looks only at apps that can take a container (docs/yarn.md, "Performance").
These tests replay busy workloads with it and with a brute-force reference leaf (every runnable app sorted by the
policy's comparator and tried in turn, as ``FSLeafQueue.assignContainer`` does) and require identical results."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn.schedulers.base import PRIORITY_AM, assign_one
from mrsim.tracker.yarn.schedulers.fair import FairScheduler

from .helpers import cluster, conf, job, workload, write


def _reference_leaf(self: FairScheduler, queue, node) -> bool:
    rm = self.rm
    apps = list(queue.apps.values())
    if queue.policy != "fifo":
        apps.sort(key=lambda a: self._app_key(queue, a))

    def allowed(a, ask) -> bool:
        if not self._within_max(queue, ask.mem, ask.vcores):
            return False
        if ask.priority == PRIORITY_AM and queue.max_am_share >= 0:
            return queue.am_used + ask.mem <= queue.max_am_share * queue.fair_share + 1e-6
        return True

    return any(assign_one(rm, app, node, ask_filter=allowed) for app in apps)


def _busy_workload():
    """Four users, 24 jobs arriving together and in bursts, AMs of two sizes (1 and 2 GB), maps and reduces."""
    rng = np.random.default_rng(7)
    jobs = []
    for i in range(24):
        maps = rng.uniform(3.0, 40.0, int(rng.integers(1, 12))).round(1).tolist()
        reduces = rng.uniform(2.0, 10.0, int(rng.integers(0, 3))).round(1).tolist()
        props = {"yarn.app.mapreduce.am.resource.mb": "2048"} if i % 3 == 0 else None
        jobs.append(job(f"j{i:02d}", maps, reduces, submit=float(5 * (i // 6)), user=f"user{i % 4}",
                        typical=[1.0] * len(reduces), props=props))
    return workload(*jobs)


def _replay(scheduler, monkeypatch, reference: bool):
    if reference:
        monkeypatch.setattr(FairScheduler, "_assign_leaf", _reference_leaf)
    try:
        r = replay_yarn(_busy_workload(), cluster(3), conf(nm_memory_mb=6144.0), scheduler, seed=3)
    finally:
        monkeypatch.undo()
    jobs = r.jobs[["job_id", "queue", "am_start_s", "start_s", "finish_s"]].values.tolist()
    return jobs, r.tasks.fillna(-1).values.tolist()  # NaN (no shuffle end for maps) would never compare equal


@pytest.mark.parametrize("policy", ["fair", "drf", "fifo"])
@pytest.mark.parametrize("am_share", ["0.5", "0.8", "-1"])
def test_fair_leaf_fast_path_matches_trying_every_app(tmp_path, monkeypatch, policy, am_share) -> None:
    path = write(tmp_path, "fair.xml", f"""<allocations>
      <defaultQueueSchedulingPolicy>{policy}</defaultQueueSchedulingPolicy>
      <queueMaxAMShareDefault>{am_share}</queueMaxAMShareDefault>
      <queue name="capped"><maxResources>4096 mb, 4 vcores</maxResources></queue>
      <user name="user3"><maxRunningApps>2</maxRunningApps></user></allocations>""")
    fast = _replay(create_yarn_scheduler("fair", {"config_file": str(path)}), monkeypatch, False)
    ref = _replay(create_yarn_scheduler("fair", {"config_file": str(path)}), monkeypatch, True)
    assert fast == ref
    assert len(fast[0]) == 24
