"""The LoTES Table 1 cluster files: node counts, per-resource totals, configurations, lambda*."""

from __future__ import annotations

import pytest

from mrsim.model.cluster import load_cluster_file
from mrsim.studies.lotes import solve_allocation, table1_cluster, table3_workload
from mrsim.studies.lotes.bridge import configurations, lotes_cluster
from tests.tracker.features.resources.helpers import CLUSTERS, TABLE1

# sums over Table 1's ten configurations
VCORES_PER_SET = sum(c for c, _ in TABLE1)  # 80
GB_PER_SET = sum(g for _, g in TABLE1)  # 124


@pytest.mark.parametrize("name,count", [("lotes_table1.toml", 1000), ("lotes_table1_100.toml", 100),
                                        ("lotes_table1_10.toml", 10)])
def test_table1_files_load_with_exact_totals(name, count):
    spec = load_cluster_file(CLUSTERS / name)
    assert len(spec) == 10 * count
    assert spec.uses_resources and spec.resource_names == ("memory_mb", "vcores")
    d = spec.describe()
    assert d["resources"] == {"vcores": VCORES_PER_SET * count, "memory_mb": GB_PER_SET * 1024 * count}
    assert d["configurations"] == 10
    caps, members = configurations(spec)
    assert caps == [(g * 1024.0, float(c)) for c, g in TABLE1]
    assert [len(m) for m in members] == [count] * 10
    # slots never bind on these files: the resource fit alone limits a node
    assert {t.map_slots for t in spec.trackers} == {1000}
    assert spec.default_request(False) == {"memory_mb": 1024.0, "vcores": 1.0}


def test_lambda_star_matches_the_standalone_simulator():
    # The same machines in LoTES units give exactly the standalone allocation LP (docs/lotes.md: 21,264.9 jobs/h
    # at full scale); at 10 per configuration it is a hundredth of that.
    spec = load_cluster_file(CLUSTERS / "lotes_table1_10.toml")
    mine = solve_allocation(lotes_cluster(spec, "lotes"), table3_workload()).lam
    standalone = solve_allocation(table1_cluster(10), table3_workload()).lam
    assert mine == pytest.approx(standalone, rel=1e-9)
    assert mine == pytest.approx(212.649, abs=0.01)
