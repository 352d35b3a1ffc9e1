"""LoTES and the greedy baseline inside mrsim's heartbeat engine (``--scheduler lotes`` / ``greedy``).

The paper's dispatchers *push*: a task is sent to one machine when it is released, and either starts there at
once or joins that machine's FIFO queue. Hadoop's JobTracker is *pull*-based: a TaskTracker's heartbeat asks for
work. The faithful analogue used here is **dispatch on release, launch on heartbeat**:

* when a task is released (a job's maps when the job is added, its reduces when its last map has finished and
  reduce slow start is met: the paper's section 7, so no reduce holds a container while its maps wait), the
  scheduler runs the paper's dispatcher (:class:`mrsim.studies.lotes.policies.LotesDispatcher` or
  :class:`~mrsim.studies.lotes.policies.GreedyDispatcher`, reused unchanged) over a *shadow* of the cluster
  (:class:`mrsim.studies.lotes.state.ClusterState`: free resources per machine, FIFO queues, fit and queue indexes);
* a task the dispatcher starts "now" is committed: the shadow holds its resources at once, and the task is
  launched at the chosen TaskTracker's next heartbeat (at most one heartbeat interval later; Table 3 tasks last
  minutes to a day);
* a task the dispatcher queues waits in that machine's strict FIFO queue, as in the paper;
* when a TaskTracker reports a finished task (``task_finished``, in its heartbeat), the shadow frees the task's
  request and starts queue heads while they fit; they launch in the same heartbeat.

So the shadow holds exactly what the engine holds plus the committed tasks not yet launched, and every task the
scheduler launches fits (the engine checks again). Decisions happen only in job arrivals and heartbeats that
report completions, which parked and naive heartbeat modes process at identical times, so both give identical
schedules (tested).

Cost: ``assign_tasks`` is O(1) when the tracker has nothing committed (the common heartbeat), else O(tasks
launched); a dispatch costs what it costs in the push model (``mrsim lotes``) (fit-tree descents, O(configurations)
queue comparisons); a completion one tree update. Nothing depends on the number of waiting tasks.

**Classes** (what LoTES plans with): jobs drawn by ``mrsim synth --lotes-google`` carry their Table 3 class
(``extra["lotes_class"]``, or the job name ``lotes-c<k>-...`` after a Rumen round trip); when every job has one,
the plan is ``mrsim lotes``'s plan from Table 3's exact means (so both worlds use the same bins). Any
other trace is grouped by **request vector**: tasks whose requests are equal form one class (maps and reduces
alike); a class's proportion is its share of all tasks, its mean duration the mean task duration in the trace,
its request the shared vector. This reads the whole trace at start, as LoTES's offline stages assume the class
statistics known. More than :data:`MAX_CLASSES` distinct vectors is an error (the bin enumeration grows
exponentially with the classes).

Not supported (an :class:`~mrsim.errors.InputError` at start or arrival): slot clusters, federations,
speculative execution, and replayed failed attempts or kills (a requeued task would bypass the dispatcher).
Setup/cleanup tasks take engine resources the shadow does not see: a launch the engine refuses is retried at the
tracker's next heartbeat.
"""

from __future__ import annotations

from collections import deque

from mrsim.tracker.placement import task_request
from mrsim.tracker.scheduling import JobChange, Locality, TaskScheduler
from mrsim.tracker.state import JobState, TrackerState
from mrsim.errors import InputError
from mrsim.rng import stream
from mrsim.studies.lotes.assignment import LotesPlan, build_plan
from mrsim.studies.lotes.bridge import ENGINE_RESOURCES, SECONDS_PER_HOUR, class_of, configurations, lotes_cluster
from mrsim.studies.lotes.google import table3_workload
from mrsim.studies.lotes.policies import GreedyDispatcher, LotesDispatcher, Policy
from mrsim.studies.lotes.spec import JobClass, Workload
from mrsim.studies.lotes.state import ClusterState
from mrsim.studies.lotes.workload import UNITS_PER, Uniforms

#: Most classes a trace may be grouped into (distinct request vectors) for the LoTES plan.
MAX_CLASSES = 16


def to_units(req: tuple[float, ...]) -> list[int]:
    """A request (engine units) as integer micro-units, the shadow state's exact arithmetic."""
    return [int(round(x * UNITS_PER)) for x in req]


