"""Replay a profiled trace the way it ran and compare each job's completion time with the real one (SimMR IV-D).

Two settings (``docs/validation.md`` has the figures and the error analysis):

* :attr:`Mode.SHARED`: the whole trace is replayed together, with its submit times, under one scheduler on one
  cluster (given, or inferred from the trace by :mod:`mrsim.profiler.topology_infer`). Every job sees the
  contention of the other *traced* jobs, not of jobs missing from the trace.
* :attr:`Mode.ISOLATE`, SimMR's validation setting: every job is replayed **alone**, on a cluster whose slot
  counts equal the job's observed peaks: ``peak_maps`` map slots and ``peak_reduces`` reduce slots (the most
  map / reduce attempts of that job, of any result, running at one instant in the trace), laid out as
  ``max(peak_maps, peak_reduces)`` TaskTrackers of one map and/or one reduce slot each (tracker *i* has a map
  slot iff ``i < peak_maps`` and a reduce slot iff ``i < peak_reduces``), on one rack. The heartbeat interval
  stays the one of the full cluster (``--heartbeat-interval`` if given, else the Hadoop formula for the full
  cluster's tracker count), since the real JobTracker paced heartbeats by the real cluster's size. A job whose
  peaks are unknown (no attempt windows, e.g. a SWIM job or a store without observations) or zero while it has
  tasks of that kind gets the full cluster's slot total of that kind, with a warning. Each job is replayed
  with a fresh scheduler instance and the same seed; its times are then shifted by its own submit time so that
  ``submit_s`` keeps the trace's relative submission.

Cost: shared = one replay; isolate = one replay per job (each tiny).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping

from mrsim.profiler.observe import JobObservation
from mrsim.tracker.replay import ReplayOptions, effective_interval, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload

if TYPE_CHECKING:
    from mrsim.calibration.background import Background
from typing import TYPE_CHECKING

from mrsim.analysis.validation.report import Mode, ValidationReport, error_summary, job_row


@dataclass(frozen=True)
class ValidationSetup:
    """Frozen inputs of a validation run."""

    workload: Workload
    cluster: ClusterSpec
    conf: HadoopConf
    scheduler: str
    options: ReplayOptions
    observations: Mapping[str, JobObservation]
    scheduler_config: Mapping[str, Any] | None = None
    #: replaces the MR1 engine when set (``--engine yarn``): ``runner(workload, cluster) -> ReplayResult``;
    #: isolated runs then replay each job alone on the full cluster (containers have no per-job slot peaks)
    runner: Callable[[Workload, ClusterSpec], Any] | None = None


def isolate_cluster(map_slots: int, reduce_slots: int, source: str = "isolate") -> ClusterSpec:
    """``max(map_slots, reduce_slots)`` single-slot TaskTrackers holding ``map_slots`` map and ``reduce_slots``
    reduce slots in total (see the module docstring)."""
    n = max(map_slots, reduce_slots, 1)
    trackers = tuple(
        TrackerSpec(f"isolate{i + 1:04d}", map_slots=int(i < map_slots), reduce_slots=int(i < reduce_slots))
        for i in range(n)
    )
    return ClusterSpec(trackers, source=f"{source}: {map_slots} map + {reduce_slots} reduce slots")


def _isolate_slots(template: JobTemplate, obs: JobObservation | None, full: ClusterSpec,
                   warnings: list[str]) -> tuple[int, int]:
    maps = obs.peak_maps if obs is not None else None
    reduces = obs.peak_reduces if obs is not None else None
    if template.n_maps and not maps:
        maps = full.map_slots
        warnings.append(f"job {template.job_id}: peak concurrent maps unknown; isolated on the full cluster's "
                        f"{maps} map slots")
    if template.n_reduces and not reduces:
        reduces = full.reduce_slots
        warnings.append(f"job {template.job_id}: peak concurrent reduces unknown; isolated on the full cluster's "
                        f"{reduces} reduce slots")
    return int(maps or 0), int(reduces or 0)


def validate_shared(setup: ValidationSetup, progress: Callable[[float], None] | None = None) -> ValidationReport:
    """Replay the whole workload together and score every job. ``progress(fraction)``: the share of the jobs
    finished so far, as the replay goes (MR1 engine)."""
    if setup.runner is not None:
        result = setup.runner(setup.workload, setup.cluster)
    else:
        scheduler = create_scheduler(setup.scheduler, dict(setup.scheduler_config or {}))
        jobs = max(1, len(setup.workload))
        result = replay(setup.workload, setup.cluster, setup.conf, scheduler, setup.options,
                        progress=None if progress is None else (lambda done: progress(done / jobs)))
    doc = result.to_json_dict()
    templates = {t.job_id: t for t in setup.workload.jobs}
    rows = [job_row(base, templates[base["job_id"]], setup.observations.get(base["job_id"])) for base in doc["jobs"]]
    summary = {**doc["summary"], "mode": Mode.SHARED.value, **error_summary(rows)}
    spec = {**doc["spec"], "mode_validation": Mode.SHARED.value}
    return ValidationReport(Mode.SHARED, doc["scheduler"], rows, summary, spec, tuple(doc["warnings"]), replay=result)


def validate_isolated(setup: ValidationSetup, progress: Callable[[float], None] | None = None) -> ValidationReport:
    """Replay every job alone on the slots it held and score it (see the module docstring). ``progress(done)``:
    the number of jobs replayed so far."""
    started = time.perf_counter()
    interval = effective_interval(setup.options, setup.conf, len(setup.cluster))
    options = replace(setup.options, heartbeat_interval_s=interval)
    origin = setup.workload.origin_s
    warnings: list[str] = list(setup.workload.warnings)
    rows: list[dict[str, Any]] = []
    events = tasks = heartbeats = 0
    scheduler_name = setup.scheduler
    first_spec: dict[str, Any] = {}
    for template in setup.workload.jobs:
        obs = setup.observations.get(template.job_id)
        maps, reduces = _isolate_slots(template, obs, setup.cluster, warnings)
        alone = Workload.of([template], source=setup.workload.source)
        if setup.runner is not None:
            result = setup.runner(alone, setup.cluster)
        else:
            cluster = isolate_cluster(maps, reduces, source=f"isolate {template.job_id}")
            scheduler = create_scheduler(setup.scheduler, dict(setup.scheduler_config or {}))
            result = replay(alone, cluster, setup.conf, scheduler, options)
        doc = result.to_json_dict()
        base = dict(doc["jobs"][0])
        shift = template.submit_s - origin
        for key in ("submit_s", "start_s", "finish_s"):
            base[key] = round(base[key] + shift, 6)
        row = job_row(base, template, obs)
        row["map_slots"], row["reduce_slots"] = maps, reduces
        rows.append(row)
        events += int(doc["summary"]["events"])
        heartbeats += int(doc["summary"].get("heartbeats", 0))
        tasks += int(doc["summary"]["tasks"])
        scheduler_name = doc["scheduler"]
        first_spec = first_spec or doc["spec"]
        if progress is not None:
            progress(len(rows))
    completions = [r["completion_s"] for r in rows]
    summary = {
        "jobs": len(rows),
        "tasks": tasks,
        "makespan_s": round(max((r["finish_s"] for r in rows), default=0.0), 6),
        "mean_completion_s": round(sum(completions) / len(completions), 6) if completions else 0.0,
        "events": events,
        "wall_s": round(time.perf_counter() - started, 4),
        "heartbeats": heartbeats,
        "mode": Mode.ISOLATE.value,
        **error_summary(rows),
    }
    spec = {
        **{k: v for k, v in first_spec.items() if k != "cluster"},
        # a runner's (YARN mode's) own interval is its NodeManagers'; the JobTracker formula's is not used there
        "heartbeat_interval_s": first_spec.get("heartbeat_interval_s", interval) if setup.runner is not None
        else interval,
        "mode_validation": Mode.ISOLATE.value,
        "cluster": {"isolate": "per job: peak_maps map slots + peak_reduces reduce slots on single-slot trackers",
                    "full_cluster": setup.cluster.describe()},
        "trace": setup.workload.source,
    }
    return ValidationReport(Mode.ISOLATE, scheduler_name, rows, summary, spec, tuple(warnings))


def validate(setup: ValidationSetup, mode: Mode, progress: Callable[[float], None] | None = None) -> ValidationReport:
    """Run the validation in ``mode``; ``progress`` as :func:`validate_isolated` (jobs replayed) or
    :func:`validate_shared` (share of the replay done)."""
    return validate_isolated(setup, progress) if mode is Mode.ISOLATE else validate_shared(setup, progress)


def add_background_figures(report: ValidationReport, plain: ValidationReport, background: "Background") -> None:
    """Put the background's share in ``report`` (replayed with it): per job ``background_wait_s`` (seconds of
    its wait in the trace that the outside work explains) and ``error_pct_without_background``; in the summary,
    ``without_background`` (the error figures of the replay without it), so the model's own accuracy stays
    visible."""
    without = {row["job_id"]: row for row in plain.jobs}
    for row in report.jobs:
        row["background_wait_s"] = background.job_waits.get(row["job_id"], 0.0)
        other = without.get(row["job_id"])
        row["error_pct_without_background"] = other.get("error_pct") if other else None
    keys = ("mean_abs_error_pct", "max_abs_error_pct", "mean_error_pct", "mean_completion_s")
    report.summary["without_background"] = {k: plain.summary.get(k) for k in keys}
    report.summary["background_slot_s"] = round(background.slot_seconds, 3)
