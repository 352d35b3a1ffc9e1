"""Which engine runs a replay: a spec's ``engine`` (:class:`~mrsim.model.modes.Engine` ``auto|yarn|mr1``) and the
rule for ``auto``.

Kept apart from :mod:`mrsim.tracker.yarn.engine` so that an MR1 replay, the common case, never imports the YARN
engine's modules: every ``replay``, ``compare`` and ``validate`` asks :func:`use_yarn` once.

``auto`` (the default) picks YARN for Hadoop 2/3 inputs: ``.jhist`` and SLS traces (``mrsim.profiler.detect``
formats ``JHIST`` and ``SLS``), and Rumen traces or trace stores whose job confs carry YARN keys
(``mapreduce.framework.name = yarn`` or any ``yarn.*`` key kept by the profiler) or whose job ids carry a
ResourceManager's start time (:mod:`mrsim.profiler.provenance`). Everything else (0.20/1.x JobHistory logs, Rumen
traces of MR1 clusters, SWIM) runs on the MR1 JobTracker engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mrsim.errors import OptionError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.model.templates import Workload


def is_yarn_input(trace: str | None, workload: "Workload", fmt: str | None = None) -> bool:
    """Whether ``trace`` / ``workload`` comes from a YARN cluster (:mod:`mrsim.profiler.provenance`)."""
    from mrsim.profiler.provenance import is_yarn_trace

    return is_yarn_trace(trace, workload.jobs, fmt)


def use_yarn(args: Any, trace: str | None, workload: "Workload") -> bool:
    engine = getattr(args, "engine", "auto") or "auto"
    if engine == "yarn":
        return True
    yarn = False if engine == "mr1" else is_yarn_input(trace, workload, getattr(args, "format", None))
    if not yarn:
        from mrsim.model.yarn_version import parse_yarn_version  # not the YARN engine: no YARN module loads

        text = getattr(args, "hadoop_version", None)
        if parse_yarn_version(text) is not None:
            raise OptionError(f"{{hadoop_version}} {text} names a Hadoop 2.x/3.x line, which YARN mode follows; this "
                             "input runs on the Hadoop 1 engine (0.20, 0.22, 1.0, 1.2 or 1.x; or {engine} yarn)")
    return yarn
