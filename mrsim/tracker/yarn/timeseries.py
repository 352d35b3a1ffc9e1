"""Per-queue metrics once per simulated second, as SLS's ``SchedulerMetrics`` records them.

Columns (one row per leaf queue per second, from 0 to one second after the last event):
``time_s, queue, allocated_mb, allocated_vcores, pending_mb, pending_vcores, running_containers,
pending_containers, running_apps, pending_apps, share_mb``. ``share_mb`` is the queue's instantaneous fair share
(Fair) or guaranteed capacity (Capacity: absolute capacity x cluster memory; FIFO: the whole cluster). An app is
*running* once its AM container is allocated and *pending* before that. The row of second *s* is the state after
every event before *s* (events at *s* itself come after its sample).

Cost: no event of its own. The RM keeps per-queue totals at every change (O(1) each, typed attributes of a
:class:`QueueStats`), marks the queue it changes, and calls :meth:`touch` before each change; a touch that crosses
one or more whole seconds records the state once, as a run of identical seconds, re-reading only the marked queues
(O(queues changed); O(queues) when the scheduler's shares change), so a quiet hour costs one run, not 3,600 rows.
A touch after which no queue's row changed extends the last run without building or comparing a snapshot. Rows
are expanded only for ``queues.csv``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Iterator

from mrsim.io import atomic_path

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.views import QueueSource

COLUMNS = ("time_s", "queue", "allocated_mb", "allocated_vcores", "pending_mb", "pending_vcores",
           "running_containers", "pending_containers", "running_apps", "pending_apps", "share_mb")
_EXACT: Final = 2.0 ** 53  # below this, sums and products of integer-valued floats are exact
ROW_UNKNOWN: Final = -2  # QueueStats.row before the series looked the queue up
_DIRTY_COMPACT: Final = 256  # QueueSeries.dirty is emptied once it holds this many entries already read


def _add_run(total: float, value: float, seconds: int, steps: list[int], start: int, stop: int) -> float:
    """``total + value * steps[start] + ... + value * steps[stop - 1]``, added one step at a time as the per-touch
    series did, so the summary keeps its last digit. When every term is an integer-valued float the sum is exact
    and one product gives it. Cost O(1), or O(stop - start) for a fractional value (a fair share)."""
    if value == 0.0:  # x + 0.0 * n == x, also for -0.0 sums
        return total
    value = float(value)
    # the magnitude test first: it excludes inf and nan, so the integer tests below (float.is_integer, written
    # with int() because compiled code calls a float's methods through the interpreter) cannot overflow
    if abs(total) + abs(value) * seconds < _EXACT and float(int(total)) == total and float(int(value)) == value:
        return total + value * seconds
    for n in steps[start:stop]:
        # most touches record one second, and value * 1 is value exactly: the same sum without the int-to-float
        # conversion and the product
        if n == 1:
            total += value
        else:
            total += value * n
    return total


def _same_rows(a: "list[QueueRow]", b: "list[QueueRow]") -> bool:
    """Whether two lists of rows hold the same totals, row by row (what comparing their tuples did)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if not x.same(y):
            return False
    return True


class QueueStats:
    """One queue's totals as the RM keeps them at every change (MB, vcores, counts), read by the series when
    :attr:`marked` (the RM marks a queue the first time it changes it after a sample, :meth:`QueueSeries.mark`)."""

    __slots__ = ("allocated_mb", "allocated_vcores", "pending_mb", "pending_vcores", "running_containers",
                 "pending_containers", "running_apps", "pending_apps", "marked", "name", "row")

    def __init__(self, name: str) -> None:
        self.allocated_mb = 0.0
        self.allocated_vcores = 0.0
        self.pending_mb = 0.0
        self.pending_vcores = 0.0
        self.running_containers = 0
        self.pending_containers = 0
        self.running_apps = 0
        self.pending_apps = 0
        self.marked = False
        self.name = name
        # the queue's index among the series' current rows (QueueSeries._cur), -1 when it has none, ROW_UNKNOWN
        # until the series looked it up (a queue whose first app arrives after the rows were built)
        self.row = ROW_UNKNOWN

    def values(self) -> tuple[float, float, float, float, int, int, int, int]:
        """The eight totals in ``queues.csv`` order (after ``time_s`` and ``queue``)."""
        return (self.allocated_mb, self.allocated_vcores, self.pending_mb, self.pending_vcores,
                self.running_containers, self.pending_containers, self.running_apps, self.pending_apps)


