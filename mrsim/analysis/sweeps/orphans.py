"""Sweep helpers that must not outlive the process they work for (pool workers, a LocalCluster's workers).

Standard library only: imported by pool workers and Dask workers alike.
"""

from __future__ import annotations

import contextlib
import os
import threading


#: How often a pool worker checks that its driver is still alive (s); the bound on an orphan's lifetime when
#: ``PR_SET_PDEATHSIG`` is unavailable (or the worker's parent is a fork server rather than the driver).
DRIVER_POLL_S = 1.0


def exit_with_driver(driver_pid: int) -> None:
    """Pool-worker initializer (and a Dask LocalCluster worker's first call, with its host's pid): the process
    exits when ``driver_pid`` dies, even by ``kill -9``.

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
