"""Global-SRPT on a federation (Hung et al. sec. 3.1): jobs ordered by their total queued tasks over all
datacenters, ties by arrival; the controller pushes that one order to every datacenter.

Controller and local schedulers: :mod:`mrsim.schedulers.geo_controller`.
"""

from __future__ import annotations

from mrsim.schedulers.geo_controller import GeoControllerScheduler
from mrsim.studies.geo.policies import Policy


class GeoGlobalSrptScheduler(GeoControllerScheduler):
    name = "gsrpt"
    summary = "geo: Global-SRPT (total queued tasks over all datacenters)"
    policy = Policy.GSRPT
