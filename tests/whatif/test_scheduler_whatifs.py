"""Scheduler what-ifs in compare: a config file per scheduler, the shared file check, where jobs went, the
default scheduler set."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import mrsim
from mrsim.cli import build_parser, main
from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate, Workload
from mrsim.tracker.schedconf.filekind import FileKind, check_scheduler_file, look_at
from tests.data import SHARED_DATA

FAIR_XML = """<?xml version="1.0"?>
<allocations>
  <pool name="alice">
    <weight>2</weight>
    <minMaps>3</minMaps>
  </pool>
</allocations>
"""

CAPACITY_XML = """<?xml version="1.0"?>
<configuration>
  <property><name>mapred.queue.names</name><value>default,prod</value></property>
  <property><name>mapred.capacity-scheduler.queue.default.capacity</name><value>20</value></property>
  <property><name>mapred.capacity-scheduler.queue.prod.capacity</name><value>80</value></property>
  <property><name>mapred.capacity-scheduler.queue.prod.user-limit-factor</name><value>2</value></property>
</configuration>
"""


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    fair, capacity = tmp_path / "fair.xml", tmp_path / "capacity.xml"
    fair.write_text(FAIR_XML)
    capacity.write_text(CAPACITY_XML)
    return fair, capacity


def _workload() -> Workload:
    """Five jobs: alice x3 (queue prod), bob x2 (queue default)."""
    users = [("alice", "prod"), ("bob", "default"), ("alice", "prod"), ("bob", "default"), ("alice", "prod")]
    return Workload.of([JobTemplate(f"job_{i}", 10.0 * i, [4.0, 4.0], [2.0], user=u, queue=q)
                        for i, (u, q) in enumerate(users)], source="hand")


def _one_queue() -> Workload:
    """The same jobs, all in queue default (Capacity's only queue without a file)."""
    return Workload.of([j.with_changes(queue="default") for j in _workload()], source="hand")


def _notes(err: str, name: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(f"mrsim: note: {name}: ")]


def test_each_scheduler_run_says_where_its_jobs_went(files: tuple[Path, Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    fair, capacity = files
    mrsim.compare(_workload(), nodes=4, scheduler_config=f"fair={fair},capacity={capacity}")
    err = capsys.readouterr().err
    assert _notes(err, "fifo") == ["mrsim: note: fifo: 5 jobs -> one job queue (the scheduler has no queues or pools)"]
    assert _notes(err, "fair") == ["mrsim: note: fair: 3 jobs -> pool alice (weight 2, minMaps 3), "
                                   "2 -> pool bob (undeclared: weight 1, minMaps 0)"]
    assert _notes(err, "capacity") == ["mrsim: note: capacity: 3 jobs -> prod (capacity 80 %, user-limit-factor 2), "
                                       "2 -> default (capacity 20 %, user-limit-factor 1)"]


def test_replay_says_it_too(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    run = mrsim.replay(_one_queue(), "capacity", nodes=4,
                       scheduler_config=str(files[1]))
    assert run.summary["jobs"] == 5
    assert _notes(capsys.readouterr().err, "capacity") == [
        "mrsim: note: capacity: 5 jobs -> default (capacity 20 %, user-limit-factor 1)"]


def test_a_file_per_scheduler_reaches_only_its_scheduler(files: tuple[Path, Path]) -> None:
    fair, capacity = files
    run = mrsim.compare(_workload(), nodes=4, quiet=True, scheduler_config={"fair": str(fair),
                                                                            "capacity": str(capacity)})
    spec = {name: r.spec["scheduler"] for name, r in run.results.items()}
    assert spec["capacity"]["queues"]["prod"]["capacity"] == 80.0 and spec["capacity"]["sources"] == [str(capacity)]
    assert spec["fair"]["allocations"]["pools"] == {"alice": {"minMaps": 3, "minReduces": 0, "weight": 2.0}}
    assert "config_file" not in spec["fifo"]


def test_a_single_fair_file_goes_to_fair_alone(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    fair, _ = files
    run = mrsim.compare(_one_queue(), ["fifo", "fair", "capacity"], nodes=4, scheduler_config=str(fair))
    err = capsys.readouterr().err
    assert (f"mrsim: note: --scheduler-config {fair} looks like a fair scheduler allocation file (<allocations>): it "
            "goes to fair; fifo, capacity run without a file (a file each: --scheduler-config fair=fair.xml,NAME=FILE)"
            in err.splitlines())
    assert run.results["capacity"].spec["scheduler"]["sources"] == []  # the default queue, no file


@pytest.mark.parametrize(("scheduler", "which", "message"), [
    ("fair", 1, "{capacity}:2: looks like a capacity-scheduler.xml (<configuration> with mapred.capacity-scheduler.* / "
                "yarn.scheduler.capacity.* keys), a file for the capacity scheduler; the fair scheduler reads an "
                "allocation file (<allocations>) or a <configuration> of mapred.fairscheduler.* keys"),
    ("capacity", 0, "{fair}:2: looks like a fair scheduler allocation file (<allocations>), a file for the fair "
                    "scheduler; the capacity scheduler reads a capacity-scheduler.xml (<configuration> of "
                    "mapred.capacity-scheduler.* keys)"),
    ("fifo", 0, "{fair}: looks like a fair scheduler allocation file (<allocations>), a file for the fair scheduler; "
                "the fifo scheduler takes no such file"),
    ("minedf", 1, "{capacity}: looks like a capacity-scheduler.xml (<configuration> with mapred.capacity-scheduler.* / "
                  "yarn.scheduler.capacity.* keys), a file for the capacity scheduler; the minedf scheduler takes no "
                  "such file"),
])
def test_a_file_of_another_scheduler_is_one_error_line(files: tuple[Path, Path], scheduler: str, which: int,
                                                       message: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = files[which]
    assert main(["replay", "--scheduler", scheduler, "--scheduler-config", str(path), "--nodes", "4"]) == 1
    expected = message.format(fair=files[0], capacity=files[1])
    assert capsys.readouterr().err == f"mrsim: error: {expected}\n"


def test_compare_refuses_a_mismatched_pair(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    fair, capacity = files
    assert main(["compare", "--nodes", "4", "--scheduler-config", f"fair={capacity}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mrsim: error: {capacity}:2: looks like a capacity-scheduler.xml") and err.count("\n") == 1
    assert main(["compare", "--nodes", "4", "--schedulers", "fifo,fair", "--scheduler-config",
                 f"capacity={capacity}"]) == 2
    assert capsys.readouterr().err == ("mrsim: error: --scheduler-config names scheduler 'capacity', which this run "
                                       "does not use (schedulers: fifo, fair)\n")


def test_file_kinds(files: tuple[Path, Path], tmp_path: Path) -> None:
    fair, capacity = files
    site = tmp_path / "site.xml"
    site.write_text("<configuration><property><name>mapred.fairscheduler.preemption</name><value>true</value>"
                    "</property></configuration>")
    plain = tmp_path / "queues.xml"
    plain.write_text("<configuration><property><name>mapred.queue.names</name><value>a</value></property>"
                     "</configuration>")
    sizes = tmp_path / "srpt.json"
    sizes.write_text('{"sigma": 0.5}')
    assert [look_at(p).kind for p in (fair, capacity, site, plain, sizes)] == [
        FileKind.FAIR_ALLOCATIONS, FileKind.CAPACITY, FileKind.FAIR_SITE, FileKind.CONFIGURATION, FileKind.NOT_XML]
    assert check_scheduler_file("capacity", plain).kind is FileKind.CONFIGURATION  # queue names suit both
    assert check_scheduler_file("srpt", sizes).kind is FileKind.NOT_XML  # the plug-in's own JSON
    with pytest.raises(InputError, match="the capacity scheduler reads"):
        check_scheduler_file("capacity", site)


def test_the_default_set_is_hadoops_three(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["compare"])
    assert args.schedulers == "fifo,fair,capacity"
    run = mrsim.compare(_one_queue(), nodes=4, quiet=True)
    assert list(run.table["scheduler"]) == ["fifo", "fair", "capacity"]
    assert main(["compare", "--nodes", "4", "--json", "--quiet"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert list(doc["schedulers"]) == ["fifo", "fair", "capacity"]
    assert [row["scheduler"] for row in doc["table"]] == ["fifo", "fair", "capacity"]


SLS = SHARED_DATA / "sls" / "test-resources" / "inputsls.json"


def test_yarn_runs_say_where_jobs_went(capsys: pytest.CaptureFixture[str]) -> None:
    # Hadoop's SLS sample: two jobs in queues sls_queue_1 and sls_queue_2; YARN mode (an SLS input) by default.
    assert main(["compare", str(SLS), "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert _notes(err, "fifo") == ["mrsim: note: fifo: 2 jobs -> one job queue (the scheduler has no queues or pools)"]
    assert _notes(err, "capacity") == ["mrsim: note: capacity: 2 jobs -> root.default (capacity 100 %, "
                                       "user-limit-factor 1)"]
    assert _notes(err, "fair") == ["mrsim: note: fair: 1 job -> queue root.sls_queue_1 (weight 1, minResources 0 MB), "
                                   "1 -> queue root.sls_queue_2 (weight 1, minResources 0 MB)"]
