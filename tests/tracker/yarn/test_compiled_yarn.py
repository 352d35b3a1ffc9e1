"""YARN mode's compiled modules (``mrsim/compiled_core.py``) give byte-identical results to the pure sources.

As ``tests/tracker/test_compiled_core.py`` does for the MR1 engine: the same ``mrsim replay --json`` /
``mrsim validate --json`` command lines in two child processes, one with the compiled core and one with
``MRSIM_PURE_PYTHON=1``; only the wall-clock fields and ``spec.engine_build`` may differ. The cases cover YARN's
three schedulers on a synthetic workload (back-to-back arrivals, so queues, AM limits, reduce ramp-up and
preemption are exercised) and, when the shared data is present, the 2.x traces with their commit-tail calibration.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.tracker.test_compiled_core import NO_BUILD, REPO, _assert_identical
from tests.tracker.yarn.helpers import SHARED_DATA

SLS = SHARED_DATA / "sls"
JHIST = SHARED_DATA / "jhist" / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist"


def _cases(synthetic: Path) -> list[list[str]]:
    small = str(synthetic)
    cases = [
        ["replay", small, "--json", "--engine", "yarn", "--scheduler", "capacity", "--nodes", "6"],
        ["replay", small, "--json", "--engine", "yarn", "--scheduler", "fair", "--nodes", "6", "--racks", "2",
         "--locality", "on"],
        ["replay", small, "--json", "--engine", "yarn", "--scheduler", "fifo", "--nodes", "16"],
    ]
    if SLS.exists():
        rumen = str(SLS / "main-data" / "2jobs2min-rumen-jh.json")
        cases += [
            ["validate", rumen, "--json"],
            ["replay", rumen, "--json", "--scheduler", "fair"],
            ["replay", str(SLS / "test-resources" / "inputsls.json"), "--json", "--scheduler", "capacity"],
            ["replay", str(JHIST), "--json", "--scheduler", "fair", "--no-calibration"],
        ]
    return cases


@NO_BUILD
def test_compiled_and_pure_yarn_modes_print_identical_json(tmp_path: Path) -> None:
    synthetic = tmp_path / "small.json.gz"
    subprocess.run([sys.executable, "-m", "mrsim", "synth", "--jobs", "40", "--seed", "4", "-o", str(synthetic)],
                   check=True, capture_output=True, cwd=REPO, timeout=300)
    _assert_identical(_cases(synthetic), tmp_path)
