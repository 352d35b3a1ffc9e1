"""--contention tdam from the command line, and configurations it refuses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mrsim.cli import main
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from tests.tracker.features.tdam.helpers import EXAMPLES
from tests.tracker.features.tdam.test_cafifo import seidmann_response


def test_cli_replays_a_job_spec_with_contention(capsys):
    args = ["replay", str(EXAMPLES / "ten_cpu_tasks_one_core.toml"), "--json", "--contention", "tdam",
            "--heartbeat-interval", "off", "--nodes", "1", "--cores", "1", "--map-slots", "10", "--reduce-slots", "1"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["makespan_s"] == pytest.approx(1000.0, rel=1e-9)


def test_cli_fallback_warning_and_cafifo_thresholds(capsys):
    args = ["replay", "--json", "--nodes", "16", "--contention", "tdam", "--scheduler", "cafifo",
            "--threshold", "cpu=0.7,disk=0.75", "--heartbeat-interval", "off"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert any("no service demands" in w for w in doc["warnings"])  # the bundled trace has none
    assert doc["spec"]["scheduler"]["thresholds"] == {"cpu": 0.7, "disk": 0.75}
    assert doc["spec"]["scheduler"]["admission"] == "current"  # the default, recorded


@pytest.mark.parametrize("admission", ["current", "predicted"])
def test_cli_cafifo_admission_flag_reaches_the_scheduler(capsys, admission):
    # Section 6.7.2's job at cpu=0.5 on two 4-core nodes with 10 slots, no heartbeats: the current reading lets 3
    # tasks share a node (U(2) = 0.465 < 0.5), five waves of R(3) s; the predicted one 2 (U(3) = 0.634 >= 0.5),
    # seven waves of R(2) s, then the last two tasks one per node (FIFO's load cap is ceil(2 / 20 x 10) = 1), 100 s.
    args = ["replay", str(EXAMPLES / "cafifo_30_tasks.toml"), "--json", "--contention", "tdam", "--nodes", "2",
            "--cores", "4", "--map-slots", "10", "--reduce-slots", "1", "--heartbeat-interval", "off",
            "--scheduler", "cafifo", "--threshold", "cpu=0.5", "--cafifo-admission", admission]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["spec"]["scheduler"]["admission"] == admission
    expected = {"current": 5 * seidmann_response(3), "predicted": 7 * seidmann_response(2) + 100.0}[admission]
    assert doc["summary"]["makespan_s"] == pytest.approx(expected, rel=1e-6)


def test_cli_refuses_an_unknown_admission_reading(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["replay", "--nodes", "4", "--contention", "tdam", "--scheduler", "cafifo", "--cafifo-admission", "literal"])
    assert stop.value.code == 2 and "--cafifo-admission" in capsys.readouterr().err


def test_cafifo_without_contention_is_a_one_line_cli_error(capsys):
    code = main(["replay", "--nodes", "4", "--scheduler", "cafifo"])
    err = capsys.readouterr().err
    assert code == 2 and "--contention tdam" in err and err.count("\n") == 1


def run_with(workload, cluster, conf=HadoopConf()):
    return replay(workload, cluster, conf, create_scheduler("fifo"), ReplayOptions(contention="tdam", heartbeat_interval_s=0.0))


def test_speculative_execution_is_refused():
    w = Workload.of([JobTemplate("j", 0.0, [1.0], [])])
    with pytest.raises(InputError, match="speculative"):
        run_with(w, ClusterSpec((TrackerSpec("n"),)), HadoopConf(map_speculative=True))


def test_disk_demand_on_a_diskless_node_is_refused():
    w = Workload.of([JobTemplate("j", 0.0, [1.0], [], map_demands=np.array([[1.0, 2.0, 0.0]]))])
    with pytest.raises(InputError, match="no disk"):
        run_with(w, ClusterSpec((TrackerSpec("n", disks=0),)))
    # CPU-only work is fine there.
    ok = Workload.of([JobTemplate("j", 0.0, [1.0], [], map_demands=np.array([[1.0, 0.0, 0.0]]))])
    assert run_with(ok, ClusterSpec((TrackerSpec("n", disks=0),))).summary["makespan_s"] == pytest.approx(1.0)


def test_unknown_demand_resources_are_refused():
    w = Workload.of([JobTemplate("j", 0.0, [1.0], [], map_demands=np.array([[1.0]]), demand_resources=("gpu",))])
    with pytest.raises(InputError, match="gpu"):
        run_with(w, ClusterSpec((TrackerSpec("n"),)))
