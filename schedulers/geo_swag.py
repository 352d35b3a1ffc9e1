"""SWAG, workload-aware greedy scheduling (Hung et al. sec. 5, Algorithm 2), on a federation.

Greedily append the job with the smallest estimated finish, the maximum over its datacenters of (queue already
placed in front of it + its sub-job) per slot; ties by smaller total queued tasks, then arrival
(``mrsim.studies.geo.policies.swag``). The order is pushed to every datacenter. Controller and local schedulers:
:mod:`mrsim.schedulers.geo_controller`.
"""

from __future__ import annotations

from mrsim.schedulers.geo_controller import GeoControllerScheduler
from mrsim.studies.geo.policies import Policy


class GeoSwagScheduler(GeoControllerScheduler):
    name = "swag"
    summary = "geo: SWAG, greedy by estimated finish over datacenter queues (Algorithm 2)"
    policy = Policy.SWAG
