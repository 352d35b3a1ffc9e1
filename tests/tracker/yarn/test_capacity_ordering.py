"""Application priorities and Capacity's ordering policies in replays: the defaults change nothing; a job's
``mapreduce.job.priority`` (with ``yarn.cluster.max-application-priority``) and the ``fair`` ordering policy change
which job a leaf serves first."""

from __future__ import annotations

from mrsim.tracker.yarn.replay import replay_yarn
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.helpers import cluster, conf, job, workload

P = "yarn.scheduler.capacity."
BASE = {P + "maximum-am-resource-percent": "1"}


def _run(extra: dict[str, str], priority: str | None = None):
    props = {"mapreduce.job.priority": priority} if priority else None
    w = workload(job("big", [30.0] * 40, user="x"), job("small", [10.0] * 4, submit=1.0, user="y", props=props))
    r = replay_yarn(w, cluster(2), conf(), CapacityScheduler({**BASE, **extra}), aligned_heartbeats=True)
    return r, dict(zip(r.jobs.job_id, r.jobs.finish_s))


def test_defaults_serve_in_submission_order_and_describe_nothing_new() -> None:
    plain, finish = _run({})
    same, _ = _run({}, priority="VERY_HIGH")  # the cluster's maximum priority is 0: the job's priority is capped
    assert plain.jobs.equals(same.jobs) and plain.summary["events"] == same.summary["events"]
    assert "ordering_policies" not in plain.spec["scheduler"] and "application_priorities" not in plain.spec["scheduler"]
    # FIFO inside the leaf: the small job waits for the big one's 40 maps to be served
    assert finish["small"] > 60.0


def test_a_higher_priority_job_is_served_first() -> None:
    _plain, before = _run({})
    r, after = _run({"yarn.cluster.max-application-priority": "10"}, priority="HIGH")
    assert after["small"] < before["small"] and after["small"] <= 1.0 + 1.0 + 2.0 + 10.0 + 4.0
    assert r.spec["scheduler"]["application_priorities"] == {"max": 10, "apps_with_priority": 1}


def test_fair_ordering_policy_serves_the_least_used_app_first() -> None:
    _plain, before = _run({})
    r, after = _run({P + "root.default.ordering-policy": "fair"})
    assert after["small"] < before["small"]
    assert r.spec["scheduler"]["ordering_policies"] == {"root.default": "fair"}
