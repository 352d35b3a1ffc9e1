"""What one run of the geo study produces, and the size measure its policies compare (Hung, Golubchik, Yu, SoCC'15).

:class:`GeoResult` holds flat per-job and per-decision records; :mod:`mrsim.studies.geo.metrics` turns it into the
rows ``mrsim geo`` prints. Runs come from :func:`mrsim.studies.geo.run.simulate` (the engine in task-completion
mode); the test oracle (``tests/oracles/geo_simulator.py``) returns the same record.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from mrsim.errors import InputError
from mrsim.studies.geo.policies import Policy


class SizeMeasure(enum.Enum):
    """What "remaining size" means to the policies: queued task count (the paper) or queued task-seconds."""

    TASKS = "tasks"
    SECONDS = "seconds"

    @classmethod
    def parse(cls, text: str) -> "SizeMeasure":
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InputError(f"unknown size measure {text!r} (expected tasks or seconds)") from None


class InvariantError(AssertionError):
    """The simulator broke one of its own invariants (a bug, never a user error)."""


@dataclass(frozen=True, eq=False)
class GeoResult:
    """Flat records of one run. Times in seconds of simulated time unless named ``_ns`` (CPU time).

    Per job ``i`` (workload order): ``arrival_s[i]``, ``finish_s[i]``, ``n_tasks[i]``.
    Per controller decision ``k``: ``decision_at_s[k]`` (simulated instant), ``decision_jobs[k]`` (jobs in the
    system after the batch, i.e. the number of jobs whose order the controller handles), ``decision_entries[k]``
    ((job, datacenter) entries in the orders it produced) and ``decision_ns[k]`` (process CPU nanoseconds of
    the decision; the only non-deterministic field).
    ``busy_s[d]``: task-seconds run in datacenter ``d``. ``tasks``: optional ``(start, end, job, dc)`` per task,
    in launch order. ``n_events``: the model's events, one per task finish and one per job arrival (the paper's
    push model); ``engine_events``: the events the engine's kernel ran for them (heartbeats and controller
    decisions included; None for a run outside the engine).
    """

    policy: Policy
    measure: SizeMeasure
    job_ids: tuple[str, ...]
    arrival_s: np.ndarray
    finish_s: np.ndarray
    n_tasks: np.ndarray
    decision_at_s: np.ndarray
    decision_jobs: np.ndarray
    decision_entries: np.ndarray
    decision_ns: np.ndarray
    busy_s: np.ndarray
    n_events: int
    tasks: tuple[tuple[float, float, int, int], ...] | None = None
    engine_events: int | None = None

    @property
    def completion_s(self) -> np.ndarray:
        return self.finish_s - self.arrival_s
