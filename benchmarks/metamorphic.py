"""The what-if laws (:mod:`mrsim.whatif.laws`) on every real trace of a list, as docs/what-if.md publishes them.

    python3 benchmarks/metamorphic.py benchmarks/traces.txt [--seeds 10] [--out benchmarks/results/metamorphic.json]
    python3 benchmarks/metamorphic.py --render benchmarks/results/metamorphic.json   # the table of docs/what-if.md

TRACE_LIST: paths relative to ``$MRSIM_SHARED_DATA`` (else ``../shared/data``), one per line (the list of
docs/validation.md). Every check is printed as it finishes and written, with the violations, to ``--out``
(``--render`` prints the table docs/what-if.md holds from that file).
Not a timed benchmark: it checks what-if answers. Cost: about 2 + 5 x seeds replays per trace, in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from mrsim.whatif.laws import TOLERANCE, check_trace


LAWS = ("fewer-nodes", "more-nodes", "more-slots", "heavier-load", "same-cluster", "one-job")


def render(doc: dict) -> str:
    """Per law: checks, violations, checks exempt under a named Hadoop rule, and the largest move toward the
    forbidden side that stayed within the tolerance."""
    lines = [f"{doc['checks']} checks on {doc['traces']} traces, seeds 0-{doc['seeds'] - 1}, tolerance "
             f"{100 * doc['tolerance']:g} %: **{doc['violations']} violation(s)**.", "",
             "| law | checks | violations | exempt (Hadoop's own rule) | closest to the forbidden side |",
             "|---|---|---|---|---|"]
    for law in LAWS:
        rows = [r for r in doc["rows"] if r["law"] == law]
        if not rows:
            continue
        bad = sum(not r["holds"] for r in rows)
        exempt = sum(bool(r["exempt"]) for r in rows)
        judged = [r for r in rows if not r["exempt"] and r["direction"] in (">=", "<=")]
        worst = ""
        if judged:
            sign = {">=": -1.0, "<=": 1.0}
            w = max(judged, key=lambda r: sign[r["direction"]] * r["change_pct"])
            worst = f"{w['change_pct']:+.2f} % ({w['trace'].split('/')[-1]}, {w['metric']})"
        lines.append(f"| {law} | {len(rows)} | {bad} | {exempt} | {worst} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("trace_list", nargs="?")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--out", default="benchmarks/results/metamorphic.json")
    p.add_argument("--render", metavar="JSON", help="print the docs table of a result file and exit")
    args = p.parse_args(argv)
    if args.render:
        print(render(json.loads(Path(args.render).read_text())), end="")
        return 0
    if not args.trace_list:
        p.error("give a TRACE_LIST (or --render JSON)")
    data = Path(os.environ.get("MRSIM_SHARED_DATA", "../shared/data"))
    traces = [line.strip() for line in Path(args.trace_list).read_text().splitlines() if line.strip()]
    rows, started = [], time.perf_counter()
    for trace in traces:
        path = data / trace
        if not path.exists():
            print(f"{trace}: missing, skipped", file=sys.stderr)
            continue
        checks = check_trace(str(path), tuple(range(args.seeds)))
        for c in checks:
            row = c.row()
            row["trace"] = trace
            rows.append(row)
            mark = "ok " if c.holds else "BAD"
            why = f" [exempt: {c.exempt}]" if c.exempt else ""
            print(f"{mark} {trace} {c.law} {c.metric}: {c.base:.2f} -> {c.variant:.2f} ({c.change_pct:+.1f} %){why}")
    bad = [r for r in rows if not r["holds"]]
    doc = {"tolerance": TOLERANCE, "seeds": args.seeds, "traces": len({r["trace"] for r in rows}),
           "checks": len(rows), "violations": len(bad), "wall_s": round(time.perf_counter() - started, 1),
           "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(rows)} checks on {doc['traces']} traces, {len(bad)} violation(s) beyond {100 * TOLERANCE:g} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
