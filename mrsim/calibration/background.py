"""Work outside the trace: map slots held by jobs the trace does not contain, estimated and replayed.

A trace is often a slice of a busier cluster (Gridmix runs start at job 3-911; a 2009 job waited 777 s behind a job
killed before it logged a task). When a traced job waits for a map slot while the trace's own attempts leave map
slots free, something the trace does not show held them: under Hadoop 1's schedulers a free slot is handed out at
the next heartbeat, so a wait longer than the dispatch latency is not explained by the traced jobs.

**Estimate** (:func:`estimate_background`). For every traced job its *starved* intervals are the waits for a map
slot: launch to setup-task start, and setup-task end (or launch, without a setup task) to its first map's start,
each minus a grace of ``GRACE_S + 2 x heartbeat interval`` (normal dispatch: heartbeat wait and assignment). On the
union of starved intervals the background holds ``total map slots - map slots used by traced attempts`` (attempts
of any result, setup and cleanup attempts included); elsewhere none. The result is a step function of held map
slots over time plus, per job, the seconds of its wait that the background explains.

**Reduce slots** (the same estimate, with other evidence). A reduce waits for slow start by design
(``JobInProgress.scheduleReduces``: ``mapred.reduce.slowstart.completed.maps`` of the job's maps done), so a
job's wait for a reduce slot counts only from then (and from its setup task's end) to its first reduce's
assignment; and because a scheduler hands the reduces of the jobs ahead out one per heartbeat per tracker
(0.21's ``CapacityTaskScheduler.assignTasks``, ``JobQueueTaskScheduler``), only the stretches of that wait in
which **no traced reduce at all was assigned** anywhere are evidence: a cluster with free reduce slots and ready
reduces that assigns none for longer than ``GRACE_S + 2 x heartbeat`` has its reduce slots held by something the
trace does not show. On those stretches the background holds ``total reduce slots - reduce slots used by traced
attempts`` from the stretch's *start* (the grace decides only whether a stretch is evidence: a reduce slot free at
any heartbeat of the stretch would have been given a ready reduce, so none was; the map waits above lose their
grace at the start because a job's own wait holds normal dispatch) (reduce attempts, and SETUP/CLEANUP attempts run in a reduce slot: ``_r_`` ids). On the
real traces this fires on Gridmix ``trace_5m`` only (job 0049's ready reduces waited 36.9 s with all 16 reduce
slots free of traced work; the 1.05-s launches of its reduces show the slots were held by committing reduces of
jobs outside the trace, ``docs/validation.md``).

**Replay** (:class:`mrsim.calibration.background_feature.BackgroundFeature`). At each step the target changes;
extra slots are taken at heartbeats of
trackers with free map (reduce) slots *before* the scheduler is asked (``JobTracker.before_assign``), as jobs ahead
in the queue would take them; slots are given back when the target drops. Held slots count as running maps
(reduces) in the trackers' status (they are real load for the schedulers' load caps).

This is an estimate of outside load from its effect, not a model of the missing jobs: ``mrsim validate`` reports
its figures with and without it (``docs/calibration.md``).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping
from itertools import cycle, repeat
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from mrsim.calibration.extract import job_slowstart as _slowstart
from mrsim.calibration.extract import rumen_ms as _ms
from mrsim.calibration.background_model import Background, _slot_seconds, _summed  # noqa: F401 - Background is this module's public name too

if TYPE_CHECKING:
    import numpy as np

    from mrsim.profiler.plain import PlainJob
    from mrsim.profiler.store import StoredBackground

_MS = 1000.0
GRACE_S = 5.0


def _attempt_windows(tasks: Any) -> Iterator[tuple[int, int, Mapping[str, Any]]]:
    """(start ms, finish ms, attempt) of every attempt with a valid window (``0 < start <= finish``) of a task list;
    anything that is not a task or attempt object is skipped."""
    for task in tasks or ():
        if not (type(task) is dict or isinstance(task, Mapping)):
            continue
        for attempt in task.get("attempts") or ():
            if not (type(attempt) is dict or isinstance(attempt, Mapping)):
                continue
            a, b = attempt.get("startTime"), attempt.get("finishTime")
            if type(a) is not int:  # _ms only for what is not already an int (nearly every value is)
                a = _ms(a)
            if type(b) is not int:
                b = _ms(b)
            if a > 0 and b >= a:
                yield a, b, attempt


class UsagePoints:
    """A slot usage, ``(epoch seconds, +1/-1)`` points in collection order, kept as two typed columns (9 bytes a
    point: ``array('d')`` and ``array('b')``) instead of a list of tuples (about 80 bytes a point). It takes what a
    list of points takes (``append``, ``extend``) and iterates as the same tuples, so :func:`estimate_background`
    reads it as it reads a list. The same floats go in and come out (a C double each)."""

    __slots__ = ("times", "deltas")

    def __init__(self) -> None:
        self.times = array("d")
        self.deltas = array("b")

    def append(self, point: tuple[float, int]) -> None:
        self.times.append(point[0])
        self.deltas.append(point[1])

    def extend(self, points: Iterable[tuple[float, int]]) -> None:
        for t, d in points:
            self.times.append(t)
            self.deltas.append(d)

    def add_attempts(self, starts: "np.ndarray", finishes: "np.ndarray") -> None:
        """What ``extend(_usage_points(starts, finishes))`` adds, without a tuple per point. O(attempts)."""
        import numpy as np

        times = np.empty(2 * starts.size, dtype=np.float64)
        times[0::2] = starts / _MS
        times[1::2] = finishes / _MS
        self.times.frombytes(times.tobytes())
        self.deltas.frombytes(np.tile(np.array([1, -1], dtype=np.int8), starts.size).tobytes())

    def arrays(self) -> "tuple[np.ndarray, np.ndarray]":
        """The columns as numpy arrays (float64 seconds, int8 deltas), copies."""
        import numpy as np

        return np.frombuffer(self.times, dtype=np.float64).copy(), np.frombuffer(self.deltas, dtype=np.int8).copy()

    def __len__(self) -> int:
        return len(self.times)

    def __bool__(self) -> bool:
        return len(self.times) > 0

    def __iter__(self) -> Iterator[tuple[float, int]]:
        return zip(self.times, self.deltas)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, UsagePoints):
            return self.times == other.times and self.deltas == other.deltas
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def usage_arrays(usage: "Iterable[tuple[float, int]]") -> "tuple[np.ndarray, np.ndarray]":
    """A usage (a :class:`UsagePoints` or a list of points) as (float64 seconds, int8 deltas) arrays."""
    import numpy as np

    if isinstance(usage, UsagePoints):
        return usage.arrays()
    points = list(usage)
    return np.array([t for t, _d in points], dtype=np.float64), np.array([d for _t, d in points], dtype=np.int8)


class BackgroundCollector:
    """Collects, per ``LoggedJob``, the waits and the slot usage that :func:`estimate_background` needs.

    The usage and the reduce assignments are typed columns (:class:`UsagePoints`, ``array('d')``): a pass over a
    trace of a million tasks keeps about 30 MB of them instead of about 250 MB of tuples."""

    def __init__(self) -> None:
        self.waits: list[tuple[str, float, float]] = []  # (job id, wait start, wait end), epoch seconds
        self.usage: UsagePoints | list[tuple[float, int]] = UsagePoints()  # (epoch s, +1/-1) map-slot attempts
        # Reduce side: (job id, ready, first reduce assigned) per job, every traced reduce's assignment, the
        # reduce-slot attempts; and the gaps of a stored input (already cut at the assignments of its trace).
        self.reduce_ready: list[tuple[str, float, float]] = []
        self.reduce_starts = array("d")
        self.reduce_usage: UsagePoints | list[tuple[float, int]] = UsagePoints()
        self.stored_reduce_gaps: list[tuple[str, float, float]] = []

    def stored(self) -> "StoredBackground":
        """What a trace store keeps (:class:`mrsim.profiler.store.StoredBackground`): the waits and the *whole*
        usage as two arrays (9 bytes a change), and the same for reduce slots with the waits already cut where a
        traced reduce was assigned (:meth:`reduce_gaps`). Lossless: :meth:`from_stored` gives back an equal
        estimate. (Store format 1 kept the usage only near the waits, as levels; several changes within one
        millisecond were then put back in level order, not event order, and the estimate differed: Gridmix
        ``3m_stream_trace``.)"""

        from mrsim.profiler.store import StoredBackground

        times, deltas = usage_arrays(self.usage)
        reduce_times, reduce_deltas = usage_arrays(self.reduce_usage)
        return StoredBackground(tuple(self.waits), times, deltas, reduce_waits=tuple(self.reduce_gaps()),
                                reduce_usage_s=reduce_times, reduce_usage_delta=reduce_deltas)

    @classmethod
    def from_stored(cls, stored: "StoredBackground") -> "BackgroundCollector":
        """The inverse of :meth:`stored` (exact; approximate only for a store of format 1, see its flag)."""
        c = cls()
        c.waits = [(str(j), float(a), float(b)) for j, a, b in stored.waits]
        c.usage = list(zip(stored.usage_s.tolist(), stored.usage_delta.tolist()))
        c.stored_reduce_gaps = [(str(j), float(a), float(b)) for j, a, b in stored.reduce_waits]
        c.reduce_usage = list(zip(stored.reduce_usage_s.tolist(), stored.reduce_usage_delta.tolist()))
        return c

    def has_inputs(self) -> bool:
        return bool(self.usage or self.waits or self.reduce_usage or self.reduce_ready or self.stored_reduce_gaps)

    def reduce_gaps(self) -> list[tuple[str, float, float]]:
        """Each job's wait for a reduce slot (ready to first reduce assigned) cut at every assignment of a traced
        reduce inside it: the stretches in which the trace assigned no reduce at all (module docstring).
        Cost O(jobs log reduces + gaps)."""
        import numpy as np

        gaps = list(self.stored_reduce_gaps)
        if not self.reduce_ready:
            return gaps
        starts = np.sort(np.array(self.reduce_starts, dtype=np.float64))  # the order of sorted(): no NaN here
        readies = np.array([ready for _job, ready, _first in self.reduce_ready], dtype=np.float64)
        firsts = np.array([first for _job, _ready, first in self.reduce_ready], dtype=np.float64)
        los = np.searchsorted(starts, readies, side="right").tolist()  # bisect_right
        his = np.searchsorted(starts, firsts, side="left").tolist()  # bisect_left
        for (job, ready, first), lo, hi in zip(self.reduce_ready, los, his):
            if hi <= lo:  # no assignment inside the wait: one gap
                if first > ready:
                    gaps.append((job, ready, first))
                continue
            points = np.concatenate(([ready], starts[lo:hi], [first]))
            kept = points[1:] > points[:-1]
            gaps.extend(zip(repeat(job), points[:-1][kept].tolist(), points[1:][kept].tolist()))
        return gaps

    def add_plain(self, job: Mapping[str, Any], job_id: str, plain: "PlainJob") -> None:
        """:meth:`add_job` of a plain job (:mod:`mrsim.profiler.plain`), from its columns: every map and reduce task
        has a positive integer start and finish and one attempt with a valid window; ``otherTasks`` go through the
        general code."""
        n = plain.n_maps
        ready = self._add_waits(job, job_id, min(plain.task_start[:n], default=-1))
        task_start, _tf, a_start, a_finish = plain.arrays()
        _add_points(self.usage, a_start[:n], a_finish[:n])
        self._add_other_usage(job)
        if task_start.size == n:  # no reduce
            return
        self.reduce_starts.extend((task_start[n:] / _MS).tolist())
        _add_points(self.reduce_usage, a_start[n:], a_finish[n:])
        self._add_reduce_ready(job, job_id, ready, min(plain.task_start[n:]), n, plain.task_finish[:n])

    def add_job(self, job: Mapping[str, Any], job_id: str) -> None:
        first_map = min((_ms(t.get("startTime")) for t in job.get("mapTasks") or ()
                         if (type(t) is dict or isinstance(t, Mapping))
                         and _ms(t.get("startTime")) > 0), default=-1)
        ready = self._add_waits(job, job_id, first_map)
        usage = self.usage
        for a, b, _attempt in _attempt_windows(job.get("mapTasks")):
            usage.append((a / _MS, 1))
            usage.append((b / _MS, -1))
        self._add_other_usage(job)
        self._add_reduces(job, job_id, ready)

    def _add_waits(self, job: Mapping[str, Any], job_id: str, first_map: int) -> int:
        """The job's waits for a map slot (launch to setup, setup's end to the first map); returns the time (ms)
        it was ready for its maps, -1 when unknown."""
        submit, launch = _ms(job.get("submitTime")), _ms(job.get("launchTime"))
        start = launch if launch > 0 else submit
        setups = [t for t in job.get("otherTasks") or ()
                  if (type(t) is dict or isinstance(t, Mapping)) and t.get("taskType") == "SETUP"]
        ready = -1
        if start > 0:
            ready = start
            if setups:
                s_start, s_end = _ms(setups[0].get("startTime")), _ms(setups[0].get("finishTime"))
                if s_start > start:
                    self.waits.append((job_id, start / _MS, s_start / _MS))
                ready = s_end if s_end > 0 else -1
            if ready > 0 and first_map > ready:
                self.waits.append((job_id, ready / _MS, first_map / _MS))
        return ready

    def _add_other_usage(self, job: Mapping[str, Any]) -> None:
        """The map-slot usage of the job's SETUP/CLEANUP attempts (and the reduce-slot usage of those in one)."""
        usage = self.usage
        for a, b, attempt in _attempt_windows(job.get("otherTasks")):
            usage.append((a / _MS, 1))
            usage.append((b / _MS, -1))
            if "_r_" in str(attempt.get("attemptID") or ""):
                self.reduce_usage.append((a / _MS, 1))  # a SETUP/CLEANUP task in a reduce slot
                self.reduce_usage.append((b / _MS, -1))

    def _add_reduces(self, job: Mapping[str, Any], job_id: str, ready: float) -> None:
        """The reduce side of :meth:`add_job`: ``ready`` (ms) is the setup task's end (or the launch)."""
        reduces = [t for t in job.get("reduceTasks") or () if type(t) is dict or isinstance(t, Mapping)]
        if not reduces:
            return
        first = -1.0
        for task in reduces:
            t = _ms(task.get("startTime"))
            if t > 0:
                self.reduce_starts.append(t / _MS)
                first = t if first < 0 else min(first, t)
            for attempt in task.get("attempts") or ():
                if not (type(attempt) is dict or isinstance(attempt, Mapping)):
                    continue
                a, b = _ms(attempt.get("startTime")), _ms(attempt.get("finishTime"))
                if a > 0 and b >= a:
                    self.reduce_usage.append((a / _MS, 1))
                    self.reduce_usage.append((b / _MS, -1))
        maps = job.get("mapTasks") or ()
        self._add_reduce_ready(job, job_id, ready, first, len(maps),
                               (_ms(t.get("finishTime")) for t in maps if type(t) is dict or isinstance(t, Mapping)))

    def _add_reduce_ready(self, job: Mapping[str, Any], job_id: str, ready: float, first: float, n_maps: int,
                          map_finishes: Iterable[int]) -> None:
        """The job's wait for a reduce slot: from ``ready`` (or the slow start's map finish) to ``first``."""
        needed = math.ceil(_slowstart(job) * n_maps)  # JobInProgress.initTasks: completedMapsForReduceSlowstart
        if needed > 0:
            finishes = sorted(f for f in map_finishes if f > 0)
            if len(finishes) < needed:
                return
            ready = max(ready, finishes[needed - 1])
        if ready > 0 and first > ready:
            self.reduce_ready.append((job_id, ready / _MS, first / _MS))

    def estimate(self, total_map_slots: int, heartbeat_interval_s: float, total_reduce_slots: int = 0) -> Background:
        return estimate_background(self.waits, self.usage, total_map_slots, heartbeat_interval_s,
                                   self.reduce_gaps(), self.reduce_usage, total_reduce_slots)


