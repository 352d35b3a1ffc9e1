"""Contention-aware replay (``--contention tdam``): CA-Mumak's TDAM inside the heartbeat engine.

Follows the dissertation's Epochs algorithm (chapter 5, Algorithm 7, eq. 5.3) as TDAM and CA-Mumak apply it
(sections 6.3 and 6.5): every TaskTracker is a closed queueing network (an ``m``-core CPU by Seidmann's method plus
its disks, :class:`mrsim.contention.NodeSpec`), the scheduler under test builds each node's local task stream, and
a task's completion time follows from the contention it meets there instead of from the trace.

How the engine drives the model (``docs/tdam.md`` has the user-facing version):

* One :class:`NodeMix` per TaskTracker, one :class:`~mrsim.contention.MixCache` per distinct node model
  (:func:`node_spec`: cores, disks, ``cpu_model``, ``memory_architecture``, ``numa_ratio``), so nodes of one type
  share solved mixes across nodes and epochs, looked up by the node's dense count vector. The model is Seidmann's
  CPU by default, an exact multi-server CPU, or chapter 4's memory layer (:func:`mrsim.contention.node.solve_rows`).
* **Launch** (``obtain_new_*``): the task joins its node's mix with its demand vector
  (:func:`mrsim.model.demands.demand_columns` through :func:`mrsim.contention.node.layout_vector`: without a memory layer
  cpu + memory on the CPU and disk striped over the disks; with one, core, memory (local, remote) and disk; all
  divided by the node's speed and multiplied by the locality slowdown a plain replay would apply). **Completion**: the node
  model retires it at its exact finish instant, and the JobTracker hears of it as of a trace completion (task
  mode: at once; heartbeat mode: at the next heartbeat). A **kill** (preemption) takes it off the node at once.
* **Epoch boundaries** (any start or end on a node) re-solve only that node, once per engine event however many
  tasks started in it (launches in one heartbeat are batched). Each node has at most one live completion event,
  a node-done event at its earliest predicted completion, tombstoned by a per-node stamp (after a completion it
  is queued only at the tracker's next heartbeat when that comes first: ``EpochCore.flush``); and every running
  task's ``job.map_finish[i]`` / ``job.reduce_finish[i]`` is rewritten to its new predicted finish, so schedulers
  and ``kill_task`` read current predictions (for a scheduler declaring ``reads_task_predictions = False`` only
  on demand: before a kill, or through :meth:`ContentionFeature.publish_predictions`).
* **Reduces**: the shuffle stays time-based as in the base engine (SimMR's model; the dissertation does not model
  shuffle or network contention, sections 6.6 and 7.2). A reduce holds its slot from launch but loads its node
  only from its shuffle end: first-wave reduces (SimMR's filler) from ``last map finish + first_shuffle`` once
  the map stage is done, later ones from ``launch + typical_shuffle`` (a shuffle-end event). Its demand is the
  post-shuffle work.
* **Without demands** a task's demand is its trace duration on the CPU, so alone on an idle node it takes exactly
  its trace duration; the run's warnings say how many jobs used this fallback.

Slots may exceed cores: nothing caps concurrency but the slots, and the model decides how slow tasks become
(ten 100-s CPU tasks on one core take 1000 s, section 6.6).

**The node model.** Each TaskTracker's tasks run in a :class:`~mrsim.contention.nodemix.NodeMix`, the one node
model of mrsim (eq. 5.3 accrual by shape over the node type's :class:`~mrsim.contention.MixCache`; the keyed
:class:`mrsim.contention.NodeContention` of the stream dispatchers is the same model). Its results are pinned
against the literal Algorithm 7, :func:`mrsim.contention.epochs` (``tests/contention/test_node_model_oracle.py``,
``tests/tracker/features/tdam/test_nodemix.py``). :class:`~mrsim.contention.nodemix.NodeMix` and the epoch bookkeeping
(:class:`~mrsim.tracker.contention_core.EpochCore`, in :mod:`mrsim.tracker.contention_core`) are compiled with the
engine core; this class wires them to the engine's hooks (``docs/tdam.md``, "Reference: what the engine does").

Costs per epoch on a node: one mix lookup (an AMVA solve on a cache miss, O(sweeps x shapes x centres)) plus
O(tasks on the node) to publish predictions; per launch O(log n + shapes); per completion O(shapes).
"""

from __future__ import annotations

from dataclasses import replace

from typing import TYPE_CHECKING

