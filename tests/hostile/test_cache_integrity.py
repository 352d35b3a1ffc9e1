"""The trace cache and trace stores under tampering: every file checksummed (the metadata included), an entry tied
to the input it was built from, nothing followed through a symlink, nothing outside deleted.

Oracles: the exact refusal for every single-byte change of ``entry.json`` and of a store's ``manifest.json``; the
``--json`` output of a replay after a tampered entry, byte for byte that of a fresh read (wall-clock fields aside);
the files outside the cache, byte for byte unchanged.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from mrsim.profiler import ingest as ingest_mod
from mrsim.profiler.ingest import ingest
from mrsim.errors import InputError
from mrsim.io import confined
from mrsim.io.sealed_json import SealError, seal, unseal
from mrsim.profiler import cache
from mrsim.profiler.rumen_writer import write_rumen_trace
from mrsim.profiler.store import _parse_manifest, add_to_store, load_store, read_manifest
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job
from tests.profiler.store.helpers import assert_one_line_error, full_template, run_cli

pytestmark = pytest.mark.empty_trace_cache


def _trace(path: Path, seed: int) -> Path:
    write_rumen_trace((template_to_logged_job(t) for t in facebook_like_workload(FacebookLikeSpec(jobs=6, seed=seed))),
                      path)
    return path


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return _trace(tmp_path / "t.json.gz", 5)


def _replay(trace: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    ingest_mod.forget()  # a new process each time, as on the command line
    code, out, err = run_cli(["replay", trace, "--json"], capsys)
    assert code == 0, err
    doc = orjson.loads(out)
    for key in ("wall_s", "events_per_s"):
        doc["summary"].pop(key)
    return doc, err


def _entry(trace: Path) -> Path:
    ingest_mod.forget()
    use = ingest(trace).cache
    assert use.status in ("miss", "hit"), use
    return Path(use.entry)


def _flips(data: bytes) -> list[bytes]:
    """Every single-byte change of ``data``: each byte's bits inverted."""
    return [data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:] for i in range(len(data))]


# ---------------------------------------------------------------------------------------------- checksums


def test_sealed_json_refuses_every_single_byte_change() -> None:
    for indent in (False, True):
        data = seal({"jobs": 1148, "data": "data-000001-ab", "sources": [{"at": "x"}]}, indent=indent)
        assert unseal(data) == {"jobs": 1148, "data": "data-000001-ab", "sources": [{"at": "x"}]}
        for changed in _flips(data):
            with pytest.raises((SealError, orjson.JSONDecodeError)):
                unseal(changed)
        # A changed digit that keeps the JSON valid (1148 -> 1149) is a checksum mismatch.
        with pytest.raises(SealError, match="checksum mismatch"):
            unseal(data.replace(b"1148", b"1149"))


def test_every_byte_of_entry_json_and_of_the_entry_manifest_is_checked(trace: Path) -> None:
    entry = _entry(trace)
    key = entry.name
    identity = cache.input_identity(cache.content_digest(trace), trace.stat().st_size)
    assert cache.verify_entry(entry, key, identity)["input"] == identity
    for name in ("entry.json", "store/manifest.json"):
        path = entry / name
        original = path.read_bytes()
        accepted = []
        fd = os.open(path, os.O_RDWR)  # each byte changed in place, then put back (no truncation: fast)
        try:
            for i, byte in enumerate(original):
                os.pwrite(fd, bytes([byte ^ 0xFF]), i)
                try:
                    cache.verify_entry(entry, key, identity)
                except (ValueError, OSError):
                    pass
                else:
                    accepted.append(i)
                os.pwrite(fd, bytes([byte]), i)
        finally:
            os.close(fd)
        assert accepted == [], name
        assert path.read_bytes() == original
    cache.verify_entry(entry, key, identity)


