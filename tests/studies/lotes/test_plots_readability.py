"""Readability rules of the LoTES figures: equal series stay visible and are named, waits of seconds are not
drawn as zero, and every figure says which cluster, seeds, replications and horizon it shows."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from mrsim.studies.lotes import plots as P


def _point(policy, load, wait, flow, fraction=1.0, steady=True, series=None, mpc=None, mapreduce=False):
    ys = series if series is not None else [0, 10, 20, 20]
    rep = {"series": {"t_h": [0.0, 1.0, 2.0, 3.0][: len(ys)], "jobs_in_system": ys, "tasks_waiting": [0] * len(ys)}}
    return {
        "spec": {"policy": policy, "load": load, "horizon": 200.0, "warmup": 100.0, "seed": 7, "replications": 1,
                 "machines_fraction": fraction, "machines_per_config": mpc, "mapreduce": mapreduce, "samples": 200},
        "steady_replications": 1 if steady else 0,
        "replications": [rep],
        "over_replications": {"wait_mean_h": {"mean": wait}, "flow_over_F": {"mean": flow}},
    }


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_footnote_names_cluster_seed_replications_and_horizon():
    text = P._footnote([_point("lotes", 0.8, 0.0, 1.0), _point("lotes", 0.8, 0.0, 1.0, fraction=0.9)])
    text = text.replace("\u00a0", " ")
    assert "10,000 machines on (100%)" in text and "9,000 machines on (90%)" in text
    assert "seed 7" in text and "1 replication per point" in text
    assert "horizon 200 h" in text and "warm-up 100 h" in text
    assert "1,000 machines" in P._footnote([_point("lotes", 0.8, 0.0, 1.0, mpc=100)]).replace("\u00a0", " ")


def test_equal_values_are_named_with_their_loads():
    earlier = [("LoTES", {0.5: 0.0, 0.6: 0.0, 0.7: 0.0, 0.8: 2.0})]
    assert P._equal_note([0.5, 0.6, 0.7, 0.8], [0.0, 0.0, 0.0, 5.0], earlier) == " (= LoTES at loads 0.5–0.7)"
    assert P._equal_note([0.5, 0.6], [1.0, 1.0], earlier) == ""
    assert P._equal_note([0.5, 0.8], [0.0, 2.0], [("LoTES", {0.5: 0.0, 0.8: 2.0})]) == " (= LoTES at every load)"


def test_wait_axis_is_symlog_with_an_exact_zero_tick():
    fig, ax = plt.subplots()
    note = P._wait_axis(ax, [0.0, 0.00045, 0.0195, 0.288, 119.0])  # 1.6 s ... 119 h
    assert ax.get_yscale() == "symlog"
    ticks = list(ax.get_yticks())
    assert ticks[0] == 0 and min(t for t in ticks if t > 0) <= 0.00045
    assert ax.get_ylim()[0] < 0  # the zero row is inside the axes, not on its edge
    assert "linear from 0" in note
    assert [P._fmt_duration_h(v) for v in (0, 0.001, 0.1, 10)] == ["0", "3.6 s", "6 min", "10 h"]


def test_wait_axis_stays_linear_without_positive_waits():
    fig, ax = plt.subplots()
    assert P._wait_axis(ax, [0.0, 0.0]) == ""
    assert ax.get_yscale() == "linear"


def test_identical_time_series_are_labelled(tmp_path, monkeypatch):
    seen = {}
    real_legend = matplotlib.axes.Axes.legend

    def spy(self, *a, **k):
        leg = real_legend(self, *a, **k)
        seen["labels"] = [t.get_text() for t in leg.get_texts()]
        seen["widths"] = [ln.get_linewidth() for ln in self.get_lines()]
        return leg

    monkeypatch.setattr(matplotlib.axes.Axes, "legend", spy)
    pts = [_point("lotes", 0.8, 0, 1), _point("greedy", 0.8, 0, 1),
           _point("greedy", 0.8, 1, 2, 0.9, False, [0, 10, 30, 60])]
    P.plot_jobs_in_system(pts, tmp_path / "n.png")
    assert (tmp_path / "n.png").stat().st_size > 0
    labels = seen["labels"]
    assert "identical to LoTES, 100% of machines on" in labels[1]
    assert "identical" not in labels[0] and "identical" not in labels[2]
    assert seen["widths"][0] > seen["widths"][1]  # the first of an identical pair is drawn wider, underneath


def test_all_figures_render(tmp_path):
    pts = [_point(p, l, w, f, steady=s) for p, l, w, f, s in (
        ("lotes", 0.5, 0.0, 1.0, True), ("lotes", 0.9, 0.3, 1.04, False),
        ("greedy", 0.5, 0.0, 1.0, True), ("greedy", 0.9, 14.0, 3.3, False))]
    P.plot_wait_vs_load(pts, tmp_path / "w.png")
    off = [_point(p, 0.8, 0.0, 1.0, fraction=f, steady=p == "lotes" or f == 1) for p in ("lotes", "greedy")
           for f in (1.0, 0.95, 0.9)]
    P.plot_flow_ratio(off, tmp_path / "f.png")
    for name in ("w.png", "f.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
