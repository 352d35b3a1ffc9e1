"""mrsim.api: the facade returns DataFrames and the same summary as the CLI's --json; assumptions are announced."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import mrsim
from mrsim.cli import main
from mrsim.profiler.assumptions import zero_slot_notes
from mrsim.model.cluster import ClusterSpec, TrackerSpec, uniform_cluster

RUN_DEPENDENT = {"wall_s", "events_per_s"}


def _cli_json(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _stable(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in RUN_DEPENDENT}


def test_replay_api_equals_cli_json(capsys):
    run = mrsim.replay(nodes=16, map_slots=2, reduce_slots=1, seed=3, quiet=True)
    doc = _cli_json(capsys, ["replay", "--nodes", "16", "--map-slots", "2", "--reduce-slots", "1", "--seed", "3",
                             "--json", "--quiet"])
    assert _stable(run.summary) == _stable(doc["summary"])
    assert isinstance(run.jobs, pd.DataFrame) and isinstance(run.tasks, pd.DataFrame)
    assert {"job_id", "submit_s", "start_s", "finish_s"} <= set(run.jobs.columns)
    assert list(run.jobs["job_id"]) == [j["job_id"] for j in doc["jobs"]]
    assert len(run.tasks) == run.summary["tasks"]
    assert run.to_json_dict()["summary"]["jobs"] == len(run.jobs)


def test_validate_api_equals_cli_json(capsys, real_trace):
    run = mrsim.validate(str(real_trace), quiet=True)
    doc = _cli_json(capsys, ["validate", str(real_trace), "--json", "--quiet"])
    assert _stable(run.summary) == _stable(doc["summary"])
    assert "error_pct" in run.jobs.columns and run.jobs["error_pct"].notna().all()
    assert run.tasks is not None and len(run.tasks) == run.summary["tasks"]


def test_compare_api_one_row_per_scheduler(capsys, real_trace):
    run = mrsim.compare(str(real_trace), schedulers=["fifo", "fair"], quiet=True)
    assert list(run.table["scheduler"]) == ["fifo", "fair"]
    doc = _cli_json(capsys, ["compare", str(real_trace), "--schedulers", "fifo,fair", "--json", "--quiet"])
    assert run.table["mean_completion_s"].tolist() == [r["mean_completion_s"] for r in doc["table"]]


def test_load_and_workload_input():
    workload = mrsim.load()
    assert len(workload) == 50
    run = mrsim.replay(workload, cluster=uniform_cluster(8, 2, 2), quiet=True)
    assert run.summary["jobs"] == 50 and run.spec["cluster"]["nodes"] == 8
    assert run.spec["assumed"]["cluster"] == "given by the caller"


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="nodez"):
        mrsim.replay(nodez=3)


def test_plugin_class_and_module_class_from_cwd(tmp_path, monkeypatch, capsys, real_trace):
    (tmp_path / "my_sched.py").write_text(
        "from mrsim.schedulers.fifo import FifoScheduler\n\nclass Mine(FifoScheduler):\n    name = 'mine'\n")
    monkeypatch.chdir(tmp_path)
    trace = str(real_trace)
    run = mrsim.replay(trace, scheduler="my_sched:Mine", quiet=True)
    assert run.result.scheduler == "mine"
    from mrsim.schedulers.fifo import FifoScheduler

    by_class = mrsim.replay(trace, scheduler=FifoScheduler, quiet=True)
    assert _stable(by_class.summary) == _stable(mrsim.replay(trace, quiet=True).summary)
    doc = _cli_json(capsys, ["replay", trace, "--scheduler", "my_sched:Mine", "--json", "--quiet"])
    assert doc["scheduler"] == "mine"


# ----------------------------------------------------------------------------------- assumptions


def test_real_trace_runs_on_the_inferred_cluster_and_says_so(capsys, real_trace):
    capsys.readouterr()
    assert main(["replay", str(real_trace)]) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("mrsim replay: cluster"))
    # hostA ran maps k=0,2 of every job at once (2 map slots); hostB maps k=1,3 (2) and the one reduce (1).
    assert "2 nodes, 4 map + 1 reduce slots" in line and "inferred from the trace's task attempts" in line
    assert "heartbeat 0.3 s (Hadoop 1.2 formula" in line and "default --hadoop-version" in line
    assert "of 2 inferred TaskTrackers, 1 has 0 reduce slots (it ran only maps)" in err


def test_synthetic_trace_keeps_the_default_and_announces_it(capsys):
    capsys.readouterr()
    assert main(["replay", "--json"]) == 0
    err = capsys.readouterr().err
    assert "cluster 64 nodes, 128 map + 128 reduce slots (default 64 nodes" in err
    assert "synthetic trace" in err and "heartbeat 0.64 s" in err


def test_explicit_flags_are_named_as_the_source(capsys):
    capsys.readouterr()
    assert main(["replay", "--nodes", "4", "--heartbeat-interval", "2", "--json"]) == 0
    err = capsys.readouterr().err
    assert "(--nodes and slot flags)" in err and "heartbeat 2 s (--heartbeat-interval)" in err


def test_compare_warns_about_edf_without_deadlines(capsys, real_trace):
    capsys.readouterr()
    assert main(["compare", str(real_trace), "--schedulers", "fifo,maxedf", "--json"]) == 0
    err = capsys.readouterr().err
    assert "maxedf order jobs by deadline, but no job has one" in err and "--deadline-factor" in err
    assert main(["compare", str(real_trace), "--schedulers", "fifo,maxedf", "--deadline-factor", "2", "--json"]) == 0
    assert "no job has one" not in capsys.readouterr().err


def test_ignored_scheduler_config_keys_are_printed(tmp_path, capsys):
    alloc = tmp_path / "alloc.xml"
    alloc.write_text("<allocations><pool name='a'><weight>2</weight><frobnicate>1</frobnicate></pool>"
                     "<queueMaxAMShareDefault>0.5</queueMaxAMShareDefault></allocations>")
    capsys.readouterr()
    assert main(["replay", "--scheduler", "fair", "--scheduler-config", str(alloc), "--nodes", "8", "--json"]) == 0
    warned = [x for x in capsys.readouterr().err.splitlines() if x.startswith("mrsim: warning:")]
    assert any("frobnicate" in x and "alloc.xml" in x for x in warned)
    assert any("queueMaxAMShareDefault" in x and "alloc.xml" in x for x in warned)


def test_quiet_and_log_level(capsys):
    capsys.readouterr()
    assert main(["replay", "--nodes", "4", "--json", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["replay", "--nodes", "4", "--json", "--log-level", "warning"]) == 0
    assert "mrsim replay: cluster" not in capsys.readouterr().err


def test_zero_slot_notes_count_both_kinds():
    cluster = ClusterSpec((TrackerSpec("a", map_slots=0, reduce_slots=2), TrackerSpec("b", map_slots=2, reduce_slots=0),
                           TrackerSpec("c", map_slots=1, reduce_slots=0)))
    (note,) = zero_slot_notes(cluster)
    assert note.startswith("of 3 inferred TaskTrackers, 1 has 0 map slots (it ran only reduces") and "2 have 0 reduce slots" in note
    assert zero_slot_notes(uniform_cluster(2)) == ()


def test_compare_is_the_api_function_and_its_machinery_lives_apart():
    import mrsim.analysis.comparison  # the comparison machinery: importing it leaves mrsim.compare the API function

    assert callable(mrsim.compare) and mrsim.compare is mrsim.api.compare
    assert hasattr(mrsim.analysis.comparison, "plot_comparison")
    run = mrsim.compare(mrsim.load(), schedulers="fifo", cluster=ClusterSpec((TrackerSpec("n", map_slots=64, reduce_slots=64),)),
                        quiet=True)
    assert list(run.table["scheduler"]) == ["fifo"]
