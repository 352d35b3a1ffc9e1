"""The step function of slots held by work outside the trace (:mod:`mrsim.calibration.background` estimates it
from a trace, :mod:`mrsim.calibration.background_feature` replays it): plain data, with its JSON form."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Background:
    """Map slots held by outside work: ``map_slots[i]`` from ``times[i]`` (seconds, trace clock: epoch seconds) to
    ``times[i + 1]``; the last entry is 0. ``reduce_times`` / ``reduce_slots``: the same for reduce slots.
    ``job_waits``: job id -> seconds of its waits (for map and reduce slots) the background explains."""

    times: tuple[float, ...] = ()
    map_slots: tuple[int, ...] = ()
    job_waits: Mapping[str, float] = field(default_factory=dict)
    reduce_times: tuple[float, ...] = ()
    reduce_slots: tuple[int, ...] = ()

    def is_empty(self) -> bool:
        return not any(self.map_slots) and not any(self.reduce_slots)

    @property
    def slot_seconds(self) -> float:
        """Map-slot seconds held."""
        return _slot_seconds(self.times, self.map_slots)

    @property
    def reduce_slot_seconds(self) -> float:
        return _slot_seconds(self.reduce_times, self.reduce_slots)

    @classmethod
    def combined(cls, parts: "list[Background]") -> "Background":
        """The sum of several step functions (inputs profiled separately); one part is returned as it is."""
        parts = [p for p in parts if not p.is_empty()]
        if len(parts) <= 1:
            return parts[0] if parts else cls()
        times, levels = _summed([(p.times, p.map_slots) for p in parts])
        r_times, r_levels = _summed([(p.reduce_times, p.reduce_slots) for p in parts])
        waits: dict[str, float] = {}
        for p in parts:
            for j, v in p.job_waits.items():
                waits[j] = waits.get(j, 0.0) + v
        return cls(times, levels, waits, r_times, r_levels)

    def to_json(self) -> dict[str, Any]:
        return {"times": list(self.times), "map_slots": list(self.map_slots), "job_waits": dict(self.job_waits),
                "reduce_times": list(self.reduce_times), "reduce_slots": list(self.reduce_slots)}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Background":
        return cls(tuple(float(t) for t in doc.get("times", ())), tuple(int(s) for s in doc.get("map_slots", ())),
                   {str(k): float(v) for k, v in (doc.get("job_waits") or {}).items()},
                   tuple(float(t) for t in doc.get("reduce_times", ())),
                   tuple(int(s) for s in doc.get("reduce_slots", ())))

    def describe(self) -> str:
        if self.is_empty():
            return ("background: none (no traced job waited for a map or reduce slot while the trace left slots "
                    "free)")
        held = []
        if any(self.map_slots):
            held.append(f"up to {max(self.map_slots)} map slot(s), {self.slot_seconds:,.0f} slot-s")
        if any(self.reduce_slots):
            held.append(f"up to {max(self.reduce_slots)} reduce slot(s), {self.reduce_slot_seconds:,.0f} slot-s")
        explained = sum(self.job_waits.values())
        return (f"background: outside work estimated from the trace, {' and '.join(held)}; it explains "
                f"{explained:,.0f} s of waiting over {sum(1 for v in self.job_waits.values() if v > 0)} job(s)")


def _slot_seconds(times: tuple[float, ...], slots: tuple[int, ...]) -> float:
    return sum(s * (b - a) for a, b, s in zip(times, times[1:], slots))


def _summed(steps: list[tuple[tuple[float, ...], tuple[int, ...]]]) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """The sum of step functions given as (times, levels)."""
    steps = [(t, s) for t, s in steps if any(s)]
    if len(steps) <= 1:
        return steps[0] if steps else ((), ())
    times = sorted({t for ts, _s in steps for t in ts})
    levels = []
    for t in times:
        total = 0
        for ts, ss in steps:
            i = bisect_right(ts, t) - 1
            total += ss[i] if i >= 0 else 0
        levels.append(total)
    return tuple(times), tuple(levels)
