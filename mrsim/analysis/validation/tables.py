"""Markdown tables of ``mrsim validate --json`` results, as published in ``docs/validation.md``.

Input: a text file listing traces (paths relative to the data directory, one per line) and result directories
in which every trace ``a/b.json`` has ``a_b.json.shared.json`` and ``a_b.json.isolate.json`` (the output of
``mrsim validate --json`` and ``mrsim validate --json --isolate``; ``docs/validation.md`` has the loop)::

    python3 -m mrsim.analysis.validation.tables traces.txt base                 # per trace, shared and isolate, + overall
    python3 -m mrsim.analysis.validation.tables traces.txt groups base off ...  # decomposition per group, then each run

Only scored jobs count (see :mod:`mrsim.analysis.validation.report`). "Distinct job ids" keeps the first occurrence of a
job id over the listed traces (several files hold the same 2009 jobs). Cost: reads every JSON file once.

When a run replayed a job's cleanup task (``spec.job_overheads`` and the trace had one), the simulated span
``finish_s - start_s`` ends at the job's finish, so the task-span error compares it with the trace's task span
*plus* tail, and the tail no longer counts as missing in the (launch + tail) share. Without job overheads (or
for a job without a cleanup task, e.g. on YARN) both are as in :mod:`mrsim.analysis.validation.report`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

MODES = ("shared", "isolate")

#: Groups of traces for the decomposition table: (title, predicate on the trace's relative path).
GROUPS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("2009 Yahoo! 0.20 logs + their traces", lambda t: t.startswith("rumen") and "Folded" not in t and "counters" not in t),
    ("2010 megacluster 0.20 logs + traces", lambda t: "counters" in t),
    ("branch-1 folded trace", lambda t: "Folded" in t),
    ("Gridmix system tests (0.21/0.22, 2011)", lambda t: "gridmix-system" in t),
    ("2.x: SLS, .jhist, Gridmix wordcount", lambda t: t.startswith(("gridmix/", "sls", "jhist"))),
)

#: Per-job keys averaged in the decomposition table (seconds).
TERMS = ("actual_completion_s", "trace_launch_delay_s", "sim_launch_delay_s", "trace_task_span_s", "sim_task_span_s",
         "trace_tail_s", "setup_s", "cleanup_s", "start_lag_s", "finish_lag_s", "failed_attempt_s")


def result_path(out: str | Path, trace: str, mode: str) -> Path:
    return Path(out) / f"{trace.replace('/', '_')}.{mode}.json"


def load(out: str | Path, trace: str, mode: str) -> dict[str, Any] | None:
    path = result_path(out, trace, mode)
    return json.loads(path.read_text()) if path.exists() else None


def mean(values: Iterable[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else float("nan")


def tail_replayed(doc: dict[str, Any], job: dict[str, Any]) -> bool:
    """Whether the replay ran this job's cleanup task (MR1) or its commit tail (YARN calibration,
    ``spec.yarn_calibration``), so that its simulated span includes the job's tail."""
    spec = doc.get("spec", {})
    if spec.get("yarn_calibration"):
        return True
    return bool(spec.get("job_overheads")) and job.get("cleanup_s") is not None


def _rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The scored job rows of one result, each with ``tail_replayed`` added."""
    return [dict(j, tail_replayed=tail_replayed(doc, j)) for j in doc["jobs"] if j["scored"]]


def span_error(job: dict[str, Any]) -> float | None:
    """The task-span error of a job row in %, or None when the trace span is unknown or zero. The trace side
    includes the tail when the replay ran the job's cleanup task (``tail_replayed``)."""
    trace, sim = job.get("trace_task_span_s"), job.get("sim_task_span_s")
    if not trace or sim is None:
        return None
    if job.get("tail_replayed"):
        if job.get("trace_tail_s") is None:
            return None
        trace += job["trace_tail_s"]
    return 100.0 * (sim - trace) / trace


def scored_rows(out: str | Path, traces: Iterable[str], mode: str = "shared") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for t in traces:
        doc = load(out, t, mode)
        if doc is not None:
            rows += _rows(doc)
    return rows


