"""The Dask LocalCluster a sweep runs on, hosted by a process of its own so that the driver never imports Dask.

:class:`ClusterHost` (driver side) forks a *host* process from the preloaded fork server
(:func:`~.forkserver.start_dask_forkserver`), which has imported Dask, numpy and the engines once. The host
(:func:`serve`) starts the LocalCluster (its scheduler, and single-threaded worker processes forked from the same
fork server without nannies: :mod:`.dask_workers`) and its :class:`distributed.Client`, all on one asyncio event
loop, says "up" the moment the first worker joins, then relays the driver's tasks to the cluster over a pipe:
``("submit", id, cells)`` in, ``("done", id, outcomes, error)`` out as each task finishes. Every cell still runs
on a Dask worker through a Dask client and scheduler; the host only carries the messages.

Why a process: importing ``dask.distributed`` costs about 0.5 s of CPU beyond numpy (0.75 s with it, 2-core
development machine). With the cluster in the driver it was paid twice, by the fork server for the workers and by
the driver itself, and the driver's share ran on the core that also runs the driver's own cells (one GIL). The host
is forked with Dask already imported, so Dask is imported once, on the other core, while the driver imports the
sweep modules and runs cells (``docs/performance.md``, "Sweeps on Dask": about a quarter less CPU per sweep).

Light on purpose: the standard library and :mod:`.forkserver` only; Dask and the runner are imported in the host.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
import warnings
from multiprocessing.connection import Connection
from typing import Any

from mrsim.analysis.sweeps.forkserver import DASK_PRELOAD, forkserver_context, start_dask_forkserver

#: Dask settings for the LocalCluster mrsim starts (a cluster given by ``--address`` keeps its own). The fork
#: server is the start method (:func:`~.forkserver.start_dask_forkserver`); the others turn off or slow periodic
#: callbacks that feed Dask's dashboard and diagnostics, none of which a sweep uses. With Dask's defaults an idle
#: 2-worker LocalCluster cost 48 ms of driver CPU and 98 ms of worker CPU per second on the 2-core development
#: machine (7 % of its CPUs); with these 22 and 18 ms (docs/performance.md, "Sweeps on Dask").
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.worker.multiprocessing-method": "forkserver",
    "distributed.worker.profile.enabled": False,  # a stack sample of the task's thread every 10 ms
    "distributed.admin.tick.interval": "500ms",  # event-loop health check, every 20 ms by default
    "distributed.admin.system-monitor.interval": "2s",  # psutil samples for the dashboard, every 500 ms by default
    "distributed.worker.memory.monitor-interval": "500ms",  # the worker's RSS poll (a nanny's too), every 100 ms by default
}

#: How long the driver waits for the host to close its cluster and exit before terminating it (s).
CLOSE_TIMEOUT_S = 30.0


def default_workers() -> int:
    """The CPUs this process may use (the default worker count of both executors)."""
    from mrsim.io.forking import usable_cpus

    return usable_cpus()


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


class ClusterHost:
    """Driver side of a LocalCluster of ``workers`` single-threaded worker processes hosted by another process.

    Tasks are plain integers. :meth:`poll` reads what the host has sent without blocking; :attr:`up` turns true
    when its first worker has joined (:attr:`startup_s`: seconds from construction), :attr:`error` holds a one-line
    start-up failure. Cost to the caller: a fork request to the fork server (started here if not running) and
    one pickle per message; the driver imports neither Dask nor anything it does not already have.
    """

    def __init__(self, workers: int) -> None:
        self.started = time.perf_counter()
        self.up = False
        self.startup_s = 0.0
        self.slots = workers
        self.error: str | None = None
        self.finished: dict[int, tuple[Any, str | None]] = {}  # task id -> (outcomes, one-line error)
        self._next_id = 0
        self._closed = False
        self._start_error: str | None = None
        start_dask_forkserver()
        ctx = forkserver_context(DASK_PRELOAD)
        self._conn, child = ctx.Pipe(duplex=True)
        # not a daemon: a daemonic process may not start the workers' processes
        self._process = ctx.Process(target=serve, args=(child, workers), name="mrsim-dask-host")
        # start() blocks until the fork server has finished its imports (about 1 s of CPU): in a thread, so that the
        # driver runs cells meanwhile (the thread waits on a socket, holding no GIL)
        self._starter = threading.Thread(target=self._start_host, args=(child,), name="mrsim-dask-host-start",
                                         daemon=True)
        self._starter.start()

    def _start_host(self, child: Connection) -> None:
        try:
            self._process.start()
        except BaseException as exc:  # e.g. the fork server could not be reached: reported by the next receive
            self._start_error = _one_line(exc)
        finally:
            child.close()  # the driver's copy: the pipe ends when the host's copy closes

    def _handle(self, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "done":
            self.finished[msg[1]] = (msg[2], msg[3])
        elif kind == "up":
            self.up, self.slots = True, msg[1]
            self.startup_s = time.perf_counter() - self.started
        elif kind == "error":
            self.error = msg[1]
            self.startup_s = time.perf_counter() - self.started

    def _receive(self, block: bool) -> bool:
        """Handle one message (waiting for it if ``block``); False when there was none. A host that ended
        without saying why becomes :attr:`error`."""
        if not block and not self._conn.poll(0):
            return False
        try:
            self._handle(self._conn.recv())
        except (EOFError, OSError):
            self._starter.join()
            if self._start_error is None:
                self._process.join(1.0)
            self.error = self.error or self._start_error or (
                f"the process hosting the Dask LocalCluster ended (exit code {self._process.exitcode})")
            return False
        return True

    def poll(self) -> None:
        """Read every message already sent, without waiting."""
        while self.error is None and self._receive(block=False):
            pass

    def wait_up(self) -> None:
        """Block until the first worker has joined or the start failed."""
        while not self.up and self.error is None:
            self._receive(block=True)

    def submit(self, cells: tuple[Any, ...]) -> int:
        task = self._next_id
        self._next_id += 1
        self._conn.send(("submit", task, cells))
        return task

    def wait_any(self, tasks: set[int]) -> set[int]:
        """Block until at least one of ``tasks`` has finished (a dead host finishes them all, with an error)."""
        while not tasks & self.finished.keys():
            if not self._receive(block=True):
                for task in tasks:
                    self.finished[task] = (None, self.error)
        self.poll()
        return tasks & self.finished.keys()

    def close(self, cancel: bool) -> None:
        """Ask the host to close its client and cluster (cancelling unfinished tasks if ``cancel``), then wait
        for it to exit (terminated after :data:`CLOSE_TIMEOUT_S`)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._conn.send(("close", cancel))
        self._starter.join()
        if self._start_error is None:
            self._process.join(CLOSE_TIMEOUT_S)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join()
        self._conn.close()


