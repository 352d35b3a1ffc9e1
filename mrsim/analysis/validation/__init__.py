"""Validation of replays against the real runs they came from (SimMR section IV-D), see ``docs/validation.md``.

* :mod:`~mrsim.analysis.validation.observe`: one pass over profiled inputs (templates, per-job observations, slot usage);
* :mod:`~mrsim.analysis.validation.run`: shared and isolated replays of a trace;
* :mod:`~mrsim.analysis.validation.report`: error arithmetic and the ``--json`` object;
* :mod:`~mrsim.analysis.validation.plot`: the simulated-vs-actual scatter plot.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.analysis.validation.observe import JobObservation, Profiler, observe_job
    from mrsim.analysis.validation.report import Mode, ValidationReport, error_pct
    from mrsim.analysis.validation.run import ValidationSetup, isolate_cluster, validate

#: Where each name of ``__all__`` lives. They are imported on first use (PEP 562): a replay imports
#: :mod:`mrsim.analysis.validation.ingest`, which must not pay for the validation run and report modules.
_WHERE = {"JobObservation": "observe", "Profiler": "observe", "observe_job": "observe", "Mode": "report",
          "ValidationReport": "report", "error_pct": "report", "ValidationSetup": "run", "isolate_cluster": "run",
          "validate": "run"}

__all__ = ["JobObservation", "Mode", "Profiler", "ValidationReport", "ValidationSetup", "error_pct",
           "isolate_cluster", "observe_job", "validate"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
