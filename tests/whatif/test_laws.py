"""What-if answers on real traces: the targets of docs/what-if.md and a quick subset of its laws (the full set:
benchmarks/metamorphic.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import mrsim
from mrsim.cli import main
from mrsim.whatif.laws import TOLERANCE, check_trace, violations
from tests.data import REPO, SHARED_DATA

GRIDMIX = SHARED_DATA / "gridmix-system-branch-1"


def _replay(capsys, *args: str) -> tuple[dict, str]:
    assert main(["replay", *args, "--json"]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_trace_10m_half_the_nodes_is_slower_and_twice_is_faster(capsys):
    trace = str(GRIDMIX / "trace_10m.json.gz")
    runs = {n: _replay(capsys, trace, *(["--nodes", str(n)] if n != 8 else [])) for n in (4, 8, 16)}
    mean = {n: doc["summary"]["mean_completion_s"] for n, (doc, _) in runs.items()}
    span = {n: doc["summary"]["makespan_s"] for n, (doc, _) in runs.items()}
    assert mean[4] >= mean[8] >= mean[16] and span[4] >= span[8] >= span[16], (mean, span)
    four, err = runs[4]
    assert four["spec"]["heartbeat_interval_s"] == 3.009  # 0.21's max(3 s, ...) on 4 and on 8 trackers
    assert four["spec"]["hadoop_version"] == "0.21"
    line = next(x for x in err.splitlines() if x.startswith("mrsim replay: cluster"))
    assert "--nodes 4: the first 4 of the trace's 8 inferred hosts" in line
    assert ("Hadoop 0.21 JobTracker formula max(3 s, s*ceil(N/h) s) for 4 trackers gives 3 s, as for the 8 the trace "
            "ran on, so the 3.009 s measured there is kept") in line
    assert "the job confs spell the heartbeat key as Hadoop 0.21/0.22 do" in line
    assert err.count("3.009 s measured there is kept") == 1  # said once
    assert four["spec"]["whatif"]["heartbeat"]["rederived"] and four["spec"]["whatif"]["cluster"]["rederived"]
    assert not runs[8][0]["spec"]["whatif"]["heartbeat"]["rederived"]


def test_an_explicit_heartbeat_is_not_contradicted(capsys):
    doc, err = _replay(capsys, str(GRIDMIX / "trace_10m.json.gz"), "--nodes", "4", "--heartbeat-interval", "0.518")
    assert doc["spec"]["heartbeat_interval_s"] == 0.518
    assert "heartbeat 0.518 s (--heartbeat-interval)" in err
    assert "formula" not in err and "measured there" not in err


def test_the_2009_logs_heartbeat_as_their_0_20_jobtracker(capsys):
    trace = str(SHARED_DATA / "rumen" / "small-trace-test" / "dispatch-trace-output.json.gz")
    doc, err = _replay(capsys, trace)
    assert doc["spec"]["heartbeat_interval_s"] == 3.0 and doc["spec"]["hadoop_version"] == "0.20"  # not 2.53 s
    assert "the job ids name a JobTracker started 2009-04-21, before Hadoop 0.20.203.0" in err
    bigger, err = _replay(capsys, trace, "--nodes", "506")
    assert bigger["spec"]["heartbeat_interval_s"] == 6.0  # ceil(506/100) s
    assert "longer than the 3 s of the trace's 253, as Hadoop's JobTracker slows heartbeats" in err


def test_the_laws_hold_on_a_quick_subset():
    checks = []
    for trace in (GRIDMIX / "trace_1m.json.gz", GRIDMIX / "cpu_emul_case2.json.gz",
                  SHARED_DATA / "rumen" / "small-trace-test" / "dispatch-trace-output.json.gz"):
        checks += check_trace(str(trace), seeds=(0, 1, 2))
    assert {c.law for c in checks} == {"same-cluster", "fewer-nodes", "more-nodes", "more-slots", "heavier-load",
                                       "one-job"}
    assert violations(checks) == [], [c.row() for c in violations(checks)]
    # dispatch on 506 trackers heartbeats at 6 s: more-nodes names Hadoop's rule instead of failing
    assert any(c.exempt.startswith("JobTracker.getNextHeartbeatInterval") for c in checks if c.law == "more-nodes")
    one = [c for c in checks if c.law == "one-job"]
    assert any("delay scheduling" in c.exempt for c in one)  # Fair waits for locality; with delay 0, fifo's
    assert TOLERANCE <= 0.02


def _published(marker: str, script: str, result: str) -> tuple[str, str]:
    """``(the docs/what-if.md section between the marker comments, the script's --render of the result file)``."""
    doc = (REPO / "docs" / "what-if.md").read_text()
    section = doc.split(f"<!-- {marker}:begin -->\n")[1].split(f"<!-- {marker}:end -->")[0]
    rendered = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), "--render",
                               str(REPO / "benchmarks" / "results" / result)],
                              capture_output=True, text=True, check=True).stdout
    return section, rendered


def test_the_published_result_is_the_rendering_of_the_result_file():
    section, rendered = _published("metamorphic", "metamorphic.py", "metamorphic.json")
    assert section == rendered
    result = json.loads((REPO / "benchmarks" / "results" / "metamorphic.json").read_text())
    assert result["violations"] == 0 and result["traces"] >= 32


def test_the_published_cost_is_the_rendering_of_its_result_file():
    section, rendered = _published("whatif-cost", "bench_whatif.py", "whatif_cost.json")
    assert section == rendered


def test_explicit_nodes_equal_to_the_inferred_count_is_the_plain_replay():
    plain = mrsim.replay(str(GRIDMIX / "trace_3m.json.gz"), quiet=True)
    same = mrsim.replay(str(GRIDMIX / "trace_3m.json.gz"), quiet=True, nodes=len(plain.cluster.trackers))
    assert plain.jobs.equals(same.jobs) and plain.tasks.equals(same.tasks)
