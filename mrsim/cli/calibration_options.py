"""Flags and resolution of the cluster calibration and the background for replay, compare and validate.

``--calibration-from PATH`` (a calibration TOML, a trace, a log or a trace store of the same cluster),
``--no-calibration`` (exactly the engine without calibration), ``--calibration-parts`` (ablations) and
``--background trace|none``. Every decision is returned as a one-line note so that the CLI can announce it
(``docs/calibration.md``).
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, replace
from pathlib import Path

from mrsim.calibration.background import Background
from mrsim.calibration.model import Calibration
from mrsim.errors import InputError

PARTS = ("launch", "report", "aux", "heartbeat", "stalls")


def add_calibration_arguments(p: argparse.ArgumentParser, background_default: str) -> None:
    g = p.add_argument_group("calibration (docs/calibration.md)")
    g.add_argument("--calibration-from", metavar="PATH",
                   help="measure the cluster's overheads from PATH (a calibration TOML, a trace, a log or a trace "
                        "store of the same cluster) instead of from the replayed trace")
    g.add_argument("--no-calibration", action="store_true",
                   help="replay tasks without launch/report lags and the trace's heartbeat interval (SimMR's engine)")
    g.add_argument("--calibration-parts", metavar="P,...", default=",".join(PARTS),
                   help="terms of the calibration to replay (ablations): " + ", ".join(PARTS) + " (default: all)")
    g.add_argument("--background", choices=["trace", "none"], default=background_default,
                   help="map slots held by work outside the trace, estimated from it (default: "
                        f"{background_default})")


@dataclass(frozen=True)
class CalibrationChoice:
    calibration: Calibration | None
    parts: frozenset[str]
    notes: tuple[str, ...]


def _parts(text: str) -> frozenset[str]:
    parts = frozenset(x.strip() for x in str(text).split(",") if x.strip())
    unknown = sorted(parts - set(PARTS))
    if unknown:
        raise InputError(f"--calibration-parts: unknown part(s) {', '.join(unknown)} (expected {', '.join(PARTS)})")
    return parts


def measure_from(path: str, fmt=None) -> Calibration | None:  # type: ignore[no-untyped-def]
    """A calibration from a TOML file, or measured from a trace, log or store."""
    if Path(path).suffix.lower() == ".toml":
        return Calibration.load(path)
    from mrsim.validation.observe import Profiler

    profiler = Profiler(fmt=fmt)
    profiler.add(path)
    return profiler.measured_calibration()


_YARN_JOB_ID = re.compile(r"^job_\d{13}_\d+")


def is_yarn_trace(profiler) -> bool:  # type: ignore[no-untyped-def]
    """Whether the profiled inputs come from a YARN (Hadoop 2/3) cluster: ``.jhist`` or SLS files, or job ids whose
    cluster part is the ResourceManager's start in epoch milliseconds (13 digits; Hadoop 1's JobTracker ids use
    ``yyyyMMddHHmm``, 12)."""
    if any(r.format in ("jhist", "sls") for r in profiler.inputs):
        return True
    ids = [t.job_id for t in profiler.templates]
    return bool(ids) and sum(1 for j in ids if _YARN_JOB_ID.match(j)) * 2 > len(ids)


YARN_NOTE = ("calibration: not applied (a YARN trace: its task lags are mostly waits for containers, which come from "
             "the scheduler and the ApplicationMaster, not from each task; docs/calibration.md)")


def resolve_calibration(args: argparse.Namespace, measured: Calibration | None, trackers: int,
                        trace_kind: str = "trace", yarn: bool = False, same_cluster: bool = False) -> CalibrationChoice:
    """Which calibration the run uses and why (``measured``: the replayed trace's own, or None).

    A measured heartbeat interval belongs to a cluster of the calibration's host count: on a cluster of another
    size (more than 25 % apart, unless ``same_cluster``: the cluster was inferred from the same trace) the heartbeat
    part is dropped (Hadoop's formula for the new size), with a note.
    """
    parts = _parts(getattr(args, "calibration_parts", ",".join(PARTS)))
    if getattr(args, "no_calibration", False):
        if getattr(args, "calibration_from", None):
            raise InputError("give at most one of --calibration-from and --no-calibration")
        return CalibrationChoice(None, parts, ("calibration: off (--no-calibration)",))
    source = getattr(args, "calibration_from", None)
    if yarn and not source:
        return CalibrationChoice(None, parts, (YARN_NOTE,))
    calibration = measure_from(source) if source else measured
    if calibration is None or calibration.is_empty():
        what = source or trace_kind
        return CalibrationChoice(None, parts, (f"calibration: none ({what} records no launch or report lags, e.g. a "
                                               "synthetic trace; tasks start as soon as they are assigned)",))
    notes = [f"calibration: from {calibration.source or source} (mrsim calibrate shows it; --no-calibration turns it off)"]
    if (calibration.heartbeat_interval_s is not None and "heartbeat" in parts and calibration.hosts
            and not same_cluster and abs(trackers - calibration.hosts) > 0.25 * calibration.hosts):
        notes.append(f"calibration: heartbeat interval {calibration.heartbeat_interval_s:g} s was measured on "
                     f"{calibration.hosts} hosts; this cluster has {trackers}, so Hadoop's formula is used")
        calibration = replace(calibration, heartbeat_interval_s=None)
    return CalibrationChoice(calibration, parts, tuple(notes))


def resolve_background(args: argparse.Namespace, estimate: "Background | None") -> tuple[Background | None, str | None]:
    if getattr(args, "background", "none") != "trace":
        return None, None
    if estimate is None:
        return None, "background: none (the input records no task logs to estimate outside work from)"
    return estimate, estimate.describe()


def calibrate_run(args: argparse.Namespace, trace: str, cluster, conf, options):  # type: ignore[no-untyped-def]
    """``(options, notes)`` for replay and compare: the calibration (measured from ``trace`` unless a flag says
    otherwise) and the background (``--background trace``) added to ``options``."""
    measured: Calibration | None = None
    profiler = None
    yarn = False
    wants_background = getattr(args, "background", "none") == "trace"
    needs_trace = wants_background or not (getattr(args, "no_calibration", False) or getattr(args, "calibration_from", None))
    fmt = getattr(args, "format", None)
    if needs_trace and (fmt is None or str(fmt).lower() not in ("swim", "jobspec")):
        from mrsim.validation.observe import Profiler

        profiler = Profiler()
        try:
            kind = profiler.input_format(trace)
        except InputError:
            kind = None
        if kind is not None and kind not in ("swim", "jobspec"):
            profiler.add(trace)
            measured = profiler.measured_calibration()
            yarn = is_yarn_trace(profiler)
        else:
            profiler = None
    choice = resolve_calibration(args, measured, len(cluster), yarn=yarn)
    notes = list(choice.notes)
    options = replace(options, calibration=choice.calibration, calibration_parts=choice.parts)
    if wants_background:
        estimate = None
        if profiler is not None:
            interval = options.heartbeat_interval_s
            if interval is None:
                cal = choice.calibration
                interval = cal.heartbeat_interval_s if cal is not None and cal.heartbeat_interval_s is not None \
                    else conf.heartbeat_interval_s(len(cluster))
            estimate = profiler.measured_background(cluster.map_slots, interval)
        background, note = resolve_background(args, estimate)
        options = replace(options, background=background)
        if note:
            notes.append(note)
    return options, notes
