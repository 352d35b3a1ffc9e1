"""While the executor starts (Dask's LocalCluster, in a background thread), the sweep driver runs cells itself;
the table is the one a local pool gives."""

from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path
from typing import Any, Sequence

import pandas.testing as pdt
import pytest

from mrsim.analysis.sweeps import (ExecutorKind, ExecutorOptions, deterministic_view, load_spec, open_sweep,
                                   plan_cells, read_results, run_sweep)
from mrsim.analysis.sweeps.runner import run_chunk
from tests.analysis.sweeps.helpers import SLOTS_SPEC, write_spec


class _SlowToStart:
    """A backend that is not ready for its first ``not_ready`` questions; its chunks run at once, in-process."""

    name = "slow-to-start"
    slots = 2

    def __init__(self, not_ready: int) -> None:
        self.not_ready = not_ready
        self.submitted = 0

    def ready(self) -> bool:
        self.not_ready -= 1
        return self.not_ready < 0

    def submit(self, cells: Sequence[Any]) -> cf.Future:
        assert self.ready(), "submit before the executor is up"
        self.submitted += len(cells)
        fut: cf.Future = cf.Future()
        fut.set_result(run_chunk(tuple(cells)))
        return fut

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        return set(futures), set()

    def result(self, future: cf.Future) -> list:
        return future.result()


def test_the_driver_runs_cells_while_the_executor_starts(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, SLOTS_SPEC))
    backend = _SlowToStart(not_ready=3)
    with open_sweep(spec, tmp_path / "r.parquet") as sweep:
        computed, chunks, in_driver = sweep._dispatch(backend, sweep.todo, None, None)
    n = len(plan_cells(spec))
    assert computed == n and backend.submitted == n - 3  # three cells ran in the driver, the rest on the backend
    assert in_driver == 3


def test_dask_local_cluster_started_in_the_background_gives_the_local_table(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    spec = load_spec(write_spec(tmp_path, SLOTS_SPEC))
    local = run_sweep(spec, tmp_path / "local.parquet", ExecutorOptions(ExecutorKind.LOCAL, workers=1))
    dask = run_sweep(spec, tmp_path / "dask.parquet", ExecutorOptions(ExecutorKind.DASK, workers=1))
    assert dask.complete and dask.computed == local.computed == len(plan_cells(spec))
    assert dask.executor.startswith("dask (LocalCluster") and dask.startup_s > 0
    pdt.assert_frame_equal(deterministic_view(read_results(tmp_path / "local.parquet")),
                           deterministic_view(read_results(tmp_path / "dask.parquet")))
