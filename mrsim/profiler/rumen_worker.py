"""Read a Rumen trace in a forked process while this one builds from it: the second core for a ``--no-cache`` parse.

The one-pass ingest reads a job, then builds from it (template, calibration lags), then reads the next. Reading --
gunzip, cutting the stream, the typed decoder and the columns (:mod:`mrsim.profiler.typed`) -- needs nothing the
building does, so :func:`iter_rumen_jobs_forked` runs :func:`mrsim.profiler.rumen.iter_rumen_jobs` in a child process
forked at the start of the pass (or as the command starts: :mod:`mrsim.profiler.early_read`, :class:`ForkedReader`)
and receives its jobs through a pipe, in batches, while this process builds the
ones before: with a free core the pass takes about the longer of the two, not their sum.

What comes through the pipe is what the reader yields, in its order: each job (a :class:`~mrsim.profiler.typed.TypedJob`
as its job-level fields, columns and host names by code, not its typed tasks, and its bytes only when its job id
repeats an earlier one; anything else as the dict), then the
end of the input or the exception the reader raised, raised here where the reader would have raised it (the same
:class:`~mrsim.errors.InputError` and message: file, line and field are worked out by the same code in the child). So
the jobs, their order and every error are those of the reader run in this process; the child writes nothing but the
pipe. If this process stops reading early (an error while building, an interrupt), the child is killed and reaped.

**The decoding can be shared out** (``MRSIM_INGEST_SHARE=1``; off by default, see :func:`share_wanted`). Which side is slower depends on the trace and on what this process builds (on the
benchmark trace the child's reading is about 0.7 s of CPU, this process's building 0.3 to 0.9 s, the calibration
being most of it), so a fixed split would leave one side idle. Instead, whenever this process is about to wait for a
batch (nothing to read on the pipe), it says so in a page shared with the child, and while it says so the child cuts
pieces without decoding them and sends their bytes (:class:`_Raw`): this process decodes them itself, as the reader
would have (the typed decoder, else ``orjson``), instead of waiting. When this process is the slower side it never
waits and the child decodes everything, as before. Which pieces go undecoded depends on timing; what is yielded does
not: the same decoders on the same bytes give the same job. One case needs more: a piece the reader would have handed
to its strict decoder (what neither the typed decoder nor ``orjson`` takes; from there the reader reads differently),
which the child, not decoding it, cannot know. This process finds it when decoding the piece, stops the child, and
forks a new one that reads the input from the start without sharing and sends only what comes after the jobs already
given (the same ones): the reader's jobs and errors, at the cost of reading that much of the input twice.

Used only where it can help and is safe: Linux (``fork``), no other thread in this process (forking a process
with threads can deadlock on a lock one of them held), at least two CPUs this process may run on and a one-minute
load average below their number (with no core to spare the child only adds its pickling), an input of at least
:data:`MIN_BYTES`, and ``MRSIM_INGEST_WORKER`` not ``0`` (``always``: whatever the load average, to measure the
forked reader on a busy machine). Cost: the jobs' pickling (columns, host codes, attempt ids;
about 0.1 s of CPU on each side for the 1148-job trace; an undecoded piece: its bytes, copied twice more), and a copy
of the process's pages as either side writes them. The child runs without the cyclic collector and keeps the memory
it frees for its next allocations (:func:`_send_jobs`), so that it neither walks the parent's pages nor faults its
own in again and again (``docs/performance.md``, "How a trace is read").
"""

from __future__ import annotations

import fcntl
import gc
import mmap
import os
import pickle
import select
import signal
from collections.abc import Iterator
from typing import Any, Literal

#: Inputs smaller than this (bytes on disk) are read in this process: a fork and a pipe cost more than they save.
MIN_BYTES = 1 << 20
#: Jobs go through the pipe in batches of about this many bytes of input (one pickle per batch).
_BATCH_BYTES = 1 << 20
#: The pipe's capacity asked for (bytes): about a tenth of the 1148-job benchmark trace's pickles, what its child
#: sends in the tenth of a second before this process starts reading when the reading starts early.
PIPE_BYTES = 1 << 20


def worker_wanted(path: str | os.PathLike[str]) -> bool:
    """Whether :func:`iter_rumen_jobs_forked` should read ``path`` (see the module docstring)."""
    from mrsim.io.forking import fork_helper_allowed, usable_cpus

    if not fork_helper_allowed("MRSIM_INGEST_WORKER"):
        return False
    try:  # a core to spare (one-minute load average below the CPUs): else reading here costs less CPU in all
        if os.environ.get("MRSIM_INGEST_WORKER", "1").strip() != "always" and os.getloadavg()[0] >= usable_cpus():
            return False
    except OSError:
        pass
    try:
        return os.stat(path).st_size >= MIN_BYTES
    except OSError:
        return False


