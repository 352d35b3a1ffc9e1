"""Live replay state: one small object per job and per TaskTracker, counters only, no per-task objects.

A task is identified by an integer *gid*: ``(job_index << 25) | (is_reduce << 24) | task_index``
(up to 16.7 million tasks of each kind per job). Per-task results live in flat per-job lists that are
allocated once, when the job arrives.

Schedulers may read every attribute documented here; only the JobTracker writes them.
"""

from __future__ import annotations

import math
from array import array
from typing import Any, Final

import numpy as np

from mrsim.model.templates import JobTemplate

# Final: the compiled core inlines them (a plain module attribute costs a dict lookup at every use)
JOB_SHIFT: Final = 25
REDUCE_BIT: Final = 1 << 24
TASK_MASK: Final = REDUCE_BIT - 1

INF: Final = float("inf")


_NO_FLOATS: "array[float]" = array("d")  # shared empty arrays: a job holds none of its own until it arrives
_NO_INTS: "array[int]" = array("i")
_NO_LEVELS: "array[int]" = array("b")
_UNSET_FLOAT: "array[float]" = array("d", [-1.0])
_UNSET_INT: "array[int]" = array("i", [-1])
# The engine writes per-task entries through memoryviews of the arrays (JobState's ``*_w`` attributes): a
# memoryview stores a float or an int with one conversion (``PyFloat_AsDouble``), where ``array.__setitem__``
# parses its argument with a format string (``PyArg_Parse``, about 250 instructions a store). Reads stay on the
# arrays (both cost the same). A view pins its array's size: the per-task arrays are never resized.
_NO_FLOATS_W: Any = memoryview(_NO_FLOATS)
_NO_INTS_W: Any = memoryview(_NO_INTS)


def _floats(values: "object") -> "array[float]":
    """A numpy float array as an ``array('d')`` (one copy of the bytes)."""
    out = array("d")
    out.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return out


