"""Tests that read the real data skip, not fail, when it is absent.

The real traces and logs are not part of the repository: tests find them under ``$MRSIM_SHARED_DATA`` or, when
that variable is unset or empty, ``../shared/data`` relative to the repository root (``tests/data.py``, the one
definition). Setting the variable disables the fallback, so ``MRSIM_SHARED_DATA=/nonexistent python3 -m pytest``
runs the suite as without the data. When that directory is missing, every test that reads it is skipped. A test "reads it" when its function, or a helper function of its own
module it calls (followed a few levels deep), names a module-level constant whose value is a path under the data
directory, or when one of its parameters is such a path. This keeps the data dependency visible in one place
instead of a skip line in every test.
"""

from __future__ import annotations

import itertools
import os
import shutil
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.data import SHARED_DATA

_DEPTH = 4  # helper calls followed from a test function


def _is_data_path(value: Any) -> bool:
    if isinstance(value, (str, Path)):
        return str(value).startswith(str(SHARED_DATA))
    if isinstance(value, (tuple, list)):
        return any(_is_data_path(v) for v in value)
    return False


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    """The code object and every nested one (comprehensions, lambdas, inner functions)."""
    out = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.extend(_code_objects(const))
    return out


def _reads_data(function: Any, namespace: dict[str, Any], depth: int, seen: set[int]) -> bool:
    code = getattr(function, "__code__", None)
    if code is None or id(code) in seen or depth < 0:
        return False
    seen.add(id(code))
    for nested in _code_objects(code):
        for name in nested.co_names:
            value = namespace.get(name)
            if _is_data_path(value):
                return True
            for helper in _helpers(value):
                if _reads_data(helper, helper.__globals__, depth - 1, seen):
                    return True
    return False


def _helpers(value: Any) -> list[types.FunctionType]:
    """Test-side functions a global names: itself, or those held in a dict / tuple / list of cases."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [h for v in value for h in _helpers(v)] if len(value) < 100 else []
    if isinstance(value, types.FunctionType) and value.__module__.startswith("tests"):
        return [value]
    return []


def _item_reads_data(item: pytest.Item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    if any(_is_data_path(v) for v in params.values()):
        return True
    function = getattr(item, "function", None)
    return function is not None and _reads_data(function, function.__globals__, _DEPTH, set())


#: The trace most CLI tests read (``mrsim replay`` with no trace argument); parsing it costs ~0.6 s of CPU.
BUNDLED_TRACE = Path(__file__).resolve().parents[1] / "rumen_traces" / "default.json.gz"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "empty_trace_cache: the test's private trace cache starts empty (no seeded "
                                       "entry for the bundled default trace); for tests that count or evict entries")


@pytest.fixture(scope="session")
def _bundled_trace_entry(tmp_path_factory: pytest.TempPathFactory) -> _SeedEntry | None:
    """The bundled default trace's cache entry, built once per session (once per pytest-xdist worker), or None."""
    from mrsim.profiler import ingest
    from mrsim.io import policy

    root = tmp_path_factory.mktemp("mrsim-cache-seed")
    patch = pytest.MonkeyPatch()
    try:
        patch.setenv("MRSIM_CACHE_DIR", str(root))
        patch.delenv("MRSIM_NO_CACHE", raising=False)
        policy.set_cache(True)
        ingest.forget()
        ingest.ingest(BUNDLED_TRACE).workload()
    finally:
        patch.undo()
        ingest.forget()
    entries = sorted((root / "entries").iterdir()) if (root / "entries").is_dir() else []
    return _SeedEntry(entries[0]) if len(entries) == 1 else None


