"""Where the test suite spends its CPU: seconds per test file, CPU and wall, summed over the file's tests.

Wall times from ``--durations`` mislead on a shared machine (a test waits for a core as long as others hold it)
and miss the CPU of the subprocesses a test starts. This script runs pytest with a small plug-in (this module,
loaded with ``-p suite_profile`` in the controller and in every pytest-xdist worker) that reads ``os.times()``
around each test's setup, call and teardown: the process's user + system CPU plus that of the children it waited
for (``python -m mrsim`` runs, sweep pools, Chromium). Each worker also reports its fixed cost (interpreter
start-up, imports, collection: its CPU at the end minus the sum over its tests). A module-scoped fixture is counted
in the test that first needs it, so it lands in its own file.

Usage::

    python3 benchmarks/suite_profile.py [--top 15] [--tests N] [--json FILE] [--compare OLD.json] [-- PYTEST ARGS...]

runs ``python3 -m pytest -p no:cacheprovider`` with the repository's ``addopts`` (2 workers on 2 cores) and prints
the ``--top`` files by CPU (and with ``--tests`` the slowest tests), the workers' fixed cost and the total; ``--json`` keeps the per-file figures,
``--compare`` prints them beside an earlier run's. CPU seconds still grow by ~10-20 % on a loaded machine (shared
caches, frequency), so compare runs taken at similar load and print ``uptime`` with them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
_ENV = "MRSIM_SUITE_PROFILE_DIR"


def _cpu(children: bool = True) -> float:
    t = os.times()
    return t.user + t.system + ((t.children_user + t.children_system) if children else 0.0)


# --- the pytest plug-in (runs inside pytest's processes) -----------------------------------------------------------

_per_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])  # file -> [cpu, wall, tests]
_per_test: dict[str, float] = {}  # test id -> CPU s


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Any:  # noqa: ARG001 - pytest's hook signature
    cpu, wall = _cpu(), time.perf_counter()
    yield
    row = _per_file[item.nodeid.split("::", 1)[0]]
    spent = _cpu() - cpu
    _per_test[item.nodeid] = spent
    row[0] += spent
    row[1] += time.perf_counter() - wall
    row[2] += 1


def pytest_sessionfinish(session: Any) -> None:
    directory = os.environ.get(_ENV)
    if not directory:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    # The xdist controller runs no test: its children are the workers, which report for themselves.
    total = _cpu(children=bool(_per_file))
    tests = sum(row[0] for row in _per_file.values())
    Path(directory, f"{worker}.json").write_text(json.dumps({
        "worker": worker, "cpu_s": total, "fixed_cpu_s": total - tests, "files": dict(_per_file),
        "tests": _per_test}))


# --- the driver ------------------------------------------------------------------------------------------------------

def _merge(directory: Path) -> dict[str, Any]:
    files: dict[str, list[float]] = {}
    fixed: dict[str, float] = {}
    tests: dict[str, float] = {}
    for path in sorted(directory.glob("*.json")):
        part = json.loads(path.read_text())
        fixed[part["worker"]] = part["fixed_cpu_s"]
        tests.update(part.get("tests", {}))
        for name, row in part["files"].items():
            if part["worker"] == "main" and not row[2]:
                continue
            files[name] = row
    return {"files": files, "fixed_cpu_s": fixed, "tests": tests}


def _slowest_tests(run: dict[str, Any], top: int) -> str:
    tests = run.get("tests", {})
    return "\n".join(f"{cpu:7.2f} s CPU  {name}" for name, cpu in sorted(tests.items(), key=lambda t: -t[1])[:top])


def _table(run: dict[str, Any], top: int, old: dict[str, Any] | None) -> str:
    files = run["files"]
    order = sorted(files, key=lambda f: -files[f][0])[:top]
    lines = [f"{'file':60} {'tests':>5} {'CPU s':>7} {'wall s':>7}" + ("  {:>9}".format("before") if old else "")]
    for name in order:
        cpu, wall, n = files[name]
        was = "" if old is None else "  {:>9}".format(f"{old['files'][name][0]:.1f}" if name in old["files"] else "-")
        lines.append(f"{name:60} {n:5d} {cpu:7.1f} {wall:7.1f}{was}")
    tests_cpu = sum(row[0] for row in files.values())
    fixed = sum(run["fixed_cpu_s"].values())
    lines.append(f"{len(files)} files, {sum(int(r[2]) for r in files.values())} tests: tests {tests_cpu:.1f} s CPU, "
                 f"fixed per process (start-up, collection) {fixed:.1f} s CPU "
                 f"({', '.join(f'{w} {s:.1f}' for w, s in sorted(run['fixed_cpu_s'].items()))})")
    if old is not None:
        lines.append(f"before: tests {sum(r[0] for r in old['files'].values()):.1f} s CPU, "
                     f"fixed {sum(old['fixed_cpu_s'].values()):.1f} s CPU")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--tests", type=int, default=0, help="also print this many slowest tests by CPU")
    parser.add_argument("--json", type=Path, help="write the per-file figures here")
    parser.add_argument("--compare", type=Path, help="an earlier --json file to print beside this run")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        env = dict(os.environ, **{_ENV: directory})
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent), env.get("PYTHONPATH")]))
        started, cpu = time.perf_counter(), _cpu()
        code = subprocess.call([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "suite_profile",
                                *args.pytest_args], cwd=REPO, env=env)
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
        run = _merge(Path(directory))
    run.update(wall_s=wall, cpu_s=cpu, exit=code)
    old = json.loads(args.compare.read_text()) if args.compare else None
    if args.tests:
        print(_slowest_tests(run, args.tests))
    print(_table(run, args.top, old))
    print(f"pytest exit {code}; whole run {wall:.1f} s wall, {cpu:.1f} s CPU (every process)")
    if args.json:
        args.json.write_text(json.dumps(run, indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())
