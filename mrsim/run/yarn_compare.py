"""``compare`` in YARN mode: every YARN scheduler on one workload with the same seeds, as an
:class:`~mrsim.analysis.comparison.Comparison` (the MR1 engine's comparison is :func:`mrsim.analysis.comparison.compare`)."""

from __future__ import annotations

from dataclasses import replace as dc_replace
from typing import Any

from mrsim.analysis.comparison import Comparison, SchedulerRuns, result_metrics, within_replay
from mrsim.errors import OptionError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.templates import Workload
from mrsim.tracker.yarn.calibration import YarnCalibration
from mrsim.tracker.yarn.engine import YARN_SCHEDULERS, create_yarn_scheduler, scheduler_settings, yarn_conf, yarn_routing_note
from mrsim.tracker.yarn.replay import replay_yarn


def compare_yarn(args: Any, workload: Workload, cluster: ClusterSpec, names: list[str],
                 replications: int, config: dict, progress=None, calibration: YarnCalibration | None = None,
                 inferred_cluster: bool = False, configs: dict[str, dict] | None = None,
                 routing: list[str] | None = None):
    """``mrsim compare`` in YARN mode: every YARN scheduler in ``names`` on the same workload, seeds SEED..SEED+N-1.

    Slot shares count containers: the cluster's memory in map-container units is the "slot" total. Slowdowns (which
    need isolated MR1 replays) and deadlines are not computed in YARN mode. ``configs[name]``, when given, is
    scheduler ``name``'s config (its own ``--scheduler-config`` file), else ``config``. ``routing``, when given,
    receives each scheduler's line saying where replication 0's jobs went (:mod:`mrsim.tracker.routing`).
    """
    for name in names:
        if name.strip().lower() not in YARN_SCHEDULERS:
            raise OptionError(f"{{schedulers}} {name}: not a YARN scheduler in YARN mode (expected "
                             f"{', '.join(YARN_SCHEDULERS)}; use {{engine}} mr1 for the Hadoop 1 plug-ins)")
    conf, _notes = yarn_conf(args, workload, cluster, inferred_cluster)
    total = int(sum(conf.nm_memory_mb for _ in cluster.trackers) // conf.normalise(conf.map_mb, conf.map_vcores)[0])
    runs = {name: SchedulerRuns(name) for name in names}
    done = 0
    for r in range(replications):
        seed = getattr(args, "seed", 0) + r
        for name in names:
            scheduler = create_yarn_scheduler(name, scheduler_settings(args, (configs or {}).get(name, config)))
            result = replay_yarn(workload, cluster, dc_replace(conf), scheduler, seed=seed,
                                 job_overheads=not getattr(args, "no_job_overheads", False),
                                 locality=getattr(args, "locality", "auto"), queue_series=False,
                                 calibration=calibration, progress=within_replay(progress, done, len(workload)))
            result.spec["engine"] = "yarn"
            if r == 0 and routing is not None:
                routing.append(yarn_routing_note(name, scheduler, result))
            runs[name].results.append(result)
            runs[name].metrics.append(result_metrics(result, None, total))
            runs[name].seeds.append(seed)
            done += 1
            if progress is not None:
                progress(done)
    return Comparison(runs, None, replications, getattr(args, "seed", 0), total)
