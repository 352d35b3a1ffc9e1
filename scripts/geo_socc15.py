"""SWAG against the SRPT heuristics under the ``socc15-*`` presets of ``mrsim geo``, beside the paper's figures.

    python3 scripts/geo_socc15.py [--out docs/figures/geo] [--seeds 1,2,3] [--workers 2] [--table-only]

For each preset (``mrsim.studies.geo.presets``: the trace type, 2-s tasks of equal duration, and mrsim's defaults
where the available text does not state a value), each utilisation of its sweep and each seed, runs
Independent-SRPT, Global-SRPT, Independent-SRPT with Reordering and SWAG on the identical workload (what
``mrsim geo compare --preset NAME --seed S --policies isrpt,gsrpt,reorder-isrpt,swag`` runs). Writes
``OUT/socc15.csv`` (one row per run: trace, utilization, seed, policy, mean_completion_s) and ``OUT/socc15.md``
(SWAG's reduction of mean job completion time against each SRPT variant, averaged over the seeds, beside the
paper's "up to" figures). ``--table-only`` redraws the table from the CSV. About 15 min of CPU for three seeds.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from statistics import mean

from mrsim.io import atomic_write
from mrsim.studies.geo.experiments import sweep
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.presets import PRESETS, scenarios

REPO = Path(__file__).resolve().parents[1]
POLICIES = (Policy.ISRPT, Policy.GSRPT, Policy.REORDER_ISRPT, Policy.SWAG)
#: The paper's figures as its slide summary gives them: SWAG's improvement "up to" these, under higher utilisation.
PAPER_UP_TO = {"facebook": 0.50, "google": 0.29, "exponential": 0.35}
COLUMNS = ("trace", "utilization", "seed", "policy", "mean_completion_s")


def run(seeds: list[int], workers: int) -> list[dict]:
    plan = [sc for name in sorted(PRESETS) for seed in seeds for sc in scenarios(name, seed=seed)]
    rows = sweep(plan, POLICIES, workers=workers)
    return [dict(trace=r["scenario"]["trace"], utilization=r["scenario"]["utilization"], seed=r["scenario"]["seed"],
                 policy=r["policy"], mean_completion_s=round(float(r["mean_completion_s"]), 6)) for r in rows]


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return [dict(trace=r["trace"], utilization=float(r["utilization"]), seed=int(r["seed"]), policy=r["policy"],
                     mean_completion_s=float(r["mean_completion_s"])) for r in csv.DictReader(f)]


def gains(rows: list[dict]) -> dict[tuple[str, float], dict[str, float]]:
    """(trace, utilisation) -> SWAG's mean-JCT reduction against each other policy, averaged over seeds."""
    by = {(r["trace"], r["utilization"], r["seed"], r["policy"]): r["mean_completion_s"] for r in rows}
    out: dict[tuple[str, float], dict[str, float]] = {}
    order = list(PAPER_UP_TO)  # the paper's order of traces
    for trace, util in sorted({(t, u) for t, u, _, _ in by}, key=lambda tu: (order.index(tu[0]), tu[1])):
        seeds = sorted({s for t, u, s, _ in by if (t, u) == (trace, util)})
        out[trace, util] = {p.value: mean(1 - by[trace, util, s, "swag"] / by[trace, util, s, p.value] for s in seeds)
                            for p in POLICIES if p is not Policy.SWAG}
    return out


def table(rows: list[dict]) -> str:
    g = gains(rows)
    seeds = sorted({r["seed"] for r in rows})
    out = io.StringIO()
    out.write(f"SWAG's reduction of mean job completion time (mean of seeds {', '.join(map(str, seeds))}):\n\n")
    out.write("| trace | utilisation | vs I-SRPT | vs G-SRPT | vs I-SRPT + Reordering | paper: up to, vs the SRPT heuristics |\n")
    out.write("|---|---|---|---|---|---|\n")
    for (trace, util), v in g.items():
        paper = f"{100 * PAPER_UP_TO[trace]:.0f} %" if util == max(u for t, u in g if t == trace) else ""
        out.write(f"| {trace} | {util:.1f} | {100 * v['isrpt']:+.1f} % | {100 * v['gsrpt']:+.1f} % | "
                  f"{100 * v['reorder-isrpt']:+.1f} % | {paper} |\n")
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "figures" / "geo")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--table-only", action="store_true", help="redraw OUT/socc15.md from OUT/socc15.csv")
    args = parser.parse_args(argv)
    if args.table_only:
        rows = read_csv(args.out / "socc15.csv")
    else:
        rows = run([int(s) for s in args.seeds.split(",") if s.strip()], args.workers)
        with atomic_write(args.out / "socc15.csv") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    with atomic_write(args.out / "socc15.md") as f:
        f.write(table(rows))
    print(table(rows), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
