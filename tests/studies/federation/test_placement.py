"""Placement policies on small cases, checked exactly."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate, Workload
from mrsim.rng import stream
from mrsim.studies.federation.placement import (PlacementPolicy, PlacementSpec, parse_rack_map, place_workload, rack_of)
from tests.studies.federation.test_equivalence import federation


def job(jid: str, maps: int, reduces: int = 0, locations=None, **extra) -> JobTemplate:
    return JobTemplate(job_id=jid, submit_s=0.0, map_durations=[1.0] * maps, reduce_durations=[1.0] * reduces,
                       first_shuffle_durations=[], typical_shuffle_durations=[], map_locations=locations,
                       extra=dict(extra))


def test_uniform_is_a_seeded_multinomial_in_datacenter_order() -> None:
    cluster = federation((1, 1, 1))
    w = Workload.of([job("a", 30), job("b", 7)])
    out, report = place_workload(w, cluster, PlacementSpec(PlacementPolicy.UNIFORM, seed=5))
    rng = stream(5, "placement")
    for t in out:
        counts = rng.multinomial(t.n_maps, [1 / 3] * 3)
        assert t.extra["map_datacenters"] == {f"dc{d}": int(c) for d, c in enumerate(counts) if c}
        assert sum(t.extra["map_datacenters"].values()) == t.n_maps
    assert report.to_json() == {"policy": "uniform", "seed": 5, "jobs_kept": 0, "jobs_placed": 2,
                                "placed_with": "uniform"}


def test_auto_keeps_given_placement_and_places_the_rest_uniformly() -> None:
    cluster = federation((1, 1))
    given = job("given", 4, map_datacenters={"dc1": 4})
    out, report = place_workload(Workload.of([given, job("free", 6)]), cluster, PlacementSpec(seed=1))
    by_id = {t.job_id: t for t in out}
    assert by_id["given"].extra["map_datacenters"] == {"dc1": 4}
    assert sum(by_id["free"].extra["map_datacenters"].values()) == 6
    assert (report.kept, report.placed, report.policy) == (1, 1, "auto")
    assert "1 job(s) kept the input's placement, 1 placed uniformly (auto)" in report.describe()
    # zipf and racks keep a given placement too
    out, report = place_workload(Workload.of([given]), cluster, PlacementSpec(PlacementPolicy.ZIPF, skew=2.0))
    assert out[0] is given and report.kept == 1


def test_zipf_skew_concentrates_and_zero_skew_is_uniform() -> None:
    cluster = federation((1, 1, 1, 1))
    w = Workload.of([job(f"j{i}", 40) for i in range(20)])
    hot, _ = place_workload(w, cluster, PlacementSpec(PlacementPolicy.ZIPF, skew=60.0, seed=2))
    # weights r^-60: ranks 2.. get about 1e-18 of the tasks: every job lands whole in one datacenter
    assert all(len(t.extra["map_datacenters"]) == 1 for t in hot)
    assert len({next(iter(t.extra["map_datacenters"])) for t in hot}) > 1  # the ranking differs per job
    flat, _ = place_workload(w, cluster, PlacementSpec(PlacementPolicy.ZIPF, skew=0.0, seed=2))
    uni, _ = place_workload(w, cluster, PlacementSpec(PlacementPolicy.UNIFORM, seed=2))
    assert [t.extra for t in flat] == [t.extra for t in uni]
    # skew 1: largest share per job is larger on average than under uniform placement
    mid, _ = place_workload(w, cluster, PlacementSpec(PlacementPolicy.ZIPF, skew=1.0, seed=2))
    top = lambda ws: np.mean([max(t.extra["map_datacenters"].values()) for t in ws])  # noqa: E731
    assert top(mid) > top(uni)


def test_racks_rack_map_then_cluster_racks_then_round_robin_then_uniform() -> None:
    cluster = federation((1, 1, 1))  # racks /dc0/rack1 ... hosts dc0-n0 ...
    locs = (("/dc2/rack1/dc2-n0",), ("/x/h1",), ("/y/h2",), ("/z/h3",), (), ("/dc0/rack1/whatever",))
    w = Workload.of([job("r", 6, locations=locs)])
    out, report = place_workload(w, cluster, PlacementSpec(PlacementPolicy.RACKS, rack_map={"/y": "dc1"}, seed=4))
    placed = out[0].extra["map_datacenters"]
    # /dc2/rack1 is a cluster rack; /y from the map; unknown /x and /z round-robin in sorted order: /x->dc0,
    # /z->dc1; the location-less map draws uniformly; /dc0/rack1 is a cluster rack.
    loose = ["dc0", "dc1", "dc2"][int(stream(4, "placement").integers(0, 3))]
    assert placed == ["dc2", "dc0", "dc1", "dc1", loose, "dc0"]
    assert report.to_json()["maps_by_rule"] == {"rack_map": 1, "cluster": 2, "round_robin": 2, "no_location": 1}


def test_map_less_jobs_get_their_reduces_placed() -> None:
    out, _ = place_workload(Workload.of([job("r", 0, reduces=5)]), federation((1, 1)),
                            PlacementSpec(PlacementPolicy.UNIFORM))
    assert "map_datacenters" not in out[0].extra and sum(out[0].extra["reduce_datacenters"].values()) == 5


def test_rack_map_parsing_and_errors() -> None:
    assert parse_rack_map("/r1=dc0, /r2=dc1", ("dc0", "dc1")) == {"/r1": "dc0", "/r2": "dc1"}
    assert parse_rack_map("", ("dc0",)) == {}
    with pytest.raises(InputError, match="RACK=DATACENTER"):
        parse_rack_map("/r1", ("dc0",))
    with pytest.raises(InputError, match="does not have"):
        parse_rack_map("/r1=mars", ("dc0",))
    with pytest.raises(InputError, match="mapped twice"):
        parse_rack_map("/r1=dc0,/r1=dc1", ("dc0", "dc1"))
    assert rack_of("/rack/host") == "/rack" and rack_of("host") == ""


def test_errors_on_one_site_clusters_and_bad_parameters() -> None:
    from mrsim.model.cluster import uniform_cluster

    w = Workload.of([job("a", 3)])
    same, report = place_workload(w, uniform_cluster(2), PlacementSpec())
    assert same is w and report.placed == 0
    with pytest.raises(InputError, match="not a federation"):
        place_workload(w, uniform_cluster(2), PlacementSpec(PlacementPolicy.ZIPF))
    with pytest.raises(InputError, match="needs placement racks"):
        place_workload(w, federation((1, 1)), PlacementSpec(PlacementPolicy.UNIFORM, rack_map={"/r": "dc0"}))
    with pytest.raises(InputError, match="skew"):
        PlacementSpec(PlacementPolicy.ZIPF, skew=-1.0)
    with pytest.raises(InputError, match="unknown policy"):
        PlacementPolicy.parse("everywhere")
