"""When a helper process may be forked: the rules the forked trace reader and the cache's saving child share.

``fork`` is used only where it is the platform's own way to start a process (Linux; on macOS it is unsafe with some
libraries), with no other thread in this process (a fork while another thread holds a lock can deadlock the
child), and with at least two CPUs this process may run on (with one, the child only adds its own costs).
"""

from __future__ import annotations

import os
import sys
import threading


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform has one, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def fork_helper_allowed(switch: str) -> bool:
    """Whether a helper process may be forked now (module docstring), unless the environment variable ``switch``
    is ``0``. Cost: one environment read and one system call."""
    if os.environ.get(switch, "1").strip() == "0" or not sys.platform.startswith("linux"):
        return False
    return threading.active_count() == 1 and usable_cpus() >= 2