class QueueRow:
    """A queue's eight totals at one sample (``queues.csv`` order after ``time_s`` and ``queue``), tagged with the
    run it took effect in and its row (the queue's index among the series' rows): an entry of the series' log of
    row changes, and the current row of its queue until the next change. Typed attributes, so that compiled code
    stores the numbers unboxed: one object of about 130 bytes per change, where a tuple of the eight values with
    their boxed floats and ints, plus a boxed run index, took about 300 bytes and five to seven allocations."""

    __slots__ = ("run", "row", "allocated_mb", "allocated_vcores", "pending_mb", "pending_vcores",
                 "running_containers", "pending_containers", "running_apps", "pending_apps")

    def __init__(self, run: int, row: int, q: QueueStats) -> None:
        self.run = run
        self.row = row
        self.allocated_mb = q.allocated_mb
        self.allocated_vcores = q.allocated_vcores
        self.pending_mb = q.pending_mb
        self.pending_vcores = q.pending_vcores
        self.running_containers = q.running_containers
        self.pending_containers = q.pending_containers
        self.running_apps = q.running_apps
        self.pending_apps = q.pending_apps

    def differs(self, q: QueueStats) -> bool:
        """Whether ``q``'s totals differ from this row's (compared as machine numbers, value by value)."""
        return (q.allocated_mb != self.allocated_mb or q.allocated_vcores != self.allocated_vcores
                or q.pending_mb != self.pending_mb or q.pending_vcores != self.pending_vcores
                or q.running_containers != self.running_containers or q.pending_containers != self.pending_containers
                or q.running_apps != self.running_apps or q.pending_apps != self.pending_apps)

    def same(self, other: "QueueRow") -> bool:
        """Whether both rows hold the same eight totals (their runs and rows aside)."""
        return (other.allocated_mb == self.allocated_mb and other.allocated_vcores == self.allocated_vcores
                and other.pending_mb == self.pending_mb and other.pending_vcores == self.pending_vcores
                and other.running_containers == self.running_containers
                and other.pending_containers == self.pending_containers
                and other.running_apps == self.running_apps and other.pending_apps == self.pending_apps)

    def values(self) -> tuple[float, float, float, float, int, int, int, int]:
        """The eight totals as a tuple (:meth:`QueueStats.values`)."""
        return (self.allocated_mb, self.allocated_vcores, self.pending_mb, self.pending_vcores,
                self.running_containers, self.pending_containers, self.running_apps, self.pending_apps)


_NO_STATS = QueueStats("")  # the totals of a queue no app was submitted to yet (all zero)


class QueueSums:
    """A queue's summary, kept as runs are recorded: seconds, sum and peak of allocated MB, sum of pending MB, peak
    pending containers, peak running apps, sum of the share (MB). While the queue has a row, also since when its
    current row is in effect (a touch index and a second), so that closing it needs no per-touch table."""

    __slots__ = ("seconds", "allocated_sum", "allocated_peak", "pending_sum", "pending_peak", "apps_peak",
                 "share_sum", "since_touch", "since_s")

    def __init__(self) -> None:
        self.seconds = 0
        self.allocated_sum = 0.0
        self.allocated_peak = 0.0
        self.pending_sum = 0.0
        self.pending_peak = 0
        self.apps_peak = 0
        self.share_sum = 0.0
        self.since_touch = 0  # the touch at which the queue's current row took effect ...
        self.since_s = 0  # ... and that touch's first second

    def as_list(self) -> list:
        """``[seconds, sum allocated MB, peak allocated MB, sum pending MB, peak pending containers, peak running
        apps, sum share MB]`` (tests compare it with a reference series)."""
        return [self.seconds, self.allocated_sum, self.allocated_peak, self.pending_sum, self.pending_peak,
                self.apps_peak, self.share_sum]


