"""The scheduler plug-in contract, SimMR's narrow interface adapted onto it, and the plug-in registry.

Hadoop-style contract (``org.apache.hadoop.mapred.TaskScheduler`` + ``JobInProgressListener``)::

    class MyScheduler(TaskScheduler):
        name = "mine"
        def start(self, jt): ...                 # once, before the first event
        def job_added(self, job): ...            # a job was submitted (it is RUNNING from now on)
        def job_updated(self, job, change): ...  # e.g. JobChange.REDUCES_READY once slow start is met
        def job_removed(self, job): ...          # the job finished
        def task_finished(self, job, tracker, reduce): ...  # optional: a completion was reported
        def assign_tasks(self, tracker) -> int:  # a heartbeat: launch tasks, return how many
            ...

``assign_tasks`` launches tasks by calling ``jt.obtain_new_map_task(job, tracker, locality)`` and
``jt.obtain_new_reduce_task(job, tracker)`` (Hadoop's ``JobInProgress.obtainNew*Task``), which start the task at
once and return whether one was launched. Schedulers read the job and tracker state objects but never write
them. Return 0 quickly when nothing can be done: that is the common case on the hot path.

SimMR's narrow interface (``choose_next_map_task(job_queue)`` / ``choose_next_reduce_task(job_queue)`` returning
the job whose task runs next, or None) is adapted by :class:`NarrowPolicyScheduler`: on a heartbeat it asks the
policy once per free slot.

Plug-ins are found through the ``mrsim.schedulers`` entry-point group; the built-ins in the top-level
``schedulers`` package register there too. A built-in name (``fifo``, ``fair``, ...) is loaded directly, without
reading the installed packages' entry points (``importlib.metadata``: its import and the scan of every installed
distribution cost a replay about 0.03 s), so a third-party entry point cannot take a built-in's name; any other name
is looked up among the entry points. A plug-in that fails to load is reported, never fatal.
"""

from __future__ import annotations

import enum
import importlib
from typing import TYPE_CHECKING, Callable, Sequence

from mrsim.errors import InputError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import JobState, TrackerState


class Locality(enum.IntEnum):
    """Cache levels of ``JobInProgress.findNewMapTask``: the most distant level a call may hand out."""

    NODE = 1  # node-local only
    RACK = 2  # node- or rack-local (FIFO's "local" call)
    ANY = 3  # anything, including off-switch
    NON_LOCAL = -1  # only off-rack or location-less splits (FIFO's "non-local" call)


class JobChange(enum.Enum):
    """Why ``job_updated`` was called (Hadoop's ``JobChangeEvent``)."""

    REDUCES_READY = "reduces_ready"  # slow start met: reduces may now be scheduled
    TASKS_REQUEUED = "tasks_requeued"  # tasks went back to pending (failure, preemption)
    PRIORITY_CHANGED = "priority_changed"


class TaskScheduler:
    """Base class for Hadoop-style schedulers. Subclasses override the hooks they need."""

    name = "base"
    #: one line shown by ``mrsim schedulers``
    summary = ""
    #: True for schedulers that decide *which* tracker gets each task (push dispatchers such as ``lotes``) and call
    #: ``jt.wake(tracker)`` for every tracker they give work to: the engine then skips its broadcast wake-ups of
    #: parked trackers on job arrival, slow start and requeues (O(trackers) each on a large cluster). Parked and
    #: naive heartbeats still agree only if the scheduler really wakes every tracker it gives work. In task mode
    #: (``--heartbeat-interval off``) such a tracker is not offered work again after a heartbeat that launched
    #: some: the scheduler wakes it when it has more (the push model of ``mrsim/studies/lotes/push.py``).
    wakes_own_trackers = False
    #: True when ``assign_tasks`` launches nothing and changes no state of the scheduler's while no task is pending
    #: (no unlaunched map of a RUNNING job, no unlaunched reduce past slow start): the engine may then wake parked
    #: trackers for new work one at a time in heartbeat order instead of all at once, with the same schedule
    #: (``mrsim/tracker/wakeups.py``). A plug-in that counts or times heartbeats it is offered must leave it False.
    bounded_wakes_exact = False

    def __init__(self, config: dict | None = None) -> None:
        self.config = dict(config or {})
        self.jt: "JobTracker"

    def start(self, jt: "JobTracker") -> None:
        self.jt = jt

    def job_added(self, job: "JobState") -> None:
        pass

    def job_updated(self, job: "JobState", change: JobChange) -> None:
        pass

    def job_removed(self, job: "JobState") -> None:
        pass

    def assign_tasks(self, tracker: "TrackerState") -> int:
        raise NotImplementedError

    def task_finished(self, job: "JobState", tracker: "TrackerState", reduce: bool) -> None:
        """A task of ``job`` was reported finished by ``tracker`` (called only if a subclass overrides it)."""

    def on_timer(self, now: float, token: int) -> None:
        """A timer set with ``jt.schedule_timer(time, token)`` fired (e.g. a periodic update or preemption check)."""

    def describe(self) -> dict:
        """Effective configuration, recorded beside every run's results."""
        return {"name": self.name, **self.config}

    def routes(self) -> "list[tuple[str, int]] | None":
        """Where the jobs so far went: ``(destination text, jobs)`` per queue or pool, most jobs first, or None
        for a scheduler without queues or pools (:mod:`mrsim.tracker.routing`)."""
        return None


