"""Configuration cases of Hadoop's ``TestCapacityScheduler`` (``scheduler.capacity``), re-expressed on mrsim's
``capacity-scheduler.xml`` loader, with the test's queue tree (root: a 10.5 %, b 89.5 %; a: a1 30 %, a2 70 %; b: b1
79.2 %, b2 0.8 %, b3 20 %).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler
from tests.tracker.yarn.conformance.hadoop import capacity_file, hadoop

P = "yarn.scheduler.capacity."
V = "2.6.0 and 3.3.6"
TREE = {P + "root.queues": "a,b", P + "root.a.capacity": "10.5", P + "root.b.capacity": "89.5",
        P + "root.a.queues": "a1,a2", P + "root.a.a1.capacity": "30", P + "root.a.a2.capacity": "70",
        P + "root.b.queues": "b1,b2,b3", P + "root.b.b1.capacity": "79.2", P + "root.b.b2.capacity": "0.8",
        P + "root.b.b3.capacity": "20"}


@hadoop("TestCapacityScheduler", "testParseQueue", V)
def test_parse_queue_rejects_two_leaves_of_one_name(tmp_path: Path) -> None:
    props = {**TREE, P + "root.a.a1.queues": "b1", P + "root.a.a1.b1.capacity": "100"}
    with pytest.raises(InputError, match="leaf queue name 'b1' is used twice"):
        CapacityScheduler({"config_file": str(capacity_file(tmp_path, props))})


@hadoop("TestCapacityScheduler", "testMaximumCapacitySetup", V)
def test_maximum_capacity_setup(tmp_path: Path) -> None:
    # no maximum-capacity, or -1: 100 %; 50: 50 %
    for value, expected in ((None, 100.0), ("50", 50.0), ("-1", 100.0)):
        props = dict(TREE)
        if value is not None:
            props[P + "root.a.maximum-capacity"] = value
        cs = CapacityScheduler({"config_file": str(capacity_file(tmp_path, props))})
        a = cs.root.children[0]
        assert a.path == "root.a" and a.max_capacity * 100 == pytest.approx(expected)


@hadoop("TestCapacityScheduler", "testRefreshQueues", V)  # its checkQueueCapacities
def test_queue_tree_capacities(tmp_path: Path) -> None:
    cs = CapacityScheduler({"config_file": str(capacity_file(tmp_path, TREE))})
    assert cs.leaves["b2"].abs_capacity == pytest.approx(0.895 * 0.008)
    assert cs.leaves["a1"].abs_capacity == pytest.approx(0.105 * 0.30)
