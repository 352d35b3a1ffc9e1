"""Imported first by the Dask workers' fork server (:data:`.forkserver.DASK_PRELOAD`) and nowhere else: the server
then ends, once its driver has gone, without the interpreter's teardown of Dask, numpy and the engines.

That teardown took 0.5-0.7 s on the loaded 2-core development machine, and a caller that reads the sweep's output
through a pipe (``$(mrsim sweep ... --json)``, a benchmark) waits for it, because the server holds the pipe open.
The handler runs last (``atexit`` runs in reverse order of registration), after every other exit handler; output is
flushed first. The server's children never run it: ``multiprocessing`` ends them with ``os._exit``.
"""

from __future__ import annotations

import atexit
import functools

from mrsim.io.process_exit import end_process

atexit.register(functools.partial(end_process, 0))