class _Raw:
    """A piece the child cut but did not decode (the parent was waiting for work): its bytes and where it starts in
    the decompressed input. The parent decodes it as the reader would have (:meth:`decoded`)."""

    __slots__ = ("piece", "offset")

    def __init__(self, piece: bytes, offset: int) -> None:
        self.piece, self.offset = piece, offset

    def __reduce__(self) -> tuple[Any, ...]:
        return _Raw, (self.piece, self.offset)

    def decoded(self, source: str) -> dict | None:
        """What the reader yields for this piece: the typed decoder's job, else ``orjson``'s dict (the fast path);
        None where the reader would hand the rest of the input to its strict decoder."""
        from mrsim.profiler.rumen import fast_object
        from mrsim.profiler.typed import typed_job

        job = typed_job(self.piece, source, self.offset)
        return job if job is not None else fast_object(self.piece)


class _HandOver(Exception):
    """A piece left undecoded by the child is one the reader would hand to its strict decoder."""


def share_wanted() -> bool | None:
    """The default of :func:`iter_rumen_jobs_forked`'s ``share``: None (shared as this process waits) when
    ``MRSIM_INGEST_SHARE=1``, else False (the child decodes every piece). Off by default: on the loaded machine it
    was measured on, sharing balanced the two processes' CPU but did not shorten the pass (``docs/performance.md``,
    "How a trace is read")."""
    return None if os.environ.get("MRSIM_INGEST_SHARE", "0").strip() == "1" else False


class ForkedReader:
    """A forked child reading one input: its pid, the pipe's read end, and the page through which this process says
    whether it waits (:func:`share_wanted`). Made by :func:`fork_reader`; its jobs come from
    :func:`iter_rumen_jobs_forked` (``started=``), which reaps the child; :meth:`discard` stops one whose jobs are
    not wanted."""

    __slots__ = ("path", "typed", "share", "skip", "pid", "read_end", "page", "waiting")

    def __init__(self, path: str | os.PathLike[str], typed: bool, share: bool | None, skip: int) -> None:
        self.path, self.typed, self.share, self.skip = path, typed, share, skip
        # One shared anonymous page: whether this process is waiting for the child (1) or busy (0), for the child.
        self.page = mmap.mmap(-1, 8)
        self.waiting = memoryview(self.page).cast("q")
        self.read_end, write_end = os.pipe()
        _widen(write_end)
        self.pid = os.fork()
        if self.pid == 0:  # the child: read, send, exit without running the parent's exit handlers or flushing
            status = 1
            try:
                os.close(self.read_end)
                _send_jobs(path, typed, write_end, self.waiting, share, skip)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)

    def discard(self, kill: bool = True) -> None:
        """Stop the child (``kill``: unless it has sent its end and is exiting by itself), reap it, and free the pipe
        and the page. Idempotent."""
        if self.pid:
            if kill:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.read_end >= 0:
            os.close(self.read_end)
            self.read_end = -1
        if not self.page.closed:
            self.waiting.release()
            self.page.close()


def _widen(fd: int) -> None:
    """Let the pipe hold up to :data:`PIPE_BYTES` (Linux ``F_SETPIPE_SZ``; a smaller system limit or another
    platform keeps the default, 64 KiB on Linux): a child started before this process reads (:mod:`mrsim.profiler
    .early_read`) can read on meanwhile, and a batch does not wait for this process to take the one before."""
    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setpipe is None:
        return
    try:
        fcntl.fcntl(fd, setpipe, PIPE_BYTES)
    except OSError:  # above /proc/sys/fs/pipe-max-size for this user: the default size then
        pass


def fork_reader(path: str | os.PathLike[str], *, typed: bool = True,
                share: bool | None | Literal["env"] = "env", skip: int = 0) -> ForkedReader:
    """Fork a child reading ``path`` now (see :func:`iter_rumen_jobs_forked` for the arguments)."""
    return ForkedReader(path, typed, share_wanted() if share == "env" else share, skip)


def iter_rumen_jobs_forked(path: str | os.PathLike[str], *, typed: bool = True,
                           share: bool | None | Literal["env"] = "env", skip: int = 0,
                           started: ForkedReader | None = None) -> Iterator[dict]:
    """:func:`mrsim.profiler.rumen.iter_rumen_jobs` (same jobs, same order, same errors), read by a forked child.

    ``share``: whether the child leaves pieces undecoded for this process to decode (:class:`_Raw`): None while
    this process waits for the child, so that the decoding is shared out between the two processes as their speeds
    allow; True every piece, False none; ``"env"`` (the default): :func:`share_wanted`. ``skip``: leave out the
    first jobs (the child reads them but does not send them). ``started``: a child already forked for ``path`` by
    :func:`fork_reader` (its own ``typed``, ``share`` and ``skip`` then apply); else one is forked at the first job
    asked for."""
    child = started if started is not None else fork_reader(path, typed=typed, share=share, skip=skip)
    typed, skip = child.typed, child.skip
    given = 0
    finished = False
    source = str(path)
    waiting = child.waiting
    try:
        with os.fdopen(child.read_end, "rb", buffering=1 << 16) as pipe:
            child.read_end = -1  # closed with the pipe object
            fd = pipe.fileno()
            while True:
                # Nothing to read yet: this process is about to wait, and the child may leave pieces to it.
                waiting[0] = not select.select((fd,), (), (), 0)[0]
                kind, payload = pickle.load(pipe)
                waiting[0] = 0
                if kind == "jobs":
                    for job in payload:
                        if type(job) is _Raw:
                            job = job.decoded(source)
                            if job is None:
                                raise _HandOver
                        given += 1
                        yield job
                elif kind == "error":
                    finished = True
                    raise payload
                else:
                    finished = True
                    return
    except EOFError:
        raise RuntimeError(f"{path}: the reading process ended without a result") from None
    except _HandOver:
        pass
    finally:
        child.discard(kill=not finished)
    # Only after a hand-over (the reader's strict decoder reads on from that piece): a new child reads the input
    # from the start, decoding every piece itself, and sends what follows the jobs already given (the same ones).
    yield from iter_rumen_jobs_forked(path, typed=typed, share=False, skip=skip + given)


