"""SLS node files (Hadoop SLS's ``--nodes`` input) as ``--cluster``: racks, names, per-node resources with SLS's
NodeManager defaults for the resources a node does not set, and the notes that say so."""

from __future__ import annotations

import json

import pytest

from mrsim.cli import main
from mrsim.errors import InputError
from mrsim.model.cluster import load_cluster_file
from mrsim.model.sls_nodes import looks_like_sls_nodes
from tests.data import SHARED_DATA

SLS = SHARED_DATA / "sls" / "test-resources"
needs_data = pytest.mark.skipif(not (SLS / "nodes.json").exists(), reason="shared data not available")


def _write(tmp_path, text: str):
    path = tmp_path / "nodes.json"
    path.write_text(text)
    return path


def test_a_stream_of_rack_objects_is_read_with_racks_and_resources(tmp_path):
    path = _write(tmp_path, '{"rack": "r1", "nodes": [{"node": "a", "memory-mb": 2048, "vcores": 6}, {"node": "b"}]}\n'
                            '{"nodes": [{"node": "c", "vcores": 3}], "rack": "/r2"}\n')
    notes: list[str] = []
    cluster = load_cluster_file(path, notes=notes)
    assert [(t.name, t.rack) for t in cluster.trackers] == [("a", "/r1"), ("b", "/r1"), ("c", "/r2")]
    assert [dict(t.resources) for t in cluster.trackers] == [
        {"memory_mb": 2048.0, "vcores": 6.0}, {"memory_mb": 10240.0, "vcores": 10.0},
        {"memory_mb": 10240.0, "vcores": 3.0}]
    assert notes == [f"{path}: SLS node file: 3 nodes on 2 racks",
                     f"2 nodes of {path} set no or only some resources: SLS's NodeManager defaults fill them "
                     "(yarn.sls.nm.memory.mb = 10240, yarn.sls.nm.vcores = 10)"]


def test_without_resources_it_is_a_slot_cluster(tmp_path):
    path = _write(tmp_path, '{"rack": "rack1", "nodes": [{"node": "n1"}, {"node": "n2"}]}')
    cluster = load_cluster_file(path, {"map_slots": 3, "reduce_slots": 1})
    assert not cluster.uses_resources
    assert [(t.name, t.rack, t.map_slots, t.reduce_slots) for t in cluster.trackers] == [
        ("n1", "/rack1", 3, 1), ("n2", "/rack1", 3, 1)]


def test_an_mrsim_json_cluster_file_is_not_taken_for_an_sls_one(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"nodes": [{"name": "x", "rack": "/r"}]}))
    assert not looks_like_sls_nodes(path.read_text())
    assert [t.name for t in load_cluster_file(path).trackers] == ["x"]


@pytest.mark.parametrize("text,needle", [
    ('{"rack": "r", "nodes": [{"node": "a", "vcores": "six"}]}', "line 1: rack r: nodes[0]: vcores must be a "
                                                                 "non-negative number, got 'six'"),
    ('{"rack": "r", "nodes": [{"node": "a"}]}\n{"rack": "r", "nodes": [7]}', "line 2: rack r: nodes[0]: expected"),
    ('{"rack": "r", "nodes": [{"node": "a"}]}\n{"rack": "r", "nodes": [{"node": "a"}]}', "node 'a' is listed twice"),
    ('{"rack": "r", "nodes": [{}]}', "the SLS node file lists no node"),
    ('{"rack": "r", "nodes": [{"node": "a"}]}\n{"rack": ', "invalid JSON"),
])
def test_bad_node_files_fail_with_one_line(tmp_path, text, needle):
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=None) as exc:
        load_cluster_file(path)
    assert needle in str(exc.value) and str(path) in str(exc.value) and "\n" not in str(exc.value)


@needs_data
def test_hadoop_sls_nodes_json(capsys):
    notes: list[str] = []
    cluster = load_cluster_file(SLS / "nodes.json", notes=notes)
    assert len(cluster) == 19 and not cluster.uses_resources  # rack5's fourth entry has no name
    assert sorted({t.rack for t in cluster.trackers}) == ["/rack1", "/rack2", "/rack3", "/rack4", "/rack5"]
    assert [t.name for t in cluster.trackers[:5]] == ["node1", "node2", "node3", "node4", "node5"]
    assert notes[-1] == f"{SLS / 'nodes.json'}: skipped 1 node entry without a \"node\" name"
    assert main(["replay", str(SLS / "inputsls.json"), "--cluster", str(SLS / "nodes.json"), "--json",
                 "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["spec"]["cluster"]["nodemanagers"] == 19
    assert err.splitlines()[0].startswith(f"mrsim replay: cluster 19 NodeManagers of 8,192 MB and 8 vcores "
                                          f"(--cluster {SLS / 'nodes.json'}; NodeManager size: Hadoop's defaults")
    assert f"mrsim: note: {SLS / 'nodes.json'}: SLS node file: 19 nodes on 5 racks" in err.splitlines()


@needs_data
def test_hadoop_sls_nodes_with_resources_json(capsys):
    path = SLS / "nodes-with-resources.json"
    notes: list[str] = []
    cluster = load_cluster_file(path, notes=notes)
    assert [(t.name, t.rack, dict(t.resources)) for t in cluster.trackers] == [
        ("node1", "/rack1", {"memory_mb": 2048.0, "vcores": 6.0}),
        ("node2", "/rack1", {"memory_mb": 10240.0, "vcores": 10.0}),
        ("node3", "/rack1", {"memory_mb": 10240.0, "vcores": 10.0}),
        ("node4", "/rack1", {"memory_mb": 6144.0, "vcores": 12.0})]
    assert notes[2] == (f"2 nodes of {path} carry node labels, which mrsim does not model: every node accepts every "
                        "container")
    assert main(["replay", str(SLS / "inputsls.json"), "--cluster", str(path), "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    spec = json.loads(out)["spec"]
    assert spec["cluster"]["memory_mb"] == 2048 + 10240 + 10240 + 6144
    assert "(--cluster " + str(path) + "; NodeManager sizes: each node's resources in the cluster file)" in \
        err.splitlines()[0]
