"""Job spec files: synthetic what-if workloads written by hand (TOML), for contention studies (dissertation ch. 6).

A spec file holds one ``[[job]]`` table per job::

    [[job]]
    id = "ingest"             # required, unique
    submit = 0.0              # s; replays start their clock at the first submission
    maps = 10                 # tasks of each kind (>= 0, not both 0)
    reduces = 0
    user = "alice"            # optional (default "default"); also queue (default "default"), name (default id)
    map_demand = { cpu = 98.0, disk = 25.0 }   # per-task service demands (s): cpu, disk, memory
    # map_stall = 0.31        # PercStalledBackendCycles: cpu is T(1), split by eqs. 4.3-4.4 into cpu + memory
    # map_duration = 123.0    # per-task duration (s) without contention; reduce_duration, reduce_demand alike
    deadline = 600.0          # optional, s after submission
    priority = "HIGH"         # optional: VERY_HIGH, HIGH, NORMAL (default), LOW, VERY_LOW
    map_request = { vcores = 1, memory_mb = 2048 }   # optional: per-task request on resource clusters
    map_datacenters = { us = 6, eu = 4 }             # optional: tasks per datacenter on a federation

``reduce_request`` and ``reduce_datacenters`` alike. Datacenter counts must add up to the task count; tasks are
placed in table order (maps 0-5 in ``us`` above). See ``docs/cluster.md`` for both.

Every task of a kind is identical. A kind with tasks needs ``<kind>_duration`` or ``<kind>_demand`` (or both):

* with only a duration, the task has no demands (``--contention tdam`` then uses its fallback: the duration
  on the CPU);
* with only a demand, the duration (used without ``--contention``) is the demand's total, the time a task alone
  on a one-disk node takes (a lone task queues nowhere, so its response time is the sum of its demands);
* with both, each is used by its own mode.

Shuffles are not described (0 s): spec jobs model the contention of map and reduce work on the nodes.
Unknown keys, bad values and duplicate ids raise :class:`~mrsim.errors.InputError` naming the file and job.
``examples/jobspecs/`` has the dissertation's scenarios; ``docs/tdam.md`` documents the format.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from pathlib import Path
from typing import Mapping

import numpy as np

from mrsim.errors import InputError
from mrsim.io.limits import check_limit
from mrsim.model.demands import TaskDemand, parse_demand, uniform_demands
from mrsim.model.templates import DEMAND_RESOURCES, JobTemplate, Priority, Workload

_JOB_TABLE = re.compile(r"^\s*\[\[\s*job\s*\]\]", re.MULTILINE)
_HEAD_BYTES = 1 << 16

#: 10**11 s is over 3000 years: a larger time or duration is a typo (and would overflow the engine's clock).
MAX_SECONDS = 1e11
_REQUIRED = ("id", "submit", "maps", "reduces")
_OPTIONAL = ("user", "queue", "name", "map_duration", "reduce_duration", "map_demand", "reduce_demand",
             "deadline", "priority", "map_request", "reduce_request", "map_datacenters", "reduce_datacenters",
             "map_stall", "reduce_stall")


def is_jobspec(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a job spec file: a regular file whose first 64 KiB contain a ``[[job]]`` table header.

    Cheap (reads the head only) and content-based, like :mod:`mrsim.profiler.detect`; never raises.
    """
    p = Path(path)
    try:
        if not p.is_file():
            return False
        with p.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    if head.startswith(b"\x1f\x8b"):  # gzip: a trace, not a hand-written spec
        return False
    return _JOB_TABLE.search(head.decode("utf-8", "replace")) is not None


