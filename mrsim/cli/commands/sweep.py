"""``mrsim sweep``: run a grid of replays from a TOML spec on local processes or a Dask cluster."""

from __future__ import annotations

from mrsim.cli.flags import add_renamed

import argparse
import sys

import orjson

NAME = "sweep"
HELP = "run a parameter sweep (grid x replications) from a TOML spec; resumable"
DESCRIPTION = (
    "Run every cell of a sweep spec (workloads x clusters x grid points x replications x schedulers) and write one "
    "tidy results table (Parquet, optionally CSV). Finished cells are journaled beside the output "
    "(RESULTS.journal.jsonl): re-running the same spec after an interruption computes only the missing cells. "
    "See docs/sweeps.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC.toml", help="sweep specification (docs/sweeps.md)")
    add_renamed(p, ("-o", "--out"), ("--output",), "output", required=True, metavar="RESULTS.parquet",
                help="results table to write (atomically)")
    p.add_argument("--executor", choices=["local", "dask"], default="local",
                   help="local: a process pool on this machine (default); dask: a dask.distributed cluster")
    p.add_argument("--address", metavar="tcp://HOST:PORT",
                   help="Dask scheduler to use (default with --executor dask: start a LocalCluster)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local processes or LocalCluster workers (default: all cores; ignored with --address)")
    p.add_argument("--csv", action="store_true", help="also write RESULTS.csv")
    p.add_argument("--restart", action="store_true", help="discard the journal and recompute every cell")
    p.add_argument("--max-cells", type=int, metavar="N",
                   help="compute at most N missing cells this run, then stop (the table is written once all are done)")
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help="cells per task (default: adaptive, about 0.5 s of work per task)")
    p.add_argument("--dry-run", action="store_true", help="validate the spec and count the cells; run nothing")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (the run's statistics) on stdout")
    p.add_argument("--report", metavar="FILE.html",
                   help="write a self-contained HTML report of the results (spread across replications per metric)")
    p.add_argument("--quiet", action="store_true", help="nothing on stderr but errors")
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"], default="info",
                   help="stderr detail (see docs/api.md)")


def run(args: argparse.Namespace) -> int:
    local_cluster = args.executor == "dask" and not args.address and not args.dry_run
    if local_cluster:
        import mrsim.analysis.sweeps.runner  # noqa: F401  (numpy and the cells' modules, for the fork below)
        from mrsim.analysis.sweeps.forkserver import fork_dask_forkserver, start_dask_forkserver

        # now, so that the workers' fork server imports Dask on another core while this process imports the rest of
        # the sweep modules (pandas) and reads the spec; forked, it does not import numpy and the engines again
        # (docs/performance.md, "Sweeps on Dask")
        if not fork_dask_forkserver():
            start_dask_forkserver()
    code = _run(args)
    if getattr(args, "process_entry", False):
        # The results are written and the executor closed: skip the interpreter's teardown of pandas, pyarrow and
        # the engines (0.3-0.5 s on the loaded 2-core development machine). Both executors, so that their
        # whole-process times compare like with like
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the process with ``code`` now, output flushed, without the interpreter's teardown or Dask's exit
    handlers (:func:`mrsim.io.process_exit.exit_now` would run them)."""
    import logging

    from mrsim.io.process_exit import end_process
    from mrsim.profiler.cache import wait_for_saves

    wait_for_saves()  # a trace cache entry being saved by a child process (os._exit runs no exit handler)
    logging.shutdown()
    end_process(code)


def _run(args: argparse.Namespace) -> int:
    from mrsim.analysis.sweeps import ExecutorKind, ExecutorOptions, load_spec, open_sweep
    from mrsim.cli.render import progress_bar
    from mrsim.errors import InputError

    for flag in ("max_cells", "chunk_size"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise InputError(f"--{flag.replace('_', '-')} must be at least 1, got {value}")
    if args.report and not str(args.report).lower().endswith((".html", ".htm")):
        raise InputError(f"--report writes an HTML file; give a name ending in .html, got {args.report!r}")
    executor = ExecutorOptions(ExecutorKind(args.executor), args.workers, args.address)
    spec = load_spec(args.spec)
    # A dry run changes nothing on disk: it never discards the journal (--restart only counts every cell as to do)
    with open_sweep(spec, args.output, csv=args.csv, restart=args.restart and not args.dry_run, dry_run=args.dry_run) as sweep:
        if args.dry_run:
            done = 0 if args.restart else len(sweep.cells) - len(sweep.todo)
            plan = {"spec": spec.name, "cells": len(sweep.cells), "done": done,
                    "todo": len(sweep.cells) - done, "grid": {p.value: list(v) for p, v in spec.grid}}
            _emit(args, plan, f"sweep {spec.name}: {plan['cells']} cells, {plan['done']} already done, "
                              f"{plan['todo']} to compute")
            return 0
        total = len(sweep.todo) if args.max_cells is None else min(args.max_cells, len(sweep.todo))
        with progress_bar(total, "cells") as progress:
            stats = sweep.run(executor, max_cells=args.max_cells, chunk_size=args.chunk_size, progress=progress)
    text = (f"sweep {spec.name}: {stats.cells} cells, {stats.reused} already done, computed {stats.computed} in "
            f"{stats.wall_s:.2f} s ({stats.cells_per_s:.1f} cells/s, {stats.chunks} tasks) on {stats.executor}")
    if stats.in_driver:
        text += f"; {stats.in_driver} of them in this process while the cluster started"
    if stats.complete:
        text += "\nwrote " + ", ".join(stats.written)
        if args.report:
            from mrsim.analysis.report import sweep_report

            sweep_report(_read_table(args.output), args.report, title=f"mrsim sweep: {spec.name}")
            text += f"\nwrote {args.report}"
    else:
        text += f"\n{stats.cells - stats.reused - stats.computed} cells still missing: re-run to continue"
    _emit(args, {"spec": spec.name, **stats.to_json()}, text)
    return 0


def _emit(args: argparse.Namespace, obj: dict, text: str) -> None:
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(obj) + b"\n")
    else:
        print(text)


def _read_table(path: str):  # type: ignore[no-untyped-def]
    """The results table just written (Parquet, or CSV when the output name ends in .csv)."""
    import pandas as pd

    return pd.read_csv(path) if str(path).lower().endswith(".csv") else pd.read_parquet(path)