def trace_classes(jt) -> tuple[list[tuple[int, int]], Workload, str]:  # noqa: ANN001 - JobTracker
    """Class of every job's maps and reduces, the class statistics, and where they came from (module doc).

    Returns ``(per_job, workload, source)`` with ``per_job[job.index] = (map class, reduce class)``. Cost O(jobs).
    """
    names = jt.resource_names
    labelled = [class_of(j.template) for j in jt.jobs]
    table3 = table3_workload()
    if names == ENGINE_RESOURCES and labelled and all(k is not None and 0 <= k < len(table3.classes) for k in labelled):
        return [(k, k) for k in labelled], table3, "table3"  # type: ignore[misc]
    keys: dict[tuple[float, ...], int] = {}
    count: list[int] = []
    busy: list[float] = []
    per_job: list[tuple[int, int]] = []
    for job in jt.jobs:
        t = job.template
        pair = []
        for reduce in (False, True):
            n = t.n_reduces if reduce else t.n_maps
            request = task_request(t, reduce, jt.default_requests[reduce])
            key = tuple(round(request.get(r, 0.0), 6) for r in names)
            k = keys.setdefault(key, len(keys))
            if k == len(count):
                if len(keys) > MAX_CLASSES:
                    raise InputError(f"job {t.job_id}: the trace has more than {MAX_CLASSES} distinct task requests; "
                                     "LoTES plans per class (label jobs, e.g. with mrsim synth --lotes-google)")
                count.append(0)
                busy.append(0.0)
            if n:
                count[k] += n
                if reduce:
                    busy[k] += float(t.reduce_durations.sum()) + _shuffle_total(t)
                else:
                    busy[k] += float(t.map_durations.sum())
            pair.append(k)
        per_job.append((pair[0], pair[1]))
    total = sum(count)
    floor = [min((tr.capacity or (1.0,))[r] for tr in jt.trackers) * 1e-6 for r in range(len(names))]
    classes = []
    renumber: dict[int, int] = {}  # a job kind without tasks may have made a class with no task: drop it
    for key, k in keys.items():
        if not count[k]:
            continue
        renumber[k] = len(classes)
        classes.append(JobClass(name=f"{len(classes) + 1}:" + ",".join(f"{r}={a:g}" for r, a in zip(names, key)),
                                proportion=count[k] / total,
                                mean_duration=max(busy[k] / count[k], 1e-3) / SECONDS_PER_HOUR,
                                # LoTES needs positive means: a resource a class does not request gets a negligible one
                                request_mean=tuple(max(a, floor[r]) for r, a in enumerate(key)),
                                request_cv=tuple(0.0 for _ in names)))
    per_job = [(renumber.get(a, 0), renumber.get(b, 0)) for a, b in per_job]
    return per_job, Workload(resources=tuple(names), classes=tuple(classes)), "request vectors"


def _shuffle_total(t) -> float:  # noqa: ANN001 - JobTemplate
    """Typical shuffle time of all the job's reduces (s): the profile's cyclic reuse of the array."""
    typ = t.typical_shuffle_durations
    if not len(typ):
        return 0.0
    return float(sum(typ[i % len(typ)] for i in range(t.n_reduces)))


