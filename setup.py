"""Build of mrsim's compiled engine core (everything else is in pyproject.toml).

``pip install`` compiles the modules listed in ``mrsim/compiled_core.py`` with mypyc (``docs/performance.md``,
"The compiled core"). The compiled core is optional: with ``MRSIM_PURE_PYTHON=1``, without mypyc, when mypyc
rejects the code or when no C compiler works, the install still succeeds with the pure-Python engine and says so
in one line. A successful build records the sha256 of each compiled source (``mrsim/_compiled_core.json``) so that
an edited source is never shadowed by its old compiled code.

The compiled files are also kept in a build cache (``build/compiled-core-cache/<key>/``), keyed by the hash of
every source the compilation reads and of the build's settings (:func:`_cache_settings`): an install of an
unchanged tree (the README's second command after the first) copies them instead of running mypyc and the C
compiler again.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _load_core_list():
    """``mrsim/compiled_core.py`` loaded on its own: importing ``mrsim`` would need its runtime dependencies."""
    spec = importlib.util.spec_from_file_location("_mrsim_compiled_core", ROOT / "mrsim" / "compiled_core.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


core = _load_core_list()


def _say(message: str) -> None:
    """One line on stderr (pip shows it with ``-v``; ``mrsim --version`` repeats why the core is pure)."""
    print(f"mrsim build: {message}", file=sys.stderr, flush=True)


def _record(package_dirs: list[Path], info: dict) -> None:
    for package_dir in package_dirs:
        if package_dir.is_dir():
            (package_dir / core.BUILD_INFO).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")


#: Where compiled cores are kept between installs, one directory per build key; the newest few are kept.
CACHE_DIR = ROOT / "build" / "compiled-core-cache"
CACHE_KEEP = 3
CACHE_MANIFEST = "files.json"


def _cache_settings() -> str | None:
    """What, besides the sources, decides the compiled output: mypy's version, the interpreter and its ABI, the
    compiler settings and this file's mypy configuration. None without mypy (nothing to reuse: no build either)."""
    try:
        import mypy.version
    except ImportError:
        return None
    compiler = {k: os.environ.get(k, "") for k in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED")}
    return json.dumps({"mypy": mypy.version.__version__, "python": sys.version, "abi": importlib.machinery.
                       EXTENSION_SUFFIXES[0], "compiler": compiler, "config": MYPY_CONFIG,
                       "mypyc": MYPYC_OPTIONS}, sort_keys=True)


def _cached_build(key: str) -> Path | None:
    """The cache directory of ``key`` when it is complete and every file matches the sha256 its manifest
    records, else None (a damaged entry is rebuilt, never loaded)."""
    entry = CACHE_DIR / key
    try:
        manifest = json.loads((entry / CACHE_MANIFEST).read_text())
        for name, digest in manifest["files"].items():
            path = entry / name
            if path.is_symlink() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return entry if manifest["files"] else None


def _save_build(key: str, package_dir: Path) -> None:
    """Copy the compiled core just built under ``package_dir`` into the cache (written aside, then renamed into
    place); the oldest entries beyond :data:`CACHE_KEEP` are removed. A failure only costs the next install time."""
    files = core.built_files(package_dir)
    if not files:
        return
    tmp = CACHE_DIR / f".tmp-{key}-{os.getpid()}"
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        digests = {}
        for path in files:
            name = path.relative_to(package_dir).as_posix()
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, tmp / name)
            digests[name] = hashlib.sha256((tmp / name).read_bytes()).hexdigest()
        (tmp / CACHE_MANIFEST).write_text(json.dumps({"files": digests}, indent=1, sort_keys=True) + "\n")
        shutil.rmtree(CACHE_DIR / key, ignore_errors=True)
        tmp.rename(CACHE_DIR / key)
        entries = sorted((p for p in CACHE_DIR.iterdir() if p.is_dir() and not p.name.startswith(".")),
                         key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[CACHE_KEEP:]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _say(f"could not keep the compiled core in {CACHE_DIR} ({exc}); the next install compiles it again")


def _restore_build(entry: Path, targets: list[Path]) -> None:
    manifest = json.loads((entry / CACHE_MANIFEST).read_text())
    for package_dir in targets:
        for name in manifest["files"]:
            dest = package_dir / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.exists() or dest.is_symlink():
                dest.unlink()  # a loaded extension is replaced by a new file, never rewritten in place
            shutil.copyfile(entry / name, dest)


#: mypy's view of the code while mypyc compiles the core. Only the modules whose types the core uses are read (and
#: their errors not reported: only the compiled modules must type-check); everything else, mrsim's other layers
#: included, is skipped and typed ``Any``: following ``mrsim/__init__``'s imports into pandas and the rest of
#: mrsim would take minutes and gain nothing (calls into them are ordinary Python calls either way).
MYPY_CONFIG = """\
[mypy]
follow_imports = skip
ignore_missing_imports = True
warn_unused_configs = False

[mypy-mrsim.tracker.*,mrsim.model.*,mrsim.errors,mrsim.rng]
follow_imports = silent
"""


#: mypyc's options (part of the build cache's key).
MYPYC_OPTIONS = {"opt_level": "3", "debug_level": "0"}


def _mypyc_extensions():
    """``(extensions, "")``, or ``([], reason)`` when the pure-Python engine is installed instead."""
    if core.pure_requested():
        return [], core.SKIPPED_BY_ENV
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        return [], f"mypyc is not available ({exc})"
    sources = [str(core.source_path(m, Path("mrsim"))) for m in core.COMPILED_MODULES]
    config = ROOT / "build" / "mypyc-build.ini"
    config.parent.mkdir(exist_ok=True)
    config.write_text(MYPY_CONFIG)
    report = io.StringIO()
    try:
        with contextlib.redirect_stdout(report):
            extensions = mypycify([f"--config-file={config}", *sources], group_name=core.GROUP_NAME,
                                  **MYPYC_OPTIONS)
    except (SystemExit, Exception) as exc:  # mypyc reports type errors on stdout, then exits
        sys.stderr.write(report.getvalue())
        errors = [line for line in report.getvalue().splitlines() if ": error:" in line]
        first = errors[0] if errors else f"{type(exc).__name__}: {exc}"
        return [], f"mypyc rejected the engine core: {first}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
    sys.stderr.write(report.getvalue())
    return extensions, ""


class OptionalBuildExt(build_ext):
    """Builds the compiled core when it can; any failure leaves the pure-Python engine installed.

    mypyc runs here, when the extensions are built, not when ``setup.py`` is loaded: pip loads it for the
    metadata too, and type-checking the core then would only cost time.
    """

    def finalize_options(self) -> None:
        self.cached: Path | None = None
        self.key: str | None = None
        settings = None if core.pure_requested() else _cache_settings()
        if settings is not None:
            self.key = core.build_key(ROOT / "mrsim", settings)
            self.cached = _cached_build(self.key)
        if self.cached is not None:
            self.skipped = ""
            super().finalize_options()
            # Nothing to compile: run() copies the cached build. The placeholder extension stays on the
            # distribution, so that setuptools still runs this command.
            self.extensions = []
            return
        self.distribution.ext_modules, self.skipped = _mypyc_extensions()
        super().finalize_options()

    def _targets(self) -> list[Path]:
        targets = [Path(self.build_lib) / "mrsim"]
        if self.inplace or getattr(self, "editable_mode", False):
            targets.append(ROOT / "mrsim")
        return targets

    def run(self) -> None:
        targets = self._targets()
        if self.cached is not None:
            import mypy.version

            self._remove_partial(targets)
            _restore_build(self.cached, targets)
            _record(targets, {"mypy": mypy.version.__version__, "python": sys.version.split()[0],
                              "sources": core.source_digests(core.COMPILED_MODULES, ROOT / "mrsim")})
            _say(f"reused the compiled engine core of {self.cached.relative_to(ROOT)} (its sources are unchanged)")
            return
        if not self.extensions:
            _say(f"installing the pure-Python engine ({self.skipped})")
            self._remove_partial(targets)
            _record(targets, {"skipped" if self.skipped == core.SKIPPED_BY_ENV else "failed": self.skipped})
            return
        try:
            super().run()
        except Exception as exc:  # no compiler, a compiler error: never fail the install for an optional speed-up
            reason = f"{type(exc).__name__}: {exc}"
            _say(f"the compiled engine core failed to build ({reason}); installing the pure-Python engine")
            self._remove_partial(targets)
            _record(targets, {"failed": reason})
            return
        import mypy.version

        _record(targets, {"mypy": mypy.version.__version__, "python": sys.version.split()[0],
                          "sources": core.source_digests(core.COMPILED_MODULES, ROOT / "mrsim")})
        if self.key is not None:
            _save_build(self.key, targets[0])
        _say(f"compiled the engine core with mypyc {mypy.version.__version__} "
             f"({len(core.COMPILED_MODULES)} modules)")

    def _remove_partial(self, targets: list[Path]) -> None:
        """Drop extensions a failed or skipped build would leave beside the sources: no stale or half-compiled
        core can load."""
        for package_dir in targets:
            for module in core.COMPILED_MODULES:
                while (found := core.extension_path(module, package_dir)) is not None:
                    found.unlink()
            for shared in package_dir.glob(core.GROUP_NAME.split(".")[-1] + "__mypyc*"):
                if shared.is_file():
                    shared.unlink()


#: A finder an editable install puts first on ``sys.meta_path``. From the directory that holds a clone named
#: ``mrsim``, Python's path finder sees that clone as a namespace package ``mrsim`` (a directory without
#: ``__init__.py``) and answers before setuptools' editable finder, so ``import mrsim`` gave an empty package. This
#: finder asks the path finder first and hands only such a namespace answer to the editable finder: a regular
#: ``mrsim`` package on the path (another checkout's) still wins, as it does without an editable install.
GUARD_MODULE = "__editable___mrsim_namespace_guard"
GUARD_SOURCE = '''"""mrsim's editable install: ``import mrsim`` from the parent of a clone named mrsim (setup.py)."""
import sys
from importlib.machinery import PathFinder


class NamespaceGuard:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != "mrsim":
            return None
        found = PathFinder.find_spec(fullname, path)
        if found is not None and found.origin is not None:
            return None  # a regular package on the path: the path finder's answer stands
        for finder in sys.meta_path:
            module = getattr(finder, "__module__", "")
            if module.startswith("__editable___mrsim_") and module.endswith("_finder"):
                return finder.find_spec(fullname, path, target)
        return None


def install():
    if NamespaceGuard not in sys.meta_path:
        sys.meta_path.insert(0, NamespaceGuard)
'''


class _GuardedStrategy:
    """setuptools' editable strategy, plus the guard module and the ``.pth`` line that installs it (named to sort
    after setuptools' own ``.pth``, which installs the editable finder)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner

    def __call__(self, wheel, files, mapping) -> None:  # type: ignore[no-untyped-def]
        self.inner(wheel, files, mapping)
        wheel.writestr(f"{GUARD_MODULE}.py", GUARD_SOURCE.encode())
        wheel.writestr("__editable__.zz-mrsim-namespace-guard.pth",
                       f"import {GUARD_MODULE}; {GUARD_MODULE}.install()\n".encode())

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.inner.__enter__()
        return self

    def __exit__(self, *exc):  # type: ignore[no-untyped-def]
        return self.inner.__exit__(*exc)


def _cmdclass() -> dict:
    commands: dict = {"build_ext": OptionalBuildExt}
    try:
        from setuptools.command.editable_wheel import editable_wheel
    except ImportError:  # a setuptools without PEP 660 editable wheels: nothing to guard
        return commands

    class GuardedEditableWheel(editable_wheel):
        def _select_strategy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return _GuardedStrategy(super()._select_strategy(*args, **kwargs))

    commands["editable_wheel"] = GuardedEditableWheel
    return commands


# A placeholder: it makes setuptools run build_ext, which replaces it with mypyc's extensions (or none).
setup(ext_modules=[Extension(core.GROUP_NAME + "__mypyc", sources=[])], cmdclass=_cmdclass())
