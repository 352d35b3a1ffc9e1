"""Figures: rendered, non-trivial (axes labelled with units, expected artists, real image sizes), and a bounded
number of artists on tens of thousands of tasks (render time: benchmarks/bench_plots.py)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

from mrsim.analysis.plots import (Scale, Spread, box_figure, cdf_figure, lines_figure, save_figure, scatter_figure,
                                  timeline_figure)
from mrsim.analysis.plots.inputs import load_input, load_tasks
from mrsim.analysis.plots.timeline import assign_lanes
from mrsim.analysis.sweeps import ExecutorKind, ExecutorOptions, load_spec, read_results, run_sweep
from mrsim.errors import InputError
from tests.analysis.sweeps.helpers import FLUID_SPEC, write_spec


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def fluid_results(tmp_path_factory) -> pd.DataFrame:
    d = tmp_path_factory.mktemp("fluid")
    out = d / "r.parquet"
    run_sweep(load_spec(write_spec(d, FLUID_SPEC)), out, ExecutorOptions(ExecutorKind.LOCAL, workers=2))
    return read_results(out)


@pytest.fixture(scope="module")
def replay_dir(tmp_path_factory) -> Path:
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
    from mrsim.model.cluster import uniform_cluster
    from mrsim.model.hadoop_conf import HadoopConf

    d = tmp_path_factory.mktemp("replay")
    result = replay(facebook_like_workload(FacebookLikeSpec(jobs=8, seed=2)), uniform_cluster(4), HadoopConf(),
                    create_scheduler("fifo"), ReplayOptions(seed=1))
    result.write_csv(d)
    (d / "run.json").write_text(json.dumps(result.to_json_dict()))
    return d


def test_box_plot_per_scheduler_across_sigma(fluid_results: pd.DataFrame, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"differ in load \(2 values\)"):
        box_figure(fluid_results, "mean_completion_s", across="sigma")
    fig = box_figure(fluid_results, "mean_completion_s", across="sigma", where=["load=0.9"])
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Size-estimation error sigma"
    assert ax.get_ylabel() == "Mean completion time (s)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "0.5", "2"]
    assert len(ax.patches) == 3 * 4  # one box per sigma and scheduler
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["fifo", "ps", "srpt", "fsp-ps"]
    png = save_figure(fig, tmp_path / "box.png")
    w, h = png_size(png)
    assert w >= 800 and h >= 500 and png.stat().st_size > 10_000
    svg = save_figure(fig, tmp_path / "box.svg").read_text()
    assert "<svg" in svg and "Size-estimation error sigma" in svg
    faceted = box_figure(fluid_results, "mean_completion_s", across="sigma", facet="load")
    assert [a.get_title() for a in faceted.axes if a.get_visible()] == ["load = 0.5", "load = 0.9"]


def test_lines_with_spread_and_automatic_log_scale(fluid_results: pd.DataFrame, tmp_path: Path) -> None:
    fig = lines_figure(fluid_results, "mean_completion_s", x="sigma", facet="load", spread=Spread.IQR)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Size-estimation error sigma" and ax.get_xscale() == "linear"
    assert len(ax.lines) == 4 and len(ax.collections) == 4  # a mean line and a band per scheduler
    # x over three decades -> log by default, overridable
    t = pd.DataFrame({"scheduler": ["a"] * 6, "mean_interarrival_s": [10, 10, 100, 100, 1000, 1000],
                      "relative_deadline_exceeded": [1.0, 2.0, 0.5, 0.7, 0.1, 0.2]})
    auto = lines_figure(t, "relative_deadline_exceeded", x="mean_interarrival_s")
    assert auto.axes[0].get_xscale() == "log" and auto.axes[0].get_xlabel() == "Mean inter-arrival time (s)"
    forced = lines_figure(t, "relative_deadline_exceeded", x="mean_interarrival_s", xscale=Scale.LINEAR)
    assert forced.axes[0].get_xscale() == "linear"
    assert png_size(save_figure(auto, tmp_path / "l.png"))[0] >= 800
    with pytest.raises(InputError, match="not a metric"):
        lines_figure(t, "nosuch", x="mean_interarrival_s")


def test_cdf_of_replays_and_of_results(replay_dir: Path, fluid_results: pd.DataFrame, tmp_path: Path) -> None:
    fig = cdf_figure([load_input(replay_dir), load_input(replay_dir / "run.json")])
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Completion time (s)" and ax.get_ylabel() == "Fraction of jobs"
    assert len(ax.lines) == 2
    y = ax.lines[0].get_ydata()
    assert y[0] == 0 and y[-1] == 1 and np.all(np.diff(y) >= 0)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]  # beside the axes
    assert len(set(labels)) == 2 and all("n=8" in s for s in labels)
    cells = cdf_figure([load_input(tmp_path_write(fluid_results, tmp_path))], where=["load=0.9"])
    assert cells.axes[0].get_ylabel() == "Fraction of cells" and len(cells.axes[0].lines) == 4
    assert png_size(save_figure(fig, tmp_path / "c.png"))[1] >= 500


def tmp_path_write(table: pd.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "results.csv"
    table.to_csv(path, index=False)
    return path


def test_scatter_simulated_vs_actual(tmp_path: Path, replay_dir: Path) -> None:
    jobs = [{"job_id": f"j{i}", "completion_s": 10.0 * 1.3 ** i * 1.1, "actual_completion_s": 10.0 * 1.3 ** i}
            for i in range(30)]  # 10 s .. 20,000 s: over three decades
    jobs.append({"job_id": "unknown", "completion_s": 5.0, "actual_completion_s": None})
    path = tmp_path / "validate.json"
    path.write_text(json.dumps({"scheduler": "fifo", "jobs": jobs}))
    fig = scatter_figure(load_input(path))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Actual completion time (s)" and ax.get_ylabel() == "Simulated completion time (s)"
    assert "30 jobs" in ax.get_title() and "10.0 %" in ax.get_title()
    line = ax.lines[0]
    assert list(line.get_xdata()) == list(line.get_ydata())  # y = x
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert scatter_figure(load_input(path), scale=Scale.LINEAR).axes[0].get_xscale() == "linear"
    save_figure(fig, tmp_path / "s.svg")
    with pytest.raises(InputError, match="no job has both"):
        scatter_figure(load_input(replay_dir / "run.json"))  # synthetic: no actual times


def test_timeline_of_a_replay(replay_dir: Path, tmp_path: Path) -> None:
    tasks, jobs = load_tasks(replay_dir)
    fig = timeline_figure(tasks, jobs)
    top, bottom = fig.axes[:2]
    assert top.get_ylabel().startswith("map slot") and bottom.get_ylabel().startswith("reduce slot")
    assert bottom.get_xlabel() == "time since the first submission (s)"
    polys = [c for c in top.collections if isinstance(c, PolyCollection)]
    assert sum(len(c.get_paths()) for c in polys) == int((tasks.type == "MAP").sum())
    assert top.get_ylim()[1] <= 4 * 2  # never more lanes than the cluster's map slots
    assert png_size(save_figure(fig, tmp_path / "t.png"))[0] >= 1000
    with pytest.raises(InputError, match="tasks.csv"):
        load_tasks(replay_dir / "run.json")


def test_timeline_handles_many_tasks_with_one_collection_per_kind(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 60_000
    start = rng.uniform(0, 10_000, n)
    tasks = pd.DataFrame({"job_id": rng.integers(0, 300, n).astype(str), "type": np.where(rng.random(n) < 0.7, "MAP", "REDUCE"),
                          "tracker": rng.integers(0, 200, n).astype(str), "start_s": start,
                          "shuffle_end_s": start + 5.0, "finish_s": start + rng.exponential(30.0, n)})
    # What keeps it fast is the number of artists, asserted here; the time is measured by benchmarks/bench_plots.py.
    fig = timeline_figure(tasks)
    save_figure(fig, tmp_path / "big.svg")
    assert all(len(ax.collections) <= 2 for ax in fig.axes[:2])
    assert (tmp_path / "big.svg").stat().st_size < 5_000_000  # rasterised bars, not 60k vector paths


def test_lanes_never_overlap() -> None:
    rng = np.random.default_rng(1)
    start = rng.uniform(0, 100, 500)
    finish = start + rng.exponential(5, 500)
    tracker = rng.integers(0, 5, 500).astype(str)
    lanes, blocks = assign_lanes(tracker, start, finish)
    assert sum(b[2] for b in blocks) == lanes.max() + 1
    for lane in np.unique(lanes):
        sel = np.flatnonzero(lanes == lane)
        order = sel[np.argsort(start[sel])]
        assert len(set(tracker[order])) == 1
        assert np.all(start[order][1:] >= finish[order][:-1])


def test_save_rejects_unknown_extension(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    with pytest.raises(InputError, match=r"\.png"):
        save_figure(Figure(), tmp_path / "fig.jpeg")
