"""The options of one replay (:func:`mrsim.tracker.replay.replay`): how the emulation runs, as a frozen value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mrsim.model.modes import ALL_CALIBRATION_PARTS, CalibrationPart, Contention, Locality, parse_mode, parse_parts
from mrsim.tracker.locality import LocalityMode

if TYPE_CHECKING:
    from mrsim.calibration.background_model import Background
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
        contention: :class:`~mrsim.model.modes.Contention`: ``NONE`` for trace durations, or ``TDAM`` for
            contention-aware durations from per-node queueing networks (``mrsim.tracker.features.contention.ContentionFeature``, dissertation ch. 5).
        locality: :class:`mrsim.tracker.locality.LocalityMode` (``AUTO`` / ``ON`` / ``OFF``).
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
        calibration_parts: which terms (:class:`~mrsim.model.modes.CalibrationPart`) of the calibration to replay (ablations): ``launch`` (launch lags),
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
    contention: Contention = Contention.NONE
    job_overheads: bool = True
    failed_attempts: bool = True
    locality: LocalityMode = LocalityMode.AUTO
    rack_local_slowdown: float = 1.0
    off_switch_slowdown: float = 1.0
    calibration: "Calibration | None" = None
    calibration_parts: frozenset[CalibrationPart] = ALL_CALIBRATION_PARTS
    background: "Background | None" = None
    memory_slots: bool = True
    bounded_wakes: bool | None = None
    task_results: bool = True

    def __post_init__(self) -> None:
        # Texts (``contention="tdam"``, ``locality="off"``, parts by name) are read once, here, into the enums the
        # engine compares; a text no mode has is an InputError naming the values allowed.
        contention = Contention.NONE if self.contention is None else parse_mode(Contention, self.contention,
                                                                                   "contention model")
        object.__setattr__(self, "contention", contention)
        if not isinstance(self.locality, LocalityMode):
            object.__setattr__(self, "locality", LocalityMode(parse_mode(Locality, self.locality,
                                                                         "locality mode").value))
        object.__setattr__(self, "calibration_parts", parse_parts(self.calibration_parts))

    def replayed_calibration(self) -> "Calibration | None":
        """The calibration a replay applies: none when it changes nothing, and none under TDAM (the durations come
        from the contention model)."""
        calibration = self.calibration
        if calibration is None or calibration.is_empty() or self.contention is not Contention.NONE:
            return None
        return calibration

    def requested_interval(self) -> float | None:
        """The heartbeat interval (s) asked for: ``heartbeat_interval_s`` when given, else the interval the
        calibration measured (when its ``heartbeat`` part is replayed), else None (Hadoop's formula for the
        cluster)."""
        if self.heartbeat_interval_s is not None:
            return self.heartbeat_interval_s
        calibration = self.replayed_calibration()
        if calibration is None or CalibrationPart.HEARTBEAT not in self.calibration_parts:
            return None
        return calibration.heartbeat_interval_s
