"""``mrsim check-scheduler``: a battery of small seeded traces that a scheduler plug-in must survive.

Every *case* is a generated trace of one :class:`Shape` on a small cluster, replayed in one engine
:class:`Mode`. Checks, per case:

* the engine's invariants after **every event** (``ReplayOptions(check_invariants=True)``: slot accounting, job
  counters, heartbeat times);
* every ``assign_tasks`` call (the scheduler is wrapped): it launches no more tasks than the tracker had free
  slots, launches only on the tracker that is heartbeating, returns the number it launched, and takes at most
  ``max_decision_s`` seconds of wall time (a slow call is re-measured once before it counts, against noise);
* afterwards: every task ran exactly once (no task assigned twice, none missing), no task starts before its job's
  submission or ends before it starts, no tracker ever runs more tasks than it has slots, and every job finished
  (no stall: the replay must end, and must not run past a generous horizon: arrival span + all task time run
  serially + heartbeat slack);
* for heartbeat modes: the default (parked trackers) replay equals the naive one that emulates every heartbeat.

On a failure the trace is **shrunk** (delta debugging: drop chunks of jobs, then tasks of each job, then nodes,
then round durations to whole seconds) while the same kind of failure persists, and reported with the smallest
trace as Rumen ``LoggedJob`` JSON. Everything is seeded (named streams ``check-<shape>``). Cost: a few seconds
for a correct scheduler (30 cases of up to 12 jobs and 300 tasks, each replayed twice); shrinking adds at
most ``shrink_budget`` replays per failure.
"""

from __future__ import annotations

import enum
import importlib
import math
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Sequence

import numpy as np

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.results import ReplayResult
from mrsim.tracker.scheduling import JobChange, NarrowPolicy, NarrowPolicyScheduler, TaskScheduler, create_scheduler
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec, TrackerSpec, uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Priority, Workload
from mrsim.rng import stream

SchedulerFactory = Callable[[], TaskScheduler]


class Shape(enum.Enum):
    """Trace shapes of the battery."""

    MAP_ONLY = "map-only"
    REDUCE_HEAVY = "reduce-heavy"
    BURSTS = "bursts"
    PRIORITIES = "priorities"
    DEADLINES = "deadlines"
    QUEUES = "queues"
    TINY_CLUSTER = "tiny-cluster"
    HETEROGENEOUS = "heterogeneous"
    EDGE_CASES = "edge-cases"  # map-less and reduce-less jobs, zero-length tasks, slow start 0 and 1
    LOCALITY = "locality"  # split locations on a two-rack cluster (node-, rack-local and off-switch maps)


class Mode(enum.Enum):
    """Engine modes each shape is replayed in."""

    HEARTBEAT = "heartbeat"  # Hadoop 1.2 heartbeat formula
    TASK = "task"  # SimMR's task-completion-driven mode (--heartbeat-interval off)
    OUT_OF_BAND = "oob"  # 3 s heartbeats plus out-of-band heartbeats on task completion


class FailureKind(enum.Enum):
    CRASH = "crash"  # the scheduler raised
    INVARIANT = "invariant"  # the engine's per-event invariant check failed
    OVER_ASSIGN = "over-assign"  # more tasks launched than free slots, or on another tracker
    WRONG_RETURN = "wrong-return"  # assign_tasks returned a number different from what it launched
    TASK_ACCOUNTING = "task-accounting"  # a task ran twice, never, or with impossible times
    STALL = "stall"  # some job never finished
    PARKED_NAIVE = "parked-vs-naive"  # parked heartbeats gave a different schedule from naive ones
    SLOW_DECISION = "slow-decision"  # an assign_tasks call took longer than the bound


@dataclass(frozen=True)
class Case:
    """One replay setup: frozen inputs only."""

    name: str
    shape: Shape
    mode: Mode
    workload: Workload
    cluster: ClusterSpec
    conf: HadoopConf
    interval: float | None  # None: Hadoop's formula; 0: task mode
    seed: int

    def options(self, naive: bool = False) -> ReplayOptions:
        return ReplayOptions(heartbeat_interval_s=self.interval, naive_heartbeats=naive, seed=self.seed,
                             check_invariants=True)


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    message: str
    case: Case  # the smallest failing case found
    original_jobs: int
    original_tasks: int


