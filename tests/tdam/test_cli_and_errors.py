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
from tests.tdam.helpers import EXAMPLES


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
