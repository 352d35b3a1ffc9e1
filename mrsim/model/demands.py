"""Per-task service demands for contention-aware replay (TDAM, dissertation sections 5.2, 6.3 and 6.5).

A *service demand* is the total time a task needs at one resource, in seconds: CPU seconds summed over the task's
life, seconds of disk service, and (optionally) memory-stall seconds. CA-Mumak took them as a third input beside
the trace and the cluster (section 6.5: "a set of service demands (CPU and I/O) for various tasks of the jobs",
measured by running tasks in isolation). Templates carry them as ``map_demands`` / ``reduce_demands`` arrays of
shape ``(n_tasks, len(demand_resources))`` (:class:`mrsim.model.templates.JobTemplate`). This module fills them from:

a. a **job spec file** (:mod:`mrsim.profiler.jobspec`), whose ``map_demand`` / ``reduce_demand`` tables use the
   same parser as here (:func:`parse_demand`);
b. **trace counters** (:func:`mrsim.profiler.demands.apply_trace_demands`, which reads a trace): CPU from the successful attempt's
   ``resourceUsageMetrics.cumulativeCpuUsage`` (Hadoop's ``CPU_MILLISECONDS`` counter, ms), disk from the bytes it
   read and wrote (``hdfsBytesRead + hdfsBytesWritten + fileBytesRead + fileBytesWritten``) divided by a disk
   bandwidth (default :data:`DEFAULT_DISK_MB_S` MB/s, 1 MB = 10^6 bytes);
c. a **demand table** keyed by job name (:func:`load_demand_table`, :func:`apply_demand_table`), CSV or TOML.

How the engine reads a row (:func:`demand_rows`): the node model knows a CPU and disks only (``docs/contention.md``,
the chapter-4 model "without memory contention" that TDAM used), so ``memory`` seconds are stall time spent on a
core and are **added to the CPU demand**; ``disk`` seconds are striped over the node's disks. A template with no
demands falls back to :func:`fallback_rows`: the trace duration as CPU demand, so a task alone on an idle node of
speed 1 takes exactly its trace duration.

Reduce demands describe the reduce *after* its shuffle: the engine keeps the shuffle time-based (network, not
modelled, as in the dissertation, which leaves shuffle and reduce modelling to future work, section 7.2).
Counter-derived reduce demands therefore include the shuffle's CPU (the counter covers the whole attempt).

Costs: parsing is linear in the file; :func:`demand_columns` (what the engine calls) is O(tasks) once per job
arrival.
"""

from __future__ import annotations

import csv
import enum
import io
import math
import os
import tomllib
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from mrsim.errors import InputError
from mrsim.io.safe_open import check_input_file
from mrsim.model.templates import DEMAND_RESOURCES, JobTemplate, Workload

#: Disk bandwidth used to turn counter bytes into disk seconds when none is given (MB/s, 1 MB = 10^6 bytes).
#: An assumption, not a measurement: a 2010-era 7200 rpm SATA disk streams about 100 MB/s.
DEFAULT_DISK_MB_S = 100.0
BYTES_PER_MB = 1e6

#: Rumen attempt fields whose bytes count as disk traffic (``-1`` = unknown, counted as 0).
DISK_BYTE_FIELDS: tuple[str, ...] = ("hdfsBytesRead", "hdfsBytesWritten", "fileBytesRead", "fileBytesWritten")

#: Name of the demand-table row that applies to jobs no other row names.
DEFAULT_ROW = "*"


class TaskKind(enum.Enum):
    """Which of a job's task arrays a demand belongs to."""

    MAP = "map"
    REDUCE = "reduce"


@dataclass(frozen=True, slots=True)
class TaskDemand:
    """One task's service demands (s): CPU, disk (before striping over disks), memory stall."""

    cpu: float = 0.0
    disk: float = 0.0
    memory: float = 0.0

    def row(self) -> tuple[float, float, float]:
        """The demand in :data:`mrsim.model.templates.DEMAND_RESOURCES` order."""
        return (self.cpu, self.disk, self.memory)

    @property
    def total(self) -> float:
        """Time alone on a one-disk node (s): a lone task queues nowhere, so it takes the sum of its demands."""
        return self.cpu + self.disk + self.memory


def parse_demand(value: object, where: str) -> TaskDemand:
    """A ``{cpu = s, disk = s, memory = s}`` table (missing keys are 0) as a :class:`TaskDemand`.

    Raises :class:`InputError` naming ``where`` for a non-table, an unknown resource, or a negative or
    non-finite number.
    """
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected a table like {{ cpu = 98.0, disk = 25.0 }}, got {value!r}")
    unknown = set(value) - set(DEMAND_RESOURCES)
    if unknown:
        raise InputError(f"{where}: unknown resource(s) {', '.join(sorted(map(str, unknown)))} "
                         f"(expected {', '.join(DEMAND_RESOURCES)})")
    parts = {}
    for name in DEMAND_RESOURCES:
        raw = value.get(name, 0.0)
        if isinstance(raw, bool):
            raise InputError(f"{where}: {name} demand must be a number of seconds, got {raw!r}")
        try:
            x = float(raw)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise InputError(f"{where}: {name} demand must be a number of seconds, got {raw!r}") from None
        if not math.isfinite(x) or x < 0:
            raise InputError(f"{where}: {name} demand must be finite and non-negative, got {raw!r}")
        parts[name] = x
    return TaskDemand(**parts)