@dataclass
class CheckReport:
    scheduler: str
    cases: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    decisions: int = 0
    max_decision_s: float = 0.0
    wall_s: float = 0.0

    @property
    def passed(self) -> bool:
        return not self.failures


class _Violation(Exception):
    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# --------------------------------------------------------------------------------------------- the probe


class ProbeScheduler(TaskScheduler):
    """Wraps a scheduler: forwards every hook, checks and times each ``assign_tasks`` call."""

    def __init__(self, inner: TaskScheduler, horizon_s: float, max_calls_per_instant: int = 10_000) -> None:
        super().__init__(inner.config)
        self.inner = inner
        self.name = inner.name
        self.horizon_s = horizon_s
        self.max_calls_per_instant = max_calls_per_instant
        self.calls = 0
        self.max_call_s = 0.0
        self._instant = -1.0
        self._calls_now = 0

    def start(self, jt) -> None:  # type: ignore[override]
        self.jt = jt
        self.inner.start(jt)

    def job_added(self, job) -> None:  # type: ignore[override]
        self.inner.job_added(job)

    def job_updated(self, job, change: JobChange) -> None:  # type: ignore[override]
        self.inner.job_updated(job, change)

    def job_removed(self, job) -> None:  # type: ignore[override]
        self.inner.job_removed(job)

    def on_timer(self, now: float, token: int) -> None:
        self.inner.on_timer(now, token)

    def describe(self) -> dict:
        return self.inner.describe()

    def assign_tasks(self, tracker) -> int:  # type: ignore[override]
        jt = self.jt
        now = jt.now
        if now > self.horizon_s:
            raise _Violation(FailureKind.STALL, f"still running at t = {now:.3f} s, past the horizon "
                                                f"{self.horizon_s:.3f} s (jobs done {jt.jobs_done}/{len(jt.jobs)})")
        if now != self._instant:
            self._instant, self._calls_now = now, 0
        self._calls_now += 1
        if self._calls_now > self.max_calls_per_instant:
            raise _Violation(FailureKind.STALL, f"{self._calls_now} heartbeats at t = {now:.3f} s without time advancing")
        free_maps = tracker.map_slots - tracker.running_maps
        free_reduces = tracker.reduce_slots - tracker.running_reduces
        before_all = sum(t.running_maps + t.running_reduces for t in jt.trackers)
        before_maps, before_reduces = tracker.running_maps, tracker.running_reduces
        started = time.perf_counter()
        returned = self.inner.assign_tasks(tracker)
        elapsed = time.perf_counter() - started
        self.calls += 1
        if elapsed > self.max_call_s:
            self.max_call_s = elapsed
        maps = tracker.running_maps - before_maps
        reduces = tracker.running_reduces - before_reduces
        where = f"heartbeat of {tracker.name} at t = {now:.3f} s"
        if maps > free_maps or reduces > free_reduces:
            raise _Violation(FailureKind.OVER_ASSIGN, f"{where}: launched {maps} maps / {reduces} reduces with "
                                                      f"{free_maps} / {free_reduces} free slots")
        launched_all = sum(t.running_maps + t.running_reduces for t in jt.trackers) - before_all
        if launched_all != maps + reduces:
            raise _Violation(FailureKind.OVER_ASSIGN, f"{where}: launched {launched_all - maps - reduces} task(s) "
                                                      "on other trackers")
        if returned != maps + reduces:
            raise _Violation(FailureKind.WRONG_RETURN, f"{where}: assign_tasks returned {returned!r} but launched "
                                                       f"{maps + reduces}")
        return returned


# --------------------------------------------------------------------------------------------- traces


def _durations(rng: np.random.Generator, n: int, scale: float = 1.0, zeros: bool = False) -> np.ndarray:
    """Whole-millisecond durations (s) so a Rumen round trip is exact."""
    d = np.round(rng.lognormal(1.5, 1.0, n) * scale, 3)
    d = np.maximum(d, 0.001)
    if zeros and n:
        d[rng.random(n) < 0.2] = 0.0
    return d


