"""The sweep journal: an append-only JSON-lines file of finished cells kept beside the results.

One line per cell, ``{"cell_id": ..., "metrics": {...}, "cell_wall_s": ..., "cell_cpu_s": ...}``, written by
the driver only (workers return records; they never touch the file), flushed and fsync'd after every chunk. A run killed at any
moment therefore loses at most the chunks in flight; a line torn by the kill is cut off when the journal is next
opened. An exclusive ``flock`` keeps two sweeps from writing the same journal; forked children (pool workers)
close their inherited copy at once, so the lock belongs to the driver alone and dies with it.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from pathlib import Path
from typing import IO, Any, Sequence

import orjson

from mrsim.analysis.sweeps.runner import CellOutcome
from mrsim.errors import InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locking
    fcntl = None  # type: ignore[assignment]


#: Journals open in this process; a forked child closes them (see :func:`_close_in_child`).
_OPEN: "weakref.WeakSet[Journal]" = weakref.WeakSet()


def _close_in_child() -> None:
    """After ``fork``: drop the child's reference to every open journal. An ``flock`` lives as long as any
    descriptor of the open file does, so a worker that kept one would keep the lock after the driver died."""
    for journal in list(_OPEN):
        fh, journal._fh = journal._fh, None
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.close()  # closes this process's descriptor only; the driver's lock stays


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_in_child)


def journal_path(output: Path) -> Path:
    """``results.parquet`` → ``results.parquet.journal.jsonl``."""
    return output.with_name(output.name + ".journal.jsonl")


class Journal:
    """Open with ``with Journal(path) as j``; then :meth:`read`, :meth:`append`, :meth:`clear`.

    ``read_only`` (``sweep --dry-run``): nothing is created, locked for writing or cut; a missing journal reads as
    empty and a torn last line is skipped, not removed."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        self._fh: IO[bytes] | None = None
        self._created = False

    def __enter__(self) -> "Journal":
        if self.read_only:
            import io

            try:
                self._fh = open(self.path, "rb")
            except FileNotFoundError:
                self._fh = io.BytesIO()
            return self
        from mrsim.io.output_errors import writing

        with writing(self.path, "the sweep journal"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._created = not self.path.exists()
            fh = open(self.path, "a+b")
        if fcntl is not None:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                raise InputError(f"{self.path}: another sweep is writing these results (journal locked)") from None
        self._fh = fh
        _OPEN.add(self)
        self._cut_torn_tail()
        return self

    def __exit__(self, *exc: object) -> None:
        _OPEN.discard(self)
        if self._fh is not None:
            if self._created and os.fstat(self._fh.fileno()).st_size == 0:
                # Nothing was journaled (a --dry-run, or a sweep that failed first): leave no empty file behind.
                # Unlinked while the lock is still held, so no other sweep has it open for writing.
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
            self._fh.close()  # closing releases the lock
            self._fh = None

    def _cut_torn_tail(self) -> None:
        """Drop a last line without its newline (a write interrupted by a kill), so appends start clean."""
        fh = self._require()
        fh.seek(0)
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)

    def _require(self) -> IO[bytes]:
        if self._fh is None:
            raise RuntimeError("journal used outside its with-block")
        return self._fh

    def read(self) -> dict[str, dict[str, Any]]:
        """Completed cells by id (a later line for the same id wins). Cost: O(journal size)."""
        fh = self._require()
        fh.seek(0)
        done: dict[str, dict[str, Any]] = {}
        for lineno, line in enumerate(fh, 1):
            if not line.strip() or (self.read_only and not line.endswith(b"\n")):  # blank, or torn by a kill
                continue
            try:
                rec = orjson.loads(line)
                done[rec["cell_id"]] = rec
            except (orjson.JSONDecodeError, KeyError, TypeError):
                raise InputError(f"{self.path}: line {lineno} is corrupt "
                                 "(delete the journal or use --restart)") from None
        return done

    def append(self, outcomes: Sequence[CellOutcome]) -> list[dict[str, Any]]:
        """Write the successful outcomes durably; returns the records written."""
        if self.read_only:
            raise RuntimeError("journal opened read-only")
        fh = self._require()
        records = [{"cell_id": o.cell_id, "metrics": o.metrics, "cell_wall_s": round(o.wall_s, 6),
                    "cell_cpu_s": round(o.cpu_s, 6)}
                   for o in outcomes if o.metrics is not None]
        if records:
            from mrsim.io.output_errors import writing

            # A write cut short (a full disk) leaves a torn last line, cut when the journal is next opened.
            with writing(self.path, "the sweep journal"):
                fh.seek(0, os.SEEK_END)
                fh.write(b"".join(orjson.dumps(r, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n" for r in records))
                fh.flush()
                os.fsync(fh.fileno())
        return records

    def clear(self) -> None:
        fh = self._require()
        fh.truncate(0)
        fh.flush()
