"""Axis labels a person reads (capitalised, with units) and log-axis ticks placed where the data are."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mrsim.analysis.plots.labels import axis_label, log_ticks


def test_axis_labels_are_human():
    assert axis_label("makespan_s") == "Makespan (s)"
    assert axis_label("mean_completion_s") == "Mean completion time (s)"
    assert axis_label("queue_wait_s") == "Queue wait (s)"
    assert axis_label("share_root.a") == "Share root.a"
    assert axis_label("dn") == "d/n (disk / network speed)"  # a symbol keeps its case


def _ticks(values, scale_axis="x"):
    fig = Figure()
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.plot(values, np.arange(len(values)))
    log_ticks(ax, scale_axis, np.asarray(values, float))
    locs = [float(t) for t in ax.xaxis.get_major_locator().tick_values(min(values), max(values))]
    labels = [ax.xaxis.get_major_formatter()(t, i) for i, t in enumerate(locs)]
    return locs, labels


def test_log_ticks_inside_one_decade():
    locs, labels = _ticks([150.0, 300.0, 900.0])
    assert locs == [200.0, 500.0] and labels == ["200", "500"]


def test_log_ticks_over_decades_are_plain_numbers():
    locs, labels = _ticks([3.0, 40.0, 7000.0])
    assert locs == [5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0]
    assert labels[-3:] == ["1,000", "2,000", "5,000"]


def test_log_ticks_thin_out_over_many_decades():
    locs, _ = _ticks([0.01, 1e6])
    assert len(locs) <= 12 and locs[0] == 0.01 and locs[-1] == 1e6


def test_log_ticks_on_a_narrow_range_mark_its_ends():
    locs, labels = _ticks([310.0, 340.0])
    assert locs == [310.0, 340.0] and labels == ["310", "340"]
