"""Atomic output: write to a temporary file beside the target, then ``os.replace`` it.

A crash or an error half-way leaves the previous file (or nothing) in place, never a half-written one. Every
temporary name carries the writer's pid (``.<name>.mrsim-tmp-<pid>-<random>.tmp``); the next write to the same
target removes those whose writer is gone (a ``kill -9`` leaves nothing behind for long).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], what: str = "the output") -> Iterator[Path]:
    """Yield a temporary path in the target's directory; move it onto ``target`` on success. A failed write
    (full disk, read-only, no permission, an impossible place) is an
    :class:`~mrsim.io.output_errors.OutputError` naming ``target`` and ``what``."""
    from mrsim.io.output_errors import writing

    with writing(target, what), _atomic_path(target) as tmp:
        yield tmp


@contextlib.contextmanager
def _atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _clean_stale(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.mrsim-tmp-{os.getpid()}-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files; outputs get the usual permissions
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


@contextlib.contextmanager
def atomic_write(target: str | os.PathLike[str], mode: str = "w", *, gzip_output: bool | None = None,
                 what: str = "the output") -> Iterator[IO]:
    """Open a file for writing that appears at ``target`` only once the block completes.

    ``gzip_output`` defaults to ``target`` ending in ``.gz``. ``mode`` is ``"w"`` (text) or ``"wb"``.
    """
    target = Path(target)
    if gzip_output is None:
        gzip_output = target.name.endswith(".gz")
    with atomic_path(target, what) as tmp:
        if gzip_output:
            # mtime=0 keeps gzip output byte-identical across runs (deterministic artefacts).
            raw = open(tmp, "wb")
            try:
                gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
                if "b" in mode:
                    with gz:
                        yield gz
                else:
                    import io

                    with io.TextIOWrapper(gz, encoding="utf-8") as fh:
                        yield fh
            finally:
                raw.close()
        else:
            with open(tmp, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})) as fh:
                yield fh


# ------------------------------------------------------------------------------ whole output directories

_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with Linux ``renameat2(RENAME_EXCHANGE)``; False when unsupported."""
    import ctypes
    import errno

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _link_fd(fd: int, dest: Path) -> None:
    """``linkat(AT_FDCWD, "/proc/self/fd/N", dest, AT_SYMLINK_FOLLOW)``: name an ``O_TMPFILE`` file (os.link
    would link the /proc symlink itself)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_symlink_follow = -100, 0x400
    if libc.linkat(at_fdcwd, f"/proc/self/fd/{fd}".encode(), at_fdcwd, os.fsencode(dest), at_symlink_follow) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(dest))


class OutputSet:
    """Files being written for :func:`atomic_directory`; each is anonymous (``O_TMPFILE``) until the commit,
    so a killed writer leaves nothing to clean up."""

    def __init__(self, target: Path, owned: tuple[str, ...]) -> None:
        self.target = target
        self.owned = owned
        self._fds: dict[str, int] = {}
        self._scratch: Path | None = None  # fallback when O_TMPFILE is not supported

    def open(self, name: str, mode: str = "w") -> IO:
        """A new file ``name`` of the set, open for writing (text ``"w"`` or binary ``"wb"``)."""
        if name not in self.owned:
            raise ValueError(f"{name} is not one of the output set's files {self.owned}")
        parent = self.target.parent
        fd = -1
        if hasattr(os, "O_TMPFILE"):
            try:
                fd = os.open(parent, os.O_TMPFILE | os.O_WRONLY, 0o666)
            except OSError:
                fd = -1
        if fd < 0:
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.mrsim-tmp-{os.getpid()}-",
                                                      dir=parent))
            fd = os.open(self._scratch / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        self._fds[name] = os.dup(fd)
        if "b" in mode:
            return os.fdopen(fd, "wb")
        return os.fdopen(fd, "w", encoding="utf-8", newline="")

    def _materialise(self, directory: Path) -> None:
        for name, fd in self._fds.items():
            if self._scratch is not None and (self._scratch / name).exists():
                os.replace(self._scratch / name, directory / name)
            else:
                _link_fd(fd, directory / name)  # give the anonymous file its name

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()
        if self._scratch is not None:
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)


def _clean_stale(target: Path) -> None:
    """Remove temporary siblings of ``target`` (files or directories) left by a writer that was killed (its pid
    is gone), never through a symlink (:func:`mrsim.io.confined.remove_tree`)."""
    from mrsim.io.confined import pid_alive, remove_tree

    prefix = f".{target.name}.mrsim-"
    try:
        children = [c for c in os.listdir(target.parent) if c.startswith(prefix)]
    except OSError:
        return
    for name in children:
        parts = name[len(prefix):].split("-")
        if len(parts) >= 2 and parts[1].isdigit() and not pid_alive(int(parts[1])):
            remove_tree(target.parent / name)


@contextlib.contextmanager
def atomic_directory(target: str | os.PathLike[str], owned: tuple[str, ...],
                     what: str | None = None) -> Iterator[OutputSet]:
    """:func:`_atomic_directory`, a failed write an :class:`~mrsim.io.output_errors.OutputError` naming ``target``
    and ``what`` (default: the owned files)."""
    from mrsim.io.output_errors import writing

    named = what or (", ".join(owned[:-1]) + " and " + owned[-1] if len(owned) > 1 else owned[0])
    with writing(target, named), _atomic_directory(target, owned) as out:
        yield out


@contextlib.contextmanager
def _atomic_directory(target: str | os.PathLike[str], owned: tuple[str, ...]) -> Iterator[OutputSet]:
    """Write a set of files that replaces directory ``target`` as a unit.

    Yields an :class:`OutputSet`; files opened with ``out.open(name)`` are anonymous until the block ends.
    Then they are linked into a new hidden sibling directory, which is swapped with ``target`` in one atomic
    ``renameat2(RENAME_EXCHANGE)`` (Linux; elsewhere two renames, with a moment where ``target`` is absent), and
    the old directory is deleted. A reader therefore sees the old set or the new one, never a mix. A kill leaves
    at most a hidden ``.<name>.mrsim-*`` sibling, during the microseconds of the commit; the next write to the
    same target removes it.

    ``target`` must be new, empty, or hold only files named in ``owned`` (a previous output set): anything else
    would be deleted by the swap, so it is refused with an :class:`~mrsim.errors.InputError`.
    """
    import shutil

    from mrsim.errors import InputError

    target = Path(target)
    if target.exists():
        if not target.is_dir():
            raise InputError(f"{target}: exists and is not a directory")
        foreign = sorted(c.name for c in target.iterdir() if c.name not in owned)
        if foreign:
            raise InputError(f"{target}: holds files mrsim did not write ({', '.join(foreign[:3])}"
                             f"{', ...' if len(foreign) > 3 else ''}); give a new or empty directory, or one a "
                             "previous run wrote")
        if Path.cwd().resolve().is_relative_to(target.resolve()):
            raise InputError(f"{target}: is the current directory; give a subdirectory")
    target.parent.mkdir(parents=True, exist_ok=True)
    _clean_stale(target)
    out = OutputSet(target, owned)
    try:
        yield out
        fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}.mrsim-new-{os.getpid()}-", dir=target.parent))
        try:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(fresh, 0o777 & ~umask)
            out._materialise(fresh)
            if not target.exists():
                os.rename(fresh, target)
            elif _exchange(fresh, target):
                shutil.rmtree(fresh, ignore_errors=True)  # now holds the old set
            else:
                old = target.parent / f".{target.name}.mrsim-old-{os.getpid()}-{os.urandom(4).hex()}"
                os.rename(target, old)
                os.rename(fresh, target)
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
    finally:
        out.close()
