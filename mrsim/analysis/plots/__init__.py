"""Figures from sweep results and replay outputs (matplotlib, no pyplot state: every function returns a
:class:`matplotlib.figure.Figure`, and :func:`save_figure` writes it atomically as PNG, SVG or PDF by extension).

* :func:`box_figure`: a metric per scheduler across a parameter, boxes over replications (size-based study's
  sojourn-vs-error figures);
* :func:`lines_figure`: a metric against a parameter per scheduler, with the replication spread (SimMR Fig. 7, 8);
* :func:`cdf_figure`: empirical CDFs, several runs overlaid;
* :func:`scatter_figure`: simulated against actual completion times with y = x;
* :func:`timeline_figure`: slot-occupancy timeline of one replay, coloured by job (SimMR Fig. 1, 2).

Inputs are read by :mod:`mrsim.analysis.plots.inputs`; axis labels with units and the automatic log-scale rule live in
:mod:`mrsim.analysis.plots.labels`.
"""

from mrsim.analysis.plots.box import box_figure
from mrsim.analysis.plots.cdf import cdf_figure
from mrsim.analysis.plots.labels import Scale
from mrsim.analysis.plots.lines import Spread, lines_figure
from mrsim.analysis.plots.output import save_figure
from mrsim.analysis.plots.scatter import scatter_figure
from mrsim.analysis.plots.timeline import timeline_figure

__all__ = ["Scale", "Spread", "box_figure", "cdf_figure", "lines_figure", "save_figure", "scatter_figure",
           "timeline_figure"]
