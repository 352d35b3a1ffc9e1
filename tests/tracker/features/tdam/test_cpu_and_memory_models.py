"""Node models under --contention tdam: the exact multi-server CPU beside Seidmann's (section 6.7.2's scenarios),
and chapter 4's memory layer (SMP / NUMA) driven by cluster-file and job-spec keys."""

from __future__ import annotations

import dataclasses
import json

import pytest

from mrsim.cli import main
from mrsim.contention import MixCache, NodeSpec
from mrsim.contention.multicore import MemoryDemands, two_layer_multiclass
from mrsim.contention.node import layout_vector
from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.profiler.jobspec import load_jobspec
from mrsim.model.cluster import ClusterSpec, TrackerSpec, load_cluster_file, uniform_cluster, write_cluster_file
from mrsim.model.hadoop_conf import HadoopConf
from tests.tracker.features.tdam.helpers import EXAMPLES, REPO

JOB30 = EXAMPLES / "cafifo_30_tasks.toml"
MBENCH = EXAMPLES / "mbench_memory.toml"
SMP_NODE = REPO / "examples" / "clusters" / "sandy_bridge_smp.toml"


def makespan_cli(capsys, *extra: str, spec=JOB30) -> float:
    assert main(["replay", str(spec), "--json", "--contention", "tdam", *extra]) == 0
    return json.loads(capsys.readouterr().out)["summary"]["makespan_s"]


def run_30(nodes: int, slots: int, interval: float | None, cpu_model: str = "seidmann"):
    cluster = uniform_cluster(nodes, slots, 1, 4)
    cluster = dataclasses.replace(cluster, trackers=tuple(dataclasses.replace(t, cpu_model=cpu_model)
                                                          for t in cluster.trackers))
    return replay(load_jobspec(JOB30), cluster, HadoopConf(), create_scheduler("fifo"),
                  ReplayOptions(contention="tdam", heartbeat_interval_s=interval, check_invariants=True))


# ------------------------------------------------------------------------------------- section 6.7.2


@pytest.mark.parametrize("nodes,slots,interval,expected", [
    (2, 4, None, 530.46), (2, 6, None, 509.46), (2, 8, None, 427.26), (2, 10, None, 520.86),  # the published figures
    (5, 4, None, 265.26), (5, 4, 0.0, 240.14),
])
def test_section_6_7_2_figures_under_seidmann(nodes, slots, interval, expected):
    # The figures mrsim gave before the exact model existed (Hadoop 1.2 heartbeats, 0.3 s here): the default
    # model is unchanged. Pinned to the printed 0.01 s.
    assert run_30(nodes, slots, interval).summary["makespan_s"] == pytest.approx(expected, abs=0.005)


@pytest.mark.parametrize("nodes,slots,expected", [
    # Exact by hand: 4 tasks on 4 cores take 100 s, k > 4 tasks take 25 k s (processor sharing).
    (2, 4, 400.0),  # waves of 8, 8, 8, 6 tasks over two nodes: four waves of 100 s
    (5, 4, 200.0),  # 20 then 10 tasks: two waves of 100 s
    (2, 8, 375.0),  # 8 per node (200 s), then 7 per node (175 s): 3000 CPU s on 8 cores, no idle core
    (2, 10, 375.0),  # 10 per node (250 s), then 5 per node (125 s)
    (5, 6, 150.0),  # 6 per node: 150 s, one wave
])
def test_section_6_7_2_exact_cpu_oracles_without_heartbeats(nodes, slots, expected):
    assert run_30(nodes, slots, 0.0, "exact").summary["makespan_s"] == pytest.approx(expected, rel=1e-12)


