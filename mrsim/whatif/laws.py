"""Metamorphic laws every what-if must obey, checked on real traces (``docs/what-if.md``, "Laws").

For a trace replayed on its inferred cluster of N TaskTrackers (engine defaults, FIFO), each law compares the
replay with a variant and states which way the answer may move:

* ``fewer-nodes``: N // 2 nodes never give a lower mean completion or makespan;
* ``more-nodes``: 2 N nodes never give a higher one;
* ``more-slots``: every node with twice the most map and reduce slots any node has never gives a higher one;
* ``heavier-load``: inter-arrival gaps halved (twice the load) never give a lower mean completion;
* ``same-cluster``: ``--nodes N``, the inferred count, gives the plain replay's jobs and summary exactly;
* ``one-job``: a one-job trace completes at the same time under fifo, fair and capacity (default configurations).

Where real Hadoop shares a surprise, the law names the rule instead of failing: a 0.20-1.0 JobTracker heartbeats
more slowly on more than 100 trackers (``max(3 s, ceil(N / 100) s)``), so ``more-nodes`` and ``more-slots``
(checked as ``<=``) are exempt when the variant's heartbeat interval is longer than the base's.

The first four are judged on the mean over seeds (heartbeat phases and sampled lags differ by seed, and a
variant's cluster draws them for other trackers, so one seed compares two draws as much as two clusters); the
spread over seeds is reported with each check. They hold up to ``TOLERANCE``: greedy list scheduling, which the
JobTracker's heartbeat assignment is, has Graham's anomalies (more processors or shorter tasks can lengthen a
schedule: R. L. Graham, "Bounds on multiprocessing timing anomalies", 1969), which a what-if may meet through
a different packing of the same tasks. Cost: 2 + 5 x seeds in-process replays per trace.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mrsim.model.load import scale_load

#: The documented tolerance of the ordering laws: a variant may be worse by this fraction of the base value.
TOLERANCE = 0.02
METRICS = ("mean_completion_s", "makespan_s")


@dataclass(frozen=True)
class Check:
    """One law on one trace: the base and variant values (means over seeds, and their per-seed ranges)."""

    trace: str
    law: str
    metric: str
    base: float
    variant: float
    direction: str  # ">=": the variant must not be lower; "<=": not higher; "==": identical
    base_range: tuple[float, float] = (0.0, 0.0)
    variant_range: tuple[float, float] = (0.0, 0.0)
    detail: str = ""
    #: the Hadoop rule under which the variant may move the other way, as real Hadoop does (empty: none)
    exempt: str = ""

    @property
    def holds(self) -> bool:
        if self.exempt:
            return True
        if self.direction == "==":
            return self.base == self.variant
        if self.direction == ">=":
            return self.variant >= self.base * (1 - TOLERANCE)
        return self.variant <= self.base * (1 + TOLERANCE)

    @property
    def change_pct(self) -> float:
        return 100.0 * (self.variant - self.base) / self.base if self.base else 0.0

    def row(self) -> dict[str, Any]:
        return {"trace": self.trace, "law": self.law, "metric": self.metric, "base": round(self.base, 3),
                "variant": round(self.variant, 3), "change_pct": round(self.change_pct, 2),
                "direction": self.direction, "holds": self.holds,
                "base_seed_range": [round(x, 3) for x in self.base_range],
                "variant_seed_range": [round(x, 3) for x in self.variant_range], "detail": self.detail,
                "exempt": self.exempt}


@dataclass
class _Runs:
    """Summaries of one configuration over the seeds."""

    summaries: list[dict[str, Any]] = field(default_factory=list)
    heartbeats: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, runs: Iterable[Any]) -> "_Runs":
        runs = list(runs)
        return cls([r.summary for r in runs], [float(r.spec.get("heartbeat_interval_s") or 0.0) for r in runs])

    def mean(self, metric: str) -> float:
        return statistics.fmean(float(s[metric]) for s in self.summaries)

    def range(self, metric: str) -> tuple[float, float]:
        values = [float(s[metric]) for s in self.summaries]
        return min(values), max(values)


def check_trace(trace: str, seeds: Sequence[int] = tuple(range(10)),
                replay: Callable[..., Any] | None = None) -> list[Check]:
    """Every law of the module docstring that applies to ``trace`` (one-job traces: ``one-job`` and
    ``same-cluster``)."""
    import mrsim

    run = replay or (lambda *a, **k: mrsim.replay(*a, quiet=True, **k))
    base0 = run(trace, seed=seeds[0])
    inferred = base0.cluster
    n = len(inferred.trackers)
    workload = base0.workload
    checks: list[Check] = []
    explicit = run(trace, seed=seeds[0], nodes=n)
    identical = _jobs_equal(base0, explicit) and _summary_equal(base0.summary, explicit.summary)
    checks.append(Check(trace, "same-cluster", "jobs and summary", 1.0, 1.0 if identical else 0.0, "==",
                        detail=f"--nodes {n}"))
    if len(workload) == 1:
        checks.extend(_one_job(trace, run, seeds[0], base0.spec.get("engine") == "yarn"))
        return checks
    max_map = max(t.map_slots for t in inferred.trackers)
    max_reduce = max(t.reduce_slots for t in inferred.trackers)
    variants: dict[str, tuple[str, dict[str, Any]]] = {
        "fewer-nodes": (">=", {"nodes": max(1, n // 2)}),
        "more-nodes": ("<=", {"nodes": 2 * n}),
        "more-slots": ("<=", {"map_slots": 2 * max(1, max_map), "reduce_slots": 2 * max(1, max_reduce)}),
    }
    base = _Runs.of([base0] + [run(trace, seed=s) for s in seeds[1:]])
    for law, (direction, flags) in variants.items():
        runs = _Runs.of(run(trace, seed=s, **flags) for s in seeds)
        detail = ", ".join(f"{k}={v}" for k, v in flags.items())
        exempt = ""
        if direction == "<=" and max(runs.heartbeats) > max(base.heartbeats):
            exempt = (f"JobTracker.getNextHeartbeatInterval: {max(runs.heartbeats):g} s heartbeats on the larger "
                      f"cluster against {max(base.heartbeats):g} s (the interval grows with the trackers)")
        for metric in METRICS:
            checks.append(Check(trace, law, metric, base.mean(metric), runs.mean(metric), direction,
                                base.range(metric), runs.range(metric), detail, exempt))
    light = _Runs.of(run(workload, cluster=inferred, seed=s) for s in seeds)
    heavy = _Runs.of(run(scale_load(workload, 2.0), cluster=inferred, seed=s) for s in seeds)
    checks.append(Check(trace, "heavier-load", "mean_completion_s", light.mean("mean_completion_s"),
                        heavy.mean("mean_completion_s"), ">=", light.range("mean_completion_s"),
                        heavy.range("mean_completion_s"), "inter-arrival gaps x0.5"))
    return checks


#: One container (map) per heartbeat where FIFO fills the node: each is Hadoop's own default, so a one-job trace
#: completes later under it; the law then requires the neutral setting to give FIFO's completion exactly.
_FAIR_MR1_NEUTRAL = (("mapred.fairscheduler.locality.delay", "0"), ("mapred.fairscheduler.assignmultiple.reduces", "1"))
_FAIR_YARN_NEUTRAL = (("yarn.scheduler.fair.assignmultiple", "true"),)
_FAIR_MR1_RULE = ("FairScheduler delay scheduling (a job waits mapred.fairscheduler.locality.delay, default 1.5 "
                  "heartbeats, for a node-local map) and assignmultiple (several reduces per heartbeat, where "
                  "JobQueueTaskScheduler assigns one); with delay 0 and one reduce per heartbeat, fifo's completion "
                  "within the tolerance (JobQueueTaskScheduler.assignTasks also spreads a job's tasks by its load "
                  "factor)")
_FAIR_YARN_RULE = ("FairScheduler.attemptScheduling: one container per node heartbeat (yarn.scheduler.fair."
                   "assignmultiple false); with true, fifo's completion")
_CAPACITY_YARN_RULE = ("ParentQueue.assignContainers: at most one off-switch container per node heartbeat (Hadoop "
                       "2.x); the same completion as fair's one container per heartbeat")


def _one_job(trace: str, run: Callable[..., Any], seed: int, yarn: bool) -> list[Check]:
    """The ``one-job`` law (module docstring), with Hadoop's own per-heartbeat limits named and checked."""
    import tempfile
    from pathlib import Path

    def completion(name: str, config: str | None = None) -> float:
        extra = {"scheduler_config": config} if config else {}
        return float(run(trace, name, seed=seed, **extra).summary["mean_completion_s"])

    fifo, fair, capacity = completion("fifo"), completion("fair"), completion("capacity")
    checks = []
    keys = _FAIR_YARN_NEUTRAL if yarn else _FAIR_MR1_NEUTRAL
    exempt, neutral = "", fair
    if fair != fifo:
        with tempfile.TemporaryDirectory() as tmp:
            site = Path(tmp) / "fair-site.xml"
            props = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in keys)
            site.write_text(f"<?xml version=\"1.0\"?><configuration>{props}</configuration>\n")
            neutral = completion("fair", str(site))
        explained = neutral == fifo if yarn else abs(neutral - fifo) <= TOLERANCE * fifo
        exempt = (_FAIR_YARN_RULE if yarn else _FAIR_MR1_RULE) if explained else ""
    setting = ", ".join(f"{k}={v}" for k, v in keys)
    checks.append(Check(trace, "one-job", "completion (fair vs fifo)", fifo, fair, "==",
                        detail=f"default configurations; with {setting}: {neutral:g} s", exempt=exempt))
    exempt = _CAPACITY_YARN_RULE if yarn and capacity != fifo and capacity == fair else ""
    checks.append(Check(trace, "one-job", "completion (capacity vs fifo)", fifo, capacity, "==",
                        detail="default configurations", exempt=exempt))
    return checks


_VOLATILE = ("wall_s", "events_per_s", "engine_build")


def _summary_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {k: v for k, v in a.items() if k not in _VOLATILE} == {k: v for k, v in b.items() if k not in _VOLATILE}


def _jobs_equal(a: Any, b: Any) -> bool:
    return bool(a.jobs.equals(b.jobs))


def violations(checks: Iterable[Check]) -> list[Check]:
    return [c for c in checks if not c.holds]
