"""Packaging: the installed distribution's only top-level package is ``mrsim``.

The repository keeps its top-level ``schedulers/`` and ``rumen_traces/`` directories, but they install as
``mrsim.schedulers`` and ``mrsim.rumen_traces`` (``package-dir`` in pyproject.toml), so a user's own
``schedulers.py`` in the working directory cannot shadow the bundled plug-ins. These tests read pyproject.toml
and the sources; they do not build a wheel.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from importlib import resources
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUNDLED = {"mrsim.schedulers": "schedulers", "mrsim.rumen_traces": "rumen_traces"}
TOP_LEVEL = set(BUNDLED.values())
IMPORTERS = {"files", "import_module", "__import__", "find_spec", "import_from_path"}


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def _package_dirs() -> dict[str, Path]:
    """Every package of the source tree under the name it installs as."""
    found = {".".join(d.relative_to(REPO).parts): d for d in
             {p.parent for p in (REPO / "mrsim").rglob("__init__.py")} if "__pycache__" not in d.parts}
    for package, directory in BUNDLED.items():
        for init in (REPO / directory).rglob("__init__.py"):
            found[".".join((package, *init.parent.relative_to(REPO / directory).parts))] = init.parent
    return found


def test_bundled_directories_install_under_mrsim() -> None:
    assert _setuptools()["package-dir"] == BUNDLED
    assert "*.json.gz" in _setuptools()["package-data"]["mrsim.rumen_traces"]


def test_every_package_is_listed_and_all_are_under_mrsim() -> None:
    listed = set(_setuptools()["packages"])
    assert {p.split(".")[0] for p in listed} == {"mrsim"}
    missing = sorted(set(_package_dirs()) - listed)
    assert not missing, f"packages missing from pyproject.toml's [tool.setuptools] packages: {missing}"
    assert not sorted(listed - set(_package_dirs())), "pyproject.toml lists packages that do not exist"


def test_entry_points_and_builtins_name_mrsim_schedulers() -> None:
    from mrsim.tracker.scheduling import BUILTIN_SCHEDULERS

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    entry_points = project["entry-points"]["mrsim.schedulers"]
    assert entry_points == BUILTIN_SCHEDULERS
    for name, target in entry_points.items():
        module, _, attr = target.partition(":")
        assert module.startswith("mrsim.schedulers."), (name, target)
        assert hasattr(importlib.import_module(module), attr), (name, target)


def test_bundled_trace_is_package_data() -> None:
    assert resources.files("mrsim.rumen_traces").joinpath("default.json.gz").is_file()


def _python_files() -> list[Path]:
    roots = ["mrsim", "schedulers", "rumen_traces", "tests", "benchmarks", "scripts", "examples"]
    return sorted(p for root in roots if (REPO / root).is_dir() for p in (REPO / root).rglob("*.py"))


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_module_imports_a_top_level_bundled_package(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in TOP_LEVEL]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in TOP_LEVEL:
                bad.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            # importlib.resources.files() or importlib.import_module() of a top-level bundled package
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            value = node.args[0].value
            if func in IMPORTERS and isinstance(value, str) and value.split(".")[0] in TOP_LEVEL:
                bad.append((node.lineno, value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and path.is_relative_to(REPO / "mrsim"):
            # a plug-in target "module:Class" whose module is in a top-level bundled package
            module = node.value.partition(":")[0]
            if module.split(".")[0] in TOP_LEVEL and "." in module and " " not in module and "/" not in module:
                bad.append((node.lineno, node.value))
    assert not bad, f"{path.relative_to(REPO)} imports top-level bundled packages (use mrsim.<name>): {bad}"


def test_old_package_names_import_the_same_modules_with_a_deprecation_warning():
    """``mrsim.engine`` and ``mrsim.ingest`` (the tracker's and the profiler's former names) still import, as the
    very module objects of their new names, so a plug-in written against them keeps working."""
    import subprocess
    import sys

    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "import mrsim.tracker.scheduling as new\n"
            "try:\n    import mrsim.engine.scheduling\nexcept DeprecationWarning as w:\n    print(w)\n"
            "warnings.simplefilter('ignore')\n"
            "import mrsim.engine.scheduling as old, mrsim.profiler.workloads as w2, mrsim.ingest.workloads as w1\n"
            "print(old is new, w1 is w2, old.TaskScheduler is new.TaskScheduler)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("mrsim.engine is now mrsim.tracker")
    assert lines[-1] == "True True True"


def _guard_namespace() -> dict:
    """The finder setup.py writes into an editable install (its ``GUARD_SOURCE``), loaded without running setup()."""
    import ast

    tree = ast.parse((REPO / "setup.py").read_text())
    source = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                  and any(getattr(t, "id", "") == "GUARD_SOURCE" for t in node.targets))
    namespace: dict = {}
    exec(compile(source, "guard", "exec"), namespace)
    return namespace


def test_an_editable_install_wins_over_a_clone_seen_as_a_namespace_package(tmp_path, monkeypatch):
    import sys
    from importlib.machinery import ModuleSpec

    guard = _guard_namespace()["NamespaceGuard"]
    (tmp_path / "mrsim").mkdir()  # the parent of a clone named mrsim: a directory without __init__.py

    class EditableFinder:  # stands for setuptools' __editable___mrsim_<version>_finder
        @classmethod
        def find_spec(cls, fullname, path=None, target=None):
            return ModuleSpec(fullname, None, origin="/installed/mrsim/__init__.py")

    EditableFinder.__module__ = "__editable___mrsim_0_1_0_finder"
    monkeypatch.setattr(sys, "path", [str(tmp_path)])  # as seen from that parent, without this checkout
    others = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable___mrsim_")]
    monkeypatch.setattr(sys, "meta_path", [*others, EditableFinder])
    assert guard.find_spec("mrsim").origin == "/installed/mrsim/__init__.py"  # the namespace answer is handed over
    assert guard.find_spec("mrsim.model") is None and guard.find_spec("numpy") is None
    (tmp_path / "mrsim" / "__init__.py").write_text("")  # a regular package on the path (another checkout)
    assert guard.find_spec("mrsim") is None  # the path finder's answer stands