class JobState:
    """A job in the JobTracker (Hadoop's ``JobInProgress``, counters only).

    Attributes read by schedulers:
        index: position in the workload (submit order); also the final FIFO tie-break.
        job_id, user, queue, priority (int, lower first), submit (s, replay clock), deadline (absolute s or INF).
        n_maps, n_reduces: desired task counts.
        next_map / next_reduce: how many distinct tasks were ever launched (without locality, also the next
            never-launched index).
        maps_pending / reduces_pending: tasks waiting for a slot (never launched, or killed and requeued).
        running_maps, finished_maps, running_reduces, finished_reduces: as the JobTracker knows them
            (finished counts include only completions already reported by a heartbeat).
        reduces_ready: slow start met (``finished_maps >= slowstart_threshold``).
        map_stage_done: every map reported finished.
        map_req / reduce_req: per-task resource request (resource-vector clusters; else None).
        map_dc / reduce_dc, dc_maps_pending / dc_reduces_pending: federations only (else None): each task's
            datacenter index, and the pending tasks per datacenter.
    """

    __slots__ = (
        "index", "template", "job_id", "user", "queue", "priority", "submit", "deadline",
        "n_maps", "n_reduces", "next_map", "next_reduce", "running_maps", "running_reduces",
        "finished_maps", "finished_reduces", "slowstart_threshold", "reduces_ready", "map_stage_done",
        "last_map_finish", "waiting_reduces", "first_wave_count", "typical_count",
        "map_dur", "reduce_dur", "first_shuffle", "typical_shuffle",
        "start_time", "finish_time", "map_start", "map_finish", "map_tracker",
        "reduce_start", "reduce_shuffle_end", "reduce_finish", "reduce_tracker", "sched",
        "maps_pending", "reduces_pending", "requeued_maps", "requeued_reduces", "killed_tasks", "wasted_s",
        "host_cache", "rack_cache", "map_launched", "any_cursor", "map_locality", "spec", "spec_running", "live_maps", "live_reduces", "fail_plan", "failing",
        "map_req", "reduce_req", "last_map_launch", "hang_check", "reduces_held", "map_dc", "reduce_dc", "dc_maps", "dc_reduces", "dc_maps_pending", "dc_reduces_pending",
        "map_width", "reduce_width",
        "map_start_w", "map_finish_w", "map_tracker_w", "reduce_start_w", "reduce_shuffle_end_w", "reduce_finish_w",
        "reduce_tracker_w",
    )

    def __init__(self, index: int, template: JobTemplate, submit: float, slowstart: float) -> None:
        self.index = index
        self.template = template
        self.job_id = template.job_id
        self.user = template.user
        self.queue = template.queue
        self.priority = int(template.priority)
        self.submit = submit
        self.deadline = submit + template.deadline_s if template.deadline_s is not None else INF
        self.n_maps = template.n_maps
        self.n_reduces = template.n_reduces
        self.next_map = 0
        self.next_reduce = 0
        self.running_maps = 0
        self.running_reduces = 0
        # Tracker slots one map / reduce attempt holds (Hadoop 1 memory-based scheduling, model/memory_slots.py).
        self.map_width = 1
        self.reduce_width = 1
        self.finished_maps = 0
        self.finished_reduces = 0
        # JobInProgress.initTasks: completedMapsForReduceSlowstart = ceil(fraction * numMapTasks)
        self.slowstart_threshold = int(math.ceil(slowstart * self.n_maps))
        self.reduces_ready = False
        self.map_stage_done = self.n_maps == 0
        self.last_map_finish = submit
        self.waiting_reduces: list[int] = []
        self.first_wave_count = 0
        self.typical_count = 0
        # Per-task state in typed arrays (8 bytes a float, 4 an index; a list would hold a 24-byte float object
        # per entry): the engine reads them as Python floats and ints, never numpy scalars.
        self.map_dur: array[float] = _NO_FLOATS
        self.reduce_dur: array[float] = _NO_FLOATS
        self.first_shuffle: list[float] = []
        self.typical_shuffle: list[float] = []
        self.start_time = -1.0
        self.finish_time = -1.0
        self.map_start: array[float] = _NO_FLOATS
        self.map_finish: array[float] = _NO_FLOATS
        self.map_tracker: array[int] = _NO_INTS
        self.reduce_start: array[float] = _NO_FLOATS
        self.reduce_shuffle_end: array[float] = _NO_FLOATS
        self.reduce_finish: array[float] = _NO_FLOATS
        self.reduce_tracker: array[int] = _NO_INTS
        # Writable views of the seven arrays above, for the engine's stores on the launch path (see _NO_FLOATS_W);
        # set with the arrays (materialize, release_tasks). Readers use the arrays.
        self.map_start_w: Any = _NO_FLOATS_W
        self.map_finish_w: Any = _NO_FLOATS_W
        self.map_tracker_w: Any = _NO_INTS_W
        self.reduce_start_w: Any = _NO_FLOATS_W
        self.reduce_shuffle_end_w: Any = _NO_FLOATS_W
        self.reduce_finish_w: Any = _NO_FLOATS_W
        self.reduce_tracker_w: Any = _NO_INTS_W
        self.sched: object = None  # free slot for the scheduler's own per-job data
        self.maps_pending = self.n_maps  # not yet launched, or killed and back in the queue
        self.reduces_pending = self.n_reduces
        self.requeued_maps: list[int] = []  # killed tasks waiting to run again (relaunched first)
        self.requeued_reduces: list[int] = []
        self.killed_tasks = 0
        self.wasted_s = 0.0  # slot-seconds of killed attempts
        # Locality (None when the job's maps are rack-local everywhere): split host / rack -> map indices.
        self.host_cache: dict[str, list[int]] | None = None
        self.rack_cache: dict[str, list[int]] | None = None
        self.map_launched: bytearray | None = None
        self.any_cursor = 0
        self.map_locality: array[int] = _NO_LEVELS  # per map: 1 node-local, 2 rack-local, 3 off-switch (0 = not tracked)
        self.spec: dict[int, tuple[int, float, float, float]] | None = None  # gid -> backup (tracker, start, finish, shuffle end)
        self.spec_running = 0  # running backup attempts (they hold tracker slots, not job counts)
        # Indices of launched, not yet reported tasks: kept only when speculation is on (candidate scans).
        self.live_maps: set[int] | None = None
        self.live_reduces: set[int] | None = None
        # Failed attempts to replay before a task succeeds (gid -> durations, s) and the gids now running one.
        self.fail_plan: dict[int, list[float]] | None = None
        self.failing: set[int] | None = None
        # Resource-vector clusters: one request per task type, in ``JobTracker.resource_names`` order (else None).
        self.map_req: tuple[float, ...] | None = None
        self.reduce_req: tuple[float, ...] | None = None
        # Reducer preemption for hanging maps (resource clusters; mrsim/tracker/features/reducer_preemption.py).
        self.last_map_launch = submit  # when the job last got a map container (or became RUNNING)
        self.hang_check = False  # a check event is queued
        self.reduces_held = False  # reduces were preempted: none launch again until every map has launched
        # Federations: each task's datacenter index, the unlaunched task indices per datacenter (popped from the
        # end) and the pending counts per datacenter (never launched or requeued). None on one-site clusters.
        self.map_dc: list[int] | None = None
        self.reduce_dc: list[int] | None = None
        self.dc_maps: list[list[int]] | None = None
        self.dc_reduces: list[list[int]] | None = None
        self.dc_maps_pending: list[int] | None = None
        self.dc_reduces_pending: list[int] | None = None

    def next_first_shuffle(self) -> float:
        """The shuffle duration (s) of the next first-wave reduce: ``first_shuffle`` in launch order, cycled (SimMR
        III-A's non-overlapping part of a first shuffle). A job whose trace had no first-wave reduce draws its
        *typical* array instead, on the same counter as its later-wave reduces: the stand-in array is one sequence
        that the job's reduces take in launch order, each duration once before any twice, however the replay splits
        them between the waves (with two counters, a replay that put 8 of 30 such reduces in the first wave drew
        the first 8 durations twice and never the last 8). O(1)."""
        if self.first_shuffle:
            return self._draw_first()
        if self.typical_shuffle:
            return self._draw_typical()
        return 0.0

    def next_typical_shuffle(self) -> float:
        """The shuffle duration (s, from launch) of the next later-wave reduce: ``typical_shuffle`` in launch order,
        cycled; a job whose trace had no later-wave reduce draws its first-wave array, on the first wave's counter
        (the rule of :meth:`next_first_shuffle`). O(1)."""
        if self.typical_shuffle:
            return self._draw_typical()
        if self.first_shuffle:
            return self._draw_first()
        return 0.0

    def _draw_first(self) -> float:
        """The next duration of the (non-empty) first-wave array on its counter, cycled."""
        first = self.first_shuffle
        k = self.first_wave_count
        self.first_wave_count = k + 1
        return first[k % len(first)]

    def _draw_typical(self) -> float:
        """The next duration of the (non-empty) typical array on its counter, cycled."""
        typical = self.typical_shuffle
        c = self.typical_count
        self.typical_count = c + 1
        return typical[c % len(typical)]

    def materialize(self) -> None:
        """Convert the template's arrays to Python floats once, on arrival (numpy scalars are slow in the loop)."""
        t = self.template
        self.map_dur = _floats(t.map_durations)
        self.reduce_dur = _floats(t.reduce_durations)
        first = t.first_shuffle_durations.tolist()
        typical = t.typical_shuffle_durations.tolist()
        # Kept as recorded (either may be empty): next_first_shuffle / next_typical_shuffle draw from them.
        self.first_shuffle = first
        self.typical_shuffle = typical
        n, r = self.n_maps, self.n_reduces
        self.map_start = _UNSET_FLOAT * n
        self.map_finish = _UNSET_FLOAT * n
        self.map_tracker = _UNSET_INT * n
        self.reduce_start = _UNSET_FLOAT * r
        self.reduce_shuffle_end = _UNSET_FLOAT * r
        self.reduce_finish = _UNSET_FLOAT * r
        self.reduce_tracker = _UNSET_INT * r
        self._make_views()

    def _make_views(self) -> None:
        """The ``*_w`` views of the current per-task arrays (a view pins its array: they are never resized)."""
        self.map_start_w = memoryview(self.map_start)
        self.map_finish_w = memoryview(self.map_finish)
        self.map_tracker_w = memoryview(self.map_tracker)
        self.reduce_start_w = memoryview(self.reduce_start)
        self.reduce_shuffle_end_w = memoryview(self.reduce_shuffle_end)
        self.reduce_finish_w = memoryview(self.reduce_finish)
        self.reduce_tracker_w = memoryview(self.reduce_tracker)

    def release_tasks(self, locality_counts: list[int]) -> None:
        """Drop the per-task arrays of a finished job whose per-task results are not wanted (streaming replays:
        memory then grows with the jobs in flight, not with the trace). Counters and job times stay; the maps'
        final locality levels are added to ``locality_counts`` first (index = level)."""
        for level in (1, 2, 3):
            locality_counts[level] += self.map_locality.count(level)
        self.map_dur = self.reduce_dur = _NO_FLOATS
        self.map_start = self.map_finish = self.reduce_start = self.reduce_shuffle_end = self.reduce_finish = _NO_FLOATS
        self.map_tracker = self.reduce_tracker = _NO_INTS
        self.map_locality = _NO_LEVELS
        self.map_start_w = self.map_finish_w = self.reduce_start_w = _NO_FLOATS_W
        self.reduce_shuffle_end_w = self.reduce_finish_w = _NO_FLOATS_W
        self.map_tracker_w = self.reduce_tracker_w = _NO_INTS_W

    @property
    def pending_maps(self) -> int:
        return self.maps_pending

    @property
    def pending_reduces(self) -> int:
        return self.reduces_pending

    @property
    def done(self) -> bool:
        return self.finish_time >= 0.0

    def __repr__(self) -> str:
        return f"<JobState {self.job_id} maps {self.finished_maps}/{self.n_maps} reduces {self.finished_reduces}/{self.n_reduces}>"


