"""Longest files first: the order in which the pytest-xdist workers receive test files.

``--dist loadfile`` hands each worker whole test files (a module's fixtures are built once), taking them from a
queue that pytest-xdist sorts by the number of tests in a file. A file with a few slow tests (``kill -9`` runs,
Chromium rendering, figure plans) then comes last, and one worker finishes it alone while the other idles: that
tail was a quarter of the suite's wall time. Sorting the queue by expected seconds instead, longest first, is the
classic longest-processing-time rule for two machines; files of unknown cost keep pytest-xdist's order after the
known ones (most are short).

Expected seconds come from ``SECONDS`` below: one run of the suite, per file, on the loaded 2-core development
machine (wall seconds divided by the load). Only their order matters, and a stale figure costs some tail, never a
failure. A new test file that takes more than ~5 s belongs in ``SECONDS`` (docs/testing.md, "Rules for a new
test under xdist").
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

#: Approximate seconds per test file (one worker, busy 2-core machine), the slowest first.
SECONDS: dict[str, float] = {
    "tests/resources/test_schedulers.py": 25,
    "tests/hostile/test_kill.py": 23,
    "tests/api_report/test_report.py": 20,
    "tests/geo/test_simulator.py": 18,
    "tests/profiler_store/test_trace_cache.py": 18,
    "tests/engine/test_bounded_wakes.py": 15,
    "tests/engine/test_real_traces.py": 13,
    "tests/experiments/test_sweep.py": 11,
    "tests/lotes/test_engine.py": 11,
    "tests/schedulers_edf/test_checker.py": 11,
    "tests/api_report/test_docs_commands.py": 10,
    "tests/federation/test_engine_figures_cli.py": 10,
    "tests/engine/test_compiled_core.py": 10,
    "tests/geo/test_cli.py": 10,
    "tests/engine/test_resources_and_sites.py": 10,
    "tests/hostile/test_fuzz.py": 9,
    "tests/calibration/test_real_traces.py": 8,
    "tests/geo/test_engine_vs_oracle.py": 8,
    "tests/profiler_store/test_store_background.py": 8,
    "tests/profiler_logs/test_streaming.py": 8,
    "tests/lotes/test_oracle.py": 8,
    "tests/engine/test_equivalence_and_invariants.py": 7,
    "tests/hostile/test_cases.py": 7,
    "tests/federation/test_equivalence.py": 7,
    "tests/profiler_store/test_profile_cli.py": 6,
    "tests/schedulers_edf/test_edf_engine.py": 6,
    "tests/engine/test_streaming.py": 6,
    "tests/api_report/test_api.py": 6,
    "tests/engine/test_cli.py": 6,
    "tests/experiments/test_plots.py": 6,
    "tests/api_report/test_notebook.py": 5,
    "tests/yarn/test_compiled_yarn.py": 5,
    "tests/federation/test_cli_and_traces.py": 5,
    "tests/test_packaging.py": 5,
}


def longest_first(queue: "OrderedDict[str, Any]", seconds: dict[str, float]) -> "OrderedDict[str, Any]":
    """The work queue (test file -> its tests) with the known-slow files first, longest first; the others keep
    their order after them (``sorted`` is stable)."""
    order = sorted(queue, key=lambda scope: -seconds.get(scope, 0.0))
    return OrderedDict((scope, queue[scope]) for scope in order)


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """A ``--dist loadfile`` scheduler that hands out files longest first (None for any other ``--dist``)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongestFileFirstScheduling(LoadFileScheduling):
        _sorted = False

        def _assign_work_unit(self, node: Any) -> None:
            # The queue is complete (every worker's collection checked) before the first unit is handed out.
            if not self._sorted:
                self.workqueue = longest_first(self.workqueue, SECONDS)
                self._sorted = True
            super()._assign_work_unit(node)

    return LongestFileFirstScheduling(config, log)
