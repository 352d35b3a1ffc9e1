"""Worker side: run cells (on any executor) and return their metrics as plain records.

Everything here is a pure function of the cell, so the same cell gives the same metrics on any worker, except
the wall-clock metrics listed in :data:`TIMING_METRICS`. Inputs are built fresh per cell from frozen recipes
(Omega's habit: immutable specs, a fresh simulator per sweep point); only the parsed base workloads are cached
per worker process, because parsing a trace can cost more than replaying it.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from mrsim.analysis.sweeps.axes import LOAD_AXES, Model, Param
from mrsim.analysis.sweeps.cells import Cell
from mrsim.analysis.sweeps.sources import WorkloadSource
from mrsim.analysis.sweeps.transforms import isolated_times, scale_interarrival, with_deadlines
from mrsim.analysis.sweeps.variants import ClusterVariant, EngineOptions
from mrsim.errors import InputError
from mrsim.model.modes import Contention
from mrsim.model.templates import Workload

#: Metrics that measure the machine, not the model: they differ between runs of the same cell.
TIMING_METRICS = ("wall_s", "events_per_s", "cell_wall_s", "cell_cpu_s")


if TYPE_CHECKING:
    from mrsim.calibration.choice import CalibrationChoice
    from mrsim.model.hadoop_conf import HadoopConf

@dataclass(frozen=True)
class CellOutcome:
    """A cell's metrics (None on failure), its error (one line), and its wall and CPU time on the worker (s).

    Wall time includes waiting for a CPU on a busy machine; CPU time (``time.process_time``) does not.
    """

    cell_id: str
    metrics: dict[str, Any] | None
    error: str | None
    wall_s: float
    cpu_s: float = 0.0


@functools.lru_cache(maxsize=4)
def _trace_workload(path: str, fmt: str | None, digest: str | None) -> Workload:
    from mrsim.profiler.workloads import load_workload

    return load_workload(path, fmt)


@functools.lru_cache(maxsize=8)
def _generated_workload(source: WorkloadSource, seed: int, mean_interarrival_s: float | None) -> Workload:
    from mrsim.profiler.synth import facebook_like_workload

    return facebook_like_workload(source.facebook_spec(seed, mean_interarrival_s))


@functools.lru_cache(maxsize=4)
def _swim_trace(path: str, digest: str | None) -> Any:
    from mrsim.profiler.swim import read_swim

    return read_swim(path)


@functools.lru_cache(maxsize=16)
def _isolated(source: WorkloadSource, seed: int, mean_interarrival_s: float | None, scale: float,
              load: tuple[float | None, ...], cluster: ClusterVariant, engine: EngineOptions) -> np.ndarray:
    """T_J for the cell's workload; shared by every deadline factor and scheduler at this point (same key)."""
    workload = _point_workload(source, seed, mean_interarrival_s, scale, load)
    return isolated_times(workload, cluster.cluster, engine.conf(), engine.replay_options(seed))


def _point_workload(source: WorkloadSource, seed: int, mean_interarrival_s: float | None, scale: float,
                    load: tuple[float | None, ...]) -> Workload:
    """The base workload with ``interarrival_scale``, then the load what-if (``load``: the :data:`LOAD_AXES`
    values; fold first, then ``load_scale``, :mod:`mrsim.model.load`) seeded by the cell's seed."""
    from mrsim.model.load import LoadWhatIf, apply_load_what_if

    workload = scale_interarrival(_base_workload(source, seed, mean_interarrival_s), scale)
    load_scale, duration, cycle, concentration = load
    what = LoadWhatIf(load_scale=None if load_scale in (None, 1.0) else load_scale, duration_s=duration,
                      input_cycle_s=cycle, concentration=concentration, seed=seed)
    return apply_load_what_if(workload, what)[0]


@functools.lru_cache(maxsize=8)
def _calibration(setting: str, trace: str, fmt: str | None, digest: str | None, trackers: int,
                 conf: HadoopConf, version_given: bool) -> "CalibrationChoice":
    """The calibration a trace cell replays (``EngineOptions.calibration``; the CLI's rules, docs/calibration.md),
    its heartbeat carried to the cell's cluster (docs/what-if.md)."""
    from mrsim.calibration.choice import choose, measure

    measured, yarn = measure(trace, fmt)
    given = measure(setting)[0] if setting != "trace" else None
    return choose(measured, trackers, given=given, given_source=None if setting == "trace" else setting,
                  yarn=yarn, conf=conf, version_given=version_given)


def _base_workload(source: WorkloadSource, seed: int, mean_interarrival_s: float | None) -> Workload:
    if source.generator is not None:
        return _generated_workload(source, seed, mean_interarrival_s)
    assert source.trace is not None
    return _trace_workload(source.trace, source.format, source.digest)


