"""Open possibly-compressed inputs, choosing gzip by content (magic bytes), not by file name."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path
from typing import IO

from mrsim.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | os.PathLike[str]) -> bool:
    """True when the file starts with the gzip magic bytes."""
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open ``path`` for reading bytes, transparently gunzipping. Raises :class:`InputError` if missing."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, expected a file")
    if is_gzip(p):
        return gzip.open(p, "rb")
    return open(p, "rb")


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The whole (decompressed) content of ``path``; a corrupt gzip stream is an :class:`InputError`."""
    with open_binary(path) as fh:
        try:
            return fh.read()
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(f"{path}: corrupt gzip data ({exc})") from None


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """Open ``path`` as UTF-8 text (errors replaced), transparently gunzipping."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace")