def test_five_node_gap_is_seidmann_times_an_uneven_last_wave():
    # Seidmann: 4 tasks on 4 cores take 132.57 s, 2 take 107.57 s (exact: 100 s both). With heartbeats the second
    # wave is 4, 4, 2, 0, 0 tasks: FIFO's load cap ceil(remaining / cluster slots x 4) counts only *reported*
    # completions, so the first trackers to report take 4 each. Without heartbeats all 20 completions are
    # reported at one instant and the cap is 2 per node. Seidmann turns that into 265 against 240 s; the exact
    # model into 200 s either way.
    r = run_30(5, 4, None)
    second = r.tasks[r.tasks.start_s > 100.0].groupby("tracker").size().sort_values(ascending=False).tolist()
    assert second == [4, 4, 2]
    durations = (r.tasks.finish_s - r.tasks.start_s).round(2)
    assert set(durations) == {132.57, 107.57}
    off = run_30(5, 4, 0.0)
    assert off.tasks[off.tasks.start_s > 100.0].groupby("tracker").size().tolist() == [2] * 5
    assert run_30(5, 4, None, "exact").summary["makespan_s"] == pytest.approx(200.5, abs=0.01)


def test_ten_slot_figure_comes_from_the_load_cap_not_the_cpu_model():
    # With 10 slots on 2 nodes the last 10 tasks all go to the first tracker to heartbeat after its wave ends:
    # the other node's 10 completions are not reported yet, so remaining = 20 and the cap is 10. One node then
    # runs 10 tasks while the other idles; both CPU models show it.
    for model, with_hb, without in (("seidmann", 520.86, 410.13), ("exact", 500.46, 375.0)):
        r = run_30(2, 10, None, model)
        last = r.tasks[r.tasks.start_s > 200.0]
        assert last.tracker.nunique() == 1 and len(last) == 10
        assert r.summary["makespan_s"] == pytest.approx(with_hb, abs=0.005)
        assert run_30(2, 10, 0.0, model).summary["makespan_s"] == pytest.approx(without, abs=0.005)


def test_job_spec_maps_are_rack_local_by_default_and_off_switch_under_locality_on():
    # Spec jobs carry no split locations: by default every map is rack-local everywhere (SimMR's choice,
    # docs/engine.md), so FIFO's one-off-switch-map-per-heartbeat rule never applies and --locality off changes
    # nothing. Under --locality on they are what Hadoop makes of them (nonLocalMaps): off-switch everywhere.
    r = run_30(2, 4, None)
    assert (r.tasks.locality != 3).all()
    on = replay(load_jobspec(JOB30), uniform_cluster(2, 4, 1, 4), HadoopConf(), create_scheduler("fifo"),
                ReplayOptions(contention="tdam", locality="on", check_invariants=True))
    assert (on.tasks.locality == 3).all()