def _job(i: int, submit: float, n_maps: int, n_reduces: int, rng: np.random.Generator, *, first: int = 0,
         typical: int = 0, zeros: bool = False, **kw: object) -> JobTemplate:
    return JobTemplate(
        job_id=f"job_{1000000000 + i:010d}_{i + 1:04d}", submit_s=round(submit, 3),
        map_durations=_durations(rng, n_maps, zeros=zeros), reduce_durations=_durations(rng, n_reduces, zeros=zeros),
        first_shuffle_durations=_durations(rng, first, 0.5), typical_shuffle_durations=_durations(rng, typical, 0.5),
        **kw,  # type: ignore[arg-type]
    )


def _shape_jobs(shape: Shape, rng: np.random.Generator) -> list[JobTemplate]:
    jobs: list[JobTemplate] = []
    n = int(rng.integers(6, 13))
    t = 0.0
    for i in range(n):
        t += float(rng.exponential(4.0))
        maps = int(rng.integers(1, 25))
        reduces = int(rng.integers(0, 6))
        extra: dict[str, object] = {}
        first, typical, zeros = int(rng.integers(0, 3)), int(rng.integers(0, 3)), False
        submit = t
        if shape is Shape.MAP_ONLY:
            reduces, first, typical = 0, 0, 0
        elif shape is Shape.REDUCE_HEAVY:
            maps, reduces = int(rng.integers(1, 5)), int(rng.integers(4, 20))
            first, typical = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        elif shape is Shape.BURSTS:
            submit = 0.0 if i < n // 2 else 30.0  # two bursts of simultaneous arrivals
        elif shape is Shape.PRIORITIES:
            extra["priority"] = Priority(int(rng.integers(0, 5)))
        elif shape is Shape.DEADLINES:
            if rng.random() < 0.8:  # some jobs have no deadline
                extra["deadline_s"] = round(float(rng.uniform(5.0, 120.0)), 3)
        elif shape is Shape.QUEUES:
            extra["queue"] = f"q{int(rng.integers(1, 4))}"
            extra["user"] = f"user{int(rng.integers(1, 4))}"
        elif shape is Shape.LOCALITY:
            # 1-3 replicas per split on hosts of the two-rack cluster below, sometimes on an unknown host.
            hosts = [f"/rack{k // 2 + 1:02d}/node{k + 1:04d}" for k in range(4)] + ["/rack09/elsewhere"]
            extra["map_locations"] = tuple(tuple(sorted({hosts[int(h)] for h in rng.integers(0, 5, int(rng.integers(1, 4)))}))
                                           for _ in range(maps))
        elif shape is Shape.EDGE_CASES:
            kind = i % 4
            if kind == 0:
                maps, reduces = 0, int(rng.integers(1, 4))  # reduce-only job
            elif kind == 1:
                reduces = 0
            zeros = True
        jobs.append(_job(i, submit, maps, reduces, rng, first=first, typical=typical, zeros=zeros, **extra))
    return jobs


def _shape_cluster(shape: Shape) -> ClusterSpec:
    if shape is Shape.TINY_CLUSTER:
        return uniform_cluster(1, 1, 1)
    if shape is Shape.LOCALITY:
        return uniform_cluster(4, 2, 2, racks=2)
    if shape is Shape.HETEROGENEOUS:
        return ClusterSpec((
            TrackerSpec("fast", rack="/r1", map_slots=3, reduce_slots=1, speed=1.5),
            TrackerSpec("slow", rack="/r1", map_slots=1, reduce_slots=2, speed=0.5),
            TrackerSpec("maponly", rack="/r2", map_slots=2, reduce_slots=0),
        ), source="checker heterogeneous")
    return uniform_cluster(4, 2, 2)


_SLOWSTART = {Shape.EDGE_CASES: 0.0, Shape.REDUCE_HEAVY: 1.0, Shape.BURSTS: 0.5}


def generate_cases(seed: int = 0, shapes: Sequence[Shape] = tuple(Shape),
                   modes: Sequence[Mode] = tuple(Mode)) -> list[Case]:
    """The battery: every shape in every mode, traces drawn from the stream ``check-<shape>`` of ``seed``."""
    cases = []
    for shape in shapes:
        jobs = _shape_jobs(shape, stream(seed, f"check-{shape.value}"))
        workload = Workload.of(jobs, source=f"check-scheduler {shape.value} seed {seed}")
        cluster = _shape_cluster(shape)
        slowstart = _SLOWSTART.get(shape, 0.05)
        for mode in modes:
            conf = HadoopConf(slowstart_completed_maps=slowstart, outofband_heartbeat=mode is Mode.OUT_OF_BAND)
            interval = {Mode.HEARTBEAT: None, Mode.TASK: 0.0, Mode.OUT_OF_BAND: 3.0}[mode]
            cases.append(Case(f"{shape.value}/{mode.value}", shape, mode, workload, cluster, conf, interval, seed))
    return cases


