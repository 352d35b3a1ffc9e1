"""Job spec files (JSON and TOML) and their one-line errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from mrsim.errors import InputError
from mrsim.studies.geo.spec import load_spec, parse_spec

EXAMPLE = Path(__file__).parent / "data" / "paper_example.toml"


def test_toml_example_loads() -> None:
    w = load_spec(EXAMPLE)
    assert w.federation.names == ("dc1", "dc2", "dc3")
    assert w.federation.slots == (1, 1, 1)
    assert [j.job_id for j in w.jobs] == ["A", "B", "C"]
    assert [[j.tasks_in(d) for d in range(3)] for j in w.jobs] == [[1, 10, 1], [3, 8, 0], [7, 0, 6]]


def test_json_equivalent_and_gzip(tmp_path: Path) -> None:
    doc = {
        "datacenters": {"x": 2, "y": 1},
        "jobs": [
            {"id": "late", "arrival_s": 5, "tasks": {"x": 2}, "task_duration_s": 3.0},
            {"id": "early", "arrival_s": 1, "durations_s": {"y": [0.5, 1.5]}, "tasks": {"x": 0}},
        ],
    }
    p = tmp_path / "spec.json.gz"
    p.write_bytes(gzip.compress(orjson.dumps(doc)))
    w = load_spec(p)
    assert [j.job_id for j in w.jobs] == ["early", "late"]  # arrival order
    assert w.jobs[0].dcs == (1,) and w.jobs[0].durations[0].tolist() == [0.5, 1.5]
    assert w.jobs[1].durations[0].tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"jobs": []}, "'datacenters' must map"),
        ({"datacenters": {"a": 0}, "jobs": [{"id": "j", "tasks": {"a": 1}}]}, "datacenter a: slots must be a positive"),
        ({"datacenters": {"a": 1}, "jobs": []}, "'jobs' must be a non-empty list"),
        ({"datacenters": {"a": 1}, "jobs": [{"tasks": {"a": 1}}]}, "job #1: missing 'id'"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "tasks": {"b": 1}}]}, "job j: unknown datacenter 'b'"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "tasks": {"a": -1}}]}, "job j: task count for a"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "tasks": {"a": 0}}]}, "job j: has no tasks"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "tasks": {"a": 1}, "arrival_s": -2}]}, "job j: arrival_s"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "taks": {"a": 1}}]}, "job j: unknown key\\(s\\) taks"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "tasks": {"a": 1}, "durations_s": {"a": [1]}}]},
         "given in both"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "tasks": {"a": 1}}, {"id": "j", "tasks": {"a": 1}}]},
         "duplicate job id 'j'"),
        ({"datacenters": {"a": 1}, "jobs": [{"id": "j", "durations_s": {"a": [1, "x"]}}]}, "non-negative number"),
        ({"datacentres": {"a": 1}, "jobs": []}, "unknown key\\(s\\) datacentres"),
    ],
)
def test_spec_errors_name_the_place(doc: dict, message: str) -> None:
    with pytest.raises(InputError, match=message) as exc:
        parse_spec(doc, "f.json")
    assert str(exc.value).startswith("f.json")
    assert "\n" not in str(exc.value)


def test_malformed_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[datacenters\n")
    with pytest.raises(InputError, match="not a valid TOML"):
        load_spec(bad)
    badj = tmp_path / "bad.json"
    badj.write_text("{")
    with pytest.raises(InputError, match="not a valid JSON"):
        load_spec(badj)
    with pytest.raises(InputError, match="no such file"):
        load_spec(tmp_path / "missing.json")
