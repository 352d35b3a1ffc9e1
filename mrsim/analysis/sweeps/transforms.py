"""Per-cell workload variants built from a base workload: scaled inter-arrival gaps and deadlines.

Both return new immutable workloads (templates are frozen); the base workload, cached by the worker, is never
changed. Cost: O(jobs + tasks) for the template copies.
"""

from __future__ import annotations

import numpy as np

from mrsim.tracker.replay import ReplayOptions
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload


def scale_interarrival(workload: Workload, factor: float) -> Workload:
    """Multiply every inter-arrival gap by ``factor`` (> 0), keeping the first submission where it is.

    ``factor`` 2 halves the arrival rate (lighter load); ``factor`` 1 returns ``workload`` itself.
    """
    if factor == 1.0 or len(workload) == 0:
        return workload
    origin = workload.origin_s
    jobs = [j.with_changes(submit_s=origin + (j.submit_s - origin) * factor) for j in workload]
    return Workload.of(jobs, source=f"{workload.source} (inter-arrival x{factor:g})", warnings=workload.warnings)


def with_deadlines(workload: Workload, cluster: ClusterSpec, conf: HadoopConf, deadline_factor: float, seed: int,
                   options: ReplayOptions, isolated: np.ndarray | None = None) -> Workload:
    """Deadlines uniform in ``[T_J, df * T_J]`` (SimMR section V) from :func:`mrsim.studies.deadlines.assign_deadlines`.

    ``options`` are the engine options the cell replays with (T_J is measured with them); ``isolated`` passes T_J
    when already known. Imported lazily: the spec checks that the module exists.
    """
    from mrsim.studies.deadlines import assign_deadlines

    return assign_deadlines(workload, cluster, conf, deadline_factor, seed, options=options, isolated=isolated)


def isolated_times(workload: Workload, cluster: ClusterSpec, conf: HadoopConf, options: ReplayOptions) -> np.ndarray:
    """T_J per job: each job replayed alone under FIFO (:func:`mrsim.studies.deadlines.isolated_completion_times`).

    Cost: about one replay of the whole workload; it does not depend on the deadline factor or the scheduler,
    so the runner caches it across those cells.
    """
    from mrsim.studies.deadlines import isolated_completion_times

    return isolated_completion_times(workload, cluster, conf, options)
