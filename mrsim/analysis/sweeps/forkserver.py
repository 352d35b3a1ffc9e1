"""The fork server sweep workers start from: one process that has imported the engines once, forked per worker.

Kept free of heavy imports (only :mod:`multiprocessing`), so that ``mrsim sweep --executor dask`` can start it
before the driver imports the sweep modules and Dask: the server's imports (about 1 s of CPU) then run on another
core while the driver reads the spec and starts the scheduler (``docs/sweeps.md``, "Run on a cluster").
"""

from __future__ import annotations

import multiprocessing

#: Imported once by the fork server, so each worker starts with the engines loaded (saves ~0.4 s of CPU per
#: worker). Not pandas: only the driver builds tables, and the workers' modules do not import it.
PRELOAD = ["mrsim.analysis.sweeps.runner", "mrsim.engine.replay", "mrsim.studies.fluid", "mrsim.ingest.synth",
           "mrsim.ingest.workloads"]

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
    need); this one is :data:`DASK_PRELOAD`. ``fork`` would be cheaper still but is unsafe: the driver runs Dask's
    event loop in a thread when the workers start. Cost to the caller: one fork and exec; idempotent. Nothing is
    started when Dask is not installed (the executor then reports that in one line).
    """
    from multiprocessing import forkserver

    if not dask_installed():
        return

    forkserver_context(DASK_PRELOAD)
    forkserver.ensure_running()