def uniform_demands(n: int, demand: TaskDemand) -> np.ndarray:
    """An ``(n, 3)`` demand array with every task equal to ``demand``."""
    return np.tile(np.asarray(demand.row(), dtype=np.float64), (n, 1)).reshape(n, len(DEMAND_RESOURCES))


def has_demands(template: JobTemplate) -> bool:
    """Whether every task kind the job has carries demands (a job with no reduces needs no reduce demands)."""
    return (template.n_maps == 0 or template.map_demands is not None) and (
        template.n_reduces == 0 or template.reduce_demands is not None)


def fallback_rows(durations: Sequence[float]) -> list[tuple[float, float, float]]:
    """Documented fallback for tasks without demands: ``(cpu, disk, memory) = (duration, 0, 0)`` in seconds."""
    return [(float(d), 0.0, 0.0) for d in durations]


def demand_rows(template: JobTemplate, kind: TaskKind) -> list[tuple[float, float, float]] | None:
    """Per task ``(cpu_s, disk_s, memory_s)`` as Python floats for the engine, or None when the template has no
    demands.

    Columns are found by name in ``template.demand_resources``. The node decides what memory seconds mean
    (:func:`mrsim.contention.node.layout_vector`): without a memory layer they are stall time spent on a core and
    add to the CPU demand; with chapter 4's memory layer they are ``D_mem``. Raises :class:`InputError` for a
    resource the node model does not have. Cost O(tasks).
    """
    arr = template.map_demands if kind is TaskKind.MAP else template.reduce_demands
    if arr is None:
        return None
    cols = _resource_columns(template)
    if arr.shape[0] == 0:
        return []
    cpu, disk, memory = _columns(template, arr, cols)
    return list(zip(cpu, disk, memory))


def _resource_columns(template: JobTemplate) -> dict[str, int]:
    """Column of each of ``template.demand_resources`` by name; :class:`InputError` for one the node lacks."""
    cols: dict[str, int] = {}
    for col, name in enumerate(template.demand_resources):
        if name not in DEMAND_RESOURCES:
            raise InputError(f"job {template.job_id}: demand resource {name!r} is not in the node model "
                             f"(expected {', '.join(DEMAND_RESOURCES)})")
        cols[name] = col
    return cols


def _columns(template: JobTemplate, arr: np.ndarray,
             cols: dict[str, int]) -> tuple[list[float], list[float], list[float]]:
    n = arr.shape[0]
    zeros = [0.0] * n
    cpu, disk, memory = (arr[:, cols[name]].tolist() if name in cols else zeros for name in ("cpu", "disk", "memory"))
    return cpu, disk, memory


def demand_columns(template: JobTemplate, kind: TaskKind) -> tuple[list[float], list[float], list[float]] | None:
    """The same demands as :func:`demand_rows`, as three lists indexed by task: ``(cpu_s, disk_s, memory_s)``
    (Python floats, s), or None when the template has no demands.

    What the engine keeps per job in flight (``EpochCore.map_rows`` / ``reduce_rows``): three ``tolist`` calls
    per job arrival and no tuple per task (a job's rows as tuples cost about 900 instructions a task in the
    interpreter, most of TDAM's per-job set-up). Lists missing a resource may be one shared list of zeros: they
    are read, never written. Raises :class:`InputError` as :func:`demand_rows` does. Cost O(tasks), in C.
    """
    arr = template.map_demands if kind is TaskKind.MAP else template.reduce_demands
    if arr is None:
        return None
    return _columns(template, arr, _resource_columns(template))


def fallback_columns(durations: np.ndarray) -> tuple[list[float], list[float], list[float]]:
    """:func:`fallback_rows` as three lists (s): the durations as CPU demand, no disk, no memory (one shared list
    of zeros, read only)."""
    cpu: list[float] = np.asarray(durations, dtype=np.float64).tolist()
    zeros = [0.0] * len(cpu)
    return cpu, zeros, zeros


# --------------------------------------------------------------------------------------------- (c) demand table


@dataclass(frozen=True, slots=True)
class JobDemands:
    """Per-task demands for every map and every reduce of a job; None where the table gives none."""

    map: TaskDemand | None = None
    reduce: TaskDemand | None = None


