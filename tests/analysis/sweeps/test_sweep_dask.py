"""The Dask executor's set-up: its LocalCluster settings exist in Dask, its workers' fork server does not import
pandas, the CLI's --json keys are the local pool's, and a missing Dask is a one-line error from the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from mrsim.analysis.sweeps.cluster_start import LOCAL_CLUSTER_CONFIG
from mrsim.analysis.sweeps.executors import DaskBackend, LocalBackend
from mrsim.analysis.sweeps.forkserver import DASK_PRELOAD, PRELOAD
from mrsim.cli import main
from tests.analysis.sweeps.helpers import FLUID_SPEC, write_spec


def test_every_local_cluster_setting_is_a_dask_setting() -> None:
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    for key in LOCAL_CLUSTER_CONFIG:
        dask.config.get(key)  # KeyError if Dask renamed or dropped it: the setting would be silently ignored


def test_the_workers_preload_does_not_import_pandas() -> None:
    # the fork server imports these once; pandas would add about half a second of CPU before the first worker
    code = (f"import importlib, sys\nfor m in {PRELOAD!r}:\n    importlib.import_module(m)\n"
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    assert set(PRELOAD) < set(DASK_PRELOAD) and "pandas" not in DASK_PRELOAD


def test_dask_tasks_carry_more_work_than_local_ones() -> None:
    # a Dask task costs ~10x a pool task in CPU (client, scheduler and worker event loops), so its chunks are larger
    assert DaskBackend.chunk_target_s > LocalBackend.chunk_target_s


def test_cli_json_keys_are_the_same_on_both_executors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dask.distributed")
    spec = write_spec(tmp_path, FLUID_SPEC)
    keys = {}
    for executor in ("local", "dask"):
        assert main(["sweep", str(spec), "-o", str(tmp_path / f"{executor}.parquet"), "--executor", executor,
                     "--workers", "1", "--json", "--quiet"]) == 0
        obj = orjson.loads(capsys.readouterr().out)
        assert obj["complete"] and obj["executor"].startswith(executor)
        keys[executor] = list(obj)
    assert keys["dask"] == keys["local"]


def test_cli_without_dask_is_one_line_and_nonzero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, FLUID_SPEC)
    monkeypatch.setitem(sys.modules, "dask", None)  # import dask -> ImportError, as when it is not installed
    assert main(["sweep", str(spec), "-o", str(tmp_path / "r.parquet"), "--executor", "dask"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "needs dask.distributed" in err and "Traceback" not in err


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_cli_process_ends_with_its_output_written(tmp_path: Path, executor: str) -> None:
    # `mrsim sweep` as a process skips the interpreter's teardown once the table is written and the executor
    # closed: its JSON line, its files and its exit status must all be there, and stderr must stay quiet
    if executor == "dask":
        pytest.importorskip("dask.distributed")
    spec = write_spec(tmp_path, FLUID_SPEC)
    out = tmp_path / "r.parquet"
    proc = subprocess.run([sys.executable, "-m", "mrsim", "sweep", str(spec), "-o", str(out), "--executor", executor,
                           "--workers", "1", "--json", "--quiet"], capture_output=True, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    obj = orjson.loads(proc.stdout)
    assert obj["complete"] and obj["computed"] == obj["cells"] and obj["executor"].startswith(executor)
    assert obj["in_driver"] == 0 or executor == "dask"  # only a starting LocalCluster leaves cells to the driver
    assert out.exists() and all(Path(p).exists() for p in obj["written"])
    assert proc.stderr.decode().strip() == ""


def test_the_driver_of_a_local_cluster_sweep_does_not_import_dask(tmp_path: Path) -> None:
    # the LocalCluster and its client live in a host process forked from the preloaded fork server: Dask is imported
    # there once, not a second time in the driver (about 0.65 s of CPU on the driver's core)
    pytest.importorskip("dask.distributed")
    spec = write_spec(tmp_path, FLUID_SPEC)
    code = ("import sys\nfrom mrsim.analysis.sweeps import ExecutorKind, ExecutorOptions, load_spec, run_sweep\n"
            f"stats = run_sweep(load_spec({str(spec)!r}), {str(tmp_path / 'r.parquet')!r}, "
            "ExecutorOptions(ExecutorKind.DASK, workers=1))\n"
            "print(stats.complete, stats.computed == stats.cells, 'distributed' in sys.modules, "
            "'dask' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "False", "False"]


class _FailedHost:
    up = False
    error = "OSError: no free port"

    def poll(self) -> None:
        pass


def test_a_local_cluster_that_fails_to_start_is_a_one_line_input_error() -> None:
    from mrsim.analysis.sweeps.executors import LocalClusterBackend
    from mrsim.errors import InputError

    backend = LocalClusterBackend.__new__(LocalClusterBackend)
    backend._host = _FailedHost()  # type: ignore[assignment]
    with pytest.raises(InputError, match=r"^--executor dask: the LocalCluster did not start: OSError: no free port$"):
        backend.ready()


def test_closing_a_local_cluster_ends_its_host_process() -> None:
    pytest.importorskip("dask.distributed")
    from mrsim.analysis.sweeps.cluster_start import ClusterHost

    host = ClusterHost(1)
    host.wait_up()
    assert host.up and host.error is None and host.slots == 1
    host.close(cancel=True)
    assert not host._process.is_alive() and host._process.exitcode == 0


def test_the_fork_server_is_not_forked_while_another_thread_runs() -> None:
    # forking a process that has threads can copy a lock another thread holds: then a fresh server is started instead
    code = ("import threading\nfrom mrsim.analysis.sweeps.forkserver import fork_dask_forkserver\n"
            "stop = threading.Event()\nt = threading.Thread(target=stop.wait)\nt.start()\n"
            "print(fork_dask_forkserver())\nstop.set()\nt.join()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_local_cluster_s_workers_are_forked_processes_without_a_nanny() -> None:
    # each worker is a plain distributed.Worker forked from the preloaded fork server (no nanny process beside it):
    # it runs tasks in a process of its own, and closing the cluster ends that process
    distributed = pytest.importorskip("dask.distributed")
    import asyncio
    import logging
    import os

    from mrsim.analysis.sweeps.dask_workers import ForkedWorker

    async def run() -> tuple[int, dict, object]:
        async with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                            worker_class=ForkedWorker, dashboard_address=None,
                                            silence_logs=logging.ERROR, asynchronous=True) as cluster:
            async with distributed.Client(cluster, asynchronous=True, set_as_default=False) as client:
                await client.wait_for_workers(1, timeout=60)
                pid = await client.submit(os.getpid, pure=False)
                nannies = await client.run(lambda dask_worker: dask_worker.nanny)
                process = cluster.workers[0].process
        return pid, nannies, process

    pid, nannies, process = asyncio.run(run())
    assert pid == process.pid != os.getpid()
    assert list(nannies.values()) == [None]
    assert not process.is_alive()