def _send_jobs(path: str | os.PathLike[str], typed: bool, fd: int, waiting: memoryview | None = None,
               share: bool | None = False, skip: int = 0) -> None:
    """The child's side: every job of the reader (but the first ``skip``), then ``("end", None)`` or ``("error",
    exception)``. ``waiting``: whether the parent waits for this process; ``share``: see
    :func:`iter_rumen_jobs_forked`."""
    from mrsim.profiler.rumen import iter_rumen_jobs
    from mrsim.profiler.typed import TypedJob, typed_job

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # an interrupt ends the child at once; the parent reports it
    # No cyclic collection in this process: the reader's objects are trees freed by reference counting, and a
    # collection would walk (and so copy) every page of the parent's objects; the decoder's thousands of lists per
    # job would start one every few hundred allocations (about a tenth of the child's CPU when it is forked with the
    # collector on, as before the pass; the pass itself forks it with the collector off). Whatever cycle an error
    # leaves dies with the process.
    gc.disable()
    _hold_freed_memory()
    with os.fdopen(fd, "wb", buffering=1 << 16) as pipe:
        def dump(message: tuple[str, Any]) -> None:
            pickle.dump(message, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            pipe.flush()  # the whole batch now: the parent may be waiting for it

        def decode(piece: memoryview, source: str, offset: int) -> Any:
            # Left to the parent while it waits for this batch: there, decoding it costs no more than the wait.
            if share or (share is None and waiting is not None and waiting[0]):
                return _Raw(bytes(piece), offset)
            return typed_job(piece, source, offset)

        batch: list[Any] = []
        size = 0
        end: tuple[str, Any] = ("end", None)
        # Job ids seen: a TypedJob whose id repeats one (or holds "#", the renaming's mark) goes with its bytes, since
        # the pass may then need it whole (the slot usage's general path of a repeated id): read again from a
        # gzip stream, each would cost a decompression up to it. (A piece sent undecoded goes with its bytes anyway;
        # its id is not known here, so a later repeat of it comes without: read again if the pass needs it whole.)
        seen: set[str] = set()
        try:
            for job in iter_rumen_jobs(path, typed=typed, decode=decode if typed and share is not False else None):
                kind = type(job)
                if kind is TypedJob:
                    job_id = str(job.get("jobID"))
                    if job_id in seen or "#" in job_id:
                        job.piece = bytes(job.piece)  # type: ignore[arg-type]
                    seen.add(job_id)
                if skip:
                    skip -= 1
                    continue
                batch.append(job)
                size += len(job.piece) if kind is TypedJob or kind is _Raw else 1 << 16
                # A piece left undecoded goes at once, with the jobs before it: the parent waits for work, and one
                # piece at a time keeps it from taking more than the wait would have lasted.
                if size >= _BATCH_BYTES or kind is _Raw:
                    dump(("jobs", batch))
                    batch, size = [], 0
        except Exception as exc:  # noqa: BLE001 - handed to the parent, raised there
            end = ("error", exc)
        if batch:
            dump(("jobs", batch))
        try:
            dump(end)
        except (pickle.PicklingError, TypeError, AttributeError):  # an exception that does not pickle
            dump(("error", RuntimeError(f"{type(end[1]).__name__}: {end[1]}")))


def _hold_freed_memory() -> None:
    """Keep what the child frees for its next allocations instead of handing it back to the system. The reader
    allocates and frees blocks of about a megabyte per chunk of input (gunzip's output, the buffer a chunk is joined
    to, a large job's objects), which glibc's ``malloc`` would otherwise map afresh or trim from its heap again and
    again: each time the pages are faulted in anew, more than half of the child's minor page faults (on the
    1148-job trace, 17,000 to 22,000 of them against 7,500 to 9,000 with this). The child is short-lived and its
    peak memory the same. Through ``mallopt`` (glibc's; elsewhere nothing or a no-op). Cost: two library calls."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: blocks below 32 MB (glibc's largest) from the heap, not mapped each
    mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: the heap's free top kept up to 1 GB, not trimmed after each chunk
