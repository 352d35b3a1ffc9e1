"""Run a sweep: plan the cells, skip those already in the journal, run the rest on an executor, write the table.

>>> from mrsim.analysis.sweeps import load_spec, run_sweep  # doctest: +SKIP
>>> stats = run_sweep(load_spec("examples/sweeps/fifo_grid.toml"), Path("out/fifo.parquet"))

Resumable: finished cells go to the journal (:mod:`.journal`) as their chunk returns; re-running the same spec
computes only the cells missing from it, and the table is written once every cell of the plan is in. Cost:
the cells' replays plus ~1 ms of driver work per chunk.
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mrsim.analysis.sweeps.batching import DEFAULT_CHUNK_S, ChunkSizer
from mrsim.analysis.sweeps.cells import Cell, plan_cells
from mrsim.analysis.sweeps.executors import ExecutorOptions, open_backend
from mrsim.analysis.sweeps.journal import Journal, journal_path
from mrsim.analysis.sweeps.runner import CellOutcome, run_chunk
from mrsim.analysis.sweeps.spec import SweepSpec
from mrsim.analysis.sweeps.table import results_table, write_results
from mrsim.errors import InputError

#: Chunks kept in flight per worker slot: one running, one queued, so workers never wait for the driver (a backend
#: may ask for more with ``in_flight_per_slot``: Dask's, whose scheduler then queues them itself).
IN_FLIGHT_PER_SLOT = 2


@dataclass(frozen=True)
class SweepStats:
    """What a run did. ``cells_per_s`` counts cells computed by this run over its wall time (executor start-up
    included, shutdown excluded); ``complete`` says whether every cell of the plan is now done and the table
    was written; ``in_driver`` counts the computed cells the driver ran itself while the executor started (Dask's
    LocalCluster; always 0 on the local pool, which starts at once)."""

    cells: int
    reused: int
    computed: int
    chunks: int
    wall_s: float
    startup_s: float
    executor: str
    complete: bool
    written: tuple[str, ...] = ()
    in_driver: int = 0

    @property
    def cells_per_s(self) -> float:
        return self.computed / self.wall_s if self.wall_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"cells": self.cells, "reused": self.reused, "computed": self.computed, "chunks": self.chunks,
                "wall_s": round(self.wall_s, 4), "startup_s": round(self.startup_s, 4),
                "cells_per_s": round(self.cells_per_s, 2), "executor": self.executor, "complete": self.complete,
                "written": list(self.written), "in_driver": self.in_driver}


class Sweep:
    """An opened sweep (journal locked): :attr:`todo` lists the cells still to compute; :meth:`run` runs them."""

    def __init__(self, spec: SweepSpec, output: Path, journal: Journal, csv: bool) -> None:
        self.spec = spec
        self.output = output
        self.csv = csv
        self.cells = plan_cells(spec)
        self._journal = journal
        self.records = journal.read()
        self.todo: tuple[Cell, ...] = tuple(c for c in self.cells if c.cell_id not in self.records)

    def run(self, executor: ExecutorOptions = ExecutorOptions(), *, max_cells: int | None = None,
            chunk_size: int | None = None, progress: Callable[[int], None] | None = None) -> SweepStats:
        """Compute the missing cells (at most ``max_cells`` of them), then write the table if all are done.

        A failing cell stops new submissions; the chunks in flight finish and are journaled, then an
        :class:`InputError` names the first failed cell.
        """
        todo = self.todo if max_cells is None else self.todo[:max_cells]
        reused = len(self.cells) - len(self.todo)
        started = time.perf_counter()
        computed = chunks = in_driver = 0
        startup = 0.0
        name = "none (nothing to compute)"
        finished = started
        if todo:
            with open_backend(executor) as backend:
                startup = time.perf_counter() - started
                name = backend.name
                computed, chunks, in_driver = self._dispatch(backend, todo, chunk_size, progress)
                finished = time.perf_counter()  # before the executor's shutdown, which is not throughput
                startup = max(startup, getattr(backend, "startup_s", 0.0))  # Dask: started in the background
                written = self._write_if_complete()  # before the shutdown: the user's results come first
        else:
            written = self._write_if_complete()
        wall = finished - started
        return SweepStats(len(self.cells), reused, computed, chunks, wall, startup, name, not self.todo, written,
                          in_driver)

    def _write_if_complete(self) -> tuple[str, ...]:
        """Write the table (and its spec record) if every cell of the plan is done; the files written."""
        self.todo = tuple(c for c in self.cells if c.cell_id not in self.records)
        if self.todo:
            return ()
        table = results_table(self.cells, self.records)
        return tuple(str(p) for p in write_results(table, self.output, self._spec_record(), self.csv))

    def _dispatch(self, backend: Any, todo: tuple[Cell, ...], chunk_size: int | None,
                  progress: Callable[[int], None] | None) -> tuple[int, int, int]:
        """Run ``todo`` on ``backend``; returns the cells computed, the tasks submitted and the cells the driver
        ran itself while the backend started."""
        queue = collections.deque(todo)
        by_id = {c.cell_id: c for c in todo}
        target = getattr(backend, "chunk_target_s", DEFAULT_CHUNK_S)
        sizer = ChunkSizer(backend.slots, target_s=target, fixed=chunk_size,
                           floor_s=getattr(backend, "chunk_floor_s", 0.0))
        depth = getattr(backend, "in_flight_per_slot", IN_FLIGHT_PER_SLOT)
        inflight: dict[Any, tuple[Cell, ...]] = {}
        failures: list[str] = []
        computed = chunks = 0
        # While the executor starts (Dask's LocalCluster, in a background thread), the driver runs cells itself,
        # one at a time, rather than wait: the start-up the user waits for is no longer idle time.
        while queue and not failures and not backend.ready():
            computed += self._record(run_chunk((queue.popleft(),)), by_id, sizer, failures, progress, computed)
        in_driver = computed
        while True:
            while queue and not failures and len(inflight) < depth * backend.slots:
                n = sizer.next_size(len(queue))
                chunk = tuple(queue.popleft() for _ in range(n))
                inflight[backend.submit(chunk)] = chunk
                chunks += 1
            if not inflight:
                break
            done, _ = backend.wait_any(set(inflight))
            for fut in done:
                chunk = inflight.pop(fut)
                try:
                    outcomes = backend.result(fut)
                except Exception as exc:  # a worker died or the cluster went away: not the cell's fault
                    failures.append(f"a worker failed while running {len(chunk)} cell(s) from {chunk[0].describe()}: "
                                    f"{type(exc).__name__}: {' '.join(str(exc).split())}")
                    continue
                computed += self._record(outcomes, by_id, sizer, failures, progress, computed)
        if failures:
            raise InputError(f"{len(failures)} problem(s); first: {failures[0]}. Finished cells are kept in "
                             f"{self._journal.path}; re-run to compute the rest")
        return computed, chunks, in_driver

    def _record(self, outcomes: list[CellOutcome], by_id: dict[str, Cell], sizer: ChunkSizer, failures: list[str],
                progress: Callable[[int], None] | None, computed: int) -> int:
        """Journal a finished chunk's outcomes; returns how many cells it computed (failures go to ``failures``)."""
        for rec in self._journal.append(outcomes):
            self.records[rec["cell_id"]] = rec
        sizer.observe(len(outcomes), sum(o.wall_s for o in outcomes))
        failures += [f"{by_id[o.cell_id].describe()} failed: {o.error}" for o in outcomes if o.error]
        done = sum(1 for o in outcomes if o.error is None)
        if progress is not None:
            progress(computed + done)
        return done

    def _spec_record(self) -> dict[str, Any]:
        return {**self.spec.describe(), "cells": len(self.cells)}


