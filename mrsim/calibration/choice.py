"""Which calibration a run uses, and why: one decision shared by the CLI commands and sweeps.

Rules (``docs/calibration.md``, "Defaults"): a YARN trace is not calibrated in the Hadoop 1 engine; a trace that
records no lags (synthetic) gets none; a measured heartbeat interval is carried to a cluster of another size or
line by the formula of the trace's Hadoop line (:mod:`mrsim.whatif.heartbeat`, ``docs/what-if.md``); a heartbeat interval
*given* with ``--calibration-from`` that was measured on another Hadoop line than the replayed trace's job confs
name (``JobTracker.getNextHeartbeatInterval`` differs between lines) gives way to the replayed trace's own
heartbeat; one that the replayed trace's own first assignments disprove
(:mod:`mrsim.calibration.heartbeat_check`) gives way to the replayed trace's own heartbeat, unless
``--heartbeat-interval`` was given. Every decision comes with a one-line note for the user.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mrsim.calibration.heartbeat_check import check_interval
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion

if TYPE_CHECKING:
    from mrsim.profiler.observe import Profiler
    from mrsim.calibration.model import Calibration  # (imports numpy: not needed by the CLI's parsers, which read PARTS)

PARTS = ("launch", "report", "aux", "heartbeat", "stalls", "launchers", "backups", "localize", "carry")
YARN_NOTE = ("calibration: not applied (a YARN trace: its task lags are mostly waits for containers, which come from "
             "the scheduler and the ApplicationMaster, not from each task; docs/calibration.md)")


@dataclass(frozen=True)
class CalibrationChoice:
    """``hadoop_version``: the Hadoop line whose heartbeat formula the run uses when the user named none (the
    trace's, :func:`mrsim.whatif.heartbeat.trace_line`; None: the run's own); ``version_origin``: why."""

    calibration: Calibration | None
    parts: frozenset[str]
    notes: tuple[str, ...]
    hadoop_version: HadoopVersion | None = None
    version_origin: str | None = None

    def conf(self, conf: HadoopConf) -> HadoopConf:
        """``conf`` with the chosen line's heartbeat formula."""
        if self.hadoop_version is None:
            return conf
        return replace(conf, version=self.hadoop_version, version_origin=self.version_origin or "")


def is_yarn_trace(profiler: "Profiler") -> bool:
    """Whether the profiled inputs come from a YARN cluster (:mod:`mrsim.profiler.provenance`)."""
    from mrsim.profiler.provenance import is_yarn_trace as from_yarn

    if any(r.format in ("jhist", "sls") for r in profiler.inputs):
        return True
    return from_yarn(None, profiler.templates)


def measure(path: str, fmt=None) -> tuple[Calibration | None, bool]:  # type: ignore[no-untyped-def]
    """``(calibration, is_yarn)`` of a calibration TOML, or measured from a trace, log or store (None when it
    records no attempt times)."""
    if Path(path).suffix.lower() == ".toml":
        from mrsim.calibration.model import Calibration

        return Calibration.load(path), False
    from mrsim.profiler.ingest import profile_input

    profiler = profile_input(path, fmt)  # the trace cache when it has the file
    return profiler.measured_calibration(), is_yarn_trace(profiler)


def choose(measured: Calibration | None, trackers: int, parts: frozenset[str] = frozenset(PARTS), *,
           given: Calibration | None = None, given_source: str | None = None, yarn: bool = False,
           same_cluster: bool = False, what: str = "trace", forced_interval: bool = False,
           conf: HadoopConf | None = None, version_given: bool = False,
           trace_keys: HadoopConf | None = None, trace_trackers: int | None = None) -> CalibrationChoice:
    """The calibration to replay: ``given`` (from ``--calibration-from``) else ``measured`` (the replayed trace's).
    ``forced_interval``: ``--heartbeat-interval`` was given (it wins; the given interval is not tested, and nothing
    is said of the measured one). ``conf``: the run's Hadoop settings (default: Hadoop's); ``version_given``: the
    user chose its version. The heartbeat interval on a cluster of ``trackers`` follows
    :func:`mrsim.whatif.heartbeat.whatif_heartbeat`; ``same_cluster``: the cluster is the one the trace ran on;
    ``trace_trackers``: that cluster's size when known (else the hosts the calibration saw launch attempts)."""
    if yarn and given is None:
        return CalibrationChoice(None, parts, (YARN_NOTE,))
    calibration = given if given is not None else measured
    stall_hosts: list[str] = []
    if given is not None and measured is not None and measured.outliers and "stalls" in parts:
        # Stall windows are events of the replayed run, not cluster properties (Calibration.with_recorded_stalls).
        calibration = given.with_recorded_stalls(measured)
        stall_hosts = sorted(measured.outliers)
    if calibration is None or calibration.is_empty():
        origin = given_source or what
        return CalibrationChoice(None, parts, (f"calibration: none ({origin} records no launch or report lags, e.g. a "
                                               "synthetic trace; tasks start as soon as they are assigned)",))
    notes = [f"calibration: from {calibration.source or given_source} (mrsim calibrate shows it; --no-calibration "
             "turns it off)"]
    if stall_hosts:
        notes.append(f"calibration: the stall windows of {', '.join(stall_hosts)} come from the replayed {what} (a "
                     "stall is an event of the run replayed, in its clock; docs/calibration.md)")
    if "heartbeat" not in parts or forced_interval:
        return CalibrationChoice(calibration, parts, tuple(notes))
    measured_on = calibration  # whose cluster (hosts, line) the interval was measured on
    if given is not None and measured is not None and calibration.heartbeat_interval_s is not None:
        if given.hadoop_line is not None and measured.hadoop_line is not None \
                and given.hadoop_line != measured.hadoop_line:
            calibration = _other_line(calibration, measured, what, notes)
            measured_on = measured
        else:
            calibration = _tested_heartbeat(calibration, measured, what, notes)
            if calibration.heartbeat_check is not None and calibration.heartbeat_check.rejected:
                measured_on = measured
    # On the replayed trace's own cluster its own measurement needs no carrying (hosts may count a host without a
    # launch differently from the inferred cluster).
    own = given is None or measured_on is measured
    if same_cluster and own:
        hosts = trackers
    elif trace_trackers is not None and own:
        hosts = trace_trackers
    else:
        hosts = measured_on.hosts or trackers
    return _whatif_heartbeat(calibration, measured_on, hosts, trackers, notes, conf or HadoopConf(), version_given,
                             trace_keys, parts)


