"""Every conformance case names the Hadoop test (class, method, release line) it re-expresses."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import tests.tracker.yarn.conformance as conformance


def test_every_case_names_its_hadoop_test() -> None:
    missing, named = [], 0
    for info in pkgutil.iter_modules(conformance.__path__):
        if not info.name.startswith("test_") or info.name == "test_cases_named":
            continue
        module = importlib.import_module(f"tests.tracker.yarn.conformance.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and fn.__module__ == module.__name__:
                source = getattr(fn, "hadoop_test", None)
                if source is None or not (source.cls and source.method and source.version):
                    missing.append(f"{info.name}.{name}")
                else:
                    named += 1
    assert not missing, f"conformance cases without their Hadoop test: {missing}"
    assert named >= 40
