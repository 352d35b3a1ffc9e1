"""A trace's reading started as soon as the command line is parsed, before the command imports and sets up.

A ``--no-cache`` replay (or a cache miss) of a large Rumen trace spends most of its time in one pass over the input,
read by a forked child (:mod:`mrsim.profiler.rumen_worker`). That child used to be forked when the pass began, after
the command had imported numpy, the engine and the builders and set up its options: about a tenth of a second on
the 1148-job benchmark during which the second core had nothing to do. Now the command names its input once its
arguments are parsed (a command module's ``early_input``), :func:`start_for_pass` decides whether the pass will
parse it (a Rumen trace, not a store, no cache entry) and :func:`start` forks the reader there; the pass takes that
reader (:func:`claim`, in :func:`mrsim.profiler.ingest._read_pass`) instead of forking its own. What the
child sends meanwhile waits in the pipe, widened for it (:data:`mrsim.profiler.rumen_worker.PIPE_BYTES`); with a full
pipe the child simply waits.

The jobs, their order and every error are those of the reader forked at the pass (the same child code, started
earlier): the file is the same one, checked by device, inode, size and modification time when claimed (a file
replaced meanwhile: the early reader is stopped and the pass reads the file as it is then). A reader nobody claims
(the command failed first, or read the input another way) is stopped and reaped by :func:`discard`, which the CLI
calls when the command ends; the process's exit does the same.

One reader at a time, for one path; the same rules as the forked reader's own (Linux, one thread, two CPUs, the
load average, ``MRSIM_INGEST_WORKER``, at least :data:`~mrsim.profiler.rumen_worker.MIN_BYTES` on disk). Cost when
unclaimed: the child's CPU until it is stopped, on the other core.
"""

from __future__ import annotations

import atexit
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mrsim.profiler.rumen_worker import ForkedReader

_started: tuple[str, tuple[int, int, int, int], "ForkedReader"] | None = None
_atexit_registered = False


def _identity(path: str | os.PathLike[str]) -> tuple[str, tuple[int, int, int, int]] | None:
    """(real path, (device, inode, size, mtime ns)), or None when the path cannot be read as a file."""
    try:
        st = os.stat(path)
        return os.path.realpath(path), (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def start(path: str | os.PathLike[str]) -> bool:
    """Fork a reader of the Rumen trace ``path`` now, when the forked reader's rules allow it
    (:func:`mrsim.profiler.rumen_worker.worker_wanted`) and none is running; whether one was started. The caller has
    made sure the pass will parse ``path`` (not a store, no cache entry)."""
    global _started, _atexit_registered
    from mrsim.profiler.rumen_worker import fork_reader, worker_wanted

    if _started is not None or not worker_wanted(path):
        return False
    ident = _identity(path)
    if ident is None:
        return False
    if not _atexit_registered:
        atexit.register(discard)
        _atexit_registered = True
    # What the child runs, imported here first: this process needs it too, and imported before the fork it is
    # imported once, its pages shared by the two processes, not once in each.
    import mrsim.profiler.rumen  # noqa: F401
    import mrsim.profiler.typed  # noqa: F401

    _started = (*ident, fork_reader(path, typed=True))
    return True


def start_for_pass(path: str | os.PathLike[str] | None, fmt: str | None = None) -> bool:
    """:func:`start` for the input a command will read through :func:`mrsim.profiler.ingest.ingest`,
    when that will parse it: a regular file in the Rumen format (detected from its content, or ``fmt``), with no
    trace-cache entry (the cache off, or a miss). A job spec (a hand-written TOML file) is not detected as Rumen,
    and a trace store or a log directory is not a regular file. Cheap: the format's sniff of the file's head and,
    with the cache on, the content hash the cache computes anyway (memoised), no numpy. Never raises: whatever is
    wrong with the input, the command reports when it reads it."""
    from mrsim.profiler import cache
    from mrsim.profiler.detect import Format, detect_format

    kind = (fmt or "").strip().lower()
    if path is None or kind not in ("", Format.RUMEN.value):
        return False
    try:
        if not os.path.isfile(path) or (not kind and detect_format(path) is not Format.RUMEN):
            return False
        if cache.cache_enabled():
            key = cache.entry_key(cache.content_digest(path), {"format": Format.RUMEN.value})
            if (cache.entry_dir(key) / cache.ENTRY_META).is_file():
                return False  # a hit: nothing to parse
        return start(path)
    except Exception:  # noqa: BLE001 - a guess only: the command reads the input and reports any problem
        return False


def claim(path: str | os.PathLike[str]) -> "ForkedReader | None":
    """The reader :func:`start` forked for ``path``, for the caller to take its jobs
    (:func:`mrsim.profiler.rumen_worker.iter_rumen_jobs_forked` with ``started=``); None when there is none for this
    path (a reader started for another file is left running) or the file changed since (that reader is stopped)."""
    global _started
    if _started is None:
        return None
    real, ident, reader = _started
    now = _identity(path)
    if now is None or now[0] != real:
        return None
    _started = None
    if now[1] != ident:
        reader.discard()
        return None
    return reader


def discard() -> None:
    """Stop and reap a reader nobody claimed (a no-op when there is none)."""
    global _started
    if _started is not None:
        reader = _started[2]
        _started = None
        reader.discard()
