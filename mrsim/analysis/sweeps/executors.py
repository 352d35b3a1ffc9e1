"""Where cells run: a local process pool (default) or a Dask distributed cluster.

Both are used through the same four calls (``submit``, ``wait_any``, ``result``, ``close``); the pool and the
cluster themselves are the standard ones, :class:`concurrent.futures.ProcessPoolExecutor` and
:class:`dask.distributed.Client`. Dask is imported only when asked for.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import enum
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterator, Protocol, Sequence

from mrsim.analysis.sweeps.cells import Cell
from mrsim.analysis.sweeps.cluster_start import ClusterHost, default_workers
from mrsim.analysis.sweeps.forkserver import PRELOAD, dask_installed, forkserver_context
from mrsim.analysis.sweeps.orphans import exit_with_driver
from mrsim.analysis.sweeps.runner import CellOutcome, run_chunk
from mrsim.errors import InputError


class ExecutorKind(enum.Enum):
    LOCAL = "local"  # processes on this machine
    DASK = "dask"  # a dask.distributed cluster (given by address, or a LocalCluster started for the sweep)


@dataclass(frozen=True)
class ExecutorOptions:
    """``workers``: local processes or LocalCluster workers (default: all cores); ignored with ``address``."""

    kind: ExecutorKind = ExecutorKind.LOCAL
    workers: int | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise InputError(f"--workers must be at least 1, got {self.workers}")
        if self.address and self.kind is not ExecutorKind.DASK:
            raise InputError("--address needs --executor dask")


class Backend(Protocol):
    """What the sweep driver needs from an executor."""

    name: str
    slots: int  # cells that can run at the same time
    chunk_target_s: float  # seconds of work per task (the chunk sizer's target): more where a task costs more

    def submit(self, cells: Sequence[Cell]) -> Any: ...
    def ready(self) -> bool: ...  # False while the executor still starts (the driver may run cells meanwhile)
    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]: ...
    def result(self, future: Any) -> list[CellOutcome]: ...
    def close(self, cancel: bool) -> None: ...


_default_workers = default_workers


def _mp_context() -> multiprocessing.context.BaseContext:
    """``fork`` when the driver has no other thread (fastest; works from notebooks and stdin scripts), else a
    fork server that has imported the engines once: forking a process that has threads (a Dask client, a
    progress-bar monitor) can deadlock on a lock some thread held at the fork."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return forkserver_context(PRELOAD)


class LocalBackend:
    """A process pool of ``workers`` processes (default: the CPUs this process may use)."""

    #: A task costs ~1 ms of pool overhead: 0.5 s chunks keep it near 0.2 %.
    chunk_target_s = 0.5

    def __init__(self, workers: int | None) -> None:
        self.slots = workers or _default_workers()
        self.name = f"local ({self.slots} process{'es' if self.slots > 1 else ''})"
        self._pool = cf.ProcessPoolExecutor(max_workers=self.slots, mp_context=_mp_context(),
                                            initializer=exit_with_driver, initargs=(os.getpid(),))
        # start every worker now, so start-up is counted as such and not charged to the first cells
        for fut in [self._pool.submit(os.getpid) for _ in range(self.slots)]:
            fut.result()

    def submit(self, cells: Sequence[Cell]) -> cf.Future:
        return self._pool.submit(run_chunk, tuple(cells))

    def ready(self) -> bool:
        return True  # the pool's workers are started in __init__

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        done, pending = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return set(done), set(pending)

    def result(self, future: cf.Future) -> list[CellOutcome]:
        return future.result()

    def close(self, cancel: bool) -> None:
        self._pool.shutdown(wait=not cancel, cancel_futures=cancel)


def _import_distributed() -> Any:
    """``dask.distributed``, or a one-line :class:`InputError` saying how to install it."""
    try:
        from dask import distributed
    except ImportError:
        raise InputError("--executor dask needs dask.distributed: pip install 'dask[distributed]' "
                         "(or mrsim's 'dask' extra)") from None
    return distributed


