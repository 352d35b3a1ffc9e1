"""Production-sized real-format inputs: profile, first replay and cached replay on 10,000 nodes, wall time and peak RSS.

    python3 benchmarks/bench_real_scale.py [--jobs 4000] [--seed 3] [--nodes 10000]
                                           [--out benchmarks/results/real_scale.json]
    python3 benchmarks/bench_real_scale.py --render benchmarks/results/real_scale.json

The input is a Rumen trace written by ``mrsim synth --jobs JOBS --seed SEED`` (the Facebook-like model of SimMR
section V-C, in the real Rumen ``LoggedJob`` format: every command reads it as it reads a trace from a cluster).
Each step is one ``mrsim`` process, run in a fresh trace cache (``MRSIM_CACHE_DIR`` under the work directory):

* ``profile``: ``mrsim profile TRACE -o STORE`` (a trace store of the input; ``--no-profile`` skips it);
* ``first replay``: ``mrsim replay TRACE --nodes NODES --json`` with an empty cache (a miss: one pass over the
  input, the entry saved);
* ``cached replay``: the same command again (a hit: the entry's store);
* ``no cache``: the same with ``--no-cache`` (the pass, nothing saved).

Peak RSS is the largest resident set of the step's process tree (``wait4``'s ``ru_maxrss``: the process and the
children it reaped, such as the forked reader and the cache's saving child; the largest one, not their sum).
Bytes per task are the peak over the trace's tasks. The ``--json`` outputs of the three replays are compared (all
but the wall-clock fields) and must be equal. The extrapolated limit assumes peak RSS grows linearly in tasks at
the first replay's bytes per task, the fixed cost of the process included (so it errs low): an extrapolation, not
a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The issue's target for a first replay: 200 MB + 100 bytes per task.
TARGET_BASE_MB, TARGET_BYTES_PER_TASK = 200.0, 100.0
#: A 24 GB machine, in MB, for the extrapolated limit.
MACHINE_MB = 24 * 1024.0
_VOLATILE = ("wall_s", "events_per_s")


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall s, peak RSS MB, stdout) of ``python -m mrsim ARGS``."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "mrsim", *args], stdout=out, stderr=subprocess.DEVNULL,
                                env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"mrsim {' '.join(args)}: exit {proc.returncode}")
        out.seek(0)
        return wall, usage.ru_maxrss / 1024.0, out.read()


def _stable(raw: bytes) -> dict:
    """The ``--json`` object without its wall-clock fields."""
    doc = json.loads(raw)

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in _VOLATILE and k != "trace_cache"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(doc)  # type: ignore[return-value]


def measure(jobs: int, seed: int, nodes: int, work: Path, profile: bool = True) -> dict:
    env = {**os.environ, "MRSIM_CACHE_DIR": str(work / "cache")}
    env.pop("MRSIM_NO_CACHE", None)
    trace = work / f"synth-{jobs}-{seed}.json.gz"
    _run(["synth", "--jobs", str(jobs), "--seed", str(seed), "-o", str(trace)], env)
    replay = ["replay", str(trace), "--nodes", str(nodes), "--json", "--quiet"]
    steps: dict[str, dict] = {}
    outputs: dict[str, dict] = {}
    tasks = 0
    runs = [("profile", ["profile", str(trace), "-o", str(work / "store")])] if profile else []
    for name, args in (*runs, ("first replay", replay), ("cached replay", replay), ("no cache", [*replay, "--no-cache"])):
        wall, rss, out = _run(args, env)
        steps[name] = {"wall_s": round(wall, 2), "peak_rss_mb": round(rss, 1)}
        if name != "profile":
            outputs[name] = _stable(out)
            tasks = int(outputs[name]["summary"]["tasks"])
        print(f"{name:>14}: {wall:7.2f} s, peak RSS {rss:7.1f} MB", flush=True)
    first = outputs["first replay"]
    same = all(o == first for o in outputs.values())
    for step in steps.values():
        step["bytes_per_task"] = round(step["peak_rss_mb"] * 1024 * 1024 / tasks, 1)
    target_mb = TARGET_BASE_MB + TARGET_BYTES_PER_TASK * tasks / 1024 / 1024
    slope = steps["first replay"]["bytes_per_task"]
    return {"jobs": jobs, "seed": seed, "nodes": nodes, "tasks": tasks, "input_bytes": trace.stat().st_size,
            "steps": steps, "outputs_equal": same, "target_first_mb": round(target_mb, 1),
            "first_within_target": steps["first replay"]["peak_rss_mb"] <= target_mb,
            "extrapolated_tasks_in_24gb": int(MACHINE_MB * 1024 * 1024 / slope) if slope else None}


def render(doc: dict) -> str:
    """The table ``docs/performance.md`` holds between its ``real-scale`` markers."""
    lines = [f"`mrsim synth --jobs {doc['jobs']:,} --seed {doc['seed']}` ({doc['tasks']:,} tasks, "
             f"{doc['input_bytes'] / 1e6:.0f} MB gzipped Rumen JSON), `--nodes {doc['nodes']:,} --json`, 2 cores:",
             "",
             "| step | wall s | peak RSS MB | bytes per task |",
             "|---|---|---|---|"]
    for name, step in doc["steps"].items():
        lines.append(f"| {name} | {step['wall_s']:.1f} | {step['peak_rss_mb']:.0f} | {step['bytes_per_task']:.0f} |")
    lines += ["",
              f"Target for the first replay: {doc['target_first_mb']:.0f} MB (200 MB + 100 B per task): "
              f"{'met' if doc['first_within_target'] else 'not met'}. The three replays' `--json` objects are "
              f"{'equal' if doc['outputs_equal'] else 'NOT equal'} (wall-clock fields aside). Extrapolated, not "
              f"measured: at the first replay's bytes per task a 24 GB machine holds about "
              f"{doc['extrapolated_tasks_in_24gb'] / 1e6:.0f} million tasks.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--jobs", type=int, default=4000)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--nodes", type=int, default=10000)
    p.add_argument("--out", default="benchmarks/results/real_scale.json")
    p.add_argument("--no-profile", action="store_true", help="measure the three replays only")
    p.add_argument("--render", metavar="RESULT", help="print the docs table of a result file and exit")
    args = p.parse_args(argv)
    if args.render:
        print(render(json.loads(Path(args.render).read_text())), end="")
        return 0
    with tempfile.TemporaryDirectory(prefix="mrsim-real-scale-") as tmp:
        doc = measure(args.jobs, args.seed, args.nodes, Path(tmp), profile=not args.no_profile)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(render(doc), end="")
    return 0 if doc["outputs_equal"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