class DispatchScheduler(TaskScheduler):
    """Dispatch on release, launch on heartbeat (see the module docstring). Subclasses set ``policy``."""

    policy: Policy = Policy.GREEDY
    # Every task is dispatched to one tracker, which is woken then (``_commit``); the engine's broadcast wake-ups
    # on arrivals would only wake trackers that get nothing: O(nodes) heartbeats per job on a large cluster.
    wakes_own_trackers = True

    def start(self, jt) -> None:  # type: ignore[override]
        super().start(jt)
        if not jt.resource_names:
            raise InputError(f"--scheduler {self.name} needs a resource-vector cluster (--cluster FILE whose nodes "
                             "declare resources = {...}; e.g. examples/clusters/lotes_table1_10.toml)")
        if jt.datacenters:
            raise InputError(f"--scheduler {self.name} does not support federations of datacenters")
        if jt.speculative_maps or jt.speculative_reduces:
            raise InputError(f"--scheduler {self.name} does not support speculative execution (drop --speculative)")
        spec = jt.cluster
        _, members = configurations(spec)
        self.machine_of: list[int] = [0] * len(jt.trackers)
        self.tracker_of: list[TrackerState] = []
        for group in members:
            for t in group:
                self.machine_of[t] = len(self.tracker_of)
                self.tracker_of.append(jt.trackers[t])
        cluster = lotes_cluster(spec, "engine")
        self.state = ClusterState(cluster)
        self.uniforms = Uniforms(stream(int(self.config.get("seed", 0)), f"{self.name}-dispatch"))
        self.classes, self.workload, self.class_source = trace_classes(jt)
        self.plan: LotesPlan | None = None
        if self.policy is Policy.LOTES:
            plan_cluster = lotes_cluster(spec, "lotes") if self.class_source == "table3" else cluster
            self.plan = build_plan(plan_cluster, self.workload)
            self.dispatcher = LotesDispatcher(self.state, self.plan, self.uniforms)
        else:
            self.dispatcher = GreedyDispatcher(self.state, self.uniforms)
        # committed tasks per tracker, launched at its next heartbeat: (job, is_reduce)
        self.launch: list[deque] = [deque() for _ in jt.trackers]
        self.units: dict[int, tuple[list[int] | None, list[int] | None]] = {}  # job index -> request units
        self.reduces_released: set[int] = set()  # job indices whose reduces were dispatched
        self.dispatched = 0
        self.started_at_once = 0

    def describe(self) -> dict:
        out: dict = {"name": self.name, **self.config}
        if hasattr(self, "workload"):
            out["classes"] = len(self.workload.classes)
            out["class_source"] = self.class_source
            out["tasks_dispatched"] = self.dispatched
            out["tasks_started_at_once"] = self.started_at_once
        if getattr(self, "plan", None) is not None:
            assert self.plan is not None
            out["lambda_star_tasks_per_h"] = self.plan.lam_allocation
            out["bins"] = sum(len(b) for b in self.plan.bins)
            if isinstance(self.dispatcher, LotesDispatcher):
                out["dispatch_steps"] = dict(zip(("first_fit", "any_fit", "bin_queue", "capable_queue"),
                                                 self.dispatcher.steps))
        return out

    # --------------------------------------------------------------------------------- release = dispatch

    def _requests(self, job: JobState) -> tuple[list[int] | None, list[int] | None]:
        got = self.units.get(job.index)
        if got is None:
            got = (to_units(job.map_req) if job.map_req is not None else None,
                   to_units(job.reduce_req) if job.reduce_req is not None else None)
            self.units[job.index] = got
        return got

    def _release(self, job: JobState, reduce: bool, n: int) -> None:
        """Dispatch ``n`` tasks of ``job`` (maps or reduces): start (commit) or enqueue each."""
        req = self._requests(job)[reduce]
        assert req is not None
        k = self.classes[job.index][reduce]
        st = self.state
        dispatch = self.dispatcher.dispatch
        touched = set()
        for _ in range(n):
            m, now = dispatch(k, req)
            self.dispatched += 1
            if st.admit(m, req, now):  # the same rule as the push model's (ClusterState.admit)
                self.started_at_once += 1
                tracker = self.tracker_of[m]
                self.launch[tracker.index].append((job, reduce))
                touched.add(tracker.index)
            else:
                st.enqueue(m, (req, job, reduce))
        for t in sorted(touched):
            self.jt.wake(self.jt.trackers[t])

    def job_added(self, job: JobState) -> None:
        if job.fail_plan:
            raise InputError(f"job {job.job_id}: --scheduler {self.name} cannot replay failed attempts "
                             "(use --no-failed-attempts)")
        if job.n_maps:
            self._release(job, False, job.n_maps)

    def _release_reduces(self, job: JobState) -> None:
        """Release the job's reduces once slow start is met *and* every map has finished (section 7: reduces are
        released when the last map ends). Holding them back also means no reduce ever holds a container while the
        job's maps wait, so the engine's reducer preemption for hanging maps never fires."""
        if (job.n_reduces and job.reduces_ready and job.finished_maps == job.n_maps
                and job.index not in self.reduces_released):
            self.reduces_released.add(job.index)
            self._release(job, True, job.n_reduces)

    def job_updated(self, job: JobState, change: JobChange) -> None:
        if change is JobChange.REDUCES_READY:
            self._release_reduces(job)
        elif change is JobChange.TASKS_REQUEUED:
            raise InputError(f"job {job.job_id}: --scheduler {self.name} does not support killed or requeued tasks")

    def task_finished(self, job: JobState, tracker: TrackerState, reduce: bool) -> None:
        req = self._requests(job)[reduce]
        assert req is not None
        heads = self.state.finish(self.machine_of[tracker.index], req)
        for task in heads:
            self.launch[tracker.index].append((task[1], task[2]))
        if heads and self.jt.task_mode:  # in task mode the engine wakes a waking scheduler's trackers only on its word
            self.jt.wake(tracker)
        if not reduce and job.finished_maps == job.n_maps:
            self._release_reduces(job)
        if job.finished_maps == job.n_maps and job.finished_reduces == job.n_reduces:
            self.units.pop(job.index, None)
            self.reduces_released.discard(job.index)

    # --------------------------------------------------------------------------------- heartbeat = launch

    def assign_tasks(self, tracker: TrackerState) -> int:
        launch = self.launch[tracker.index]
        if not launch:
            return 0
        jt = self.jt
        launched = 0
        while launch:
            job, reduce = launch[0]
            if reduce:
                ok = tracker.running_reduces < tracker.reduce_slots and jt.obtain_new_reduce_task(job, tracker)
            else:
                ok = tracker.running_maps < tracker.map_slots and jt.obtain_new_map_task(job, tracker, Locality.ANY)
            if not ok:
                # Only when the engine holds resources the shadow does not know of (setup/cleanup tasks) or slots
                # bind: keep the task and try again at the next heartbeat.
                jt.request_heartbeat(tracker)
                break
            launch.popleft()
            launched += 1
        return launched
