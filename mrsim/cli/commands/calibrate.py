"""``mrsim calibrate``: measure a cluster's overheads from its logs, print them, save them as TOML."""

from __future__ import annotations

import argparse
import sys

import orjson

from mrsim.calibration.model import Calibration
from mrsim.errors import InputError
from mrsim.io.atomic import atomic_write

NAME = "calibrate"
HELP = "measure a cluster's launch/report lags, heartbeat interval and outlier trackers from its logs"
DESCRIPTION = (
    "Measure the calibration of the cluster that ran INPUT (a trace, a log, a trace store, or a calibration TOML to "
    "check): per task kind the distributions of launch lag (assignment to attempt start) and report lag (attempt end "
    "to the JobTracker's record), the job initialisation delay, the heartbeat interval the trace shows, JVM reuse, "
    "slots per TaskTracker and outlier TaskTrackers. -o FILE.toml saves it; edit it and pass it back with "
    "--calibration-from. See docs/calibration.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", nargs="+", help="trace files, log directories, trace stores, or a calibration TOML")
    p.add_argument("-o", "--out", metavar="FILE.toml", help="write the calibration as TOML (atomically)")
    p.add_argument("--json", action="store_true", help="print the calibration as one JSON object")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors (with -o)")


def run(args: argparse.Namespace) -> int:
    calibration = _measure(args.inputs)
    if args.out:
        with atomic_write(args.out, "w", what="the calibration") as f:
            f.write(calibration.to_toml())
    if args.json:
        import tomllib

        sys.stdout.buffer.write(orjson.dumps(tomllib.loads(calibration.to_toml())) + b"\n")
    elif not args.quiet:
        print("\n".join(calibration.describe()))
    return 0


def _measure(inputs: list[str]) -> Calibration:
    if len(inputs) == 1 and inputs[0].lower().endswith(".toml"):
        return Calibration.load(inputs[0])
    from mrsim.profiler.observe import Profiler
    from mrsim.profiler.topology_infer import cluster_from_hosts

    profiler = Profiler()
    for path in inputs:
        profiler.add(path)
    slots: tuple[int | None, int | None] = (None, None)
    hosts = profiler.hosts()
    if hosts:
        cluster = cluster_from_hosts(hosts, source="calibrate")
        from collections import Counter

        slots = (Counter(t.map_slots for t in cluster.trackers).most_common(1)[0][0],
                 Counter(t.reduce_slots for t in cluster.trackers).most_common(1)[0][0])
    oob = None
    counts = profiler.trace_conf.as_counts().get("mapreduce.tasktracker.outofband.heartbeat")
    if counts:
        oob = max(counts.items(), key=lambda kv: kv[1])[0].strip().lower() == "true"
    if profiler.calibration.attempts:
        return profiler.calibration.result(", ".join(inputs), oob, slots)
    if profiler.stored_calibration is not None:
        return profiler.stored_calibration
    raise InputError(f"{', '.join(inputs)}: no task attempt times to measure a calibration from")
