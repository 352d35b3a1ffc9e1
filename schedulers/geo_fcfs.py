"""FCFS on a federation: every datacenter launches its sub-jobs in job arrival order (Hung et al. sec. 3, Fig. 3a).

The baseline of the paper. Controller and local schedulers: :mod:`mrsim.schedulers.geo_controller`.
"""

from __future__ import annotations

from mrsim.schedulers.geo_controller import GeoControllerScheduler
from mrsim.studies.geo.policies import Policy


class GeoFcfsScheduler(GeoControllerScheduler):
    name = "fcfs"
    summary = "geo: FCFS across datacenters (arrival order pushed to every datacenter)"
    policy = Policy.FCFS
