"""What one fluid simulation returns, and the same-instant ordering every discipline follows."""

from __future__ import annotations

from typing import NamedTuple

#: Same-instant order of events in every fluid discipline (documented and tested):
#: 1. real completions (lowest key first), 2. internal events (FSP virtual finishes, LAS level merges),
#: 3. arrivals, in input order. So a job finishing at the instant another arrives leaves before it is counted.
EVENT_ORDER = ("completion", "internal", "arrival")


class FluidSchedule(NamedTuple):
    """Per-job first-service and finish times (s, same clock as the arrivals) and the number of events processed.

    ``start_s[i]`` is the first instant job ``i`` receives a positive share of the server (its arrival for a
    zero-size job that completes on arrival).
    """

    start_s: list[float]
    finish_s: list[float]
    events: int
