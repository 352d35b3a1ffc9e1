"""The exact wording of what a new user reads first: counted nouns, clipped names, column legends, help texts,
warnings printed once, refused flag abbreviations, and a dry run that leaves nothing on disk."""

from __future__ import annotations

import argparse
import io
import re
from types import SimpleNamespace

import pytest

from mrsim.run.execute import announce_warnings
from mrsim.cli import build_parser, main
from mrsim.cli.render import cluster_line, run_cluster_line
from mrsim.tracker.yarn.engine import print_queue_summary
from mrsim.wording import clip_left, counted
from tests.data import REPO, SHARED_DATA

JHIST = SHARED_DATA / "jhist" / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist"


def test_counted_nouns():
    assert counted(1, "node") == "1 node"
    assert counted(0, "node") == "0 nodes"
    assert counted(3, "host") == "3 hosts"
    assert counted(1, "NodeManager") == "1 NodeManager"
    assert counted(2, "datacenter") == "2 datacenters"
    assert counted(2, "child", "children") == "2 children"


def test_clip_left_marks_the_cut():
    assert clip_left("root.default", 30) == "root.default"
    assert clip_left("root.engineering.analytics.nightly.etl", 20) == "…alytics.nightly.etl"
    assert clip_left("abcdef", 6) == "abcdef"
    assert clip_left("abcdefg", 6) == "…cdefg"


def test_cluster_line_counts_one_node():
    assert cluster_line({"nodes": 1, "map_slots": 7, "reduce_slots": 1}) == "1 node, 7 map + 1 reduce slots"
    assert cluster_line({"nodes": 64, "map_slots": 128, "reduce_slots": 128}) == "64 nodes, 128 map + 128 reduce slots"


def test_yarn_heading_names_nodemanagers_not_slots():
    spec = {"engine": "yarn", "cluster": {"nodes": 1, "map_slots": 7, "reduce_slots": 1, "nodemanagers": 1},
            "yarn": {"nm_memory_mb": 10240.0, "nm_vcores": 9.0}}
    assert run_cluster_line(spec) == "1 NodeManager of 10,240 MB and 9 vcores"
    spec["cluster"]["nodemanagers"] = 3
    assert run_cluster_line(spec) == "3 NodeManagers of 10,240 MB and 9 vcores"
    assert run_cluster_line({"cluster": {"nodes": 2, "map_slots": 4, "reduce_slots": 1}}) == \
        "2 nodes, 4 map + 1 reduce slots"


