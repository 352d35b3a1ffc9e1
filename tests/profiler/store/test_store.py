"""The trace store: every template field round-trips, updates deduplicate and are atomic, a large store loads
back whole (load speed is measured by benchmarks/bench_store.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import orjson
import pytest

from mrsim.errors import InputError
from mrsim.io.output_errors import OutputError
from mrsim.profiler import store as store_mod
from mrsim.profiler.store import (FORMAT_VERSION, STORED_FIELDS, add_to_store, is_store, load_hosts,
                                load_observations, load_store, read_manifest)
from mrsim.profiler.workloads import load_workload
from mrsim.model.templates import JobTemplate, Outcome, Priority
from tests.profiler.store.helpers import DISPATCH_GOLD, full_template, same_template


def test_store_covers_every_template_field():
    assert STORED_FIELDS == {f.name for f in dataclasses.fields(JobTemplate)}


def test_round_trip_every_field(tmp_path):
    plain = JobTemplate(job_id="job_plain", submit_s=5.0, map_durations=[1.0], reduce_durations=[])
    templates = [full_template("job_b", 10.0, seed=1), full_template("job_a", 3.0, n_maps=5, n_reduces=0, seed=2), plain]
    update = add_to_store(tmp_path / "s", templates, observations={"job_a": {"launch_delay_s": 1.5, "peak_maps": 3}})
    assert (update.added, update.skipped, update.jobs, update.created) == (3, 0, 3, True)
    assert (update.maps, update.reduces) == (3 + 5 + 1, 2)
    for verify in (False, True):
        loaded = load_store(tmp_path / "s", verify=verify)
        assert [t.job_id for t in loaded] == ["job_a", "job_plain", "job_b"]  # Workload order: submit time
        by_id = {t.job_id: t for t in loaded}
        for t in templates:
            same_template(t, by_id[t.job_id])
    got = load_store(tmp_path / "s")
    assert got.source == str(tmp_path / "s")
    a = {t.job_id: t for t in got}["job_a"]
    assert a.priority is Priority.HIGH and a.outcome is Outcome.KILLED and a.map_locations[0] == ()
    assert {t.job_id: t for t in got}["job_plain"].map_locations is None
    obs = load_observations(tmp_path / "s")
    assert obs["job_a"] == {"launch_delay_s": 1.5, "peak_maps": 3.0}
    assert obs["job_b"] == {"launch_delay_s": None, "peak_maps": None}
    assert load_hosts(tmp_path / "s") is None


def test_real_trace_round_trip_equals_load_workload(tmp_path):
    original = load_workload(DISPATCH_GOLD)
    add_to_store(tmp_path / "s", original.jobs)
    loaded = load_store(tmp_path / "s")
    assert len(loaded) == len(original) == 3
    for a, b in zip(original, loaded):
        same_template(a, b)


def test_incremental_add_keeps_existing_jobs_and_reports_skips(tmp_path):
    path = tmp_path / "s"
    first = [full_template("job_1", 1.0, seed=1), full_template("job_2", 2.0, seed=2)]
    add_to_store(path, first, hosts=[{"rack": "r1", "host": "h1", "map_slots": 2, "reduce_slots": 0, "attempts": 4}])
    # job_2 again (different content: must be ignored), job_3 new, job_3 repeated within the batch.
    again = [full_template("job_2", 50.0, seed=9), full_template("job_3", 3.0, seed=3), full_template("job_3", 4.0, seed=4)]
    update = add_to_store(path, again, hosts=[{"rack": "r1", "host": "h1", "map_slots": 1, "reduce_slots": 3, "attempts": 1},
                                              {"rack": "r2", "host": "h2", "map_slots": 1, "reduce_slots": 1, "attempts": 2}])
    assert (update.added, update.skipped, update.jobs, update.created) == (1, 2, 3, False)
    assert update.skipped_ids == ("job_2", "job_3")
    loaded = {t.job_id: t for t in load_store(path)}
    same_template(first[1], loaded["job_2"])  # the existing one was kept
    same_template(again[1], loaded["job_3"])
    assert load_hosts(path) == [
        {"rack": "r1", "host": "h1", "map_slots": 2, "reduce_slots": 3, "attempts": 5},
        {"rack": "r2", "host": "h2", "map_slots": 1, "reduce_slots": 1, "attempts": 2},
    ]
    manifest = read_manifest(path)
    assert manifest["format_version"] == FORMAT_VERSION and manifest["generation"] == 2 and manifest["jobs"] == 3
    # Exactly one data version is left: the old one was removed after the swap.
    assert [c.name for c in path.iterdir() if c.name.startswith("data-")] == [manifest["data"]]
    # Only duplicates: nothing to write, the current version stays.
    nothing = add_to_store(path, first)
    assert (nothing.added, nothing.skipped, nothing.jobs) == (0, 2, 3)
    assert read_manifest(path)["generation"] == 2


def test_failure_mid_write_leaves_the_old_store_intact(tmp_path, monkeypatch):
    path = tmp_path / "s"
    add_to_store(path, [full_template("job_1", 1.0, seed=1)])
    before_manifest = (path / "manifest.json").read_bytes()
    before = list(load_store(path))

    real_save = np.save
    calls = {"n": 0}

    def failing_save(file, arr, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:  # some arrays of the new version are already on disk
            raise OSError("disk full (simulated)")
        return real_save(file, arr, *args, **kwargs)

    monkeypatch.setattr(store_mod.np, "save", failing_save)
    with pytest.raises(OutputError, match="trace store .disk full .simulated."):
        add_to_store(path, [full_template("job_2", 2.0, seed=2)])
    monkeypatch.undo()
    assert (path / "manifest.json").read_bytes() == before_manifest
    assert [c.name for c in path.iterdir() if c.name.startswith("data-")] == [read_manifest(path)["data"]]
    after = list(load_store(path))
    assert len(after) == 1
    same_template(before[0], after[0])
    # The store still accepts the update afterwards.
    assert add_to_store(path, [full_template("job_2", 2.0, seed=2)]).jobs == 2


def test_failure_at_the_swap_leaves_the_old_store_intact(tmp_path, monkeypatch):
    path = tmp_path / "s"
    add_to_store(path, [full_template("job_1", 1.0, seed=1)])
    before_manifest = (path / "manifest.json").read_bytes()

    def failing_replace(src, dst):
        raise OSError("crash at rename (simulated)")

    monkeypatch.setattr("mrsim.io.atomic.os.replace", failing_replace)
    with pytest.raises(OutputError, match=r"s: cannot write the trace store \(crash at rename \(simulated\)\)"):
        add_to_store(path, [full_template("job_2", 2.0, seed=2)])
    monkeypatch.undo()
    assert (path / "manifest.json").read_bytes() == before_manifest
    assert [t.job_id for t in load_store(path)] == ["job_1"]
    assert len([c for c in path.iterdir() if c.name.startswith("data-")]) == 1


def test_is_store_and_refusals(tmp_path):
    assert not is_store(tmp_path)
    assert not is_store(tmp_path / "missing")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty and is not an mrsim trace store"):
        add_to_store(tmp_path / "other", [full_template("job_1", 1.0)])
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        add_to_store(tmp_path / "file", [full_template("job_1", 1.0)])
    add_to_store(tmp_path / "s", [full_template("job_1", 1.0)])
    assert is_store(tmp_path / "s")
    manifest = orjson.loads((tmp_path / "s" / "manifest.json").read_bytes())
    manifest["format_version"] = 99
    (tmp_path / "s" / "manifest.json").write_bytes(orjson.dumps(manifest))
    assert not is_store(tmp_path / "s")
    with pytest.raises(InputError, match="format version 99"):
        load_store(tmp_path / "s")


def test_corrupt_data_is_an_input_error(tmp_path):
    path = tmp_path / "s"
    add_to_store(path, [full_template("job_1", 1.0)])
    data = path / read_manifest(path)["data"]
    np.save(data / "map_durations.npy", np.array([1.0, -2.0, 3.0]))
    with pytest.raises(InputError, match="map_durations.npy: checksum mismatch"):
        load_store(path)
    with pytest.raises(InputError, match="map_durations holds negative"):  # the invariants still hold unverified
        load_store(path, checksums=False)
    (data / "map_durations.npy").unlink()
    with pytest.raises(InputError, match="missing map_durations.npy"):
        load_store(path)


def test_large_synthetic_store_loads_every_task(tmp_path):
    """About 200,000 tasks in 2,000 jobs (no split locations) load back identically (speed: benchmarks/bench_store.py)."""
    rng = np.random.default_rng(7)
    templates = []
    for i in range(2000):
        n_maps, n_reduces = int(rng.integers(1, 160)), int(rng.integers(0, 40))
        templates.append(JobTemplate(
            job_id=f"job_{i:05d}", submit_s=float(i), map_durations=rng.uniform(1, 100, n_maps),
            reduce_durations=rng.uniform(1, 100, n_reduces), typical_shuffle_durations=rng.uniform(0, 9, n_reduces),
            actual_completion_s=float(rng.uniform(10, 900)), extra={"unsuccessful_attempts": 0},
        ))
    add_to_store(tmp_path / "s", templates)
    loaded = load_store(tmp_path / "s")
    assert loaded.n_tasks == sum(t.n_tasks for t in templates)
    for a, b in zip(templates[::97], list(loaded)[::97]):
        same_template(a, b)
