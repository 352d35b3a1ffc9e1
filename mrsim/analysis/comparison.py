"""Compare schedulers on one cluster and one (optionally deadline-annotated) workload: runs, metrics, plot.

Every scheduler replays the *same* workload on the *same* cluster with the same Hadoop configuration and engine
options. Replication ``r`` (0-based) uses master seed ``seed + r`` for everything random in it: heartbeat phases
and, with a deadline factor, the deadline draw (:func:`mrsim.studies.deadlines.assign_deadlines`). Within a replication
all schedulers therefore see identical inputs.

Metrics per scheduler, averaged over replications (the table):

* ``mean_completion_s`` / ``p95_completion_s`` / ``makespan_s``: from each replay's summary (s);
* ``mean_slowdown``: mean over jobs of completion / T_J, with T_J the job's completion time when replayed alone
  on the cluster under FIFO (:func:`mrsim.studies.deadlines.isolated_completion_times`; 1.0 = as fast as alone);
* ``deadlines_missed`` and ``relative_deadline_exceeded`` (SimMR's Σ over late jobs of (T − D)/D), only when
  the jobs have deadlines;
* ``slot_share``: per queue, the mean over the run ([0, makespan]) of the fraction of the cluster's map + reduce
  slots its tasks occupy (a reduce occupies its slot from launch, including the shuffle wait).

Cost: replications × (schedulers + 1) replays (the +1 is the isolated runs, about one replay's worth), plus
O(tasks log tasks) for the metrics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Sequence

import numpy as np

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.results import ReplayResult
from mrsim.tracker.schedconf.filekind import check_plugin_config
from mrsim.tracker.scheduling import TaskScheduler, create_scheduler
from mrsim.errors import InputError, OptionError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from mrsim.studies.deadlines import ISOLATED_KEY, assign_deadlines, check_deadline_factor, isolated_completion_times

#: Table columns, in display order (slot shares are added per queue).
METRICS: tuple[str, ...] = ("mean_completion_s", "p95_completion_s", "makespan_s", "mean_slowdown",
                            "deadlines_missed", "relative_deadline_exceeded")


@dataclass
class SchedulerRuns:
    """One scheduler's replays, one per replication, and the metrics of each."""

    name: str
    results: list[ReplayResult] = field(default_factory=list)
    metrics: list[dict] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)


@dataclass
class Comparison:
    """All runs of a comparison plus what it ran with."""

    runs: dict[str, SchedulerRuns]
    deadline_factor: float | None
    replications: int
    seed: int
    total_slots: int

    def table(self) -> list[dict]:
        """One row per scheduler: metric means over replications (None when a metric does not apply)."""
        rows = []
        for name, run in self.runs.items():
            row: dict = {"scheduler": name, "replications": len(run.metrics)}
            for key in METRICS:
                values = [m[key] for m in run.metrics if m.get(key) is not None]
                row[key] = round(float(np.mean(values)), 6) if values else None
            queues = sorted({q for m in run.metrics for q in m["slot_share"]})
            row["slot_share"] = {q: round(float(np.mean([m["slot_share"].get(q, 0.0) for m in run.metrics])), 6)
                                 for q in queues}
            rows.append(row)
        return rows

    def to_json_dict(self) -> dict:
        """``{"schedulers": {name: <replay --json object of replication 0, plus "replications">}, "table": [...]}``."""
        schedulers = {}
        for name, run in self.runs.items():
            doc = run.results[0].to_json_dict()
            doc["replications"] = [{"seed": s, "summary": r.summary, "metrics": m}
                                   for s, r, m in zip(run.seeds, run.results, run.metrics)]
            schedulers[name] = doc
        return {"schedulers": schedulers, "table": self.table(),
                "spec": {"deadline_factor": self.deadline_factor, "replications": self.replications,
                         "seed": self.seed}}


def load_schedulers(names: Sequence[str], config: dict | None = None,
                    configs: Mapping[str, dict] | None = None) -> list[str]:
    """Validate scheduler names by instantiating each once (a plug-in that fails to load is an InputError), with
    ``configs[name]`` when given, else ``config``."""
    cleaned = []
    for raw in names:
        name = raw.strip()
        if ":" not in name:  # registered names are case-insensitive; module:Class is not
            name = name.lower()
        if not name:
            continue
        if name in cleaned:
            raise OptionError(f"{{schedulers}} lists {name!r} twice")
        chosen = configs.get(name, config) if configs is not None else config
        check_plugin_config(name, chosen)  # a fair or capacity file given to another scheduler
        try:
            create_scheduler(name, chosen)
        except InputError:
            raise
        except Exception as exc:  # a plug-in whose constructor fails is the user's setup problem, not a crash
            raise InputError(f"scheduler {name!r} failed to start: {type(exc).__name__}: {exc}") from None
        cleaned.append(name)
    if not cleaned:
        raise OptionError("{schedulers} needs at least one scheduler name")
    return cleaned


