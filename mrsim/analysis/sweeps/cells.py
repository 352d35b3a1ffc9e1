"""Expand a :class:`~mrsim.analysis.sweeps.spec.SweepSpec` into cells: one grid point x one replication x one scheduler.

Identity and randomness (both pure functions of content, see :mod:`.ids`):

* ``cell_id`` hashes everything that determines the cell's result: model, workload content, cluster, engine
  options, scheduler and its config, every axis value, replication and seed.
* ``seed`` hashes only the *random inputs*: the spec's master seed, the workload and the replication index (or is
  the value given in ``grid.seed``). Schedulers, clusters and the other axes are treatments and share it, so a
  comparison between them sees identical workloads, heartbeat phases, deadlines and estimation errors (common
  random numbers).

Order: workloads, clusters, grid points (axes in :class:`Param` order), replications, schedulers (innermost, so
cells sharing a generated workload sit side by side in a chunk). Cost: O(cells).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterator

from mrsim.analysis.sweeps.axes import AXES, Model, Param, identity_params, model_params
from mrsim.analysis.sweeps.ids import content_id, derive_seed
from mrsim.analysis.sweeps.sources import WorkloadSource
from mrsim.analysis.sweeps.spec import SweepSpec
from mrsim.analysis.sweeps.variants import ClusterVariant, EngineOptions, SchedulerEntry

#: Bump when what a cell computes changes meaning, so old journals are not reused.
CELL_FORMAT = 1

#: Identity columns, in table order, before the axis columns.
IDENTITY_COLUMNS = ("cell_id", "model", "workload", "cluster", "scheduler")
#: Columns after the axis columns.
TRAILER_COLUMNS = ("replication", "seed")


@dataclass(frozen=True)
class Cell:
    """One unit of work: everything a worker needs to run it (frozen, picklable, a few hundred bytes)."""

    cell_id: str
    seed: int
    replication: int
    model: Model
    workload: WorkloadSource
    scheduler: SchedulerEntry
    cluster: ClusterVariant | None
    engine: EngineOptions | None
    params: tuple[tuple[Param, Any], ...]

    def value(self, param: Param) -> Any:
        return dict(self.params).get(param)

    def columns(self) -> dict[str, Any]:
        """The cell's parameter columns of the results table."""
        row: dict[str, Any] = {"cell_id": self.cell_id, "model": self.model.value, "workload": self.workload.label,
                               "cluster": self.cluster.label if self.cluster else None,
                               "scheduler": self.scheduler.label}
        for param, value in self.params:
            row[param.value] = value
        row["replication"] = self.replication
        row["seed"] = self.seed
        if self.cluster is not None:
            row.update(self.cluster.columns())
        return row

    def describe(self) -> str:
        """One line for error messages."""
        parts = [f"workload={self.workload.label}", f"scheduler={self.scheduler.label}"]
        if self.cluster:
            parts.append(f"cluster={self.cluster.label}")
        parts += [f"{p.value}={v}" for p, v in self.params if v is not None]
        parts += [f"replication={self.replication}", f"seed={self.seed}"]
        return f"cell {self.cell_id} ({', '.join(parts)})"


def _points(spec: SweepSpec) -> Iterator[dict[Param, Any]]:
    axes = [(p, v) for p, v in spec.grid if p is not Param.SEED]
    for combo in itertools.product(*(values for _, values in axes)):
        yield {p: combo[i] for i, (p, _) in enumerate(axes)}


def _effective(spec: SweepSpec, workload: WorkloadSource, point: dict[Param, Any]) -> tuple[tuple[Param, Any], ...]:
    values = []
    for param in model_params(spec.model):
        value = point.get(param, AXES[param].default)
        if param is Param.MEAN_INTERARRIVAL_S and value is None and workload.generator is not None:
            value = float(workload.facebook_spec(0).mean_interarrival_s)  # the generator's own mean
        values.append((param, value))
    return tuple(values)


def _seeds(spec: SweepSpec, workload: WorkloadSource) -> list[tuple[int, int]]:
    """(replication, seed) pairs for one workload."""
    explicit = spec.axis(Param.SEED)
    if explicit is not None:
        return [(0, int(s)) for s in explicit]
    return [(r, derive_seed({"seed": spec.seed, "workload": workload.fingerprint(), "replication": r}))
            for r in range(spec.replications)]


def plan_cells(spec: SweepSpec) -> tuple[Cell, ...]:
    """Every cell of ``spec`` in sweep order (see the module docstring)."""
    cells = []
    clusters: tuple[ClusterVariant | None, ...] = spec.clusters or (None,)
    for workload in spec.workloads:
        seeds = _seeds(spec, workload)
        for cluster in clusters:
            for point in _points(spec):
                params = _effective(spec, workload, point)
                for replication, seed in seeds:
                    for scheduler in spec.schedulers:
                        identity = {
                            "format": CELL_FORMAT, "model": spec.model.value, "workload": workload.fingerprint(),
                            "cluster": cluster.fingerprint() if cluster else None,
                            "engine": spec.engine.fingerprint() if spec.engine else None,
                            "scheduler": scheduler.fingerprint(), "params": identity_params(params),
                            "replication": replication, "seed": seed,
                        }
                        cells.append(Cell(content_id(identity), seed, replication, spec.model, workload, scheduler,
                                          cluster, spec.engine, params))
    return tuple(cells)
