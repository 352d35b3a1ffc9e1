"""Fuzz suite: damaged real traces and config files end as a clean error, a warning or a valid result.

Quick profile (the default, for CI): a few dozen inputs per source, well under a minute in all. Long profile:
``MRSIM_FUZZ_EXAMPLES=720 python -m pytest tests/hostile/test_fuzz.py`` (8 sources x 720 = 5,760 inputs), or
``scripts/fuzz_long.sh``; ``MRSIM_FUZZ_REPORT=FILE`` appends the outcome counts as JSON lines. The last long
result is recorded in docs/reliability.md. Data-based sources skip when the shared data is absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.cases import REPO, shared_data
from tests.hostile.fuzz import TALLY, check_input, dump_json, json_mutation, read_text, text_mutation

DATA = shared_data()
EXAMPLES = int(os.environ.get("MRSIM_FUZZ_EXAMPLES", "25"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=EXAMPLES <= 25,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
needs_data = pytest.mark.skipif(DATA is None, reason="shared data absent")

RUMEN_SOURCES = ["gridmix/data/wordcount.json", "rumen/small-trace-test/truncated-trace-output"]
TEXT_SOURCES = ["rumen/small-trace-test/v20-single-input-log.gz", "sls/test-resources/inputsls.json",
                "jhist/mapreduce-client-hs/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-"
                "SUCCEEDED-default.jhist"]

CLUSTER_TOML = """[defaults]
map_slots = 2
reduce_slots = 1
cores = 4
speed = 1.0

[[racks]]
name = "/r1"
count = 3

[[nodes]]
name = "fast1"
rack = "/r2"
map_slots = 4
speed = 2.0
"""


def _record(source: str, outcome: str) -> None:
    TALLY[f"{source}:{outcome}"] += 1


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    target = os.environ.get("MRSIM_FUZZ_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"examples_per_source": EXAMPLES, "outcomes": dict(sorted(TALLY.items()))}) + "\n")


def _first_object(text: str):
    obj, _ = json.JSONDecoder().raw_decode(text.lstrip())
    return obj


@needs_data
@pytest.mark.parametrize("rel", RUMEN_SOURCES)
def test_mutated_rumen_trace(rel: str, tmp_path: Path) -> None:
    doc = _first_object(read_text(DATA / rel))

    @SETTINGS
    @given(mutated=json_mutation(doc))
    def check(mutated) -> None:
        value, kind = mutated
        path = tmp_path / "trace.json"
        path.write_text(dump_json(value))
        _record(f"rumen:{kind}", check_input(path))

    check()


@needs_data
@pytest.mark.parametrize("rel", TEXT_SOURCES, ids=["jobhistory", "sls", "jhist"])
def test_mutated_log(rel: str, tmp_path: Path) -> None:
    text = read_text(DATA / rel)
    name = Path(rel).name.removesuffix(".gz")

    @SETTINGS
    @given(mutated=text_mutation(text))
    def check(mutated) -> None:
        value, kind = mutated
        path = tmp_path / name
        path.write_text(value)
        _record(f"{name}:{kind}", check_input(path))

    check()


@needs_data
def test_mutated_swim_file(tmp_path: Path) -> None:
    lines = read_text(DATA / "swim/FB-2009_samples_24_times_1hr_0.tsv").splitlines(keepends=True)[:40]

    @SETTINGS
    @given(mutated=text_mutation("".join(lines)))
    def check(mutated) -> None:
        value, kind = mutated
        path = tmp_path / "fb.tsv"
        path.write_text(value)
        _record(f"swim:{kind}", check_input(path))

    check()


def test_mutated_cluster_file(tmp_path: Path) -> None:
    trace = REPO / "rumen_traces" / "default.json.gz"
    small = tmp_path / "small.toml"
    small.write_text('[[job]]\nid = "a"\nsubmit = 0.0\nmaps = 4\nreduces = 1\nmap_duration = 5.0\n'
                     'reduce_duration = 3.0\n')
    assert trace.exists()

    @SETTINGS
    @given(mutated=text_mutation(CLUSTER_TOML))
    def check(mutated) -> None:
        value, kind = mutated
        path = tmp_path / "cluster.toml"
        path.write_text(value)
        _record(f"cluster:{kind}", check_input(small, cluster=path))

    check()


def test_mutated_job_spec(tmp_path: Path) -> None:
    text = (REPO / "examples/jobspecs/ingest_oversubscribed.toml").read_text()

    @SETTINGS
    @given(mutated=text_mutation(text), extra=st.booleans())
    def check(mutated, extra: bool) -> None:
        value, kind = mutated
        path = tmp_path / "spec.toml"
        path.write_text(value)
        _record(f"jobspec:{kind}", check_input(path))

    check()
