"""Cost of the input checks (``docs/reliability.md``) at the SimMR scale: load a 1148-job Rumen trace and replay it.

The checks live at the input boundaries (strict JSON decoding, ``LoggedJob`` shape and range checks, limits,
special-file refusal, store checksums), never inside the engine, so ``bench_replay.py`` (which replays an
in-memory workload) does not see them. This script times what a user runs: read the trace file, build the
templates, replay under FIFO on 64 nodes with 1 map + 1 reduce slot (Hadoop 1.2 heartbeats). It prints CPU
seconds for load and replay, best of ``--repeat`` runs, and the load's share of the total.

Run it against another checkout to compare: ``PYTHONPATH=OTHER python3 benchmarks/bench_input_checks.py``.
Usage: ``python3 benchmarks/bench_input_checks.py [--jobs 1148] [--repeat 3] [--trace FILE]``
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrsim.tracker.replay import ReplayOptions, replay  # noqa: E402
from mrsim.tracker.scheduling import create_scheduler  # noqa: E402
from mrsim.profiler.workloads import load_workload  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.hadoop_conf import HadoopConf  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1148)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trace", help="an existing trace (default: mrsim synth --jobs JOBS --seed 42)")
    args = ap.parse_args()
    import mrsim

    with tempfile.TemporaryDirectory() as tmp:
        trace = args.trace
        if trace is None:
            from mrsim.cli import main as cli

            trace = str(Path(tmp) / "synth.json.gz")
            assert cli(["synth", "--jobs", str(args.jobs), "--seed", "42", "-o", trace]) == 0
        cluster = uniform_cluster(64, 1, 1)
        loads, replays = [], []
        for _ in range(args.repeat):
            gc.collect()
            t0 = time.process_time()
            workload = load_workload(trace)
            t1 = time.process_time()
            result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions())
            t2 = time.process_time()
            loads.append(t1 - t0)
            replays.append(t2 - t1)
        tasks = int(result.summary["tasks"])
        assert tasks == sum(len(j.map_durations) + len(j.reduce_durations) for j in workload.jobs)
    load, run = min(loads), min(replays)
    print(f"mrsim from {Path(mrsim.__file__).parent}")
    print(f"{len(workload)} jobs, {tasks} tasks, {result.summary['events']} events")
    print(f"load  {load:.3f} s CPU (best of {args.repeat})")
    print(f"replay {run:.3f} s CPU (best of {args.repeat})")
    print(f"total {load + run:.3f} s CPU; load is {100 * load / (load + run):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