# --------------------------------------------------------------------------------------------- running


def horizon_s(case: Case) -> float:
    """Latest plausible finish time (s) of any sane scheduler: all work serially on the slowest node, plus slack."""
    w = case.workload
    work = sum(float(j.map_durations.sum() + j.reduce_durations.sum()) +
               j.n_reduces * float(max(j.first_shuffle_durations.max(initial=0.0),
                                       j.typical_shuffle_durations.max(initial=0.0))) for j in w.jobs)
    slowest = min(t.speed for t in case.cluster.trackers)
    interval = case.interval if case.interval is not None else case.conf.heartbeat_interval_s(len(case.cluster))
    span = w.jobs[-1].submit_s - w.origin_s if len(w) else 0.0
    return span + 2.0 * work / slowest + (w.n_tasks + len(w) + 10) * 4.0 * (interval + 1.0) + 100.0


@dataclass
class _Outcome:
    failure: tuple[FailureKind, str] | None
    calls: int = 0
    max_call_s: float = 0.0


def _replay_probe(case: Case, factory: SchedulerFactory, naive: bool) -> tuple[ReplayResult, ProbeScheduler]:
    probe = ProbeScheduler(factory(), horizon_s(case))
    return replay(case.workload, case.cluster, case.conf, probe, case.options(naive)), probe


def _classify(exc: BaseException) -> tuple[FailureKind, str]:
    if isinstance(exc, _Violation):
        return exc.kind, str(exc)
    if isinstance(exc, AssertionError):
        return FailureKind.INVARIANT, f"engine invariant violated: {exc}"
    if isinstance(exc, RuntimeError) and "stalled" in str(exc):
        return FailureKind.STALL, str(exc)
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {frame.filename}:{frame.lineno}" if frame else ""
    return FailureKind.CRASH, f"{type(exc).__name__}: {exc}{where}"


def _task_accounting(case: Case, result: ReplayResult) -> str | None:
    """Every task exactly once, plausible times, no tracker over its slots at any instant."""
    tasks = result.tasks
    if len(tasks) != case.workload.n_tasks:
        return f"{len(tasks)} task rows for {case.workload.n_tasks} tasks"
    if tasks.duplicated(["job_id", "type", "task"]).any():
        return "a task appears twice"
    if (tasks["start_s"] < 0).any() or (tasks["finish_s"] < tasks["start_s"] - 1e-9).any():
        return "a task never started, or finished before it started"
    submit = dict(zip(result.jobs["job_id"], result.jobs["submit_s"]))
    late = tasks["start_s"] < tasks["job_id"].map(submit) - 1e-9
    if late.any():
        row = tasks[late].iloc[0]
        return f"task {row.job_id} {row.type} {row.task} started before its job was submitted"
    slots = {t.name: (t.map_slots, t.reduce_slots) for t in case.cluster.trackers}
    for (tracker, kind), grp in tasks.groupby(["tracker", "type"]):
        events = sorted([(s, 1) for s in grp["start_s"]] + [(f, -1) for f in grp["finish_s"]])
        level = peak = 0
        for _, d in events:
            level += d
            peak = max(peak, level)
        limit = slots[tracker][0 if kind == "MAP" else 1]
        if peak > limit:
            return f"tracker {tracker} ran {peak} {kind.lower()}s at once with {limit} slots"
    return None


