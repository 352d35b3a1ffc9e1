"""The heartbeat interval of a what-if cluster: the interval the trace measured, carried to the new cluster by the
formula of the Hadoop line that produced it.

A Hadoop 1 JobTracker tells each TaskTracker when to heartbeat next (``JobTracker.getNextHeartbeatInterval``):

* 0.20.2: ``max(3 s, ceil(N / 100) s)``;
* 0.20.203 - 1.0.x, 0.21, 0.22: ``max(3 s, s * ceil(N / h) s)``;
* 1.1 and later (MAPREDUCE-1906): ``max(0.3 s, s * N / h s)``;

for N TaskTrackers, h = ``mapred.heartbeats.in.second`` (100), s = the scaling factor (1). A trace teaches two things
about it: the interval its cluster really ran at (``Calibration.heartbeat_interval_s``, measured on N0 trackers)
and, through evidence, which line's formula produced it (:func:`trace_line`). On a what-if cluster of N trackers the
interval is

    interval(N) = f_whatif(N) * measured / f_trace(N0)

``f_trace``: the trace's line at N0 with the trace's heartbeat keys (``validate``: those its job confs record;
otherwise Hadoop's defaults). ``f_whatif``: the what-if's line
(``--hadoop-version`` when given, else the trace's, else 1.2) with the run's keys (``--mapred-site``).
``measured / f_trace(N0)`` is how far the real period exceeded the formula (the heartbeat's RPC and the
TaskTracker's work between heartbeats: 3.009 s against 3 s on the Gridmix traces), and it is kept. On the trace's
own cluster and line the interval is the measured one, bit for bit. Without a measurement the interval is
``f_whatif(N)``.

Consequences users see, and which real Hadoop shares: on a 0.20-1.0 line, fewer trackers do not heartbeat faster
than 3 s; more than 100 of them heartbeat more slowly (4 s from 301 trackers, ``ceil(N / 100)``).

Cost: O(1) per run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mrsim.model.hadoop_conf import LINE_0_21, HadoopConf, HadoopVersion

#: Release dates (Apache Hadoop's release announcements) that bound which formula a JobTracker started on a given
#: day can run: 0.20.203.0 (the first with the scaling factor, ``s * ceil(N / h)``) and 1.1.0 (MAPREDUCE-1906's
#: 0.3-s floor). A job id names its JobTracker's start (``job_<yyyyMMddHHmm>_<n>``).
RELEASE_0_20_203 = "2011-05-11"
RELEASE_1_1_0 = "2012-10-13"


@dataclass(frozen=True)
class TraceLine:
    """Which ``getNextHeartbeatInterval`` the trace's JobTracker ran, and the evidence (None: the trace cannot
    tell)."""

    version: HadoopVersion | None
    evidence: str


@dataclass(frozen=True)
class HeartbeatRule:
    """The what-if heartbeat: ``interval_s`` (None: the run's formula for its cluster, no measurement to carry),
    the line whose formula applies (``version``, and why: ``version_origin``), and the heartbeat source for the
    run's spec and assumption line (its one announcement); ``rederived``: the measured interval was carried to
    another cluster or line."""

    interval_s: float | None
    version: HadoopVersion
    version_origin: str
    source: str
    rederived: bool = False


def trace_line(hadoop_line: str | None, jobtracker_started: str | None, measured_s: float | None,
               measured_on: int) -> TraceLine:
    """The evidence, strongest first: the job confs' spelling of the heartbeat-rate key (0.21/0.22 spell it
    ``mapreduce.jobtracker.heartbeats.in.second``); the JobTracker's start date against the release dates above; the
    measured interval, nearest (in ratio) to the 3-s floor lines or to 1.1+'s formula on the trace's cluster."""
    if hadoop_line == LINE_0_21:
        return TraceLine(HadoopVersion.V0_21, "the job confs spell the heartbeat key as Hadoop 0.21/0.22 do")
    if jobtracker_started is not None:
        day = jobtracker_started[:10]
        if day < RELEASE_0_20_203:
            return TraceLine(HadoopVersion.V0_20, f"the job ids name a JobTracker started {day}, before Hadoop "
                                                  f"0.20.203.0 ({RELEASE_0_20_203})")
        if day < RELEASE_1_1_0:
            return TraceLine(HadoopVersion.V1_0, f"the job ids name a JobTracker started {day}, before Hadoop 1.1.0 "
                                                 f"({RELEASE_1_1_0}) brought the 0.3-s formula")
    if measured_s is not None and measured_s > 0 and measured_on > 0:
        older = HadoopConf(version=HadoopVersion.V1_0).heartbeat_interval_s(measured_on)
        newer = HadoopConf(version=HadoopVersion.V1_2).heartbeat_interval_s(measured_on)
        if abs(math.log(measured_s / older)) < abs(math.log(measured_s / newer)):
            return TraceLine(HadoopVersion.V1_0, f"the measured {measured_s:g} s on {measured_on} trackers is nearer "
                                                 f"the 3-s floor of Hadoop 0.20-1.0 ({older:g} s) than 1.1+'s {newer:g} s")
        return TraceLine(HadoopVersion.V1_2, f"the measured {measured_s:g} s on {measured_on} trackers is nearer "
                                             f"Hadoop 1.1+'s {newer:g} s than the 3-s floor of 0.20-1.0")
    return TraceLine(None, "the trace does not tell its Hadoop line")


def whatif_heartbeat(conf: HadoopConf, trackers: int, line: TraceLine, *, version_given: bool,
                     measured_s: float | None, measured_on: int, measured_source: str,
                     trace_keys: HadoopConf | None = None) -> HeartbeatRule:
    """The module docstring's rule. ``conf``: the run's Hadoop settings (its version is the user's when
    ``version_given``, else a default that the trace's line replaces); ``trace_keys``: the heartbeat keys the
    trace's JobTracker ran with (None: Hadoop's defaults)."""
    if version_given or line.version is None:
        version = conf.version
        origin = "--hadoop-version" if version_given else "default --hadoop-version, the trace does not tell its line"
    else:
        version, origin = line.version, line.evidence
    whatif = conf if conf.version is version else HadoopConf(
        version=version, heartbeats_in_second=conf.heartbeats_in_second,
        heartbeat_scaling_factor=conf.heartbeat_scaling_factor)
    formula = whatif.heartbeat_interval_s(trackers)
    keys = trace_keys if trace_keys is not None else HadoopConf()
    traced = HadoopConf(version=line.version or version, heartbeats_in_second=keys.heartbeats_in_second,
                        heartbeat_scaling_factor=keys.heartbeat_scaling_factor).heartbeat_interval_s(measured_on)
    slower = ""
    if measured_on > 0 and trackers > measured_on and formula > traced:
        slower = (f"; on {trackers} trackers it is longer than the {traced:g} s of the trace's {measured_on}, as "
                  "Hadoop's JobTracker slows heartbeats when the cluster grows")
    if measured_s is None or measured_on <= 0:
        return HeartbeatRule(None, version, origin + slower, "formula")
    if trackers == measured_on and math.isclose(formula, traced, rel_tol=0, abs_tol=1e-12):
        return HeartbeatRule(measured_s, version, origin, measured_source)
    interval = round(formula * measured_s / traced, 6)
    where = (f"Hadoop {version.value} JobTracker formula {version.formula} for {trackers} trackers gives "
             f"{formula:g} s")
    if math.isclose(formula, traced, rel_tol=0, abs_tol=1e-12):
        how = f"as for the {measured_on} the trace ran on, so the {measured_s:g} s measured there is kept"
    else:
        how = (f"against {traced:g} s for the {measured_on} the trace ran on; the {measured_s:g} s measured there "
               f"scales with it")
    source = f"{where}, {how}{slower} ({origin}; measured: {measured_source}; docs/what-if.md)"
    return HeartbeatRule(interval, version, origin, source, rederived=True)
