"""Reading and deleting inside a directory mrsim owns (the trace cache, a trace store) without leaving it.

A symlink planted inside such a directory would make a reader parse a file outside it, and a cleanup delete one;
a hard link would make a cleanup drop a name another directory shares. Every path below the owned directory is
therefore checked with ``lstat`` (no symlink is ever followed: the last component is opened with ``O_NOFOLLOW``),
and :func:`remove_tree` unlinks symlinks themselves (never their targets) and leaves multiply-linked files alone.
The owned directory itself may be reached through a symlink: that is where the user put it.

Cost: one ``lstat`` per directory component and one ``fstat`` per file read (microseconds per file).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class Escape(OSError):
    """A path below an owned directory is a symlink, not what it should be, or leads outside."""


def check_dir(path: Path) -> None:
    """Raise :class:`Escape` unless ``path`` is a real directory (not a symlink to one)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise
    if stat.S_ISLNK(st.st_mode):
        raise Escape(errno.ELOOP, "is a symlink (never followed inside mrsim's own directories)", str(path))
    if not stat.S_ISDIR(st.st_mode):
        raise Escape(errno.ENOTDIR, "is not a directory", str(path))


def read_file(path: Path) -> bytes:
    """The bytes of regular file ``path``, opened with ``O_NOFOLLOW``: a symlink, a FIFO or a device is an
    :class:`Escape` (never opened for reading: ``O_NONBLOCK`` keeps a FIFO from blocking the open)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Escape(errno.ELOOP, "is a symlink (never followed inside mrsim's own directories)",
                         str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Escape(errno.EINVAL, "is not a regular file", str(path))
        chunks = []
        while True:
            chunk = os.read(fd, max(st.st_size + 1, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def inside(base: Path, *names: str) -> Path:
    """``base / names...`` after checking each directory below ``base`` on the way (not the last name, which the
    caller opens with :func:`read_file` or checks with :func:`check_dir`). A name that is not a plain file name
    (``..``, a slash, NUL, empty) is an :class:`Escape`."""
    path = base
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\0" in name:
            raise Escape(errno.EINVAL, f"names {name!r}, not a name inside the directory", str(base))
        path = path / name
        if i < len(names) - 1:
            check_dir(path)
    return path


def remove_tree(path: Path) -> list[Path]:
    """Delete ``path`` (a directory tree, a file or a symlink) without following any symlink, and return the
    files kept because another hard link names them (unlinking would drop a name another directory holds; they
    stay, with the directories that hold them). A symlink is unlinked itself, its target untouched. Errors other
    than a missing file are ignored, as ``shutil.rmtree(ignore_errors=True)`` does: a cleanup never fails a run."""
    kept: list[Path] = []
    try:
        st = os.lstat(path)
    except OSError:
        return kept
    if not stat.S_ISDIR(st.st_mode):
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            kept.append(path)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
        return kept
    try:
        children = list(os.scandir(path))
    except OSError:
        return kept
    for child in children:
        kept.extend(remove_tree(Path(child.path)))
    if not kept:
        try:
            os.rmdir(path)
        except OSError:
            pass
    return kept


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a process of another user counts: it may be a writer)."""
    if pid <= 0:
        return True  # not a pid mrsim wrote: never treat it as gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
