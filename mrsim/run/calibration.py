"""Which cluster calibration and background a run replays, and why (``docs/calibration.md``).

A calibration measured from the replayed trace (or from ``calibration_from``: a calibration TOML, a trace, a log
or a trace store of the same cluster), none (``no_calibration``), or some of its parts (``calibration_parts``,
ablations); outside work (``background``). Every decision is returned as a one-line note so that the caller can
announce it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mrsim.calibration.choice import PARTS, CalibrationChoice, choose, is_yarn_trace, measure
from mrsim.errors import InputError, OptionError
from mrsim.model.modes import CalibrationPart, parse_parts

if TYPE_CHECKING:  # (numpy and the calibration's extractor: imported by what measures)
    from mrsim.calibration.background import Background
    from mrsim.calibration.model import Calibration
    from mrsim.model.hadoop_conf import HadoopConf

__all__ = ["PARTS", "CalibrationChoice", "calibrate_run", "is_yarn_trace", "measure_from", "resolve_background",
           "resolve_calibration"]


def _parts(value: Any) -> frozenset[CalibrationPart]:
    """The calibration parts of ``value`` (a spec's set, or a comma-separated text)."""
    try:
        return parse_parts(value)
    except InputError as e:
        raise OptionError("{calibration_parts}: " + str(e).replace("unknown calibration part(s)", "unknown part(s)")) from None


def measure_from(path: str, fmt=None) -> Calibration | None:  # type: ignore[no-untyped-def]
    """A calibration from a TOML file, or measured from a trace, log or store."""
    return measure(path, fmt)[0]


def resolve_calibration(args: Any, measured: Calibration | None, trackers: int,
                        trace_kind: str = "trace", yarn: bool = False, same_cluster: bool = False,
                        conf: "HadoopConf | None" = None, trace_trackers: int | None = None,
                        trace_keys: "HadoopConf | None" = None) -> CalibrationChoice:
    """Which calibration the run uses and why (``measured``: the replayed trace's own, or None); see
    :func:`mrsim.calibration.choice.choose` (``conf``: the run's Hadoop settings, its version the user's when
    ``--hadoop-version`` was given)."""
    parts = _parts(getattr(args, "calibration_parts", ",".join(PARTS)))
    if getattr(args, "no_calibration", False):
        if getattr(args, "calibration_from", None):
            raise OptionError("give at most one of {calibration_from} and {no_calibration}")
        return CalibrationChoice(None, parts, ("calibration: off (--no-calibration)",))
    source = getattr(args, "calibration_from", None)
    given = measure_from(source) if source else None
    if source and given is None:
        return CalibrationChoice(None, parts, (f"calibration: none ({source} records no launch or report lags)",))
    return choose(measured, trackers, parts, given=given, given_source=source, yarn=yarn, same_cluster=same_cluster,
                  what=trace_kind, forced_interval=getattr(args, "heartbeat_interval", None) is not None,
                  conf=conf, version_given=getattr(args, "hadoop_version", None) is not None,
                  trace_trackers=trace_trackers, trace_keys=trace_keys)


def resolve_background(args: Any, estimate: "Background | None") -> tuple[Background | None, str | None]:
    if getattr(args, "background", "none") != "trace":
        return None, None
    if estimate is None:
        return None, "background: none (the input records no task logs to estimate outside work from)"
    return estimate, estimate.describe()


def _calibration_input(trace: str) -> tuple[Calibration | None, bool] | None:
    """``(measured calibration, from a YARN cluster)`` of ``trace`` as ``profile_input(trace)``'s profiler gives
    them (``measured_calibration()``, :func:`is_yarn_trace`), without building that profiler (its observations and
    background inputs: a trace-cache hit then never reads them); None when ``trace`` is not cacheable."""
    from types import SimpleNamespace

    from mrsim.profiler.ingest import cacheable, ingest

    if not cacheable(trace, None):
        return None
    single = ingest(trace, None)
    kept = [t for i, t in enumerate(single.templates) if i not in single.profiler_skipped]
    # A profiler made by SingleInput.profiler() has measured nothing itself: its calibration is the stored one.
    return single.calibration, is_yarn_trace(SimpleNamespace(inputs=[single.report], templates=kept))  # type: ignore[arg-type]


def calibrate_run(args: Any, trace: str, cluster, conf, options, same_cluster: bool = False,  # type: ignore[no-untyped-def]
                  trace_cluster=None):
    """``(options, conf, notes)`` for replay and compare: the calibration (measured from ``trace`` unless a flag says
    otherwise) and the background (``--background trace``) added to ``options``, and ``conf`` with the heartbeat
    formula of the trace's Hadoop line when the user named none (:mod:`mrsim.whatif.heartbeat`)."""
    measured: Calibration | None = None
    profiler = None
    yarn = False
    wants_background = getattr(args, "background", "none") == "trace"
    # With --calibration-from the replayed trace is still measured: its stall windows are events of the run
    # replayed (Calibration.with_recorded_stalls), not part of the given calibration.
    needs_trace = wants_background or not getattr(args, "no_calibration", False)
    fmt = getattr(args, "format", None)
    if needs_trace and (fmt is None or str(fmt).lower() not in ("swim", "jobspec")):
        from mrsim.profiler.ingest import profile_input
        from mrsim.profiler.observe import Profiler

        try:
            kind = Profiler().input_format(trace)
        except InputError:
            kind = None
        if kind is not None and kind not in ("swim", "jobspec"):
            # Without --background trace only the calibration is read: no Profiler is built (its observations and
            # background inputs stay unread on a trace-cache hit).
            light = None if wants_background else _calibration_input(trace)
            if light is not None:
                measured, yarn = light
            else:
                profiler = profile_input(trace)  # the pass that loaded the workload, or the trace cache
                measured = profiler.measured_calibration()
                yarn = is_yarn_trace(profiler)
        else:
            profiler = None
    choice = resolve_calibration(args, measured, len(cluster), yarn=yarn, same_cluster=same_cluster, conf=conf,
                                 trace_trackers=None if trace_cluster is None else len(trace_cluster))
    conf = choice.conf(conf)
    notes = list(choice.notes)
    options = replace(options, calibration=choice.calibration, calibration_parts=choice.parts)
    if wants_background:
        estimate = None
        if profiler is not None:
            from mrsim.tracker.replay import effective_interval

            # Outside work is other jobs' demand: estimated on the cluster the trace ran on, it holds the same slots
            # on a what-if cluster (capped by its slots in the replay; docs/what-if.md).
            source = trace_cluster if trace_cluster is not None else cluster
            estimate = profiler.measured_background(source.map_slots, effective_interval(options, conf, len(source)),
                                                    source.reduce_slots)
        background, note = resolve_background(args, estimate)
        options = replace(options, background=background)
        if note:
            notes.append(note)
    return options, conf, notes