@pytest.mark.parametrize("name, old, new", [
    ("entry.json", b'"jobs_read":6', b'"jobs_read":7'),
    ("store/manifest.json", b'"jobs": 6', b'"jobs": 7'),
])
def test_a_changed_digit_is_warned_ignored_and_rebuilt(trace: Path, capsys: pytest.CaptureFixture[str],
                                                       name: str, old: bytes, new: bytes) -> None:
    fresh, _ = _replay(trace, capsys)
    entry = Path(fresh["spec"]["trace_cache"]["entry"])
    path = entry / name
    data = path.read_bytes()
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))
    again, err = _replay(trace, capsys)
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "unreadable" in warnings[0] and "rebuilt from the input" in warnings[0], err
    assert again["spec"]["trace_cache"]["status"] == "miss"
    assert orjson.dumps({**again, "spec": {**again["spec"], "trace_cache": None}}) == \
        orjson.dumps({**fresh, "spec": {**fresh["spec"], "trace_cache": None}})
    third, err = _replay(trace, capsys)
    assert third["spec"]["trace_cache"]["status"] == "hit" and "warning" not in err


def test_a_stray_or_missing_file_in_an_entry_makes_it_invalid(trace: Path) -> None:
    entry = _entry(trace)
    key = entry.name
    identity = cache.input_identity(cache.content_digest(trace), trace.stat().st_size)
    manifest = read_manifest(entry / "store")
    cache.check_files(entry, manifest["data"], manifest["checksums"])
    (entry / "store" / manifest["data"] / "extra.npy").write_bytes(b"x")
    with pytest.raises(ValueError, match="extra.npy"):
        cache.check_files(entry, manifest["data"], manifest["checksums"])
    ingest_mod.forget()
    got = ingest(trace)
    assert got.cache.status == "miss" and any("extra.npy" in n for n in got.cache.notes)
    assert cache.verify_entry(cache.find(key), key, identity)


def test_a_user_store_with_a_changed_manifest_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    add_to_store(store, [full_template("job_1", 1.0), full_template("job_2", 2.0)])
    assert len(load_store(store).jobs) == 2
    path = store / "manifest.json"
    original = path.read_bytes()
    accepted = []
    for i, changed in enumerate(_flips(original)):
        try:
            _parse_manifest(store, changed)
        except InputError:
            continue
        accepted.append(i)
    assert accepted == []
    path.write_bytes(original.replace(b'"jobs": 2', b'"jobs": 3'))
    code, out, err = run_cli(["replay", store], capsys)
    assert_one_line_error(code, out, err, "manifest.json: corrupt store manifest (checksum mismatch")


def test_an_older_store_without_a_manifest_checksum_loads_with_a_warning(tmp_path: Path) -> None:
    store = tmp_path / "s"
    add_to_store(store, [full_template("job_1", 1.0)])
    manifest = unseal((store / "manifest.json").read_bytes())
    manifest["format_version"] = 2
    (store / "manifest.json").write_bytes(orjson.dumps(manifest))
    loaded = load_store(store)
    assert [w for w in loaded.warnings if "no checksum of its own" in w and "format version 2" in w]
    # A version-3 manifest must carry it: dropping the member is an error, not a downgrade.
    manifest["format_version"] = 3
    (store / "manifest.json").write_bytes(orjson.dumps(manifest))
    with pytest.raises(InputError, match="no self_sha256"):
        load_store(store)


# ------------------------------------------------------------------------------------------ the input's identity