class open_sweep:
    """``with open_sweep(spec, output) as sweep:`` locks the journal beside ``output`` for the block.

    ``restart`` discards the journal first (recompute everything); ``csv`` also writes ``<output stem>.csv``.
    ``dry_run`` reads the journal without creating, locking or changing anything (nothing is written).
    """

    def __init__(self, spec: SweepSpec, output: str | Path, *, csv: bool = False, restart: bool = False,
                 dry_run: bool = False) -> None:
        self.output = Path(output)
        if self.output.suffix.lower() != ".parquet":
            raise InputError(f"{self.output}: the results file must end in .parquet (add --csv for a CSV copy)")
        self.spec = spec
        self.csv = csv
        self.restart = restart
        self.dry_run = dry_run
        self._journal = Journal(journal_path(self.output), read_only=dry_run)

    def __enter__(self) -> Sweep:
        journal = self._journal.__enter__()
        try:
            if self.restart and not self.dry_run:
                journal.clear()
            return Sweep(self.spec, self.output, journal, self.csv)
        except BaseException:
            self._journal.__exit__(None, None, None)
            raise

    def __exit__(self, *exc: object) -> None:
        self._journal.__exit__(*exc)


def run_sweep(spec: SweepSpec, output: str | Path, executor: ExecutorOptions = ExecutorOptions(), *,
              csv: bool = False, restart: bool = False, max_cells: int | None = None, chunk_size: int | None = None,
              progress: Callable[[int], None] | None = None) -> SweepStats:
    """Open, run and close a sweep in one call (see :class:`Sweep.run`)."""
    with open_sweep(spec, output, csv=csv, restart=restart) as sweep:
        return sweep.run(executor, max_cells=max_cells, chunk_size=chunk_size, progress=progress)

