"""What a YARN-mode run says on stderr: its cluster as NodeManagers (not slots), no slot warnings, and each
unmodelled scheduler key once."""

from __future__ import annotations

import json

import pytest

from mrsim.cli import main
from mrsim.cli.render import yarn_cluster_text
from tests.tracker.yarn.helpers import SHARED_DATA

SLS = SHARED_DATA / "sls" / "main-data" / "2jobs2min-rumen-jh.json"
JOBCLIENT = SHARED_DATA / "jhist" / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist"

FAIR_XML = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>2</weight><aclSubmitApps>bob</aclSubmitApps></queue>
</allocations>
"""


def test_cluster_text_names_nodemanagers_and_where_their_size_came_from() -> None:
    origin = "inferred from the trace's task attempts: 4 hosts, slots = peak concurrent attempts per host, as validate does"
    spec = {"cluster": {"nodes": 4, "nodemanagers": 4, "map_slots": 32, "reduce_slots": 0},
            "yarn": {"nm_memory_mb": 8192.0, "nm_vcores": 8.0, "sources": [], "inferred": {},
                     "from_trace": {"yarn.nodemanager.resource.memory-mb": "8192"}}}
    assert yarn_cluster_text(spec, origin) == (
        "4 NodeManagers of 8,192 MB and 8 vcores",
        "hosts from the trace's task attempts: 4 hosts; NodeManager size from the trace's job confs")
    spec["yarn"].update(from_trace={}, inferred={"nm_memory_mb": "why"})
    assert yarn_cluster_text(spec, "--nodes 4")[1] == "--nodes 4; NodeManager size inferred from the trace's peaks (note below)"
    spec["yarn"].update(inferred={})
    assert yarn_cluster_text(spec, "--nodes 4")[1] == "--nodes 4; NodeManager size: Hadoop's defaults, 8192 MB and 8 vcores"
    spec["yarn"].update(sources=["site.xml"])
    assert yarn_cluster_text(spec, "--nodes 4")[1] == "--nodes 4; NodeManager size from site.xml or Hadoop's defaults"


@pytest.mark.skipif(not SLS.exists(), reason="shared data absent")
@pytest.mark.parametrize("command", ["replay", "validate", "compare"])
def test_yarn_runs_announce_nodemanagers_and_no_slot_warning(capsys, command) -> None:
    # 2jobs2min ran only maps: an MR1 replay warns that its 4 inferred TaskTrackers have 0 reduce slots; YARN mode
    # has no slots, so it must neither print slots nor warn about them.
    capsys.readouterr()
    assert main([command, str(SLS), "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    line = next(x for x in err.splitlines() if x.startswith(f"mrsim {command}: cluster"))
    assert line.startswith(f"mrsim {command}: cluster 4 NodeManagers of 8,192 MB and 8 vcores (hosts from the trace's "
                           "task attempts: 4 hosts; NodeManager size from the trace's job confs)")
    assert "reduce slots" not in err
    assert "reduce slots" not in " ".join(json.loads(out).get("warnings", []))
    if command != "compare":  # the Hadoop 1 engine on the same trace does warn (compare prints no trace warnings)
        assert main([command, str(SLS), "--json", "--no-cache", "--engine", "mr1"]) == 0
        assert "have 0 reduce slots (they ran only maps)" in capsys.readouterr().err


@pytest.mark.skipif(not SLS.exists(), reason="shared data absent")
@pytest.mark.parametrize("command", ["replay", "validate"])
def test_an_unmodelled_key_is_reported_once(tmp_path, capsys, command) -> None:
    conf = tmp_path / "fair-scheduler.xml"
    conf.write_text(FAIR_XML)
    capsys.readouterr()
    assert main([command, str(SLS), "--no-cache", "--scheduler", "fair", "--scheduler-config", str(conf)]) == 0
    err = capsys.readouterr().err
    assert err.count("<aclSubmitApps> is not modelled (ignored)") == 1, err


@pytest.mark.skipif(not JOBCLIENT.exists(), reason="shared data absent")
def test_one_nodemanager_is_singular(capsys) -> None:
    capsys.readouterr()
    assert main(["replay", str(JOBCLIENT), "--json", "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert "cluster 1 NodeManager of 10,240 MB and 9 vcores" in err and "inferred from the trace's peaks" in err
