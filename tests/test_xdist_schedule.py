"""The order in which pytest-xdist workers receive test files (tests/xdist_schedule.py)."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from tests.xdist_schedule import SECONDS, longest_first

REPO = Path(__file__).resolve().parents[1]


def test_known_slow_files_come_first_longest_first_and_the_rest_keep_their_order() -> None:
    queue = OrderedDict([("tests/a.py", 1), ("tests/slow.py", 2), ("tests/b.py", 3), ("tests/slowest.py", 4)])
    ordered = longest_first(queue, {"tests/slow.py": 5.0, "tests/slowest.py": 9.0})
    assert list(ordered.items()) == [("tests/slowest.py", 4), ("tests/slow.py", 2), ("tests/a.py", 1),
                                     ("tests/b.py", 3)]


def test_every_listed_file_exists() -> None:
    missing = [name for name in SECONDS if not (REPO / name).is_file()]
    assert not missing, f"tests/xdist_schedule.py lists files that do not exist: {missing}"
