"""Hadoop's ``TestQueueMappings`` (``scheduler.capacity``), re-expressed: ``yarn.scheduler.capacity.queue-mappings``
in a ``capacity-scheduler.xml`` with Q1 and Q2 as leaf queues; a mapping Hadoop refuses at ``reinitialize`` is a
one-line configuration error when mrsim loads the file, and a submission goes where Hadoop's ``checkAppQueue``
expects it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.conformance.hadoop import app, capacity_file, hadoop

P = "yarn.scheduler.capacity."
V = "2.6.0 and 3.3.6"
QUEUES = {P + "root.queues": "q1,q2", P + "root.q1.capacity": "10", P + "root.q2.capacity": "90"}


def _cs(tmp_path: Path, mapping: str, override: bool = False) -> CapacityScheduler:
    props = {**QUEUES, P + "queue-mappings": mapping}
    if override:
        props[P + "queue-mappings-override.enable"] = "true"
    return CapacityScheduler({"config_file": str(capacity_file(tmp_path, props))})


@hadoop("TestQueueMappings", "testQueueMappingParsingInvalidCases", V)
@pytest.mark.parametrize("mapping, reason", [
    ("x:a:b", "invalid specifier"), ("u:a", "no queue specified"), ("g:a", "no queue specified"),
    ("u:a:b,g:a", "multiple mappings with invalid mapping"), ("u:a:b,g:a:d:e", "too many path segments"),
    ("u::", "empty source and queue"), ("u:", "missing source missing queue"), ("u:a:", "empty source missing q"),
])
def test_queue_mapping_parsing_invalid_cases(tmp_path: Path, mapping: str, reason: str) -> None:
    with pytest.raises(InputError, match="queue-mappings entry") as err:
        _cs(tmp_path, mapping.replace("b", "q1"))
    assert "\n" not in str(err.value) and "capacity-scheduler.xml:" in str(err.value), reason


@hadoop("TestQueueMappings", "testQueueMappingTrimSpaces", V)
def test_queue_mapping_trim_spaces(tmp_path: Path) -> None:
    cs = _cs(tmp_path, "    u : a : q1")
    assert cs.mappings == [("u", "a", "q1")]
    assert cs.place(app(0, "a", "default")).path == "root.q1"


@hadoop("TestQueueMappings", "testQueueMapping", V)
def test_queue_mapping_to_a_missing_queue_fails_at_load(tmp_path: Path) -> None:
    # "if the mapping specifies a queue that does not exist, the job is rejected": reinitialize fails
    with pytest.raises(InputError, match="maps to 'non_existent_queue', which is not a leaf queue"):
        _cs(tmp_path, "u:user:non_existent_queue")


@hadoop("TestQueueMappings", "testQueueMapping", V)
def test_queue_mapping_override(tmp_path: Path) -> None:
    # with override, a user's mapping wins over the queue it asked for; without, it applies to "default" only
    assert _cs(tmp_path, "u:user:q1", override=True).place(app(0, "user", "q2")).path == "root.q1"
    cs = _cs(tmp_path, "u:user:q1")
    assert cs.place(app(1, "user", "q2")).path == "root.q2"
    assert cs.place(app(2, "user", "default")).path == "root.q1"
    # %user: the queue named after the user
    cs = _cs(tmp_path, "u:%user:%user", override=True)
    assert cs.place(app(3, "q2", "default")).path == "root.q2"


@hadoop("TestQueueMappings", "testQueueMapping", V)
def test_group_mappings(tmp_path: Path) -> None:
    # SimpleGroupsMapping: user "a" is in "agroup"; g:agroup:q1 maps it, u:%user:%primary_group names its group
    props = {P + "root.queues": "q1,q2,agroup", P + "root.q1.capacity": "10", P + "root.q2.capacity": "80",
             P + "root.agroup.capacity": "10", P + "queue-mappings-override.enable": "true"}
    for mapping, expected in (("g:agroup:q1", "root.q1"), ("u:%user:%primary_group", "root.agroup")):
        cs = CapacityScheduler({"config_file": str(capacity_file(tmp_path, {**props, P + "queue-mappings": mapping})),
                                "user_groups": {"a": ["agroup"]}})
        assert cs.place(app(0, "a", "default")).path == expected
