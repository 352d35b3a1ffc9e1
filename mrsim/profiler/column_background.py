"""A :class:`~mrsim.calibration.background.BackgroundCollector` whose slot usage is kept as two numpy columns
(epoch seconds, +1/-1) and made into the collector's list of points only when read.

Used by the one-pass ingest (:mod:`mrsim.profiler.ingest`: a pass, a trace cache hit) and by the
profiler's read of a trace store (:meth:`mrsim.profiler.observe.Profiler.add`). It sits below both (it
imports neither), so that neither import makes a cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mrsim.calibration.background import BackgroundCollector

if TYPE_CHECKING:
    from mrsim.profiler.store import StoredBackground


class ColumnBackground(BackgroundCollector):
    """A :class:`BackgroundCollector` made from a pass's columns. ``usage`` and ``reduce_usage`` (lists of 400,000
    and 200,000 tuples on the 1148-job trace, about 0.1 s each to build) are built on first use: a replay without
    ``--background trace`` never reads them, and :meth:`stored` gives the columns back as they are."""

    def __init__(self, waits: list[tuple[str, float, float]], times: "np.ndarray", deltas: "np.ndarray",
                 reduce_waits: list[tuple[str, float, float]] | None = None, reduce_times: "np.ndarray | None" = None,
                 reduce_deltas: "np.ndarray | None" = None) -> None:
        super().__init__()
        self.waits = list(waits)
        self._times, self._deltas = times, deltas
        self._usage: list[tuple[float, int]] | None = None
        self.stored_reduce_gaps = list(reduce_waits or ())
        given = reduce_times is not None and reduce_deltas is not None
        self._reduce_times = reduce_times if given else np.empty(0, dtype=np.float64)
        self._reduce_deltas = reduce_deltas if given else np.empty(0, dtype=np.int8)
        self._reduce_usage: list[tuple[float, int]] | None = None

    @property  # type: ignore[override]
    def usage(self) -> list[tuple[float, int]]:
        if self._usage is None:
            self._usage = list(zip(self._times.tolist(), self._deltas.tolist()))
        return self._usage

    @usage.setter
    def usage(self, value: list[tuple[float, int]]) -> None:
        self._usage = value

    @property  # type: ignore[override]
    def reduce_usage(self) -> list[tuple[float, int]]:
        if self._reduce_usage is None:
            self._reduce_usage = list(zip(self._reduce_times.tolist(), self._reduce_deltas.tolist()))
        return self._reduce_usage

    @reduce_usage.setter
    def reduce_usage(self, value: list[tuple[float, int]]) -> None:
        self._reduce_usage = value

    def has_inputs(self) -> bool:  # (without building the usage lists)
        return bool(self._usage if self._usage is not None else self._times.size) or bool(self.waits) \
            or bool(self._reduce_usage if self._reduce_usage is not None else self._reduce_times.size) \
            or bool(self.reduce_ready) or bool(self.stored_reduce_gaps)

    @classmethod
    def of_stored(cls, stored: "StoredBackground") -> "ColumnBackground":
        """:meth:`BackgroundCollector.from_stored` (the same values) without building the usage lists (400,000 and
        200,000 tuples on the 1148-job trace) until something reads them: a trace store's replay without
        ``--background trace`` never does."""
        return cls([(str(j), float(a), float(b)) for j, a, b in stored.waits], stored.usage_s, stored.usage_delta,
                   [(str(j), float(a), float(b)) for j, a, b in stored.reduce_waits], stored.reduce_usage_s,
                   stored.reduce_usage_delta)

    def stored(self) -> "StoredBackground":
        from mrsim.profiler.store import StoredBackground

        if self._usage is None and self._reduce_usage is None:  # untouched: the columns are the usage
            return StoredBackground(tuple(self.waits), self._times, self._deltas,
                                    reduce_waits=tuple(self.reduce_gaps()),
                                    reduce_usage_s=np.asarray(self._reduce_times, dtype=np.float64),
                                    reduce_usage_delta=np.asarray(self._reduce_deltas, dtype=np.int8))
        return super().stored()
