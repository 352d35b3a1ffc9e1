"""Validation of replays against the real runs they came from (SimMR section IV-D), see ``docs/validation.md``.

* :mod:`~mrsim.analysis.validation.observe`: one pass over profiled inputs (templates, per-job observations, slot usage);
* :mod:`~mrsim.analysis.validation.run`: shared and isolated replays of a trace;
* :mod:`~mrsim.analysis.validation.report`: error arithmetic and the ``--json`` object;
* :mod:`~mrsim.analysis.validation.plot`: the simulated-vs-actual scatter plot.
"""

from mrsim.analysis.validation.observe import JobObservation, Profiler, observe_job
from mrsim.analysis.validation.report import Mode, ValidationReport, error_pct
from mrsim.analysis.validation.run import ValidationSetup, isolate_cluster, validate

__all__ = ["JobObservation", "Mode", "Profiler", "ValidationReport", "ValidationSetup", "error_pct",
           "isolate_cluster", "observe_job", "validate"]