_CSV_COLUMNS = tuple(f"{kind.value}_{res}" for kind in TaskKind for res in DEMAND_RESOURCES)
_TOML_KEYS = {"name", "map_demand", "reduce_demand"}


def load_demand_table(path: str | os.PathLike[str]) -> dict[str, JobDemands]:
    """Read a demand table: job name → per-task demands (s).

    TOML (content not starting with a CSV header line)::

        [[demand]]
        name = "ingest"                       # the job name (Rumen ``jobName``, a spec file's ``name``)
        map_demand = { cpu = 98.0, disk = 25.0 }
        reduce_demand = { cpu = 12.0 }

    CSV, header ``name`` plus any of ``map_cpu, map_disk, map_memory, reduce_cpu, reduce_disk, reduce_memory``;
    a kind's demand exists when one of its cells is non-empty (empty cells are 0). A row named ``*`` applies to
    every job no other row names. Raises :class:`InputError` naming the file and row for any problem.
    """
    p = check_input_file(path)  # a FIFO would block
    text = p.read_text(encoding="utf-8", errors="replace")
    first = next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    if first.replace(" ", "").lower().startswith("name,"):
        return _csv_table(text, str(p))
    return _toml_table(text, str(p))


def _csv_table(text: str, source: str) -> dict[str, JobDemands]:
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    header = [h.strip() for h in reader.fieldnames or ()]
    unknown = set(header) - {"name", *_CSV_COLUMNS}
    if unknown:
        raise InputError(f"{source}: unknown column(s) {', '.join(sorted(unknown))} "
                         f"(expected name, {', '.join(_CSV_COLUMNS)})")
    table: dict[str, JobDemands] = {}
    for row_no, raw in enumerate(reader, start=2):
        row = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        name = row.get("name", "")
        where = f"{source}: line {row_no}"
        if not name:
            raise InputError(f"{where}: empty job name")
        kinds = {}
        for kind in TaskKind:
            cells = {res: row.get(f"{kind.value}_{res}", "") for res in DEMAND_RESOURCES}
            given = {res: v for res, v in cells.items() if v != ""}
            kinds[kind] = parse_demand(given, f"{where} ({kind.value})") if given else None
        _add_row(table, name, JobDemands(kinds[TaskKind.MAP], kinds[TaskKind.REDUCE]), where)
    return table


def _toml_table(text: str, source: str) -> dict[str, JobDemands]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: invalid TOML ({exc})") from None
    extra = set(doc) - {"demand"}
    if extra or not isinstance(doc.get("demand"), list):
        raise InputError(f"{source}: a demand table holds [[demand]] entries only (found {', '.join(sorted(doc)) or 'nothing'})")
    table: dict[str, JobDemands] = {}
    for k, entry in enumerate(doc["demand"]):
        where = f"{source}: demand[{k}]"
        unknown = set(entry) - _TOML_KEYS
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (expected {', '.join(sorted(_TOML_KEYS))})")
        name = str(entry.get("name", "")).strip()
        if not name:
            raise InputError(f"{where}: needs a name")
        m = parse_demand(entry["map_demand"], f"{where} ({name}) map_demand") if "map_demand" in entry else None
        r = parse_demand(entry["reduce_demand"], f"{where} ({name}) reduce_demand") if "reduce_demand" in entry else None
        _add_row(table, name, JobDemands(m, r), where)
    return table


def _add_row(table: dict[str, JobDemands], name: str, row: JobDemands, where: str) -> None:
    if name in table:
        raise InputError(f"{where}: job name {name!r} is listed twice")
    if row.map is None and row.reduce is None:
        raise InputError(f"{where}: job name {name!r} gives no demand")
    table[name] = row


def apply_demand_table(workload: Workload, table: Mapping[str, JobDemands], *, source: str = "demand table") -> Workload:
    """Give every task of each job the table's per-task demand for its job name (or the ``*`` row).

    Jobs the table does not cover keep whatever demands they had (none means the engine's fallback); one warning
    counts them. Cost O(tasks).
    """
    default = table.get(DEFAULT_ROW)
    jobs: list[JobTemplate] = []
    uncovered: list[str] = []
    for t in workload:
        row = table.get(t.name, default) if t.name else default
        if row is None:
            uncovered.append(t.job_id)
            jobs.append(t)
            continue
        changes: dict[str, object] = {}
        if row.map is not None:
            changes["map_demands"] = uniform_demands(t.n_maps, row.map)
        if row.reduce is not None:
            changes["reduce_demands"] = uniform_demands(t.n_reduces, row.reduce)
        if changes:
            changes["demand_resources"] = DEMAND_RESOURCES
        jobs.append(t.with_changes(**changes) if changes else t)
    warnings = list(workload.warnings)
    if uncovered:
        warnings.append(f"{source}: {len(uncovered)} job(s) not named in the table keep their own demands "
                        f"(first: {uncovered[0]})")
    return Workload.of(jobs, source=workload.source, warnings=warnings)
