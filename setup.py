"""Build of mrsim's compiled engine core (everything else is in pyproject.toml).

``pip install`` compiles the modules listed in ``mrsim/compiled_core.py`` with mypyc (``docs/performance.md``,
"The compiled core"). The compiled core is optional: with ``MRSIM_PURE_PYTHON=1``, without mypyc, when mypyc
rejects the code or when no C compiler works, the install still succeeds with the pure-Python engine and says so
in one line. A successful build records the sha256 of each compiled source (``mrsim/_compiled_core.json``) so that
an edited source is never shadowed by its old compiled code.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
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
            extensions = mypycify([f"--config-file={config}", *sources], opt_level="3", debug_level="0",
                                  group_name=core.GROUP_NAME)
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
        self.distribution.ext_modules, self.skipped = _mypyc_extensions()
        super().finalize_options()

    def _targets(self) -> list[Path]:
        targets = [Path(self.build_lib) / "mrsim"]
        if self.inplace or getattr(self, "editable_mode", False):
            targets.append(ROOT / "mrsim")
        return targets

    def run(self) -> None:
        targets = self._targets()
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
