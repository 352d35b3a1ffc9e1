"""What the notebook API returns: a loaded trace's tables, flat numeric comparison tables, named locality levels,
short reprs and HTML summaries, ``.warnings`` everywhere, and the main options as named keywords."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd
import pytest

import mrsim
from mrsim.run.results import LOCALITY_LEVELS, Trace, named_locality
from mrsim.model.cluster import ClusterSpec, TrackerSpec, uniform_cluster
from mrsim.model.templates import JobTemplate, Workload


def _two_job_workload(deadline_s: float | None = 30.0) -> Workload:
    a = JobTemplate(job_id="job_1", submit_s=100.0, map_durations=[4.0, 6.0], reduce_durations=[3.0],
                    typical_shuffle_durations=[1.0], queue="alpha", actual_completion_s=12.0)
    b = JobTemplate(job_id="job_2", submit_s=105.0, map_durations=[2.0], reduce_durations=[],
                    queue="beta", deadline_s=deadline_s)
    return Workload.of([a, b], source="two.json", warnings=["job job_2: something odd"])


def test_load_gives_jobs_and_tasks_frames():
    trace = mrsim.load(_two_job_workload())
    assert isinstance(trace, Trace)
    jobs = trace.jobs
    assert list(jobs["job_id"]) == ["job_1", "job_2"]
    assert jobs["submit_s"].tolist() == [0.0, 5.0]  # seconds from the first submission
    assert jobs["mean_map_s"].tolist() == [5.0, 2.0]
    assert jobs.loc[0, "mean_reduce_s"] == 3.0 and math.isnan(jobs.loc[1, "mean_reduce_s"])
    assert jobs.loc[0, "actual_completion_s"] == 12.0 and math.isnan(jobs.loc[1, "actual_completion_s"])
    assert jobs.loc[1, "deadline_s"] == 30.0 and math.isnan(jobs.loc[0, "deadline_s"])
    assert jobs["queue"].tolist() == ["alpha", "beta"]
    tasks = trace.tasks
    assert tasks[["job_id", "type", "task", "duration_s"]].values.tolist() == [
        ["job_1", "MAP", 0, 4.0], ["job_1", "MAP", 1, 6.0], ["job_1", "REDUCE", 0, 3.0], ["job_2", "MAP", 0, 2.0]]
    frame = trace.to_frame()
    assert frame.equals(jobs) and frame is not jobs
    assert trace.warnings == ("job job_2: something odd",)


def test_loaded_trace_keeps_the_workload_interface():
    trace = mrsim.load()
    assert len(trace) == 50 and trace.n_tasks == sum(t.n_tasks for t in trace)
    assert trace[0] is trace.templates[0] is trace.workload.jobs[0]
    assert str(trace.source).endswith("default.json.gz")
    assert mrsim.load(trace) is trace
    run = mrsim.replay(trace, cluster=uniform_cluster(8, 2, 2), quiet=True)
    assert run.summary["jobs"] == 50


def test_named_locality_levels():
    assert LOCALITY_LEVELS == ("untracked", "node-local", "rack-local", "off-switch")
    tasks = pd.DataFrame({"locality": np.array([0, 1, 2, 3, 1], dtype=np.int8)})
    named = named_locality(tasks)
    assert isinstance(named["locality"].dtype, pd.CategoricalDtype)
    assert list(named["locality"].cat.categories) == list(LOCALITY_LEVELS)
    assert named["locality"].tolist() == ["untracked", "node-local", "rack-local", "off-switch", "node-local"]
    assert tasks["locality"].dtype == np.int8  # the engine's table keeps its codes


def test_run_tasks_locality_is_categorical_and_matches_the_codes(real_trace):
    run = mrsim.replay(str(real_trace), quiet=True, locality="on")
    codes = run.result.tasks["locality"].to_numpy()
    assert run.tasks["locality"].cat.codes.to_numpy().tolist() == codes.tolist()
    counts = run.tasks["locality"].value_counts()
    s = run.summary
    assert counts["node-local"] == s.get("node_local_maps", 0)
    assert counts["rack-local"] == s.get("rack_local_maps", 0)
    assert counts["off-switch"] == s.get("off_switch_maps", 0)
    assert counts["untracked"] == (run.tasks["type"] == "REDUCE").sum() + (
        (run.tasks["type"] == "MAP").sum() - counts["node-local"] - counts["rack-local"] - counts["off-switch"])


def test_compare_table_is_flat_and_numeric():
    cluster = ClusterSpec((TrackerSpec("n1", map_slots=2, reduce_slots=1), TrackerSpec("n2", map_slots=2,
                                                                                         reduce_slots=1)))
    run = mrsim.compare(_two_job_workload(None), schedulers=["fifo", "fair"], cluster=cluster, quiet=True)
    table = run.table
    assert list(table["scheduler"]) == ["fifo", "fair"]
    assert "slot_share" not in table
    assert {"share_alpha", "share_beta"} <= set(table.columns)
    for column in table.columns.drop("scheduler"):
        assert pd.api.types.is_numeric_dtype(table[column]), column
    assert table["deadlines_missed"].isna().all()  # no job has a deadline: NaN, not None
    assert not table.isin([None]).to_numpy().any()
    rows = run.to_json_dict()["table"]  # --json keeps its shape: one slot_share object per row
    assert rows[0]["slot_share"]["alpha"] == pytest.approx(table.loc[0, "share_alpha"])
    assert rows[0]["relative_deadline_exceeded"] is None and math.isnan(table.loc[0, "relative_deadline_exceeded"])


def test_reprs_are_short_and_html_summaries_exist(real_trace):
    trace = mrsim.load(str(real_trace))
    run = mrsim.replay(trace, quiet=True)
    validation = mrsim.validate(str(real_trace), quiet=True)
    comparison = mrsim.compare(trace, schedulers="fifo", quiet=True)
    for obj in (trace, run, validation, comparison):
        text = repr(obj)
        assert len(text) < 500 and text.startswith("<mrsim.") and "\n" not in text
        page = obj._repr_html_()
        assert page.startswith("<div><b>mrsim") and "<table>" in page and len(page) < 5000
    assert repr(run) == ("<mrsim.Run fifo on 2 nodes, 4 map + 1 reduce slots: 4 jobs, 20 tasks, makespan "
                         f"{run.summary['makespan_s']:,.1f} s, mean completion "
                         f"{run.summary['mean_completion_s']:,.1f} s, 1 warning>")
    assert len(run.warnings) == 1  # hostA ran no reduce: an inferred TaskTracker with 0 reduce slots
    assert repr(trace) == "<mrsim.Trace real.json: 4 jobs, 16 maps, 4 reduces, 0 warnings>"
    assert repr(validation).startswith("<mrsim.ValidationRun shared fifo: 4/4 jobs scored, mean |error| ")


def test_every_result_has_warnings(real_trace):
    workload = _two_job_workload()
    cluster = uniform_cluster(2, 2, 1)
    assert mrsim.load(workload).warnings == ("job job_2: something odd",)
    assert "job job_2: something odd" in mrsim.replay(workload, cluster=cluster, quiet=True).warnings
    assert "job job_2: something odd" in mrsim.compare(workload, "fifo", cluster=cluster, quiet=True).warnings
    validation = mrsim.validate(str(real_trace), quiet=True)
    assert validation.warnings == tuple(validation.to_json_dict()["warnings"])


#: Flags of a command that are not options of the run: outputs, and modes only the command line has.
CLI_ONLY = {"out", "json", "report", "plot", "log_level", "quiet", "stream", "model", "load", "dn", "sigma"}


@pytest.mark.parametrize("command", ["replay", "validate", "compare"])
def test_every_option_is_a_named_keyword_with_docs(command):
    """Every flag of the command is a named keyword of its API call (``help()`` and tab completion show it), a field
    of RunSpec, and listed in the docstring; nothing hides in ``**options``."""
    from mrsim.cli.options import command_defaults
    from mrsim.model.runspec import FIELDS

    func = getattr(mrsim, command)
    params = inspect.signature(func).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()), command
    flags = set(command_defaults(command)) - CLI_ONLY - {"trace"}
    assert flags == set(params) - {"trace", "quiet"}, command
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in flags
               if n not in ("scheduler", "schedulers", "cluster")), command
    assert flags - {"schedulers"} <= set(FIELDS) and "schedulers" in FIELDS
    doc = inspect.getdoc(func)
    assert "Returns:" in doc and not [n for n in params if n not in doc], command


def test_an_unknown_keyword_is_pythons_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'nodez'"):
        mrsim.replay(nodez=3)


def test_named_and_flag_keywords_agree(real_trace):
    named = mrsim.replay(str(real_trace), nodes=3, seed=2, quiet=True)
    through_options = mrsim.replay(str(real_trace), quiet=True, **{"nodes": 3, "seed": 2, "slowstart": 0.05,
                                                                   "contention": "none", "locality": "auto"})
    assert named.summary["makespan_s"] == through_options.summary["makespan_s"]
    assert named.spec["cluster"]["nodes"] == 3 and named.spec["seed"] == 2
    with pytest.raises(TypeError, match="nodez"):
        mrsim.compare(nodez=3)