class TrackerState:
    """A TaskTracker as the JobTracker sees it.

    Attributes read by schedulers:
        index, name, host, rack, map_slots, reduce_slots, speed.
        datacenter: index into ``JobTracker.datacenters`` (0 when the cluster is one site).
        capacity / free: per resource (``JobTracker.resource_names`` order) on resource-vector clusters, else None.
        running_maps / running_reduces: slots occupied now, including by tasks launched in this heartbeat (a task
            of a high-RAM job holds ``JobState.map_width`` / ``reduce_width`` slots, ``countOccupiedMapSlots``).
        status_maps / status_reduces: the counts the TaskTracker reported in its last heartbeat (Hadoop's
            ``TaskTrackerStatus.countMapTasks``): what Hadoop's schedulers see during ``assignTasks``.
    """

    __slots__ = (
        "index", "name", "host", "rack", "map_slots", "reduce_slots", "speed", "cores", "datacenter", "capacity", "free",
        "running_maps", "running_reduces", "status_maps", "status_reduces",
        "reports", "aux_reports", "next_hb", "phase", "hb_k", "hb_stamp", "hb_requested", "waiting_change", "busy_map_time", "busy_reduce_time",
    )

    def __init__(self, index: int, name: str, rack: str, map_slots: int, reduce_slots: int, speed: float,
                 cores: int, phase: float) -> None:
        self.index = index
        self.name = name
        self.host = name
        self.rack = rack
        self.map_slots = map_slots
        self.reduce_slots = reduce_slots
        self.speed = speed
        self.cores = cores
        self.running_maps = 0
        self.running_reduces = 0
        self.status_maps = 0
        self.status_reduces = 0
        self.reports: list[int] = []
        self.aux_reports: list[int] = []  # setup/cleanup completions to report
        self.next_hb = INF
        self.phase = phase
        self.hb_stamp = 0
        self.hb_k = 0
        self.hb_requested = False
        self.waiting_change = False
        self.busy_map_time = 0.0
        self.busy_reduce_time = 0.0
        self.datacenter = 0  # index into JobTracker.datacenters (0 on one-site clusters)
        # Resource-vector clusters: capacity and what is free now, per resource (JobTracker.resource_names order).
        self.capacity: tuple[float, ...] | None = None
        self.free: list[float] | None = None

    @property
    def free_map_slots(self) -> int:
        return self.map_slots - self.running_maps

    @property
    def free_reduce_slots(self) -> int:
        return self.reduce_slots - self.running_reduces

    def __repr__(self) -> str:
        return f"<TrackerState {self.name} maps {self.running_maps}/{self.map_slots} reduces {self.running_reduces}/{self.reduce_slots}>"
