"""Sweeps end to end: local pool vs a real Dask LocalCluster, interruption and resume, journal, failures."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pandas.testing as pdt
import pytest

from mrsim.analysis.sweeps import (TIMING_METRICS, ExecutorKind, ExecutorOptions, deterministic_view, load_spec,
                                   open_sweep, plan_cells, read_results, run_cell, run_sweep)
from mrsim.analysis.sweeps.batching import ChunkSizer
from mrsim.analysis.sweeps.journal import journal_path
from mrsim.errors import InputError
from tests.analysis.sweeps.helpers import FLUID_SPEC, SLOTS_SPEC, write_spec, write_swim

LOCAL2 = ExecutorOptions(ExecutorKind.LOCAL, workers=2)


def _journal_ids(output: Path) -> list[str]:
    import orjson

    return [orjson.loads(line)["cell_id"] for line in journal_path(output).read_bytes().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def dask_address():
    distributed = pytest.importorskip("dask.distributed")
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.mark.parametrize("text", [SLOTS_SPEC, FLUID_SPEC], ids=["slots", "fluid"])
def test_local_and_dask_give_identical_tables(tmp_path: Path, dask_address: str, text: str) -> None:
    spec = load_spec(write_spec(tmp_path, text))
    local = run_sweep(spec, tmp_path / "local.parquet", LOCAL2)
    dask = run_sweep(spec, tmp_path / "dask.parquet", ExecutorOptions(ExecutorKind.DASK, address=dask_address),
                     csv=True)
    assert local.complete and dask.complete and local.computed == dask.computed == len(plan_cells(spec))
    assert dask.executor.startswith("dask") and local.executor.startswith("local")
    a = read_results(tmp_path / "local.parquet")
    b = read_results(tmp_path / "dask.parquet")
    assert len(a) == len(plan_cells(spec)) and a["cell_id"].is_unique
    pdt.assert_frame_equal(deterministic_view(a), deterministic_view(b))
    # the CSV copy holds the same table
    c = pd.read_csv(tmp_path / "dask.csv")
    assert list(c.columns) == list(b.columns) and c["cell_id"].tolist() == b["cell_id"].tolist()
    # every parameter and every summary metric is a column
    summary_keys = {"jobs", "tasks", "makespan_s", "mean_completion_s", "events", "wall_s"}
    assert summary_keys <= set(a.columns)
    assert {"workload", "scheduler", "replication", "seed"} <= set(a.columns)
    assert (a["jobs"] > 0).all() and (a["mean_completion_s"] > 0).all()


def test_results_do_not_depend_on_where_or_in_what_order_cells_ran(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, SLOTS_SPEC))
    run_sweep(spec, tmp_path / "r.parquet", LOCAL2, chunk_size=3)
    table = read_results(tmp_path / "r.parquet").set_index("cell_id")
    for cell in reversed(plan_cells(spec)):  # this process, reverse order
        metrics = run_cell(cell)
        for key, value in metrics.items():
            if key not in TIMING_METRICS:
                assert table.loc[cell.cell_id, key] == value, (cell.cell_id, key)
    # treatments share random inputs: the two fifo labels give identical metrics cell for cell
    t = table.reset_index()
    fifo = t[t.scheduler == "fifo"].drop(columns=["cell_id", "scheduler", *TIMING_METRICS]).reset_index(drop=True)
    again = t[t.scheduler == "fifo-again"].drop(columns=["cell_id", "scheduler", *TIMING_METRICS]).reset_index(drop=True)
    pdt.assert_frame_equal(fifo, again)


def test_interrupted_sweep_resumes_only_missing_cells(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, FLUID_SPEC))
    total = len(plan_cells(spec))
    full = run_sweep(spec, tmp_path / "full.parquet", LOCAL2)
    assert full.computed == total

    out = tmp_path / "part.parquet"
    first = run_sweep(spec, out, LOCAL2, max_cells=10)
    assert (first.computed, first.complete, out.exists()) == (10, False, False)
    assert len(_journal_ids(out)) == 10
    done_before = set(_journal_ids(out))

    calls: list[int] = []
    second = run_sweep(spec, out, LOCAL2, progress=calls.append)
    assert (second.reused, second.computed, second.complete) == (10, total - 10, True)
    assert calls == sorted(calls) and calls[-1] == total - 10
    ids = _journal_ids(out)
    assert len(ids) == len(set(ids)) == total  # nothing computed twice
    assert set(ids[:10]) == done_before
    pdt.assert_frame_equal(deterministic_view(read_results(out)), deterministic_view(read_results(tmp_path / "full.parquet")))

    third = run_sweep(spec, out, LOCAL2)  # all done: no executor, table rewritten
    assert (third.computed, third.reused, third.complete) == (0, total, True)
    assert run_sweep(spec, out, LOCAL2, restart=True).computed == total


def test_killed_sweep_loses_only_cells_in_flight(tmp_path: Path) -> None:
    spec_path = write_spec(tmp_path, SLOTS_SPEC.replace("replications = 2", "replications = 5"))
    spec = load_spec(spec_path)
    total = len(plan_cells(spec))
    out = tmp_path / "killed.parquet"
    proc = subprocess.Popen([sys.executable, "-m", "mrsim", "sweep", str(spec_path), "-o", str(out), "--workers", "1",
                             "--chunk-size", "1"], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if journal_path(out).exists() and len(_journal_ids(out)) >= 3:
                break
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its pool, as a crash would
        proc.wait()
    done = len(_journal_ids(out))
    assert 3 <= done < total, "the sweep finished before it could be killed"
    with open(journal_path(out), "ab") as fh:  # and a line torn by the kill
        fh.write(b'{"cell_id": "0123')
    for _ in range(100):  # killed workers release their descriptors once the kernel has reaped them
        try:
            resumed = run_sweep(spec, out, LOCAL2)
            break
        except InputError as exc:
            assert "another sweep" in str(exc)
            time.sleep(0.1)
    assert (resumed.reused, resumed.computed, resumed.complete) == (done, total - done, True)
    reference = run_sweep(spec, tmp_path / "reference.parquet", LOCAL2)
    assert reference.computed == total
    pdt.assert_frame_equal(deterministic_view(read_results(out)),
                           deterministic_view(read_results(tmp_path / "reference.parquet")))


def test_failing_cell_is_reported_and_finished_cells_are_kept(tmp_path: Path) -> None:
    write_swim(tmp_path)
    bad = tmp_path / "bad.tsv"
    bad.write_text((tmp_path / "tiny.tsv").read_text() + "job999\t99999\tten\t1\t2\t3\n")
    text = FLUID_SPEC.replace('[[workloads]]\ntrace = "tiny.tsv"',
                              '[[workloads]]\ntrace = "tiny.tsv"\n[[workloads]]\ntrace = "bad.tsv"\nlabel = "broken"')
    spec = load_spec(write_spec(tmp_path, text))
    out = tmp_path / "r.parquet"
    with pytest.raises(InputError) as info:
        run_sweep(spec, out, LOCAL2)
    message = str(info.value)
    assert "workload=broken" in message and "bad.tsv" in message and "re-run" in message
    good = {c.cell_id for c in plan_cells(spec) if c.workload.label == "tiny"}
    kept = set(_journal_ids(out))
    assert kept and kept <= good
    assert not out.exists()


def test_journal_is_locked_while_a_sweep_runs(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, FLUID_SPEC))
    with open_sweep(spec, tmp_path / "r.parquet") as sweep:
        assert len(sweep.todo) == len(sweep.cells)
        with pytest.raises(InputError, match="another sweep"):
            open_sweep(spec, tmp_path / "r.parquet").__enter__()


def test_output_name_and_executor_options_are_checked(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, FLUID_SPEC))
    with pytest.raises(InputError, match=r"\.parquet"):
        run_sweep(spec, tmp_path / "r.csv")
    with pytest.raises(InputError, match="--address needs --executor dask"):
        ExecutorOptions(ExecutorKind.LOCAL, address="tcp://127.0.0.1:1")
    with pytest.raises(InputError, match="--workers"):
        ExecutorOptions(workers=0)


def test_chunk_sizer_batches_short_cells_and_keeps_a_short_tail() -> None:
    sizer = ChunkSizer(slots=4, target_s=0.5)
    assert sizer.next_size(1000) == 1  # first wave measures
    sizer.observe(cells=4, seconds=0.04)  # 10 ms per cell -> 50 cells make 0.5 s
    assert sizer.next_size(1000) == 50
    assert sizer.next_size(40) == 5  # tail: spread the rest over 2 x 4 chunks
    assert sizer.next_size(3) == 1
    assert sizer.next_size(0) == 0
    slow = ChunkSizer(slots=2)
    slow.observe(1, 3.0)
    assert slow.next_size(100) == 1
    assert ChunkSizer(slots=2, fixed=7).next_size(100) == 7
    floored = ChunkSizer(slots=2, target_s=2.0, floor_s=0.02)  # Dask: no task under 20 ms of work
    floored.observe(cells=10, seconds=0.03)  # 3 ms per cell -> 7 cells make 20 ms
    assert floored.next_size(1000) == 250  # the balance cap (1000 // 4) as before
    assert floored.next_size(12) == 7  # the tail stops at the floor instead of single cells
    assert floored.next_size(5) == 5  # ... or at what is left


def test_dask_executor_without_dask_is_a_clear_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_spec(write_spec(tmp_path, FLUID_SPEC))
    monkeypatch.setitem(sys.modules, "dask", None)  # import dask -> ImportError, as when it is not installed
    with pytest.raises(InputError, match=r"needs dask\.distributed"):
        run_sweep(spec, tmp_path / "r.parquet", ExecutorOptions(ExecutorKind.DASK, workers=1))


def test_forked_workers_do_not_hold_the_journal_lock(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, FLUID_SPEC))
    ready_r, ready_w = os.pipe()
    with open_sweep(spec, tmp_path / "r.parquet"):
        pid = os.fork()
        if pid == 0:  # a child, like a pool worker: must not keep the driver's lock alive
            os.write(ready_w, b"1")  # the at-fork hooks have run by now
            time.sleep(5.0)
            os._exit(0)
        assert os.read(ready_r, 1) == b"1"
    os.close(ready_r)
    os.close(ready_w)
    try:
        with open_sweep(spec, tmp_path / "r.parquet") as again:  # the driver is done: free at once
            assert len(again.todo) == len(again.cells)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
