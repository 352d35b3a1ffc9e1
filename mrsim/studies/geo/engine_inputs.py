"""The geo study's workloads as engine inputs (Hung, Golubchik, Yu, SoCC'15, sec. 6, Table 2).

:func:`engine_inputs` turns a :class:`mrsim.studies.geo.model.GeoWorkload` (from :func:`mrsim.studies.geo.workloads.synthesize`:
Facebook-, Google- or Exponential-like sizes, Poisson arrivals at a target utilisation, Zipf placement) into a
:class:`mrsim.model.templates.Workload` and a federated :class:`mrsim.model.cluster.ClusterSpec`, so that the *same* jobs,
task durations and placements run through the heartbeat engine under the geo schedulers:

* each datacenter is one TaskTracker ``<dc>-node`` with as many map slots as the datacenter has slots and no
  reduce slots (the paper's model has one kind of task);
* each job becomes a map-only template whose maps are its sub-jobs' tasks, datacenter by datacenter, with
  ``extra["map_datacenters"] = {dc: count}``; submit time = arrival time.

In task-completion mode (``heartbeat_interval_s = 0``) the engine then runs the standalone simulator's model,
except that simultaneous events are handled one by one rather than as a batch (the worked example gives
identical schedules); with heartbeats, a freed slot waits for its tracker's next heartbeat.

Cost: O(tasks) once per workload.
"""

from __future__ import annotations

import numpy as np

from mrsim.model.cluster import ClusterSpec, TrackerSpec
from mrsim.model.templates import JobTemplate, Workload
from mrsim.studies.geo.model import GeoWorkload


def federation_cluster(names: tuple[str, ...], slots: tuple[int, ...]) -> ClusterSpec:
    """One tracker per datacenter holding all its map slots (see the module docstring)."""
    trackers = tuple(TrackerSpec(f"{name}-node", rack=f"/{name}/rack1", map_slots=int(s), reduce_slots=0,
                                 datacenter=name) for name, s in zip(names, slots))
    return ClusterSpec(trackers, source=f"federation of {len(names)} datacenters x {slots[0]} slots"
                       if len(set(slots)) == 1 else f"federation of {len(names)} datacenters")


def engine_inputs(geo: GeoWorkload, *, keep_order: bool = False) -> tuple[Workload, ClusterSpec]:
    """The engine workload and federated cluster equivalent to ``geo`` (module docstring).

    ``keep_order``: the engine takes jobs submitted at one instant in job id order, ``geo`` in its own (file)
    order; True prefixes each id with the job's zero-padded position in ``geo`` (``"007 B"``), so that engine
    job ``k`` is ``geo.jobs[k]`` and same-instant arrivals keep ``geo``'s order (``mrsim geo`` runs this way)."""
    fed = geo.federation
    width = len(str(max(0, len(geo.jobs) - 1)))
    jobs = []
    for k, job in enumerate(geo.jobs):
        durations = np.concatenate(job.durations) if job.durations else np.zeros(0)
        jobs.append(JobTemplate(
            job_id=f"{k:0{width}d} {job.job_id}" if keep_order else job.job_id, submit_s=float(job.arrival_s), map_durations=durations, reduce_durations=[],
            first_shuffle_durations=[], typical_shuffle_durations=[],
            extra={"map_datacenters": {fed.names[d]: int(a.size) for d, a in zip(job.dcs, job.durations)}},
        ))
    return Workload.of(jobs, source=geo.source), federation_cluster(fed.names, fed.slots)