def run_case(case: Case, factory: SchedulerFactory, max_decision_s: float = 0.1,
             compare_naive: bool = True) -> _Outcome:
    """Run every check on one case; the first failure found, or None."""
    try:
        result, probe = _replay_probe(case, factory, naive=False)
    except Exception as exc:  # the scheduler under test may raise anything
        return _Outcome(_classify(exc))
    out = _Outcome(None, probe.calls, probe.max_call_s)
    problem = _task_accounting(case, result)
    if problem:
        out.failure = (FailureKind.TASK_ACCOUNTING, problem)
        return out
    if compare_naive and case.interval != 0.0:
        try:
            naive, naive_probe = _replay_probe(case, factory, naive=True)
        except Exception as exc:
            kind, message = _classify(exc)
            out.failure = (kind, f"(naive heartbeats) {message}")
            return out
        if not (naive.tasks.equals(result.tasks) and naive.jobs.equals(result.jobs)):
            out.failure = (FailureKind.PARKED_NAIVE, _first_difference(result, naive))
            return out
        out.calls += naive_probe.calls
    if out.max_call_s > max_decision_s:
        # Confirm once: a single slow call can be a garbage-collection pause or a busy machine.
        try:
            _, again = _replay_probe(case, factory, naive=False)
        except Exception as exc:
            out.failure = _classify(exc)
            return out
        if again.max_call_s > max_decision_s:
            out.failure = (FailureKind.SLOW_DECISION, f"an assign_tasks call took {again.max_call_s * 1e3:.1f} ms "
                                                      f"(bound {max_decision_s * 1e3:.1f} ms)")
        out.max_call_s = min(out.max_call_s, again.max_call_s)
    return out


def _first_difference(parked: ReplayResult, naive: ReplayResult) -> str:
    a, b = parked.tasks, naive.tasks
    if len(a) == len(b):
        for col in ("start_s", "finish_s", "tracker"):
            diff = a[col].ne(b[col])
            if diff.any():
                row, other = a[diff].iloc[0], b[diff].iloc[0]
                return (f"task {row.job_id} {row.type} {row.task}: {col} {getattr(row, col)} with parked trackers, "
                        f"{getattr(other, col)} with naive heartbeats (a tracker was parked although the scheduler "
                        "would have assigned work: call jt.request_heartbeat(tracker) or jt.wake_all())")
    return "parked and naive heartbeats gave different schedules"


# --------------------------------------------------------------------------------------------- shrinking


def _with_jobs(case: Case, jobs: Sequence[JobTemplate]) -> Case:
    return replace(case, workload=Workload.of(list(jobs), source=case.workload.source))


