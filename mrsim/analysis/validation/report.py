"""Validation results: per-job simulated vs actual completion, the error arithmetic, and the ``--json`` object.

The JSON object extends the replay contract (:mod:`mrsim.tracker.results`) and never breaks it::

    {"scheduler", "mode": "shared" | "isolate",
     "jobs": [{<replay contract keys>, "outcome", "scored", "error_pct",
               "trace_launch_delay_s", "sim_launch_delay_s", "trace_task_span_s", "sim_task_span_s",
               "trace_tail_s", "setup_s", "cleanup_s", "failed_attempt_s", "start_lag_s", "finish_lag_s",
               "peak_maps", "peak_reduces", ["map_slots", "reduce_slots" with --isolate]}, ...],
     "summary": {<replay contract keys>, "mode", "scored_jobs", "mean_abs_error_pct", "max_abs_error_pct",
                 "mean_error_pct", "mean_abs_task_span_error_pct", "max_abs_task_span_error_pct",
                 "error_sources": {<mean of each decomposition term and observation over scored jobs>}},
     "spec": {...}, "warnings": [...]}

``error_pct = 100 * (completion_s - actual_completion_s) / actual_completion_s``: positive when the simulation
is slower than the real run. A job is *scored* only when its trace outcome is SUCCESS and its actual completion
is known and positive; other jobs are replayed (they occupied the cluster) but their ``error_pct`` is null.
Summary errors are over scored jobs (null when there are none).

Per-job decomposition (all seconds, exact in the JobTracker clock; see :mod:`mrsim.profiler.observe`)::

    completion_s - actual_completion_s = (sim_launch_delay_s - trace_launch_delay_s)
                                       + (sim_task_span_s - trace_task_span_s) - trace_tail_s

where the simulated launch delay is ``start_s - submit_s`` (first task launch) and the simulated task span is
``finish_s - start_s``. When the engine replays the trace's cleanup task (job overheads on, the default), that
simulated span includes the cleanup, while the trace's tail is kept apart, so ``mean_abs_task_span_error_pct`` in
the ``--json`` summary compares a span with cleanup against one without; ``python3 -m mrsim.analysis.validation.tables``
(see docs/validation.md) adds the trace's tail back for that case. With ``--no-job-overheads`` the simulation has
no tail. The *task-span error* ``100 * (sim_task_span_s - trace_task_span_s) / trace_task_span_s`` isolates the
part the engine models (task execution and slot allocation) from job launch and cleanup; it is a diagnostic, not
the validation figure.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from mrsim.profiler.observe import JobObservation
from mrsim.model.templates import JobTemplate, Outcome


class Mode(enum.Enum):
    """How jobs are replayed: all together on the cluster, or each alone with the slots it held."""

    SHARED = "shared"
    ISOLATE = "isolate"


def error_pct(simulated: float | None, actual: float | None) -> float | None:
    """``100 * (simulated - actual) / actual``, or None when either is unknown or actual is not positive."""
    if simulated is None or actual is None:
        return None
    if not (math.isfinite(simulated) and math.isfinite(actual)) or actual <= 0:
        return None
    return 100.0 * (simulated - actual) / actual


def is_scored(template: JobTemplate) -> bool:
    """Whether a job's error counts: it succeeded in the trace and its actual completion is known."""
    actual = template.actual_completion_s
    return template.outcome is Outcome.SUCCESS and actual is not None and actual > 0


def _r(x: float | None, digits: int = 6) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), digits)


def job_row(base: Mapping[str, Any], template: JobTemplate, observation: JobObservation | None) -> dict[str, Any]:
    """One job's JSON row: the replay contract row ``base`` plus error and decomposition keys."""
    row = dict(base)
    scored = is_scored(template)
    obs = observation or JobObservation()
    row["outcome"] = template.outcome.value
    row["scored"] = scored
    row["error_pct"] = _r(error_pct(row["completion_s"], row["actual_completion_s"]), 4) if scored else None
    row["trace_launch_delay_s"] = _r(obs.launch_delay_s)
    row["sim_launch_delay_s"] = _r(row["start_s"] - row["submit_s"])
    row["trace_task_span_s"] = _r(obs.task_span_s)
    row["sim_task_span_s"] = _r(row["finish_s"] - row["start_s"])
    row["trace_tail_s"] = _r(obs.tail_s)
    row["setup_s"] = _r(obs.setup_s)
    row["cleanup_s"] = _r(obs.cleanup_s)
    row["failed_attempt_s"] = _r(obs.failed_attempt_s)
    row["start_lag_s"] = _r(obs.start_lag_s)
    row["finish_lag_s"] = _r(obs.finish_lag_s)
    row["peak_maps"] = obs.peak_maps
    row["peak_reduces"] = obs.peak_reduces
    return row


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def error_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Error figures over the scored rows, and the mean of each decomposition term (seconds)."""
    scored = [r for r in rows if r.get("scored") and r.get("error_pct") is not None]
    errors = [float(r["error_pct"]) for r in scored]
    spans = [e for e in (error_pct(r.get("sim_task_span_s"), r.get("trace_task_span_s")) for r in scored) if e is not None]

    def mean_of(key: str) -> float | None:
        return _mean([float(r[key]) for r in scored if r.get(key) is not None])

    return {
        "scored_jobs": len(scored),
        "mean_abs_error_pct": _mean([abs(e) for e in errors]),
        "max_abs_error_pct": round(max(abs(e) for e in errors), 4) if errors else None,
        "mean_error_pct": _mean(errors),
        "mean_abs_task_span_error_pct": _mean([abs(e) for e in spans]),
        "max_abs_task_span_error_pct": round(max(abs(e) for e in spans), 4) if spans else None,
        "error_sources": {
            "trace_launch_delay_s": mean_of("trace_launch_delay_s"),
            "sim_launch_delay_s": mean_of("sim_launch_delay_s"),
            "trace_task_span_s": mean_of("trace_task_span_s"),
            "sim_task_span_s": mean_of("sim_task_span_s"),
            "trace_tail_s": mean_of("trace_tail_s"),
            "setup_s": mean_of("setup_s"),
            "cleanup_s": mean_of("cleanup_s"),
            "failed_attempt_s": mean_of("failed_attempt_s"),
            "start_lag_s": mean_of("start_lag_s"),
            "finish_lag_s": mean_of("finish_lag_s"),
        },
    }


@dataclass
class ValidationReport:
    """A validation run: JSON-ready per-job rows, the summary, and the specification it ran with."""

    mode: Mode
    scheduler: str
    jobs: list[dict[str, Any]]
    summary: dict[str, Any]
    spec: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: the shared-mode replay itself (per-task rows for reports); None in isolate mode
    replay: Any = field(default=None, repr=False, compare=False)

    def to_json_dict(self) -> dict[str, Any]:
        return {"scheduler": self.scheduler, "mode": self.mode.value, "jobs": self.jobs, "summary": self.summary,
                "spec": self.spec, "warnings": list(self.warnings)}

    def scored_pairs(self) -> list[tuple[str, float, float]]:
        """``(job_id, actual_s, simulated_s)`` of every scored job (for plots)."""
        return [(r["job_id"], float(r["actual_completion_s"]), float(r["completion_s"]))
                for r in self.jobs if r.get("scored") and r.get("error_pct") is not None]
