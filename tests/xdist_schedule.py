"""Longest files first: the order in which the pytest-xdist workers receive test files.

``--dist loadfile`` hands each worker whole test files (a module's fixtures are built once), taking them from a
queue that pytest-xdist sorts by the number of tests in a file. A file with a few slow tests (``kill -9`` runs,
Chromium rendering, figure plans) then comes last, and one worker finishes it alone while the other idles: that
tail was a quarter of the suite's wall time. Sorting the queue by expected seconds instead, longest first, is the
classic longest-processing-time rule for two machines; files of unknown cost keep pytest-xdist's order after the
known ones (most are short).

Expected seconds come from ``SECONDS`` below: CPU seconds per file from one run of the suite
(``benchmarks/suite_profile.py``; CPU, unlike wall time, hardly depends on what else the machine runs). Only their
order matters, and a stale figure costs some tail, never a
failure. A new test file that takes more than ~4 s of CPU belongs in ``SECONDS`` (docs/testing.md, "Rules for a new
test under xdist").
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

#: CPU seconds per test file (``python3 benchmarks/suite_profile.py``: the file's tests, their fixtures and the
#: processes they start), the slowest first; files under ~4 s are left out.
SECONDS: dict[str, float] = {
    "tests/studies/geo/test_simulator.py": 14,
    "tests/tracker/test_compiled_core.py": 12,
    "tests/profiler/store/test_trace_cache.py": 12,
    "tests/tracker/features/resources/test_schedulers.py": 12,
    "tests/studies/geo/test_cli.py": 11,
    "tests/api/test_report.py": 10,
    "tests/hostile/test_fuzz.py": 10,
    "tests/studies/lotes/test_engine.py": 9,
    "tests/studies/federation/test_engine_figures_cli.py": 9,
    "tests/calibration/test_real_traces.py": 9,
    "tests/hostile/test_kill.py": 8,
    "tests/tracker/test_real_traces.py": 8,
    "tests/tracker/test_bounded_wakes.py": 8,
    "tests/tracker/test_resources_and_sites.py": 7,
    "tests/profiler/formats/test_streaming.py": 7,
    "tests/api/test_docs_commands.py": 7,
    "tests/studies/lotes/test_oracle.py": 7,
    "tests/hostile/test_cases.py": 7,
    "tests/profiler/store/test_store_background.py": 6,
    "tests/analysis/sweeps/test_sweep.py": 6,
    "tests/studies/geo/test_engine_vs_oracle.py": 6,
    "tests/schedulers/edf/test_checker.py": 5,
    "tests/analysis/sweeps/test_plots.py": 5,
    "tests/test_architecture.py": 5,
    "tests/studies/federation/test_equivalence.py": 5,
    "tests/test_packaging.py": 5,
    "tests/tracker/test_streaming.py": 5,
    "tests/tracker/test_equivalence_and_invariants.py": 5,
    "tests/studies/lotes/test_cli.py": 5,
    "tests/schedulers/edf/test_edf_engine.py": 5,
    "tests/profiler/store/test_profile_cli.py": 5,
    "tests/tracker/test_cli.py": 5,
    "tests/api/test_api.py": 5,
    "tests/tracker/yarn/test_compiled_yarn.py": 4,
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
