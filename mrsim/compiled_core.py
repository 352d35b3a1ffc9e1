"""The compiled engine core: which modules mypyc compiles, and whether this process runs them.

``pip install`` (``setup.py``) compiles the modules of :data:`COMPILED_MODULES` with mypyc into C extensions
that sit beside their sources (one shared library ``mrsim/_engine_core__mypyc*.so`` plus one small extension per
module). Python prefers an extension to a ``.py`` file of the same name, so they are imported automatically. The
pure-Python sources stay the reference and the fallback (``docs/performance.md``, "The compiled core"):

* ``MRSIM_PURE_PYTHON=1`` at build time installs no extension; at run time it makes mrsim import the ``.py``
  sources even where extensions exist (debugging, profiling, and the test that compares both builds);
* when a compiled module's source changed since the build (an editable install being edited), the extensions
  would run the *old* code: mrsim warns once and imports the sources instead, until the next ``pip install``;
* the build is all or nothing: compiled code reads the native layout of the classes compiled with it, so a mix of
  compiled and pure modules of the core never runs.

This module is loaded by ``setup.py`` without importing ``mrsim`` (the build environment has none of mrsim's
dependencies), so it imports the standard library only. Adding a module to the compiled core is one line in
:data:`COMPILED_MODULES` (it must type-check under mypy; plug-ins and features stay interpreted).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Sequence

#: The engine core compiled by mypyc: the kernel and the heartbeat path's modules, MR1's and YARN's. Not the
#: scheduler plug-ins (``schedulers/``) and not the features (``mrsim/tracker/features/``): users subclass and read those, and they
#: stay plain Python. ``mrsim.tracker.scheduling`` stays interpreted too: every plug-in subclasses its
#: ``TaskScheduler``, and a compiled class cannot be subclassed by interpreted code.
COMPILED_MODULES: tuple[str, ...] = (
    "mrsim.tracker.events",
    "mrsim.tracker.kernel",
    "mrsim.tracker.state",
    "mrsim.tracker.locality",
    "mrsim.tracker.placement",
    "mrsim.tracker.hooks",
    "mrsim.tracker.heartbeats",
    "mrsim.tracker.stages",
    "mrsim.tracker.assignment",
    "mrsim.tracker.preemption",
    "mrsim.tracker.wakeups",
    "mrsim.tracker.fifo_core",  # the FIFO plug-in's queues and heartbeat walk (the plug-in itself stays Python)
    # TDAM (--contention tdam): the node model, the feature's epochs and the AMVA solver of a mix (the feature
    # itself, its set-up and plug-in API stay Python; docs/performance.md, "TDAM")
    "mrsim.contention.nodemix",
    "mrsim.tracker.contention_core",
    "mrsim.contention.amva",
    # calibrated replays: the launch and report lags' draws (the calibration feature stays Python)
    "mrsim.tracker.lag_core",
    # YARN mode's heartbeat path (docs/yarn.md, "Performance"), its three schedulers included: they are not a plug-in
    # interface users subclass (create_yarn_scheduler picks one by name)
    "mrsim.tracker.yarn.nodemanager",
    "mrsim.tracker.yarn.schedulers.base",
    "mrsim.tracker.yarn.schedulers.fifo",
    "mrsim.tracker.yarn.schedulers.capacity",
    "mrsim.tracker.yarn.schedulers.fair",
    "mrsim.tracker.yarn.timeseries",
    "mrsim.tracker.yarn.appmaster",
    "mrsim.tracker.yarn.rm",
    "mrsim.tracker.jobtracker",  # last: engine_build() reads it
)

#: mypyc's group name: the shared library holding the compiled code is ``mrsim/_engine_core__mypyc*.so``.
GROUP_NAME = "mrsim._engine_core"
#: Written by the build next to this file: the sha256 of each compiled module's source (the staleness check).
BUILD_INFO = "_compiled_core.json"
#: The environment variable that skips compiling (build time) and forces the pure sources (run time).
PURE_ENV = "MRSIM_PURE_PYTHON"
#: What the build records when ``MRSIM_PURE_PYTHON`` skipped compiling (a choice: not announced at run time).
SKIPPED_BY_ENV = f"{PURE_ENV} was set at install time"

PACKAGE_DIR = Path(__file__).resolve().parent

_state: dict[str, str] = {}


def pure_requested(environ: "os._Environ[str] | dict[str, str] | None" = None) -> bool:
    """Whether ``MRSIM_PURE_PYTHON`` asks for the pure-Python engine (any value but empty, 0, false, no, off)."""
    value = (os.environ if environ is None else environ).get(PURE_ENV, "")
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def source_path(module: str, package_dir: Path = PACKAGE_DIR) -> Path:
    """The ``.py`` source of ``mrsim.a.b`` under the package directory ``package_dir`` (``.../mrsim``)."""
    return package_dir.joinpath(*module.split(".")[1:]).with_suffix(".py")


def source_digests(modules: Sequence[str] = COMPILED_MODULES, package_dir: Path = PACKAGE_DIR) -> dict[str, str]:
    """sha256 of each module's source bytes. Cost: reads about 70 kB."""
    return {m: hashlib.sha256(source_path(m, package_dir).read_bytes()).hexdigest() for m in modules}


#: Sources outside the compiled modules whose types mypyc reads while compiling them (setup.py's mypy
#: configuration follows these imports): a change to one can change the compiled code, so it is part of the build
#: cache's key.
TYPED_SOURCES: tuple[str, ...] = ("tracker", "model", "errors.py", "rng.py")


