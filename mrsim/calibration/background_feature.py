"""Replay of the slots held by work outside the trace (the estimate and its evidence:
:mod:`mrsim.calibration.background`). At each step of the :class:`~mrsim.calibration.background_model.Background`
the target changes; extra slots are taken at heartbeats of trackers with free map (reduce) slots *before* the
scheduler is asked (``JobTracker.before_assign``), as jobs ahead in the queue would take them; slots are given back
when the target drops. Held slots count as running maps (reduces) in the trackers' status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.calibration.background_model import Background
from mrsim.tracker.events import ORDER_TIMER

if TYPE_CHECKING:
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import TrackerState


class BackgroundFeature:
    """Replays a :class:`Background` (see the module docstring). Slot clusters only."""

    def __init__(self, background: Background) -> None:
        self.background = background
        self.target = 0
        self.held: list[int] = []  # tracker index per held map slot (a stack: newest given back first)
        self.reduce_target = 0
        self.reduce_held: list[int] = []  # the same for reduce slots
        self.jt: "JobTracker | None" = None
        self.peak_held = 0
        self.peak_reduce_held = 0

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        kind = jt.register_event(self._on_step)
        origin = jt.workload.origin_s
        for i, t in enumerate(self.background.times):
            jt.kernel.schedule(max(0.0, t - origin), ORDER_TIMER, kind, i, 0)
        for i, t in enumerate(self.background.reduce_times):
            jt.kernel.schedule(max(0.0, t - origin), ORDER_TIMER, kind, i, 1)
        jt.register(self, before_assign=self._take)

    def describe_run(self) -> tuple[str, dict, dict]:
        b = self.background
        spec = {"source": "trace", "peak_map_slots": max(b.map_slots, default=0), "slot_s": round(b.slot_seconds, 3),
                "steps": len(b.times)}
        stats = {"background_peak_held_map_slots": self.peak_held}
        if b.reduce_times:  # keys added only when the reduce side is used (the --json contract is extended)
            spec.update({"peak_reduce_slots": max(b.reduce_slots, default=0),
                         "reduce_slot_s": round(b.reduce_slot_seconds, 3), "reduce_steps": len(b.reduce_times)})
            stats["background_peak_held_reduce_slots"] = self.peak_reduce_held
        return "background", spec, stats

    def _on_step(self, now: float, order: int, index: int, side: int) -> None:
        jt = self.jt
        assert jt is not None
        if side:
            self.reduce_target = self.background.reduce_slots[index]
            while len(self.reduce_held) > self.reduce_target:
                tracker = jt.trackers[self.reduce_held.pop()]
                tracker.running_reduces -= 1
                jt.held_reduces -= 1
                jt.wake(tracker)
            if len(self.reduce_held) < self.reduce_target:
                for t in jt.trackers:
                    if t.running_reduces < t.reduce_slots:
                        jt.wake(t)
            return
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
        jt = self.jt
        assert jt is not None
        missing = self.target - len(self.held)
        if missing > 0:
            n = min(tracker.map_slots - tracker.running_maps, missing)
            for _ in range(n):
                tracker.running_maps += 1
                jt.held_maps += 1
                self.held.append(tracker.index)
            if len(self.held) > self.peak_held:
                self.peak_held = len(self.held)
        missing = self.reduce_target - len(self.reduce_held)
        if missing > 0:
            n = min(tracker.reduce_slots - tracker.running_reduces, missing)
            for _ in range(n):
                tracker.running_reduces += 1
                jt.held_reduces += 1
                self.reduce_held.append(tracker.index)
            if len(self.reduce_held) > self.peak_reduce_held:
                self.peak_reduce_held = len(self.reduce_held)
