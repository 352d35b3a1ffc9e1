"""A million jobs on ten thousand nodes, streamed: peak RSS and wall time of the whole process.

Usage: python3 benchmarks/bench_million.py [--jobs 1000000] [--nodes 10000] [--scheduler fifo] [--keep FILE]

The workload is Facebook's 2009 mix as SWIM published it: the two ``FB-2009_samples_24_times_1hr_*.tsv`` day
samples (5,894 and about as many jobs a day, taken from a 600-machine cluster; read from ``$MRSIM_SHARED_DATA/swim``
or ``../shared/data/swim``), tiled day after day until ``--jobs`` jobs, each copy with new job ids. Arrivals are
compressed by ``600 / nodes`` (the same jobs per machine per second as at Facebook). Tasks come from SWIM's bytes
through ``mrsim.profiler.swim.SwimTaskModel``'s defaults (64 MB splits, 1 GB per reducer): most jobs are one map
(86 %), a few have up to 112,575; about 71.5 tasks per job on average.

The script writes the tiled SWIM file (gzip) into a temporary directory, then runs
``/usr/bin/time -v mrsim replay FILE --stream --nodes N --map-slots 1 --reduce-slots 1 --json`` and prints the
run's figures: jobs, tasks, events and events per task, heartbeats, makespan, the engine's wall time, the
process's wall and CPU time and its peak RSS. ``--jobs 100000`` gives the same per-job costs in a tenth of the
time. No baseline: the figures are absolute (the machine's load is printed with them).

It also prints a digest of the result (the ``--json`` object without its wall-clock fields: every job's row, the
summary's counts, events and heartbeats included), so that runs of two versions of mrsim can be checked to give
the same replay; ``--check DIGEST`` exits 1 when the run's digest differs.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FB_2009_NODES = 600  # SWIM's FB-2009 trace: a 600-machine cluster (Chen et al., VLDB 2012, Table 1)
DAY_S = 86400.0


def _samples() -> list[Path]:
    root = Path(os.environ.get("MRSIM_SHARED_DATA") or Path(__file__).resolve().parents[1] / ".." / "shared" / "data")
    found = sorted((root / "swim").glob("FB-2009_samples_24_times_1hr_*.tsv"))
    if not found:
        sys.exit(f"no FB-2009 SWIM sample under {root / 'swim'} (set MRSIM_SHARED_DATA)")
    return found


def write_tiled_swim(out: Path, jobs: int, nodes: int) -> int:
    """Tile the FB-2009 day samples into ``jobs`` SWIM lines, arrivals scaled by 600 / nodes. Returns days used."""
    days = [[line.split() for line in path.read_text().splitlines() if line.strip()] for path in _samples()]
    scale = FB_2009_NODES / nodes
    written = day = 0
    with gzip.open(out, "wt", compresslevel=1) as fh:
        while written < jobs:
            rows = days[day % len(days)]
            for jid, submit, gap, inp, shuffle, output in rows:
                if written == jobs:
                    break
                t = (day * DAY_S + float(submit)) * scale
                fh.write(f"d{day}_{jid}\t{t:.3f}\t{float(gap) * scale:.3f}\t{inp}\t{shuffle}\t{output}\n")
                written += 1
            day += 1
    return day


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--scheduler", default="fifo")
    ap.add_argument("--keep", metavar="FILE", help="also write the replay's --json output here")
    ap.add_argument("--check", metavar="DIGEST", help="exit 1 unless the result's digest is this one")
    args = ap.parse_args(argv)
    mrsim = shutil.which("mrsim") or sys.exit("mrsim is not on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "fb2009-tiled.tsv.gz"
        t0 = time.perf_counter()
        days = write_tiled_swim(trace, args.jobs, args.nodes)
        print(f"wrote {args.jobs:,} jobs ({days} FB-2009 days, arrivals x{FB_2009_NODES / args.nodes:.4f}) in "
              f"{time.perf_counter() - t0:.1f} s: {trace.stat().st_size / 1e6:.1f} MB gzip", flush=True)
        out = Path(args.keep) if args.keep else Path(tmp) / "out.json"
        load = os.getloadavg()
        cmd = ["/usr/bin/time", "-v", mrsim, "replay", str(trace), "--stream", "--nodes", str(args.nodes),
               "--map-slots", "1", "--reduce-slots", "1", "--scheduler", args.scheduler, "--json"]
        print("running:", " ".join(cmd[2:]), flush=True)
        t0 = time.perf_counter()
        with open(out, "wb") as fh:
            proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            print(proc.stderr[-3000:])
            return proc.returncode
        import orjson

        doc = orjson.loads(out.read_bytes())
        summary = doc["summary"]
        digest = result_digest(doc)
        rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", proc.stderr).group(1))
        system = float(re.search(r"System time \(seconds\): ([\d.]+)", proc.stderr).group(1))
        tasks, events = summary["tasks"], summary["events"]
        print(f"jobs {summary['jobs']:,}  tasks {tasks:,} ({tasks / summary['jobs']:.1f} per job)  events {events:,} "
              f"({events / tasks:.2f} per task)  heartbeats {summary['heartbeats']:,}")
        print(f"makespan {summary['makespan_s']:,.0f} s simulated; mean completion {summary['mean_completion_s']:.1f} s, "
              f"p95 {summary['p95_completion_s']:.1f} s")
        print(f"engine wall {summary['wall_s']:.1f} s; process wall {wall:.1f} s, CPU {user + system:.1f} s "
              f"(user {user:.1f} + sys {system:.1f}); peak RSS {rss_kb / 1024:.0f} MiB")
        print(f"load average before the run {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}; after "
              f"{os.getloadavg()[0]:.1f} (2 cores)")
        print(f"result digest {digest}")
        if args.check and args.check != digest:
            print(f"DIFFERENT RESULT: expected digest {args.check}")
            return 1
    return 0


def result_digest(doc: dict) -> str:
    """sha256 of the ``--json`` object without what depends on the machine or the file's location: the
    wall-clock fields, the trace's path and the engine build."""
    import orjson

    summary = {k: v for k, v in doc["summary"].items() if k not in ("wall_s", "events_per_s")}
    spec = {k: v for k, v in doc.get("spec", {}).items() if k not in ("trace", "engine_build", "trace_cache")}
    kept = {"jobs": doc["jobs"], "summary": summary, "spec": spec, "scheduler": doc.get("scheduler")}
    return hashlib.sha256(orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)).hexdigest()


if __name__ == "__main__":
    sys.exit(main())