def test_cpu_model_flag_and_cluster_key(capsys, tmp_path):
    flags = ("--nodes", "2", "--cores", "4", "--map-slots", "4", "--reduce-slots", "1", "--heartbeat-interval", "off")
    assert main(["replay", str(JOB30), "--json", "--contention", "tdam", *flags, "--cpu-model", "exact"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["contention"]["node_models"] == {"exact": 2} and summary["contention"]["exact_fallbacks"] == 0
    assert makespan_cli(capsys, *flags, "--cpu-model", "exact") == pytest.approx(400.0, rel=1e-12)
    assert makespan_cli(capsys, *flags) == pytest.approx(516.01, abs=0.005)
    f = tmp_path / "c.toml"
    f.write_text('[defaults]\nmap_slots = 4\nreduce_slots = 1\ncores = 4\ncpu_model = "exact"\n'
                 '[[racks]]\nname = "/r"\ncount = 2\n')
    assert makespan_cli(capsys, "--cluster", str(f), "--heartbeat-interval", "off") == pytest.approx(400.0, rel=1e-12)
    # The flag overrides the file.
    assert makespan_cli(capsys, "--cluster", str(f), "--heartbeat-interval", "off", "--cpu-model", "seidmann") == \
        pytest.approx(516.01, abs=0.005)


# ------------------------------------------------------------------------------------- chapter 4 in the engine


def test_memory_layer_in_the_engine_equals_algorithms_5_and_6(capsys):
    # Table 4.3, Sandy Bridge without disk: D_core 26.26 s, D_mem 11.8 s; eight copies at once on four cores.
    # The eight tasks form one shape and end together at Algorithm 6's response time.
    expected = two_layer_multiclass(4, [8], [MemoryDemands(26.26, 11.8)]).response[0]
    got = makespan_cli(capsys, "--cluster", str(SMP_NODE), "--heartbeat-interval", "off", spec=MBENCH)
    assert got == pytest.approx(expected, abs=1e-6)  # --json prints 6 decimals
    # Without the key the node has no memory layer: memory seconds are core time (Seidmann on 38.06 s).
    plain = makespan_cli(capsys, "--nodes", "1", "--cores", "4", "--map-slots", "8", "--reduce-slots", "1",
                         "--heartbeat-interval", "off", spec=MBENCH)
    assert plain == pytest.approx(81.27, abs=0.005) and got == pytest.approx(114.42, abs=0.005)


def test_stall_fraction_key_splits_cpu_time_by_eqs_4_3_and_4_4(tmp_path, capsys):
    spec = tmp_path / "stall.toml"
    spec.write_text('[[job]]\nid = "m"\nsubmit = 0.0\nmaps = 8\nreduces = 0\n'
                    'map_demand = { cpu = 38.06 }\nmap_stall = 0.31\n')
    t = load_jobspec(spec).jobs[0]
    assert t.map_demands[0].tolist() == pytest.approx([38.06 * 0.69, 0.0, 38.06 * 0.31], rel=1e-15)
    got = makespan_cli(capsys, "--cluster", str(SMP_NODE), "--heartbeat-interval", "off", spec=spec)
    expected = two_layer_multiclass(4, [8], [MemoryDemands(38.06 * 0.69, 38.06 * 0.31)]).response[0]
    assert got == pytest.approx(expected, abs=1e-6)  # --json prints 6 decimals
    for body, message in (('map_demand = { cpu = 1.0, memory = 1.0 }\nmap_stall = 0.3', "not both"),
                          ('map_duration = 5.0\nmap_stall = 0.3', "needs a demand"),
                          ('map_demand = { cpu = 1.0 }\nmap_stall = 1.0', r"fraction in \[0, 1\)")):
        bad = tmp_path / "bad.toml"
        bad.write_text(f'[[job]]\nid = "b"\nsubmit = 0.0\nmaps = 1\nreduces = 0\n{body}\n')
        with pytest.raises(InputError, match=message):
            load_jobspec(bad)


def test_numa_node_reproduces_section_4_7_through_the_mix_cache():
    # Section 4.7: HBench at concurrency 12 beside UBench and MBench at 4 on the 12-core NUMA server, Table 4.5
    # Workload 1 (D_local = D_remote, K_N/K_T = 1): the dissertation's model gives 245 s. Through the engine's
    # cache (shapes from the NUMA demand layout) the answer equals Algorithms 5/6 called directly.
    spec = NodeSpec(12, 0, memory="numa", numa_ratio=1.0)
    cache = MixCache(spec)
    w1 = [(7.08, 0.2), (14.7, 6.4), (26.55, 26.0)]  # (D_core, D_mem = D_local + D_remote)
    sids = [cache.shape_of(layout_vector(spec, core, 0.0, mem, 1.0)) for core, mem in w1]
    entry = cache.solve(tuple(sorted(((sid, n) for (sid, _), n in zip(sids, (4, 4, 12))))))
    hbench_stretch = entry.stretch[sorted(s for s, _ in sids).index(sids[2][0])]
    direct = two_layer_multiclass(12, [4, 4, 12], [MemoryDemands(c, m / 2, m / 2) for c, m in w1]).response[2]
    assert hbench_stretch * sids[2][1] == pytest.approx(direct, rel=1e-9)
    assert direct == pytest.approx(245.0, rel=0.05)


def test_numa_ratio_splits_memory_and_cafifo_reads_utilization():
    t = TrackerSpec("n1", map_slots=8, reduce_slots=1, cores=4, memory_architecture="numa", numa_ratio=3.0)
    assert layout_vector(NodeSpec(4, 1, memory="numa", numa_ratio=3.0), 8.0, 1.0, 4.0, 2.0) == (4.0, 1.5, 0.5, 0.5)
    w = load_jobspec(MBENCH)
    fifo = replay(w, ClusterSpec((t,)), HadoopConf(), create_scheduler("fifo"),
                  ReplayOptions(contention="tdam", heartbeat_interval_s=0.0, check_invariants=True))
    ca = replay(w, ClusterSpec((t,)), HadoopConf(), create_scheduler("cafifo", {"thresholds": {"cpu": 0.7}}),
                ReplayOptions(contention="tdam", heartbeat_interval_s=0.0, check_invariants=True))
    longest = [(r.tasks.finish_s - r.tasks.start_s).max() for r in (fifo, ca)]
    assert longest[1] < longest[0]  # admission control sees the memory layer's CPU utilization


def test_cluster_file_keys_parse_write_and_refuse(tmp_path):
    c = load_cluster_file(SMP_NODE)
    assert {(t.memory_architecture, t.cpu_model, t.numa_ratio) for t in c.trackers} == {("smp", "seidmann", 1.0)}
    out = tmp_path / "back.toml"
    numa = ClusterSpec((TrackerSpec("a", memory_architecture="numa", numa_ratio=2.0),
                        TrackerSpec("b", cpu_model="exact")))
    write_cluster_file(numa, out)
    again = load_cluster_file(out)
    assert [(t.memory_architecture, t.numa_ratio, t.cpu_model) for t in again.trackers] == \
        [("numa", 2.0, "seidmann"), ("none", 1.0, "exact")]
    for line, message in (('memory_architecture = "uma"', "none, smp or numa"),
                          ('cpu_model = "fast"', "seidmann or exact"),
                          ('numa_ratio = -1', "positive"),
                          ('memory_architecture = "smp"\ndisks = 2', "one disk"),
                          ('memory_architecture = "smp"\ncpu_model = "exact"', "without a memory layer"),
                          ('numa_ratio = "x"', "must be a number")):
        bad = tmp_path / "bad.toml"
        bad.write_text(f'[defaults]\n{line}\n[[racks]]\nname = "/r"\ncount = 1\n')
        with pytest.raises(InputError, match=message) as err:
            load_cluster_file(bad)
        assert "\n" not in str(err.value)


def test_the_documented_cluster_file_parses_with_the_contention_keys():
    import tomllib

    from mrsim.model.cluster import cluster_from_mapping

    text = (REPO / "docs" / "cluster.md").read_text()
    block = text.split("```toml", 1)[1].split("```", 1)[0]
    c = cluster_from_mapping(tomllib.loads(block), "docs/cluster.md")
    assert {(t.cpu_model, t.memory_architecture, t.numa_ratio) for t in c.trackers} == {("seidmann", "none", 1.0)}


def documented_6_7_2_rows():
    text = (REPO / "docs" / "tdam.md").read_text()
    table = text.split("## Section 6.7.2", 1)[1].split("| nodes | heartbeats |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        nodes, beats, model = int(cells[0]), cells[1], cells[2].split()[0].lower()
        rows.append((nodes, None if beats.startswith("Hadoop") else 0.0, model, [float(c) for c in cells[3:]]))
    return rows


def test_the_documented_6_7_2_table_is_what_the_engine_gives():
    rows = documented_6_7_2_rows()
    assert len(rows) == 8
    for nodes, interval, model, figures in rows:
        got = [run_30(nodes, slots, interval, model).summary["makespan_s"] for slots in (4, 6, 8, 10)]
        assert got == pytest.approx(figures, abs=0.005), (nodes, interval, model)
