"""A heartbeat interval given with --calibration-from and measured on another Hadoop line is not applied.

``JobTracker.getNextHeartbeatInterval`` differs between Hadoop lines (3 s minimum in 0.20.203-1.0 and 0.21/0.22,
0.3 s from 1.1), and a job conf names its line by how it spells the heartbeat-rate key the JobTracker reads
(``mapred.heartbeats.in.second`` in 0.20.x/1.x, ``mapreduce.jobtracker.heartbeats.in.second`` in 0.21/0.22).
The hand-built trace is the one of ``test_heartbeat_check``: eight maps on eight fresh trackers spread over 2.8 s,
so that the burst test alone would keep a given 3-s interval.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrsim.calibration.choice import choose
from mrsim.calibration.extract import CalibrationCollector
from mrsim.calibration.model import Calibration, Distribution
from mrsim.cli import main
from mrsim.errors import InputError
from mrsim.model.hadoop_conf import LINE_0_20, LINE_0_21, heartbeat_line
from tests.calibration.test_heartbeat_check import SPREAD, _logged

OLD_KEY, NEW_KEY = "mapred.heartbeats.in.second", "mapreduce.jobtracker.heartbeats.in.second"


def _job(props: dict | None) -> dict:
    job = _logged(SPREAD)
    if props is not None:
        job["jobProperties"] = props
    return job


def _measured(*props: dict | None) -> Calibration:
    collector = CalibrationCollector()
    for p in props:
        collector.add_job(_job(p))
    return collector.result("hand")


def _given(line: str | None, interval: float = 3.0) -> Calibration:
    return Calibration(launch_lag={"map": Distribution.constant(0.1)}, heartbeat_interval_s=interval,
                       heartbeat_source="other trace", hadoop_line=line, hosts=9, source="given.toml")


def test_a_job_conf_names_its_line_by_the_heartbeat_key_it_spells():
    assert heartbeat_line({OLD_KEY: "200"}) == LINE_0_20
    assert heartbeat_line({NEW_KEY: "200"}) == LINE_0_21
    assert heartbeat_line({OLD_KEY: "200", NEW_KEY: "200"}) is None  # both spellings: cannot tell
    assert heartbeat_line({"mapred.job.name": "x"}) is None and heartbeat_line(None) is None


def test_the_calibration_keeps_the_line_its_job_confs_name():
    assert _measured({OLD_KEY: "200"}, {OLD_KEY: "100"}).hadoop_line == LINE_0_20
    assert _measured({NEW_KEY: "200"}, None).hadoop_line == LINE_0_21  # a job without a conf does not count
    mixed = _measured({OLD_KEY: "200"}, {NEW_KEY: "200"})
    assert mixed.hadoop_line is None
    assert any("two Hadoop lines (0.20/1.x: 1 job(s), 0.21/0.22: 1 job(s))" in n for n in mixed.notes)
    assert _measured(None).hadoop_line is None


def test_a_given_interval_of_another_line_gives_way_to_the_replayed_traces_own():
    measured = _measured({OLD_KEY: "200"})
    assert measured.heartbeat_interval_s is None  # too few report lags: Hadoop's formula
    choice = choose(measured, 9, given=_given(LINE_0_21), given_source="given.toml", same_cluster=True)
    cal = choice.calibration
    assert cal is not None and cal.heartbeat_interval_s is None  # the formula, as the trace's own calibration
    assert cal.launch_lag == _given(LINE_0_21).launch_lag  # the rest stays the given calibration's
    assert cal.heartbeat_check is None  # set aside, so not tested against the bursts
    assert cal.heartbeat_line_check == {"given_line": LINE_0_21, "replayed_line": LINE_0_20,
                                        "given_interval_s": 3.0, "applied": False}
    note = [n for n in choice.notes if "Hadoop 0.21/0.22 JobTracker" in n]
    assert len(note) == 1 and "job confs name Hadoop 0.20/1.x" in note[0]
    assert "--heartbeat-interval 3 forces the given one" in note[0]
    # The same line, or a line unknown on either side: the burst test decides (it keeps 3 s on this spread).
    for given_line, replayed in ((LINE_0_20, {OLD_KEY: "200"}), (None, {OLD_KEY: "200"}), (LINE_0_21, None)):
        kept = choose(_measured(replayed), 9, given=_given(given_line), same_cluster=True).calibration
        assert kept.heartbeat_interval_s == 3.0 and kept.heartbeat_line_check is None
        assert kept.heartbeat_check is not None and not kept.heartbeat_check.rejected
    # --heartbeat-interval wins; the heartbeat part off leaves the interval alone.
    forced = choose(measured, 9, given=_given(LINE_0_21), same_cluster=True, forced_interval=True).calibration
    assert forced.heartbeat_interval_s == 3.0 and forced.heartbeat_line_check is None
    off = choose(measured, 9, frozenset({"launch"}), given=_given(LINE_0_21), same_cluster=True).calibration
    assert off.heartbeat_line_check is None


def test_the_line_round_trips_through_toml_and_a_bad_value_names_the_key(tmp_path):
    cal = _given(LINE_0_21)
    again = Calibration.from_toml(cal.to_toml(), "c.toml")
    assert again.hadoop_line == LINE_0_21
    assert Calibration.from_toml(_given(None).to_toml(), "c.toml").hadoop_line is None
    with pytest.raises(InputError, match=r"c.toml: hadoop_line: expected one of '0.20/1.x', '0.21/0.22', got '2.x'"):
        Calibration.from_toml(cal.to_toml().replace('"0.21/0.22"', '"2.x"'), "c.toml")


def test_validate_announces_it_in_stderr_and_json(tmp_path: Path, capsys):
    trace = tmp_path / "old-line.json"
    trace.write_text(json.dumps(_job({OLD_KEY: "200"})) + "\n")
    given = tmp_path / "given.toml"
    given.write_text(_given(LINE_0_21).to_toml())
    assert main(["validate", str(trace), "--json", "--calibration-from", str(given)]) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert doc["spec"]["heartbeat_interval_s"] == pytest.approx(0.3)  # Hadoop 1.2's max(0.3 s, 9/200 s)
    calibration = doc["spec"]["calibration"]
    assert calibration["hadoop_line"] == LINE_0_21
    assert calibration["heartbeat_line_check"]["replayed_line"] == LINE_0_20
    assert "heartbeat_check" not in calibration
    assert sum("JobTracker computes its interval differently" in line for line in out.err.splitlines()) == 1
    assert main(["validate", str(trace), "--json", "--calibration-from", str(given),
                 "--heartbeat-interval", "3"]) == 0
    forced = json.loads(capsys.readouterr().out)
    assert forced["spec"]["heartbeat_interval_s"] == 3.0
    assert "heartbeat_line_check" not in forced["spec"]["calibration"]