def load_jobspec(path: str | os.PathLike[str]) -> Workload:
    """Read a job spec file into a :class:`~mrsim.model.templates.Workload` (see the module docstring). Cost O(tasks)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such job spec file")
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p}: invalid TOML ({exc})") from None
    except RecursionError:
        raise InputError(f"{p}: invalid TOML (nesting too deep)") from None
    extra = set(doc) - {"job"}
    if extra:
        raise InputError(f"{p}: unknown top-level key(s) {', '.join(sorted(extra))} (a job spec holds [[job]] tables)")
    entries = doc.get("job")
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{p}: no [[job]] table")
    jobs: list[JobTemplate] = []
    seen: set[str] = set()
    for k, entry in enumerate(entries):
        template = _job(entry, f"{p}: job[{k}]")
        if template.job_id in seen:
            raise InputError(f"{p}: job[{k}]: id {template.job_id!r} is used twice")
        seen.add(template.job_id)
        jobs.append(template)
    return Workload.of(jobs, source=str(p))


def _job(entry: Mapping[str, object], where: str) -> JobTemplate:
    missing = [key for key in _REQUIRED if key not in entry]
    jid = str(entry.get("id", "")).strip()
    if jid:
        where = f"{where} (id {jid})"
    if missing:
        raise InputError(f"{where}: missing key(s) {', '.join(missing)}")
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    if not jid:
        raise InputError(f"{where}: empty id")
    submit = _number(entry["submit"], f"{where}: submit", allow_negative=True)
    n_maps = _count(entry["maps"], f"{where}: maps")
    n_reduces = _count(entry["reduces"], f"{where}: reduces")
    if n_maps + n_reduces == 0:
        raise InputError(f"{where}: a job needs at least one map or reduce")
    durations, demands = {}, {}
    for kind, n in (("map", n_maps), ("reduce", n_reduces)):
        duration = _number(entry[f"{kind}_duration"], f"{where}: {kind}_duration") if f"{kind}_duration" in entry else None
        demand = parse_demand(entry[f"{kind}_demand"], f"{where}: {kind}_demand") if f"{kind}_demand" in entry else None
        if f"{kind}_stall" in entry:
            demand = _split_stall(demand, entry[f"{kind}_stall"], f"{where}: {kind}_stall")
        if n and duration is None and demand is None:
            raise InputError(f"{where}: {n} {kind}(s) need {kind}_duration or {kind}_demand")
        durations[kind], demands[kind] = _arrays(n, duration, demand)
    deadline = _number(entry["deadline"], f"{where}: deadline") if "deadline" in entry else None
    if deadline is not None and deadline <= 0:
        raise InputError(f"{where}: deadline must be positive (s after submission), got {deadline}")
    try:
        priority = Priority.parse(entry.get("priority"))
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    extra: dict[str, object] = {"jobspec": True}
    for kind, n in (("map", n_maps), ("reduce", n_reduces)):
        key = f"{kind}_request"
        if key in entry:
            request = entry[key]
            if not isinstance(request, Mapping) or not request:
                raise InputError(f"{where}: {key} must be a table such as {{ vcores = 1, memory_mb = 2048 }}")
            extra[key] = {str(r): _number(a, f"{where}: {key}.{r}") for r, a in request.items()}
        key = f"{kind}_datacenters"
        if key in entry:
            placed = entry[key]
            if not isinstance(placed, Mapping):
                raise InputError(f"{where}: {key} must be a table of task counts such as {{ us = 6, eu = 4 }}")
            counts = {str(d): _count(c, f"{where}: {key}.{d}") for d, c in placed.items()}
            if sum(counts.values()) != n:
                raise InputError(f"{where}: {key} places {sum(counts.values())} task(s) but the job has {n} {kind}(s)")
            extra[key] = counts
    return JobTemplate(
        job_id=jid,
        submit_s=submit,
        map_durations=durations["map"],
        reduce_durations=durations["reduce"],
        name=str(entry.get("name", jid)),
        user=str(entry.get("user", "default")),
        queue=str(entry.get("queue", "default")),
        priority=priority,
        deadline_s=deadline,
        map_demands=demands["map"],
        reduce_demands=demands["reduce"],
        demand_resources=DEMAND_RESOURCES,
        extra=extra,
    )


def _split_stall(demand: TaskDemand | None, value: object, where: str) -> TaskDemand:
    """Eqs. 4.3 and 4.4 (dissertation section 4.3.1): with ``PercStalledBackendCycles`` ``p`` (a fraction), the
    demand's ``cpu`` is ``T(1) = D_core + D_mem`` and splits into ``D_mem = T(1) p`` (memory) and
    ``D_core = T(1) (1 - p)`` (cpu). The total, hence the plain-replay duration, is unchanged."""
    if demand is None:
        raise InputError(f"{where} needs a demand whose cpu is the task's CPU time T(1) (eq. 4.2)")
    if demand.memory:
        raise InputError(f"{where}: give either a stall fraction or a memory demand, not both")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) < 1.0:
        raise InputError(f"{where} must be a fraction in [0, 1) (PercStalledBackendCycles, e.g. 0.31), got {value!r}")
    p = float(value)
    return TaskDemand(cpu=demand.cpu * (1.0 - p), disk=demand.disk, memory=demand.cpu * p)


def _arrays(n: int, duration: float | None, demand: TaskDemand | None) -> tuple[np.ndarray, np.ndarray | None]:
    if duration is None:
        duration = demand.total if demand is not None else 0.0
    return np.full(n, duration, dtype=np.float64), (uniform_demands(n, demand) if demand is not None else None)


def _number(value: object, where: str, *, allow_negative: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where} must be a number of seconds, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or abs(x) > MAX_SECONDS or (x < 0 and not allow_negative):
        raise InputError(f"{where} must be finite{'' if allow_negative else ' and non-negative'}, got {value!r}")
    return x


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where} must be a non-negative integer, got {value!r}")
    check_limit("tasks_per_job", value, where)  # before np.full allocates one slot per task
    return value