def build_key(package_dir: Path, extra: str) -> str:
    """The build cache's key: sha256 over the compiled modules' sources, every source mypyc reads types from
    (:data:`TYPED_SOURCES`), this file and ``extra`` (the build's own settings: mypy version, Python, compiler
    flags). Two trees with the same key compile to the same extensions. Cost: hashing about 800 kB of sources."""
    digest = hashlib.sha256(extra.encode())
    files = {source_path(m, package_dir) for m in COMPILED_MODULES} | {package_dir / "compiled_core.py"}
    for name in TYPED_SOURCES:
        entry = package_dir / name
        files |= set(entry.rglob("*.py")) if entry.is_dir() else {entry}
    for path in sorted(files):
        if path.is_file():
            digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def built_files(package_dir: Path) -> list[Path]:
    """The compiled core's files under ``package_dir``: each module's extension and the group's shared library."""
    found = [path for m in COMPILED_MODULES if (path := extension_path(m, package_dir)) is not None]
    shared = GROUP_NAME.split(".")[-1] + "__mypyc"
    found += sorted(p for p in package_dir.glob(shared + "*") if p.is_file() and p.suffix in (".so", ".pyd"))
    return found


def extension_path(module: str, package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The compiled extension of ``module`` importable by this interpreter (its ABI suffix), or None."""
    base = source_path(module, package_dir).with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = base.with_name(base.name + suffix)
        if candidate.exists():
            return candidate
    return None


def check_build(package_dir: Path = PACKAGE_DIR, modules: Sequence[str] = COMPILED_MODULES) -> tuple[str, str]:
    """``(status, detail)`` of the compiled core on disk, without importing it.

    status is ``"absent"`` (no extension for this interpreter: never built, skipped by ``MRSIM_PURE_PYTHON``, or
    built for another Python), ``"failed"`` (the install tried and failed; detail has the reason the build
    recorded), ``"stale"`` (a source changed since the build, or the build is incomplete; detail names the file)
    or ``"ok"``.
    """
    info_path = package_dir / BUILD_INFO
    info: dict = {}
    if info_path.exists():
        try:
            info = json.loads(info_path.read_text())
        except (OSError, ValueError):
            info = {}
    present = [m for m in modules if extension_path(m, package_dir) is not None]
    if not present:
        if isinstance(info, dict) and info.get("failed"):
            return "failed", f"the compiled core failed to build at install time: {info['failed']}"
        if isinstance(info, dict) and info.get("skipped"):
            return "absent", str(info["skipped"])
        return "absent", "the compiled core is not built"
    recorded = info.get("sources") if isinstance(info, dict) else None
    if not isinstance(recorded, dict):
        return "stale", f"compiled modules exist but {BUILD_INFO} does not list their sources"
    missing = [m for m in modules if m not in present or m not in recorded]
    if missing:
        return "stale", f"the compiled core is incomplete ({missing[0]} is not compiled)"
    current = source_digests(modules, package_dir)
    for module in modules:
        if current[module] != recorded[module]:
            return "stale", f"{source_path(module, package_dir).relative_to(package_dir.parent)} changed since it was compiled"
    return "ok", f"mypyc {info.get('mypy', '?')}"


class _PureSourceFinder(importlib.abc.MetaPathFinder):
    """Imports the core's ``.py`` sources even where compiled extensions sit beside them (first on the meta path)."""

    def __init__(self, modules: Sequence[str], package_dir: Path) -> None:
        self.modules = frozenset(modules)
        self.package_dir = package_dir

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname, self.package_dir))


def activate() -> None:
    """Decide, once per process and before any core module is imported (``mrsim/__init__``), which build runs:
    the compiled extensions when they are present and current, else the pure sources (with a one-line warning on
    stderr when they are stale). Cost: hashing the core's sources, well under a millisecond."""
    if _state:
        return
    status, detail = check_build()
    if pure_requested():
        if status != "absent":
            sys.meta_path.insert(0, _PureSourceFinder(COMPILED_MODULES, PACKAGE_DIR))
        _state.update(requested="pure", detail=f"{PURE_ENV} is set")
        return
    if status == "stale":
        sys.meta_path.insert(0, _PureSourceFinder(COMPILED_MODULES, PACKAGE_DIR))
        print(f"mrsim: warning: {detail}: running the pure-Python engine; reinstall (pip install -e .) to "
              "recompile the engine core", file=sys.stderr)
    elif status == "failed":  # pip shows a build's own output only with -v: say it here, where it is seen
        print(f"mrsim: note: {detail}; running the pure-Python engine (about half the speed; "
              f"{PURE_ENV}=1 at install time skips the build)", file=sys.stderr)
    _state.update(requested="compiled" if status == "ok" else "pure", detail=detail)


def engine_build() -> str:
    """``"compiled"`` when the engine core runs as mypyc-compiled extensions in this process, else ``"pure"``
    (what ``spec.engine_build`` of ``--json`` says). Read from the imported modules, not from the plan."""
    activate()
    # By name: this module is loaded alone by setup.py and sits below the engine in the layers.
    jobtracker = sys.modules.get(COMPILED_MODULES[-1]) or importlib.import_module(COMPILED_MODULES[-1])
    return "pure" if (jobtracker.__file__ or "").endswith(".py") else "compiled"


def describe() -> str:
    """One line for ``mrsim --version``: which engine build runs and why."""
    build = engine_build()
    if build == "compiled":
        return f"engine core: compiled ({_state.get('detail', '')})"
    return f"engine core: pure Python ({_state.get('detail', '')})"
