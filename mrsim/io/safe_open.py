"""Refuse special files before opening them, and bound how much is read.

Opening a named pipe blocks until a writer appears (a hang); ``/dev/zero`` never ends; a directory given where a
file is expected fails deep inside a reader. :func:`check_input_file` looks at ``os.stat`` first, so none of
these is ever opened. Cost: one ``stat`` per input path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mrsim.errors import InputError
from mrsim.io.limits import check_limit, limit


def check_input_file(path: str | os.PathLike[str], *, allow_dir: bool = False) -> Path:
    """``path`` as a Path when it is a readable regular file (or a directory, with ``allow_dir``).

    Raises :class:`InputError` naming the path for: missing, a FIFO/socket/device, a directory (unless
    allowed), no read permission.
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputError(f"{p}: no such file or directory") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        if not allow_dir:
            raise InputError(f"{p}: is a directory, expected a file")
    elif not stat.S_ISREG(st.st_mode):
        raise InputError(f"{p}: not a regular file ({_kind(st.st_mode)}); give a file")
    if not os.access(p, os.R_OK | (os.X_OK if stat.S_ISDIR(st.st_mode) else 0)):
        raise InputError(f"{p}: permission denied")
    return p


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def read_bounded(fh, path: str | os.PathLike[str]) -> bytes:
    """Read all of ``fh`` but refuse more than the ``input_bytes`` limit (a gzip bomb stops at the limit)."""
    cap = limit("input_bytes")
    data = fh.read(cap + 1)
    if len(data) > cap:
        check_limit("input_bytes", len(data), str(path))
    return data