def _scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def flatten_metrics(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalar summary entries as columns; nested tables become ``outer_inner``; lists are left out."""
    out: dict[str, Any] = {}
    for key, value in summary.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_metrics(value, f"{name}_"))
        elif value is None or isinstance(value, (bool, int, float, str, np.generic)):
            out[name] = _scalar(value)
    return out


def _run_slots(cell: Cell) -> dict[str, Any]:
    from types import SimpleNamespace

    from mrsim.profiler.assumptions import heartbeat_origin
    from mrsim.tracker.replay import replay
    from mrsim.tracker.scheduling import create_scheduler

    cluster, engine = cell.cluster, cell.engine
    assert cluster is not None and engine is not None
    mean = cell.value(Param.MEAN_INTERARRIVAL_S)
    scale = float(cell.value(Param.INTERARRIVAL_SCALE))
    load = tuple(None if cell.value(p) is None else float(cell.value(p)) for p in LOAD_AXES)
    workload = _point_workload(cell.workload, cell.seed, mean, scale, load)
    conf = engine.conf()
    options = engine.replay_options(cell.seed)
    if (cell.workload.trace is not None and engine.calibration != "none" and options.contention is Contention.NONE
            and engine.engine != "yarn"):
        choice = _calibration(engine.calibration, cell.workload.trace, cell.workload.format,
                              cell.workload.digest, len(cluster.cluster), conf, engine.hadoop_version is not None)
        if choice.calibration is not None:
            options = replace(options, calibration=choice.calibration)
            conf = choice.conf(conf)
    factor = cell.value(Param.DEADLINE_FACTOR)
    if factor is not None:
        isolated = _isolated(cell.workload, cell.seed, mean, scale, load, cluster, engine)
        workload = with_deadlines(workload, cluster.cluster, conf, float(factor), cell.seed, options, isolated)
    if engine.engine == "yarn":
        from mrsim.tracker.yarn import YarnConf, create_yarn_scheduler, replay_yarn

        yarn_conf = YarnConf() if engine.slowstart is None else YarnConf(slowstart=engine.slowstart)
        result = replay_yarn(workload, cluster.cluster, yarn_conf,
                             create_yarn_scheduler(cell.scheduler.name, cell.scheduler.config), seed=cell.seed,
                             aligned_heartbeats=engine.aligned_heartbeats, queue_series=False)
        summary = dict(result.summary)
        summary.pop("yarn", None)  # nested per-queue tables do not flatten into fixed columns
        return flatten_metrics(summary)
    scheduler = create_scheduler(cell.scheduler.name, cell.scheduler.config)
    result = replay(workload, cluster.cluster, conf, scheduler, options)
    metrics = flatten_metrics(result.summary)
    # What the cell's heartbeat was and why (a what-if of the trace's cluster re-derives it; docs/what-if.md).
    metrics["heartbeat_interval_s"] = result.spec.get("heartbeat_interval_s")
    flags = SimpleNamespace(heartbeat_interval=engine.heartbeat_interval_s, hadoop_version=engine.hadoop_version)
    metrics["heartbeat_rule"] = heartbeat_origin(flags, conf, len(cluster.cluster), options=options)  # as replay says
    return metrics


def _run_fluid(cell: Cell) -> dict[str, Any]:
    from mrsim.studies.fluid import run_fluid

    assert cell.workload.trace is not None
    trace = _swim_trace(cell.workload.trace, cell.workload.digest)
    out = run_fluid(trace, cell.scheduler.name, load=float(cell.value(Param.LOAD)), dn=float(cell.value(Param.DN)),
                    sigma=float(cell.value(Param.SIGMA)), seed=cell.seed)
    return flatten_metrics(out["summary"])


def run_cell(cell: Cell) -> dict[str, Any]:
    """The replay summary of one cell, flattened to scalar columns. Cost: one replay."""
    return _run_fluid(cell) if cell.model is Model.FLUID else _run_slots(cell)


def run_chunk(cells: Sequence[Cell]) -> list[CellOutcome]:
    """Run cells one after another; a failing cell is reported in its outcome and the others still run."""
    outcomes = []
    for cell in cells:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            metrics, error = run_cell(cell), None
        except InputError as exc:
            metrics, error = None, str(exc)
        except Exception as exc:  # reported to the driver by value: exceptions may not pickle across processes
            metrics, error = None, f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        outcomes.append(CellOutcome(cell.cell_id, metrics, error, time.perf_counter() - started,
                                    time.process_time() - cpu))
    return outcomes
