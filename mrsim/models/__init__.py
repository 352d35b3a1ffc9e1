"""Analytic performance models used by schedulers (no simulation inside).

* :mod:`mrsim.models.aria`: the ARIA bounds model of a MapReduce job's completion time and its inverse, the
  minimum map + reduce slots that meet a deadline (SimMR section V-A, Verma et al., ICAC 2011).
"""

from mrsim.models.aria import (Bound, CompletionModel, JobProfile, PhaseStats, SlotAllocation, completion_model,
                               estimate_completion, min_slots_for_deadline, phase_bounds)

__all__ = [
    "Bound", "CompletionModel", "JobProfile", "PhaseStats", "SlotAllocation", "completion_model",
    "estimate_completion", "min_slots_for_deadline", "phase_bounds",
]
