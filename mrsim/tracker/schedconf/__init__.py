"""Scheduler configuration for the Fair and Capacity schedulers: Hadoop MRv1 and YARN files into frozen dataclasses.

* :mod:`mrsim.tracker.schedconf.fair_alloc` - allocation files (MRv1 ``<pool>``, YARN nested ``<queue>``);
* :mod:`mrsim.tracker.schedconf.fair_conf` - ``mapred.fairscheduler.*`` / ``yarn.scheduler.fair.*`` keys + the allocations;
* :mod:`mrsim.tracker.schedconf.capacity_conf` - ``capacity-scheduler.xml`` (MRv1 and ``yarn.scheduler.capacity.root``);
* :mod:`mrsim.tracker.schedconf.properties`, :mod:`mrsim.tracker.schedconf.xmlfile` - layered Hadoop properties, XML with lines;
* :mod:`mrsim.tracker.schedconf.livecounts` - live running counts shared by both schedulers (not configuration, but
  shared runtime support that has no better home until the engine offers a task-finished hook).

Every user mistake is an :class:`mrsim.errors.InputError` naming the file (and line where known).
"""

from mrsim.tracker.schedconf.capacity_conf import CapacityConf, MemoryConf, QueueConf, load_capacity_conf
from mrsim.tracker.schedconf.fair_alloc import (ContainerSize, Dialect, FairAllocations, PlacementKind, PlacementRule,
                                               PoolAllocation, SchedulingMode, load_allocations)
from mrsim.tracker.schedconf.fair_conf import FairSchedulerConf, load_fair_conf

__all__ = [
    "CapacityConf", "ContainerSize", "Dialect", "FairAllocations", "FairSchedulerConf", "MemoryConf",
    "PlacementKind", "PlacementRule", "PoolAllocation", "QueueConf", "SchedulingMode", "load_allocations",
    "load_capacity_conf", "load_fair_conf",
]