def serve(conn: Connection, workers: int) -> None:
    """The host process: start the LocalCluster, say when its first worker has joined, relay tasks until told to
    close (or until the driver goes away: the pipe's end closes the cluster too).

    The scheduler, the client and the pipe (watched as a reader) share one asyncio event loop in the main thread
    (Dask's asynchronous API). A finished task's result is awaited on that loop and sent at once, with no hop
    through Dask's loop thread, its callback thread and a blocking ``Future.result()`` as before.
    """
    started = time.perf_counter()

    def send(msg: tuple[Any, ...]) -> None:
        with contextlib.suppress(OSError):  # the driver is gone: the receiving loop ends as well
            conn.send(msg)

    # Ctrl-C reaches the whole process group: the driver handles it (it closes this host through the pipe, or its
    # end of the pipe closes when it dies), so that the cluster shuts down in order and no traceback is printed here
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _reuse_parent_forkserver()
    try:
        import asyncio

        from dask import distributed

        from mrsim.analysis.sweeps.dask_workers import silence_dask_logs
        from mrsim.analysis.sweeps.runner import run_chunk

        # our fork server is running: Dask must not set its own preload list for it
        distributed.utils._forkserver_preload_set = True
        # the scheduler's HTTP server (no dashboard) falls back to a random port when another cluster on the
        # machine holds 8787; the sweep never uses it, so the user is not told
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
        # Dask's own log lines (a comm closed while the cluster shuts down, at INFO) are not the user's business:
        # errors only, for the host's whole life (the LocalCluster's ``silence_logs`` covers only until its close)
        silence_dask_logs(logging.ERROR)
    except BaseException as exc:
        send(("error", _one_line(exc)))
        return
    asyncio.run(_host(conn, workers, distributed, run_chunk, send, started))


