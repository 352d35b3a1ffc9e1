"""--report: one self-contained HTML file that renders in headless Chromium without script errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mrsim
from mrsim.cli import main

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=20000"]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _render(page: Path, tmp_path: Path, screenshot: bool = True) -> tuple[str, Path | None]:
    """(the DOM after scripts ran, a screenshot PNG or None) from headless Chromium; skips when it cannot be had."""
    exe = _chromium()
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    profile = tmp_path / "chromium-profile"
    base = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
    if not screenshot:
        dom = subprocess.run([*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
        return dom.stdout, None
    # One browser start for both (Chromium's headless mode since version 112 honours both flags in one run; an
    # older one writes only the DOM, and then a second run takes the screenshot).
    shot = tmp_path / (page.stem + ".png")
    shot_args = ["--window-size=1200,2400", f"--screenshot={shot}"]
    dom = subprocess.run([*base, *shot_args, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    if not shot.exists():
        subprocess.run([*base, *shot_args, page.as_uri()], capture_output=True, timeout=120)
    return dom.stdout, shot


def _assert_self_contained(text: str) -> None:
    assert not re.search(r"<script[^>]+src=", text), "every script must be inline"
    assert not re.search(r"<link[^>]+href=", text), "every style must be inline"
    assert "cdn.bokeh.org" not in text


def _assert_rendered(dom: str, shot: Path | None) -> None:
    tag = re.search(r"<html[^>]*>", dom)
    assert tag is not None, dom[:300]
    assert 'data-rendered="true"' in tag.group(0), tag.group(0)
    assert "data-errors" not in tag.group(0), tag.group(0)  # window.onerror collected nothing
    if shot is not None:
        assert shot.exists() and shot.stat().st_size > 20_000  # a blank page is a few kB


def test_replay_report_renders(tmp_path, capsys):
    page = tmp_path / "replay.html"
    assert main(["replay", "--nodes", "16", "--report", str(page), "--quiet"]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    text = page.read_text()
    _assert_self_contained(text)
    for heading in ("Utilisation", "Per-job timeline", "Share per queue over time", "Running and pending tasks",
                    "Completion time", "Slowdown"):
        assert f"<h2>{heading}" in text
    assert len(text) < 5_000_000
    dom, shot = _render(page, tmp_path)
    _assert_rendered(dom, shot)


def test_validate_and_compare_reports_render(tmp_path, real_trace):
    vpage = mrsim.validate(str(real_trace), quiet=True).to_html(tmp_path / "validate.html")
    text = vpage.read_text()
    assert "<h2>Simulated vs actual" in text and "<h2>Where the error comes from" in text
    cpage = mrsim.compare(str(real_trace), schedulers=["fifo", "fair"], quiet=True).to_html(tmp_path / "compare.html")
    _assert_self_contained(cpage.read_text())
    for page in (vpage, cpage):
        dom, shot = _render(page, tmp_path, screenshot=False)
        _assert_rendered(dom, shot)


def test_fair_report_draws_the_fair_share(tmp_path):
    from tests.api.conftest import real_like_trace

    trace = real_like_trace(tmp_path / "t.json")
    page = mrsim.replay(str(trace), scheduler="fair", quiet=True).to_html(tmp_path / "fair.html")
    assert "Hadoop 1.x fair share" in page.read_text() and "slots per pool" in page.read_text()


def test_report_must_be_html(capsys):
    assert main(["replay", "--report", "out.png"]) == 2
    assert "--report writes an HTML file" in capsys.readouterr().err


def test_gantt_groups_thousands_of_jobs():
    import numpy as np
    import pandas as pd

    from mrsim.analysis.report import GANTT_MAX_BARS, gantt_figure

    n = 4000
    jobs = pd.DataFrame({"job_id": [f"j{i}" for i in range(n)], "queue": "q", "submit_s": np.arange(n, dtype=float),
                         "start_s": np.arange(n) + 1.0, "finish_s": np.arange(n) + 5.0, "completion_s": 5.0,
                         "maps": 1, "reduces": 0})
    fig, caption = gantt_figure(jobs)
    bars = fig.renderers[1].data_source.data
    assert len(bars["y"]) == -(-n // -(-n // GANTT_MAX_BARS)) and "grouped 3 per bar" in caption
    assert bars["submit"][0] == 0.0 and bars["finish"][0] == 7.0  # jobs 0..2: first submit 0, last finish 2 + 5


def test_sweep_report_shows_spread_across_replications(tmp_path):
    import pandas as pd

    from mrsim.analysis.report import sweep_report

    rows = [{"cell_id": f"c{s}{x}{r}", "model": "slots", "workload": "w", "cluster": "16 nodes", "scheduler": s,
             "interarrival_scale": x, "replication": r, "seed": r, "mean_completion_s": 10.0 * x + r,
             "p95_completion_s": 20.0 * x + r, "makespan_s": 100.0 + x}
            for s in ("fifo", "fair") for x in (1.0, 10.0, 100.0) for r in range(3)]
    page = sweep_report(pd.DataFrame(rows), tmp_path / "sweep.html")
    text = page.read_text()
    assert "swept axis <code>interarrival_scale</code>" in text and text.count("<h2>") == 3
    dom, shot = _render(page, tmp_path, screenshot=False)
    _assert_rendered(dom, shot)


def test_error_decomposition_terms_sum_to_the_error(real_trace):
    from mrsim.analysis.report import _decomposition

    jobs = mrsim.validate(str(real_trace), quiet=True).jobs
    terms = _decomposition(jobs)
    parts = sum(v for k, v in terms.items() if not k.startswith("total"))
    assert parts == pytest.approx(terms["total: completion - actual"], abs=1e-6)
    assert terms["total: completion - actual"] == pytest.approx(
        float((jobs["completion_s"] - jobs["actual_completion_s"]).mean()))


@pytest.mark.parametrize("demand,weights,mins,maxes,capacity,expected", [
    ([8, 8], [1, 1], [0, 0], [None, None], 10, [5, 5]),
    ([10, 10], [2, 1], [0, 0], [None, None], 9, [6, 3]),        # r = 3: 2r + r = 9
    ([10, 10], [1, 1], [5, 0], [None, None], 8, [5, 3]),        # the min share first, the rest to the other
    ([10, 10], [1, 1], [0, 0], [2, None], 10, [2, 8]),          # a capped pool gives its excess away
    ([1, 2], [1, 1], [0, 0], [None, None], 10, [1, 2]),         # demand below capacity: everyone is served
    ([0, 6], [1, 1], [4, 0], [None, None], 4, [0, 4]),          # a min share does not exceed demand
])
def test_fair_shares_by_hand(demand, weights, mins, maxes, capacity, expected):
    import numpy as np

    from mrsim.analysis.report import fair_shares

    got = fair_shares(np.array([demand]), np.array(weights, float), np.array(mins, float),
                      np.array([np.inf if m is None else m for m in maxes], float), capacity)
    assert got[0].tolist() == pytest.approx(expected, abs=1e-6)


def test_validate_report_overlays_actual_and_simulated_completion_cdfs(real_trace):
    from mrsim.analysis.report import cdf_figures

    jobs = mrsim.validate(str(real_trace), quiet=True).jobs
    actual = jobs.assign(completion_s=jobs["actual_completion_s"])
    completion, _slowdown = cdf_figures({"actual (trace)": actual, "simulated": jobs})
    steps = [r for r in completion.renderers if type(r.glyph).__name__ == "Step"]
    assert len(steps) == 2
    assert sorted(steps[0].data_source.data["x"]) == sorted(jobs["actual_completion_s"].tolist())
    assert sorted(steps[1].data_source.data["x"]) == sorted(jobs["completion_s"].tolist())
    legend = completion.right[0]  # beside the plot area, not over the curves
    assert [item.label["value"] for item in legend.items] == ["actual (trace)", "simulated"]
    assert not any(type(m).__name__ == "Legend" for m in completion.center)


def test_validate_report_page_has_both_curves(tmp_path, real_trace):
    page = mrsim.validate(str(real_trace), quiet=True).to_html(tmp_path / "v.html").read_text()
    assert "in the trace (actual) and in the replay (simulated)" in page
    assert "actual (trace)" in page
