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
slots over time plus, per job, the seconds of its wait that the background explains. Reduce slots are not
estimated (reduces wait for slow start by design, so a reduce wait is not evidence of outside work).

**Replay** (:class:`BackgroundFeature`). At each step the target changes; extra slots are taken at heartbeats of
trackers with free map slots *before* the scheduler is asked (``JobTracker.before_assign``), as jobs ahead in the
queue would take them; slots are given back when the target drops. Held slots count as running maps in the
trackers' status (they are real load for the schedulers' load caps).

This is an estimate of outside load from its effect, not a model of the missing jobs: ``mrsim validate`` reports
its figures with and without it (``docs/calibration.md``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mrsim.calibration.extract import rumen_ms as _ms
from mrsim.engine.events import ORDER_TIMER

if TYPE_CHECKING:
    from mrsim.engine.jobtracker import JobTracker
    from mrsim.engine.state import TrackerState
    from mrsim.ingest.store import StoredBackground

_MS = 1000.0
GRACE_S = 5.0


@dataclass(frozen=True)
class Background:
    """Map slots held by outside work: ``map_slots[i]`` from ``times[i]`` (seconds, trace clock: epoch seconds) to
    ``times[i + 1]``; the last entry is 0. ``job_waits``: job id -> seconds of its wait the background explains."""

    times: tuple[float, ...] = ()
    map_slots: tuple[int, ...] = ()
    job_waits: Mapping[str, float] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not any(self.map_slots)

    @property
    def slot_seconds(self) -> float:
        return sum(s * (b - a) for a, b, s in zip(self.times, self.times[1:], self.map_slots))

    @classmethod
    def combined(cls, parts: "list[Background]") -> "Background":
        """The sum of several step functions (inputs profiled separately); one part is returned as it is."""
        parts = [p for p in parts if not p.is_empty()]
        if len(parts) <= 1:
            return parts[0] if parts else cls()
        times = sorted({t for p in parts for t in p.times})
        levels = []
        for t in times:
            total = 0
            for p in parts:
                i = bisect_right(p.times, t) - 1
                total += p.map_slots[i] if i >= 0 else 0
            levels.append(total)
        waits: dict[str, float] = {}
        for p in parts:
            for j, v in p.job_waits.items():
                waits[j] = waits.get(j, 0.0) + v
        return cls(tuple(times), tuple(levels), waits)

    def to_json(self) -> dict[str, Any]:
        return {"times": list(self.times), "map_slots": list(self.map_slots), "job_waits": dict(self.job_waits)}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Background":
        return cls(tuple(float(t) for t in doc.get("times", ())), tuple(int(s) for s in doc.get("map_slots", ())),
                   {str(k): float(v) for k, v in (doc.get("job_waits") or {}).items()})

    def describe(self) -> str:
        if self.is_empty():
            return "background: none (no traced job waited for a map slot while the trace left slots free)"
        peak = max(self.map_slots)
        explained = sum(self.job_waits.values())
        return (f"background: outside work estimated from the trace, up to {peak} map slot(s), "
                f"{self.slot_seconds:,.0f} slot-s in all; it explains {explained:,.0f} s of waiting over "
                f"{sum(1 for v in self.job_waits.values() if v > 0)} job(s)")


class BackgroundCollector:
    """Collects, per ``LoggedJob``, the waits and the map-slot usage that :func:`estimate_background` needs."""

    def __init__(self) -> None:
        self.waits: list[tuple[str, float, float]] = []  # (job id, wait start, wait end), epoch seconds
        self.usage: list[tuple[float, int]] = []  # (epoch seconds, +1/-1) map-slot attempts

    def stored(self) -> "StoredBackground":
        """What a trace store keeps (:class:`mrsim.ingest.store.StoredBackground`): the waits and the *whole*
        usage as two arrays (9 bytes a change). Lossless: :meth:`from_stored` gives back equal ``waits`` and
        ``usage``, so a store's estimate equals its trace's. (Store format 1 kept the usage only near the waits,
        as levels; several changes within one millisecond were then put back in level order, not event order,
        and the estimate differed: Gridmix ``3m_stream_trace``.)"""
        import numpy as np

        from mrsim.ingest.store import StoredBackground

        return StoredBackground(tuple(self.waits), np.array([t for t, _d in self.usage], dtype=np.float64),
                                np.array([d for _t, d in self.usage], dtype=np.int8))

    @classmethod
    def from_stored(cls, stored: "StoredBackground") -> "BackgroundCollector":
        """The inverse of :meth:`stored` (exact; approximate only for a store of format 1, see its flag)."""
        c = cls()
        c.waits = [(str(j), float(a), float(b)) for j, a, b in stored.waits]
        c.usage = list(zip(stored.usage_s.tolist(), stored.usage_delta.tolist()))
        return c

    def add_job(self, job: Mapping[str, Any], job_id: str) -> None:
        submit, launch = _ms(job.get("submitTime")), _ms(job.get("launchTime"))
        start = launch if launch > 0 else submit
        setups = [t for t in job.get("otherTasks") or ()
                  if (type(t) is dict or isinstance(t, Mapping)) and t.get("taskType") == "SETUP"]
        first_map = min((_ms(t.get("startTime")) for t in job.get("mapTasks") or ()
                         if (type(t) is dict or isinstance(t, Mapping))
                         and _ms(t.get("startTime")) > 0), default=-1)
        if start > 0:
            ready = start
            if setups:
                s_start, s_end = _ms(setups[0].get("startTime")), _ms(setups[0].get("finishTime"))
                if s_start > start:
                    self.waits.append((job_id, start / _MS, s_start / _MS))
                ready = s_end if s_end > 0 else -1
            if ready > 0 and first_map > ready:
                self.waits.append((job_id, ready / _MS, first_map / _MS))
        usage = self.usage
        for key in ("mapTasks", "otherTasks"):
            for task in job.get(key) or ():
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
                        usage.append((a / _MS, 1))
                        usage.append((b / _MS, -1))

    def estimate(self, total_map_slots: int, heartbeat_interval_s: float) -> Background:
        return estimate_background(self.waits, self.usage, total_map_slots, heartbeat_interval_s)


def estimate_background(waits: list[tuple[str, float, float]], usage: list[tuple[float, int]], total_map_slots: int,
                        heartbeat_interval_s: float) -> Background:
    """The step function described in the module docstring. Cost O((waits + attempts) log(...))."""
    grace = GRACE_S + 2.0 * max(heartbeat_interval_s, 0.0)
    starved = sorted((a + grace, b, job) for job, a, b in waits if b - a > grace)
    if not starved or total_map_slots <= 0:
        return Background()
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
    job_waits: dict[str, float] = {}
    for a, b, job in starved:
        job_waits[job] = job_waits.get(job, 0.0) + _held_overlap(merged_t, merged_s, a, b)
    return Background(tuple(round(t, 3) for t in merged_t), tuple(merged_s),
                      {j: round(v, 3) for j, v in job_waits.items()})


def _held_overlap(times: list[float], slots: list[int], a: float, b: float) -> float:
    total = 0.0
    for i, (t, s) in enumerate(zip(times, slots)):
        end = times[i + 1] if i + 1 < len(times) else t
        if s > 0:
            total += max(0.0, min(b, end) - max(a, t))
    return total


class BackgroundFeature:
    """Replays a :class:`Background` (see the module docstring). Slot clusters only."""

    def __init__(self, background: Background) -> None:
        self.background = background
        self.target = 0
        self.held: list[int] = []  # tracker index per held slot (a stack: newest given back first)
        self.jt: "JobTracker | None" = None
        self.peak_held = 0

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        kind = jt.register_event(self._on_step)
        origin = jt.workload.origin_s
        for i, t in enumerate(self.background.times):
            jt.kernel.schedule(max(0.0, t - origin), ORDER_TIMER, kind, i, 0)
        jt.before_assign.append(self._take)

    def describe_run(self) -> tuple[str, dict, dict]:
        b = self.background
        spec = {"source": "trace", "peak_map_slots": max(b.map_slots, default=0), "slot_s": round(b.slot_seconds, 3),
                "steps": len(b.times)}
        return "background", spec, {"background_peak_held_map_slots": self.peak_held}

    def _on_step(self, now: float, order: int, index: int, _b: int) -> None:
        jt = self.jt
        assert jt is not None
        self.target = self.background.map_slots[index]
        while len(self.held) > self.target:
            tracker = jt.trackers[self.held.pop()]
            tracker.running_maps -= 1
            jt.held_maps -= 1
            jt.wake(tracker)
        if len(self.held) < self.target:
            for t in jt.trackers:
                if t.running_maps < t.map_slots:
                    jt.wake(t)

    def _take(self, tracker: "TrackerState", now: float) -> None:
        missing = self.target - len(self.held)
        if missing <= 0:
            return
        jt = self.jt
        assert jt is not None
        free = tracker.map_slots - tracker.running_maps
        n = min(free, missing)
        for _ in range(n):
            tracker.running_maps += 1
            jt.held_maps += 1
            self.held.append(tracker.index)
        if len(self.held) > self.peak_held:
            self.peak_held = len(self.held)
