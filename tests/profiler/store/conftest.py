"""Skip the tests that read ``../shared/data`` when it is absent (the README promises they are skipped, not failed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tracker.helpers import SHARED_DATA

_DATA_NAMES = {"SHARED_DATA", "TRUNK", "DISPATCH_LOG", "DISPATCH_GOLD", "DISPATCH_TOPOLOGY", "GRIDMIX"}


def _reads_shared_data(item: pytest.Item) -> bool:
    function = getattr(item, "function", None)
    code = getattr(function, "__code__", None)
    if code is not None and _DATA_NAMES & set(code.co_names):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(isinstance(v, (str, Path)) and str(v).startswith(str(SHARED_DATA)) for v in params.values())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if SHARED_DATA.exists():
        return
    skip = pytest.mark.skip(reason=f"{SHARED_DATA} is absent")
    for item in items:
        if item.nodeid.startswith("tests/profiler/store/") and _reads_shared_data(item):
            item.add_marker(skip)
