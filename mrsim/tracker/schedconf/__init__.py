"""Scheduler configuration for the Fair and Capacity schedulers: Hadoop MRv1 and YARN files into frozen dataclasses.

One reader per Hadoop file type, shared by the MRv1 schedulers (``schedulers/``) and YARN mode
(:mod:`mrsim.tracker.yarn`); each file is parsed once per run (:mod:`~mrsim.tracker.schedconf.document`):

* :mod:`mrsim.tracker.schedconf.allocation_file` - ``fair-scheduler.xml`` allocation files (``<allocations>``);
* :mod:`mrsim.tracker.schedconf.capacity_file` - ``capacity-scheduler.xml`` (MRv1 and YARN keys);
* :mod:`mrsim.tracker.schedconf.site_file` - ``mapred-site.xml`` / ``yarn-site.xml`` / any ``<configuration>``.

What each MRv1 scheduler takes from them:

* :mod:`mrsim.tracker.schedconf.fair_alloc` - allocation files (MRv1 ``<pool>``, YARN nested ``<queue>``);
* :mod:`mrsim.tracker.schedconf.fair_conf` - ``mapred.fairscheduler.*`` / ``yarn.scheduler.fair.*`` keys + the allocations;
* :mod:`mrsim.tracker.schedconf.capacity_conf` - ``capacity-scheduler.xml`` (MRv1 and ``yarn.scheduler.capacity.root``);
* :mod:`mrsim.tracker.schedconf.properties`, :mod:`mrsim.tracker.schedconf.xmltree` - layered Hadoop properties,
  the XML reader with lines;
* :mod:`mrsim.tracker.schedconf.livecounts` - live running counts shared by both schedulers (not configuration, but
  shared runtime support that has no better home until the engine offers a task-finished hook).

Every user mistake is an :class:`mrsim.errors.InputError` naming the file (and line where known).
"""

from mrsim.tracker.schedconf.allocation_file import AllocationFile, read_allocation_file
from mrsim.tracker.schedconf.capacity_conf import CapacityConf, MemoryConf, QueueConf, load_capacity_conf
from mrsim.tracker.schedconf.capacity_file import CapacityFile, read_capacity_file
from mrsim.tracker.schedconf.fair_alloc import (ContainerSize, Dialect, FairAllocations, PlacementKind, PlacementRule,
                                               PoolAllocation, SchedulingMode, load_allocations)
from mrsim.tracker.schedconf.fair_conf import FairSchedulerConf, load_fair_conf
from mrsim.tracker.schedconf.site_file import SiteFile, read_site_file

__all__ = [
    "AllocationFile", "CapacityFile", "SiteFile", "read_allocation_file", "read_capacity_file", "read_site_file",
    "CapacityConf", "ContainerSize", "Dialect", "FairAllocations", "FairSchedulerConf", "MemoryConf",
    "PlacementKind", "PlacementRule", "PoolAllocation", "QueueConf", "SchedulingMode", "load_allocations",
    "load_capacity_conf", "load_fair_conf",
]