def _candidates(case: Case) -> Iterator[Case]:
    """Smaller variants of ``case``, biggest cuts first."""
    jobs = list(case.workload.jobs)
    chunk = len(jobs) // 2
    while chunk >= 1:  # drop chunks of jobs
        for start in range(0, len(jobs), chunk):
            rest = jobs[:start] + jobs[start + chunk:]
            if rest:
                yield _with_jobs(case, rest)
        chunk //= 2
    for i, job in enumerate(jobs):  # fewer tasks in one job
        for field_name in ("map_durations", "reduce_durations", "first_shuffle_durations", "typical_shuffle_durations"):
            arr = getattr(job, field_name)
            n = arr.size
            sizes = sorted({n // 2, n - 1} - {n}) if n else []
            for size in sizes:
                if field_name in ("map_durations", "reduce_durations"):
                    other = "reduce_durations" if field_name == "map_durations" else "map_durations"
                    if size == 0 and getattr(job, other).size == 0:
                        continue  # a job needs a task
                try:
                    smaller = job.with_changes(**{field_name: arr[:size]})
                except InputError:
                    continue
                yield _with_jobs(case, jobs[:i] + [smaller] + jobs[i + 1:])
    trackers = case.cluster.trackers
    for k in range(len(trackers) - 1, 0, -1):  # fewer nodes
        cluster = ClusterSpec(trackers[:k], source=case.cluster.source)
        if cluster.map_slots and cluster.reduce_slots:
            yield replace(case, cluster=cluster)
    # Whole seconds are easier to read; only offered while something is still fractional.
    arrays = ("map_durations", "reduce_durations", "first_shuffle_durations", "typical_shuffle_durations")
    if any(j.submit_s != math.floor(j.submit_s) or any(np.any(getattr(j, f) % 1.0) for f in arrays) for j in jobs):
        yield _with_jobs(case, [j.with_changes(submit_s=float(math.floor(j.submit_s)),
                                               **{f: np.ceil(getattr(j, f)) for f in arrays}) for j in jobs])


def shrink(case: Case, kind: FailureKind, factory: SchedulerFactory, max_decision_s: float,
           budget: int = 400) -> tuple[Case, str]:
    """Greedy delta debugging: take the first smaller variant that still fails with ``kind``; repeat."""
    message = ""
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for candidate in _candidates(case):
            if tries >= budget:
                break
            tries += 1
            out = run_case(candidate, factory, max_decision_s)
            if out.failure is not None and out.failure[0] is kind:
                case, message = candidate, out.failure[1]
                improved = True
                break
    return case, message


# --------------------------------------------------------------------------------------------- entry points


def check_scheduler(factory: SchedulerFactory, *, name: str = "", seed: int = 0, max_decision_s: float = 0.1,
                    shapes: Sequence[Shape] = tuple(Shape), modes: Sequence[Mode] = tuple(Mode),
                    shrink_budget: int = 400, progress: Callable[[str, bool], None] | None = None) -> CheckReport:
    """Run the battery on schedulers built by ``factory`` (a fresh instance per replay)."""
    report = CheckReport(name or factory().name)
    started = time.perf_counter()
    for case in generate_cases(seed, shapes, modes):
        out = run_case(case, factory, max_decision_s)
        report.cases.append(case.name)
        report.decisions += out.calls
        report.max_decision_s = max(report.max_decision_s, out.max_call_s)
        if out.failure is not None:
            kind, message = out.failure
            small, small_message = shrink(case, kind, factory, max_decision_s, shrink_budget)
            report.failures.append(Failure(kind, small_message or message, small, len(case.workload),
                                           case.workload.n_tasks))
        if progress is not None:
            progress(case.name, out.failure is None)
    report.wall_s = time.perf_counter() - started
    return report


def scheduler_factory(target: str, config: dict | None = None) -> SchedulerFactory:
    """A factory for a registered scheduler name, or for ``module:attr`` (a plug-in not registered yet)."""
    if ":" not in target:
        create_scheduler(target, config)  # fail now, as an InputError, if it does not load
        return lambda: create_scheduler(target, config)
    module_name, _, attr = target.partition(":")
    from mrsim.tracker.scheduling import _cwd_on_path

    _cwd_on_path()  # module:Class imports from the current directory, as mrsim replay --scheduler does
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except Exception as exc:
        raise InputError(f"cannot load scheduler {target!r}: {type(exc).__name__}: {exc}") from None

    def build() -> TaskScheduler:
        instance = obj(config) if isinstance(obj, type) and issubclass(obj, TaskScheduler) else obj()
        if isinstance(instance, NarrowPolicy):
            return NarrowPolicyScheduler(instance, config)
        if not isinstance(instance, TaskScheduler):
            raise InputError(f"{target} is neither a TaskScheduler nor a NarrowPolicy")
        return instance

    build()
    return build


def failure_trace(failure: Failure) -> list[dict]:
    """The shrunk trace as Rumen ``LoggedJob`` dicts (profiles back to the same durations)."""
    from mrsim.profiler.synth import template_to_logged_job

    return [template_to_logged_job(j) for j in failure.case.workload.jobs]


def reproduce_command(failure: Failure, scheduler: str, trace_path: str, cluster_path: str | None = None) -> str:
    """A ``mrsim replay`` command line that replays the shrunk case (deadlines are not carried by Rumen)."""
    case = failure.case
    parts = ["mrsim replay", trace_path, "--scheduler", scheduler, "--seed", str(case.seed)]
    trackers = case.cluster.trackers
    uniform = len({(t.map_slots, t.reduce_slots, t.speed, t.rack) for t in trackers}) == 1
    if uniform and cluster_path is None:
        parts += ["--nodes", str(len(trackers)), "--map-slots", str(trackers[0].map_slots),
                  "--reduce-slots", str(trackers[0].reduce_slots)]
    else:
        parts += ["--cluster", cluster_path or "CLUSTER.toml"]
    parts += ["--slowstart", f"{case.conf.slowstart_completed_maps:g}"]
    if case.interval == 0.0:
        parts += ["--heartbeat-interval", "off"]
    elif case.interval is not None:
        parts += ["--heartbeat-interval", f"{case.interval:g}"]
    if case.conf.outofband_heartbeat:
        parts.append("--oob-heartbeat")
    return " ".join(parts)