class _SeedEntry:
    """The bundled trace's cache entry as a list of directories and files, read once, so that putting it into a
    test's cache is a few ``mkdir`` and ``link`` calls (this runs before every test of the suite)."""

    def __init__(self, entry: Path) -> None:
        from mrsim.profiler.cache import ENTRY_META

        self.dirs: list[str] = []
        self.files: list[tuple[str, str, bool]] = []  # (source, path relative to the cache, is the metadata)
        base = entry.parent.parent  # the seed cache's root: entries/<key>/...
        for directory, _, names in os.walk(entry):
            self.dirs.append(os.path.relpath(directory, base))
            self.files += [(os.path.join(directory, n), os.path.relpath(os.path.join(directory, n), base),
                            n == ENTRY_META) for n in names]

    def put_into(self, cache_dir: Path) -> None:
        """Data files hard-linked (read only: a hit never writes them), the metadata copied (a hit refreshes that
        file's access stamp, which must stay this test's own)."""
        for directory in self.dirs:
            os.makedirs(os.path.join(cache_dir, directory))
        for source, relative, is_meta in self.files:
            target = os.path.join(cache_dir, relative)
            if is_meta:
                shutil.copy2(source, target)
                continue
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)


@pytest.fixture(scope="session", autouse=True)
def _no_fsync() -> Iterator[None]:
    """``os.fsync`` checks its descriptor and returns at once in the test processes.

    mrsim fsyncs every file of a trace-cache entry or store before the manifest points at it (durability against a
    power loss, ``mrsim/profiler/store.py``), and most tests that read a trace write a new cache entry: ~30 fsyncs each,
    thousands in the suite. No test can observe durability against a power loss (a killed process leaves its writes in
    the page cache), yet each fsync waits for the disk: a few ms on an idle machine, tens when other programs write,
    and a worker waiting on its disk leaves its core idle. The real fsyncs still run in the ``python -m mrsim``
    processes of the ``kill -9`` tests (``tests/hostile/test_kill.py``)."""

    def check_only(fd: int) -> None:
        os.fstat(fd)  # a bad descriptor still raises OSError, as fsync would

    patch = pytest.MonkeyPatch()
    patch.setattr(os, "fsync", check_only)
    yield
    patch.undo()


@pytest.fixture(scope="session")
def _cache_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Fresh directory names for the tests' caches, under one folder of this session (of this xdist worker).
    ``tmp_path_factory.mktemp`` per test would list every earlier one to number the next: quadratic."""
    root = tmp_path_factory.mktemp("mrsim-caches")
    return (root / str(n) for n in itertools.count())


@pytest.fixture(autouse=True)
def _private_trace_cache(_cache_dirs: Iterator[Path], monkeypatch: pytest.MonkeyPatch,
                         request: pytest.FixtureRequest, _bundled_trace_entry: _SeedEntry | None) -> None:
    """Every test gets its own trace cache (mrsim.profiler.cache): the suite never writes to the user's home,
    and no test sees another's entries or this process's memo of them (nor, under pytest-xdist, another worker's:
    each worker has its own temporary root). The cache starts with one entry, the bundled default trace's, built
    once per session: it is what a second ``mrsim replay`` on a user's machine finds, and it saves ~0.6 s of CPU in
    each of the many CLI tests that read that trace. Tests marked ``empty_trace_cache`` start from an empty cache; the
    miss path itself is tested in tests/profiler/store/test_trace_cache.py. The process-wide input policy that
    CLI flags set (``--no-cache``, ``--strict``, ``--no-verify``: mrsim.io.policy) starts at its defaults, so a
    test that ran the CLI with one of them cannot change what a later test sees."""
    from mrsim.profiler import ingest
    from mrsim.io import policy

    policy.set_cache(True)
    policy.set_strict(False)
    policy.set_verify(True)

    cache_dir = next(_cache_dirs)
    cache_dir.mkdir()
    if _bundled_trace_entry is not None and request.node.get_closest_marker("empty_trace_cache") is None:
        _bundled_trace_entry.put_into(cache_dir)
    monkeypatch.setenv("MRSIM_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("MRSIM_NO_CACHE", raising=False)
    ingest.forget()


@pytest.hookimpl(optionalhook=True)  # the hook exists only when pytest-xdist is installed and active
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Hand test files to the workers longest first (tests/xdist_schedule.py)."""
    from tests.xdist_schedule import make_scheduler

    return make_scheduler(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if SHARED_DATA.exists():
        return
    skip = pytest.mark.skip(reason=f"real data absent ({SHARED_DATA}; set MRSIM_SHARED_DATA)")
    for item in items:
        if _item_reads_data(item):
            item.add_marker(skip)