class NarrowPolicy:
    """SimMR's policy interface: pick the job whose map (reduce) task runs next, or None."""

    name = "narrow"

    def choose_next_map_task(self, job_queue: Sequence["JobState"]) -> "JobState | None":
        raise NotImplementedError

    def choose_next_reduce_task(self, job_queue: Sequence["JobState"]) -> "JobState | None":
        raise NotImplementedError

    def job_added(self, job: "JobState") -> None:
        pass

    def job_removed(self, job: "JobState") -> None:
        pass


class NarrowPolicyScheduler(TaskScheduler):
    """Runs a SimMR-style :class:`NarrowPolicy` on the heartbeat engine: one question per free slot.

    The job queue handed to the policy holds the running jobs in arrival order. A policy that returns a job
    with nothing runnable ends the round for that slot type (no busy loop).
    """

    def __init__(self, policy: NarrowPolicy, config: dict | None = None) -> None:
        super().__init__(config)
        self.policy = policy
        self.name = policy.name
        self.queue: list["JobState"] = []

    def job_added(self, job: "JobState") -> None:
        self.queue.append(job)
        self.policy.job_added(job)

    def job_removed(self, job: "JobState") -> None:
        self.queue.remove(job)
        self.policy.job_removed(job)

    def assign_tasks(self, tracker: "TrackerState") -> int:
        jt = self.jt
        assigned = 0
        for _ in range(tracker.map_slots - tracker.running_maps):
            job = self.policy.choose_next_map_task(self.queue)
            if job is None or not jt.obtain_new_map_task(job, tracker, Locality.ANY):
                break
            assigned += 1
        for _ in range(tracker.reduce_slots - tracker.running_reduces):
            job = self.policy.choose_next_reduce_task(self.queue)
            if job is None or not jt.obtain_new_reduce_task(job, tracker):
                break
            assigned += 1
        return assigned


# --------------------------------------------------------------------------------------------- registry

ENTRY_POINT_GROUP = "mrsim.schedulers"

#: Built-in schedulers, used when mrsim runs from a source tree without installed entry points.
BUILTIN_SCHEDULERS: dict[str, str] = {
    "fifo": "mrsim.schedulers.fifo:FifoScheduler",
    "fair": "mrsim.schedulers.fair:FairScheduler",
    "capacity": "mrsim.schedulers.capacity:CapacityScheduler",
    "maxedf": "mrsim.schedulers.maxedf:MaxEdfScheduler",
    "minedf": "mrsim.schedulers.minedf:MinEdfScheduler",
    "cafifo": "mrsim.schedulers.cafifo:CaFifoScheduler",
    "srpt": "mrsim.schedulers.srpt:SrptScheduler",
    "fsp": "mrsim.schedulers.fsp:FspScheduler",
    "las": "mrsim.schedulers.las:LasScheduler",
    "lotes": "mrsim.schedulers.lotes:LotesScheduler",
    "greedy": "mrsim.schedulers.greedy:GreedyScheduler",
    "fcfs": "mrsim.schedulers.geo_fcfs:GeoFcfsScheduler",
    "gsrpt": "mrsim.schedulers.geo_gsrpt:GeoGlobalSrptScheduler",
    "isrpt": "mrsim.schedulers.geo_isrpt:GeoIndependentSrptScheduler",
    "reorder-gsrpt": "mrsim.schedulers.geo_reorder:GeoReorderGlobalSrptScheduler",
    "reorder-isrpt": "mrsim.schedulers.geo_reorder:GeoReorderIndependentSrptScheduler",
    "swag": "mrsim.schedulers.geo_swag:GeoSwagScheduler",
}