def _overhead_share(job: dict[str, Any]) -> float | None:
    """Launch delay and tail the replay is short of, in % of the actual completion (the tail only when the
    replay did not run the job's cleanup task)."""
    if job["trace_launch_delay_s"] is None or job["trace_tail_s"] is None:
        return None
    tail = 0.0 if job.get("tail_replayed") else job["trace_tail_s"]
    return 100.0 * (job["trace_launch_delay_s"] - job["sim_launch_delay_s"] + tail) / job["actual_completion_s"]


def per_trace(traces: Sequence[str], out: str | Path) -> list[str]:
    """One row per trace (both modes) and the overall rows."""
    lines = [
        "| trace | scored | shared: mean / max abs error % | isolate: mean / max abs error % | task-span error % "
        "| launch delay trace / sim s | tail s | (launch + tail) / actual % |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_id: dict[str, dict[str, list[float]]] = {m: {} for m in MODES}
    for t in traces:
        docs = {m: load(out, t, m) for m in MODES}
        if any(d is None for d in docs.values()):
            continue
        for m, d in docs.items():
            for j in d["jobs"]:  # type: ignore[union-attr]
                if j["scored"]:
                    by_id[m].setdefault(j["job_id"], []).append(abs(j["error_pct"]))
        s, i = docs["shared"]["summary"], docs["isolate"]["summary"]  # type: ignore[index]
        e = s["error_sources"]
        rows = _rows(docs["shared"])  # type: ignore[arg-type]
        share = mean(_overhead_share(j) for j in rows)
        span = mean(abs(x) if (x := span_error(j)) is not None else None for j in rows)
        lines.append(
            f"| `{t}` | {s['scored_jobs']}/{s['jobs']} | {s['mean_abs_error_pct']:.1f} / {s['max_abs_error_pct']:.1f} "
            f"| {i['mean_abs_error_pct']:.1f} / {i['max_abs_error_pct']:.1f} | {span:.1f} "
            f"| {e['trace_launch_delay_s']:.1f} / {e['sim_launch_delay_s']:.1f} | {e['trace_tail_s']:.1f} | {share:.1f} |")
    for label, pick in (("every file", lambda v: v), ("distinct job ids", lambda v: v[:1])):
        sh = [x for v in by_id["shared"].values() for x in pick(v)]
        iso = [x for v in by_id["isolate"].values() for x in pick(v)]
        if sh and iso:
            lines.append(f"| **overall, {label}** | {len(sh)} | **{mean(sh):.1f} / {max(sh):.1f}** "
                         f"| **{mean(iso):.1f} / {max(iso):.1f}** | | | | |")
    return lines


def groups(traces: Sequence[str], outs: Sequence[str]) -> list[str]:
    """Per group: decomposition means from the first directory, then |error| / |task-span error| of each run."""
    lines = ["| group | jobs | " + " | ".join(TERMS) + " | signed error % | signed task-span error % "
             "| mean abs error % | (launch + tail) / actual % |",
             "|---|---|" + "---|" * (len(TERMS) + 4)]
    for name, pick in GROUPS:
        rows = scored_rows(outs[0], [t for t in traces if pick(t)])
        if not rows:
            continue
        cells = [f"{mean(j[k] for j in rows):.1f}" for k in TERMS]
        lines.append(f"| {name} | {len(rows)} | " + " | ".join(cells)
                     + f" | {mean(j['error_pct'] for j in rows):+.1f} | {mean(span_error(j) for j in rows):+.1f}"
                     + f" | {mean(abs(j['error_pct']) for j in rows):.1f} | {mean(_overhead_share(j) for j in rows):.1f} |")
    lines += ["", "| group | " + " | ".join(f"{o}: error / task-span error %" for o in outs) + " |",
              "|---|" + "---|" * len(outs)]
    for name, pick in GROUPS:
        cells = []
        for out in outs:
            rows = scored_rows(out, [t for t in traces if pick(t)])
            cells.append(f"{mean(abs(j['error_pct']) for j in rows):.1f} / "
                         f"{mean(abs(e) if (e := span_error(j)) is not None else None for j in rows):.1f}" if rows else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    traces = Path(args[0]).read_text().split()
    lines = groups(traces, args[2:]) if args[1] == "groups" else per_trace(traces, args[1])
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
