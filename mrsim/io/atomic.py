"""Atomic output: write to a temporary file beside the target, then ``os.replace`` it.

A crash or an error half-way leaves the previous file (or nothing) in place, never a half-written one.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path in the target's directory; move it onto ``target`` on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
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
def atomic_write(target: str | os.PathLike[str], mode: str = "w", *, gzip_output: bool | None = None) -> Iterator[IO]:
    """Open a file for writing that appears at ``target`` only once the block completes.

    ``gzip_output`` defaults to ``target`` ending in ``.gz``. ``mode`` is ``"w"`` (text) or ``"wb"``.
    """
    target = Path(target)
    if gzip_output is None:
        gzip_output = target.name.endswith(".gz")
    with atomic_path(target) as tmp:
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
