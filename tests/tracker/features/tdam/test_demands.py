"""Service demands: from trace counters (real traces), from a demand table, the fallback, and bad input."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from mrsim.contention.node import NodeSpec, layout_vector
from mrsim.errors import InputError
from mrsim.profiler.workloads import load_workload, load_workload_with_demands
from mrsim.model.demands import (
          DEFAULT_DISK_MB_S,
          TaskDemand,
          TaskKind,
          apply_demand_table,
          demand_columns,
          demand_rows,
          fallback_columns,
          fallback_rows,
          load_demand_table,
          parse_demand,
      )
from mrsim.model.templates import JobTemplate, Workload
from mrsim.profiler.demands import apply_trace_demands
from tests.tracker.features.tdam.helpers import EXAMPLES, SHARED_DATA

GRIDMIX_CPU = SHARED_DATA / "gridmix-system-branch-1" / "cpu_emul_case1.json.gz"
SLS = SHARED_DATA / "sls" / "main-data" / "2jobs2min-rumen-jh.json"
WORDCOUNT = SHARED_DATA / "gridmix" / "data" / "wordcount.json"
SLEEP_JHIST = (SHARED_DATA / "jhist" / "mapreduce-client-hs" /
               "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist")

needs_data = pytest.mark.skipif(not GRIDMIX_CPU.exists(), reason="shared data not available")


def first_successful_attempt(path, kind="mapTasks"):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        job = json.JSONDecoder().raw_decode(fh.read().lstrip())[0]
    task = job[kind][0]
    return next(a for a in task["attempts"] if a["result"] == "SUCCESS")


@needs_data
@pytest.mark.parametrize("path", [GRIDMIX_CPU, SLS])
def test_rumen_counters_give_cpu_seconds_and_disk_seconds(path):
    w = load_workload_with_demands(path, counters=True)
    t = w.jobs[0]
    attempt = first_successful_attempt(path)
    cpu = attempt["resourceUsageMetrics"]["cumulativeCpuUsage"] / 1000.0
    nbytes = sum(max(0, attempt[k]) for k in ("hdfsBytesRead", "hdfsBytesWritten", "fileBytesRead", "fileBytesWritten"))
    assert t.map_demands.shape == (t.n_maps, 3)
    assert t.map_demands[0].tolist() == pytest.approx([cpu, nbytes / (DEFAULT_DISK_MB_S * 1e6), 0.0])
    assert not any("no CPU counter" in x for x in w.warnings)


@needs_data
def test_disk_bandwidth_scales_disk_demand_only():
    slow = load_workload_with_demands(GRIDMIX_CPU, counters=True, disk_mb_s=50.0).jobs[0].map_demands
    fast = load_workload_with_demands(GRIDMIX_CPU, counters=True, disk_mb_s=200.0).jobs[0].map_demands
    assert np.allclose(slow[:, 0], fast[:, 0]) and np.allclose(slow[:, 1], 4.0 * fast[:, 1])


@needs_data
def test_jhist_cpu_milliseconds_counter():
    # .jhist carries CPU_MILLISECONDS in its counter groups; the profiler maps it to cumulativeCpuUsage.
    t = load_workload_with_demands(SLEEP_JHIST, counters=True).jobs[0]
    assert t.map_demands is not None and (t.map_demands[:, 0] > 0).all()
    assert t.reduce_demands is not None and t.reduce_demands.shape[0] == t.n_reduces


@needs_data
def test_tasks_without_cpu_counter_fall_back_to_their_duration_with_a_warning():
    w = load_workload_with_demands(WORDCOUNT, counters=True)  # a 2010 trace: no resourceUsageMetrics
    t = w.jobs[0]
    assert t.map_demands[:, 0].tolist() == pytest.approx(t.map_durations.tolist())
    assert (t.map_demands[:, 1] == 0).all()
    assert any(f"job {t.job_id}: 4 of 4 task(s) have no CPU counter" in x for x in w.warnings)


@needs_data
def test_counters_of_another_trace_are_refused():
    w = load_workload(SLS)
    with pytest.raises(InputError, match="not in this trace"):
        apply_trace_demands(w, GRIDMIX_CPU)
    with pytest.raises(InputError, match="disk bandwidth"):
        apply_trace_demands(w, SLS, disk_mb_s=0.0)


def test_demand_table_toml_by_job_name_with_default_row():
    table = load_demand_table(EXAMPLES / "demand_table.toml")
    assert table["ingest"].map == TaskDemand(98.0, 25.0) and table["ingest"].reduce is None
    jobs = [JobTemplate("a", 0.0, [5.0, 6.0], [], name="ingest"),
            JobTemplate("b", 1.0, [1.0], [2.0, 3.0], name="other")]
    w = apply_demand_table(Workload.of(jobs), table)
    a, b = w.jobs
    assert a.map_demands.tolist() == [[98.0, 25.0, 0.0]] * 2 and a.reduce_demands is None
    assert b.map_demands.tolist() == [[20.0, 5.0, 0.0]] and b.reduce_demands.tolist() == [[30.0, 15.0, 0.0]] * 2


def test_demand_table_csv_and_uncovered_jobs(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("# per-task demands\nname,map_cpu,map_disk,reduce_cpu\nsort,10,4,\njoin,,,7.5\n")
    table = load_demand_table(path)
    assert table["sort"].map == TaskDemand(10.0, 4.0) and table["sort"].reduce is None
    assert table["join"].map is None and table["join"].reduce == TaskDemand(7.5)
    w = apply_demand_table(Workload.of([JobTemplate("x", 0.0, [1.0], [], name="unknown")]), table, source=str(path))
    assert w.jobs[0].map_demands is None and any("not named in the table" in x for x in w.warnings)


@pytest.mark.parametrize("text,match", [
    ("name,map_cpu,map_gpu\nx,1,2\n", "unknown column"),
    ("name,map_cpu\nx,-1\n", "non-negative"),
    ("name,map_cpu\nx,1\nx,2\n", "listed twice"),
    ("name,map_cpu\n,1\n", "empty job name"),
    ("[[demand]]\nname = 'x'\nmap_demand = { cpu = 1, net = 2 }\n", "unknown resource"),
    ("[[demand]]\nname = 'x'\n", "gives no demand"),
    ("[[job]]\nid = 'x'\n", "holds \\[\\[demand\\]\\] entries only"),
    ("[[demand]]\nname = 'x'\nmap = { cpu = 1 }\n", "unknown key"),
])
def test_bad_demand_tables(tmp_path, text, match):
    path = tmp_path / "t.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        load_demand_table(path)


def test_parse_demand_and_rows():
    assert parse_demand({"cpu": 2, "memory": 1}, "x") == TaskDemand(2.0, 0.0, 1.0)
    for bad in ({"cpu": float("nan")}, {"cpu": True}, [1, 2], {"cpu": "fast"}):
        with pytest.raises(InputError):
            parse_demand(bad, "x")
    # Memory-stall seconds are core time in the node model: they add to the CPU demand.
    t = JobTemplate("j", 0.0, [3.0], [], map_demands=np.array([[2.0, 4.0, 1.0]]))
    assert demand_rows(t, TaskKind.MAP) == [(2.0, 4.0, 1.0)] and demand_rows(t, TaskKind.REDUCE) is None
    assert layout_vector(NodeSpec(4, 1), 2.0, 4.0, 1.0, 1.0) == (3.0, 4.0)  # no memory layer: stall is core time
    assert layout_vector(NodeSpec(4, 1, memory="smp"), 2.0, 4.0, 1.0, 2.0) == (1.0, 0.5, 2.0)  # D_core, D_mem, D_d
    assert layout_vector(NodeSpec(4, 0, memory="numa", numa_ratio=3.0), 2.0, 0.0, 1.0, 1.0) == (2.0, 0.75, 0.25)
    odd = JobTemplate("k", 0.0, [1.0], [], map_demands=np.array([[1.0]]), demand_resources=("gpu",))
    with pytest.raises(InputError, match="not in the node model"):
        demand_rows(odd, TaskKind.MAP)
    with pytest.raises(InputError, match="not in the node model"):
        demand_columns(odd, TaskKind.MAP)


def test_demand_columns_match_rows():
    """What the engine keeps per job (three lists) holds the same floats as the rows, fallback included."""
    arr = np.array([[2.0, 4.0, 1.0], [0.5, 0.0, 0.25], [7.0, 3.0, 0.0]])
    t = JobTemplate("j", 0.0, [3.0, 1.0, 2.0], [5.0], map_demands=arr)
    cols = demand_columns(t, TaskKind.MAP)
    assert cols is not None and list(zip(*cols)) == demand_rows(t, TaskKind.MAP)
    assert demand_columns(t, TaskKind.REDUCE) is None
    assert list(zip(*fallback_columns(t.map_durations))) == fallback_rows(t.map_durations.tolist())
    # a resource the template does not give reads as zeros
    two = JobTemplate("k", 0.0, [1.0, 1.0], [], map_demands=np.array([[1.0, 2.0], [3.0, 4.0]]),
                      demand_resources=("disk", "cpu"))
    assert demand_columns(two, TaskKind.MAP) == ([2.0, 4.0], [1.0, 3.0], [0.0, 0.0])
    assert demand_rows(two, TaskKind.MAP) == [(2.0, 1.0, 0.0), (4.0, 3.0, 0.0)]
