"""Read a federation job spec (JSON or TOML): datacenters with slot counts and jobs with per-datacenter tasks.

Format (TOML shown; JSON has the same structure, ``.toml`` files are read as TOML, anything else as JSON, gzip
detected from the content)::

    task_duration_s = 1.0            # optional default duration (s) of tasks given only as counts

    [datacenters]                    # name = slots, in datacenter index order
    dc1 = 1
    dc2 = 1

    [[jobs]]
    id = "A"                         # unique
    arrival_s = 0.0                  # >= 0; equal arrivals keep file order
    tasks = { dc1 = 1, dc2 = 10 }    # task counts per datacenter ...
    task_duration_s = 1.0            # ... optionally with this job's own default duration

    [[jobs]]
    id = "B"
    arrival_s = 0.5
    durations_s = { dc1 = [1.0, 2.5] }   # ... or explicit task durations (s) per datacenter, in launch order

A job may give both ``tasks`` and ``durations_s`` only for different datacenters. Cost: linear in file size.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from mrsim.errors import InputError
from mrsim.io.compressed import read_bytes
from mrsim.studies.geo.model import Federation, GeoJob, GeoWorkload

_JOB_KEYS = {"id", "arrival_s", "tasks", "durations_s", "task_duration_s"}
_TOP_KEYS = {"datacenters", "jobs", "task_duration_s"}


def _number(value: Any, where: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"{where}: {what} must be a non-negative number, got {value!r}")
    return float(value)


def parse_spec(doc: Any, source: str = "spec") -> GeoWorkload:
    """Build a workload from an already-decoded spec document (see the module docstring)."""
    if not isinstance(doc, dict):
        raise InputError(f"{source}: expected a table/object at the top level")
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise InputError(f"{source}: unknown key(s) {', '.join(sorted(unknown))} (expected {', '.join(sorted(_TOP_KEYS))})")
    dcs = doc.get("datacenters")
    if not isinstance(dcs, dict) or not dcs:
        raise InputError(f"{source}: 'datacenters' must map each datacenter name to its slot count")
    for name, slots in dcs.items():
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise InputError(f"{source}: datacenter {name}: slots must be a positive integer, got {slots!r}")
    fed = Federation(tuple(str(n) for n in dcs), tuple(dcs.values()))
    default_dur = _number(doc.get("task_duration_s", 1.0), source, "task_duration_s")
    raw_jobs = doc.get("jobs")
    if not isinstance(raw_jobs, list) or not raw_jobs:
        raise InputError(f"{source}: 'jobs' must be a non-empty list")
    jobs = []
    for i, raw in enumerate(raw_jobs):
        where = f"{source}: job #{i + 1}"
        if not isinstance(raw, dict):
            raise InputError(f"{where}: expected a table/object")
        jid = str(raw.get("id", "")).strip()
        if not jid:
            raise InputError(f"{where}: missing 'id'")
        where = f"{source}: job {jid}"
        unknown = set(raw) - _JOB_KEYS
        if unknown:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        arrival = _number(raw.get("arrival_s", 0.0), where, "arrival_s")
        dur = _number(raw.get("task_duration_s", default_dur), where, "task_duration_s")
        per_dc: dict[int, np.ndarray] = {}
        counts = raw.get("tasks", {})
        explicit = raw.get("durations_s", {})
        if not isinstance(counts, dict) or not isinstance(explicit, dict):
            raise InputError(f"{where}: 'tasks' and 'durations_s' must map datacenter names to values")
        for name, n in counts.items():
            d = fed.index(str(name), f"{where}: ")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise InputError(f"{where}: task count for {name} must be a non-negative integer, got {n!r}")
            per_dc[d] = np.full(n, dur)
        for name, values in explicit.items():
            d = fed.index(str(name), f"{where}: ")
            if d in per_dc:
                raise InputError(f"{where}: datacenter {name} given in both 'tasks' and 'durations_s'")
            if not isinstance(values, list):
                raise InputError(f"{where}: durations_s for {name} must be a list of seconds")
            per_dc[d] = np.array([_number(v, where, f"a task duration in {name}") for v in values], dtype=np.float64)
        per_dc = {d: a for d, a in per_dc.items() if a.size}
        if not per_dc:
            raise InputError(f"{where}: has no tasks")
        jobs.append(GeoJob(jid, arrival, tuple(per_dc), tuple(per_dc.values())))
    return GeoWorkload(fed, tuple(jobs), source=source, spec={"kind": "spec", "path": source})


def load_spec(path: str | os.PathLike[str]) -> GeoWorkload:
    """Read a spec file; ``.toml`` (or ``.toml.gz``) as TOML, anything else as JSON."""
    p = Path(path)
    data = read_bytes(p)
    is_toml = p.name.endswith((".toml", ".toml.gz"))
    try:
        if is_toml:
            doc = tomllib.loads(data.decode("utf-8"))
        else:
            doc = orjson.loads(data)
    except (tomllib.TOMLDecodeError, orjson.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: not a valid {'TOML' if is_toml else 'JSON'} job spec ({exc})") from None
    return parse_spec(doc, str(p))
