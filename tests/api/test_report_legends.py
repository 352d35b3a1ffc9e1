"""Every report kind (replay, validate, compare, sweep, YARN replay) rendered in headless Chromium: each figure's
legend lies outside its plot frame (the area the data are drawn in) and inside the figure's canvas.

The page is read as BokehJS laid it out: a probe script, appended to a copy of the report, walks the document's
views once the page says it rendered and records each plot's frame and each legend's box (canvas pixels) in
``data-legends`` on ``<html>``, which ``--dump-dom`` returns. Skips without Chromium.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

import mrsim
from tests.api.conftest import real_like_trace
from tests.api.test_report import _render

PROBE = r"""<script>
(function probe(n) {
  if (document.documentElement.getAttribute('data-rendered') !== 'true') {
    if (n < 800) { setTimeout(function () { probe(n + 1); }, 25); }
    return;
  }
  var out = [];
  var seen = new Set();
  function walk(v) {
    if (!v || seen.has(v)) return;
    seen.add(v);
    if (v.frame && v.renderer_views) {
      var f = v.frame.bbox;
      var legends = [];
      v.renderer_views.forEach(function (rv, model) {
        if (model.type === 'Legend') {
          var b = rv.bbox;
          legends.push(b ? [b.left, b.top, b.right, b.bottom] : null);
        }
      });
      out.push({title: v.model.title ? v.model.title.text : '', frame: [f.left, f.top, f.right, f.bottom],
                canvas: [v.bbox.width, v.bbox.height], legends: legends});
    }
    var kids = v.child_views || [];
    for (var i = 0; i < kids.length; i++) walk(kids[i]);
  }
  Object.values(Bokeh.index).forEach(walk);
  document.documentElement.setAttribute('data-legends', JSON.stringify(out));
})(0);
</script>"""


def _legend_boxes(page: Path, tmp_path: Path) -> list[dict]:
    probed = page.with_name(page.stem + "-probed.html")
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom, _ = _render(probed, tmp_path, screenshot=False)
    tag = re.search(r"<html[^>]*>", dom)
    assert tag is not None and 'data-rendered="true"' in tag.group(0), dom[:300]
    found = re.search(r'data-legends="([^"]*)"', tag.group(0))
    assert found is not None, tag.group(0)[:300]
    return json.loads(html.unescape(found.group(1)))


def _assert_legends_outside(plots: list[dict], at_least: int) -> None:
    with_legend = [p for p in plots if p["legends"]]
    assert len(with_legend) >= at_least, [p["title"] for p in plots]
    for plot in with_legend:
        left, top, right, bottom = plot["frame"]
        width, height = plot["canvas"]
        for box in plot["legends"]:
            assert box is not None, plot["title"]
            l, t, r, b = box
            overlap = min(r, right) - max(l, left) > 0 and min(b, bottom) - max(t, top) > 0
            assert not overlap, f"{plot['title']!r}: legend {box} over the plot frame {plot['frame']}"
            assert 0 <= l and r <= width + 1 and 0 <= t and b <= height + 1, \
                f"{plot['title']!r}: legend {box} outside the canvas {plot['canvas']}"


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return real_like_trace(tmp_path / "real.json")


def test_replay_report_legends(trace: Path, tmp_path: Path) -> None:
    page = mrsim.replay(str(trace), scheduler="fair", quiet=True).to_html(tmp_path / "replay.html")
    _assert_legends_outside(_legend_boxes(page, tmp_path), at_least=5)


def test_yarn_replay_report_legends(trace: Path, tmp_path: Path) -> None:
    page = mrsim.replay(str(trace), engine="yarn", scheduler="capacity", quiet=True).to_html(tmp_path / "yarn.html")
    _assert_legends_outside(_legend_boxes(page, tmp_path), at_least=3)


def test_validate_report_legends(trace: Path, tmp_path: Path) -> None:
    page = mrsim.validate(str(trace), quiet=True).to_html(tmp_path / "validate.html")
    _assert_legends_outside(_legend_boxes(page, tmp_path), at_least=3)


def test_compare_report_legends(trace: Path, tmp_path: Path) -> None:
    page = mrsim.compare(str(trace), schedulers=["fifo", "fair"], quiet=True).to_html(
        tmp_path / "compare.html")
    _assert_legends_outside(_legend_boxes(page, tmp_path), at_least=3)


def test_sweep_report_legends(tmp_path: Path) -> None:
    import pandas as pd

    from mrsim.analysis.report import sweep_report

    # nine schedulers: the legend that covered about 40 % of each panel when it sat inside
    schedulers = ["fifo", "fair", "capacity", "maxedf", "minedf", "srpt", "fsp", "las", "cafifo"]
    rows = [{"cell_id": f"c{s}{x}{r}", "model": "slots", "workload": "w", "cluster": "16 nodes", "scheduler": s,
             "interarrival_scale": x, "replication": r, "seed": r, "mean_completion_s": 10.0 * x + r + i,
             "p95_completion_s": 20.0 * x + r + i, "makespan_s": 100.0 + x + i}
            for i, s in enumerate(schedulers) for x in (1.0, 10.0, 100.0) for r in range(3)]
    page = sweep_report(pd.DataFrame(rows), tmp_path / "sweep.html")
    _assert_legends_outside(_legend_boxes(page, tmp_path), at_least=3)
