"""Which YARN calibration (the jobs' commit tails, :mod:`mrsim.tracker.yarn.calibration`) a YARN-mode run uses.

The same flags as the MR1 engine's calibration (``mrsim.cli.calibration_options``): measured from the replayed
trace by default; ``--calibration-from TRACE`` measures it from another trace, log or store of the cluster (a
calibration TOML holds no commit tails: none then, announced); ``--no-calibration`` turns it off. Every decision is
one note for stderr, and ``spec.yarn_calibration`` of the JSON output records what was used.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mrsim.tracker.yarn.calibration import YarnCalibration
from mrsim.errors import InputError, OptionError
from mrsim.model.templates import Workload

_UNPROFILED = ("swim", "jobspec")  # inputs without task logs


def resolve_yarn_calibration(args: Any, trace: Any, workload: Workload,
                             profiler: Any = None) -> tuple[YarnCalibration | None, str]:
    """``(calibration, note)``. ``profiler``: the replayed trace's, when the caller has it (validate)."""
    if getattr(args, "no_calibration", False):
        if getattr(args, "calibration_from", None):
            raise OptionError("give at most one of {calibration_from} and {no_calibration}")
        return None, "calibration (YARN): off (--no-calibration): every job finishes with its last task"
    source = getattr(args, "calibration_from", None)
    if source:
        if Path(source).suffix.lower() == ".toml":
            return None, (f"calibration (YARN): none ({source} is a calibration TOML, which holds no job commit "
                          "tails; give a trace, log or store of the cluster)")
        profiler, origin = _profile(source, None), str(source)
    else:
        origin = str(trace) if isinstance(trace, (str, os.PathLike)) else ""
        if profiler is None and origin:
            profiler = _profile(origin, getattr(args, "format", None))
    calibration = YarnCalibration.from_observations(profiler.observations, origin) if profiler is not None else None
    if calibration is None:
        what = origin or "the workload"
        return None, (f"calibration (YARN): none ({what} records no job finish times after their tasks); every job "
                      "finishes with its last task")
    return calibration, calibration.note([t.job_id for t in workload.jobs])


def _profile(path: str, fmt: Any) -> Any:
    """The profiler of a trace, log or store (the trace cache when it has it), or None for inputs without task logs
    (SWIM, job specs)."""
    from mrsim.profiler.ingest import profile_input
    from mrsim.profiler.observe import Profiler

    if fmt is not None and str(fmt).lower() in _UNPROFILED:
        return None
    try:
        kind = Profiler().input_format(path)
    except InputError:
        return None
    if kind in _UNPROFILED:
        return None
    return profile_input(path)