def compare(workload: Workload, cluster: ClusterSpec, conf: HadoopConf, names: Sequence[str],
            options: ReplayOptions = ReplayOptions(), *, deadline_factor: float | None = None,
            replications: int = 1, config: dict | None = None,
            factory: Callable[[str, dict | None], TaskScheduler] = create_scheduler,
            progress: Callable[[int], None] | None = None) -> Comparison:
    """Replay ``workload`` under every scheduler in ``names``, ``replications`` times (see the module docstring).

    ``options.seed`` is the master seed of replication 0; ``progress(done)`` reports the work done in replays: each
    replication's isolated runs count as one, then one per scheduler (``replications x (schedulers + 1)`` in all,
    :func:`progress_units`), with the running replay's finished share added (:func:`within_replay`).
    """
    if replications < 1:
        raise OptionError(f"{{replications}} must be at least 1, got {replications}")
    if deadline_factor is not None:
        check_deadline_factor(deadline_factor)
    names = load_schedulers(names, config) if factory is create_scheduler else list(names)
    runs = {name: SchedulerRuns(name) for name in names}
    total_slots = cluster.map_slots + cluster.reduce_slots
    done = 0
    for r in range(replications):
        seed = options.seed + r
        rep_options = replace(options, seed=seed)
        isolated = isolated_completion_times(workload, cluster, conf, rep_options,
                                             progress=within_replay(progress, done, len(workload)))
        done += 1
        if deadline_factor is not None:
            rep_workload = assign_deadlines(workload, cluster, conf, deadline_factor, seed, rep_options, isolated)
        else:
            rep_workload = Workload.of([t.with_changes(extra={**t.extra, ISOLATED_KEY: float(x)})
                                        for t, x in zip(workload.jobs, isolated)],
                                       source=workload.source, warnings=workload.warnings)
        for name in names:
            result = replay(rep_workload, cluster, conf, factory(name, config), rep_options,
                            progress=within_replay(progress, done, len(rep_workload)))
            run = runs[name]
            run.results.append(result)
            run.metrics.append(result_metrics(result, isolated, total_slots))
            run.seeds.append(seed)
            done += 1
            if progress is not None:
                progress(done)
    return Comparison(runs, deadline_factor, replications, options.seed, total_slots)


def progress_units(schedulers: int, replications: int) -> int:
    """The ``progress`` total of :func:`compare`: per replication, the isolated runs and one replay per scheduler."""
    return replications * (schedulers + 1)


def within_replay(progress: Callable[[float], None] | None, done: int, jobs: int) -> Callable[[int], None] | None:
    """A replay's ``progress(jobs_finished)`` callback that reports ``done`` + the replay's finished share to
    ``progress``: a comparison's bar moves during each replay, not only between them."""
    if progress is None:
        return None
    total = max(1, jobs)
    return lambda finished: progress(done + finished / total)


def result_metrics(result: ReplayResult, isolated: np.ndarray | None, total_slots: int) -> dict:
    """The comparison metrics of one replay (module docstring). ``isolated`` is T_J per job in workload order."""
    s = result.summary
    completion = result.jobs["completion_s"].to_numpy(float)
    slowdown = None
    if isolated is not None and len(isolated) == len(completion):
        known = isolated > 0
        if known.any():
            slowdown = float(np.mean(completion[known] / isolated[known]))
    return {
        "mean_completion_s": s["mean_completion_s"],
        "p95_completion_s": s["p95_completion_s"],
        "makespan_s": s["makespan_s"],
        "mean_slowdown": None if slowdown is None else round(slowdown, 6),
        "deadlines_missed": s.get("deadlines_missed"),
        "relative_deadline_exceeded": s.get("relative_deadline_exceeded"),
        "slot_share": {q: round(v, 6) for q, v in mean_slot_share(result, total_slots).items()},
    }


