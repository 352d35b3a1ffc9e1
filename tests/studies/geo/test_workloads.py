"""Synthetic workloads (size laws, utilisation calibration, streams) and placement policies."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate, Workload
from mrsim.studies.geo.model import Federation
from mrsim.studies.geo.placement import Placement, PlacementKind, from_templates, split_counts
from mrsim.studies.geo.streams import named_rng
from mrsim.studies.geo.workloads import Scenario, TraceType, size_distribution, synthesize


@pytest.mark.parametrize(
    "trace, mean, shares",
    [
        (TraceType.FACEBOOK, 364.6, (0.89, 0.08, 0.03)),
        (TraceType.GOOGLE, 86.9, (0.96, 0.02, 0.02)),
        (TraceType.EXPONENTIAL, 800.0, (0.171, 0.294, 0.535)),
    ],
)
def test_size_laws_match_the_papers_table(trace: TraceType, mean: float, shares: tuple[float, ...]) -> None:
    dist = size_distribution(trace)
    # Exact law mean: H is an integer, so the mixture mean lands within 0.01 task of the target.
    assert dist.mean == pytest.approx(mean, abs=0.01)
    x = dist.sample(np.random.default_rng(0), 200_000)
    assert x.min() >= 1
    got = ((x <= 150).mean(), ((x > 150) & (x <= 500)).mean(), (x > 500).mean())
    # class shares: binomial standard error at n = 200 000 is below 0.001
    assert got == pytest.approx(shares, abs=0.005)


def test_facebook_has_higher_size_variance_than_google() -> None:
    rng = np.random.default_rng(1)
    fb = size_distribution(TraceType.FACEBOOK).sample(rng, 100_000)
    go = size_distribution(TraceType.GOOGLE).sample(rng, 100_000)
    assert fb.std() / fb.mean() > go.std() / go.mean()


def test_realised_load_is_close_to_target() -> None:
    for trace in TraceType:
        w = synthesize(Scenario(trace=trace, utilization=0.7, n_jobs=2000 if trace is not TraceType.EXPONENTIAL else 400,
                                n_datacenters=5, slots=8))
        # only the Poisson gaps are random: relative sd ~ 1/sqrt(n)
        assert w.offered_load() == pytest.approx(0.7, rel=0.1)


def test_same_seed_same_workload_and_streams_are_independent() -> None:
    sc = Scenario(trace=TraceType.GOOGLE, n_jobs=50, n_datacenters=6, slots=2, seed=9)
    a, b = synthesize(sc), synthesize(sc)
    assert [j.arrival_s for j in a.jobs] == [j.arrival_s for j in b.jobs]
    assert all(x.dcs == y.dcs and all(np.array_equal(p, q) for p, q in zip(x.durations, y.durations))
               for x, y in zip(a.jobs, b.jobs))
    # a different placement changes only where tasks go, not sizes or arrival times
    c = synthesize(replace(sc, placement=Placement(PlacementKind.UNIFORM)))
    assert [j.n_tasks for j in c.jobs] == [j.n_tasks for j in a.jobs]
    assert [j.arrival_s for j in c.jobs] == [j.arrival_s for j in a.jobs]
    # a higher utilisation compresses the same arrival pattern
    d = synthesize(replace(sc, utilization=0.4))
    ratio = np.array([j.arrival_s for j in d.jobs[1:]]) / np.array([j.arrival_s for j in a.jobs[1:]])
    assert np.allclose(ratio, 2.0)
    e = synthesize(replace(sc, seed=10))
    assert [j.n_tasks for j in e.jobs] != [j.n_tasks for j in a.jobs]


def test_named_streams_differ_by_name() -> None:
    assert named_rng(1, "a").random() != named_rng(1, "b").random()
    assert named_rng(1, "a").random() == named_rng(1, "a").random()


def test_zipf_skew_concentrates_jobs() -> None:
    rng = np.random.default_rng(0)
    spread = {}
    for skew in (0.0, 1.0, 2.0):
        counts = [split_counts(100, 20, Placement(PlacementKind.ZIPF, skew), rng) for _ in range(300)]
        assert all(c.sum() == 100 for c in counts)
        spread[skew] = np.mean([c.max() for c in counts])
    assert spread[0.0] < spread[1.0] < spread[2.0]
    # per-job random ranking: every datacenter gets about the same share overall
    total = sum(split_counts(100, 5, Placement(PlacementKind.ZIPF, 2.0), rng) for _ in range(2000))
    assert total / total.sum() == pytest.approx(np.full(5, 0.2), abs=0.02)


def test_placement_rejects_bad_input() -> None:
    with pytest.raises(InputError, match="skew must be >= 0"):
        Placement(PlacementKind.ZIPF, -1.0)
    with pytest.raises(InputError, match="rack placement"):
        Scenario(placement=Placement(PlacementKind.RACKS))
    with pytest.raises(InputError, match="unknown placement"):
        PlacementKind.parse("random")


def _template(jid: str, submit: float, maps: list[float], reduces: list[float], locs=None) -> JobTemplate:
    return JobTemplate(job_id=jid, submit_s=submit, map_durations=np.array(maps), reduce_durations=np.array(reduces),
                       map_locations=locs)


def test_templates_adapter_maps_and_reduces() -> None:
    wl = Workload.of([
        _template("j1", 100.0, [1.0, 2.0, 3.0], [5.0]),
        _template("j2", 103.5, [4.0], []),
        _template("j3", 104.0, [], []),
    ], source="t")
    fed = Federation.uniform(3, 2)
    g = from_templates(wl, fed, Placement(PlacementKind.UNIFORM), seed=4)
    assert [j.job_id for j in g.jobs] == ["j1", "j2"]
    assert [j.arrival_s for j in g.jobs] == [0.0, 3.5]
    assert [j.n_tasks for j in g.jobs] == [3, 1]
    assert sorted(np.concatenate(g.jobs[0].durations).tolist()) == [1.0, 2.0, 3.0]
    assert g.spec["skipped_jobs"] == ["j3"]
    g2 = from_templates(wl, fed, Placement(PlacementKind.UNIFORM), seed=4, include_reduces=True)
    assert sorted(np.concatenate(g2.jobs[0].durations).tolist()) == [1.0, 2.0, 3.0, 5.0]


def test_templates_adapter_rack_placement() -> None:
    locs = (("/r1/h1",), ("/r2/h5", "/r1/h2"), ("/r1/h3",), ())
    wl = Workload.of([_template("j", 0.0, [1.0, 2.0, 3.0, 4.0], [], locs)])
    fed = Federation(("east", "west"), (2, 2))
    g = from_templates(wl, fed, Placement(PlacementKind.RACKS, rack_to_dc={"/r1": "west", "/r2": "east"}), seed=0)
    job = g.jobs[0]
    west = dict(zip(job.dcs, job.durations))[1].tolist()
    east = dict(zip(job.dcs, job.durations))[0].tolist()
    # maps 0 and 2 on /r1 (west), map 1's first location is /r2 (east); map 3 has no location (random)
    assert {1.0, 3.0} <= set(west) and 2.0 in east
    assert sorted(west + east) == [1.0, 2.0, 3.0, 4.0]
    # default mapping: sorted racks round-robin over datacenters
    g2 = from_templates(wl, fed, Placement(PlacementKind.RACKS), seed=0)
    d2 = dict(zip(g2.jobs[0].dcs, (a.tolist() for a in g2.jobs[0].durations)))
    assert 1.0 in d2[0] and 3.0 in d2[0] and 2.0 in d2[1]
    with pytest.raises(InputError, match="unknown datacenter 'north'"):
        from_templates(wl, fed, Placement(PlacementKind.RACKS, rack_to_dc={"/r1": "north"}))
