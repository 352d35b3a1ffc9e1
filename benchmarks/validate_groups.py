"""Validation figures per trace group, as docs/validation.md publishes them ("Results with calibration").

    python3 benchmarks/validate_groups.py TRACE_LIST OUTDIR [--jobs 2] [--compare OTHER_OUTDIR] -- [mrsim validate flags]

Runs ``mrsim validate DATA/TRACE --json --quiet --no-cache FLAGS`` (shared mode) for every trace of TRACE_LIST
(paths relative to ``$MRSIM_SHARED_DATA``, else ``../shared/data``; the list docs/validation.md's per-trace table
holds), writes each result where :mod:`mrsim.analysis.validation.tables` reads it (``OUTDIR/a_b.json.shared.json``;
a result already there is kept, so an interrupted run resumes), and prints one row per group of
``tables.GROUPS`` (mean absolute / mean signed / max absolute error %, scored jobs; "every file": the group's mean
over its scored jobs in every file) and the overall row over distinct job ids without the folded trace. With
``--compare`` it also prints each trace whose mean absolute error differs from OTHER_OUTDIR's by more than
0.05 points (the rule "no trace worse by more than 2 points" is read off that list).

Not a timed benchmark: it prints validation figures. Cost: one ``mrsim validate`` process per trace (2-3 minutes
for the 50 traces on two cores with ``--jobs 2``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mrsim.analysis.validation import tables as T


def run_one(data: Path, trace: str, out: Path, flags: list[str]) -> str | None:
    """Validate one trace into OUTDIR; returns an error line, or None."""
    target = T.result_path(out, trace, "shared")
    if target.exists():
        return None
    cmd = [sys.executable, "-m", "mrsim", "validate", str(data / trace), "--json", "--quiet", "--no-cache", *flags]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return f"{trace}: exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"
    tmp = target.with_suffix(".tmp")
    tmp.write_text(done.stdout)
    tmp.replace(target)
    return None


def summary(rows: list[dict]) -> str:
    if not rows:
        return "-"
    errs = [j["error_pct"] for j in rows]
    return (f"{T.mean(abs(e) for e in errs):.1f} / {T.mean(errs):+.1f} / {max(abs(e) for e in errs):.1f} "
            f"({len(rows)})")


def group_rows(traces: list[str], out: Path) -> list[str]:
    lines = []
    for name, pick in T.GROUPS:
        lines.append(f"| {name} | {summary(T.scored_rows(out, [t for t in traces if pick(t)]))} |")
    seen: dict[str, dict] = {}
    for row in T.scored_rows(out, [t for t in traces if "Folded" not in t]):
        seen.setdefault(row["job_id"], row)
    lines.append(f"| overall, distinct job ids, without the folded trace | {summary(list(seen.values()))} |")
    return lines


def per_trace(traces: list[str], out: Path) -> dict[str, float]:
    figures = {}
    for t in traces:
        doc = T.load(out, t, "shared")
        if doc is not None and doc["summary"].get("scored_jobs"):
            figures[t] = doc["summary"]["mean_abs_error_pct"]
    return figures


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    flags: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, flags = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("traces")
    parser.add_argument("out")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--compare")
    args = parser.parse_args(argv)
    data = Path(os.environ.get("MRSIM_SHARED_DATA", "../shared/data"))
    traces = Path(args.traces).read_text().split()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        errors = [e for e in pool.map(lambda t: run_one(data, t, out, flags), traces) if e]
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    print(f"{out} ({' '.join(flags) or 'defaults'}): mean abs / signed / max abs error % (scored jobs)")
    print("\n".join(group_rows(traces, out)))
    if args.compare:
        now, before = per_trace(traces, out), per_trace(traces, Path(args.compare))
        print(f"\ntraces whose mean abs error changed against {args.compare}:")
        for t, v in now.items():
            if t in before and abs(v - before[t]) > 0.05:
                print(f"  {t}: {before[t]:.1f} -> {v:.1f} ({v - before[t]:+.1f})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