from mrsim.contention import MixCache, NodeSpec
from mrsim.contention.nodemix import TIE_RTOL, MixTable, NodeMix
from mrsim.tracker.contention_core import EpochCore, EpochHooks, TaskDemands
from mrsim.tracker.state import INF, JOB_SHIFT, REDUCE_BIT, TASK_MASK, JobState, TrackerState
from mrsim.errors import InputError, OptionError
from mrsim.model.cluster import TrackerSpec
from mrsim.model.demands import TaskKind, demand_columns, fallback_columns, has_demands

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

__all__ = ["ContentionFeature", "NodeMix", "TIE_RTOL", "node_spec"]

_MODELLED = frozenset({"cpu", "disk", "memory"})

# --------------------------------------------------------------------------------------------- the engine


def node_spec(tracker: TrackerSpec) -> NodeSpec:
    """The contention model's view of a TaskTracker: cores, disks, CPU model and memory architecture (cluster-file
    keys ``cpu_model``, ``memory_architecture``, ``numa_ratio``; docs/cluster.md)."""
    return NodeSpec(tracker.cores, tracker.disks, tracker.cpu_model, tracker.memory_architecture, tracker.numa_ratio)



class ContentionFeature:
    """TDAM as an engine feature (Algorithm 7): task durations from per-node queueing networks.

    Attach with ``jt.attach(ContentionFeature())`` before ``jt.run()`` (``mrsim.tracker.replay`` does it for
    ``--contention tdam``). Hooks it sets (docs/architecture.md): ``finish_model`` (the node model, not the trace,
    decides when a launched task ends), ``on_launch`` (reduces hold a slot while they shuffle), ``on_job_arrival`` /
    ``on_job_done`` (per-task demand rows), ``on_heartbeat`` (mix waiters decide afresh), ``before_kill`` /
    ``on_kill`` (publish predictions, take the victim off its node), ``after_event`` (one re-solve per changed node
    per engine event) and two event kinds of its own (``register_event``). Plug-ins reach it with
    ``jt.feature(ContentionFeature)`` (CA-FIFO reads node models and next-task demands).
    """

    def __init__(self, cache_mixes: bool = True) -> None:
        # cache_mixes=False solves every epoch's mix afresh (tests and bench_tdam.py: identical results, slower).
        self.cache_mixes = cache_mixes

    def attach(self, jt: JobTracker) -> None:
        conf, cluster = jt.conf, jt.cluster
        if getattr(conf, "map_speculative", False) or getattr(conf, "reduce_speculative", False):
            # A backup attempt would be a second task of the same gid on another node's model.
            raise OptionError("speculative execution is not supported with {contention} tdam (turn one of them off)")
        self.jt = jt
        self.jobs = jt.jobs
        self.trackers = jt.trackers
        self.kernel = jt.kernel
        self.schedule = jt.schedule
        # per node type: the mix cache, the memo of shape ids and the solved mixes in the engine's keys
        caches: dict[NodeSpec, tuple[MixCache, dict[tuple[float, ...], int], MixTable]] = {}
        self.nodes: list[NodeMix] = []
        for t in cluster.trackers:
            spec = node_spec(t)
            shared = caches.get(spec)
            if shared is None:
                cache = MixCache(spec, memoize=self.cache_mixes)
                shared = caches[spec] = (cache, {}, MixTable(cache))
            self.nodes.append(NodeMix(*shared))
        self.caches: tuple[MixCache, ...] = tuple(cache for cache, _, _ in caches.values())
        self.tables: tuple[MixTable, ...] = tuple(table for _, _, table in caches.values())
        # Predicted finishes of running tasks are written into job.map_finish / reduce_finish at every epoch for
        # schedulers that read them (preemption, size estimates). A scheduler that declares
        # ``reads_task_predictions = False`` (FIFO, CA-FIFO) gets them only on demand: the nodes changed since
        # they were last published are kept by the core and published before a kill (the one engine path reading
        # them).
        eager = bool(getattr(jt.scheduler, "reads_task_predictions", True))
        # The hot path (epochs, completions, launches' demand vectors), compiled with the engine core. Nodes with a
        # memory layer or another layout build their vectors through layout_vector.
        self.core = EpochCore(jt, self.nodes, [float(t.speed) for t in cluster.trackers],
                              [int(t.disks) for t in cluster.trackers],
                              [node.cache.spec if node.cache.spec.memory != "none" else None for node in self.nodes],
                              eager)
        # the core's per-job demand rows and reduces in their shuffle, under the names the feature reads
        self._map_rows = self.core.map_rows
        self._reduce_rows = self.core.reduce_rows
        self._shuffling = self.core.shuffling
        self._shuffle_pending = self.core.shuffle_pending
        self._mix_waiters = self.core.mix_waiters
        self.fallback_jobs = 0
        self._validate(jt)
        # Both event kinds sort with task completions at one instant (ORDER_TASK_DONE, EpochCore queues them): after
        # arrivals, before heartbeats; ``seq`` orders them among themselves.
        # The run loop calls the core's handle for both kinds (compiled to compiled: a C call per event).
        self.ev_node_done = self.core.ev_node_done = jt.register_event(self.core)
        self.ev_shuffle_end = self.core.ev_shuffle_end = jt.register_event(self.core)
        hooks = EpochHooks(self.core)  # the engine calls its methods directly (compiled code to compiled code)
        jt.register(self, finish_model=hooks, on_launch=hooks, on_job_arrival=self._job_arrived,
                    on_job_done=self._job_done, on_heartbeat=hooks,
                    before_kill=self.publish_predictions,  # the engine picks its victim among tasks whose finish lies ahead
                    on_kill=self._killed, after_event=self.core)

    # ----------------------------------------------------------------------------------------- set-up

    def _validate(self, jt: JobTracker) -> None:
        workload = jt.workload
        diskless = [t.name for t in jt.cluster.trackers if t.disks == 0]
        fallback: list[str] = []
        for t in workload:
            bad = set(t.demand_resources) - _MODELLED
            if (t.map_demands is not None or t.reduce_demands is not None) and bad:
                raise InputError(f"job {t.job_id}: demand resource(s) {', '.join(sorted(bad))} are not in the node "
                                 f"model (expected cpu, disk, memory)")
            if diskless and "disk" in t.demand_resources:
                col = t.demand_resources.index("disk")
                for arr in (t.map_demands, t.reduce_demands):
                    if arr is not None and arr.size and float(arr[:, col].max()) > 0.0:
                        raise InputError(f"job {t.job_id} has disk demand but node {diskless[0]} has no disk")
            if not has_demands(t):
                fallback.append(t.job_id)
        self.fallback_jobs = len(fallback)
        if fallback:
            note = (f"--contention tdam: {len(fallback)} of {len(workload)} job(s) have no service demands "
                    f"(first: {fallback[0]}); their tasks' demand is their trace duration on the CPU, so a task "
                    f"alone on an idle node takes its trace duration")
            # Results carry the workload's warnings (mrsim.tracker.results), so the note reaches the output.
            jt.workload = replace(workload, warnings=(*workload.warnings, note))

    # ----------------------------------------------------------------------------------------- plug-in API

    def node_model(self, tracker: TrackerState) -> NodeMix:
        """The contention model of ``tracker``'s node (schedulers use its read-only queries)."""
        return self.nodes[tracker.index]

    def next_task_demand(self, job: JobState, tracker: TrackerState, reduce: bool = False) -> tuple[float, ...] | None:
        """Demand vector on ``tracker`` (s per ``NodeSpec.resources``) of the job's next task of that kind in launch
        order (requeued tasks first), or None when none is pending. For admission control (CA-FIFO).

        With locality-aware map placement the engine may launch another of the job's maps; tasks of one job
        usually share a demand shape, which is all utilization depends on.
        """
        if reduce:
            if job.reduces_pending == 0:
                return None
            i = job.requeued_reduces[-1] if job.requeued_reduces else job.next_reduce
            cpu, disk, mem = self._reduce_rows[job.index].row(i)
        else:
            if job.maps_pending == 0:
                return None
            i = job.requeued_maps[-1] if job.requeued_maps else min(job.next_map, job.n_maps - 1)
            cpu, disk, mem = self._map_rows[job.index].row(i)
        return self.core.vector(tracker.index, cpu, disk, mem)

    def park_until_mix_change(self, tracker: TrackerState) -> None:
        """Called by a scheduler that declined because of ``tracker``'s node mix (CA-FIFO): the tracker stays
        parked until its mix changes. Completions and kills on it already wake it (base engine); this also wakes
        it when a reduce's shuffle ends there (a new task can lower another resource's utilization). New jobs
        and requeued tasks wake trackers with free slots as usual. Exact with respect to polling every heartbeat
        for decisions that depend only on the node's mix and the jobs' pending task shapes."""
        self._mix_waiters.add(tracker.index)

    @property
    def epochs(self) -> int:
        """Node re-solves so far (ends of epochs on a node)."""
        return self.core.epochs

    def contention_stats(self) -> dict[str, object]:
        """Model counters for run records: epochs (node re-solves), fallback jobs, mix-cache hits, AMVA solves...,
        and ``node_models``: how many nodes use each model (``seidmann``, ``exact``, ``smp``, ``numa``), so a run
        record says which node model produced it, default or not."""
        out: dict[str, object] = {"epochs": self.core.epochs, "fallback_jobs": self.fallback_jobs}
        for cache, table in zip(self.caches, self.tables):
            for key, value in cache.stats().items():
                out[key] = int(out.get(key, 0)) + value  # type: ignore[call-overload]
            out["hits"] = int(out["hits"]) + table.hits  # type: ignore[call-overload]  # lookups the table answered
        models: dict[str, int] = {}
        for node in self.nodes:
            spec = node.cache.spec
            name = spec.memory if spec.memory != "none" else spec.cpu_model
            models[name] = models.get(name, 0) + 1
        out["node_models"] = dict(sorted(models.items()))
        return out

    # ----------------------------------------------------------------------------------------- hooks

    def _job_arrived(self, job: JobState) -> None:
        t = job.template
        index = job.index
        # three lists per kind, not a tuple per task (TaskDemands); no demands: the trace durations as CPU
        maps = demand_columns(t, TaskKind.MAP) or fallback_columns(t.map_durations)
        reduces = demand_columns(t, TaskKind.REDUCE) or fallback_columns(t.reduce_durations)
        self._map_rows[index] = TaskDemands(*maps)
        self._reduce_rows[index] = TaskDemands(*reduces)

    def _job_done(self, job: JobState) -> None:
        self._map_rows.pop(job.index, None)
        self._reduce_rows.pop(job.index, None)

    def _killed(self, job: JobState, gid: int, ti: int) -> None:
        node = self.nodes[ti]
        if gid in node:
            node.remove(gid, self.kernel.now)
            self.core.mark(ti)
        else:  # a reduce still in its shuffle: it never loaded the node
            self._shuffling[ti] -= 1
            self._shuffle_pending.discard(gid)

    # ----------------------------------------------------------------------------------------- the model

    def publish_predictions(self) -> None:
        """Write the current predicted finish of every running task on the nodes changed since their last
        publication into ``job.map_finish`` / ``job.reduce_finish`` (only needed when the scheduler declared
        ``reads_task_predictions = False``; otherwise every epoch publishes). O(tasks on those nodes)."""
        self.core.publish_pending()

    # ----------------------------------------------------------------------------------------- invariants

    def check_invariants(self) -> None:
        """Per node (the engine's own checks run first): the model's own check; every slot-holding task is in the
        model, shuffling, or awaiting its report; a node with tasks has exactly one live completion event, not in
        the past, or one held back with its tracker's heartbeat queued before it; tasks in a node's model run on
        that tracker. Cost O(running tasks)."""
        now = self.kernel.now
        core = self.core
        assert not core.n_dirty, "a changed node was not re-solved within its event"
        for t in self.trackers:
            ti = t.index
            node = self.nodes[ti]
            node._check()
            held = t.running_maps + t.running_reduces
            assert len(node) + self._shuffling[ti] + len(t.reports) == held, f"{t}: model and slots disagree"
            assert self._shuffling[ti] >= 0
            # one live completion event, or one held back until the tracker's heartbeat queued before it
            assert node.event_at == INF or node.held == INF, f"{t}: a completion both queued and held"
            assert (node.event_at != INF or node.held != INF) == (len(node) > 0), \
                f"{t}: completion event missing or stale"
            assert node.event_at == INF or node.event_at >= now, f"{t}: completion event in the past"
            assert node.held == INF or now <= t.next_hb < node.held, \
                f"{t}: a completion held back without a heartbeat queued before it"
            for gid, finish in node.completion_times():
                job = self.jobs[gid >> JOB_SHIFT]
                owner = (job.reduce_tracker if gid & REDUCE_BIT else job.map_tracker)[gid & TASK_MASK]
                assert owner == ti, f"task {gid} is in node {ti}'s model but runs on tracker {owner}"
                assert finish >= now - 1e-9 * max(1.0, now), f"task {gid} predicted to finish in the past"
