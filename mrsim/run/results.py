"""What the Python API returns (:mod:`mrsim.api`, ``docs/api.md``): a loaded trace and the results of a replay, a
validation and a comparison, each with pandas tables, ``.warnings``, a short ``repr`` and a notebook summary.

Tables are built on first use and kept: a million-task replay pays for its task table only when it is read.
"""

from __future__ import annotations

import functools
import html
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from mrsim.wording import counted

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mrsim.analysis.comparison import Comparison
    from mrsim.analysis.validation.report import ValidationReport
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.templates import JobTemplate, Workload
    from mrsim.tracker.results import ReplayResult

#: The levels of a task's ``locality`` code, in code order. The engine stores an int8 per task
#: (``JobState.map_locality``: 1 node-local, 2 rack-local, 3 off-switch, as ``JobInProgress.findNewMapTask``'s
#: cache levels); 0 is a map whose split locations name no host of the cluster, or a reduce (reduces have no
#: locality in Hadoop 1.x).
LOCALITY_LEVELS: tuple[str, ...] = ("untracked", "node-local", "rack-local", "off-switch")


def named_locality(tasks: "pd.DataFrame") -> "pd.DataFrame":
    """``tasks`` with its int8 ``locality`` column as a pandas categorical of :data:`LOCALITY_LEVELS` (a copy;
    ``tasks`` itself, the engine's table, keeps the codes that ``tasks.csv`` writes). Cost O(tasks)."""
    import pandas as pd

    if "locality" not in tasks or isinstance(tasks["locality"].dtype, pd.CategoricalDtype):
        return tasks
    out = tasks.copy(deep=False)
    out["locality"] = pd.Categorical.from_codes(tasks["locality"].to_numpy().astype("int8"),
                                                categories=list(LOCALITY_LEVELS))
    return out


def _html_summary(title: str, rows: list[tuple[str, str]], warnings: tuple[str, ...]) -> str:
    """A small HTML table for a notebook: a bold title, one row per figure, the warnings counted."""
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                    for k, v in rows)
    if warnings:
        cells += (f"<tr><th style='text-align:left'>warnings</th><td>{len(warnings)} (first: "
                  f"{html.escape(_clip(warnings[0], 160))})</td></tr>")
    return f"<div><b>{html.escape(title)}</b><table>{cells}</table></div>"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _seconds(x: Any) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):,.1f} s"


def _repr(text: str) -> str:
    """A repr line kept under 500 characters whatever the names in it (a trace path can be long)."""
    return _clip(text, 480)


# --------------------------------------------------------------------------------------------------- a trace


