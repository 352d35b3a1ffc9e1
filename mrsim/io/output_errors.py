"""A failed write as one error line: the path, what was being written, why, and that nothing was written.

Every output mrsim writes goes through :func:`mrsim.io.atomic.atomic_path` (single files), :func:`~mrsim.io.atomic
.atomic_directory` (``replay --out``) or the trace store's update (:func:`mrsim.profiler.store.add_to_store`); each
wraps its work in :func:`writing`, so a full disk (``ENOSPC``), an exceeded quota (``EDQUOT``), a read-only file
system (``EROFS``), a permission refusal (``EACCES``) or an impossible place (``/etc/passwd/x``, ``/proc/...``)
ends as an :class:`OutputError` (exit 1) instead of a traceback. Those writers are atomic, so the previous output,
if any, is intact and no half-written file is left.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Iterator

from mrsim.errors import InputError

_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large for the file system",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a component of the path is not a directory",
    errno.ENOENT: "the directory cannot be created there",
    errno.EEXIST: "a component of the path exists and is not a directory",
    errno.EISDIR: "is a directory",
    errno.ENAMETOOLONG: "name too long",
    errno.EXDEV: "cannot be moved across file systems",
    errno.EIO: "input/output error",
    errno.ELOOP: "too many symlinks on the way",
}

#: Errors that say "the write failed" wherever they come from (a ``write`` reports no file name).
_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})


class OutputError(InputError):
    """An output could not be written; nothing was (exit 1, like an input error). ``reason`` is the why alone."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


def reason_of(exc: OSError) -> str:
    """Why ``exc``'s write failed, in words (a full disk, a read-only file system, ...)."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    if exc.errno is None and "No space left" in text:  # a library's OSError that carries only a message (pyarrow)
        reason = _REASONS[errno.ENOSPC]
    elif exc.errno is None and "requested and" in text and "written" in text:  # numpy's short write
        reason = f"{_REASONS[errno.ENOSPC]} or quota exceeded: {text}"
    else:
        reason = _REASONS.get(exc.errno or -1) or exc.strerror or text or type(exc).__name__
    return reason


def describe(path: str | os.PathLike[str], what: str, exc: OSError) -> str:
    """The one line for ``exc`` raised while writing ``what`` to ``path``."""
    reason = reason_of(exc)
    return f"{path}: cannot write {what} ({reason}); nothing written, any previous output left as it was"


@contextlib.contextmanager
def writing(path: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Turn an ``OSError`` of the write of ``what`` to ``path`` into an :class:`OutputError`. An error naming a
    file elsewhere (an input read inside the block) is not this write's, and passes through unchanged."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        if not _is_this_write(Path(path), exc):
            raise
        raise OutputError(describe(path, what, exc), reason_of(exc)) from None


def _is_this_write(path: Path, exc: OSError) -> bool:
    if exc.errno in _DISK_ERRNOS or exc.filename is None:
        return True
    named = Path(os.fsdecode(exc.filename))
    here = path.parent if path.parent != Path("") else Path(".")
    try:
        return named == path or path.is_relative_to(named) or named.is_relative_to(here)
    except (TypeError, ValueError):
        return False
