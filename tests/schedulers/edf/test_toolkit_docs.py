"""The scheduler author's toolkit: the guide's code is the example plug-in, the example registers and passes
the checker, and ``mrsim schedulers`` lists plug-ins with their load status."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

from mrsim.cli import main
from mrsim.tracker.scheduling import BUILTIN_SCHEDULERS

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "plugins" / "mrsim-example-sjf"
GUIDE = REPO / "docs" / "writing-a-scheduler.md"


def code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


@pytest.fixture
def example_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    yield
    sys.modules.pop("mrsim_example_sjf", None)


def test_guide_shows_the_example_plugin_verbatim():
    blocks = code_blocks(GUIDE.read_text(encoding="utf-8"), "python")
    source = (EXAMPLE / "src" / "mrsim_example_sjf" / "__init__.py").read_text(encoding="utf-8")
    assert blocks[0] == source
    tests = (EXAMPLE / "tests" / "test_sjf.py").read_text(encoding="utf-8")
    assert blocks[1] in tests  # the timeline test shown in the guide is the example's own


def test_example_registers_through_the_entry_point_group():
    meta = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    eps = meta["project"]["entry-points"]["mrsim.schedulers"]
    assert eps == {"sjf": "mrsim_example_sjf:SmallestJobFirstScheduler"}
    assert '[project.entry-points."mrsim.schedulers"]' in GUIDE.read_text(encoding="utf-8")


def test_example_plugin_tests_and_checker_pass(example_on_path, capsys):
    sys.path.insert(0, str(EXAMPLE / "tests"))
    try:
        import test_sjf

        test_sjf.test_smaller_job_overtakes_a_bigger_one()
    finally:
        sys.path.remove(str(EXAMPLE / "tests"))
        sys.modules.pop("test_sjf", None)
    code = main(["check-scheduler", "mrsim_example_sjf:SmallestJobFirstScheduler", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["passed"], doc["failures"]


def test_example_plugin_by_name_once_registered(example_on_path, monkeypatch, capsys):
    # What installing the example does, without touching the environment: one more registered target.
    monkeypatch.setitem(BUILTIN_SCHEDULERS, "sjf", "mrsim_example_sjf:SmallestJobFirstScheduler")
    assert main(["replay", "--scheduler", "sjf", "--nodes", "8", "--heartbeat-interval", "off", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scheduler"] == "sjf"


def test_schedulers_command_lists_load_status(monkeypatch, capsys):
    monkeypatch.setitem(BUILTIN_SCHEDULERS, "broken", "no_such_module_anywhere:Scheduler")
    assert main(["schedulers", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["schedulers"]}
    assert rows["fifo"]["loads"] and rows["fifo"]["kind"] == "TaskScheduler" and "JobQueueTaskScheduler" in rows["fifo"]["summary"]
    assert rows["minedf"]["loads"] and "MinEDF" in rows["minedf"]["summary"]
    assert not rows["broken"]["loads"] and "ModuleNotFoundError" in rows["broken"]["error"]
    assert main(["schedulers"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^broken\s+FAILED\s+ModuleNotFoundError", out, flags=re.M)
    assert re.search(r"^maxedf\s+ok\s+SimMR MaxEDF", out, flags=re.M)


def test_help_lists_the_new_subcommands():
    from mrsim.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert {"compare", "check-scheduler", "schedulers"} <= set(sub.choices)
