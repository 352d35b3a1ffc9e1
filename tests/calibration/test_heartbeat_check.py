"""A given heartbeat interval tested against the replayed trace's first assignments (heartbeat_check.py).

The hand-built trace: one job whose SETUP task ran on h0 and ended (JobTracker clock) at T + 5 s, the instant its
maps became assignable; its 8 maps went to 8 fresh TaskTrackers h1..h8 (no traced task before) at T + 5 s plus
offsets. Every probability is worked out here with math.comb, independently of the code's Beta function.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mrsim.calibration.choice import choose
from mrsim.calibration.extract import CalibrationCollector
from mrsim.calibration.heartbeat_check import SIGNIFICANCE, AssignmentBurst, check_interval
from mrsim.calibration.model import Calibration, Distribution
from mrsim.cli import main
from mrsim.errors import InputError

T = 1_300_000_000_000  # epoch ms
TIGHT = [0.05 * k for k in range(1, 9)]  # 8 distinct phases within 0.4 s
SPREAD = [0.35 * k for k in range(1, 9)]  # 8 phases over 2.8 s


def _tail(k: int, n: int, x: float) -> float:
    """P[Binomial(n, x) >= k], by hand."""
    return sum(math.comb(n, j) * x ** j * (1 - x) ** (n - j) for j in range(k, n + 1))


def _p_value(offsets: list[float], n: int, interval: float) -> float:
    """The test by hand: one binomial tail per phase below the interval, the smallest times their number."""
    tails = [_tail(k, n, w / interval) for k, w in enumerate(offsets, start=1) if w < interval]
    return min(1.0, min(tails) * len(tails))


def _logged(offsets_s: list[float]) -> dict:
    ready = T + 5_000
    maps = []
    for i, off in enumerate(offsets_s, start=1):
        start = ready + round(off * 1000)
        maps.append({"taskType": "MAP", "taskID": f"task_201101010000_0001_m_{i:06d}", "startTime": start,
                     "finishTime": start + 10_110, "attempts": [
                         {"attemptID": f"attempt_201101010000_0001_m_{i:06d}_0", "result": "SUCCESS",
                          "startTime": start + 100, "finishTime": start + 10_100, "hostName": f"/r1/h{i}"}]})
    setup = {"taskType": "SETUP", "taskID": "task_201101010000_0001_m_000009", "startTime": T + 2_000,
             "finishTime": ready, "attempts": [
                 {"attemptID": "attempt_201101010000_0001_m_000009_0", "result": "SUCCESS", "startTime": T + 2_100,
                  "finishTime": T + 4_990, "hostName": "/r1/h0"}]}
    end = max(m["finishTime"] for m in maps) + 1_000
    return {"jobID": "job_201301010000_0001", "user": "u", "queue": "default", "priority": "NORMAL",
            "outcome": "SUCCESS", "submitTime": T, "launchTime": T + 1_000, "finishTime": end,
            "totalMaps": len(maps), "totalReduces": 0, "mapTasks": maps, "reduceTasks": [], "otherTasks": [setup]}


def _measured(offsets_s: list[float]) -> Calibration:
    collector = CalibrationCollector()
    collector.add_job(_logged(offsets_s))
    return collector.result("hand")


def _given(interval: float = 3.0) -> Calibration:
    return Calibration(launch_lag={"map": Distribution.constant(0.1)}, heartbeat_interval_s=interval,
                       heartbeat_source="other trace", hosts=9, source="given.toml")


def test_the_bursts_are_measured_from_the_jobtracker_clock():
    cal = _measured(TIGHT)
    # h0 ran the SETUP task before the maps were assignable: not fresh; h1..h8 are (8 trackers whose first traced
    # assignment is at or after T + 5 s), and their offsets are the maps' assignments minus T + 5 s.
    assert cal.assignment_bursts == (AssignmentBurst("job_201301010000_0001", "map", 8, 0.01,
                                                     (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)),)
    again = Calibration.from_toml(cal.to_toml(), "t.toml")
    assert again.assignment_bursts == cal.assignment_bursts
    with pytest.raises(InputError, match=r"assignment_bursts\[0\]\.offsets_s"):
        Calibration.from_toml(cal.to_toml().replace("offsets_s = [0.05", "offsets_s = [-0.05"), "t.toml")
    with pytest.raises(InputError, match="unknown calibration key 'offsets'"):
        Calibration.from_toml(cal.to_toml().replace("offsets_s =", "offsets ="), "t.toml")


def test_a_tight_burst_disproves_a_long_interval():
    # Under 3-s heartbeats with independent phases, 8 of 8 fresh trackers heartbeating within 0.4 s has
    # probability (0.4 / 3)^8 = 1.0e-7; the other k are less extreme (k = 1: 1 - (1 - 0.05/3)^8 = 0.126), so the
    # p-value is 8 tests x 1.0e-7 = 8.0e-7, far below 0.001.
    bursts = _measured(TIGHT).assignment_bursts
    expected = _p_value(TIGHT, 8, 3.0)
    assert expected == pytest.approx(8 * (0.4 / 3.0) ** 8, rel=1e-9)
    result = check_interval(bursts, 3.0)
    assert result.p_value == pytest.approx(expected, rel=1e-2)  # kept to 3 significant digits
    assert result.rejected and result.tests == 8 and result.significance == SIGNIFICANCE
    assert (result.phases, result.fresh_trackers, result.within_s, result.kind) == (8, 8, 0.4, "map")


def test_a_burst_spread_over_the_interval_is_consistent_with_it():
    # Offsets 0.35 ... 2.8 s: the tightest is k = 1 at 0.35 s (1 - (1 - 0.35/3)^8 = 0.63) or k = 8 at 2.8 s
    # ((2.8/3)^8 = 0.58): nothing near 0.001.
    result = check_interval(_measured(SPREAD).assignment_bursts, 3.0)
    assert result.p_value == pytest.approx(_p_value(SPREAD, 8, 3.0), rel=1e-2)
    assert not result.rejected and result.p_value > 0.1
    # The reverse case is never rejected: a burst is consistent with any shorter interval.
    assert not check_interval(_measured(TIGHT).assignment_bursts, 0.3).rejected


def test_synchronised_trackers_count_as_one_phase():
    # 8 trackers answered 1 ms apart (heartbeats queued behind the JobTracker's lock): one phase at 0.05 s, so the
    # only test is k = 1: 1 - (1 - 0.05/3)^8 = 0.126. Counted as 8 independent phases it would be (0.057/3)^8.
    burst = AssignmentBurst("j", "map", 8, 0.01, tuple(0.05 + 0.001 * i for i in range(8)))
    assert burst.phases() == (0.05,)
    result = check_interval([burst], 3.0)
    assert result.p_value == pytest.approx(1 - (1 - 0.05 / 3) ** 8, rel=1e-2) and not result.rejected
    ungrouped = AssignmentBurst("j", "map", 8, 0.0, burst.offsets_s)
    assert check_interval([ungrouped], 3.0).rejected


def test_the_replay_uses_the_replayed_traces_own_heartbeat_when_the_given_one_is_disproved():
    measured = _measured(TIGHT)
    assert measured.heartbeat_interval_s is None  # 8 report lags of 10 ms: Hadoop's formula
    choice = choose(measured, 9, given=_given(), given_source="given.toml", same_cluster=True)
    cal = choice.calibration
    assert cal is not None and cal.heartbeat_interval_s is None  # the formula, as the trace's own calibration
    assert cal.launch_lag == _given().launch_lag  # the rest stays the given calibration's
    assert cal.heartbeat_check is not None and cal.heartbeat_check.rejected
    note = [n for n in choice.notes if "disproved" in n]
    assert len(note) == 1
    assert "given heartbeat interval 3 s is disproved by the replayed trace" in note[0]
    assert "the first maps of job_201301010000_0001 reached 8 distinct heartbeat phase(s) of 8 fresh" in note[0]
    assert "within 0.400 s" in note[0] and "P = 8e-07 < 0.001" in note[0]
    assert "--heartbeat-interval 3 forces the given one" in note[0]
    # Consistent: kept, with the test's figures; --heartbeat-interval: not tested at all.
    kept = choose(_measured(SPREAD), 9, given=_given(), same_cluster=True).calibration
    assert kept is not None and kept.heartbeat_interval_s == 3.0 and not kept.heartbeat_check.rejected
    forced = choose(measured, 9, given=_given(), same_cluster=True, forced_interval=True)
    assert forced.calibration.heartbeat_interval_s == 3.0 and forced.calibration.heartbeat_check is None
    assert not any("disproved" in n for n in forced.notes)
    # The heartbeat part off: the interval is not replayed, so it is not tested.
    off = choose(measured, 9, frozenset({"launch"}), given=_given(), same_cluster=True).calibration
    assert off.heartbeat_check is None


def _validate(capsys, trace: Path, *flags: str) -> tuple[dict, str]:
    assert main(["validate", str(trace), "--json", *flags]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_validate_announces_the_override_and_an_explicit_interval_wins(tmp_path, capsys):
    trace = tmp_path / "tight.json"
    trace.write_text(json.dumps(_logged(TIGHT)) + "\n")
    given = tmp_path / "given.toml"
    given.write_text(_given().to_toml())
    doc, err = _validate(capsys, trace, "--calibration-from", str(given))
    assert doc["spec"]["heartbeat_interval_s"] == pytest.approx(0.3)  # Hadoop 1.2's max(0.3 s, 9/100 s)
    check = doc["spec"]["calibration"]["heartbeat_check"]
    assert check["given_interval_s"] == 3.0 and check["rejected"] is True and check["significance"] == 0.001
    assert check["p_value"] == pytest.approx(_p_value(TIGHT, 8, 3.0), rel=1e-2) and check["tests"] == 8
    assert check["burst"] == {"job": "job_201301010000_0001", "kind": "map", "phases": 8, "fresh_trackers": 8,
                              "within_s": 0.4}
    assert sum("disproved" in line for line in err.splitlines()) == 1
    assert any("disproved" in n for n in doc["spec"]["notes"])
    forced, err = _validate(capsys, trace, "--calibration-from", str(given), "--heartbeat-interval", "3")
    assert forced["spec"]["heartbeat_interval_s"] == 3.0
    assert "heartbeat_check" not in forced["spec"]["calibration"] and "disproved" not in err
    # Its own calibration (no --calibration-from): nothing given, nothing tested.
    own, err = _validate(capsys, trace)
    assert "heartbeat_check" not in own["spec"]["calibration"] and "disproved" not in err