def _whatif_heartbeat(calibration: Calibration, measured_on: Calibration, hosts: int, trackers: int,
                      notes: list[str], conf: HadoopConf, version_given: bool, trace_keys: HadoopConf | None,
                      parts: frozenset[str]) -> CalibrationChoice:
    """``calibration`` with its heartbeat interval, measured on ``hosts`` trackers, carried to a cluster of
    ``trackers`` (:mod:`mrsim.whatif.heartbeat`), and the line whose formula the run uses."""
    from mrsim.whatif.heartbeat import trace_line, whatif_heartbeat

    interval = calibration.heartbeat_interval_s
    line = trace_line(measured_on.hadoop_line, measured_on.jobtracker_started, interval, hosts)
    rule = whatif_heartbeat(conf, trackers, line, version_given=version_given, measured_s=interval,
                            measured_on=hosts, measured_source=calibration.heartbeat_source, trace_keys=trace_keys)
    if rule.rederived:  # said once, by the run's assumption line (mrsim.profiler.assumptions.heartbeat_origin)
        calibration = replace(calibration, heartbeat_interval_s=rule.interval_s, heartbeat_source=rule.source)
    if version_given:
        return CalibrationChoice(calibration, parts, tuple(notes))
    return CalibrationChoice(calibration, parts, tuple(notes), rule.version, rule.version_origin)


def _other_line(calibration: Calibration, measured: Calibration, what: str, notes: list[str]) -> Calibration:
    """``calibration`` (given) with its heartbeat interval set aside: it was measured on a JobTracker of another
    Hadoop line than the replayed trace's job confs name. The interval is what
    ``JobTracker.getNextHeartbeatInterval`` computes, and that code differs between lines (3 s minimum in
    0.20.203-1.0 and 0.21/0.22, 0.3 s from 1.1, MAPREDUCE-1906; ``docs/hadoop-behaviour.md`` §1.3), so a
    measurement on one line says nothing of the other. The replayed trace's own interval (its measurement, else
    Hadoop's formula) is used, and a note says so and how to force the given one."""
    given = calibration.heartbeat_interval_s
    assert given is not None
    own = measured.heartbeat_interval_s
    instead = f"{own:g} s ({measured.heartbeat_source})" if own is not None else "Hadoop's formula for the cluster"
    notes.append(f"calibration: the given heartbeat interval {given:g} s was measured on a Hadoop {calibration.hadoop_line} "
                 f"JobTracker, and the replayed {what}'s job confs name Hadoop {measured.hadoop_line}, whose "
                 f"JobTracker computes its interval differently; using the {what}'s own heartbeat, {instead} "
                 f"(docs/calibration.md; --heartbeat-interval {given:g} forces the given one)")
    source = (f"replayed {what} ({measured.heartbeat_source}): the given {given:g} s was measured on Hadoop "
              f"{calibration.hadoop_line}, the {what} ran Hadoop {measured.hadoop_line}")
    check = {"given_line": calibration.hadoop_line, "replayed_line": measured.hadoop_line,
             "given_interval_s": given, "applied": False}
    return replace(calibration, heartbeat_interval_s=own, heartbeat_source=source, heartbeat_line_check=check)


def _tested_heartbeat(calibration: Calibration, measured: Calibration, what: str, notes: list[str]) -> Calibration:
    """``calibration`` (given) with its heartbeat interval tested against the replayed trace's first-assignment
    bursts; when they disprove it, the replayed trace's own interval (its measurement, else None: Hadoop's
    formula) replaces it and a note says so, with the figures and how to force the given one."""
    given = calibration.heartbeat_interval_s
    assert given is not None
    result = check_interval(measured.assignment_bursts, given)
    if not result.rejected:
        return replace(calibration, heartbeat_check=result)
    own = measured.heartbeat_interval_s
    instead = f"{own:g} s ({measured.heartbeat_source})" if own is not None else "Hadoop's formula for the cluster"
    notes.append(f"calibration: the given heartbeat interval {given:g} s is disproved by the replayed {what}: "
                 f"{result.describe_burst()}, P = {result.p_value:.2g} < {result.significance:g} under {given:g}-s "
                 f"heartbeats with independently phased TaskTrackers ({result.tests} tests); using its own heartbeat, "
                 f"{instead} (docs/calibration.md; --heartbeat-interval {given:g} forces the given one)")
    source = (f"replayed {what} ({measured.heartbeat_source}): the given {given:g} s was disproved by its first "
              "assignments")
    return replace(calibration, heartbeat_interval_s=own, heartbeat_source=source, heartbeat_check=result)
