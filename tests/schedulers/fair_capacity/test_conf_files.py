"""mrsim.tracker.schedconf's readers, one per Hadoop file type: each file parsed once into a frozen tree or frozen
properties with lines, read the same way by the MR1 and the YARN schedulers."""

from __future__ import annotations

import dataclasses
import os

import pytest

from mrsim.errors import InputError
from mrsim.tracker.schedconf import document
from mrsim.tracker.schedconf.allocation_file import read_allocation_file
from mrsim.tracker.schedconf.capacity_file import queue_list, read_capacity_file
from mrsim.tracker.schedconf.document import Dialect, read_document
from mrsim.tracker.schedconf.site_file import read_site_file
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from mrsim.tracker.yarn.schedulers.fair import FairScheduler
from tests.schedulers.fair_capacity.helpers import REPO

EXAMPLES = REPO / "examples"

SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>a.key</name><value> 1 </value></property>
  <property><name></name><value>unnamed: skipped</value></property>
  <property><name>a.key</name><value>2</value></property>
  <property><name>b.key</name></property>
</configuration>
"""


def test_site_file_later_property_wins_with_its_line(tmp_path):
    """Configuration.loadResource: a later property of the same name wins; values are trimmed; unnamed skipped."""
    path = tmp_path / "yarn-site.xml"
    path.write_text(SITE)
    site = read_site_file(path)
    assert {k: (p.value, p.line) for k, p in site.props.items()} == {"a.key": ("2", 5), "b.key": ("", 6)}
    assert site.line == 2 and site.directory == tmp_path.resolve() and site.keys_with("b.") == ["b.key"]
    with pytest.raises(TypeError):
        site.props["c.key"] = site.props["a.key"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        site.path = "x"  # type: ignore[misc]


def test_site_file_refuses_another_root_naming_file_and_line(tmp_path):
    path = tmp_path / "x.xml"
    path.write_text('<?xml version="1.0"?>\n\n<allocations/>\n')
    with pytest.raises(InputError, match=r"x\.xml:3: expected a Hadoop <configuration> file, found <allocations>$"):
        read_site_file(path)


def _count_parses(monkeypatch) -> list[str]:
    calls: list[str] = []
    real = document.parse_xml_data
    monkeypatch.setattr(document, "parse_xml_data", lambda p, data: calls.append(str(p)) or real(p, data))
    monkeypatch.setattr(document, "_cache", {})
    return calls


def test_document_is_parsed_once_per_version_of_the_file(tmp_path, monkeypatch):
    calls = _count_parses(monkeypatch)
    path = tmp_path / "site.xml"
    path.write_text(SITE)
    first = read_document(path)
    assert read_document(path) is first and len(calls) == 1
    assert read_site_file(path).props["a.key"].value == "2" and len(calls) == 1  # the reader shares the parse
    stamp = os.stat(path).st_mtime_ns
    path.write_text(SITE.replace("<value>2</value>", "<value>3</value>"))  # same size ...
    os.utime(path, ns=(stamp, stamp))  # ... and the same mtime: still another version
    assert read_site_file(path).props["a.key"].value == "3" and len(calls) == 2
    with pytest.raises(TypeError):
        first.attrs["x"] = "y"  # type: ignore[index]
    assert isinstance(first.children, tuple)


def test_document_errors_are_not_kept(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<configuration>\n<property>\n</configuration>\n")
    for _ in range(2):
        with pytest.raises(InputError, match=r"bad\.xml:3: not well-formed XML"):
            read_document(path)


def test_allocation_file_dialects_of_the_examples():
    """minMaps / minReduces pools are MRv1's; nested queues with minResources are YARN's."""
    mrv1 = read_allocation_file(EXAMPLES / "fair-allocations.xml")
    yarn = read_allocation_file(EXAMPLES / "yarn" / "fair-scheduler.xml")
    assert (mrv1.dialect, yarn.dialect) == (Dialect.MRV1, Dialect.YARN)
    assert [q.attrs["name"] for q in yarn.queues()] == ["sample_queue", "other"]
    sub = yarn.root.find("queue").find("queue")  # type: ignore[union-attr]
    assert sub is not None and sub.attrs["name"] == "sample_sub_queue" and sub.find("minResources").text == "5000 mb,0vcores"


def test_capacity_file_dialect_and_queue_lists():
    assert read_capacity_file(EXAMPLES / "capacity-scheduler.xml").dialect is Dialect.MRV1
    yarn = read_capacity_file(EXAMPLES / "yarn" / "capacity-scheduler.xml")
    assert yarn.dialect is Dialect.YARN
    assert queue_list(yarn.props["yarn.scheduler.capacity.root.b.queues"].value) == ["b1", "b2", "b3"]
    assert queue_list(" a, ,b ,") == ["a", "b"] and queue_list(None) == [] and queue_list("") == []


def test_both_lines_read_one_parse_of_a_yarn_file(monkeypatch):
    """The MR1 and the YARN Fair (Capacity) Scheduler given one file: one parse, each line's own reading of it."""
    from mrsim.tracker.schedconf import load_allocations, load_capacity_conf

    calls = _count_parses(monkeypatch)
    fair_file = str(EXAMPLES / "yarn" / "fair-scheduler.xml")
    pools = load_allocations(fair_file)
    queues = FairScheduler({"config_file": fair_file}).queues
    assert calls == [fair_file]
    assert "root.sample_queue.sample_sub_queue" in queues
    assert [p.name for p in pools.pools] == ["root.sample_queue.sample_sub_queue", "root.other"]
    cap_file = str(EXAMPLES / "yarn" / "capacity-scheduler.xml")
    flat = load_capacity_conf({"config_file": cap_file})
    tree = CapacityScheduler({"config_file": cap_file})
    assert calls == [fair_file, cap_file]
    assert [q.name for q in flat.queues] == ["a1", "a2", "b1", "b2", "b3", "c"]
    assert [q.capacity_pct for q in flat.queues] == pytest.approx([24, 16, 30, 10, 10, 10])
    assert [tree.leaves[n].abs_capacity for n in ("a1", "a2", "b1", "b2", "b3", "c")] == pytest.approx(
        [0.24, 0.16, 0.30, 0.10, 0.10, 0.10])
