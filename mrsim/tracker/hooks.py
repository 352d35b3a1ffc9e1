"""The engine's hooks: the surface features attach to (``docs/architecture.md``, "The engine's hooks").

:class:`EngineHooks` declares every hook the JobTracker calls, with its signature and the point where it is
called, and the three calls a feature uses to join a replay (:meth:`~EngineHooks.attach`,
:meth:`~EngineHooks.register_event`, :meth:`~EngineHooks.feature`). ``JobTracker`` is its one subclass: the hooks
are plain attributes of the engine (``jt.on_launch``), so a hook costs one ``is None`` or falsy test where it
is called when unset. Features extend the engine by composition (an object with ``attach(jt)``), never by
subclassing ``JobTracker``.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from mrsim.tracker.events import EV_FIRST_FEATURE
from mrsim.tracker.kernel import EventSink, Kernel
from mrsim.tracker.scheduling import Locality
from mrsim.tracker.state import JobState, TrackerState

F = TypeVar("F")


class EngineHooks(EventSink):
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
        self.finish_model: Callable[[JobState, TrackerState, int], None] | None = None
        #: ``(job, tracker, reduce, locality) -> task index or -1``: *instead of* the core's own pick (requeued
        #: first, then the locality search or the next index), the pending task a launch takes on ``tracker``; the
        #: hook updates the job's launch counter (``next_map`` / ``next_reduce``) and its own counts (federations:
        #: a task placed in the tracker's datacenter). None: the core picks.
        self.pick_task: Callable[[JobState, TrackerState, bool, Locality], int] | None = None
        #: a running task was stopped and put back in its job's queue (a kill, a replayed failed attempt):
        #: ``(job, task index, reduce) -> None``
        self.on_requeue: list[Callable[[JobState, int, bool], None]] = []
        #: after every map or reduce launch (not backups): ``(job, tracker, gid) -> None``
        self.on_launch: list[Callable[[JobState, TrackerState, int], None]] = []
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
        #: ``(tracker, code, now)``: a setup/cleanup task reported with :meth:`report_completion` and an
        #: ``aux_kind`` is applied (set by the feature that launches them).
        self.apply_aux: Callable[[TrackerState, int, float], None] | None = None
        #: ``(job, gid) -> seconds or -1``: length of the attempt of task ``gid`` launched now when it is one that
        #: fails (failed-attempt replay), else -1 (the task's own duration).
        self.attempt_length: Callable[[JobState, int], float] | None = None
        #: ``(tracker, job, gid, now) -> failed?`` for a reported completion: True if that attempt failed (the feature
        #: requeued the task with :meth:`requeue_task`); then it is not a completion.
        self.attempt_failed: Callable[[TrackerState, JobState, int, float], bool] | None = None
        #: a task's successful completion was applied (reported to the JobTracker): ``(job, tracker, gid) -> None``
        self.on_task_finished: list[Callable[[JobState, TrackerState, int], None]] = []
        #: a heartbeat event of ``tracker`` is due (also a superseded one, before the engine drops it): ``(tracker)``
        self.on_heartbeat: list[Callable[[TrackerState], None]] = []
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
        #: at the end of every event (features that batch work within an event): ``() -> None``
        self.after_event: list[Callable[[], None]] = []
        #: what the engine calls for finish_model, on_launch and on_heartbeat (:func:`bind_hooks`, at the end of
        #: ``JobTracker.__init__`` and again in ``run``). Not built from ``self`` here: compiled code passing
        #: ``self`` out of ``__init__`` before every attribute is set makes the later ones checked at each read.
        self.model_hook = self.launch_hook = self.hb_hook = FeatureHook()
        self._next_feature_kind = EV_FIRST_FEATURE
        self.features: list[object] = []

    def attach(self, feature: object) -> None:
        """Attach a feature: it keeps a reference to this engine and sets the hooks it needs (``feature.attach``)."""
        self.features.append(feature)
        feature.attach(self)  # type: ignore[attr-defined]

    def register_event(self, handler: Callable[[float, int, int, int], None]) -> int:
        """A new event kind handled by ``handler(time, order, a, b)``; a feature queues its events with
        ``jt.schedule(time, order, kind, a, b)`` (the kernel's). Call before :meth:`run`."""
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


class TaskAssigner:
    """A compiled scheduler's heartbeat: :meth:`assign_tasks` is what the plug-in's ``assign_tasks`` is bound to
    (``FifoCore``, ``mrsim/tracker/fifo_core.py``). When the plug-in's ``assign_tasks`` is a bound
    ``TaskAssigner.assign_tasks``, the JobTracker calls it directly from compiled code (a C call through the
    class's vtable, machine values in and out), where the bound method cost a Python-level call per heartbeat:
    arguments parsed, the result boxed (``docs/performance.md``, "The compiled core"). Same method, same result."""

    def assign_tasks(self, tracker: TrackerState) -> int:
        raise NotImplementedError

    def apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        """The engine's ``apply_aux`` hook, when a feature binds it to this method (YARN mode's container exits:
        ``mrsim.tracker.yarn.rm.NodeHeartbeats``): the JobTracker then calls it directly, as :meth:`assign_tasks`
        (:func:`aux_caller`). Here: no hook is set, and a reported setup/cleanup or exit code is an error."""
        raise NotImplementedError("a completion was reported with an aux_kind but no apply_aux hook is set")


class HookAux(TaskAssigner):
    """An ``apply_aux`` hook that is not a compiled :class:`TaskAssigner`'s method (job overheads' setup and cleanup
    tasks), called behind the same compiled method: one Python-level call per code, as before."""

    def __init__(self, hook: Callable[[TrackerState, int, float], None]) -> None:
        self.hook = hook

    def apply_aux(self, tracker: TrackerState, code: int, now: float) -> None:
        self.hook(tracker, code, now)


def aux_caller(hook: Callable[[TrackerState, int, float], None] | None) -> TaskAssigner:
    """What a heartbeat calls to apply a reported aux code (``JobTracker.aux_applier``, set by ``run``): the object
    ``hook`` is bound to when it is a :class:`TaskAssigner`'s ``apply_aux`` (a C call through the vtable, machine
    values in: YARN mode's container exits), else ``hook`` behind :class:`HookAux`; without a hook, a bare
    :class:`TaskAssigner` (reporting a code is then an error, as calling the unset hook was). O(1)."""
    if hook is None:
        return TaskAssigner()
    owner = getattr(hook, "__self__", None)
    if isinstance(owner, TaskAssigner) and getattr(hook, "__name__", "") == "apply_aux":
        return owner
    return HookAux(hook)


class FeatureHook:
    """Compiled per-task and per-heartbeat hooks of a feature (TDAM's: ``mrsim.tracker.contention_core.EpochHooks``):
    when the engine's ``finish_model`` is a bound ``FeatureHook.finish_model``, or its only ``on_launch`` /
    ``on_heartbeat`` hook a bound ``launched`` / ``heartbeat``, the engine calls the method directly from compiled
    code (a C call through the vtable, machine values in), where the bound method cost a Python-level call per
    launch or heartbeat: arguments parsed, a tuple built (:func:`bind_hooks`; ``docs/performance.md``, "The compiled
    core"). Same method, same order, same result. Here: nothing to do."""

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        pass

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        pass

    def heartbeat(self, tracker: TrackerState) -> None:
        pass


class HookLists(FeatureHook):
    """The engine's hooks as set, read live (any hook that is not one compiled :class:`FeatureHook`'s method):
    ``finish_model`` and every ``on_launch`` / ``on_heartbeat`` hook in attach order, one Python-level call each, as
    before. What the engine calls until :func:`bind_hooks` runs (and after it, for hooks it does not bind)."""

    def __init__(self, hooks: EngineHooks) -> None:
        self.hooks = hooks

    def finish_model(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        model = self.hooks.finish_model
        if model is not None:
            model(job, tracker, gid)

    def launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        for hook in self.hooks.on_launch:
            hook(job, tracker, gid)

    def heartbeat(self, tracker: TrackerState) -> None:
        for hook in self.hooks.on_heartbeat:
            hook(tracker)


def _bound(hook: object, name: str) -> FeatureHook | None:
    """The :class:`FeatureHook` ``hook`` is the bound method ``name`` of, else None. O(1)."""
    owner = getattr(hook, "__self__", None)
    if isinstance(owner, FeatureHook) and getattr(hook, "__name__", "") == name:
        return owner
    return None


def bind_hooks(hooks: EngineHooks) -> None:
    """Set what the engine calls for ``finish_model``, ``on_launch`` and ``on_heartbeat`` (``model_hook``,
    ``launch_hook``, ``hb_hook``; at the end of ``JobTracker.__init__``, and in ``run`` after the features
    attached): the compiled :class:`FeatureHook` a hook is bound to when it is the only one (a direct C call), else
    the live lists (:class:`HookLists`). The engine still tests ``finish_model is None`` and the lists' emptiness
    first. O(1)."""
    lists = HookLists(hooks)
    owner = _bound(hooks.finish_model, "finish_model")
    hooks.model_hook = owner if owner is not None else lists
    owner = _bound(hooks.on_launch[0], "launched") if len(hooks.on_launch) == 1 else None
    hooks.launch_hook = owner if owner is not None else lists
    owner = _bound(hooks.on_heartbeat[0], "heartbeat") if len(hooks.on_heartbeat) == 1 else None
    hooks.hb_hook = owner if owner is not None else lists


def compose_after_event(hooks: tuple[Callable[[], None], ...],
                        check: Callable[[], None] | None) -> Callable[[], None] | None:
    """The one callable the kernel runs after each event: the features' ``after_event`` hooks in attach order, then
    ``check`` (the invariant checks). One hook and no check is returned as it is, so the kernel calls it directly
    (a composed closure costs two Python-level calls per event: 2.4 % of a TDAM replay). O(1)."""
    if not hooks:
        return check
    if len(hooks) == 1 and check is None:
        return hooks[0]

    def after_event() -> None:
        for hook in hooks:
            hook()
        if check is not None:
            check()

    return after_event
