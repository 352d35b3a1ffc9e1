"""Independent-SRPT on a federation (Hung et al. sec. 3.2): each datacenter orders its own sub-jobs by their
queued tasks there, ties by arrival; no global order.

The orders are recomputed at the same instants as the controller's (job arrivals and departures), from the same
snapshot; only the rule differs. Controller and local schedulers: :mod:`mrsim.schedulers.geo_controller`.
"""

from __future__ import annotations

from mrsim.schedulers.geo_controller import GeoControllerScheduler
from mrsim.studies.geo.policies import Policy


class GeoIndependentSrptScheduler(GeoControllerScheduler):
    name = "isrpt"
    summary = "geo: Independent-SRPT (each datacenter by its own queued sub-job size)"
    policy = Policy.ISRPT
