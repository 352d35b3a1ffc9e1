"""Open possibly-compressed inputs, choosing gzip by content (magic bytes), not by file name."""

from __future__ import annotations

import gzip
import io
import os
import zlib
from typing import IO

from mrsim.errors import InputError
from mrsim.io.safe_open import check_input_file, read_bounded

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | os.PathLike[str]) -> bool:
    """True when the file starts with the gzip magic bytes."""
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open ``path`` for reading bytes, transparently gunzipping. Raises :class:`InputError` if missing."""
    p = check_input_file(path)  # before opening: a FIFO would block, /dev/zero never end
    if is_gzip(p):
        return gzip.open(p, "rb")
    return open(p, "rb")


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The whole (decompressed) content of ``path``; a corrupt gzip stream is an :class:`InputError`."""
    with open_binary(path) as fh:
        try:
            return read_bounded(fh, path)
        except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise InputError(f"{path}: corrupt gzip data ({exc})") from None


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """Open ``path`` as UTF-8 text (errors replaced), transparently gunzipping."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace")
