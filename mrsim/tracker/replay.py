"""Run one replay: frozen inputs (workload, cluster, Hadoop configuration, scheduler, options) in, results out.

>>> from mrsim.tracker.replay import replay, ReplayOptions  # doctest: +SKIP
>>> result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=1))

Every result records the full specification it ran with (:attr:`ReplayResult.spec`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from mrsim.tracker.features.resources import ResourcesFeature
from mrsim.io.gc_policy import engine_gc
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.replay_options import ReplayOptions
from mrsim.tracker.results import ReplayResult, collect_result
from mrsim.tracker.scheduling import TaskScheduler
from mrsim.errors import InputError, OptionError, StalledError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.modes import Contention
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.streamed import StreamedWorkload
from mrsim.model.templates import Workload

if TYPE_CHECKING:
    from mrsim.calibration.model import Calibration


def replay(workload: Workload, cluster: ClusterSpec, conf: HadoopConf, scheduler: TaskScheduler,
           options: ReplayOptions = ReplayOptions(), progress: Callable[[int], None] | None = None) -> ReplayResult:
    """Replay ``workload`` on ``cluster`` under ``scheduler`` and return per-job and per-task results.

    A :class:`~mrsim.model.streamed.StreamedWorkload` is read while the replay runs, one arrival ahead
    (``mrsim/tracker/features/streaming.py``); it needs ``options.task_results=False``."""
    streamed = isinstance(workload, StreamedWorkload)
    if not streamed and len(workload) == 0:
        raise InputError(f"{workload.source or 'workload'}: no jobs to replay")
    if not (options.rack_local_slowdown > 0 and options.off_switch_slowdown > 0):
        raise InputError("locality slowdown factors must be positive")
    if options.heartbeat_interval_s is not None and options.heartbeat_interval_s < 0:
        raise InputError(f"the heartbeat interval must be positive seconds, or 0 for task-completion-driven "
                         f"heartbeats, got {options.heartbeat_interval_s!r}")
    if cluster.map_slots == 0 and not streamed and workload.n_maps > 0:  # streamed: checked job by job
        raise InputError("the cluster has no map slots but the workload has map tasks")
    if cluster.reduce_slots == 0 and not streamed and workload.n_reduces > 0:
        raise InputError("the cluster has no reduce slots but the workload has reduce tasks")
    interval = requested_interval(options)
    calibration = _replayed_calibration(options)
    jt = JobTracker(workload, cluster, conf, scheduler, heartbeat_interval=interval,
                    naive_heartbeats=options.naive_heartbeats, seed=options.seed,
                    aligned_heartbeats=options.aligned_heartbeats, locality=options.locality,
                    rack_local_slowdown=options.rack_local_slowdown, off_switch_slowdown=options.off_switch_slowdown,
                    bounded_wakes=options.bounded_wakes)
    jt.progress = progress
    jt.keep_task_results = options.task_results or bool(jt.datacenters)
    if streamed:
        from mrsim.tracker.features.streaming import check_streamable

        check_streamable(options, jt)
    # First of all features: its on_launch takes a launched task's resources before any other feature's hook runs.
    jt.attach(ResourcesFeature(memory_slots=options.memory_slots))
    if jt.datacenters:  # a federation: every task runs in the datacenter it is placed in
        from mrsim.tracker.features.federation import FederationFeature

        jt.attach(FederationFeature())
    if cluster.resource_names:  # maps and reduces share containers: waiting reduces may starve the maps
        from mrsim.tracker.features.reducer_preemption import ReducerPreemptionFeature

        jt.attach(ReducerPreemptionFeature())
    if options.job_overheads:
        from mrsim.tracker.features.overheads import JobOverheadsFeature

        jt.attach(JobOverheadsFeature())
    backup_waits = calibration is not None and "backups" in options.calibration_parts
    if options.failed_attempts or backup_waits:
        from mrsim.tracker.features.failures import FailedAttemptsFeature

        jt.attach(FailedAttemptsFeature(failed_attempts=options.failed_attempts, backup_waits=backup_waits))
    if jt.speculative_maps or jt.speculative_reduces:
        from mrsim.tracker.features.speculation import SpeculationFeature

        jt.attach(SpeculationFeature())
    if options.contention is not Contention.NONE:
        from mrsim.tracker.features.contention import ContentionFeature

        jt.attach(ContentionFeature())
    if calibration is not None:
        from mrsim.calibration.feature import CalibrationFeature

        parts = options.calibration_parts
        jt.attach(CalibrationFeature(calibration, options.seed, launch_lag="launch" in parts,
                                     report_lag="report" in parts, aux_task_time="aux" in parts,
                                     stalls="stalls" in parts, launchers="launchers" in parts,
                                     backups="backups" in parts, localize="localize" in parts,
                                     carry="carry" in parts))
    if options.background is not None and not options.background.is_empty():
        if cluster.resource_names:
            raise OptionError("{background} trace: outside work is estimated in map slots; it cannot run on a "
                              "resource-vector cluster (use {background} none)")
        from mrsim.calibration.background_feature import BackgroundFeature

        jt.attach(BackgroundFeature(options.background))
    arrivals = None
    if streamed:  # last: the features above scanned no job (a streamed job needing one of them is refused)
        from mrsim.tracker.features.streaming import StreamedArrivals

        arrivals = StreamedArrivals(workload)
        jt.attach(arrivals)
    started = time.perf_counter()
    with engine_gc():  # a larger generation 0 while the engine runs (mrsim.io.gc_policy)
        jt.run(jt.check_invariants if options.check_invariants else None)
    wall = time.perf_counter() - started
    if jt.jobs_done != len(jt.jobs):
        raise _stalled(jt, scheduler.name)
    result = collect_result(jt, options, wall)
    if arrivals is not None:
        result.warnings = workload.stream_warnings  # found while reading, i.e. during the run
    return result


def _stalled(jt: JobTracker, scheduler: str) -> StalledError:
    """The one line of a replay whose event queue ran dry with jobs unfinished: how many, the first one's pool
    (when the scheduler keeps one on the job) or queue and user, what it ran and what it never launched, and when
    the last event happened."""
    stuck = next(j for j in jt.jobs if j.finish_time < 0)
    pool = getattr(getattr(stuck.sched, "pool", None), "name", None)
    where = f"pool {pool!r}" if isinstance(pool, str) else f"queue {stuck.queue!r}"
    never = [f"{n} {kind}{'s' if n != 1 else ''}" for n, kind in ((stuck.maps_pending, "map"),
                                                                   (stuck.reduces_pending, "reduce")) if n]
    done = f"{stuck.finished_maps}/{stuck.n_maps} maps and {stuck.finished_reduces}/{stuck.n_reduces} reduces done"
    return StalledError(
        f"replay stalled at {jt.now:.1f} s: {len(jt.jobs) - jt.jobs_done} job(s) never finished (first: "
        f"{stuck.job_id}, {where}, user {stuck.user!r}: {done}"
        f"{', ' + ' and '.join(never) + ' never launched' if never else ''}); scheduler {scheduler!r} assigns "
        f"none of their tasks (a pool's or queue's limit of 0 maps or reduces, or a scheduler that stops assigning)")


def _replayed_calibration(options: ReplayOptions) -> "Calibration | None":
    """The calibration a replay applies (:meth:`ReplayOptions.replayed_calibration`)."""
    return options.replayed_calibration()


def requested_interval(options: ReplayOptions) -> float | None:
    """The heartbeat interval (s) ``options`` ask for (:meth:`ReplayOptions.requested_interval`)."""
    return options.requested_interval()


def effective_interval(options: ReplayOptions, conf: HadoopConf, trackers: int) -> float:
    """The heartbeat interval (s) a replay with ``options`` runs at on ``trackers`` TaskTrackers."""
    interval = requested_interval(options)
    return conf.heartbeat_interval_s(trackers) if interval is None else interval