def test_an_intact_entry_of_another_trace_under_this_key_is_refused(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    mine, other = _trace(tmp_path / "a.json.gz", 5), _trace(tmp_path / "b.json.gz", 6)
    fresh, _ = _replay(mine, capsys)
    mine_entry = Path(fresh["spec"]["trace_cache"]["entry"])
    other_entry = _entry(other)
    shutil.rmtree(mine_entry)
    shutil.copytree(other_entry, mine_entry)  # intact, every checksum right: but built from b.json.gz
    identity = cache.input_identity(cache.content_digest(mine), mine.stat().st_size)
    with pytest.raises(ValueError, match="names key"):
        cache.verify_entry(mine_entry, mine_entry.name, identity)
    again, err = _replay(mine, capsys)
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "names key" in warnings[0] and "rebuilt from the input" in warnings[0], err
    assert again["jobs"] == fresh["jobs"] and again["summary"] == fresh["summary"]


def test_the_recorded_input_and_version_are_checked_before_the_store_is_read(trace: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    entry = _entry(trace)
    meta = cache.read_meta(entry)
    identity = meta["input"]
    (entry / "entry.json").write_bytes(seal({**meta, "input": {**identity, "bytes": identity["bytes"] + 1}}))
    read = []
    monkeypatch.setattr(confined, "read_file", lambda p, _real=confined.read_file: (read.append(p.name), _real(p))[1])
    with pytest.raises(ValueError, match="built from another input"):
        cache.verify_entry(entry, entry.name, identity)
    assert read == ["entry.json"]  # nothing of the store was read
    (entry / "entry.json").write_bytes(seal({**meta, "mrsim": "0.0.1"}))
    with pytest.raises(ValueError, match="written by mrsim '0.0.1'"):
        cache.verify_entry(entry, entry.name, identity)


# -------------------------------------------------------------------------------------- symlinks, hard links


def test_nothing_in_the_cache_is_followed_through_a_symlink(trace: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    fresh, _ = _replay(trace, capsys)
    entry = Path(fresh["spec"]["trace_cache"]["entry"])
    outside = tmp_path / "outside"
    shutil.copytree(entry, outside)  # a valid entry, but outside the cache
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    for make_link in (
        lambda: (shutil.rmtree(entry), os.symlink(outside, entry)),
        lambda: (os.unlink(entry / "entry.json"), os.symlink(outside / "entry.json", entry / "entry.json")),
        lambda: (shutil.rmtree(entry / "store"), os.symlink(outside / "store", entry / "store")),
    ):
        make_link()
        again, err = _replay(trace, capsys)
        warnings = [line for line in err.splitlines() if "warning" in line]
        assert len(warnings) == 1 and "symlink" in warnings[0] and "rebuilt" in warnings[0], err
        assert again["summary"] == fresh["summary"]
        assert {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before  # untouched
        assert not entry.is_symlink() and (entry / "entry.json").is_file()


def test_removing_an_entry_never_deletes_through_a_symlink_or_a_hard_link(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("mine")
    linked = tmp_path / "linked.txt"
    linked.write_text("also mine")
    victim = tmp_path / "entry"
    (victim / "sub").mkdir(parents=True)
    os.symlink(precious, victim / "sub" / "dir-link")
    os.symlink(precious / "keep.txt", victim / "file-link")
    os.link(linked, victim / "hard.txt")
    (victim / "own.txt").write_text("x")
    kept = confined.remove_tree(victim)
    assert kept == [victim / "hard.txt"] and sorted(p.name for p in victim.rglob("*")) == ["hard.txt"]
    assert (precious / "keep.txt").read_text() == "mine" and linked.read_text() == "also mine"
    os.symlink(precious, tmp_path / "top-link")
    assert confined.remove_tree(tmp_path / "top-link") == [] and (precious / "keep.txt").exists()


def test_a_store_with_a_symlink_inside_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    add_to_store(store, [full_template("job_1", 1.0)])
    data = store / read_manifest(store)["data"]
    target = data / "map_durations.npy"
    moved = tmp_path / "elsewhere.npy"
    shutil.move(target, moved)
    os.symlink(moved, target)
    code, out, err = run_cli(["replay", store], capsys)
    assert_one_line_error(code, out, err, "symlink")
    with pytest.raises(InputError, match="symlink"):
        load_store(store, checksums=False)
    os.unlink(target)
    shutil.move(moved, target)
    lock = store / ".lock"
    lock.unlink()
    os.symlink(tmp_path / "not-the-lock", lock)
    with pytest.raises(InputError, match="lock"):
        add_to_store(store, [full_template("job_2", 2.0)])
    assert not (tmp_path / "not-the-lock").exists()


def test_the_cache_dir_is_private_and_refused_when_others_may_write(tmp_path: Path, trace: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "new-cache"
    monkeypatch.setenv("MRSIM_CACHE_DIR", str(root))
    assert cache.root_problem() is None
    assert (root.stat().st_mode & 0o777) == 0o700
    os.chmod(root, 0o777)
    problem = cache.root_problem()
    assert problem is not None and "writable by others (mode 777)" in problem and "\n" not in problem
    ingest_mod.forget()
    got = ingest(trace)
    assert got.cache.status == "unavailable" and got.cache.notes == [problem]
    assert not (root / "entries").exists()
    if os.geteuid() == 0:
        os.chmod(root, 0o700)
        os.chown(root, 12345, -1)
        assert "owned by uid 12345" in (cache.root_problem() or "")