class QueueSeries:
    """Runs of seconds with identical per-queue state: ``(first_s, last_s, ((queue, values..., share), ...))``.

    Only queues whose state changed are sampled again: the RM marks a queue's totals when it changes them
    (:meth:`mark`), and a touch re-reads the marked queues alone and carries the others forward. The per-queue sums
    of the summary are added when a queue's row changes, for the run of touches it was in effect, with the same
    floating-point result as adding it at every touch (:func:`_add_run`).

    Storage: a run starts with a change of some row, so the runs are kept as a log: each run's first second (its
    last is the next run's first minus one), each row change as one :class:`QueueRow` (its run, its row and its
    eight totals, unboxed; it is the queue's current row too), and a full snapshot only for a run that starts with
    new rows (the scheduler's shares or queues changed). No tuple is built per run or per change: the 1148-job
    benchmark records about 200,000 runs and 200,000 to 270,000 row changes, which as tuples (a run, its snapshot,
    a row) took about 110 MB of the replay's 210 MB, and as a tuple of boxed totals per change still about 300
    bytes each. :attr:`runs` rebuilds the tuples when asked (``queues.csv``, tests), O(runs x queues). Packing a
    change into bytes (``struct``) or typed arrays would take less memory still, but compiled code reaches those
    only by generic calls, at 1,000 to 1,850 instructions each (measured with callgrind): more than the whole
    touch otherwise costs; a compiled class's typed attributes are plain stores.
    """

    def __init__(self, rm: "QueueSource") -> None:
        self.rm = rm
        self.next_second = 0  # first second not yet recorded
        self.acc: dict[str, QueueSums] = {}  # per queue: the summary, kept as runs are recorded
        # the RM's per-queue totals changed since the last sample (see mark): the entries from _dirty_done on
        self.dirty: list[QueueStats] = []
        self._dirty_done = 0
        self._shares: list | None = None  # the scheduler's queue_shares() list the current rows were built from
        # the current rows in queue_shares() order: each queue's eight totals (a QueueRow), name and share
        self._cur: list[QueueRow] = []
        self._names: list[str] = []
        self._share_values: list[Any] = []
        self._pos: dict[str, int] = {}  # queue -> index in _cur
        self._sums: list[QueueSums] = []  # per row of _cur: its queue's summary (acc[queue])
        self._steps: list[int] = []  # seconds recorded by each touch (touch k added _steps[k] seconds)
        self._shares_since = 0  # the touch of the last rebuild (shares are constant since) ...
        self._shares_since_s = 0  # ... and its first second
        # the log of runs (see the class docstring)
        self._firsts: list[int] = []  # per run: its first second
        self._snapshot_runs: list[int] = []  # the runs that start with new rows ...
        self._snapshots: list[tuple] = []  # ... and their rows, as in runs
        self._changes: list[QueueRow] = []  # per row change, in run order

    @staticmethod
    def new_stats(name: str) -> QueueStats:
        """A queue's totals as the RM keeps them (:class:`QueueStats`)."""
        return QueueStats(name)

    def touch(self, now: float) -> None:
        """Record every second up to ``now`` (inclusive when ``now`` is a whole second) with the current state.
        Cost O(queues changed), O(queues) when the scheduler's shares or queues changed."""
        first = self.next_second
        if now < first:
            return
        last = math.floor(now)
        n = last - first + 1
        k = len(self._steps)  # this touch
        run = len(self._firsts)  # the run this touch starts, if it changes a row
        shares = self.rm.scheduler.queue_shares()
        rebuilt = shares is not self._shares
        same_rows = False
        if rebuilt:
            names, cur, share_values = self._names, self._cur, self._share_values
            self._rebuild(shares, k, first)
            # new rows equal to the last run's (the current rows before this touch): that run goes on
            same_rows = (run > 0 and names == self._names and share_values == self._share_values
                         and _same_rows(cur, self._cur))
        changed = False
        dirty = self.dirty
        end = len(dirty)
        if end > self._dirty_done:
            cur = self._cur
            sums = self._sums
            changes = self._changes
            for j in range(self._dirty_done, end):
                q = dirty[j]
                q.marked = False
                i = q.row
                if i == ROW_UNKNOWN:
                    i = q.row = self._pos.get(q.name, -1)
                if i >= 0:
                    # the row changed? compared value by value as machine numbers, so that an unchanged queue
                    # builds nothing and a changed one builds one QueueRow
                    if cur[i].differs(q):
                        row = QueueRow(run, i, q)
                        a = sums[i]
                        self._close(a, cur[i], k, first)
                        cur[i] = row
                        self._peaks(a, q.allocated_mb, q.pending_containers, q.running_apps)
                        changes.append(row)
                        changed = True
            # the entries read stay in the list until a few hundred have accumulated: emptying a list and
            # appending to it again frees and reallocates its storage each time (list.clear() and list.pop() to
            # empty cost 130 to 400 instructions in compiled code, once per touch)
            if end >= _DIRTY_COMPACT:
                dirty.clear()
                end = 0
            self._dirty_done = end
        self._steps.append(n)
        # Touches record consecutive seconds, so the last run ends at next_second - 1: a touch that changes no row
        # (and brings no new rows) extends it without writing anything
        if changed:
            self._firsts.append(first)
        elif rebuilt and not same_rows:
            self._firsts.append(first)
            self._snapshot_runs.append(run)
            self._snapshots.append(self._rows_now())
        self.next_second = last + 1

    def _rows_now(self) -> tuple:
        """The current rows as in :attr:`runs`: ``(queue, eight totals..., share)`` per queue."""
        return tuple((name, *row.values(), share)
                     for name, row, share in zip(self._names, self._cur, self._share_values))

    @property
    def runs(self) -> list[tuple[int, int, tuple]]:
        """``(first_s, last_s, rows)`` per run of identical seconds, rebuilt from the log (a new list at every read).
        Cost O(runs x queues)."""
        out: list[tuple[int, int, tuple]] = []
        firsts = self._firsts
        n = len(firsts)
        changes = self._changes
        rows: list = []
        snapshot, n_snapshots = 0, len(self._snapshot_runs)
        change, n_changes = 0, len(changes)
        for r in range(n):
            if snapshot < n_snapshots and self._snapshot_runs[snapshot] == r:
                rows = list(self._snapshots[snapshot])
                snapshot += 1
            while change < n_changes and changes[change].run == r:
                c = changes[change]
                old = rows[c.row]
                rows[c.row] = (old[0], *c.values(), old[9])
                change += 1
            last = firsts[r + 1] - 1 if r + 1 < n else self.next_second - 1
            out.append((firsts[r], last, tuple(rows)))
        return out

    def mark(self, stats: QueueStats) -> None:
        """``stats`` (a queue's totals, :meth:`new_stats`) is about to change: sample it again at the next touch.
        The RM inlines this test in its hot paths."""
        if not stats.marked:
            stats.marked = True
            self.dirty.append(stats)

    def _rebuild(self, shares: list, k: int, first: int) -> None:
        """Every row again (the queues or their shares changed): close the old rows, open the new ones. ``k`` is
        the touch, ``first`` its first second."""
        self._close_all(k, first)
        stats = self.rm.qstats
        cur: list[QueueRow] = []
        names: list[str] = []
        share_values: list[Any] = []
        sums: list[QueueSums] = []
        pos: dict[str, int] = {}
        for name, share in shares:
            q = stats.get(name)
            row = QueueRow(-1, len(cur), q if q is not None else _NO_STATS)
            pos[name] = len(cur)
            cur.append(row)
            names.append(name)
            share_values.append(share)
            a = self.acc.get(name)
            if a is None:
                a = self.acc[name] = QueueSums()
            a.since_touch = k
            a.since_s = first
            sums.append(a)
            self._peaks(a, row.allocated_mb, row.pending_containers, row.running_apps)
        for q in stats.values():
            q.row = pos.get(q.name, -1)
        for q in self.dirty:
            q.marked = False
        self.dirty.clear()
        self._dirty_done = 0
        self._cur = cur
        self._names = names
        self._share_values = share_values
        self._sums = sums
        self._pos = pos
        self._shares = shares
        self._shares_since = k
        self._shares_since_s = first

    def _close_all(self, k: int, first: int) -> None:
        """Close every row at touch ``k`` (first second ``first``), and add the shares (constant since the last
        rebuild) to their sums."""
        start = self._shares_since
        seconds = first - self._shares_since_s
        for i in range(len(self._cur)):
            a = self._sums[i]
            self._close(a, self._cur[i], k, first)
            a.share_sum = _add_run(a.share_sum, self._share_values[i], seconds, self._steps, start, k)

    @staticmethod
    def _peaks(a: QueueSums, allocated: float, pending: int, apps: int) -> None:
        """A row with these allocated MB, pending containers and running apps takes effect: the queue's peaks
        (sums are added when it is closed)."""
        if allocated > a.allocated_peak:
            a.allocated_peak = allocated
        if pending > a.pending_peak:
            a.pending_peak = pending
        if apps > a.apps_peak:
            a.apps_peak = apps

    def _close(self, a: QueueSums, row: QueueRow, k: int, first: int) -> None:
        """``row``, the current row of ``a``'s queue, was in effect from touch ``a.since_touch`` to ``k - 1``
        (seconds ``a.since_s`` to ``first - 1``): add it to the queue's sums (the share is added by
        :meth:`_close_all`: it changes only with a rebuild)."""
        start = a.since_touch
        a.since_touch = k
        if start >= k:
            return
        seconds = first - a.since_s
        a.since_s = first
        a.seconds += seconds
        allocated = row.allocated_mb
        pending = row.pending_mb
        if allocated:
            a.allocated_sum = _add_run(a.allocated_sum, allocated, seconds, self._steps, start, k)
        if pending:
            a.pending_sum = _add_run(a.pending_sum, pending, seconds, self._steps, start, k)

    def finish(self, end: float) -> None:
        """After the last event: record up to the second after it (the final state), and close every row."""
        self.touch(math.floor(end) + 1)
        self._close_all(len(self._steps), self.next_second)

    @property
    def rows(self) -> Iterator[tuple]:
        """Every per-second row (expanded from the runs)."""
        for first, last, snap in self.runs:
            for s in range(first, last + 1):
                for q in snap:
                    yield (float(s), *q)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per queue: mean and peak allocated MB, mean pending MB, peak pending containers, peak running apps, mean
        share (means over every second the queue existed)."""
        return {name: {"mean_allocated_mb": round(a.allocated_sum / a.seconds, 3), "peak_allocated_mb": a.allocated_peak,
                       "mean_pending_mb": round(a.pending_sum / a.seconds, 3), "peak_pending_containers": a.pending_peak,
                       "peak_running_apps": a.apps_peak, "mean_share_mb": round(a.share_sum / a.seconds, 3)}
                for name, a in self.acc.items() if a.seconds}

    def write_to(self, fh) -> None:  # type: ignore[no-untyped-def]
        """``queues.csv`` into an open text file (part of ``replay --out``'s output set)."""
        fh.write(",".join(COLUMNS) + "\n")
        for r in self.rows:
            fh.write(f"{r[0]:.0f},{r[1]},{r[2]:g},{r[3]:g},{r[4]:g},{r[5]:g},{r[6]},{r[7]},{r[8]},{r[9]},"
                     f"{r[10]:g}\n")

    def write_csv(self, out_dir: str | os.PathLike[str]) -> Path:
        """``queues.csv`` in ``out_dir`` (atomically)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "queues.csv"
        with atomic_path(path) as tmp:
            with open(tmp, "w", encoding="utf-8") as fh:
                self.write_to(fh)
        return path