@dataclass(frozen=True, eq=False)
class Trace:
    """A loaded trace (``mrsim.load``): ``jobs`` and ``tasks`` tables of its job templates, ``templates``, and the
    :class:`~mrsim.model.templates.Workload` itself (``workload``), which ``mrsim.replay`` and ``mrsim.compare``
    accept as they accept the trace's path.

    Every other attribute of the workload (``source``, ``warnings``, ``n_tasks``, ``origin_s``, ...) is reachable
    here too, and ``len``, iteration and indexing go over the job templates, as on a workload.

    ``path`` (and ``format``) name the input it was read from: ``mrsim.replay(trace)`` then replays that input,
    exactly as ``mrsim.replay(path)`` would (the cluster inferred from its hosts, its calibration), reading it from
    the trace cache. A trace made from a ``Workload`` has no path and replays as that workload.
    """

    workload: "Workload"
    path: str | None = None
    format: str | None = None

    @property
    def templates(self) -> "tuple[JobTemplate, ...]":
        """The job templates in submit order (``Workload.jobs``)."""
        return self.workload.jobs

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the reader found suspicious but usable, one line per finding (each names its job)."""
        return tuple(self.workload.warnings)

    @functools.cached_property
    def jobs(self) -> "pd.DataFrame":
        """One row per job: ``job_id``, ``name``, ``user``, ``queue``, ``priority``, ``outcome``, ``submit_s``
        (seconds from the first submission, the replay's clock), ``maps``, ``reduces``, ``mean_map_s`` and
        ``mean_reduce_s`` (the reduce phase, after the sort), ``first_shuffle_samples`` and
        ``typical_shuffle_samples`` (the shuffle arrays' lengths, SimMR §III-A), ``deadline_s`` (relative to
        submission) and ``actual_completion_s`` (the trace's finish − submit), NaN when unknown."""
        import numpy as np
        import pandas as pd

        origin = self.workload.origin_s
        nan = float("nan")
        rows = [{"job_id": t.job_id, "name": t.name, "user": t.user, "queue": t.queue, "priority": t.priority.name,
                 "outcome": t.outcome.value, "submit_s": t.submit_s - origin, "maps": t.n_maps,
                 "reduces": t.n_reduces,
                 "mean_map_s": float(np.mean(t.map_durations)) if t.n_maps else nan,
                 "mean_reduce_s": float(np.mean(t.reduce_durations)) if t.n_reduces else nan,
                 "first_shuffle_samples": int(t.first_shuffle_durations.size),
                 "typical_shuffle_samples": int(t.typical_shuffle_durations.size),
                 "deadline_s": nan if t.deadline_s is None else float(t.deadline_s),
                 "actual_completion_s": nan if t.actual_completion_s is None else float(t.actual_completion_s)}
                for t in self.workload.jobs]
        columns = ["job_id", "name", "user", "queue", "priority", "outcome", "submit_s", "maps", "reduces",
                   "mean_map_s", "mean_reduce_s", "first_shuffle_samples", "typical_shuffle_samples", "deadline_s",
                   "actual_completion_s"]
        return pd.DataFrame(rows, columns=columns)

    @functools.cached_property
    def tasks(self) -> "pd.DataFrame":
        """One row per task: ``job_id``, ``type`` (``MAP`` / ``REDUCE``), ``task`` (index within its kind) and
        ``duration_s``: a map's run time, or a reduce's reduce phase (its shuffle is drawn at replay time from the
        job's shuffle arrays, so it is not a per-task column). Cost O(tasks)."""
        import numpy as np
        import pandas as pd

        ids, kinds, index, durations = [], [], [], []
        for t in self.workload.jobs:
            for kind, values in (("MAP", t.map_durations), ("REDUCE", t.reduce_durations)):
                n = int(values.size)
                ids.append(np.full(n, t.job_id, dtype=object))
                kinds.append(np.full(n, kind, dtype=object))
                index.append(np.arange(n, dtype=np.int64))
                durations.append(values)
        if not ids:
            return pd.DataFrame({"job_id": [], "type": [], "task": [], "duration_s": []})
        return pd.DataFrame({"job_id": np.concatenate(ids), "type": np.concatenate(kinds),
                             "task": np.concatenate(index), "duration_s": np.concatenate(durations)})

    def to_frame(self) -> "pd.DataFrame":
        """The jobs table (:attr:`jobs`), as a fresh copy to modify."""
        return self.jobs.copy()

    def __len__(self) -> int:
        return len(self.workload)

    def __iter__(self) -> "Iterator[JobTemplate]":
        return iter(self.workload)

    def __getitem__(self, index: int) -> "JobTemplate":
        return self.workload[index]

    def __getattr__(self, name: str) -> Any:  # source, n_tasks, origin_s, ...: the workload's own attributes
        if name.startswith("__") or name in ("workload", "path", "format"):
            raise AttributeError(name)
        return getattr(self.workload, name)

    def __repr__(self) -> str:
        w = self.workload
        name = Path(str(w.source)).name if w.source else "workload"
        return _repr(f"<mrsim.Trace {name}: {counted(len(w), 'job')}, {w.n_maps:,} maps, {w.n_reduces:,} reduces, "
                     f"{counted(len(w.warnings), 'warning')}>")

    def _repr_html_(self) -> str:
        w = self.workload
        span = (w.jobs[-1].submit_s - w.origin_s) if w.jobs else 0.0
        return _html_summary(f"mrsim trace {Path(str(w.source)).name if w.source else ''}".strip(),
                             [("jobs", f"{len(w):,}"), ("maps", f"{w.n_maps:,}"), ("reduces", f"{w.n_reduces:,}"),
                              ("submissions span", _seconds(span))], self.warnings)


# --------------------------------------------------------------------------------------------------- results


@dataclass(repr=False)
class Run:
    """One replay: ``jobs`` and ``tasks`` (pandas), ``summary`` (the ``replay --json`` summary), ``spec``,
    ``warnings``, ``assumptions`` (the stderr line saying which cluster and heartbeat were used) and ``notes``."""

    result: "ReplayResult"
    workload: "Workload"
    cluster: "ClusterSpec"
    assumptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def jobs(self) -> "pd.DataFrame":
        """One row per job: job_id, name, user, queue, submit_s, start_s, finish_s, completion_s, maps, ..."""
        return self.result.jobs

    @functools.cached_property
    def tasks(self) -> "pd.DataFrame":
        """One row per task (its successful attempt): job_id, type, task, tracker, start_s, shuffle_end_s,
        finish_s, and ``locality`` as a categorical of :data:`LOCALITY_LEVELS` (``run.result.tasks`` keeps the
        int8 codes 0-3 that ``tasks.csv`` holds)."""
        return named_locality(self.result.tasks)

    @property
    def summary(self) -> dict:
        return self.result.summary

    @property
    def spec(self) -> dict:
        return self.result.spec

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self.result.warnings)

    def to_json_dict(self) -> dict:
        """Exactly the ``mrsim replay --json`` object."""
        return self.result.to_json_dict()

    def to_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """Write the self-contained HTML report (``--report``) and return its path."""
        from mrsim.analysis.report import replay_report

        return replay_report(self, path, title=title)

    def _cluster(self) -> str:
        from mrsim.run.describe import run_cluster_line

        return run_cluster_line(self.spec)

    def __repr__(self) -> str:
        s = self.summary
        return _repr(f"<mrsim.Run {self.result.scheduler} on {self._cluster()}: {counted(s['jobs'], 'job')}, "
                     f"{s['tasks']:,} tasks, makespan {_seconds(s['makespan_s'])}, mean completion "
                     f"{_seconds(s['mean_completion_s'])}, {counted(len(self.warnings), 'warning')}>")

    def _repr_html_(self) -> str:  # a notebook shows the summary, not a dump of the dataclass
        s = self.summary
        return _html_summary(f"mrsim replay: {self.result.scheduler}",
                             [("cluster", self._cluster()), ("jobs", f"{s['jobs']:,}"), ("tasks", f"{s['tasks']:,}"),
                              ("makespan", _seconds(s["makespan_s"])),
                              ("mean completion", _seconds(s["mean_completion_s"])),
                              ("p95 completion", _seconds(s.get("p95_completion_s")))], self.warnings)


@dataclass(repr=False)
class ValidationRun:
    """One validation: ``jobs`` (pandas, with ``error_pct`` and the decomposition columns), ``tasks`` (the
    shared-mode replay's), ``summary``, ``spec``, ``warnings``, ``assumptions`` and ``notes``."""

    report: "ValidationReport"
    cluster: "ClusterSpec"
    assumptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @functools.cached_property
    def jobs(self) -> "pd.DataFrame":
        """One row per job: the replay's columns, ``actual_completion_s``, ``error_pct`` (simulated − actual, in
        % of actual; NaN for an unscored job) and the terms of ``docs/validation.md``'s error identity."""
        import pandas as pd

        return pd.DataFrame(self.report.jobs)

    @functools.cached_property
    def tasks(self) -> "pd.DataFrame | None":
        """The shared-mode replay's tasks, ``locality`` named as in :attr:`Run.tasks` (None with
        ``isolate=True``)."""
        return None if self.report.replay is None else named_locality(self.report.replay.tasks)

    @property
    def summary(self) -> dict:
        return self.report.summary

    @property
    def spec(self) -> dict:
        return self.report.spec

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self.report.warnings)

    def to_json_dict(self) -> dict:
        """Exactly the ``mrsim validate --json`` object."""
        return self.report.to_json_dict()

    def to_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        from mrsim.analysis.report import validation_report

        return validation_report(self, path, title=title)

    def _error(self) -> str:
        s = self.summary
        if not s.get("scored_jobs"):
            return "no job scored"
        return (f"{s['scored_jobs']}/{s['jobs']} jobs scored, mean |error| {s['mean_abs_error_pct']:.2f} %, "
                f"mean signed {s['mean_error_pct']:+.2f} %")

    def __repr__(self) -> str:
        return _repr(f"<mrsim.ValidationRun {self.report.mode.value} {self.report.scheduler}: {self._error()}, "
                     f"{counted(len(self.warnings), 'warning')}>")

    def _repr_html_(self) -> str:
        s = self.summary
        rows = [("mode", self.report.mode.value), ("scheduler", str(self.report.scheduler)),
                ("scored jobs", f"{s.get('scored_jobs', 0)}/{s.get('jobs', 0)}")]
        if s.get("scored_jobs"):
            rows += [("mean |error|", f"{s['mean_abs_error_pct']:.2f} %"),
                     ("max |error|", f"{s['max_abs_error_pct']:.2f} %"),
                     ("mean signed error", f"{s['mean_error_pct']:+.2f} %")]
        return _html_summary("mrsim validate", rows, self.warnings)


