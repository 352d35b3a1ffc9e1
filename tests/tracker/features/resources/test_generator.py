"""mrsim synth --lotes-google: the Table 3 workload as templates and as a Rumen trace whose requests survive."""

from __future__ import annotations

import json
import gzip

import numpy as np
import pytest

from mrsim.cli import main
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.profiler.workloads import load_workload
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.studies.lotes.bridge import GoogleTraceSpec, class_of, google_workload
from mrsim.studies.lotes.google import table3_workload
from tests.tracker.features.resources.helpers import CLUSTERS, RecordingGreedy, table1

CLUSTER10 = CLUSTERS / "lotes_table1_10.toml"


def test_arrival_rate_class_shares_and_requests_follow_table3():
    cluster = table1(10)
    w, info = google_workload(cluster, GoogleTraceSpec(load=0.8, hours=60, seed=4))
    lam = info["lambda_star_per_h"]
    assert info["rate_per_h"] == pytest.approx(0.8 * lam)
    # Poisson count over 60 h: mean 0.8 * 212.65 * 60 = 10,207, sd ~101; 5 sd tolerance
    assert abs(len(w) - 0.8 * lam * 60) < 5 * np.sqrt(0.8 * lam * 60)
    classes = table3_workload().classes
    ks = np.array([class_of(t) for t in w.jobs])
    for k, c in enumerate(classes):
        share = float((ks == k).mean())
        assert share == pytest.approx(c.proportion, abs=5 * np.sqrt(c.proportion * (1 - c.proportion) / len(w)) + 1e-3)
        mine = [t.extra["map_request"] for t in w.jobs if class_of(t) == k]
        if len(mine) > 200:
            assert np.mean([r["vcores"] for r in mine]) == pytest.approx(c.request_mean[0], rel=0.05)
            assert np.mean([r["memory_mb"] for r in mine]) == pytest.approx(c.request_mean[1] * 1024, rel=0.05)
            # exponential durations with the class mean (hours -> s)
            durs = np.array([t.map_durations[0] for t in w.jobs if class_of(t) == k])
            assert durs.mean() == pytest.approx(c.mean_duration * 3600, rel=6 / np.sqrt(len(durs)))
    # requests in Hadoop's units: whole MB, vcores to 1/1000, single-task jobs have one map and no reduce
    for t in w.jobs[:500]:
        r = t.extra["map_request"]
        assert r["memory_mb"] == int(r["memory_mb"]) >= 1 and round(r["vcores"], 3) == r["vcores"] > 0
        assert (t.n_maps, t.n_reduces) == (1, 0)


def test_same_seed_same_jobs_and_mapreduce_shape():
    cluster = table1(10)
    a, _ = google_workload(cluster, GoogleTraceSpec(load=0.7, hours=5, seed=9))
    b, _ = google_workload(cluster, GoogleTraceSpec(load=0.7, hours=5, seed=9))
    assert [(t.submit_s, t.extra["map_request"]) for t in a.jobs] == [(t.submit_s, t.extra["map_request"]) for t in b.jobs]
    mr, info = google_workload(cluster, GoogleTraceSpec(load=0.5, hours=30, seed=9, mapreduce=True))
    assert info["lambda_star_per_h"] == pytest.approx(212.649 / 300, rel=1e-4)  # lambda*_MR = lambda* / 300
    assert all((t.n_maps, t.n_reduces) == (200, 100) for t in mr.jobs)
    assert all("reduce_request" in t.extra for t in mr.jobs)


def test_rumen_round_trip_replays_exactly_the_generated_requests(tmp_path, capsys):
    out = tmp_path / "g.json.gz"
    assert main(["synth", "--lotes-google", "--cluster", str(CLUSTER10), "--load", "0.9", "--hours", "2",
                 "--seed", "5", "--mapreduce", "-o", str(out)]) == 0
    assert "lambda* = 0.7088 jobs/h" in capsys.readouterr().out
    with gzip.open(out, "rt") as fh:
        first = json.loads(fh.readline())
    props = first["jobProperties"]
    assert first["jobMapMB"] == int(props["mapreduce.map.memory.mb"])
    assert set(props) == {"mapreduce.map.memory.mb", "mapreduce.map.cpu.vcores",
                          "mapreduce.reduce.memory.mb", "mapreduce.reduce.cpu.vcores"}
    generated, _ = google_workload(table1(10), GoogleTraceSpec(load=0.9, hours=2, seed=5, mapreduce=True))
    profiled = load_workload(out)
    assert len(profiled) == len(generated) >= 1
    assert all("map_request" not in t.extra for t in profiled.jobs)  # only what real traces carry survives
    sched = RecordingGreedy()
    r = replay(profiled, table1(10), HadoopConf(slowstart_completed_maps=1.0), sched,
               ReplayOptions(check_invariants=False, seed=1))
    assert len(r.tasks) == profiled.n_tasks
    for t in generated.jobs:
        m, rd = t.extra["map_request"], t.extra["reduce_request"]
        assert sched.seen[t.job_id] == ((m["memory_mb"], m["vcores"]), (rd["memory_mb"], rd["vcores"]))
    assert sched.describe()["class_source"] == "table3"  # the class label survived in the job name


def test_cli_errors_are_input_errors(tmp_path, capsys):
    assert main(["synth", "--lotes-google", "-o", str(tmp_path / "x.json")]) == 2
    assert "--lotes-google needs --cluster" in capsys.readouterr().err
    assert main(["synth", "--mapreduce", "-o", str(tmp_path / "x.json")]) == 2
    assert main(["synth", "--lotes-google", "--cluster", str(CLUSTER10), "--hours", "0", "-o",
                 str(tmp_path / "x.json")]) == 2
    slot = tmp_path / "slots.toml"
    slot.write_text("[defaults]\nmap_slots = 2\n[[racks]]\nname = \"/r\"\ncount = 2\n")
    assert main(["synth", "--lotes-google", "--cluster", str(slot), "-o", str(tmp_path / "x.json")]) == 1  # the file is not a resource-vector cluster
    assert "resource-vector cluster" in capsys.readouterr().err


def test_default_synth_trace_is_unchanged(tmp_path):
    # The bundled default trace is made by `mrsim synth --jobs 50 --seed 42`; the new flags must not change it.
    from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload

    out = tmp_path / "d.json.gz"
    assert main(["synth", "--jobs", "50", "--seed", "42", "-o", str(out)]) == 0
    again = load_workload(out)
    ref = facebook_like_workload(FacebookLikeSpec(jobs=50, seed=42))
    assert [t.n_maps for t in again.jobs] == [t.n_maps for t in ref.jobs]
