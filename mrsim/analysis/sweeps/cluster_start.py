"""Starting the Dask LocalCluster a sweep runs on, in a background thread, while the driver runs cells itself.

:class:`ClusterStart` imports Dask, starts the scheduler, the nannies and the workers (forked from the preloaded
fork server, :func:`~.forkserver.start_dask_forkserver`) in a daemon thread, and says when the first worker has
joined; :class:`~mrsim.analysis.sweeps.executors.DaskBackend` adopts its client then. Starting it earlier, while
the driver imports the sweep modules, was tried and is slower: both threads import under one GIL, so the driver's
imports took twice as long and the cluster was up no sooner (``docs/performance.md``, "Sweeps on Dask").

Light on purpose: the standard library and :mod:`.forkserver` only (Dask is imported in the thread).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import warnings
from typing import Any

from mrsim.analysis.sweeps.forkserver import dask_installed, start_dask_forkserver

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
    "distributed.worker.memory.monitor-interval": "500ms",  # the nanny's RSS poll, every 100 ms by default
}


def default_workers() -> int:
    """The CPUs this process may use (the default worker count of both executors)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class ClusterStart:
    """A LocalCluster of ``workers`` single-threaded worker processes and its client, started in a daemon thread.

    :attr:`up` is set when the first worker has joined or the start failed (:attr:`error`); :attr:`startup_s` is
    the time from construction to then. Cost to the caller: one thread start (and the fork server, if not running).
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.distributed: Any = None
        self.cluster: Any = None
        self.client: Any = None
        self.error: BaseException | None = None
        self.up = threading.Event()
        self.started = time.perf_counter()
        self.startup_s = 0.0
        start_dask_forkserver()
        threading.Thread(target=self._start, name="mrsim-dask-start", daemon=True).start()

    def _start(self) -> None:
        try:
            from dask import distributed  # raises ImportError when Dask is missing: the backend reports it
            import dask

            self.distributed = distributed
            # our fork server is running: Dask must not set its own preload list for it
            distributed.utils._forkserver_preload_set = True
            # the scheduler's HTTP server (no dashboard) falls back to a random port when another cluster on the
            # machine holds 8787; the sweep never uses it, so the user is not told
            warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
            # only while this cluster starts (the nannies and the scheduler read it then): the user's other
            # clusters keep their own settings
            with dask.config.set(LOCAL_CLUSTER_CONFIG):
                self.cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                                        processes=True, dashboard_address=None,
                                                        silence_logs=logging.ERROR)
            self.client = distributed.Client(self.cluster, set_as_default=False)
            self.client.wait_for_workers(1, timeout=60)
        except BaseException as exc:  # re-raised in the driver's thread by the backend
            self.error = exc
        finally:
            self.startup_s = time.perf_counter() - self.started
            self.up.set()

    def close(self) -> None:
        """Wait for the start to finish, then close the client and the cluster (best effort)."""
        self.up.wait()
        with contextlib.suppress(Exception):  # the scheduler may already be gone
            if self.client is not None:
                self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
