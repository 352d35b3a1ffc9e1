"""The LocalCluster's workers: one Dask worker per process, forked from the preloaded fork server, no nanny.

Imported by the cluster's host process only (it imports Dask); the sweep driver never imports it.

Dask's LocalCluster puts each worker under a *nanny*: a process of its own that forks the worker, restarts it
when it dies and kills it over its memory limit. A sweep needs none of that (a worker that dies fails its chunk,
which the driver reports; a re-run computes the missing cells), and on a 2-core machine every process competes
with the cells for the CPUs: a nanny per worker is one more interpreter to fork and start, one more TCP server to
register with the scheduler, a memory poll and, on the start-up's critical path, a 50 ms poll of the queue on
which its worker reports that it is up. :class:`ForkedWorker` is a ``distributed.deploy.ProcessInterface`` (Dask's
documented hook for clusters that start their workers themselves), given to the LocalCluster as its
``worker_class``: it forks a plain :class:`distributed.Worker` process from the fork server, which joins the
scheduler directly (``docs/performance.md``, "Sweeps on Dask").
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import Any

from distributed.deploy.spec import ProcessInterface

from mrsim.analysis.sweeps.forkserver import DASK_PRELOAD, forkserver_context
from mrsim.analysis.sweeps.orphans import exit_with_driver

#: The worker options a LocalCluster passes to its ``worker_class`` that :class:`distributed.Worker` takes as they
#: are; the others (``silence_logs``, ``dashboard``, ``dashboard_address``) are handled here.
WORKER_OPTIONS = ("nthreads", "memory_limit", "host", "interface", "protocol", "security", "services")

#: How long :meth:`ForkedWorker.close` waits for the worker to leave on its own (the scheduler closes it first)
#: before terminating it (s).
WORKER_CLOSE_S = 3.0


class ForkedWorker(ProcessInterface):
    """One ``distributed.Worker`` in a process forked from the preloaded fork server (``worker_class`` of the
    LocalCluster mrsim starts). ``scheduler`` is the scheduler's address; ``name`` the worker's; ``options`` are the
    LocalCluster's worker options. Cost: one fork-server request; the process imports nothing the server has not.
    """

    def __init__(self, scheduler: str, name: Any = None, **options: Any) -> None:
        super().__init__()
        self.scheduler_address = scheduler
        self.name = name
        level = options.get("silence_logs")
        self._level = level if isinstance(level, int) and not isinstance(level, bool) else None
        self._options = {k: options[k] for k in WORKER_OPTIONS if k in options}
        self.process: Any = None

    async def start(self) -> None:
        """Fork the worker and return: the cluster learns that it is up when it joins the scheduler (Dask's
        contract for ``ProcessInterface.start``)."""
        import dask

        ctx = forkserver_context(DASK_PRELOAD)
        # the fork server's config is not the host's: the LocalCluster's settings travel with the worker (as a
        # nanny sends them)
        self.process = ctx.Process(target=run_worker, name=f"mrsim-dask-worker-{self.name}", daemon=True,
                                   args=(self.scheduler_address, self.name, self._options, dask.config.config,
                                         self._level, os.getpid()))
        # start() waits for the fork server's answer: off the event loop, which is also the scheduler's
        await asyncio.get_running_loop().run_in_executor(None, self.process.start)
        await super().start()

    async def close(self) -> None:
        """Stop the worker: ``SIGTERM`` (it closes itself, removing its scratch directory), then ``SIGKILL`` if it
        is still there after :data:`WORKER_CLOSE_S`. The cluster calls this once the scheduler has retired the
        worker, or when it closes."""
        process = self.process
        if process is not None and process.pid is not None:

            def stop() -> None:
                if process.is_alive():
                    process.terminate()
                    process.join(WORKER_CLOSE_S)
                if process.is_alive():
                    process.kill()
                    process.join()

            await asyncio.get_running_loop().run_in_executor(None, stop)
        await super().close()


def run_worker(scheduler: str, name: Any, options: dict[str, Any], config: dict[str, Any], log_level: int | None,
               host_pid: int) -> None:
    """The worker process: a ``distributed.Worker`` until the scheduler closes it (or the cluster's host dies:
    then the worker exits within a second)."""
    import dask
    from distributed import Worker

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle (it closes the cluster)
    exit_with_driver(host_pid)
    dask.config.set(config)
    if log_level is not None:
        silence_dask_logs(log_level)

    async def serve() -> None:
        async with Worker(scheduler, name=name, **options) as worker:
            # SIGTERM (ForkedWorker.close) closes the worker in order, as a nanny's stop message would
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGTERM, lambda: asyncio.ensure_future(worker.close(nanny=False, reason="cluster-closed")))
            await worker.finished()

    asyncio.run(serve())


def silence_dask_logs(level: int) -> None:
    """Raise the level of Dask's stderr handlers (on the ``distributed`` logger) to ``level``."""
    for handler in logging.getLogger("distributed").handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setLevel(level)
