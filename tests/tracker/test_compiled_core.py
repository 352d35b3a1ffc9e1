"""The compiled engine core (mypyc, ``mrsim/compiled_core.py``) gives byte-identical results to the pure sources.

The comparison runs the same ``mrsim replay --json`` command lines in two child processes of the same checkout:
one with the compiled core, one with ``MRSIM_PURE_PYTHON=1``. It covers the bundled default trace under several
schedulers and modes, a small synthetic trace with contention, out-of-band and naive heartbeats, and Hadoop's
Rumen gold traces (real JobTracker logs, calibrated replay) when the shared data is present. Only the wall-clock
fields and ``spec.engine_build`` may differ. It is skipped where no compiled build is present (an install with
``MRSIM_PURE_PYTHON=1``, a failed build, or a run from sources that were never installed).

The other tests check the run-time choice without a compiler: the staleness check on a copy of the sources with
stand-in extension files, and that the pure-source finder wins over an extension beside its source.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from mrsim import compiled_core
from tests.tracker.helpers import REPO, SHARED_DATA

GOLD = SHARED_DATA / "rumen" / "small-trace-test"
DEFAULT_TRACE = REPO / "rumen_traces" / "default.json.gz"

#: The fields that may differ between two runs of the same replay (wall clock) and between the two builds.
VARYING = {"summary": ("wall_s", "events_per_s"), "spec": ("engine_build",)}

_DRIVER = r"""
import io, json, sys
from mrsim import compiled_core
from mrsim.cli import main

report = {"engine_build": compiled_core.engine_build(), "runs": []}
real_stdout = sys.stdout
for argv in json.loads(sys.argv[1]):
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    code = main(argv)
    sys.stdout.flush()
    printed = sys.stdout.buffer.getvalue().decode()
    sys.stdout = real_stdout
    report["runs"].append({"argv": argv, "code": code, "stdout": printed})
print(json.dumps(report))
"""


def _bundled_cases(synthetic: Path) -> list[list[str]]:
    default = str(DEFAULT_TRACE)
    small = str(synthetic)
    return [
        ["replay", default, "--json"],
        ["replay", default, "--json", "--scheduler", "fair", "--nodes", "16"],
        ["replay", default, "--json", "--scheduler", "capacity", "--speculative", "--heartbeat-interval", "off"],
        ["replay", small, "--json", "--contention", "tdam", "--nodes", "8"],
        ["replay", small, "--json", "--scheduler", "fair", "--nodes", "4", "--oob-heartbeat"],
        ["replay", small, "--json", "--naive-heartbeats", "--heartbeat-interval", "30", "--nodes", "6",
         "--racks", "2", "--locality", "on"],
    ]


def _gold_cases() -> list[list[str]]:
    """Hadoop's own Rumen test outputs: real logs, calibrated replays with job overheads and failed attempts."""
    return [
        ["replay", str(GOLD / "dispatch-trace-output.json.gz"), "--json"],
        ["replay", str(GOLD / "counters-test-trace.json.gz"), "--json", "--speculative"],
        ["replay", str(GOLD / "job-tracker-logs-trace-output.gz"), "--json", "--scheduler", "srpt", "--locality", "on"],
    ]


def _run_all(cases: list[list[str]], pure: bool, cache_dir: Path) -> dict:
    env = {**os.environ, "MRSIM_CACHE_DIR": str(cache_dir), "MRSIM_NO_CACHE": "1"}
    env.pop(compiled_core.PURE_ENV, None)
    if pure:
        env[compiled_core.PURE_ENV] = "1"
    proc = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(cases)], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _without_varying_fields(printed: str) -> str:
    doc = json.loads(printed)
    for section, keys in VARYING.items():
        for key in keys:
            doc[section].pop(key, None)
    return json.dumps(doc)


