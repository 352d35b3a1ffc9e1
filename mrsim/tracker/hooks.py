"""The engine's hooks: the surface features attach to (``docs/architecture.md``, "The engine's hooks").

:class:`EngineHooks` declares every hook the JobTracker calls, with its signature and the point where it is
called, and the calls a feature uses to join a replay: :meth:`~EngineHooks.attach`, :meth:`~EngineHooks.register`
(the one way to set a hook), :meth:`~EngineHooks.register_event` and :meth:`~EngineHooks.feature`.
``JobTracker`` is its one subclass: the hooks are attributes of the engine (``jt.on_launch``), so an unset hook
costs one ``is None`` or emptiness test where it is called.

Each hook is called one way. Most are plain functions. The six on the per-task and per-heartbeat path are objects
of a class compiled with the core, called by a method (compiled to compiled: a C call through the class's vtable,
machine values in and out): ``finish_model``, ``on_launch`` and ``on_heartbeat`` take a :class:`FeatureHook`
(its ``finish_model`` / ``launched`` / ``heartbeat``), ``apply_aux`` and ``assign_tasks`` a :class:`TaskAssigner`,
``after_event`` a :class:`~mrsim.tracker.kernel.EventSink` (its ``end_of_event``). A feature written in Python
registers a plain function for those too; :meth:`~EngineHooks.register` puts it behind a compiled adapter
(:class:`CallLaunched` and its siblings) whose method calls it.

Sixteen hooks override what the core does and have one owner (:data:`SINGLE_OWNER`): a second feature claiming
one is a :class:`HookClaimError` naming both. The others are lists, called in registration order. Features keep
their per-job state in their own objects, keyed by ``job.index``.
"""

from __future__ import annotations

from typing import Callable, Final, TypeVar

from mrsim.tracker.events import EV_FIRST_FEATURE
from mrsim.tracker.kernel import CallEnd, EventSink, Handler, Kernel
from mrsim.tracker.scheduling import Locality
from mrsim.tracker.state import JobState, TrackerState

F = TypeVar("F")

#: Hooks that replace a step of the core: one feature (or the scheduler plug-in) owns each.
SINGLE_OWNER: Final = frozenset({
    "launch_lag", "report_lag", "aux_duration", "finish_model", "pick_task", "offer_backup", "hold_job_start",
    "hold_job_finish", "assign_first", "apply_aux", "assign_tasks", "attempt_length", "attempt_failed", "task_fits",
    "fits_request", "hold_resources", "release_resources",
})
#: Hooks that observe or add work: any number of features, called in registration order.
LISTS: Final = frozenset({
    "before_assign", "on_requeue", "on_launch", "on_job_arrival", "on_job_setup", "on_job_done", "on_attempt_end",
    "on_task_finished", "on_heartbeat", "before_kill", "on_kill", "after_event",
})


class HookClaimError(ValueError):
    """Two features claimed one single-owner hook (:data:`SINGLE_OWNER`)."""


def owner_name(owner: object) -> str:
    """How an error names the feature or plug-in ``owner``: its class name (a string names itself)."""
    return owner if isinstance(owner, str) else type(owner).__name__


