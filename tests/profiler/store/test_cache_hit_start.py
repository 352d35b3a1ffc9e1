"""What a trace-cache hit does without: pyarrow (the job table's JSON copy), the YARN engine, importlib.metadata,
the validation run and report modules, the observations and background inputs a replay does not read.

Oracles: the Parquet job table of the same entry (the JSON copy must load to equal templates, observations and
hosts), the eager load (the deferred fields equal what a full read gives), a child process's ``sys.modules`` after a
hit, and the ``--json`` output of a miss (a damaged JSON copy is found and the entry rebuilt). No timing here:
``benchmarks/bench_ingest.py`` measures the speed.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from mrsim.profiler import ingest as ingest_mod
from mrsim.profiler import cache
from mrsim.profiler import store as store_mod
from mrsim.profiler.rumen_writer import write_rumen_trace
from mrsim.profiler.store import JOB_TABLE_JSON, add_to_store, load_hosts, load_observations, load_store
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job
from tests.profiler.store.helpers import full_template, run_cli, same_template

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.empty_trace_cache

#: Modules a replay under FIFO on the MR1 engine, read from the trace cache, must not import.
NOT_ON_A_HIT = ("pyarrow", "pandas", "scipy", "matplotlib", "fastavro", "importlib.metadata", "mrsim.tracker.yarn",
                "mrsim.tracker.yarn.engine", "mrsim.analysis.validation.run", "mrsim.analysis.validation.report")


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "t.json.gz"
    workload = facebook_like_workload(FacebookLikeSpec(jobs=9, seed=4))
    write_rumen_trace((template_to_logged_job(t) for t in workload), path)
    return path


def _entry_store(trace: Path) -> Path:
    ingest_mod.forget()
    single = ingest_mod.ingest(trace)
    assert single.cache.status == "miss"
    return Path(str(single.cache.entry)) / "store"


def test_a_hit_imports_neither_pyarrow_nor_the_yarn_engine_nor_importlib_metadata(trace: Path, tmp_path: Path) -> None:
    code = ("import sys; from mrsim.cli import main; "
            f"rc = main(['replay', {str(trace)!r}, '--nodes', '4', '--json', '--quiet']); "
            f"print('MODULES', sorted(m for m in {NOT_ON_A_HIT!r} if m in sys.modules)); "
            "from mrsim.profiler import ingest; "
            "print('DEFERRED', all('_build_deferred' in s.__dict__ for s in ingest._memo.values()))")
    env = {"MRSIM_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                           check=False) for _ in range(2)]
    for done in runs:
        assert done.returncode == 0, done.stderr
    miss, hit = runs
    assert "trace cache: miss" in miss.stderr or "MODULES" in miss.stdout
    assert "MODULES []" in hit.stdout, hit.stdout[-400:]
    assert "DEFERRED True" in hit.stdout, "the replay built the observations or the background inputs"
    assert orjson.loads(hit.stdout.splitlines()[0])["spec"]["trace_cache"]["status"] == "hit"


def test_the_json_job_table_loads_as_the_parquet_one(trace: Path) -> None:
    entry = _entry_store(trace)
    data = next(entry.glob("data-*"))
    assert (data / JOB_TABLE_JSON).is_file()
    assert JOB_TABLE_JSON in orjson.loads((entry / "manifest.json").read_bytes())["checksums"]
    contents = store_mod.load_store_contents(entry)
    parquet = load_store(entry)  # the Parquet files: load_store never reads the JSON copy
    assert [t.job_id for t in contents.workload.jobs] == [t.job_id for t in parquet.jobs]
    for a, b in zip(contents.workload.jobs, parquet.jobs):
        same_template(a, b)
        assert a.extra == b.extra and a.demand_resources == b.demand_resources
    assert contents.observations() == load_observations(entry)
    assert contents.hosts == load_hosts(entry)
    assert contents.hosts  # the synthetic trace names its host


def test_deferred_fields_equal_an_eager_read(trace: Path) -> None:
    fresh = ingest_mod._read(trace, ingest_mod._format(trace, None))
    entry = _entry_store(trace).parent
    hit = ingest_mod._load_entry(entry, trace, cache.read_meta(entry))
    assert "_build_deferred" in hit.__dict__
    assert hit.observations == fresh.observations  # the first read builds every deferred field
    assert "_build_deferred" not in hit.__dict__
    assert hit.background_waits == fresh.background_waits
    assert hit.background_reduce_waits == fresh.background_reduce_waits
    for name in ("background_times", "background_deltas", "background_reduce_times", "background_reduce_deltas"):
        got, want = getattr(hit, name), getattr(fresh, name)
        assert got.dtype == want.dtype and got.tolist() == want.tolist(), name
    with pytest.raises(AttributeError):
        hit.no_such_field  # noqa: B018 - only the deferred fields are built on demand


def test_a_damaged_json_job_table_is_found_and_the_entry_rebuilt(trace: Path, capsys) -> None:
    args = ["replay", trace, "--nodes", "4", "--json"]
    ingest_mod.forget()
    code, clean_out, _ = run_cli(args, capsys)
    assert code == 0
    clean = orjson.loads(clean_out)
    table = next((Path(clean["spec"]["trace_cache"]["entry"]) / "store").glob(f"data-*/{JOB_TABLE_JSON}"))
    raw = table.read_bytes()
    table.write_bytes(raw.replace(b'"submit_s":[', b'"submit_s":[1e9,', 1)[: len(raw)])  # a changed value
    ingest_mod.forget()
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert "trace cache: entry" in err and "checksum mismatch" in err and JOB_TABLE_JSON in err
    rebuilt = orjson.loads(out)
    assert rebuilt["spec"]["trace_cache"]["status"] == "miss"
    for doc in (clean, rebuilt):
        doc["spec"].pop("trace_cache")
        for key in ("wall_s", "events_per_s"):
            doc["summary"].pop(key, None)
    assert rebuilt == clean


@pytest.mark.parametrize("change", ["infinite deadline", "infinite observation"])
def test_values_json_cannot_hold_exactly_keep_the_parquet_table(tmp_path: Path, change: str) -> None:
    """JSON writes an infinity as null (read back as None): such a table gets no JSON copy, and loads from Parquet."""
    jobs = list(facebook_like_workload(FacebookLikeSpec(jobs=3, seed=2)).jobs)
    observations = {t.job_id: {"tail_s": 1.5} for t in jobs}
    if change == "infinite deadline":
        jobs[0] = jobs[0].with_changes(deadline_s=math.inf)
    else:
        observations[jobs[0].job_id]["tail_s"] = math.inf
    store = tmp_path / "s"
    add_to_store(store, jobs, observations=observations, job_table_json=True)
    assert not list(store.glob(f"data-*/{JOB_TABLE_JSON}")), "JSON would not give these values back"
    contents = store_mod.load_store_contents(store)
    same_template(contents.workload.jobs[0], jobs[0])
    assert contents.observations() == load_observations(store)
    assert contents.observations()[jobs[0].job_id]["tail_s"] == observations[jobs[0].job_id]["tail_s"]


def test_a_store_without_the_json_copy_loads_the_same(tmp_path: Path) -> None:
    """Every field, observations with unknowns, hosts with and without one-slot peaks: the JSON copy gives what
    the Parquet files give. Entries written before the copy (and stores made by ``mrsim profile``) read Parquet."""
    jobs = [full_template("job_1", 5.0, seed=1), full_template("job_2", 7.5, n_reduces=0, seed=2)]
    jobs.append(jobs[0].with_changes(job_id="job_3", deadline_s=None, actual_completion_s=None, map_demands=None,
                                     reduce_demands=None, demand_resources=(), map_locations=None, extra={}))
    observations = {"job_1": {"peak_maps": 3.0, "tail_s": None}, "job_3": {"peak_maps": 1.0, "tail_s": 2.5}}
    hosts = [{"rack": "/r1", "host": "h1", "map_slots": 2, "reduce_slots": 1, "attempts": 9, "map_tasks": 3},
             {"rack": "/r2", "host": "h2", "map_slots": 1, "reduce_slots": 0, "attempts": 1}]
    with_json, without = tmp_path / "a", tmp_path / "b"
    add_to_store(with_json, jobs, observations=observations, hosts=hosts, job_table_json=True)
    add_to_store(without, jobs, observations=observations, hosts=hosts)
    assert list(with_json.glob(f"data-*/{JOB_TABLE_JSON}")) and not list(without.glob(f"data-*/{JOB_TABLE_JSON}"))
    a, b = store_mod.load_store_contents(with_json), store_mod.load_store_contents(without)
    for x, y in zip(a.workload.jobs, b.workload.jobs, strict=True):
        same_template(x, y)
    assert sorted(t.job_id for t in a.workload.jobs) == ["job_1", "job_2", "job_3"]
    assert a.workload.jobs[0].map_locations == jobs[0].map_locations and a.workload.jobs[0].extra == jobs[0].extra
    assert a.observations() == b.observations() == load_observations(without)
    assert a.hosts == b.hosts == load_hosts(without)
    assert a.hosts[0]["map_tasks"] == 3 and "map_tasks" not in a.hosts[1]