def _assert_identical(cases: list[list[str]], tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:  # one child per build, side by side
        compiled, pure = pool.map(lambda p: _run_all(cases, p, tmp_path / "cache"), (False, True))
    assert compiled["engine_build"] == "compiled"
    assert pure["engine_build"] == "pure"
    for c, p in zip(compiled["runs"], pure["runs"], strict=True):
        assert c["code"] == p["code"] == 0, c["argv"]
        assert json.loads(c["stdout"])["spec"]["engine_build"] == "compiled"
        assert json.loads(p["stdout"])["spec"]["engine_build"] == "pure"
        assert _without_varying_fields(c["stdout"]) == _without_varying_fields(p["stdout"]), " ".join(c["argv"])


NO_BUILD = pytest.mark.skipif(compiled_core.check_build()[0] != "ok",
                              reason="no compiled engine core in this checkout (pip install -e . builds it)")


@NO_BUILD
def test_compiled_and_pure_engines_print_identical_json(tmp_path: Path) -> None:
    synthetic = tmp_path / "small.json.gz"
    subprocess.run([sys.executable, "-m", "mrsim", "synth", "--jobs", "12", "--seed", "3", "-o", str(synthetic)],
                   check=True, capture_output=True, cwd=REPO, timeout=300)
    _assert_identical(_bundled_cases(synthetic), tmp_path)


@NO_BUILD
def test_compiled_and_pure_engines_agree_on_the_rumen_gold_traces(tmp_path: Path) -> None:
    _assert_identical(_gold_cases(), tmp_path)


# ----------------------------------------------------------------------------- the run-time choice, no compiler


def _copy_core(tmp_path: Path) -> Path:
    """The compiled modules' sources under ``tmp_path/mrsim`` with an empty stand-in extension for each."""
    package = tmp_path / "mrsim"
    for module in compiled_core.COMPILED_MODULES:
        source = compiled_core.source_path(module)
        target = compiled_core.source_path(module, package)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        target.with_name(target.stem + EXTENSION_SUFFIXES[0]).write_bytes(b"")
    return package


def _record(package: Path, info: dict) -> None:
    (package / compiled_core.BUILD_INFO).write_text(json.dumps(info))


def test_a_build_whose_sources_are_unchanged_is_used(tmp_path: Path) -> None:
    package = _copy_core(tmp_path)
    _record(package, {"mypy": "1.20.2", "sources": compiled_core.source_digests(package_dir=package)})
    assert compiled_core.check_build(package) == ("ok", "mypyc 1.20.2")


def test_an_edited_source_makes_the_build_stale_and_names_the_file(tmp_path: Path) -> None:
    package = _copy_core(tmp_path)
    _record(package, {"mypy": "1.20.2", "sources": compiled_core.source_digests(package_dir=package)})
    edited = compiled_core.source_path("mrsim.tracker.jobtracker", package)
    edited.write_text(edited.read_text() + "\n# an edit after the build\n")
    status, detail = compiled_core.check_build(package)
    assert status == "stale"
    assert detail == "mrsim/tracker/jobtracker.py changed since it was compiled"


def test_extensions_without_a_build_record_or_incomplete_are_stale(tmp_path: Path) -> None:
    package = _copy_core(tmp_path)
    assert compiled_core.check_build(package)[0] == "stale"  # no record of the sources they were built from
    _record(package, {"sources": compiled_core.source_digests(package_dir=package)})
    kernel = compiled_core.extension_path("mrsim.tracker.kernel", package)
    assert kernel is not None
    kernel.unlink()
    assert compiled_core.check_build(package) == (
        "stale", "the compiled core is incomplete (mrsim.tracker.kernel is not compiled)")


def test_no_extension_means_pure_and_a_failed_build_says_why(tmp_path: Path) -> None:
    package = _copy_core(tmp_path)
    for module in compiled_core.COMPILED_MODULES:
        path = compiled_core.extension_path(module, package)
        assert path is not None
        path.unlink()
    assert compiled_core.check_build(package) == ("absent", "the compiled core is not built")
    _record(package, {"skipped": compiled_core.SKIPPED_BY_ENV})
    assert compiled_core.check_build(package) == ("absent", compiled_core.SKIPPED_BY_ENV)
    _record(package, {"failed": "CompileError: gcc not found"})
    assert compiled_core.check_build(package) == (
        "failed", "the compiled core failed to build at install time: CompileError: gcc not found")


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), ("", False), ("0", False),
                                             ("false", False), ("off", False)])
def test_the_environment_variable(value: str, pure: bool) -> None:
    assert compiled_core.pure_requested({compiled_core.PURE_ENV: value}) is pure
    assert compiled_core.pure_requested({}) is False


def test_the_pure_source_finder_wins_over_an_extension_beside_the_source(tmp_path: Path) -> None:
    """A broken stand-in extension would fail to load; with the finder first, the ``.py`` source is imported."""
    package = tmp_path / "probe_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text("WHERE = 'source'\n")
    (package / f"core{EXTENSION_SUFFIXES[0]}").write_bytes(b"not an ELF file")
    code = ("import sys; from pathlib import Path; from mrsim.compiled_core import _PureSourceFinder; "
            f"sys.path.insert(0, {str(tmp_path)!r}); "
            f"sys.meta_path.insert(0, _PureSourceFinder(['probe_pkg.core'], Path({str(package)!r}))); "
            "import probe_pkg.core as c; print(c.WHERE, c.__file__.endswith('.py'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["source", "True"]
    without = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
                              "import probe_pkg.core"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert without.returncode != 0  # Python itself prefers the (broken) extension: the finder is what avoids it


def test_this_process_reports_the_build_it_runs() -> None:
    import mrsim.tracker.jobtracker as jobtracker

    expected = "pure" if jobtracker.__file__.endswith(".py") else "compiled"
    assert compiled_core.engine_build() == expected
    assert compiled_core.describe().startswith("engine core: " + ("compiled" if expected == "compiled" else "pure"))


def test_the_build_cache_key_follows_every_source_mypyc_reads(tmp_path):
    """The key of setup.py's build cache changes with a compiled module, with a module whose types mypyc reads
    (``TYPED_SOURCES``) and with the build settings, and with nothing else."""
    import shutil

    from mrsim import compiled_core as core

    package = tmp_path / "mrsim"
    shutil.copytree(core.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    key = core.build_key(package, "settings")
    assert core.build_key(package, "settings") == key
    assert core.build_key(package, "other settings") != key
    (package / "api.py").write_text((package / "api.py").read_text() + "\n# not read by mypyc\n")
    assert core.build_key(package, "settings") == key
    for name in ("tracker/kernel.py", "tracker/scheduling.py", "model/templates.py", "errors.py"):
        source = package / name
        before = source.read_bytes()
        source.write_bytes(before + b"\n")
        assert core.build_key(package, "settings") != key, name
        source.write_bytes(before)
    assert core.build_key(package, "settings") == key
    assert core.built_files(package) == []
