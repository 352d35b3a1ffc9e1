"""Federations of datacenters in the heartbeat engine (Hung, Golubchik, Yu, SoCC'15; ``docs/geo.md``).

* :mod:`mrsim.studies.federation.placement`: place any workload's tasks in the datacenters of a federated cluster
  (``auto``, ``uniform``, ``zipf``, ``racks``), seeded.
* :mod:`mrsim.tracker.features.federation_metrics` (the engine's side): size classes, slowdowns and per-datacenter
  utilisation of a replay, ``summary["federation"]``.
* :mod:`mrsim.studies.federation.workloads`: the paper's synthetic workloads as engine job templates.
* :mod:`mrsim.studies.federation.figures`: the paper's figure families through the engine (``python3 -m``).

The policies themselves are ordinary schedulers (``schedulers/geo_*.py``) that call :mod:`mrsim.studies.geo.policies`.
"""
