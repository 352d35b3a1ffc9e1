"""Human-facing output: summary tables on stdout, progress bars on stderr (only on a terminal)."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Callable, Iterator

from mrsim.wording import clip_left, counted

if TYPE_CHECKING:  # (numpy: imported by what makes a result, not by every parser that imports this module)
    from mrsim.tracker.results import ReplayResult


#: Seconds a run must last before its progress bar appears.
BAR_DELAY_S = 2.0


@contextlib.contextmanager
def progress_bar(total: int, unit: str) -> Iterator[Callable[[float], None] | None]:
    """Yield a ``progress(done)`` callback drawing a tqdm bar on stderr, or None when stderr is not a terminal.

    ``done`` may be fractional (a comparison's replays report how far each one is), and the bar then shows one
    decimal. A bar of one unit is drawn too when its steps are fractional. The bar appears only once the run has
    taken :data:`BAR_DELAY_S` (tqdm's ``delay``): short runs print nothing.
    """
    if not sys.stderr.isatty() or total < 1:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, file=sys.stderr, leave=False, mininterval=0.2, delay=BAR_DELAY_S,
               bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} " + unit + " [{elapsed}<{remaining}]")

    def update(done: float) -> None:
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()


def _fmt(x: float) -> str:
    return f"{x:,.1f}"


def cluster_line(c: dict) -> str:
    """One line for a cluster description (``ClusterSpec.describe()``): slots, or resources, and datacenters."""
    if "resources" in c:
        totals = ", ".join(f"{name} {amount:,.0f}" for name, amount in c["resources"].items())
        text = f"{counted(c.get('nodes'), 'node')} in {counted(c.get('configurations'), 'configuration')}, {totals}"
    else:
        text = f"{counted(c.get('nodes'), 'node')}, {c.get('map_slots')} map + {c.get('reduce_slots')} reduce slots"
    if c.get("datacenters"):
        text += f", {counted(len(c['datacenters']), 'datacenter')}"
    return text


def run_cluster_line(spec: dict) -> str:
    """The cluster of one run's ``spec`` for a table's heading: NodeManagers with memory and vcores in YARN mode
    (:func:`yarn_size_text`; a YARN cluster has no slots), :func:`cluster_line` otherwise."""
    if spec.get("engine") == "yarn" and "yarn" in spec:
        return yarn_size_text(spec)
    return cluster_line(spec.get("cluster", {}))


#: ``yarn.nodemanager.resource.*`` keys: where a YARN run's NodeManager size came from is told by these names.
_NM_KEYS = ("yarn.nodemanager.resource.memory-mb", "yarn.nodemanager.resource.cpu-vcores")


def yarn_size_text(spec: dict) -> str:
    """``3 NodeManagers of 8,192 MB and 8 vcores`` (or the resource totals of a cluster file's nodes)."""
    c, yarn = spec.get("cluster", {}), spec.get("yarn", {})
    if "resources" in c:
        return cluster_line(c)
    n = c.get("nodemanagers", c.get("nodes"))
    return f"{counted(n, 'NodeManager')} of {yarn.get('nm_memory_mb', 0):,.0f} MB and {yarn.get('nm_vcores', 0):g} vcores"


def yarn_cluster_text(spec: dict, hosts_origin: str) -> tuple[str, str]:
    """``(cluster, origin)`` of a YARN-mode run for the first stderr line: NodeManagers with memory and vcores
    (a YARN cluster has no map and reduce slots) and where their size came from: inferred from the trace's peaks,
    the trace's job confs, the given site files, or Hadoop's defaults (``yarn-default.xml``: 8192 MB, 8 vcores)."""
    yarn = spec.get("yarn", {})
    size = yarn_size_text(spec)
    inferred = yarn.get("inferred") or {}
    from_trace = yarn.get("from_trace") or {}
    if "resources" in spec.get("cluster", {}):
        where = "NodeManager sizes: each node's resources in the cluster file"
    elif "nm_memory_mb" in inferred or "nm_vcores" in inferred:
        where = "NodeManager size inferred from the trace's peaks (note below)"
    elif any(k in from_trace for k in _NM_KEYS):
        where = "NodeManager size from the trace's job confs"
    elif yarn.get("sources"):
        where = f"NodeManager size from {', '.join(yarn['sources'])} or Hadoop's defaults"
    else:
        where = "NodeManager size: Hadoop's defaults, 8192 MB and 8 vcores"
    hosts = hosts_origin.split(", slots = ")[0].replace("inferred from the trace's task attempts", "hosts from the "
                                                                                                 "trace's task attempts")
    return size, f"{hosts}; {where}"


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
