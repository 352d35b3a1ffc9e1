"""Infer the cluster a trace ran on: racks, hosts, and map/reduce slots per host from observed concurrency.

Rules (documented in ``docs/trace-store.md``):

* **Hosts** are the hosts that ran at least one map or reduce attempt (any result: failed and killed attempts
  held a slot too). Split locations (``preferredLocations``) name DataNodes, not necessarily TaskTrackers, and
  are not used. SETUP/CLEANUP attempts (``otherTasks``) are not counted: the engine does not model them.
* **Names** come from the attempt's ``location.layers`` ``[rack, host]``, else its ``hostName`` ``/rack/host``.
  They keep Rumen's JobHistory escapes (``cluster1396\\.secondleveldomain\\.com``) so that they match
  :func:`mrsim.model.cluster.cluster_from_rumen_topology`. A bare host name (0.20 logs name failed attempts without a
  rack) is merged into the same host seen with a rack by another attempt, else placed in the rack a split
  location names it in; a host never seen with a rack goes to ``/default-rack``.
* **Slots**: a host's map (reduce) slots are the maximum number of its map (reduce) attempts running at the same
  instant. Attempt windows are half-open ``[start, finish)`` in ms, at least 1 ms long, so an attempt that
  starts exactly when another finishes reuses its slot. Attempts without a valid start and finish are skipped.
  On 0.20/1.x logs attempt times come from the TaskTracker's own clock, which is the same clock for every
  attempt of one host: per-host concurrency is free of the JobTracker/TaskTracker clock skew.
* The result is a **lower bound** on the configured slots (``mapred.tasktracker.*.tasks.maximum``): a host
  whose slots were never all busy at once in the trace shows fewer. A host that ran only maps gets 0 reduce
  slots, and vice versa.

Per-job peaks (:func:`job_slot_peaks`) apply the same sweep to one job's attempts across all hosts: the map
and reduce slots the job actually held at its busiest (used by ``mrsim validate --isolate``). Across hosts the
0.20 TaskTracker clocks may disagree by their skew, which this cannot correct.

Cost: O(a log a) for a attempts (one sort per host and kind); memory two int64 per attempt.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from collections.abc import Iterable, Iterator, Mapping
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from mrsim.profiler.logged import parse_host, strip_slash
from mrsim.model import memory_slots
from mrsim.model.cluster import DEFAULT_RACK, ClusterSpec, TrackerSpec

if TYPE_CHECKING:
    from mrsim.profiler.plain import PlainJob

MAP, REDUCE = 0, 1
_KINDS = (("mapTasks", "MAP", MAP), ("reduceTasks", "REDUCE", REDUCE))


def _ms(value: object) -> int:
    if type(value) is int:  # nearly every value: one test instead of three
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return -1
    return int(value)


def attempt_host(attempt: Mapping[str, Any]) -> tuple[str | None, str] | None:
    """``(rack, host)`` of an attempt without leading slashes; rack None for a bare host; None if unnamed."""
    loc = attempt.get("location")
    layers = loc.get("layers") if (type(loc) is dict or isinstance(loc, Mapping)) else None
    if layers and len(layers) >= 2:
        return strip_slash(str(layers[0])), strip_slash(str(layers[1]))
    name = attempt.get("hostName")
    if not name:
        return None
    parsed = parse_host(str(name))
    if parsed is not None:
        return strip_slash(parsed[0]), strip_slash(parsed[1])
    return None, strip_slash(str(name))


def iter_attempt_windows(job: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any], int, int]]:
    """``(kind, attempt, start_ms, finish_ms)`` for every map/reduce attempt with a valid window (min 1 ms).

    Malformed parts (a task list that is not a list, a task or attempt that is not an object) are skipped here:
    the template builder reports them as input errors naming the job and field."""
    for key, task_type, kind in _KINDS:
        tasks = job.get(key)
        if not isinstance(tasks, list):
            continue
        for task in tasks:
            if not (type(task) is dict or isinstance(task, Mapping)) or \
                    (task.get("taskType") or task_type) != task_type:
                continue
            attempts = task.get("attempts")
            if not isinstance(attempts, list):
                continue
            for attempt in attempts:
                if not (type(attempt) is dict or isinstance(attempt, Mapping)):
                    continue
                start, finish = attempt.get("startTime"), attempt.get("finishTime")
                if type(start) is not int:  # _ms inline for the usual int: no call per attempt
                    start = _ms(start)
                if type(finish) is not int:
                    finish = _ms(finish)
                if start <= 0 or finish < start:
                    continue
                yield kind, attempt, start, max(finish, start + 1)


def peak_concurrency(starts: np.ndarray, finishes: np.ndarray, weights: np.ndarray | None = None) -> int:
    """The maximum number of half-open intervals ``[start, finish)`` overlapping at one instant (each counted
    ``weights[i]`` times when given: the slots a high-RAM attempt held, :mod:`mrsim.model.memory_slots`).

    Finishes sort before starts at the same instant, so back-to-back intervals count once. Cost: O(n log n).
    """
    if starts.size == 0:
        return 0
    times = np.concatenate([finishes, starts])
    w = np.ones(starts.size, np.int64) if weights is None else np.asarray(weights, np.int64)
    deltas = np.concatenate([-w, w])
    order = np.lexsort((deltas, times))
    return int(np.cumsum(deltas[order]).max())


#: What :func:`iter_attempt_windows` yields for one job, computed once and shared by the collectors of a pass.
Windows = "list[tuple[int, Mapping[str, Any], int, int]]"


def job_slot_peaks(job: Mapping[str, Any], windows: Windows | None = None) -> tuple[int, int]:
    """``(peak concurrent map attempts, peak concurrent reduce attempts)`` of one job, across all hosts
    (``windows``: the job's :func:`iter_attempt_windows`, when the caller has them)."""
    starts: tuple[list[int], list[int]] = ([], [])
    ends: tuple[list[int], list[int]] = ([], [])
    for kind, _attempt, start, finish in (iter_attempt_windows(job) if windows is None else windows):
        starts[kind].append(start)
        ends[kind].append(finish)
    return tuple(peak_concurrency(np.asarray(starts[k], np.int64), np.asarray(ends[k], np.int64))
                 for k in (MAP, REDUCE))  # type: ignore[return-value]


def plain_slot_peaks(plain: "PlainJob") -> tuple[int, int]:
    """:func:`job_slot_peaks` of a plain job (:mod:`mrsim.profiler.plain`) from its columns: every attempt has a
    valid window, at least 1 ms long."""
    n = plain.n_maps
    _ts, _tf, starts, finishes = plain.arrays()
    ends = np.maximum(finishes, starts + 1)
    return peak_concurrency(starts[:n], ends[:n]), peak_concurrency(starts[n:], ends[n:])


@dataclass(frozen=True)
class HostSlots:
    """One inferred TaskTracker: rack and host as logged (escapes kept, no leading slash) and peak slots."""

    rack: str
    host: str
    map_slots: int
    reduce_slots: int
    attempts: int
    # Peak concurrent attempts, one per attempt, where memory-based scheduling made the slots differ (else None):
    # the cluster of ``--memory-slots off``.
    map_tasks: int | None = None
    reduce_tasks: int | None = None

    def as_dict(self) -> dict[str, Any]:
        d = {"rack": self.rack, "host": self.host, "map_slots": self.map_slots,
             "reduce_slots": self.reduce_slots, "attempts": self.attempts}
        for key, value, slots in (("map_tasks", self.map_tasks, self.map_slots),
                                  ("reduce_tasks", self.reduce_tasks, self.reduce_slots)):
            if value is not None and value != slots:
                d[key] = value
        return d


def _columns(count: int) -> tuple["array[int]", ...]:
    """``count`` empty int64 columns (8 bytes a value; a list of Python ints costs about 40)."""
    return tuple(array("q") for _ in range(count))


class SlotUsage:
    """Collects attempt windows per host from jobs as they stream past; :meth:`hosts` infers the slots.

    ``for job in usage.observe(iter_logged_jobs(path)): ...`` leaves the usage filled.
    """

    def __init__(self) -> None:
        # Per host: map starts, map ends, reduce starts, reduce ends (epoch ms), int64 columns (_columns).
        self._windows: dict[str, tuple[Any, ...]] = {}
        self._rack: dict[str, str] = {}
        self._split_rack: dict[str, str] = {}
        self.attempts = 0
        self.unnamed = 0  # attempts with a window but no host name
        # Memory-based scheduling: per host and kind, the index of each attempt's job into _job_mb, and per job
        # its (map MB, reduce MB) and memory keys; the slots an attempt held are only known once every conf is
        # read (the cluster's slot memory, mrsim.model.memory_slots), so weights are applied in hosts().
        self._jobs: dict[str, tuple[Any, ...]] = {}
        self._confs: list[dict[str, str]] = []
        self._named: dict[str, tuple[str | None, str] | None] = {}  # hostName -> attempt_host (no location)

    def _add_split_racks(self, job: Mapping[str, Any]) -> None:
        for key in ("mapTasks", "reduceTasks"):  # split locations name racks of hosts logged bare
            for task in job.get(key) or ():
                for loc in task.get("preferredLocations") or ():
                    layers = loc.get("layers") if (type(loc) is dict or isinstance(loc, Mapping)) else None
                    if layers and len(layers) >= 2:
                        self._split_rack.setdefault(strip_slash(str(layers[1])), strip_slash(str(layers[0])))

    def _add_conf(self, job: Mapping[str, Any]) -> None:
        props = job.get("jobProperties")
        conf = {k: str(v) for k, v in props.items() if k in memory_slots.ALL_KEYS} if isinstance(props, Mapping) else {}
        self._confs.append(conf)

    def add_job(self, job: Mapping[str, Any], windows: Windows | None = None) -> None:
        """Add one job's attempts (``windows``: its :func:`iter_attempt_windows`, when the caller has them)."""
        self._add_split_racks(job)
        self._add_conf(job)
        job_index = len(self._confs) - 1
        named = self._named
        for kind, attempt, start, finish in (iter_attempt_windows(job) if windows is None else windows):
            name = attempt.get("hostName")
            if type(name) is str and name and "location" not in attempt:
                # attempt_host depends on the name alone here: parsed once per distinct name
                where = named.get(name)
                if where is None:
                    where = named[name] = attempt_host(attempt)
            else:
                where = attempt_host(attempt)
            if where is None:
                self.unnamed += 1
                continue
            rack, host = where
            if rack is not None and host not in self._rack:
                self._rack[host] = rack
            lists = self._windows.get(host)
            if lists is None:
                lists = self._windows[host] = _columns(4)
                self._jobs[host] = _columns(2)
            for column, value in ((2 * kind, start), (2 * kind + 1, finish)):
                try:
                    lists[column].append(value)
                except OverflowError:  # a time beyond int64: plain lists, which hosts() refuses as it always did
                    lists = self._windows[host] = tuple(list(values) for values in lists)  # type: ignore[assignment]
                    lists[column].append(value)
            self._jobs[host][kind].append(job_index)
            self.attempts += 1

    def add_plain(self, job: Mapping[str, Any], plain: "PlainJob") -> None:
        """:meth:`add_job` of a plain job (:mod:`mrsim.profiler.plain`), from its columns: every attempt has a window
        and a host name string."""
        if plain.any_locations:
            self._add_split_racks(job)
        self._add_conf(job)
        job_index = len(self._confs) - 1
        named, racks, windows, jobs = self._named, self._rack, self._windows, self._jobs
        n = plain.n_maps
        if not plain.any_attempt_location:
            # Every host comes from its name alone: each distinct name parsed once, then the windows added per
            # host, in attempt order within each (a stable grouping), maps before reduces as in add_job.
            code_of: dict[str, int] = {}
            name_code: dict[str, int] = {}
            for name in dict.fromkeys(plain.host_names):
                where = named.get(name)
                if where is None:
                    where = named[name] = attempt_host({"hostName": name})
                rack, host = where  # type: ignore[misc]  # a non-empty name always names a host
                if rack is not None and host not in racks:
                    racks[host] = rack
                name_code[name] = code_of.setdefault(host, len(code_of))
            codes = np.array([name_code[name] for name in plain.host_names], dtype=np.int64)
            _ts, _tf, starts, finishes = plain.arrays()
            ends = np.maximum(finishes, starts + 1)
            by_host = np.argsort(codes, kind="stable")
            bounds = np.searchsorted(codes[by_host], np.arange(len(code_of) + 1)).tolist()
            starts_list, ends_list = starts[by_host].tolist(), ends[by_host].tolist()
            for g, host in enumerate(code_of):
                lo, hi = bounds[g], bounds[g + 1]
                mid = lo + int(np.searchsorted(by_host[lo:hi], n)) if hi > lo else lo
                lists = windows.get(host)
                if lists is None:
                    lists = windows[host] = _columns(4)
                    jobs[host] = _columns(2)
                for kind, a, b in ((MAP, lo, mid), (REDUCE, mid, hi)):
                    if b > a:
                        lists[2 * kind].extend(starts_list[a:b])
                        lists[2 * kind + 1].extend(ends_list[a:b])
                        jobs[host][kind].extend(repeat(job_index, b - a))
            self.attempts += len(plain.host_names)
            return
        for i, (name, attempt, start, finish) in enumerate(zip(plain.host_names, plain.attempts, plain.attempt_start,
                                                               plain.attempt_finish)):
            if "location" in attempt:
                where = attempt_host(attempt)
            else:
                where = named.get(name)
                if where is None:
                    where = named[name] = attempt_host(attempt)
            if where is None:
                self.unnamed += 1
                continue
            rack, host = where
            if rack is not None and host not in racks:
                racks[host] = rack
            lists = windows.get(host)
            if lists is None:
                lists = windows[host] = _columns(4)
                jobs[host] = _columns(2)
            kind = MAP if i < n else REDUCE
            lists[2 * kind].append(start)
            lists[2 * kind + 1].append(finish if finish > start else start + 1)
            jobs[host][kind].append(job_index)
            self.attempts += 1

    def observe(self, jobs: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        for job in jobs:
            self.add_job(job)
            yield job

    def hosts(self) -> list[HostSlots]:
        """Inferred hosts sorted by (rack, host)."""
        out = []
        default_rack = strip_slash(DEFAULT_RACK)
        # Slots per attempt of each job (1 unless the confs configure memory-based scheduling).
        slot_mb = [memory_slots.cluster_slot_mb(self._confs, kind) for kind in ("map", "reduce")]
        widths = [np.array([memory_slots.slots_per_task(c, kind, slot_mb[k]) for c in self._confs] or [1], np.int64)
                  for k, kind in enumerate(("map", "reduce"))]
        wide = [bool((w > 1).any()) for w in widths]
        for host, (ms, mf, rs, rf) in self._windows.items():
            jobs = self._jobs.get(host, ([], []))
            mw = widths[MAP][np.asarray(jobs[MAP], np.int64)] if wide[MAP] else None
            rw = widths[REDUCE][np.asarray(jobs[REDUCE], np.int64)] if wide[REDUCE] else None
            starts_ends = [(np.asarray(ms, np.int64), np.asarray(mf, np.int64)),
                           (np.asarray(rs, np.int64), np.asarray(rf, np.int64))]
            out.append(HostSlots(
                rack=self._rack.get(host) or self._split_rack.get(host, default_rack), host=host,
                map_slots=peak_concurrency(*starts_ends[MAP], mw),
                reduce_slots=peak_concurrency(*starts_ends[REDUCE], rw),
                attempts=len(ms) + len(rs),
                map_tasks=peak_concurrency(*starts_ends[MAP]) if mw is not None else None,
                reduce_tasks=peak_concurrency(*starts_ends[REDUCE]) if rw is not None else None,
            ))
        return sorted(out, key=lambda h: (h.rack, h.host))


def cluster_from_hosts(hosts: Iterable[HostSlots | Mapping[str, Any]], source: str = "inferred from trace",
                       map_slots: int | None = None, reduce_slots: int | None = None,
                       memory_slots: bool = True) -> ClusterSpec:
    """A :class:`ClusterSpec` with one TaskTracker per host (racks as ``/rack``, like Rumen topologies).

    ``map_slots``/``reduce_slots`` replace the inferred per-host counts when given (the user's flags).
    ``memory_slots`` False: the peak concurrent attempts, one slot each (``map_tasks`` / ``reduce_tasks`` where
    high-RAM attempts made them differ), as inferred before memory-based scheduling.
    """
    trackers = []
    for h in hosts:
        d = h.as_dict() if isinstance(h, HostSlots) else h
        inferred_maps = d["map_slots"] if memory_slots else d.get("map_tasks") or d["map_slots"]
        inferred_reduces = d["reduce_slots"] if memory_slots else d.get("reduce_tasks") or d["reduce_slots"]
        trackers.append(TrackerSpec(
            name=str(d["host"]), rack="/" + str(d["rack"]).strip("/"),
            map_slots=int(inferred_maps) if map_slots is None else map_slots,
            reduce_slots=int(inferred_reduces) if reduce_slots is None else reduce_slots,
        ))
    return ClusterSpec(tuple(trackers), source=source)


def write_cluster(hosts: Iterable[HostSlots | Mapping[str, Any]], path: str, sources: Iterable[str] = ()) -> ClusterSpec:
    """Write the inferred cluster as an mrsim cluster file (``mrsim replay --cluster PATH``), atomically.

    TOML (``[[nodes]]`` tables, ``docs/cluster.md``) unless ``path`` ends in ``.json`` (the same structure as
    JSON). Each node notes how many attempts its slot counts were inferred from. Returns the cluster written.
    """
    import json

    import orjson

    from mrsim.io import atomic_write

    rows = [h.as_dict() if isinstance(h, HostSlots) else dict(h) for h in hosts]
    cluster = cluster_from_hosts(rows, source=path)
    nodes = [{"name": t.name, "rack": t.rack, "map_slots": t.map_slots, "reduce_slots": t.reduce_slots}
             for t in cluster.trackers]
    if path.endswith(".json"):
        with atomic_write(path, "wb") as fh:
            fh.write(orjson.dumps({"nodes": nodes}, option=orjson.OPT_INDENT_2) + b"\n")
        return cluster
    lines = [
        "# mrsim cluster file inferred by `mrsim profile --cluster-out` (see docs/trace-store.md):",
        "# one node per host that ran map/reduce attempts; slots = the most attempts of each kind running at once",
        "# on that host in the trace (a lower bound on mapred.tasktracker.{map,reduce}.tasks.maximum).",
        *(f"# source: {s}" for s in sources),
        "",
    ]
    for node, row in zip(nodes, rows):
        lines += ["[[nodes]]", f"name = {json.dumps(node['name'])}", f"rack = {json.dumps(node['rack'])}",
                  f"map_slots = {node['map_slots']}", f"reduce_slots = {node['reduce_slots']}",
                  f"# {int(row.get('attempts', 0))} attempts observed", ""]
    with atomic_write(path) as fh:
        fh.write("\n".join(lines))
    return cluster