@pytest.mark.skipif(not JHIST.exists(), reason="shared data not available")
def test_one_host_yarn_replay_lines(capsys):
    assert main(["replay", str(JHIST), "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1] == "scheduler capacity | 1 NodeManager of 10,240 MB and 9 vcores | heartbeat 1 s " \
                                  "(NodeManager heartbeat) | seed 0"
    first = err.splitlines()[0]
    assert first.startswith("mrsim replay: cluster 1 NodeManager of 10,240 MB and 9 vcores (hosts from the trace's "
                            "task attempts: 1 host; NodeManager size inferred")
    assert "1 hosts" not in err and "1 nodes" not in out


def test_inferred_one_host_cluster_origin():
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.profiler.assumptions import choose_cluster

    args = argparse.Namespace(cluster=None, topology=None, nodes=None, map_slots=None, reduce_slots=None,
                              memory_slots="on", mapred_site=None)
    hosts = [{"host": "hostA", "rack": "rack1", "map_slots": 2, "reduce_slots": 1}]
    choice = choose_cluster(args, HadoopConf(), "t.json", hosts)
    assert choice.origin.startswith("inferred from the trace's task attempts: 1 host, slots = peak")


def test_nodes_help_says_a_real_trace_runs_on_its_inferred_cluster(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("--nodes NODES number of TaskTrackers; without it (and without --cluster or --topology) a real trace runs "
            "on the cluster inferred from its hosts, a synthetic one on 64") in text
    assert "(default 64)" not in text


def test_validate_columns_are_named_and_explained(real_trace, capsys):
    assert main(["validate", str(real_trace), "--quiet", "--no-cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("job "))
    assert header.split() == ["job", "maps", "reduces", "actual", "s", "sim", "s", "error", "%", "launch",
                              "trace/sim", "s", "trace", "tail", "s"]
    assert " red " not in header and "tr/sim" not in header
    assert ("error % = (sim - actual) / actual completion; launch = submission to the job's first task launch, in "
            "the trace / in the replay;") in lines
    assert "trace tail = the trace's job finish - its last map/reduce task's finish (cleanup task, job commit)" in lines
    row = next(line for line in lines if line.startswith("job_201001010000_0001"))
    assert len(row) == len(header)


def test_queue_names_are_clipped_with_an_ellipsis():
    name = "root.engineering.analytics.nightly-etl"
    q = {"mean_allocated_mb": 1.0, "peak_allocated_mb": 2.0, "mean_pending_mb": 0.0, "peak_pending_containers": 0,
         "mean_share_mb": 3.0}
    buf = io.StringIO()
    print_queue_summary(SimpleNamespace(summary={"yarn": {"queues": {name: q}}}), file=buf)
    row = buf.getvalue().splitlines()[1]
    assert row.startswith("…" + name[-29:] + " ")
    assert row == f"{'…' + name[-29:]:<30} {1:>13,.0f} {2:>14,.0f} {0:>16,.0f} {0:>13} {3:>9,.0f}"


def test_replay_table_clips_long_job_ids(capsys):
    from mrsim.cli.render import print_replay_table
    import pandas as pd

    jobs = pd.DataFrame([{"job_id": "job_201001010000_0001_with_a_long_suffix", "maps": 1, "reduces": 0,
                          "submit_s": 0.0, "start_s": 1.0, "finish_s": 2.0, "completion_s": 2.0,
                          "actual_completion_s": float("nan")}])
    result = SimpleNamespace(jobs=jobs, scheduler="fifo",
                             summary={"jobs": 1, "tasks": 1, "makespan_s": 2.0, "mean_completion_s": 2.0,
                                      "p95_completion_s": 2.0, "events": 3, "heartbeats": 1, "wall_s": 0.0},
                             spec={"trace": "t", "heartbeat_interval_s": 0.3, "mode": "heartbeat",
                                   "hadoop_version": "1.2", "seed": 0,
                                   "cluster": {"nodes": 1, "map_slots": 2, "reduce_slots": 2}})
    print_replay_table(result)
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "scheduler fifo | 1 node, 2 map + 2 reduce slots | heartbeat 0.3 s (Hadoop 1.2 formula) | seed 0"
    assert out[5].startswith("…" + "job_201001010000_0001_with_a_long_suffix"[-27:] + " ")


def test_a_repeated_warning_is_printed_once(capsys):
    same = "job job_1: reduce attempt attempt_1_r_000000_0 has shuffle/sort times out of order; clamped"
    announce_warnings([same, "other", same], [], False)
    assert capsys.readouterr().err.splitlines() == [f"mrsim: warning: {same}", "mrsim: warning: other"]
    announce_warnings([same, same, "b", "c"], [], False, limit=2)
    assert capsys.readouterr().err.splitlines() == [f"mrsim: warning: {same}", "mrsim: warning: b",
                                                   "mrsim: warning: ... and 1 more"]


def test_plot_box_help_names_only_the_current_flag(capsys):
    with pytest.raises(SystemExit):
        main(["plot", "box", "--help"])
    text = capsys.readouterr().out
    assert "--across" not in text and "--output" not in text and "deprecated" not in text
    assert "--x PARAM" in text
    assert "at each value of --x." in " ".join(text.split())


def test_sweep_dry_run_leaves_nothing_on_disk(tmp_path, capsys):
    out = tmp_path / "r.parquet"
    spec = REPO / "examples" / "sweeps" / "fifo_grid.toml"
    assert main(["sweep", str(spec), "-o", str(out), "--dry-run"]) == 0
    assert capsys.readouterr().out == "sweep fifo-grid: 24 cells, 0 already done, 24 to compute\n"
    assert list(tmp_path.iterdir()) == []


def test_sweep_dry_run_with_restart_keeps_the_journal(tmp_path, capsys):
    out = tmp_path / "r.parquet"
    journal = tmp_path / "r.parquet.journal.jsonl"
    spec = REPO / "examples" / "sweeps" / "fifo_grid.toml"
    journal.write_bytes(b"")
    assert main(["sweep", str(spec), "-o", str(out), "--dry-run", "--restart"]) == 0
    assert capsys.readouterr().out == "sweep fifo-grid: 24 cells, 0 already done, 24 to compute\n"
    assert journal.exists()  # it was there before: a dry run neither removes nor clears it


def _all_parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _all_parsers(sub)


def test_no_parser_accepts_abbreviations():
    parsers = list(_all_parsers(build_parser()))
    assert len(parsers) > 20
    assert all(p.allow_abbrev is False for p in parsers), [p.prog for p in parsers if p.allow_abbrev]


def test_an_abbreviated_flag_is_refused_with_a_suggestion(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["replay", "--node", "4"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == "mrsim: error: unrecognized arguments: --node; did you mean --nodes?\n"
    with pytest.raises(SystemExit):
        main(["replay", "--nodes", "4", "--seeed", "3"])
    assert capsys.readouterr().err == "mrsim: error: unrecognized arguments: --seeed; did you mean --seed?\n"


def test_scripts_and_benchmarks_refuse_abbreviations_too():
    made = re.compile(r"argparse\.ArgumentParser\(")
    missing = []
    for folder in ("mrsim", "scripts", "benchmarks"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if made.search(line) and "= argparse.ArgumentParser(" in line and "allow_abbrev=False" not in line:
                    missing.append(f"{path.relative_to(REPO)}: {line.strip()}")
    assert missing == []


@pytest.mark.parametrize("argv,quiet", [
    (["plot", "cdf", "r", "-o", "f.png", "--quiet"], True),
    (["plot", "--quiet", "cdf", "r", "-o", "f.png"], True),
    (["plot", "cdf", "r", "-o", "f.png"], False),
])
def test_quiet_is_accepted_after_a_subcommand_too(argv, quiet):
    args = build_parser().parse_args(argv)
    assert args.quiet is quiet and args.log_level == "info"


def test_a_flag_of_another_level_gets_no_self_suggestion(capsys):
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["synth", "-o", "x.json", "--bogus-flag"])
    assert capsys.readouterr().err == "mrsim: error: unrecognized arguments: --bogus-flag\n"
