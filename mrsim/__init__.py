"""mrsim: a Hadoop-compatible MapReduce scheduler emulator.

Layers, bottom up:

* :mod:`mrsim.profiler` (SimMR's MRProfiler) turns Hadoop logs and traces into
  :class:`mrsim.model.templates.Workload` objects (SimMR's job templates, section III-A of the SimMR paper).
* :mod:`mrsim.tracker` holds the event kernel and the emulated JobTracker / TaskTracker heartbeat layer.
* :mod:`mrsim.schedulers` holds the scheduler plug-ins, one readable file each (the repository's
  top-level ``schedulers/`` directory, installed as ``mrsim.schedulers``).
* :mod:`mrsim.api` is the notebook API: ``mrsim.replay``, ``mrsim.validate``, ``mrsim.compare``, ``mrsim.load``
  (docs/api.md).
"""

__version__ = "0.1.0"

# Before any engine module is imported: the compiled core or the pure sources (mrsim/compiled_core.py).
from mrsim import compiled_core as _compiled_core  # noqa: E402

_compiled_core.activate()

from mrsim import renamed_packages as _renamed_packages  # noqa: E402

_renamed_packages.install()

from mrsim.api import ComparisonRun, Run, Trace, ValidationRun, compare, load, replay, validate  # noqa: E402

__all__ = ["__version__", "replay", "validate", "compare", "load", "Trace", "Run", "ValidationRun", "ComparisonRun"]
