"""The one-pass ingest (mrsim.profiler.ingest) and the automatic trace cache (mrsim.profiler.cache).

Oracles: the readers the ingest replaced (kept as ``_load_uncached`` / ``_load_with_hosts_uncached`` and
``Profiler.add``) on every real trace and log, for a fresh pass and for a cache hit; and the CLI's ``--json`` output,
byte for byte apart from ``spec.trace_cache`` and the wall-clock fields, for a miss, a hit, ``--no-cache`` and a
damaged entry.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mrsim.profiler import ingest as ingest_mod
from mrsim.profiler.ingest import cacheable, ingest
from mrsim.profiler.observe import Profiler
from mrsim.calibration.choice import is_yarn_trace
from mrsim.errors import InputError
from mrsim.profiler import cache
from mrsim.profiler.assumptions import _load_with_hosts_uncached
from mrsim.profiler.detect import detect_format
from mrsim.profiler.rumen_writer import write_rumen_trace as _write
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job
from mrsim.profiler.workloads import _load_uncached
from tests.tracker.helpers import SHARED_DATA
from tests.profiler.store.helpers import run_cli, same_template


def _real_inputs() -> list[Path]:
    if not SHARED_DATA.exists():
        return []
    found = []
    for p in sorted(SHARED_DATA.rglob("*")):
        if p.name.startswith(".") or p.name.endswith((".xml", ".txt", ".crc")):
            continue
        if p.is_file() or (p.is_dir() and any(c.is_file() for c in p.iterdir())):
            found.append(p)
    return found


REAL_INPUTS = _real_inputs()
pytestmark = pytest.mark.empty_trace_cache  # these tests count, evict and damage entries


def write_rumen_trace(workload, path: Path) -> None:
    _write((template_to_logged_job(t) for t in workload), path)


def _same_views(got, old_workload, old_loaded, old_profiler: Profiler) -> None:
    workload = got.workload()
    assert workload.source == old_workload.source
    assert list(workload.warnings) == list(old_workload.warnings)
    assert len(workload.jobs) == len(old_workload.jobs)
    for a, b in zip(old_workload.jobs, workload.jobs):
        same_template(a, b)
    assert got.workload_hosts == old_loaded.hosts
    prof = got.profiler()
    assert [t.job_id for t in prof.templates] == [t.job_id for t in old_profiler.templates]
    for a, b in zip(old_profiler.templates, prof.templates):
        same_template(a, b)
    assert prof.observations == old_profiler.observations
    assert prof.hosts() == old_profiler.hosts()
    assert prof.trace_conf.as_counts() == old_profiler.trace_conf.as_counts()
    assert prof.measured_calibration() == old_profiler.measured_calibration()
    assert prof.measured_background(40, 0.64) == old_profiler.measured_background(40, 0.64)
    assert prof.warnings == old_profiler.warnings
    assert [r.as_dict() for r in prof.inputs] == [r.as_dict() for r in old_profiler.inputs]
    assert is_yarn_trace(prof) == is_yarn_trace(old_profiler)


@pytest.mark.parametrize("path", REAL_INPUTS, ids=lambda p: str(p.relative_to(SHARED_DATA)))
def test_one_pass_and_cache_hit_equal_the_readers_they_replace(path: Path) -> None:
    if not cacheable(path, None):
        return
    fmt = detect_format(path)
    try:
        old_workload = _load_uncached(path, fmt)
        old_loaded = _load_with_hosts_uncached(path, fmt)
        old_profiler = Profiler()
        old_profiler.add(path)
    except InputError as exc:
        with pytest.raises(InputError) as got:
            ingest(path).workload()
        assert str(got.value) == str(exc)
        return
    first = ingest(path)
    assert first.cache.status == "miss"
    _same_views(first, old_workload, old_loaded, old_profiler)
    ingest_mod.forget()
    again = ingest(path)
    assert again.cache.status == "hit", again.cache
    _same_views(again, old_workload, old_loaded, old_profiler)


@pytest.fixture
def synthetic_trace(tmp_path: Path) -> Path:
    path = tmp_path / "t.json.gz"
    write_rumen_trace(facebook_like_workload(FacebookLikeSpec(jobs=12, seed=5)), path)
    return path


def _json_run(args, capsys) -> tuple[dict, str]:
    ingest_mod.forget()  # a new process each time, as on the command line
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    doc = orjson.loads(out)
    return doc, err


def _without_cache_and_clock(doc: dict) -> bytes:
    doc = dict(doc)
    spec = dict(doc["spec"])
    spec.pop("trace_cache")
    summary = {k: v for k, v in doc["summary"].items() if k not in ("wall_s", "events_per_s")}
    return orjson.dumps({**doc, "spec": spec, "summary": summary}, option=orjson.OPT_SORT_KEYS)


def test_replay_twice_hits_the_cache_with_identical_output(synthetic_trace: Path, capsys) -> None:
    args = ["replay", synthetic_trace, "--nodes", "8", "--json"]
    miss, err1 = _json_run(args, capsys)
    hit, err2 = _json_run(args, capsys)
    off, err3 = _json_run([*args, "--no-cache"], capsys)
    assert miss["spec"]["trace_cache"]["status"] == "miss"
    assert hit["spec"]["trace_cache"]["status"] == "hit"
    assert off["spec"]["trace_cache"] == {"status": "off"}
    assert hit["spec"]["trace_cache"]["key"] == miss["spec"]["trace_cache"]["key"]
    assert _without_cache_and_clock(miss) == _without_cache_and_clock(hit) == _without_cache_and_clock(off)
    assert "trace cache: miss" in err1 and "trace cache: hit" in err2 and "trace cache: off" in err3
    entries = list((cache.cache_root() / "entries").iterdir())
    assert len(entries) == 1


def test_no_cache_writes_nothing(synthetic_trace: Path, capsys) -> None:
    _json_run(["replay", synthetic_trace, "--nodes", "8", "--json", "--no-cache"], capsys)
    assert not (cache.cache_root() / "entries").exists()
    doc, _ = _json_run(["replay", synthetic_trace, "--nodes", "8", "--json"], capsys)
    assert doc["spec"]["trace_cache"]["status"] == "miss"  # --no-cache does not outlive its command


def test_validate_and_compare_use_the_cache(capsys) -> None:
    trace = SHARED_DATA / "gridmix-system-branch-1" / "trace_1m.json.gz"
    first, _ = _json_run(["validate", trace, "--json"], capsys)
    second, err = _json_run(["validate", trace, "--json"], capsys)
    assert (first["spec"]["trace_cache"]["status"], second["spec"]["trace_cache"]["status"]) == ("miss", "hit")
    assert "trace cache: hit" in err
    assert _without_cache_and_clock(first) == _without_cache_and_clock(second)
    compared, _ = _json_run(["compare", trace, "--schedulers", "fifo,fair", "--json"], capsys)
    assert "calibration" in orjson.dumps(compared).decode()  # the calibration came from the cached entry


def test_calibrated_replay_from_the_cache_is_identical(capsys) -> None:
    trace = SHARED_DATA / "gridmix-system-branch-1" / "trace_1m.json.gz"
    args = ["replay", trace, "--json", "--background", "trace"]
    miss, _ = _json_run(args, capsys)
    hit, _ = _json_run(args, capsys)
    off, _ = _json_run([*args, "--no-cache"], capsys)
    assert miss["spec"].get("calibration"), "a real trace replays calibrated by default"
    assert hit["spec"]["trace_cache"]["status"] == "hit"
    assert _without_cache_and_clock(miss) == _without_cache_and_clock(hit) == _without_cache_and_clock(off)


def test_a_damaged_entry_is_ignored_with_a_warning_and_rebuilt(synthetic_trace: Path, capsys) -> None:
    args = ["replay", synthetic_trace, "--nodes", "8", "--json"]
    clean, _ = _json_run(args, capsys)
    entry = Path(clean["spec"]["trace_cache"]["entry"])
    data = next((entry / "store").glob("data-*/map_durations.npy"))
    raw = bytearray(data.read_bytes())
    raw[-3] ^= 0xFF  # one flipped bit in a duration: the store's checksum catches it
    data.write_bytes(bytes(raw))
    rebuilt, err = _json_run(args, capsys)
    assert "mrsim: warning: trace cache: entry" in err and "unreadable" in err
    assert rebuilt["spec"]["trace_cache"]["status"] == "miss"
    assert _without_cache_and_clock(rebuilt) == _without_cache_and_clock(clean)
    again, _ = _json_run(args, capsys)
    assert again["spec"]["trace_cache"]["status"] == "hit"


def test_a_damaged_background_file_is_found_once_per_hit_even_with_no_verify(synthetic_trace: Path, capsys) -> None:
    """A hit reads the entry's store once (one checksum pass over every data file): a flipped bit in a file the
    replay does not use is still found, and ``--no-verify`` (about the user's stores) does not turn it off."""
    args = ["replay", synthetic_trace, "--nodes", "8", "--json"]
    clean, _ = _json_run(args, capsys)
    entry = Path(clean["spec"]["trace_cache"]["entry"])
    data = next((entry / "store").glob("data-*/background.usage_s.npy"))
    raw = bytearray(data.read_bytes())
    raw[-2] ^= 0x01
    data.write_bytes(bytes(raw))
    rebuilt, err = _json_run(["--no-verify", *args], capsys)
    assert "mrsim: warning: trace cache: entry" in err and "checksum mismatch" in err
    assert rebuilt["spec"]["trace_cache"]["status"] == "miss"
    assert _without_cache_and_clock(rebuilt) == _without_cache_and_clock(clean)


def test_a_moved_copy_hits_and_is_named_by_its_new_path(synthetic_trace: Path, tmp_path: Path, capsys) -> None:
    _json_run(["replay", synthetic_trace, "--nodes", "8", "--json"], capsys)
    moved = tmp_path / "elsewhere.json.gz"
    moved.write_bytes(synthetic_trace.read_bytes())
    doc, _ = _json_run(["replay", moved, "--nodes", "8", "--json"], capsys)
    assert doc["spec"]["trace_cache"]["status"] == "hit"
    assert doc["spec"]["trace"] == str(moved)


def test_changed_bytes_or_limits_make_another_entry(synthetic_trace: Path, tmp_path: Path, monkeypatch) -> None:
    a = ingest(synthetic_trace)
    other = tmp_path / "other.json.gz"
    write_rumen_trace(facebook_like_workload(FacebookLikeSpec(jobs=13, seed=5)), other)
    b = ingest(other)
    monkeypatch.setenv("MRSIM_MAX_TASKS_PER_JOB", "100000")
    ingest_mod.forget()
    c = ingest(synthetic_trace)
    assert len({a.cache.key, b.cache.key, c.cache.key}) == 3
    assert c.cache.status == "miss"


def test_eviction_keeps_the_cache_under_its_bound_and_says_so(tmp_path: Path, monkeypatch) -> None:
    base = tmp_path / "t.json"
    write_rumen_trace(facebook_like_workload(FacebookLikeSpec(jobs=10, seed=1)), base)
    paths = []
    for n in range(3):  # the same jobs (entries of one size), other bytes (other keys)
        p = tmp_path / f"t{n}.json"
        p.write_bytes(base.read_bytes() + b"\n" * (n + 1))
        paths.append(p)
    first = ingest(paths[0])
    size = sum(f.stat().st_size for f in Path(first.cache.entry).rglob("*") if f.is_file())
    monkeypatch.setenv("MRSIM_CACHE_MAX_BYTES", str(int(size * 2.5)))
    ingest(paths[1])
    third = ingest(paths[2])
    assert third.cache.evicted == 1
    assert any("evicted 1 least recently used entry" in n for n in third.cache.notes)
    assert not Path(first.cache.entry).exists()
    assert len(list((cache.cache_root() / "entries").iterdir())) == 2


def test_a_crashed_write_leaves_no_readable_entry_and_concurrent_writers_agree(synthetic_trace: Path) -> None:
    key = "k" * 40

    def crash(tmp: Path) -> dict:
        (tmp / "half").write_text("x")
        raise OSError(28, "No space left on device")

    entry, notes, _ = cache.publish(key, crash)
    assert entry is None and "could not write" in notes[0]
    assert cache.find(key) is None
    assert not [p for p in cache.cache_root().iterdir() if p.name.startswith(".tmp-")]

    first, _, _ = cache.publish(key, lambda tmp: {"writer": 1})
    second, _, _ = cache.publish(key, lambda tmp: {"writer": 2})  # lost the race: keeps the first
    assert first == second and cache.read_meta(first)["writer"] == 1


def test_stores_job_specs_and_swim_are_not_cached(tmp_path: Path) -> None:
    swim = tmp_path / "w.tsv"
    swim.write_text("job0\t0\t0\t100\t10\t5\njob1\t5\t5\t200\t0\t0\n")
    assert not cacheable(swim, None)
    assert not cacheable(tmp_path / "missing.json", None)


def test_one_command_reads_its_trace_once(synthetic_trace: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    reads: list[str] = []
    real = ingest_mod._read

    def counting(p, format_):  # type: ignore[no-untyped-def]
        reads.append(p.name)
        return real(p, format_)

    monkeypatch.setattr(ingest_mod, "_read", counting)
    other = tmp_path / "other.json.gz"
    write_rumen_trace(facebook_like_workload(FacebookLikeSpec(jobs=5, seed=9)), other)
    doc, _ = _json_run(["replay", synthetic_trace, "--nodes", "8", "--json", "--format", "rumen", "--no-cache",
                        "--calibration-from", other], capsys)
    assert reads == [synthetic_trace.name, other.name]  # the workload, hosts and calibration views from one pass
    assert doc["spec"]["trace_cache"] == {"status": "off"}  # the replayed trace's, not --calibration-from's
