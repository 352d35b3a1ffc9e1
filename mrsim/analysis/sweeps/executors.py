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
from mrsim.analysis.sweeps.cluster_start import LOCAL_CLUSTER_CONFIG, ClusterStart, default_workers
from mrsim.analysis.sweeps.forkserver import PRELOAD, dask_installed, forkserver_context
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


#: How often a pool worker checks that its driver is still alive (s); the bound on an orphan's lifetime when
#: ``PR_SET_PDEATHSIG`` is unavailable (or the worker's parent is a fork server rather than the driver).
DRIVER_POLL_S = 1.0


def _exit_with_driver(driver_pid: int) -> None:
    """Pool-worker initializer: the worker exits when the sweep driver dies, even by ``kill -9``.

    Two mechanisms: Linux's ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (immediate, when the driver is the parent), and
    a daemon thread that polls the driver's pid every :data:`DRIVER_POLL_S` seconds (any start method).
    """
    import signal
    import sys
    import time

    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG = 1

    def alive() -> bool:
        try:
            os.kill(driver_pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def watch() -> None:
        while alive():
            time.sleep(DRIVER_POLL_S)
        os._exit(1)

    if not alive():
        os._exit(1)
    threading.Thread(target=watch, name="mrsim-driver-watch", daemon=True).start()


class LocalBackend:
    """A process pool of ``workers`` processes (default: the CPUs this process may use)."""

    #: A task costs ~1 ms of pool overhead: 0.5 s chunks keep it near 0.2 %.
    chunk_target_s = 0.5

    def __init__(self, workers: int | None) -> None:
        self.slots = workers or _default_workers()
        self.name = f"local ({self.slots} process{'es' if self.slots > 1 else ''})"
        self._pool = cf.ProcessPoolExecutor(max_workers=self.slots, mp_context=_mp_context(),
                                            initializer=_exit_with_driver, initargs=(os.getpid(),))
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


class DaskBackend:
    """A ``dask.distributed.Client`` on ``address``, or on a LocalCluster of ``workers`` single-threaded processes.

    The LocalCluster starts in a background thread (:class:`~.cluster_start.ClusterStart`), and :meth:`ready`
    says when its first worker is up, so that the sweep driver runs cells itself meanwhile instead of waiting
    (``Sweep._dispatch``); its workers fork from a preloaded fork server started first
    (:func:`~.forkserver.start_dask_forkserver`), and Dask is imported in that thread too, so the driver's first
    cell does not wait for it. Every worker must be able to import ``mrsim``
    (same version as the driver) and read the traces at the paths the spec names (a shared file system, or
    identical paths on every machine).
    """

    #: A task costs ~5-8 ms of CPU in the driver (client and scheduler) and as much in the worker's event loop on
    #: the 2-core development machine under load (measured with empty tasks), ~10x the local pool's: 2 s chunks
    #: keep it under 1 %; the chunk sizer's balance cap still spreads the last cells over all workers.
    chunk_target_s = 2.0

    def __init__(self, workers: int | None, address: str | None) -> None:
        if not dask_installed():
            _import_distributed()  # raises the one-line InputError (or, if the lookup was wrong, imports fine)
        self._distributed: Any = None
        self._client: Any = None
        self._start: ClusterStart | None = None
        self._error: BaseException | None = None
        self._up = threading.Event()
        self.startup_s = 0.0
        self.slots = workers or _default_workers()
        self._address = address
        where = address or "LocalCluster"
        self.name = f"dask ({where}, {self.slots} thread{'s' if self.slots > 1 else ''})"
        self._futures: set[Any] = set()
        self._completed: Any = None
        if address:
            started = time.perf_counter()
            self._distributed = _import_distributed()
            try:
                self._client = distributed_client(self._distributed, address)
                self._client.wait_for_workers(1, timeout=60)
            finally:
                self.startup_s = time.perf_counter() - started
            # a LocalCluster keeps the worker count it was asked for while the rest start; a cluster by address
            # has what it has
            self.slots = max(1, sum(self._client.nthreads().values()))
            self.name = f"dask ({address}, {self.slots} thread{'s' if self.slots > 1 else ''})"
            self._completed = self._distributed.as_completed(loop=self._client.loop, raise_errors=False)
            self._up.set()
        else:
            self._start = ClusterStart(self.slots)

    def _adopt(self) -> None:
        """Take over the started cluster's client (in the driver's thread, once it is up)."""
        start = self._start
        assert start is not None
        self.startup_s = start.startup_s
        if start.error is not None:
            self._error = start.error
            if isinstance(start.error, ImportError):
                _import_distributed()  # the one-line InputError
            return
        self._distributed, self._client = start.distributed, start.client
        # one completion queue for the whole sweep: O(1) per finished task (a fresh wait() per call is
        # O(in flight))
        self._completed = self._distributed.as_completed(loop=self._client.loop, raise_errors=False)
        self._up.set()

    def ready(self) -> bool:
        """Whether the cluster is up (a start-up error is raised here)."""
        if not self._up.is_set() and self._error is None:
            if self._start is None or not self._start.up.is_set():
                return False
            self._adopt()
        if self._error is not None:
            raise self._error
        return True

    def submit(self, cells: Sequence[Cell]) -> Any:
        if self._start is not None:
            self._start.up.wait()
        self.ready()
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
            if cancel and self._futures and self._client is not None:
                self._client.cancel(list(self._futures))
        if self._start is not None:
            self._start.close()  # its client and LocalCluster (waits for a start still under way)
        elif self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()


@contextlib.contextmanager
def open_backend(options: ExecutorOptions) -> Iterator[Backend]:
    """Start the executor; on leaving, shut it down (cancelling queued work if leaving by an exception)."""
    backend: Backend
    if options.kind is ExecutorKind.DASK:
        backend = DaskBackend(options.workers, options.address)
    else:
        backend = LocalBackend(options.workers)
    ok = False
    try:
        yield backend
        ok = True
    finally:
        backend.close(cancel=not ok)
