"""Old import paths of two packages, kept working for one release with a ``DeprecationWarning``.

``mrsim.ingest`` is now :mod:`mrsim.profiler` (SimMR's MRProfiler: logs to job templates) and ``mrsim.engine`` is
now :mod:`mrsim.tracker` (the emulated JobTracker/TaskTracker layer). A scheduler plug-in or a notebook that still
imports ``mrsim.engine.scheduling`` gets the very module object of ``mrsim.tracker.scheduling`` (one copy of every
class, so ``isinstance`` and the compiled core see no difference), and one warning naming the new path.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: old package -> new package
RENAMED: dict[str, str] = {"mrsim.engine": "mrsim.tracker", "mrsim.ingest": "mrsim.profiler"}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the already importable module of its new name."""

    def __init__(self, new_name: str) -> None:
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} is now {self.new_name}; the old name stops working in the next release",
                      DeprecationWarning, stacklevel=3)
        return importlib.import_module(self.new_name)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was executed under its new name."""


class RenamedPackages(importlib.abc.MetaPathFinder):
    """Finds ``mrsim.engine[.x]`` and ``mrsim.ingest[.x]`` as their new modules. It stands first in
    ``sys.meta_path``: the path finder would otherwise find ``mrsim.engine.x`` through the old package's
    ``__path__`` (the new package's directory) and execute the source a second time under the old name."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        for old, new in RENAMED.items():
            if fullname == old or fullname.startswith(old + "."):
                new_name = new + fullname[len(old):]
                return importlib.machinery.ModuleSpec(fullname, _Alias(new_name), is_package=fullname == old)
        return None


def install() -> None:
    """Adds the finder once per process."""
    if not any(isinstance(finder, RenamedPackages) for finder in sys.meta_path):
        sys.meta_path.insert(0, RenamedPackages())
