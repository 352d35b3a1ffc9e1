"""What a what-if replay costs against the plain replay of the same trace: whole ``mrsim replay`` processes.

    python3 benchmarks/bench_whatif.py [--repeat 5] [--out benchmarks/results/whatif_cost.json]

For each trace (the largest real traces of ``$MRSIM_SHARED_DATA``, else ``../shared/data``), in interleaved rounds:
``mrsim replay TRACE --json`` (the inferred cluster) and the same through the what-if path with ``--nodes`` equal to
the inferred count (the same replay: what the rules cost), half and twice it (a cluster of another size is other
work for the engine: more or fewer trackers heartbeat), each with the trace cache (a hit) and with ``--no-cache``
(the input parsed). The figure is the minimum CPU time (user + system) of each process over the rounds and its
ratio to the plain replay's; ``--render`` prints the table docs/what-if.md holds.
Speed is checked here, by ratios within one run, never by a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

TRACES = ("rumen-branch-1/small-trace-test/goldFoldedTrace.json.gz", "gridmix-system-branch-1/trace_10m.json.gz",
          "rumen/small-trace-test/dispatch-trace-output.json.gz")


def _cpu(args: list[str]) -> float:
    """The child's CPU seconds (user + system): steadier than wall time on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "mrsim", "replay", *args, "--json", "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _inferred_nodes(trace: str) -> int:
    out = subprocess.run([sys.executable, "-m", "mrsim", "replay", trace, "--json", "--quiet"], check=True,
                         capture_output=True, text=True).stdout
    return int(json.loads(out)["spec"]["cluster"]["nodes"])


def render(doc: dict) -> str:
    lines = ["| trace | cache | plain, CPU s | `--nodes` N (same cluster) | half the nodes | twice the nodes |",
             "|---|---|---|---|---|---|"]
    for row in doc["rows"]:
        lines.append(f"| {row['trace'].split('/')[-1]} | {row['cache']} | {row['plain_s']:.3f} | "
                     f"{row['same_ratio']:.2f}x | {row['half_ratio']:.2f}x | {row['twice_ratio']:.2f}x |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", default="benchmarks/results/whatif_cost.json")
    p.add_argument("--render", metavar="JSON")
    args = p.parse_args(argv)
    if args.render:
        print(render(json.loads(Path(args.render).read_text())), end="")
        return 0
    data = Path(os.environ.get("MRSIM_SHARED_DATA", "../shared/data"))
    rows = []
    for name in TRACES:
        trace = str(data / name)
        if not Path(trace).exists():
            continue
        n = _inferred_nodes(trace)  # also fills the trace cache
        for cache, extra in (("hit", []), ("--no-cache", ["--no-cache"])):
            sizes = {"plain": None, "same": n, "half": max(1, n // 2), "twice": 2 * n}
            runs: dict[str, list[float]] = {k: [] for k in sizes}
            for _ in range(args.repeat):
                for key, nodes in sizes.items():
                    runs[key].append(_cpu([trace, *(["--nodes", str(nodes)] if nodes else []), *extra]))
            best = {k: min(v) for k, v in runs.items()}
            row = {"trace": name, "cache": cache, "nodes": n}
            for key in sizes:
                row[f"{key}_s"] = round(best[key], 4)
                if key != "plain":
                    row[f"{key}_ratio"] = round(best[key] / best["plain"], 3)
            rows.append(row)
            print(json.dumps(rows[-1]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=1) + "\n")
    print(render({"rows": rows}), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
