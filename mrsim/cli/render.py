"""Human-facing output: summary tables on stdout (cluster lines: :mod:`mrsim.run.describe`; progress bars:
:mod:`mrsim.run.progress`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.run.describe import cluster_line, run_cluster_line, yarn_cluster_text, yarn_size_text  # noqa: F401
from mrsim.run.progress import progress_bar  # noqa: F401 - the commands' progress bars
from mrsim.wording import clip_left

if TYPE_CHECKING:  # (numpy: imported by what makes a result, not by every parser that imports this module)
    from mrsim.tracker.results import ReplayResult


def _fmt(x: float) -> str:
    return f"{x:,.1f}"


def print_replay_table(result: ReplayResult, out_dir: str | None = None, max_rows: int = 20) -> None:
    jobs = result.jobs
    s = result.summary
    spec = result.spec
    print(f"mrsim replay: {spec.get('trace')}")
    hb = spec.get("heartbeat_interval_s")
    mode = spec.get("mode")
    from mrsim.whatif.announce import heartbeat_label

    mode_text = "task-completion driven (no heartbeats)" if mode == "task" else f"heartbeat {hb:g} s ({heartbeat_label(spec)})"
    print(f"scheduler {result.scheduler} | {run_cluster_line(spec)} | {mode_text} | seed {spec.get('seed')}")
    print()
    header = f"{'job':<28} {'maps':>6} {'reduces':>7} {'submit s':>10} {'start s':>10} {'finish s':>10} {'completion s':>12} {'actual s':>10}"
    print(header)
    print("-" * len(header))
    shown = jobs if len(jobs) <= max_rows else jobs.head(max_rows)
    for row in shown.itertuples(index=False):
        actual = "" if row.actual_completion_s != row.actual_completion_s else _fmt(row.actual_completion_s)
        print(f"{clip_left(row.job_id, 28):<28} {row.maps:>6} {row.reduces:>7} {_fmt(row.submit_s):>10} {_fmt(row.start_s):>10} "
              f"{_fmt(row.finish_s):>10} {_fmt(row.completion_s):>12} {actual:>10}")
    if len(jobs) > max_rows:
        print(f"... {len(jobs) - max_rows} more jobs (see --out DIR for every job and task)")
    print()
    print(f"jobs {s['jobs']}  tasks {s['tasks']:,}  makespan {_fmt(s['makespan_s'])} s  mean completion "
          f"{_fmt(s['mean_completion_s'])} s  p95 {_fmt(s['p95_completion_s'])} s")
    if "deadlines_missed" in s:
        print(f"deadlines missed {s['deadlines_missed']}  relative deadline exceeded {s['relative_deadline_exceeded']:.3f}")
    print(f"{s['events']:,} events ({s['heartbeats']:,} heartbeats) in {s['wall_s']:.3f} s wall")
    if out_dir:
        print(f"wrote {out_dir}/jobs.csv, tasks.csv, attempts.csv and timeseries.csv")
