"""--nodes on a real trace keeps the trace's hosts (mrsim.whatif.cluster)."""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.whatif.cluster import describe, is_copy, resized

INFERRED = ClusterSpec((TrackerSpec("h1", "/r1", 4, 2), TrackerSpec("h2", "/r1", 2, 1), TrackerSpec("h3", "/r2", 1, 0)),
                       source="inferred from t.json")


def test_fewer_nodes_are_the_first_hosts_and_more_are_copies_in_order():
    assert [t.name for t in resized(INFERRED, 2).trackers] == ["h1", "h2"]
    grown = resized(INFERRED, 7)
    assert [t.name for t in grown.trackers] == ["h1", "h2", "h3", "h1~2", "h2~2", "h3~2", "h1~3"]
    assert [(t.rack, t.map_slots, t.reduce_slots) for t in grown.trackers[3:6]] == [
        ("/r1", 4, 2), ("/r1", 2, 1), ("/r2", 1, 0)]
    assert [is_copy(t) for t in grown.trackers] == [False] * 3 + [True] * 4
    assert resized(INFERRED, 3) == INFERRED  # the plain replay's cluster, field for field
    assert "the first 2 of the trace's 3" in describe(INFERRED, resized(INFERRED, 2))
    assert "4 copies" in describe(INFERRED, grown)


def test_racks_and_cores_are_set_and_bad_sizes_are_input_errors():
    regrouped = resized(INFERRED, 4, racks=2, cores=8)
    assert [t.rack for t in regrouped.trackers] == ["/rack01", "/rack01", "/rack02", "/rack02"]
    assert {t.cores for t in regrouped.trackers} == {8}
    with pytest.raises(InputError, match="nodes must be at least 1"):
        resized(INFERRED, 0)
    with pytest.raises(InputError, match="racks must be between 1 and the number of nodes"):
        resized(INFERRED, 2, racks=3)