def _add_points(usage: "UsagePoints | list[tuple[float, int]]", starts: "np.ndarray", finishes: "np.ndarray") -> None:
    """Each attempt's start and finish added to ``usage`` (either form)."""
    if isinstance(usage, UsagePoints):
        usage.add_attempts(starts, finishes)
    else:
        usage.extend(_usage_points(starts, finishes))


def _usage_points(starts: "np.ndarray", finishes: "np.ndarray") -> Iterator[tuple[float, int]]:
    """``(start s, +1), (finish s, -1)`` per attempt, in attempt order (epoch ms in, seconds out)."""
    import numpy as np

    times = np.empty(2 * starts.size, dtype=np.float64)
    times[0::2] = starts / _MS
    times[1::2] = finishes / _MS
    return zip(times.tolist(), cycle((1, -1)))


def estimate_background(waits: list[tuple[str, float, float]], usage: list[tuple[float, int]], total_map_slots: int,
                        heartbeat_interval_s: float, reduce_waits: list[tuple[str, float, float]] | None = None,
                        reduce_usage: list[tuple[float, int]] | None = None,
                        total_reduce_slots: int = 0) -> Background:
    """The step functions described in the module docstring (``reduce_waits``: the gaps of
    :meth:`BackgroundCollector.reduce_gaps`). Cost O((waits + attempts) log(...))."""
    grace = GRACE_S + 2.0 * max(heartbeat_interval_s, 0.0)
    job_waits: dict[str, float] = {}
    times, slots = _held(waits, usage, total_map_slots, grace, job_waits)
    # A reduce stretch is evidence only when longer than the grace, but then held from its start: no traced reduce
    # was assigned anywhere while ready ones waited, so no reduce slot was free at any heartbeat of it.
    r_times, r_slots = _held(reduce_waits or [], reduce_usage or [], total_reduce_slots, grace, job_waits,
                             from_start=True)
    return Background(times, slots, {j: round(v, 3) for j, v in job_waits.items()}, r_times, r_slots)