async def _host(conn: Connection, workers: int, distributed: Any, run_chunk: Any, send: Any, started: float) -> None:
    """:func:`serve`'s event loop: the cluster, the client and the relay of the driver's tasks."""
    import asyncio

    import dask

    cluster = client = None
    try:
        from mrsim.analysis.sweeps.dask_workers import ForkedWorker

        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            cluster = await distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                     worker_class=ForkedWorker, dashboard_address=None,
                                                     silence_logs=logging.ERROR, asynchronous=True)
            client = await distributed.Client(cluster, asynchronous=True, set_as_default=False)
        await _first_worker(cluster.scheduler, distributed)
    except BaseException as exc:
        send(("error", _one_line(exc)))
        await _close_async(client, cluster)
        return
    # a LocalCluster keeps the worker count it was asked for while the rest join
    send(("up", workers, time.perf_counter() - started))

    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
    fd = conn.fileno()

    def readable() -> None:  # the driver wrote: queue every whole message already in the pipe
        try:
            while conn.poll():
                inbox.put_nowait(conn.recv())
        except (EOFError, OSError):
            loop.remove_reader(fd)
            inbox.put_nowait(("gone",))

    futures: dict[int, Any] = {}
    relays: set[asyncio.Task[None]] = set()

    async def relay(task: int, future: Any) -> None:
        try:
            msg: tuple[Any, ...] = ("done", task, await future, None)
        except BaseException as exc:  # a worker died, or the task was cancelled: not the cells' fault
            msg = ("done", task, None, _one_line(exc))
        futures.pop(task, None)
        send(msg)

    loop.add_reader(fd, readable)
    cancel = True
    while True:
        msg = await inbox.get()
        if msg[0] == "submit":
            futures[msg[1]] = future = client.submit(run_chunk, msg[2], pure=False)
            relay_task = asyncio.ensure_future(relay(msg[1], future))
            relays.add(relay_task)
            relay_task.add_done_callback(relays.discard)
        else:  # "close" (with whether to cancel), or the driver's end of the pipe closed
            cancel = msg[0] != "close" or msg[1]
            break
    with contextlib.suppress(Exception):
        loop.remove_reader(fd)
    with contextlib.suppress(Exception):
        if cancel and futures:
            await client.cancel(list(futures.values()))
    for relay_task in relays:
        relay_task.cancel()
    await _close_async(client, cluster)


async def _first_worker(scheduler: Any, distributed: Any, timeout_s: float = 60.0) -> None:
    """Wait until a worker has joined ``scheduler`` (a ``distributed.Scheduler`` on this event loop).

    Told by a scheduler plugin's ``add_worker`` hook the moment it happens; ``Client.wait_for_workers`` would ask
    the scheduler every 100 ms, which is a quarter of a small sweep's start-up on an idle machine.
    """
    import asyncio

    joined = asyncio.Event()

    class _Joined(distributed.diagnostics.plugin.SchedulerPlugin):  # type: ignore[misc]
        def add_worker(self, scheduler: Any = None, worker: Any = None) -> None:
            joined.set()

    scheduler.add_plugin(_Joined(), name="mrsim-first-worker")
    if not scheduler.workers:  # no await since the plugin was added: a worker that joined is already counted
        await asyncio.wait_for(joined.wait(), timeout_s)
    scheduler.remove_plugin(name="mrsim-first-worker")


def _reuse_parent_forkserver() -> None:
    """Make this process (forked by a fork server) fork its own children from that same, preloaded server.

    CPython's ``multiprocessing.forkserver`` gives a server's children its address and "alive" pipe, but not its
    pid, so their ``ensure_running`` starts a second server, which has preloaded nothing: each Dask worker would
    then import Dask and the engines anew (about 1 s of CPU each). Reusing the server only needs the address and
    the pipe; the resource tracker is inherited the same way and checks itself. If the private attributes differ
    (another Python), nothing is changed and a second server starts, as before: slower, never wrong.
    """
    from multiprocessing import forkserver, resource_tracker

    server = getattr(forkserver, "_forkserver", None)
    if (server is not None and getattr(server, "_forkserver_pid", 0) is None
            and getattr(server, "_forkserver_address", None) and getattr(server, "_forkserver_alive_fd", None)):
        server.ensure_running = resource_tracker.ensure_running  # type: ignore[method-assign]


async def _close_async(client: Any, cluster: Any) -> None:
    for part in (client, cluster):
        if part is not None:
            with contextlib.suppress(Exception):  # best effort: the scheduler may already be gone
                await part.close()
