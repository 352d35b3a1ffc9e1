"""Two inputs YARN mode reads beside the trace: the ``yarn.scheduler.fair.*`` keys of ``--yarn-site`` (honoured by
the Fair Scheduler, reported when ignored) and a job spec's ``map_request`` / ``reduce_request`` (the container
sizes of the job's tasks)."""

from __future__ import annotations

import json
from pathlib import Path

from mrsim.cli import main
from mrsim.tracker.yarn.config import YarnConf
from tests.tracker.yarn.helpers import capacity_xml, write

SPEC = """
[[job]]
id = "big"
submit = 0.0
maps = 4
reduces = 0
map_duration = 10.0
map_request = { memory_mb = 3000, vcores = 2 }
"""


def _replay(tmp_path: Path, capsys, *extra: str) -> tuple[dict, str]:
    spec = write(tmp_path, "jobs.toml", SPEC)
    code = main(["replay", str(spec), "--engine", "yarn", "--nodes", "2", "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def test_a_job_specs_map_request_sizes_its_map_containers() -> None:
    sizes = YarnConf().job_sizes(None, {"map_request": {"memory_mb": 3000.0, "vcores": 2.0}})
    assert sizes["map"] == (3072.0, 2.0)  # normalised up to the 1024 MB minimum allocation
    assert sizes["reduce"] == (1024.0, 1.0)
    # the request comes before the job conf's key, as on resource-vector clusters
    assert YarnConf().job_sizes({"mapreduce.map.memory.mb": "1024"}, {"map_request": {"memory_mb": 2048}})["map"] \
        == (2048.0, 1.0)


def test_map_request_reaches_the_replay(tmp_path: Path, capsys) -> None:
    doc, _ = _replay(tmp_path, capsys, "--scheduler", "fifo")
    # 2 NodeManagers of 8192 MB: the AM (1536 MB asked, 2048 MB given) and two 3072 MB maps on one node, two maps
    # on the other: all four maps run at once, 2048 + 4 x 3072 MB (4 x 1024 MB without the request)
    queues = doc["summary"]["yarn"]["queues"]
    assert [q["peak_allocated_mb"] for q in queues.values()] == [2048.0 + 4 * 3072.0]


def test_fair_keys_of_yarn_site_are_honoured_and_ignored_ones_reported(tmp_path: Path, capsys) -> None:
    site = write(tmp_path, "yarn-site.xml", capacity_xml({"yarn.scheduler.fair.assignmultiple": "true",
                                                          "yarn.scheduler.fair.preemption": "true"}))
    doc, err = _replay(tmp_path, capsys, "--scheduler", "fair", "--yarn-site", str(site))
    assert doc["spec"]["scheduler"]["assignmultiple"] is True
    line = f"{site}:4: yarn.scheduler.fair.preemption is not modelled (ignored)"
    assert line in doc["spec"]["ignored_keys"] and err.count("yarn.scheduler.fair.preemption") == 1
    # under another scheduler the Fair keys are said to be ignored, one line each
    doc, err = _replay(tmp_path, capsys, "--scheduler", "capacity", "--yarn-site", str(site))
    assert f"{site}:3: yarn.scheduler.fair.assignmultiple is a Fair Scheduler key and the scheduler is capacity " \
           "(ignored)" in doc["spec"]["ignored_keys"]


def test_hadoop_version_chooses_the_yarn_line(tmp_path: Path, capsys) -> None:
    doc, _ = _replay(tmp_path, capsys, "--scheduler", "capacity", "--hadoop-version", "3.3")
    assert doc["spec"]["hadoop_version"] == "3.3 (YARN)"
    assert doc["spec"]["scheduler"]["node_locality_delay"] == 40  # Hadoop 2.8+ and 3.x default
    doc, _ = _replay(tmp_path, capsys, "--scheduler", "capacity")
    assert doc["spec"]["hadoop_version"] == "2.x/3.x (YARN)" and doc["spec"]["scheduler"]["node_locality_delay"] == -1
    spec = write(tmp_path, "jobs.toml", SPEC)
    assert main(["replay", str(spec), "--engine", "yarn", "--nodes", "2", "--hadoop-version", "0.20"]) != 0
    err = capsys.readouterr().err
    assert "--hadoop-version is a Hadoop 1 engine option" in err and len(err.strip().splitlines()) == 1


def test_static_group_mapping_of_a_site_file_places_by_primary_group(tmp_path: Path, capsys) -> None:
    core = write(tmp_path, "core-site.xml", capacity_xml({"hadoop.user.group.static.mapping.overrides":
                                                          "default=analysts,staff"}))
    alloc = write(tmp_path, "fair-scheduler.xml", "<?xml version=\"1.0\"?>\n<allocations><queuePlacementPolicy>"
                                                  "<rule name=\"primaryGroup\"/></queuePlacementPolicy></allocations>\n")
    doc, _ = _replay(tmp_path, capsys, "--scheduler", "fair", "--scheduler-config", str(alloc),
                     "--yarn-site", str(core))
    queues = doc["summary"]["yarn"]["queues"]
    assert queues["root.analysts"]["peak_running_apps"] == 1 and queues["root.default"]["peak_running_apps"] == 0
