"""Experiments at scale: sweep specs, cells, executors (local processes or Dask), a resumable journal and a tidy
results table.

Modules: :mod:`.spec` (TOML → validated :class:`SweepSpec`), :mod:`.axes` (grid axes), :mod:`.sources`
(workloads), :mod:`.variants` (schedulers, clusters, engine options), :mod:`.cells` (the plan, ids and seeds),
:mod:`.runner` (worker side), :mod:`.executors`, :mod:`.batching`, :mod:`.journal`, :mod:`.table` and
:mod:`.sweep` (the driver). The user guide is ``docs/sweeps.md``.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mrsim.analysis.sweeps.axes import Model, Param
    from mrsim.analysis.sweeps.cells import Cell, plan_cells
    from mrsim.analysis.sweeps.executors import ExecutorKind, ExecutorOptions
    from mrsim.analysis.sweeps.runner import TIMING_METRICS, run_cell
    from mrsim.analysis.sweeps.spec import SweepSpec, load_spec, parse_spec
    from mrsim.analysis.sweeps.sweep import SweepStats, open_sweep, run_sweep
    from mrsim.analysis.sweeps.table import deterministic_view, read_results

#: Where each public name lives. Imported on first use (PEP 562), so that a worker importing
#: :mod:`.runner` does not import the driver's modules (the table's pandas alone is half a second of CPU, paid
#: once per Dask worker fork server and per spawned worker).
_EXPORTS = {
    "Model": "axes", "Param": "axes", "Cell": "cells", "plan_cells": "cells", "ExecutorKind": "executors",
    "ExecutorOptions": "executors", "TIMING_METRICS": "runner", "run_cell": "runner", "SweepSpec": "spec",
    "load_spec": "spec", "parse_spec": "spec", "SweepStats": "sweep", "open_sweep": "sweep", "run_sweep": "sweep",
    "deterministic_view": "table", "read_results": "table",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


__all__ = [
    "Cell",
    "ExecutorKind",
    "ExecutorOptions",
    "Model",
    "Param",
    "SweepSpec",
    "SweepStats",
    "TIMING_METRICS",
    "deterministic_view",
    "load_spec",
    "open_sweep",
    "parse_spec",
    "plan_cells",
    "read_results",
    "run_cell",
    "run_sweep",
]
