"""YARN mode: an emulated ResourceManager, NodeManagers and MR ApplicationMasters for Hadoop 2/3 (``docs/yarn.md``).

* :mod:`mrsim.tracker.yarn.config` - YARN / MR-on-YARN keys and the container launch lag;
* :mod:`mrsim.tracker.yarn.rm` - the ResourceManager, a feature of the JobTracker core (submissions, containers,
  container exits, AM starts, allocates and commits); NodeManager heartbeats are the core's tracker heartbeats;
* :mod:`mrsim.tracker.yarn.heartbeat` - the core's scheduler plug-in in YARN mode (a heartbeat runs ``nodeUpdate``);
* :mod:`mrsim.tracker.yarn.nodemanager` - a node's memory and vcores, and containers;
* :mod:`mrsim.tracker.yarn.appmaster` - the MR ApplicationMaster's allocate protocol and ``RMContainerAllocator`` rules;
* :mod:`mrsim.tracker.yarn.schedulers` - FIFO, Capacity and Fair, container by container;
* :mod:`mrsim.tracker.yarn.timeseries` - per-queue metrics per second (SLS style);
* :mod:`mrsim.tracker.yarn.replay` - one replay in, a ``ReplayResult`` out;
* :mod:`mrsim.tracker.yarn.engine` - choosing the engine (``--engine yarn|mr1|auto``).
"""

from mrsim.tracker.yarn.config import LaunchLag, YarnConf, build_yarn_conf
from mrsim.tracker.yarn.replay import replay_yarn
from mrsim.tracker.yarn.schedulers.registry import create_yarn_scheduler

__all__ = ["LaunchLag", "YarnConf", "build_yarn_conf", "create_yarn_scheduler", "replay_yarn"]