@dataclass(repr=False)
class ComparisonRun:
    """A comparison: ``table`` (pandas, one row per scheduler, numeric columns only besides ``scheduler``),
    ``runs`` (scheduler -> replays), ``results`` (replication 0 of each), ``warnings``, ``assumptions``, ``notes``."""

    comparison: "Comparison"
    cluster: "ClusterSpec"
    workload: "Workload"
    assumptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @functools.cached_property
    def table(self) -> "pd.DataFrame":
        """One row per scheduler, means over replications: ``scheduler``, ``replications``, ``mean_completion_s``,
        ``p95_completion_s``, ``makespan_s``, ``mean_slowdown``, ``deadlines_missed``,
        ``relative_deadline_exceeded`` (NaN where a metric does not apply: no deadlines, YARN mode's slowdowns),
        then ``share_<queue>`` per queue (the time-average share of the cluster's slots its tasks held, 0 for a
        queue a scheduler never ran). ``--json``'s ``table`` keeps ``slot_share`` as one object per row."""
        import pandas as pd

        rows = self.comparison.table()
        queues = sorted({q for r in rows for q in r.get("slot_share", {})})
        flat = []
        for r in rows:
            row = {k: v for k, v in r.items() if k != "slot_share"}
            row.update({f"share_{q}": float(r.get("slot_share", {}).get(q, 0.0)) for q in queues})
            flat.append(row)
        table = pd.DataFrame(flat)
        for column in table.columns:
            if column != "scheduler":
                table[column] = pd.to_numeric(table[column].astype(object).where(table[column].notna(),
                                                                                 float("nan")))
        return table

    @property
    def runs(self) -> dict:
        """Scheduler name -> its :class:`~mrsim.analysis.comparison.SchedulerRuns` (every replication)."""
        return self.comparison.runs

    @property
    def results(self) -> dict[str, "ReplayResult"]:
        """Replication 0 of every scheduler."""
        return {name: run.results[0] for name, run in self.comparison.runs.items()}

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every replay's warnings, each once, in first-seen order."""
        seen: dict[str, None] = {}
        for run in self.comparison.runs.values():
            for result in run.results:
                seen.update(dict.fromkeys(result.warnings))
        return tuple(seen)

    def to_json_dict(self) -> dict:
        """Exactly the ``mrsim compare --json`` object."""
        return self.comparison.to_json_dict()

    def to_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        from mrsim.analysis.report import comparison_report

        return comparison_report(self, path, title=title)

    def __repr__(self) -> str:
        rows = self.comparison.table()
        means = ", ".join(f"{r['scheduler']} {_seconds(r['mean_completion_s'])}" for r in rows)
        return _repr(f"<mrsim.ComparisonRun {counted(len(rows), 'scheduler')}, "
                     f"{counted(self.comparison.replications, 'replication')}; mean completion: {means}; "
                     f"{counted(len(self.warnings), 'warning')}>")

    def _repr_html_(self) -> str:
        rows = [(str(r["scheduler"]), f"mean {_seconds(r['mean_completion_s'])}, p95 "
                                      f"{_seconds(r['p95_completion_s'])}, makespan {_seconds(r['makespan_s'])}")
                for r in self.comparison.table()]
        return _html_summary(f"mrsim compare ({counted(self.comparison.replications, 'replication')})", rows,
                             self.warnings)
