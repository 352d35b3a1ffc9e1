"""The fork server sweep workers start from: one process that has imported the engines once, forked per worker.

Kept free of heavy imports (only :mod:`multiprocessing`). ``mrsim sweep --executor dask`` forks the Dask workers'
server from itself once numpy and the cell modules are in (:func:`fork_dask_forkserver`), so that the server
imports only Dask, on another core, while the driver imports the rest and reads the spec; elsewhere (or when
threads run) :func:`start_dask_forkserver` starts a fresh one (``docs/sweeps.md``, "Run on a cluster").
"""

from __future__ import annotations

import multiprocessing

#: Imported once by the fork server, so each worker starts with the engines loaded (saves ~0.4 s of CPU per
#: worker). Not pandas: only the driver builds tables, and the workers' modules do not import it.
PRELOAD = ["mrsim.analysis.sweeps.runner", "mrsim.tracker.replay", "mrsim.studies.fluid", "mrsim.profiler.synth",
           "mrsim.profiler.workloads"]

#: What a Dask LocalCluster's fork server imports: Dask's worker as well, and first :mod:`.quick_exit` (the server
#: ends without the interpreter's teardown).
DASK_PRELOAD = ["mrsim.analysis.sweeps.quick_exit", "distributed", "numpy", *PRELOAD]


def forkserver_context(preload: list[str]) -> multiprocessing.context.BaseContext:
    """The ``forkserver`` context with ``preload`` set (used only if this process has not started the server yet:
    a running server is reused as it is)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(preload)
    return ctx


def dask_installed() -> bool:
    """Whether ``dask`` and ``distributed`` can be imported, without importing them (cost: a path lookup)."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(name) is not None for name in ("dask", "distributed"))
    except (ImportError, ValueError):
        return False


def start_dask_forkserver() -> None:
    """Start the fork server a Dask LocalCluster's workers fork from, now, with Dask and the engines preloaded.

    Dask's default (``spawn``) makes each worker import Dask, numpy and mrsim anew: about 1 s of CPU per worker.
    Dask's own fork-server preload lists Dask and its dependencies only (pandas among them, which workers do not
    need); this one is :data:`DASK_PRELOAD`. Dask's own ``fork`` would be cheaper still but is unsafe: the process
    that starts the workers (the cluster's host) runs Dask's event loop in a thread by then. Cost to the caller:
    one fork and exec; idempotent. Nothing is started when Dask is not installed (the executor then reports that in
    one line).
    """
    from multiprocessing import forkserver

    if not dask_installed():
        return

    forkserver_context(DASK_PRELOAD)
    forkserver.ensure_running()


def fork_dask_forkserver() -> bool:
    """Start the Dask workers' fork server as a fork of this process rather than a fresh interpreter; False (nothing
    done) when that is not safe or not possible, and the caller falls back to :func:`start_dask_forkserver`.

    A fresh server imports the interpreter's start-up, numpy and the engines again before Dask: about 0.5 s of CPU
    of its 1 s. A fork inherits what this process has imported (call it once numpy and :mod:`.runner` are in) and
    imports only :data:`DASK_PRELOAD`'s rest. Safe only while this process has one thread (no lock can be held by
    another at the fork) and before it opens the sweep's journal (the server must not inherit its lock). The
    server then runs CPython's own fork-server loop (``multiprocessing.forkserver.main``), registered as this
    process's fork server exactly as ``ensure_running`` registers one it starts; the attributes set are CPython's
    (3.8-3.13), checked before use. Cost to the caller: one ``fork``.
    """
    import os
    import socket
    import sys
    import threading
    from multiprocessing import connection, forkserver, resource_tracker

    server = getattr(forkserver, "_forkserver", None)
    if (not dask_installed() or not hasattr(os, "fork") or threading.active_count() != 1 or server is None
            or not all(hasattr(server, a) for a in ("_forkserver_address", "_forkserver_alive_fd", "_forkserver_pid"))
            or server._forkserver_pid is not None):
        return False
    forkserver_context(DASK_PRELOAD)
    resource_tracker.ensure_running()  # its pipe is handed to every child, as ensure_running() does
    with socket.socket(socket.AF_UNIX) as listener:
        address = connection.arbitrary_address("AF_UNIX")
        listener.bind(address)
        os.chmod(address, 0o600)
        listener.listen()
        alive_r, alive_w = os.pipe()  # the server ends when every holder of alive_w has ended
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # nothing buffered here may be written twice
        pid = os.fork()
        if pid == 0:  # the fork server: never returns
            try:
                os.close(alive_w)
                forkserver.main(listener.fileno(), alive_r, DASK_PRELOAD)
            finally:
                os._exit(0)
        os.close(alive_r)
    server._forkserver_address = address
    server._forkserver_alive_fd = alive_w
    server._forkserver_pid = pid
    return True
