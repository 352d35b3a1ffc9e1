"""Job spec files: the examples load, replay as documented, and bad specs are one-line input errors."""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.profiler.jobspec import is_jobspec, load_jobspec
from mrsim.model.templates import Priority
from tests.tracker.features.tdam.helpers import EXAMPLES, SHARED_DATA, cluster, finish, node, run

SPECS = sorted(p for p in EXAMPLES.glob("*.toml") if is_jobspec(p))


def test_every_example_spec_loads_and_replays_under_tdam():
    assert {p.name for p in SPECS} >= {"table_5_1.toml", "ten_cpu_tasks_one_core.toml", "ingest_oversubscribed.toml"}
    for path in SPECS:
        w = load_jobspec(path)
        r = run(w, cluster(node(10, cores=4, reduce_slots=2), node(10, cores=4, reduce_slots=2, name="n2")))
        assert r.summary["jobs"] == len(w) and not any("no service demands" in x for x in r.warnings)


def test_spec_fields_become_template_fields():
    w = load_jobspec(EXAMPLES / "ingest_oversubscribed.toml")
    ingest, report = w.jobs
    assert (ingest.job_id, ingest.user, ingest.n_maps, ingest.n_reduces) == ("ingest", "etl", 30, 0)
    assert ingest.map_demands[0].tolist() == [98.0, 25.0, 0.0] and ingest.map_durations[0] == 123.0
    assert report.priority is Priority.HIGH and report.deadline_s == 900.0 and report.submit_s == 60.0
    assert report.reduce_demands.tolist() == [[20.0, 10.0, 0.0]] and report.name == "report"


def test_duration_only_spec_has_no_demands(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[[job]]\nid = "a"\nsubmit = 5\nmaps = 2\nreduces = 1\nmap_duration = 10\nreduce_duration = 4\n')
    (t,) = load_jobspec(path).jobs
    assert t.map_demands is None and t.reduce_demands is None and t.map_durations.tolist() == [10.0, 10.0]
    r = run(load_jobspec(path), cluster(node(2, cores=2)))
    assert any("no service demands" in x for x in r.warnings)
    assert finish(r, "a") > 10.0


def test_is_jobspec_by_content(tmp_path):
    assert is_jobspec(EXAMPLES / "table_5_1.toml")
    assert not is_jobspec(EXAMPLES / "demand_table.toml")
    assert not is_jobspec(tmp_path)
    assert not is_jobspec(tmp_path / "missing.toml")
    trace = SHARED_DATA / "gridmix" / "data" / "wordcount.json"
    if trace.exists():
        assert not is_jobspec(trace)


@pytest.mark.parametrize("body,match", [
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\n', r"job\[0\] \(id a\): missing key\(s\) reduces"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\n', "need map_duration or map_demand"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\nmap_duration = 1\ncolour = "red"\n', "unknown key"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 0\nreduces = 0\n', "at least one map or reduce"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = -1\nreduces = 0\n', "non-negative integer"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\nmap_duration = -3\n', "non-negative"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\nmap_demand = { cpu = 1, gpu = 1 }\n', "unknown resource"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\nmap_duration = 1\npriority = "URGENT"\n', "priority"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\nmap_duration = 1\ndeadline = 0\n', "deadline"),
    ('[[job]]\nid = "a"\nsubmit = 0\nmaps = 1\nreduces = 0\nmap_duration = 1\n' * 2, "used twice"),
    ('title = "x"\n[[job]]\nid = "a"\n', "unknown top-level key"),
    ('[[job]\nid = "a"\n', "invalid TOML"),
])
def test_bad_specs_name_the_file_and_job(tmp_path, body, match):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(InputError, match=match) as info:
        load_jobspec(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
