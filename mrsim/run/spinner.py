"""A one-line stderr spinner while a large input is read: the file, its size and the seconds spent so far.

Only on a terminal (``sys.stderr.isatty()``) and only for inputs of :data:`SPIN_MIN_BYTES` or more; it appears
after :data:`SPIN_DELAY_S` (a trace-cache hit returns before that) and erases itself when the read ends, so
nothing of it stays in the output. The line does not start with ``mrsim``: ``--log-level`` filters only mrsim's
own note and warning lines, so a progress line passes as tqdm's bars do, and ``--quiet`` turns it off.

Cost: one thread that wakes every :data:`SPIN_TICK_S` while the read runs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import Iterator

#: Inputs smaller than this read in well under a second: no spinner.
SPIN_MIN_BYTES = 1 << 20
#: Seconds before the spinner first draws.
SPIN_DELAY_S = 0.5
#: Seconds between redraws.
SPIN_TICK_S = 0.1

_FRAMES = "|/-\\"

#: Held while the spinner writes, and across every ``fork`` (the readers fork workers while it spins): a child
#: never starts with stderr's buffer locked by a thread it does not have.
_WRITE_LOCK = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_WRITE_LOCK.acquire, after_in_parent=_WRITE_LOCK.release,
                        after_in_child=_WRITE_LOCK.release)


def _size_of(path: str) -> int:
    """Bytes of ``path``, or of every file under it when it is a directory (a log folder); 0 when unknown."""
    try:
        if os.path.isdir(path):
            return sum(os.path.getsize(os.path.join(root, name))
                       for root, _dirs, names in os.walk(path) for name in names)
        return os.path.getsize(path)
    except OSError:
        return 0


def _human(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000.0
    return f"{n:,.1f} GB"  # pragma: no cover - the loop returns


def spinner_text(path: str, size: int, elapsed_s: float, frame: int) -> str:
    """``| reading trace.json.gz (45.2 MB) ... 3 s``: the line the spinner draws."""
    return f"{_FRAMES[frame % len(_FRAMES)]} reading {os.path.basename(path.rstrip('/')) or path} " \
           f"({_human(size)}) ... {elapsed_s:.0f} s"


@contextlib.contextmanager
def reading(path: "str | os.PathLike[str] | None", enabled: bool = True) -> Iterator[None]:
    """Show the spinner on stderr for the duration of the ``with`` block (see the module docstring)."""
    stream = sys.stderr
    size = _size_of(str(path)) if path is not None and enabled else 0
    if not enabled or size < SPIN_MIN_BYTES or not stream.isatty():
        yield
        return
    done = threading.Event()
    started = time.monotonic()
    drawn = [False]

    def draw() -> None:
        if done.wait(SPIN_DELAY_S):
            return
        frame = 0
        while not done.is_set():
            with _WRITE_LOCK:
                stream.write("\r" + spinner_text(str(path), size, time.monotonic() - started, frame) + "\033[K")
                stream.flush()
            drawn[0] = True
            frame += 1
            done.wait(SPIN_TICK_S)

    thread = threading.Thread(target=draw, name="mrsim-spinner", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if drawn[0]:
            stream.write("\r\033[K")
            stream.flush()
