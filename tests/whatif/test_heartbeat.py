"""The what-if heartbeat rule (mrsim.whatif.heartbeat): hand-computed from JobTracker.getNextHeartbeatInterval."""

from __future__ import annotations

import pytest

from mrsim.model.hadoop_conf import LINE_0_20, LINE_0_21, HadoopConf, HadoopVersion
from mrsim.whatif.heartbeat import trace_line, whatif_heartbeat

DEFAULT = HadoopConf()  # --hadoop-version not given: 1.2, replaced by the trace's line when it tells


def rule(line, trackers, measured=None, on=0, conf=DEFAULT, given=False):
    return whatif_heartbeat(conf, trackers, line, version_given=given, measured_s=measured, measured_on=on,
                            measured_source="trace")


def test_the_evidence_is_taken_strongest_first():
    assert trace_line(LINE_0_21, "2009-04-21 17:45", 0.3, 8).version is HadoopVersion.V0_21
    assert trace_line(LINE_0_20, "2009-04-21 17:45", None, 0).version is HadoopVersion.V0_20  # before 0.20.203.0
    assert trace_line(None, "2011-05-11 00:00", None, 0).version is HadoopVersion.V1_0  # 0.20.203.0 .. 1.1.0
    assert trace_line(None, "2012-10-12 23:59", None, 0).version is HadoopVersion.V1_0
    # From 1.1.0's release a JobTracker may run either formula: the measurement decides, by ratio.
    assert trace_line(None, "2013-01-01 00:00", 2.9, 20).version is HadoopVersion.V1_0  # 2.9/3 against 2.9/0.3
    assert trace_line(None, "2013-01-01 00:00", 0.5, 20).version is HadoopVersion.V1_2  # 0.5/0.3 against 3/0.5
    assert trace_line(None, None, None, 0).version is None


def test_a_measured_interval_is_carried_by_the_trace_line_formula():
    line = trace_line(LINE_0_21, None, 3.009, 8)
    # max(3 s, ceil(N/100) s) is 3 s on 4, 8, 16 and 100 trackers: the measured 3.009 s is kept.
    for n in (4, 16, 100):
        r = rule(line, n, 3.009, 8)
        assert r.interval_s == 3.009 and r.version is HadoopVersion.V0_21 and r.rederived
        assert "gives 3 s, as for the 8 the trace ran on, so the 3.009 s measured there is kept" in r.source
    # 400 trackers: 4 s, so 4 x 3.009 / 3; and the output says the interval grows with the cluster.
    r = rule(line, 400, 3.009, 8)
    assert r.interval_s == pytest.approx(4.012) and "as Hadoop's JobTracker slows heartbeats" in r.source
    # On the trace's own cluster nothing is re-derived: the measured value, bit for bit.
    same = rule(line, 8, 3.009, 8)
    assert same.interval_s == 3.009 and not same.rederived and same.source == "trace"


def test_hadoop_1_2_scales_with_the_trackers_and_another_version_keeps_the_excess():
    line = trace_line(None, None, 0.35, 20)  # nearer 1.2's 0.3 s than the 3-s floor
    assert line.version is HadoopVersion.V1_2
    assert rule(line, 200, 0.35, 20).interval_s == pytest.approx(2.0 * 0.35 / 0.3)  # max(0.3, 200/100) = 2 s
    assert rule(line, 10, 0.35, 20).interval_s == 0.35  # 0.3 s on both sizes
    # --hadoop-version 1.2 on a 0.21 trace: 1.2's 0.3 s times the measured excess 3.009 / 3.
    given = rule(trace_line(LINE_0_21, None, 3.009, 8), 8, 3.009, 8, conf=HadoopConf(version=HadoopVersion.V1_2),
                 given=True)
    assert given.interval_s == pytest.approx(0.3009) and given.version is HadoopVersion.V1_2


def test_without_a_measurement_the_trace_line_formula_applies():
    r = rule(trace_line(None, "2009-04-21 17:45", None, 0), 253, None, 253)
    assert r.interval_s is None and r.version is HadoopVersion.V0_20
    assert HadoopConf(version=r.version).heartbeat_interval_s(253) == 3.0  # not 1.2's 2.53 s
    assert "2009-04-21" in r.version_origin
    bigger = rule(trace_line(None, "2009-04-21 17:45", None, 0), 506, None, 253)
    assert "longer than the 3 s of the trace's 253" in bigger.version_origin  # 6 s: ceil(506/100)
    # The trace does not tell: the run's version, announced as the default.
    unknown = rule(trace_line(None, None, None, 0), 50, None, 0)
    assert unknown.version is HadoopVersion.V1_2 and "default" in unknown.version_origin