def _load_target(target: str) -> Callable[..., object]:
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)


def _cwd_on_path() -> None:
    """Put the current directory on ``sys.path`` (as ``python -m`` does) so ``module:Class`` finds local files."""
    import os
    import sys

    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def scheduler_from(spec: "str | type | TaskScheduler", config: dict | None = None) -> TaskScheduler:
    """A scheduler instance from a registered name, ``module:Class``, a plug-in class, or an instance."""
    if isinstance(spec, str):
        return create_scheduler(spec, config)
    if isinstance(spec, TaskScheduler):
        return spec
    if isinstance(spec, type) and issubclass(spec, TaskScheduler):
        return spec(config)  # type: ignore[call-arg]
    if isinstance(spec, type) and issubclass(spec, NarrowPolicy):
        return NarrowPolicyScheduler(spec(), config)
    if isinstance(spec, NarrowPolicy):
        return NarrowPolicyScheduler(spec, config)
    raise InputError(f"scheduler {spec!r}: expected a name, module:Class, a TaskScheduler or NarrowPolicy class")


def scheduler_targets() -> dict[str, str]:
    """Name → ``module:attr`` for the built-ins and every other name an ``mrsim.schedulers`` entry point
    registers (a built-in name keeps its built-in target, as :func:`create_scheduler` loads it)."""
    from importlib import metadata  # here, not at the top: a replay under a built-in never needs it

    targets: dict[str, str] = dict(BUILTIN_SCHEDULERS)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        targets.setdefault(ep.name, ep.value)
    return targets


def available_schedulers(report: Callable[[str], None] | None = None) -> dict[str, Callable[..., object]]:
    """Name → factory for every scheduler that loads; failures are reported through ``report`` (default: silent)."""
    found: dict[str, Callable[..., object]] = {}
    for name, target in sorted(scheduler_targets().items()):
        try:
            found[name] = _load_target(target)
        except Exception as exc:  # a broken third-party plug-in must not take mrsim down
            if report is not None:
                report(f"scheduler plug-in {name!r} ({target}) failed to load: {type(exc).__name__}: {exc}")
    return found


def create_scheduler(name: str, config: dict | None = None) -> TaskScheduler:
    """Instantiate the scheduler registered as ``name`` (a :class:`TaskScheduler` or a :class:`NarrowPolicy`).

    Only the requested plug-in is imported; if it fails to load, the error names it and the reason.
    """
    key = name.strip().lower()
    # A built-in name needs no scan of the installed entry points (the module docstring).
    targets = {key: BUILTIN_SCHEDULERS[key]} if key in BUILTIN_SCHEDULERS else scheduler_targets()
    if ":" in name:  # module:Class, importable from the current directory as ``python -c`` would
        key = name.strip()
        targets = {key: key}
        _cwd_on_path()
    if key not in targets:
        raise UsageError(f"unknown scheduler {name!r} (available: {', '.join(sorted(available_schedulers()))}; "
                         "or give module:Class)")
    try:
        obj = _load_target(targets[key])
    except Exception as exc:
        raise InputError(f"scheduler plug-in {key!r} ({targets[key]}) failed to load: {type(exc).__name__}: {exc}") from None
    try:
        instance = obj(config) if isinstance(obj, type) and issubclass(obj, TaskScheduler) else obj()  # type: ignore[call-arg]
    except InputError:
        raise
    except Exception as exc:  # a plug-in's own failure to start is reported, not a traceback
        raise InputError(f"scheduler {key!r} failed to start: {type(exc).__name__}: {exc}") from None
    if isinstance(instance, NarrowPolicy):
        return NarrowPolicyScheduler(instance, config)
    if not isinstance(instance, TaskScheduler):
        raise InputError(f"scheduler {name!r} is neither a TaskScheduler nor a NarrowPolicy")
    return instance
