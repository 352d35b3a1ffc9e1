"""Run one replay: frozen inputs (workload, cluster, Hadoop configuration, scheduler, options) in, results out.

>>> from mrsim.tracker.replay import replay, ReplayOptions  # doctest: +SKIP
>>> result = replay(workload, cluster, HadoopConf(), create_scheduler("fifo"), ReplayOptions(seed=1))

Every result records the full specification it ran with (:attr:`ReplayResult.spec`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from mrsim.tracker.features.resources import ResourcesFeature
from mrsim.tracker.gc_policy import engine_gc
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.locality import LocalityMode
from mrsim.tracker.results import ReplayResult, collect_result
from mrsim.tracker.scheduling import TaskScheduler
from mrsim.errors import InputError, StalledError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.streamed import StreamedWorkload
from mrsim.model.templates import Workload

if TYPE_CHECKING:
    from mrsim.calibration.background import Background
    from mrsim.calibration.model import Calibration


@dataclass(frozen=True)
class ReplayOptions:
    """How to run the emulation.

    Attributes:
        heartbeat_interval_s: None for Hadoop's formula (by ``HadoopConf.version``), a positive number to
            override it, or 0 for SimMR's task-completion-driven mode (``--heartbeat-interval off``).
        naive_heartbeats: emulate every heartbeat instead of skipping those that cannot change anything.
        seed: master seed for every random stream (heartbeat phases, ...).
        check_invariants: run :meth:`JobTracker.check_invariants` after every event (slow; for tests).
        contention: None for trace durations, or ``"tdam"`` for contention-aware durations from per-node
            queueing networks (``mrsim.tracker.features.contention.ContentionFeature``, dissertation ch. 5).
        locality: ``auto`` / ``on`` / ``off`` (see :class:`mrsim.tracker.locality.LocalityMode`).
        rack_local_slowdown / off_switch_slowdown: factors applied to the durations of maps that run rack-local
            or off-switch (jobs with known split locations only); 1.0 keeps trace durations (Mumak's ZombieJob
            used 1.5 and 3.0 relative to node-local).
        job_overheads: replay each job's launch delay (submit to JobTracker initialisation, or the MR AM's start)
            and its setup and cleanup tasks when the trace recorded them (``extra`` keys ``launch_delay_s``,
            ``setup_s``, ``cleanup_s``). Setup/cleanup tasks take a map (else reduce) slot at a heartbeat before the
            scheduler is asked, as ``JobTracker.getSetupAndCleanupTasks`` does.
        failed_attempts: replay each task's logged FAILED/KILLED attempts (they held a slot for their logged
            duration, then the task went back to the front of its job's queue) before its successful attempt;
            their slot time is counted in ``wasted_slot_s``.
        aligned_heartbeats: every tracker's heartbeat phase is 0 instead of a seeded uniform draw in
            [0, interval) (hand-computable timelines; real TaskTrackers start at arbitrary times).
        calibration: the cluster's measured overheads (:mod:`mrsim.calibration`), replayed by
            :class:`mrsim.calibration.feature.CalibrationFeature`; None replays SimMR's overhead-free tasks.
            Its heartbeat interval is used when ``heartbeat_interval_s`` is None.
        calibration_parts: which terms of the calibration to replay (ablations): ``launch`` (launch lags),
            ``report`` (report lags with out-of-band heartbeats), ``aux`` (setup/cleanup task times) and
            ``heartbeat`` (the interval the trace shows), ``stalls`` (outlier trackers' stall windows), ``launchers``
            (a stall window belongs to the map-slot or the reduce-slot launcher, ``TaskTracker.TaskLauncher``),
            ``backups`` (a speculative backup that won starts when it was launched), ``localize`` (a job's first
            task on a TaskTracker localises it there, ``TaskTracker.localizeJob``: cold and warm launch lags),
            ``carry`` (a task the trace shows stuck in a stalled launcher keeps its recorded lag wherever it runs,
            and the windows measured from it are not replayed; needs ``stalls``).
        background: map slots held by work outside the trace (:mod:`mrsim.calibration.background`), or None.
        memory_slots: Hadoop 1 memory-based scheduling (:mod:`mrsim.model.memory_slots`, planned by the resources
            feature, ``mrsim/tracker/features/resources.py``): a high-RAM job's task takes ceil(job MB / slot MB)
            slots when the job confs set slot memory. False counts one slot per task, the engine before
            memory-based scheduling (with a cluster inferred one slot per attempt too).
        bounded_wakes: new work wakes parked trackers one at a time in heartbeat order, while tasks are pending
            (``mrsim/tracker/wakeups.py``), where that gives the same schedule; False wakes every parked tracker
            with a free slot at once (the reference policy). None (default): bounded from
            ``BOUNDED_WAKES_FROM_TRACKERS`` trackers on, where it saves work (below that its bookkeeping costs
            more CPU than the wake-ups it saves, ``docs/performance.md``). Results are identical either way; only
            the engine's event and heartbeat counts differ.
        task_results: keep every task's start, finish and tracker until the end for ``ReplayResult.tasks`` (and
            ``--out``). False drops a job's per-task state when it finishes (its job row and the summary are
            unchanged; the summary's locality counts are tallied as jobs finish), so memory grows with the jobs in
            flight instead of with the trace; ``ReplayResult.tasks`` then raises. Federated runs always keep them
            (their summary reads per-task placements).
    """

    heartbeat_interval_s: float | None = None
    naive_heartbeats: bool = False
    seed: int = 0
    check_invariants: bool = False
    aligned_heartbeats: bool = False
    contention: str | None = None
    job_overheads: bool = True
    failed_attempts: bool = True
    locality: str = "auto"
    rack_local_slowdown: float = 1.0
    off_switch_slowdown: float = 1.0
    calibration: "Calibration | None" = None
    calibration_parts: frozenset[str] = frozenset({"launch", "report", "aux", "heartbeat", "stalls", "launchers",
                                                          "backups", "localize", "carry"})
    background: "Background | None" = None
    memory_slots: bool = True
    bounded_wakes: bool | None = None
    task_results: bool = True


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
        raise InputError("--heartbeat-interval must be positive, or 'off'")
    if cluster.map_slots == 0 and not streamed and workload.n_maps > 0:  # streamed: checked job by job
        raise InputError("the cluster has no map slots but the workload has map tasks")
    if cluster.reduce_slots == 0 and not streamed and workload.n_reduces > 0:
        raise InputError("the cluster has no reduce slots but the workload has reduce tasks")
    if options.contention and options.contention != "tdam":
        raise InputError(f"unknown --contention model {options.contention!r} (expected none or tdam)")
    interval = requested_interval(options)
    calibration = _replayed_calibration(options)
    jt = JobTracker(workload, cluster, conf, scheduler, heartbeat_interval=interval,
                    naive_heartbeats=options.naive_heartbeats, seed=options.seed,
                    aligned_heartbeats=options.aligned_heartbeats, locality=_locality_mode(options.locality),
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
    if options.contention:
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
            raise InputError("--background trace: outside work is estimated in map slots; it cannot run on a "
                             "resource-vector cluster (use --background none)")
        from mrsim.calibration.background import BackgroundFeature

        jt.attach(BackgroundFeature(options.background))
    arrivals = None
    if streamed:  # last: the features above scanned no job (a streamed job needing one of them is refused)
        from mrsim.tracker.features.streaming import StreamedArrivals

        arrivals = StreamedArrivals(workload)
        jt.attach(arrivals)
    started = time.perf_counter()
    with engine_gc():  # a larger generation 0 while the engine runs (mrsim.tracker.gc_policy)
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
    """The calibration a replay applies: none when it changes nothing, and none under TDAM (the durations come
    from the contention model)."""
    calibration = options.calibration
    if calibration is None or calibration.is_empty() or options.contention:
        return None
    return calibration


def requested_interval(options: ReplayOptions) -> float | None:
    """The heartbeat interval (s) ``options`` ask for: ``heartbeat_interval_s`` when given, else the interval the
    calibration measured (when its ``heartbeat`` part is replayed), else None (Hadoop's formula for the cluster)."""
    if options.heartbeat_interval_s is not None:
        return options.heartbeat_interval_s
    calibration = _replayed_calibration(options)
    if calibration is None or "heartbeat" not in options.calibration_parts:
        return None
    return calibration.heartbeat_interval_s


def effective_interval(options: ReplayOptions, conf: HadoopConf, trackers: int) -> float:
    """The heartbeat interval (s) a replay with ``options`` runs at on ``trackers`` TaskTrackers."""
    interval = requested_interval(options)
    return conf.heartbeat_interval_s(trackers) if interval is None else interval


def _locality_mode(text: str) -> LocalityMode:
    try:
        return LocalityMode(str(text).lower())
    except ValueError:
        raise InputError(f"unknown --locality {text!r} (expected auto, on or off)") from None
