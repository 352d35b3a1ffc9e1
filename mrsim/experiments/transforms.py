"""Per-cell workload variants built from a base workload: scaled inter-arrival gaps and deadlines.

Both return new immutable workloads (templates are frozen); the base workload, cached by the worker, is never
changed. Cost: O(jobs + tasks) for the template copies.
"""

from __future__ import annotations

from mrsim.cluster import ClusterSpec
from mrsim.hadoop_conf import HadoopConf
from mrsim.templates import Workload


def scale_interarrival(workload: Workload, factor: float) -> Workload:
    """Multiply every inter-arrival gap by ``factor`` (> 0), keeping the first submission where it is.

    ``factor`` 2 halves the arrival rate (lighter load); ``factor`` 1 returns ``workload`` itself.
    """
    if factor == 1.0 or len(workload) == 0:
        return workload
    origin = workload.origin_s
    jobs = [j.with_changes(submit_s=origin + (j.submit_s - origin) * factor) for j in workload]
    return Workload.of(jobs, source=f"{workload.source} (inter-arrival x{factor:g})", warnings=workload.warnings)


def with_deadlines(workload: Workload, cluster: ClusterSpec, conf: HadoopConf, deadline_factor: float,
                   seed: int) -> Workload:
    """Deadlines uniform in ``[T_J, df * T_J]`` (SimMR section V-A) from :func:`mrsim.deadlines.assign_deadlines`.

    Imported here, lazily: that module belongs to the deadline-scheduler work and the spec checks it exists.
    """
    from mrsim.deadlines import assign_deadlines

    return assign_deadlines(workload, cluster, conf, deadline_factor, seed)