def distributed_client(distributed: Any, address: str) -> Any:
    """A client of the Dask scheduler at ``address``, or a one-line :class:`InputError` when it cannot be reached."""
    try:
        return distributed.Client(address, timeout="15s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"--address {address}: cannot reach a Dask scheduler ({exc})") from None


#: Seconds of work per Dask task. A task costs ~5-8 ms of CPU in the client and scheduler and as much in the
#: worker's event loop on the 2-core development machine under load (measured with empty tasks), ~10x the local
#: pool's: 2 s chunks keep it under 1 %; the chunk sizer's balance cap still spreads the last cells over all workers.
DASK_CHUNK_S = 2.0


#: Tasks kept in flight per Dask worker thread. Three per thread make more tasks of one kind than twice the
#: cluster's threads, which Dask's scheduler queues itself (its "root-ish" tasks, ``worker-saturation``) and hands
#: to each worker as it frees up, so the driver's round trip per task (client, scheduler and, on a LocalCluster,
#: the host's pipe) is no longer between a worker's two tasks.
DASK_IN_FLIGHT_PER_SLOT = 3

#: Seconds of work a Dask task carries at least (while that many cells remain), so that the tail of a sweep is
#: not a run of single-cell tasks that cost more in overhead than in work.
DASK_CHUNK_FLOOR_S = 0.02


class DaskBackend:
    """A ``dask.distributed.Client`` of the running Dask scheduler at ``address`` (``--address``).

    Every worker must be able to import ``mrsim`` (same version as the driver) and read the traces at the paths
    the spec names (a shared file system, or identical paths on every machine).
    """

    chunk_target_s = DASK_CHUNK_S
    chunk_floor_s = DASK_CHUNK_FLOOR_S
    in_flight_per_slot = DASK_IN_FLIGHT_PER_SLOT

    def __init__(self, address: str) -> None:
        started = time.perf_counter()
        self._distributed = _import_distributed()
        try:
            self._client = distributed_client(self._distributed, address)
            self._client.wait_for_workers(1, timeout=60)
        finally:
            self.startup_s = time.perf_counter() - started
        self.slots = max(1, sum(self._client.nthreads().values()))
        self.name = f"dask ({address}, {self.slots} thread{'s' if self.slots > 1 else ''})"
        self._futures: set[Any] = set()
        # one completion queue for the whole sweep: O(1) per finished task (a fresh wait() per call is
        # O(in flight))
        self._completed = self._distributed.as_completed(loop=self._client.loop, raise_errors=False)

    def ready(self) -> bool:
        return True  # connected in __init__

    def submit(self, cells: Sequence[Cell]) -> Any:
        fut = self._client.submit(run_chunk, tuple(cells), pure=False)
        self._futures.add(fut)
        self._completed.add(fut)
        return fut

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        done = {next(self._completed), *self._completed.next_batch(block=False)}
        return done, set(futures) - done

    def result(self, future: Any) -> list[CellOutcome]:
        self._futures.discard(future)
        return future.result()

    def close(self, cancel: bool) -> None:
        with contextlib.suppress(Exception):  # best effort: the scheduler may already be gone
            if cancel and self._futures:
                self._client.cancel(list(self._futures))
            self._client.close()


class LocalClusterBackend:
    """A Dask LocalCluster of ``workers`` single-threaded worker processes on this machine, started for the sweep.

    The cluster and its client live in a host process forked from the preloaded fork server
    (:class:`~.cluster_start.ClusterHost`), so the driver never imports Dask; tasks and results travel over a pipe.
    :meth:`ready` says when the first worker is up, so that the sweep driver runs cells itself meanwhile instead of
    waiting (``Sweep._dispatch``); those cells are counted in the sweep's ``in_driver``.
    """

    chunk_target_s = DASK_CHUNK_S
    chunk_floor_s = DASK_CHUNK_FLOOR_S
    in_flight_per_slot = DASK_IN_FLIGHT_PER_SLOT

    def __init__(self, workers: int | None) -> None:
        if not dask_installed():
            _import_distributed()  # raises the one-line InputError (or, if the lookup was wrong, imports fine)
        self.slots = workers or _default_workers()
        self.name = f"dask (LocalCluster, {self.slots} thread{'s' if self.slots > 1 else ''})"
        self._host = ClusterHost(self.slots)

    @property
    def startup_s(self) -> float:
        return self._host.startup_s

    def ready(self) -> bool:
        """Whether the cluster is up (a start-up failure is raised here, in one line)."""
        host = self._host
        if not host.up and host.error is None:
            host.poll()
        if host.error is not None and not host.up:
            raise InputError(f"--executor dask: the LocalCluster did not start: {host.error}")
        return host.up

    def submit(self, cells: Sequence[Cell]) -> int:
        self._host.wait_up()
        self.ready()
        return self._host.submit(tuple(cells))

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        done = self._host.wait_any(set(futures))
        return done, set(futures) - done

    def result(self, future: int) -> list[CellOutcome]:
        outcomes, error = self._host.finished.pop(future)
        if error is not None:
            raise RuntimeError(error)
        return outcomes

    def close(self, cancel: bool) -> None:
        self._host.close(cancel)


@contextlib.contextmanager
def open_backend(options: ExecutorOptions) -> Iterator[Backend]:
    """Start the executor; on leaving, shut it down (cancelling queued work if leaving by an exception)."""
    backend: Backend
    if options.kind is ExecutorKind.DASK and options.address:
        backend = DaskBackend(options.address)
    elif options.kind is ExecutorKind.DASK:
        backend = LocalClusterBackend(options.workers)
    else:
        backend = LocalBackend(options.workers)
    ok = False
    try:
        yield backend
        ok = True
    finally:
        backend.close(cancel=not ok)
