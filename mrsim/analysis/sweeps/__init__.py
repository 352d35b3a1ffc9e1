"""Experiments at scale: sweep specs, cells, executors (local processes or Dask), a resumable journal and a tidy
results table.

Modules: :mod:`.spec` (TOML → validated :class:`SweepSpec`), :mod:`.axes` (grid axes), :mod:`.sources`
(workloads), :mod:`.variants` (schedulers, clusters, engine options), :mod:`.cells` (the plan, ids and seeds),
:mod:`.runner` (worker side), :mod:`.executors`, :mod:`.batching`, :mod:`.journal`, :mod:`.table` and
:mod:`.sweep` (the driver). The user guide is ``docs/sweeps.md``.
"""

from mrsim.analysis.sweeps.axes import Model, Param
from mrsim.analysis.sweeps.cells import Cell, plan_cells
from mrsim.analysis.sweeps.executors import ExecutorKind, ExecutorOptions
from mrsim.analysis.sweeps.runner import TIMING_METRICS, run_cell
from mrsim.analysis.sweeps.spec import SweepSpec, load_spec, parse_spec
from mrsim.analysis.sweeps.sweep import SweepStats, open_sweep, run_sweep
from mrsim.analysis.sweeps.table import deterministic_view, read_results

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