def _held(waits: list[tuple[str, float, float]], usage: list[tuple[float, int]], total_slots: int, grace: float,
          job_waits: dict[str, float], from_start: bool = False) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """One side's step function (total slots - slots used by traced attempts, on the union of the waits longer
    than the grace, each minus the grace at its start, or whole with ``from_start``); adds to ``job_waits`` the
    seconds of each job's wait it covers."""
    lead = 0.0 if from_start else grace
    starved = sorted((a + lead, b, job) for job, a, b in waits if b - a > grace)
    if not starved or total_slots <= 0:
        return (), ()
    total_map_slots = total_slots
    # Union of the starved intervals.
    union: list[list[float]] = []
    for a, b, _job in starved:
        if union and a <= union[-1][1]:
            union[-1][1] = max(union[-1][1], b)
        else:
            union.append([a, b])
    points = sorted(usage)
    times: list[float] = []
    slots: list[int] = []
    used = 0
    k = 0
    for a, b in union:
        while k < len(points) and points[k][0] <= a:
            used += points[k][1]
            k += 1
        cursor = a
        segment_start = a
        level = max(0, total_map_slots - used)
        while k < len(points) and points[k][0] < b:
            t, delta = points[k]
            used += delta
            k += 1
            new_level = max(0, total_map_slots - used)
            if new_level != level and t > cursor:
                times.append(segment_start)
                slots.append(level)
                segment_start = t
            level = new_level
            cursor = t
        times.append(segment_start)
        slots.append(level)
        times.append(b)
        slots.append(0)
    # Merge equal neighbours.
    merged_t: list[float] = []
    merged_s: list[int] = []
    for t, s in zip(times, slots):
        if merged_s and merged_s[-1] == s:
            continue
        if merged_t and merged_t[-1] == t:
            merged_s[-1] = s
            continue
        merged_t.append(t)
        merged_s.append(s)
    for a, b, job in starved:
        job_waits[job] = job_waits.get(job, 0.0) + _held_overlap(merged_t, merged_s, a, b)
    return tuple(round(t, 3) for t in merged_t), tuple(merged_s)


def _held_overlap(times: list[float], slots: list[int], a: float, b: float) -> float:
    total = 0.0
    for i, (t, s) in enumerate(zip(times, slots)):
        end = times[i + 1] if i + 1 < len(times) else t
        if s > 0:
            total += max(0.0, min(b, end) - max(a, t))
    return total