def _task_intervals(result: ReplayResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, finish, queue label) per task, times in s."""
    tasks = result.tasks
    queue_of = dict(zip(result.jobs["job_id"], result.jobs["queue"]))
    queues = tasks["job_id"].map(queue_of).to_numpy(object)
    return tasks["start_s"].to_numpy(float), tasks["finish_s"].to_numpy(float), queues


def mean_slot_share(result: ReplayResult, total_slots: int) -> dict[str, float]:
    """Per queue: occupied slot-seconds / (total slots × makespan), i.e. the time-average share. O(tasks)."""
    makespan = float(result.summary["makespan_s"])
    if makespan <= 0 or total_slots <= 0:
        return {}
    start, finish, queues = _task_intervals(result)
    busy = finish - start
    out: dict[str, float] = {}
    for q in sorted(set(queues.tolist())):
        out[str(q)] = float(busy[queues == q].sum()) / (total_slots * makespan)
    return out


def slot_share_series(result: ReplayResult, total_slots: int, points: int = 400) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Occupied share of the cluster's slots per queue on an even grid of ``points`` times over [0, makespan].

    Returns ``(times_s, {queue: shares})``. Cost O(tasks log tasks + points log tasks).
    """
    makespan = float(result.summary["makespan_s"])
    times = np.linspace(0.0, makespan, points)
    start, finish, queues = _task_intervals(result)
    series: dict[str, np.ndarray] = {}
    for q in sorted(set(queues.tolist())):
        sel = queues == q
        s = np.sort(start[sel])
        f = np.sort(finish[sel])
        running = np.searchsorted(s, times, side="right") - np.searchsorted(f, times, side="right")
        series[str(q)] = running / max(1, total_slots)
    return times, series


def plot_comparison(comparison: Comparison, path: str | os.PathLike[str]) -> None:
    """Write a PNG: completion bars (mean, p95), relative deadline exceeded (if deadlines), slot share over time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mrsim.io import atomic_path

    rows = comparison.table()
    names = [r["scheduler"] for r in rows]
    has_deadlines = any(r["relative_deadline_exceeded"] is not None for r in rows)
    panels = 3 if has_deadlines else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.2))
    x = np.arange(len(names))
    rotate = len(names) > 3 or max(len(n) for n in names) > 8  # long or many names would collide
    ax = axes[0]
    for offset, key, label in ((-0.2, "mean_completion_s", "mean"), (0.2, "p95_completion_s", "95th percentile")):
        means = np.array([r[key] for r in rows], float)
        spread = _replication_spread(comparison, names, key)
        ax.bar(x + offset, means, 0.4, label=label,
               yerr=spread if comparison.replications > 1 else None, capsize=3 if comparison.replications > 1 else 0)
    _names_axis(ax, x, names, rotate)
    ax.set_ylabel("job completion time (s)")
    ax.set_title("completion time" + (f" (bars: mean of {comparison.replications} replications, whiskers: "
                                      "min-max)" if comparison.replications > 1 else ""), fontsize="medium")
    ax.legend(fontsize="small")
    if has_deadlines:
        ax = axes[1]
        ax.bar(x, [r["relative_deadline_exceeded"] or 0.0 for r in rows], 0.6, color="tab:red",
               yerr=_replication_spread(comparison, names, "relative_deadline_exceeded")
               if comparison.replications > 1 else None, capsize=3)
        _names_axis(ax, x, names, rotate)
        ax.set_ylabel("relative deadline exceeded, Σ (T − D)/D")
        ax.set_title(f"deadlines (df = {comparison.deadline_factor:g})")
    ax = axes[-1]
    for name, run in comparison.runs.items():
        times, series = slot_share_series(run.results[0], comparison.total_slots)
        total = np.sum(list(series.values()), axis=0) if series else np.zeros_like(times)
        if len(series) <= 1 or len(series) > 4:
            ax.plot(times / 3600.0, total, label=name, drawstyle="steps-post")
        else:
            for queue, share in series.items():
                ax.plot(times / 3600.0, share, label=f"{name}: {queue}", drawstyle="steps-post")
    ax.set_xlabel("time since first submission (h)")
    ax.set_ylabel("share of cluster slots occupied")
    ax.set_ylim(0, 1.05)
    ax.set_title("slot share over time (replication 0)")
    entries = len(ax.get_lines())
    ax.legend(fontsize="small" if entries <= 8 else "x-small", ncol=1 if entries <= 8 else 2,
              loc="upper right", framealpha=0.8)
    fig.tight_layout()
    with atomic_path(path, "the comparison") as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def _replication_spread(comparison: Comparison, names: Sequence[str], key: str) -> np.ndarray:
    """``(2, schedulers)`` distances from the mean down to the minimum and up to the maximum over replications."""
    out = np.zeros((2, len(names)))
    for i, name in enumerate(names):
        values = np.array([m[key] for m in comparison.runs[name].metrics if m.get(key) is not None], float)
        if len(values):
            mean = values.mean()
            out[:, i] = (mean - values.min(), values.max() - mean)
    return out


def _names_axis(ax, x: np.ndarray, names: Sequence[str], rotate: bool) -> None:  # type: ignore[no-untyped-def]
    ax.set_xticks(x, names, rotation=30 if rotate else 0, ha="right" if rotate else "center",
                  fontsize="small" if rotate else None)
