"""CA-FIFO over section 6.7.2's grid, under both readings of Algorithm 9's admission test.

    python3 scripts/cafifo_sweep.py [--out docs/figures/cafifo] [--check]

The section's job (``examples/jobspecs/cafifo_30_tasks.toml``: 30 maps of 100 s CPU, no disk) on 2 and 5
TaskTrackers of 4 cores with 4, 6, 8 and 10 map slots (one reduce slot), CPU thresholds 0.5 to 1.0 in steps of 0.1
(the disk's stays at its default, which a CPU-only job never reaches), ``admission`` ``current`` and
``predicted``, Seidmann's CPU (the default node model), replay seed 0, in two set-ups:

* ``dissertation``: Hadoop 0.22's heartbeats (3 s on these clusters) and ``--locality on``, so the job's maps,
  which have no split locations, go out one per tracker per heartbeat as Hadoop's FIFO hands out such maps
  (docs/tdam.md, "The five-TaskTracker figure": the set-up under which the prose's 530 s and 248 s are met);
* ``default``: mrsim's defaults, Hadoop 1.2's heartbeats (0.3 s) and every map rack-local.

Writes ``OUT/sweep.csv`` (one row per run: setup, admission, nodes, threshold, map_slots, makespan_s) and
``OUT/sweep.md`` (one table per set-up, the form docs/tdam.md shows). ``--check`` recomputes every cell and compares
it with the committed CSV instead of writing (exit 1 on a difference). 192 replays, a few seconds.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

from mrsim.io import atomic_write
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion
from mrsim.profiler.jobspec import load_jobspec
from mrsim.schedulers.cafifo import ADMISSION_MODES
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler

REPO = Path(__file__).resolve().parents[1]
JOB = REPO / "examples" / "jobspecs" / "cafifo_30_tasks.toml"
NODES = (2, 5)
SLOTS = (4, 6, 8, 10)
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: set-up name -> (Hadoop version of the heartbeat formula, --locality)
SETUPS = {"dissertation": ("0.22", "on"), "default": ("1.2", "auto")}
COLUMNS = ("setup", "admission", "nodes", "threshold", "map_slots", "makespan_s")


def makespan(setup: str, admission: str, nodes: int, threshold: float, slots: int) -> float:
    """One replay of the grid, s (rounded to 0.01 s, the precision the tables print)."""
    version, locality = SETUPS[setup]
    result = replay(load_jobspec(JOB), uniform_cluster(nodes, slots, 1, 4), HadoopConf(version=HadoopVersion.parse(version)),
                    create_scheduler("cafifo", {"thresholds": {"cpu": threshold}, "admission": admission}),
                    ReplayOptions(contention="tdam", locality=locality, seed=0))
    return round(float(result.summary["makespan_s"]), 2)


def sweep() -> list[dict]:
    return [dict(setup=setup, admission=admission, nodes=nodes, threshold=threshold, map_slots=slots,
                 makespan_s=makespan(setup, admission, nodes, threshold, slots))
            for setup in SETUPS for admission in ADMISSION_MODES for nodes in NODES for threshold in THRESHOLDS
            for slots in SLOTS]


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return [dict(setup=r["setup"], admission=r["admission"], nodes=int(r["nodes"]), threshold=float(r["threshold"]),
                     map_slots=int(r["map_slots"]), makespan_s=float(r["makespan_s"])) for r in csv.DictReader(f)]


def tables(rows: list[dict]) -> str:
    """One markdown table per set-up: a row per (nodes, CPU threshold), the two readings side by side per slot
    count (``current / predicted``)."""
    cell = {(r["setup"], r["admission"], r["nodes"], r["threshold"], r["map_slots"]): r["makespan_s"] for r in rows}
    out = io.StringIO()
    for setup in SETUPS:
        version, locality = SETUPS[setup]
        out.write(f"Set-up `{setup}` (Hadoop {version} heartbeats, `--locality {locality}`): makespan in s, "
                  "current / predicted reading\n\n")
        out.write("| TaskTrackers | CPU threshold | " + " | ".join(f"{s} map slots" for s in SLOTS) + " |\n")
        out.write("|---|---|" + "---|" * len(SLOTS) + "\n")
        for nodes in NODES:
            for threshold in THRESHOLDS:
                pairs = [f"{cell[setup, 'current', nodes, threshold, s]:.2f} / {cell[setup, 'predicted', nodes, threshold, s]:.2f}"
                         for s in SLOTS]
                out.write(f"| {nodes} | {threshold:.1f} | " + " | ".join(pairs) + " |\n")
        out.write("\n")
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "figures" / "cafifo")
    parser.add_argument("--check", action="store_true", help="compare with OUT/sweep.csv instead of writing")
    args = parser.parse_args(argv)
    rows = sweep()
    if args.check:
        committed = read_csv(args.out / "sweep.csv")
        if committed != rows:
            differ = [(a, b) for a, b in zip(committed, rows) if a != b]
            print(f"cafifo_sweep: {len(differ) or abs(len(committed) - len(rows))} cells differ from "
                  f"{args.out / 'sweep.csv'}; first: {differ[:1]}", file=sys.stderr)
            return 1
        print(f"cafifo_sweep: {len(rows)} cells equal {args.out / 'sweep.csv'}")
        return 0
    with atomic_write(args.out / "sweep.csv") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with atomic_write(args.out / "sweep.md") as f:
        f.write(tables(rows))
    print(tables(rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