class EngineHooks:
    """Hooks and attached features of one engine; the base of ``mrsim.tracker.jobtracker.JobTracker``."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        #: ``(job, tracker, kind) -> seconds`` an attempt spends launching before it progresses (kind 0 map,
        #: 1 reduce, 2 setup, 3 cleanup); None: no launch lag (SimMR's engine).
        self.launch_lag: Callable[[JobState, TrackerState, int], float] | None = None
        #: ``(tracker, kind) -> seconds`` between an attempt's end and its out-of-band heartbeat; None: at once.
        self.report_lag: Callable[[TrackerState, int], float] | None = None
        #: ``(job, tracker, kind, on_reduce) -> seconds or None`` for a setup (2) / cleanup (3) task on ``tracker``
        #: in a map (on_reduce 0) or reduce (1) slot; None or a None result: the template's attempt duration.
        self.aux_duration: Callable[[JobState, TrackerState, int, int], float | None] | None = None
        #: called at a heartbeat of a tracker with a free slot, before setup/cleanup tasks and the scheduler
        #: (work outside the trace takes its slots first); ``(tracker, now) -> None``.
        self.before_assign: list[Callable[[TrackerState, float], None]] = []
        #: slots held by features (work outside the trace), counted in the trackers' running counts.
        self.held_maps = 0
        self.held_reduces = 0
        #: attempts that did not succeed, one tuple each ``(job index, task index, reduce, tracker index, start_s,
        #: end_s, result)`` with result ``FAILED`` or ``KILLED`` (kills, replayed failures, speculative losers).
        #: Appended on those rare paths only; the attempt rows of ``--out`` list them.
        self.lost_attempts: list[tuple[int, int, bool, int, float, float, str]] = []
        #: ``(job, tracker, gid)`` called *instead of* queuing the trace-derived completion of task ``gid`` (at
        #: launch; for first-wave reduces when the map stage ends): a feature that models durations (contention)
        #: decides when the task finishes and calls :meth:`task_done` then. ``job.*_finish`` holds the trace value.
        self.finish_model: FeatureHook | None = None
        #: ``(job, tracker, reduce, locality) -> task index or -1``: *instead of* the core's own pick (requeued
        #: first, then the locality search or the next index), the pending task a launch takes on ``tracker``; the
        #: hook updates the job's launch counter (``next_map`` / ``next_reduce``) and its own counts (federations:
        #: a task placed in the tracker's datacenter). None: the core picks.
        self.pick_task: Callable[[JobState, TrackerState, bool, Locality], int] | None = None
        #: a running task was stopped and put back in its job's queue (a kill, a replayed failed attempt):
        #: ``(job, task index, reduce) -> None``
        self.on_requeue: list[Callable[[JobState, int, bool], None]] = []
        #: after every map or reduce launch (not backups): ``launched(job, tracker, gid)``
        self.on_launch: list[FeatureHook] = []
        #: a job arrived (its template materialised, before the engine sets it up): ``(job) -> None``
        self.on_job_arrival: list[Callable[[JobState], None]] = []
        #: a job arrived and was set up (datacenter placement, locality caches), before ``hold_job_start``:
        #: ``(job) -> None`` (resources: the job's per-task requests, checked against the nodes of its datacenters)
        self.on_job_setup: list[Callable[[JobState], None]] = []
        #: a job finished (after its cleanup, results fixed): ``(job) -> None``
        self.on_job_done: list[Callable[[JobState], None]] = []
        #: ``(job, tracker, reduce, locality) -> launched?``: the job has no pending task of that kind; a feature may
        #: start another attempt of a running one on ``tracker`` (speculation). None: nothing to offer.
        self.offer_backup: Callable[[JobState, TrackerState, bool, Locality], bool] | None = None
        #: a task's attempt ended (a live completion event, before the tracker reports it): ``(job, gid, now)``
        self.on_attempt_end: list[Callable[[JobState, int, float], None]] = []
        #: ``(job, now) -> held?`` when a job has arrived and been set up: True if the feature makes it RUNNING
        #: later itself (:meth:`job_running`: a launch delay, a setup task); None or False: RUNNING now.
        self.hold_job_start: Callable[[JobState, float], bool] | None = None
        #: ``(job, now) -> held?`` when every task of a job is reported: True if the feature finishes it later
        #: itself (:meth:`finish_job`: a cleanup task); None or False: done now.
        self.hold_job_finish: Callable[[JobState, float], bool] | None = None
        #: ``(tracker, now) -> launched?`` at a heartbeat with a free slot, before the scheduler: True if the
        #: feature launched work there, and then the scheduler is not asked in this heartbeat (setup/cleanup).
        self.assign_first: Callable[[TrackerState, float], bool] | None = None
        #: ``apply_aux(tracker, code, now)``: a setup/cleanup task reported with :meth:`report_completion` and an
        #: ``aux_kind`` is applied (set by the feature that launches them; unset, reporting one is an error).
        self.apply_aux: TaskAssigner = TaskAssigner()
        #: ``assign_tasks(tracker) -> launched`` at a heartbeat with a free slot: the scheduler plug-in's, or the
        #: compiled heartbeat it registers (FIFO's ``FifoCore``, YARN mode's ``NodeHeartbeats``); ``JobTracker.run``
        #: puts the plug-in's ``assign_tasks`` behind :class:`CallAssign` when the plug-in registered none.
        self.assign_tasks: TaskAssigner = TaskAssigner()
        #: ``(job, gid) -> seconds or -1``: length of the attempt of task ``gid`` launched now when it is one that
        #: fails (failed-attempt replay), else -1 (the task's own duration).
        self.attempt_length: Callable[[JobState, int], float] | None = None
        #: ``(tracker, job, gid, now) -> failed?`` for a reported completion: True if that attempt failed (the feature
        #: requeued the task with :meth:`requeue_task`); then it is not a completion.
        self.attempt_failed: Callable[[TrackerState, JobState, int, float], bool] | None = None
        #: a task's successful completion was applied (reported to the JobTracker): ``(job, tracker, gid) -> None``
        self.on_task_finished: list[Callable[[JobState, TrackerState, int], None]] = []
        #: a heartbeat event of ``tracker`` is due (also a superseded one, before the engine drops it):
        #: ``heartbeat(tracker)``
        self.on_heartbeat: list[FeatureHook] = []
        #: before :meth:`kill_task` picks its victim (it reads running tasks' finish times): ``() -> None``
        self.before_kill: list[Callable[[], None]] = []
        #: a running task is being killed (its victim chosen, before it is requeued): ``(job, gid, tracker index)``
        self.on_kill: list[Callable[[JobState, int, int], None]] = []
        #: Resources (``mrsim/tracker/features/resources.py``; all None on slot clusters whose tasks hold one slot):
        #: ``(job, tracker, reduce) -> fits?`` at every map / reduce launch with a task pending, before one is
        #: picked: False, nothing launches on ``tracker`` (its free resources or slots cannot take the task now).
        self.task_fits: Callable[[JobState, TrackerState, bool], bool] | None = None
        #: ``(tracker, request) -> fits?`` behind :meth:`JobTracker.fits` (plug-ins, features holding slots).
        self.fits_request: Callable[[TrackerState, tuple[float, ...]], bool] | None = None
        #: ``(job, tracker, reduce)``: a feature's attempt of ``job`` (a setup/cleanup task, a backup) takes a slot
        #: on ``tracker``: take the job's request too. The core's launches are held by the feature's ``on_launch``.
        self.hold_resources: Callable[[JobState, TrackerState, bool], None] | None = None
        #: ``(job, tracker, reduce)``: an attempt of ``job`` left ``tracker`` (completion, kill or requeue, a
        #: feature's held slot), after its running count dropped: give the job's request back.
        self.release_resources: Callable[[JobState, TrackerState, bool], None] | None = None
        #: at the end of every event (features that batch work within an event): ``end_of_event()``
        self.after_event: list[EventSink] = []
        #: which feature claimed each single-owner hook (:meth:`register`): hook name -> owner's name
        self.hook_owners: dict[str, str] = {}
        self._next_feature_kind = EV_FIRST_FEATURE
        self.features: list[object] = []

    def attach(self, feature: object) -> None:
        """Attach a feature: it keeps a reference to this engine and registers the hooks it needs
        (``feature.attach(jt)``, which calls :meth:`register`)."""
        self.features.append(feature)
        feature.attach(self)  # type: ignore[attr-defined]

    def register(self, owner: object, **hooks: object) -> None:
        """Set hooks for ``owner`` (a feature or plug-in): ``jt.register(self, on_launch=self._launched,
        task_fits=self._fits)``. A list hook gets one more entry; a single-owner hook (:data:`SINGLE_OWNER`) is
        claimed, and a hook another owner claimed is a :class:`HookClaimError` naming both. A plain function given
        for an object hook is put behind its compiled adapter (module docstring). An unknown name is a
        ``ValueError``. O(hooks)."""
        who = owner_name(owner)
        for name, hook in hooks.items():
            if name in LISTS:
                getattr(self, name).append(_as_hook(name, hook))
            elif name in SINGLE_OWNER:
                claimed = self.hook_owners.get(name)
                if claimed is not None:
                    raise HookClaimError(f"hook {name!r} is claimed by {claimed} and by {who}: it has one owner")
                self.hook_owners[name] = who
                setattr(self, name, _as_hook(name, hook))
            else:
                raise ValueError(f"{who} registers an unknown hook {name!r}")

    def register_event(self, handler: "EventSink | Handler") -> int:
        """A new event kind handled by ``handler``: an :class:`~mrsim.tracker.kernel.EventSink` (its ``handle``) or a
        function ``handler(time, order, a, b)``; a feature queues its events with ``jt.schedule(time, order,
        kind, a, b)`` (the kernel's). Call before :meth:`run`."""
        kind = self._next_feature_kind
        self._next_feature_kind += 1
        self.kernel.register(kind, handler)
        return kind

    def feature(self, kind: "type[F]") -> "F | None":
        """The attached feature of class ``kind`` (for plug-ins that use a feature's API), or None."""
        for feature in self.features:
            if isinstance(feature, kind):
                return feature
        return None

    def release_held(self, tracker: TrackerState, job: JobState, reduce: bool) -> None:
        """Free a slot a feature held on ``tracker`` for work of ``job`` (a setup/cleanup task, a backup attempt):
        the tracker's running count, :attr:`held_maps` / :attr:`held_reduces` and, on resource clusters, the job's
        container size (:attr:`release_resources`). O(resources)."""
        if reduce:
            tracker.running_reduces -= 1
            self.held_reduces -= 1
        else:
            tracker.running_maps -= 1
            self.held_maps -= 1
        if self.release_resources is not None:
            self.release_resources(job, tracker, reduce)


class FeatureHook:
    """The per-task and per-heartbeat hooks the engine calls from compiled code: ``finish_model``, ``on_launch``
    (:meth:`launched`) and ``on_heartbeat`` (:meth:`heartbeat`). A feature compiled with the core subclasses it
    (TDAM's ``mrsim.tracker.contention_core.EpochHooks``); a plain function is registered behind
    :class:`CallFinishModel`, :class:`CallLaunched` or :class:`CallHeartbeat`. Here: nothing to do."""

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        pass

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        pass

    def heartbeat(self, tracker: TrackerState) -> None:
        pass


class TaskAssigner:
    """A heartbeat's calls into a scheduler or feature: ``assign_tasks`` (:meth:`assign_tasks`, the plug-in's
    heartbeat) and ``apply_aux`` (:meth:`apply_aux`, a reported setup/cleanup or container-exit code). Compiled
    plug-in cores subclass it (FIFO's ``FifoCore``, YARN mode's ``NodeHeartbeats``); plain functions are
    registered behind :class:`CallAssign` / :class:`CallAux`. Here: both are errors (nothing registered)."""

    def assign_tasks(self, tracker: TrackerState) -> int:
        raise NotImplementedError("a heartbeat was offered but no assign_tasks hook is set")

    def apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        raise NotImplementedError("a completion was reported with an aux_kind but no apply_aux hook is set")


class CallFinishModel(FeatureHook):
    """A plain ``(job, tracker, gid) -> None`` function as the ``finish_model`` hook."""

    def __init__(self, call: Callable[[JobState, TrackerState, int], None]) -> None:
        self.call = call

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        self.call(job, tracker, gid)


class CallLaunched(FeatureHook):
    """A plain ``(job, tracker, gid) -> None`` function as an ``on_launch`` hook."""

    def __init__(self, call: Callable[[JobState, TrackerState, int], None]) -> None:
        self.call = call

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        self.call(job, tracker, gid)


class CallHeartbeat(FeatureHook):
    """A plain ``(tracker) -> None`` function as an ``on_heartbeat`` hook."""

    def __init__(self, call: Callable[[TrackerState], None]) -> None:
        self.call = call

    def heartbeat(self, tracker: TrackerState) -> None:
        self.call(tracker)


class CallAssign(TaskAssigner):
    """A plain ``(tracker) -> launched`` function (a plug-in's ``assign_tasks``) as the ``assign_tasks`` hook."""

    def __init__(self, call: Callable[[TrackerState], int]) -> None:
        self.call = call

    def assign_tasks(self, tracker: TrackerState) -> int:
        return self.call(tracker)


class CallAux(TaskAssigner):
    """A plain ``(tracker, code, now) -> None`` function as the ``apply_aux`` hook (job overheads' setup and
    cleanup tasks)."""

    def __init__(self, call: Callable[[TrackerState, int, float], None]) -> None:
        self.call = call

    def apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        self.call(tracker, code, now)


def _as_hook(name: str, hook: object) -> object:
    """What the engine stores for hook ``name``: ``hook`` itself, or for an object hook given as a plain function,
    the function behind its adapter. O(1)."""
    if name == "on_launch" or name == "finish_model" or name == "on_heartbeat":
        if isinstance(hook, FeatureHook):
            return hook
        if name == "on_launch":
            return CallLaunched(hook)  # type: ignore[arg-type]
        if name == "finish_model":
            return CallFinishModel(hook)  # type: ignore[arg-type]
        return CallHeartbeat(hook)  # type: ignore[arg-type]
    if name == "assign_tasks" or name == "apply_aux":
        if isinstance(hook, TaskAssigner):
            return hook
        return CallAssign(hook) if name == "assign_tasks" else CallAux(hook)  # type: ignore[arg-type]
    if name == "after_event" and not isinstance(hook, EventSink):
        return CallEnd(hook)  # type: ignore[arg-type]
    return hook
