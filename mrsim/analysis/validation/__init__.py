"""Validation of replays against the real runs they came from (SimMR section IV-D), see ``docs/validation.md``.

* :mod:`~mrsim.profiler.observe` (in the profiler, re-exported here): one pass over profiled inputs (templates,
  per-job observations, slot usage);
* :mod:`~mrsim.analysis.validation.run`: shared and isolated replays of a trace;
* :mod:`~mrsim.analysis.validation.report`: error arithmetic and the ``--json`` object;
* :mod:`~mrsim.analysis.validation.plot`: the simulated-vs-actual scatter plot.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.profiler.observe import JobObservation, Profiler, observe_job
    from mrsim.analysis.validation.report import Mode, ValidationReport, error_pct
    from mrsim.analysis.validation.run import ValidationSetup, isolate_cluster, validate

#: Where each name of ``__all__`` lives. They are imported on first use (PEP 562): a replay imports
#: :mod:`mrsim.profiler.ingest`, which must not pay for the validation run and report modules.
_WHERE = {"JobObservation": "mrsim.profiler.observe", "Profiler": "mrsim.profiler.observe",
          "observe_job": "mrsim.profiler.observe", "Mode": f"{__name__}.report", "ValidationReport": f"{__name__}.report",
          "error_pct": f"{__name__}.report", "ValidationSetup": f"{__name__}.run", "isolate_cluster": f"{__name__}.run",
          "validate": f"{__name__}.run"}

__all__ = ["JobObservation", "Mode", "Profiler", "ValidationReport", "ValidationSetup", "error_pct",
           "isolate_cluster", "observe_job", "validate"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
