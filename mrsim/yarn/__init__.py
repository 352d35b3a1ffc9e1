"""YARN mode: an emulated ResourceManager, NodeManagers and MR ApplicationMasters for Hadoop 2/3 (``docs/yarn.md``).

* :mod:`mrsim.yarn.config` - YARN / MR-on-YARN keys and the container launch lag;
* :mod:`mrsim.yarn.rm` - the ResourceManager event loop (NodeManager heartbeats, submissions, container exits);
* :mod:`mrsim.yarn.nodemanager` - nodes and containers;
* :mod:`mrsim.yarn.appmaster` - the MR ApplicationMaster's allocate protocol and ``RMContainerAllocator`` rules;
* :mod:`mrsim.yarn.schedulers` - FIFO, Capacity and Fair, container by container;
* :mod:`mrsim.yarn.timeseries` - per-queue metrics per second (SLS style);
* :mod:`mrsim.yarn.replay` - one replay in, a ``ReplayResult`` out;
* :mod:`mrsim.yarn.engine` - choosing the engine (``--engine yarn|mr1|auto``).
"""

from mrsim.yarn.config import LaunchLag, YarnConf, build_yarn_conf
from mrsim.yarn.replay import replay_yarn
from mrsim.yarn.schedulers import create_yarn_scheduler

__all__ = ["LaunchLag", "YarnConf", "build_yarn_conf", "create_yarn_scheduler", "replay_yarn"]
