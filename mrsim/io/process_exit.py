"""End a command-line process as soon as its work is done, without the interpreter's teardown.

When ``mrsim`` runs as a process (the console script or ``python -m mrsim``), everything the command built is
still alive when it returns: on the 1148-job benchmark replay, 300,000 tasks' templates, the engine's state and the
ingest's collectors. A normal interpreter exit frees each of those objects one by one, about 0.1 s that the user
waits for and nothing needs (the operating system takes the memory back at once). :func:`exit_now` does what a
normal exit does that matters (the ``atexit`` handlers, which include ``logging``'s flush and ``multiprocessing``'s
clean-up, then flushing stdout and stderr) and ends the process with ``os._exit``.

Outputs are complete by then: every file ``mrsim`` writes is written atomically and closed before its command
returns. Where another thread is still alive, the interpreter's own exit (which joins non-daemon threads) is kept,
and so is it under a profiler or tracer (``python -m cProfile -m mrsim ...`` writes its statistics after ``main``
returns; ``coverage`` saves in an ``atexit`` handler, which runs either way).
Never used when ``main`` is called from Python (a notebook, the tests' in-process calls).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading


def exit_now(code: int) -> None:
    """End the process with ``code``: ``atexit`` handlers run, stdout and stderr flushed, no teardown. Returns
    (and the caller exits normally) when a thread other than the main one is still running, or a profiler or tracer
    is set."""
    if threading.active_count() != 1 or sys.getprofile() is not None or sys.gettrace() is not None:
        return  # threads to join; a profiler or tracer (``python -m cProfile -m mrsim``) writes after we return
    atexit._run_exitfuncs()  # noqa: SLF001 - the documented way to run the handlers before os._exit
    end_process(code)


def end_process(code: int) -> None:
    """Flush stdout and stderr, then end the process with ``code`` at once: no exit handler, no teardown (for a
    caller that has run what it needs of them, e.g. ``mrsim sweep`` skipping Dask's)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
