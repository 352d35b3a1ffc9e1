"""Validation of replays against the real runs they came from (SimMR section IV-D), see ``docs/validation.md``.

* :mod:`~mrsim.validation.observe`: one pass over profiled inputs (templates, per-job observations, slot usage);
* :mod:`~mrsim.validation.run`: shared and isolated replays of a trace;
* :mod:`~mrsim.validation.report`: error arithmetic and the ``--json`` object;
* :mod:`~mrsim.validation.plot`: the simulated-vs-actual scatter plot.
"""

from mrsim.validation.observe import JobObservation, Profiler, observe_job
from mrsim.validation.report import Mode, ValidationReport, error_pct
from mrsim.validation.run import ValidationSetup, isolate_cluster, validate

__all__ = ["JobObservation", "Mode", "Profiler", "ValidationReport", "ValidationSetup", "error_pct",
           "isolate_cluster", "observe_job", "validate"]
