"""Reordering (Hung et al. sec. 4, Algorithm 1) on top of Global-SRPT or Independent-SRPT.

Repeatedly take the datacenter with the largest queue, move the job with the largest sub-job there to the back
of the order and drop its sub-jobs from every queue; the reverse of that sequence is the order pushed to every
datacenter. The base SRPT only breaks ties (``mrsim.studies.geo.policies.reorder``). Controller and local schedulers:
:mod:`mrsim.schedulers.geo_controller`.
"""

from __future__ import annotations

from mrsim.schedulers.geo_controller import GeoControllerScheduler
from mrsim.studies.geo.policies import Policy


class GeoReorderGlobalSrptScheduler(GeoControllerScheduler):
    name = "reorder-gsrpt"
    summary = "geo: Reordering (Algorithm 1) on top of Global-SRPT"
    policy = Policy.REORDER_GSRPT


class GeoReorderIndependentSrptScheduler(GeoControllerScheduler):
    name = "reorder-isrpt"
    summary = "geo: Reordering (Algorithm 1) on top of Independent-SRPT"
    policy = Policy.REORDER_ISRPT
