"""Task-timeline rendering speed (``mrsim.analysis.plots.timeline_figure`` + ``save_figure``). Prints figures; not a test.

Usage: python3 benchmarks/bench_plots.py [--tasks 60000] [--repeat 3] [--format svg]

Renders the same seeded random task table (70 % maps, 200 trackers, 300 jobs, over 10,000 s) at ``--tasks`` tasks
and at a tenth of that as the baseline in the same run, and prints tasks, artists per axis, output size,
best-of-``repeat`` wall and CPU seconds, and the ratio big / baseline (about 1 when rendering cost is dominated
by the fixed per-figure work, up to 10 if it grows linearly with tasks). The artist count is asserted (at most
two collections per axis: one per task kind, bars rasterised), so a change that draws one artist per task fails
here rather than only getting slower. ``tests/analysis/sweeps/test_plots.py`` asserts the same bound without timing.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from mrsim.analysis.plots import save_figure, timeline_figure


def task_table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    start = rng.uniform(0, 10_000, n)
    return pd.DataFrame({"job_id": rng.integers(0, 300, n).astype(str),
                         "type": np.where(rng.random(n) < 0.7, "MAP", "REDUCE"),
                         "tracker": rng.integers(0, 200, n).astype(str), "start_s": start,
                         "shuffle_end_s": start + 5.0, "finish_s": start + rng.exponential(30.0, n)})


def render(tasks: pd.DataFrame, out: Path, repeat: int) -> tuple[float, float, int, int]:
    """Best wall s, best CPU s, max artists per axis, output bytes."""
    best_wall = best_cpu = float("inf")
    artists = size = 0
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fig = timeline_figure(tasks)
        save_figure(fig, out)
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
        artists = max(len(ax.collections) for ax in fig.axes[:2])
        size = out.stat().st_size
    assert artists <= 2, f"{artists} collections on one axis: one artist per task would not scale"
    return best_wall, best_cpu, artists, size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=60_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--format", default="svg", choices=("svg", "png", "pdf"))
    args = ap.parse_args(argv)

    print(f"timeline_figure + save_figure ({args.format}), best of {args.repeat}")
    print(f"{'tasks':>8} {'artists/axis':>12} {'size_kB':>8} {'wall_s':>7} {'cpu_s':>6} {'x baseline':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        baseline_cpu = None
        for n in (max(1, args.tasks // 10), args.tasks):
            wall, cpu, artists, size = render(task_table(n), Path(tmp) / f"t{n}.{args.format}", args.repeat)
            baseline_cpu = baseline_cpu or cpu
            print(f"{n:>8} {artists:>12} {size / 1024:>8.0f} {wall:>7.2f} {cpu:>6.2f} {cpu / baseline_cpu:>10.2f}")
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"\npeak RSS {rss_kb / 1024:.0f} MB; python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
