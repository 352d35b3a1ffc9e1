"""The paper's push model as a scheduler plug-in of the JobTracker engine in task-completion mode.

Tran and Beck (sections 5 to 7) define LoTES and greedy on a **push** model: when a task is released, a dispatcher
sends it to one machine; it starts there at once, or waits in that machine's strict FIFO queue until the tasks
ahead of it have started and it fits. Hadoop's JobTracker is pull-based (a TaskTracker's heartbeat asks for work),
so the push model is a *configuration* of the engine:

* **task-completion mode** (``--heartbeat-interval off``, ``JobTracker.task_mode``): a TaskTracker reports a
  finished task the instant it ends, and a tracker woken with :meth:`JobTracker.wake` heartbeats at that same
  instant. That is Hadoop's out-of-band heartbeat (``mapreduce.tasktracker.outofband.heartbeat``: a TaskTracker
  heartbeats as soon as a task finishes instead of waiting for its interval) taken to its limit, for dispatches as
  well as completions, so a task the dispatcher starts "now" is launched at its release time and a queued task at
  the instant its machine frees room: the paper's waiting times, exactly;
* **this plug-in** (:class:`PushDispatch`): it dispatches each task when it is released (a job's maps when the
  job is added; its reduces when its last map has finished, section 7) with the paper's dispatcher
  (:mod:`mrsim.studies.lotes.policies`, unchanged) over the machines' resource vectors and FIFO queues
  (:class:`mrsim.studies.lotes.state.ClusterState`: ``admit``, ``enqueue``, ``finish``, the same rules the
  heartbeat form :mod:`mrsim.studies.lotes.heartbeat` uses), and launches each started task at its machine's
  heartbeat, which task mode makes immediate. Machine ``i`` is TaskTracker ``i``.

The engine's own slots never bind here (the study's trackers get more slots than any machine can run tasks): a
machine's capacity is a resource vector in exact integer units, held by ``ClusterState``, as in the paper. Nothing
of this costs other replays anything: it is a plug-in and a mode the engine already had.

Durations are drawn when tasks are released (the job source of :mod:`mrsim.studies.lotes.workload`: a job's maps at
its arrival, its reduces when its last map ends), so a dispatched task carries its own duration, and the plug-in
binds it to the task index the engine launches next (``job.map_dur[job.next_map]``) just before the launch: the
tasks of a job are interchangeable, and the engine then times exactly the dispatched task.

Per job, ``job.sched`` holds ``[class, map request, reduce request, map durations]`` (requests in integer units of
:data:`mrsim.studies.lotes.workload.UNITS_PER`), set by the study when the job arrives.

Cost per task: one dispatch (fit-tree descents, O(configurations) queue comparisons), one ``admit`` or
``enqueue``, one launch; per completion one ``finish`` (a tree update plus the queue heads it starts). Nothing
depends on the number of waiting tasks.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Sequence

from mrsim.tracker.scheduling import Locality, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState
from mrsim.studies.lotes.policies import GreedyDispatcher, LotesDispatcher
from mrsim.studies.lotes.state import ClusterState

#: ``(released, now, duration)`` of a task that starts now (hours): what the study measures.
StartHook = Callable[[float, float, float], None]


class PushDispatch(TaskScheduler):
    """Dispatch on release, launch at once (task mode). See the module docstring."""

    name = "lotes-push"
    summary = "the LoTES paper's push model: dispatch on release to one machine's FIFO queue (task mode only)"
    wakes_own_trackers = True  # every dispatched task wakes the one tracker it was sent to

    def __init__(self, state: ClusterState, dispatcher: LotesDispatcher | GreedyDispatcher,
                 reduce_durations: Callable[[JobState], Sequence[float]], started: StartHook) -> None:
        super().__init__({})
        self.state = state
        self.dispatch = dispatcher.dispatch
        self.reduce_durations = reduce_durations
        self.started = started
        self.launch: list[deque] = []  # per tracker: (job, is_reduce, duration) started, to launch now
        self.dispatched = 0

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        if not jt.task_mode:
            raise ValueError("the push model needs the engine's task-completion mode (heartbeat interval off)")
        if len(jt.trackers) != self.state.n:
            raise ValueError(f"{len(jt.trackers)} TaskTrackers for {self.state.n} machines")
        self.launch = [deque() for _ in jt.trackers]

    def job_added(self, job: JobState) -> None:
        if job.n_maps:
            self._release(job, False, job.sched[3], job.submit)

    def _release(self, job: JobState, reduce: bool, durations: Sequence[float], now: float) -> None:
        """Dispatch the job's maps (or reduces) released at ``now``: start each at once or queue it."""
        k, req = job.sched[0], job.sched[2 if reduce else 1]
        admit, dispatch, started = self.state.admit, self.dispatch, self.started
        launch, trackers, wake = self.launch, self.jt.trackers, self.jt.wake
        for dur in durations:
            m, at_once = dispatch(k, req)
            if admit(m, req, at_once):
                launch[m].append((job, reduce, dur))
                wake(trackers[m])
                started(now, now, dur)
            else:
                self.state.enqueue(m, (req, job, reduce, dur, now))
        self.dispatched += len(durations)

    def task_finished(self, job: JobState, tracker: TrackerState, reduce: bool) -> None:
        """The task's request returns to its machine, whose queue heads start while they fit (their tracker is
        woken: in task mode the engine does not wake a waking scheduler's tracker after a completion); the job's
        last map releases its reduces."""
        m = tracker.index
        now = self.jt.kernel.now
        heads = self.state.finish(m, job.sched[2 if reduce else 1])
        if heads:
            launch, started = self.launch[m], self.started
            for _req, qjob, qreduce, dur, released in heads:
                launch.append((qjob, qreduce, dur))
                started(released, now, dur)
            self.jt.wake(tracker)
        if not reduce and job.n_reduces and job.finished_maps == job.n_maps:
            self._release(job, True, self.reduce_durations(job), now)

    def assign_tasks(self, tracker: TrackerState) -> int:
        launch = self.launch[tracker.index]
        if not launch:
            return 0
        jt = self.jt
        n = len(launch)
        while launch:
            job, reduce, dur = launch.popleft()
            if reduce:
                job.reduce_dur[job.next_reduce] = dur
                ok = jt.obtain_new_reduce_task(job, tracker)
            else:
                job.map_dur[job.next_map] = dur
                ok = jt.obtain_new_map_task(job, tracker, Locality.ANY)
            if not ok:  # the engine refused a task the machine holds room for: the configuration is broken
                raise RuntimeError(f"TaskTracker {tracker.name} refused a dispatched task of job {job.job_id}")
        return n

    def describe(self) -> dict:
        return {"name": self.name, "tasks_dispatched": self.dispatched}
