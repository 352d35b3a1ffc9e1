"""The trace store: SimMR's *trace database* (section III-A), a persistent columnar home for job templates.

Layout of a store directory (format ``mrsim-trace-store``, version :data:`FORMAT_VERSION`)::

    STORE/
      manifest.json          the only file ever rewritten in place (atomically): format, version, counts,
                             the name of the current data directory, the history of what was added, the
                             data files' SHA-256, and last its own checksum (``self_sha256``)
      data-000003-1a2b3c4d/  one immutable version of the data
        jobs.parquet         one row per job: identity, times, outcome, task counts, JSON ``extra``,
                             plus optional per-job observation columns ``obs.<name>`` (float64, NaN = unknown)
        <array>.npy          float64, every job's values concatenated in job-table order:
                             map_durations, reduce_durations, first_shuffle_durations, typical_shuffle_durations,
                             map_demands, reduce_demands (row-major, n_tasks x len(demand_resources))
        <array>.offsets.npy  int64 CSR offsets (n_jobs + 1): job i owns values[offsets[i]:offsets[i + 1]]
        map_locations.hosts.json / .ids.npy / .offsets.npy
                             preferred split hosts: a host dictionary, the flat host ids (int32) and CSR
                             offsets over *all* maps of all jobs (total_maps + 1)
        hosts.parquet        optional: the cluster the traces ran on (rack, host, observed peak map/reduce
                             attempts; see :mod:`mrsim.profiler.topology_infer`)
        background.*         optional (version 2): the inputs of the background estimate
                             (:mod:`mrsim.calibration.background`), one segment per profiled input, complete so
                             that a store's estimate equals its trace's: ``usage_s.npy`` (float64 epoch seconds) +
                             ``usage_delta.npy`` (int8, +1/-1) with CSR ``usage.offsets.npy`` (n_inputs + 1), every
                             map-slot attempt start and end in collection order; ``waits_s.npy`` (float64, n x 2:
                             wait start, end) + ``wait_jobs.json`` (the waiting job's id) with ``waits.offsets.npy``

**Format versions.** Version 1 kept the background's slot usage only near the waits, as (time, level) points in
the manifest; that form is lossy (several usage changes in one millisecond were replayed in level order, not in
event order, so the estimate could differ from the trace's: Gridmix ``3m_stream_trace``). Version 2 keeps the whole
usage as arrays. A version-1 store still loads; its background inputs are converted and flagged ``approximate``
(``mrsim validate`` warns in one line); adding to it rewrites it as the current version and keeps that flag.
Version 3 adds the manifest's own checksum (``self_sha256``, :mod:`mrsim.io.sealed_json`), verified on every
read; a version 1 or 2 manifest loads with a warning that it was not verified.

**Nothing is followed through a symlink** inside the store (:mod:`mrsim.io.confined`): the manifest, the data
directory, each data file and the lock are opened without following one, and a symlink there is an InputError.

**Updates never leave a half-written store.** A new version is written into a fresh directory beside the
current one; the swap is the atomic replace of ``manifest.json`` (``os.replace``); the old version is deleted
only after the swap. A crash before the swap leaves the old manifest pointing at the old, intact data (the
orphaned directory is removed by the next update). Writers take an exclusive ``flock`` on ``STORE/.lock``.

**Incremental, deduplicated.** :func:`add_to_store` keeps the existing job when a job id is already stored and
reports how many were skipped. Appending concatenates arrays; it does not rebuild templates.

**Load cost.** :func:`load_store` reads each array with one ``np.load``, checks every invariant of
:class:`~mrsim.model.templates.JobTemplate` once over the whole flat arrays (vectorised: finite, non-negative,
offsets consistent), then assembles templates whose arrays are read-only *views* of the flat arrays, without
per-job copies or per-job validation. Cost: O(tasks) vectorised + about 3 us of Python per job (+ about
0.3 us per map when split locations are stored). ``benchmarks/bench_store.py`` measures it;
``load_store(path, verify=True)`` goes through the validating constructor instead (slower, same result).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import math
import os
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np
import orjson

from mrsim.errors import InputError
from mrsim.io import atomic_write
from mrsim.io import confined
from mrsim.io.sealed_json import SealError, is_sealed, seal, unseal
from mrsim.io.safe_open import check_input_file
from mrsim.profiler.store_format import FORMAT_NAME, FORMAT_VERSION
from mrsim.model.templates import JobTemplate, Outcome, Priority, Workload

#: Versions this mrsim reads (1: background inputs approximate; 1 and 2: the manifest carries no checksum of its
#: own; see the module docstring).
READABLE_VERSIONS = (1, 2, 3)
#: The first version whose manifest must carry its own checksum (:mod:`mrsim.io.sealed_json`).
SEALED_VERSION = 3
MANIFEST = "manifest.json"
#: A data version being written (``.partial-<pid>-data-*``, the writer's pid); renamed to ``data-*`` once complete
#: (only these are ever cleaned up unasked: by the next update, which holds the lock, so their writer is gone).
PARTIAL_PREFIX = ".partial-"
LOCK = ".lock"
OBS_PREFIX = "obs."

#: Flat float64 per-job arrays, stored as ``<name>.npy`` + ``<name>.offsets.npy``.
DURATION_ARRAYS: tuple[str, ...] = (
    "map_durations", "reduce_durations", "first_shuffle_durations", "typical_shuffle_durations",
)
DEMAND_ARRAYS: tuple[str, ...] = ("map_demands", "reduce_demands")

#: Every :class:`JobTemplate` field the store writes and reads back. A test asserts this equals the dataclass's
#: fields, so a field added to templates cannot be silently dropped by the store.
STORED_FIELDS: frozenset[str] = frozenset({
    "job_id", "submit_s", *DURATION_ARRAYS, "name", "user", "queue", "priority", "outcome", "deadline_s",
    "actual_completion_s", *DEMAND_ARRAYS, "demand_resources", "map_locations", "extra",
})

_PRIORITIES = {p.value: p for p in Priority}
_OUTCOMES = {o.value: o for o in Outcome}
#: The job table and hosts as JSON (optional, written on request: the trace cache's entries have it). A reader
#: that finds it (checksummed like every data file) reads it instead of the two Parquet files and never imports
#: pyarrow, about 0.1 to 0.2 s of a trace-cache hit; other readers and older versions of mrsim ignore it.
JOB_TABLE_JSON = "jobs.json"


class _LazyModule:
    """A module imported on its first attribute use. ``pyarrow`` (and ``pyarrow.parquet``) cost 0.1 to 0.2 s of
    imports; a trace-cache hit that reads :data:`JOB_TABLE_JSON` never needs them."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            import importlib

            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)


pa: Any = _LazyModule("pyarrow")
pq: Any = _LazyModule("pyarrow.parquet")


class _ListColumn(list):
    """A column of :class:`_ListTable`: a list that answers ``to_pylist()`` as a pyarrow column does."""

    def to_pylist(self) -> list[Any]:
        return list(self)


class _ListTable:
    """The job table read from :data:`JOB_TABLE_JSON`: the part of ``pyarrow.Table`` the loaders use
    (``num_rows``, ``column_names``, ``column(name).to_pylist()``), over the same Python values."""

    def __init__(self, columns: dict[str, list[Any]], where: str) -> None:
        if not isinstance(columns, dict) or "job_id" not in columns:
            raise InputError(f"{where}: {JOB_TABLE_JSON} holds no job table")
        n = len(columns["job_id"])
        for name, values in columns.items():
            if not isinstance(values, list) or len(values) != n:
                raise InputError(f"{where}: {JOB_TABLE_JSON}: column {name!r} does not have {n} rows")
        self._columns = {name: _ListColumn(values) for name, values in columns.items()}
        self.num_rows = n
        self.column_names = list(columns)

    def column(self, name: str) -> _ListColumn:
        try:
            return self._columns[name]
        except KeyError:
            raise InputError(f"{JOB_TABLE_JSON}: no column {name!r}") from None


# ------------------------------------------------------------------------------------------- columns


@dataclass
class _Columns:
    """A store version in memory: the job table plus the flat arrays (the on-disk layout, unassembled)."""

    table: pa.Table
    arrays: dict[str, np.ndarray]  # name -> flat values; "<name>.offsets" -> CSR offsets
    location_hosts: list[str] = field(default_factory=list)

    @property
    def n_jobs(self) -> int:
        return self.table.num_rows

    def job_ids(self) -> list[str]:
        return self.table.column("job_id").to_pylist()


def _offsets(lengths: Sequence[int]) -> np.ndarray:
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=out[1:])
    return out


def _flat(parts: list[np.ndarray], dtype: type = np.float64) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype=dtype)


_NUMERIC_ARROW = {"double": np.float64, "int8": np.int8, "int32": np.int32, "int64": np.int64}


def _arrow_array(values: Sequence[Any], type_: pa.DataType) -> pa.Array:
    """``pa.array(values, type=type_)`` for the column types a store writes, built from buffers: ``pa.array``
    imports pandas on its first call (about 0.25 s of a cache miss). Strings, booleans and numbers without
    ``None`` take the buffer path (the same array: NaN stays a value, as ``pa.array`` keeps it); anything else,
    ``pa.array`` itself."""
    n = len(values)
    try:
        if str(type_) in _NUMERIC_ARROW and all(v is not None for v in values):
            data = np.asarray(values, dtype=_NUMERIC_ARROW[str(type_)])
            if data.shape == (n,):
                return pa.Array.from_buffers(type_, n, [None, pa.py_buffer(data)])
        elif type_ == pa.bool_() and all(type(v) is bool for v in values):
            bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
            return pa.Array.from_buffers(type_, n, [None, pa.py_buffer(bits)])
        elif type_ == pa.string() and all(type(v) is str for v in values):
            encoded = [v.encode("utf-8") for v in values]
            offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n), out=offsets[1:])
            if offsets[-1] < 2**31:
                return pa.Array.from_buffers(type_, n, [None, pa.py_buffer(offsets.astype(np.int32)),
                                                        pa.py_buffer(b"".join(encoded))])
    except (UnicodeEncodeError, OverflowError, ValueError, TypeError):
        pass  # pa.array decides, and raises what it always raised
    return pa.array(values, type=type_)


def _extra_json(template: JobTemplate) -> str:
    try:
        return orjson.dumps(dict(template.extra), option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError as exc:
        raise InputError(f"job {template.job_id}: extra is not JSON-serialisable ({exc})") from None


def _columns_from_templates(templates: Sequence[JobTemplate],
                            observations: Mapping[str, Mapping[str, float | None]] | None = None) -> _Columns:
    """Columnise templates (cost: one Python pass over jobs + one concatenation per array)."""
    cols: dict[str, list[Any]] = {k: [] for k in (
        "job_id", "submit_s", "name", "user", "queue", "priority", "outcome", "deadline_s", "actual_completion_s",
        "demand_resources", "has_map_demands", "has_reduce_demands", "has_map_locations", "extra")}
    parts: dict[str, list[np.ndarray]] = {name: [] for name in (*DURATION_ARRAYS, *DEMAND_ARRAYS)}
    lengths: dict[str, list[int]] = {name: [] for name in parts}
    host_ids: dict[str, int] = {}
    loc_ids: list[int] = []
    loc_lengths: list[int] = []
    for t in templates:
        cols["job_id"].append(t.job_id)
        cols["submit_s"].append(float(t.submit_s))
        cols["name"].append(t.name)
        cols["user"].append(t.user)
        cols["queue"].append(t.queue)
        cols["priority"].append(int(t.priority.value))
        cols["outcome"].append(t.outcome.value)
        cols["deadline_s"].append(math.nan if t.deadline_s is None else float(t.deadline_s))
        cols["actual_completion_s"].append(math.nan if t.actual_completion_s is None else float(t.actual_completion_s))
        cols["demand_resources"].append(orjson.dumps(list(t.demand_resources)).decode())
        cols["extra"].append(_extra_json(t))
        for name in DURATION_ARRAYS:
            arr = getattr(t, name)
            parts[name].append(arr)
            lengths[name].append(arr.size)
        for name in DEMAND_ARRAYS:
            arr = getattr(t, name)
            cols[f"has_{name}"].append(arr is not None)
            flat = np.empty(0) if arr is None else arr.reshape(-1)
            parts[name].append(flat)
            lengths[name].append(flat.size)
        cols["has_map_locations"].append(t.map_locations is not None)
        for hosts in t.map_locations or ((),) * t.n_maps:
            loc_lengths.append(len(hosts))
            for host in hosts:
                loc_ids.append(host_ids.setdefault(host, len(host_ids)))
    schema = {
        "job_id": pa.string(), "submit_s": pa.float64(), "name": pa.string(), "user": pa.string(),
        "queue": pa.string(), "priority": pa.int8(), "outcome": pa.string(), "deadline_s": pa.float64(),
        "actual_completion_s": pa.float64(), "demand_resources": pa.string(), "has_map_demands": pa.bool_(),
        "has_reduce_demands": pa.bool_(), "has_map_locations": pa.bool_(), "extra": pa.string(),
    }
    table = pa.table({k: _arrow_array(v, schema[k]) for k, v in cols.items()})
    if observations:
        names = sorted({k for obs in observations.values() for k in obs})
        for name in names:
            values = [observations.get(jid, {}).get(name) for jid in cols["job_id"]]
            table = table.append_column(OBS_PREFIX + name, _arrow_array(
                [math.nan if v is None else float(v) for v in values], pa.float64()))
    arrays: dict[str, np.ndarray] = {}
    for name in parts:
        arrays[name] = _flat(parts[name])
        arrays[f"{name}.offsets"] = _offsets(lengths[name])
    arrays["map_locations.ids"] = np.asarray(loc_ids, dtype=np.int32)
    arrays["map_locations.offsets"] = _offsets(loc_lengths)
    return _Columns(table, arrays, list(host_ids))


def _concat(a: _Columns, b: _Columns) -> _Columns:
    """Jobs of ``a`` followed by jobs of ``b`` (host dictionaries merged, observation columns unioned)."""
    arrays: dict[str, np.ndarray] = {}
    for name in (*DURATION_ARRAYS, *DEMAND_ARRAYS):
        arrays[name] = np.concatenate([a.arrays[name], b.arrays[name]])
        ao, bo = a.arrays[f"{name}.offsets"], b.arrays[f"{name}.offsets"]
        arrays[f"{name}.offsets"] = np.concatenate([ao, bo[1:] + ao[-1]])
    hosts = list(a.location_hosts)
    index = {h: i for i, h in enumerate(hosts)}
    remap = np.array([index.setdefault(h, len(index)) for h in b.location_hosts], dtype=np.int32)
    hosts = list(index)
    b_ids = remap[b.arrays["map_locations.ids"]] if remap.size else b.arrays["map_locations.ids"]
    arrays["map_locations.ids"] = np.concatenate([a.arrays["map_locations.ids"], b_ids]).astype(np.int32)
    ao, bo = a.arrays["map_locations.offsets"], b.arrays["map_locations.offsets"]
    arrays["map_locations.offsets"] = np.concatenate([ao, bo[1:] + ao[-1]])
    ta, tb = a.table, b.table
    for name in ta.column_names:
        if name not in tb.column_names:
            tb = tb.append_column(name, pa.array(np.full(tb.num_rows, np.nan), type=ta.schema.field(name).type))
    for name in tb.column_names:
        if name not in ta.column_names:
            ta = ta.append_column(name, pa.array(np.full(ta.num_rows, np.nan), type=tb.schema.field(name).type))
    table = pa.concat_tables([ta, tb.select(ta.column_names)])
    return _Columns(table, arrays, hosts)


# ------------------------------------------------------------------------------------------- background inputs


@dataclass(frozen=True)
class StoredBackground:
    """The inputs of one background estimate (:class:`mrsim.calibration.background.BackgroundCollector`): the
    waits (job id, start, end; epoch seconds) and every map-slot usage change (epoch seconds, +1/-1), in
    collection order. ``approximate``: converted from a version-1 store (usage kept only near the waits)."""

    waits: tuple[tuple[str, float, float], ...]
    usage_s: np.ndarray  # float64
    usage_delta: np.ndarray  # int8
    approximate: bool = False
    # Reduce slots (the same three; the waits already cut where the trace assigned a reduce). Empty in a store
    # written before they were kept: such a store estimates no reduce-slot background.
    reduce_waits: tuple[tuple[str, float, float], ...] = ()
    reduce_usage_s: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.float64))
    reduce_usage_delta: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int8))


def _write_background(directory: Path, inputs: Sequence[StoredBackground]) -> None:
    """The ``background.*`` files of the module docstring (nothing when there is no input); the reduce side in
    ``background.reduce_*`` files of the same layout, written only when some input has reduce-side data."""
    if not inputs:
        return
    _write_background_side(directory, "background.", [(b.waits, b.usage_s, b.usage_delta) for b in inputs])
    reduce_side = [(b.reduce_waits, b.reduce_usage_s, b.reduce_usage_delta) for b in inputs]
    if any(w or len(u) for w, u, _d in reduce_side):
        _write_background_side(directory, "background.reduce_", reduce_side)


def _write_background_side(directory: Path, prefix: str,
                           inputs: Sequence[tuple[tuple[tuple[str, float, float], ...], np.ndarray, np.ndarray]]) -> None:
    usage_s = _flat([np.asarray(u, dtype=np.float64) for _w, u, _d in inputs])
    usage_delta = _flat([np.asarray(d, dtype=np.int8) for _w, _u, d in inputs], np.int8)
    waits_s = np.array([(a, e) for w, _u, _d in inputs for _j, a, e in w], dtype=np.float64).reshape(-1, 2)
    arrays = {
        "usage_s": usage_s, "usage_delta": usage_delta, "usage.offsets": _offsets([len(u) for _w, u, _d in inputs]),
        "waits_s": waits_s, "waits.offsets": _offsets([len(w) for w, _u, _d in inputs]),
    }
    for name, values in arrays.items():
        np.save(directory / f"{prefix}{name}.npy", values, allow_pickle=False)
    (directory / f"{prefix}wait_jobs.json").write_bytes(orjson.dumps([j for w, _u, _d in inputs for j, _a, _e in w]))


def _legacy_background(doc: Mapping[str, Any]) -> StoredBackground:
    """A version-1 manifest entry (waits, and (time, in-use level) points near them) as usage deltas: exact only
    where no two changes share a millisecond, hence ``approximate``."""
    waits = tuple((str(j), float(a), float(b)) for j, a, b in doc.get("waits", ()))
    times: list[float] = []
    deltas: list[int] = []
    last = 0
    for t, level in sorted((float(t), int(v)) for t, v in doc.get("levels", ())):
        if level != last:  # a change of several slots becomes that many unit changes (the collector's form)
            step = 1 if level > last else -1
            times.extend([t] * abs(level - last))
            deltas.extend([step] * abs(level - last))
            last = level
    return StoredBackground(waits, np.array(times, dtype=np.float64), np.array(deltas, dtype=np.int8), True)


def _read_background(store: Path, manifest: Mapping[str, Any], directory: Path,
                     blobs: Mapping[str, bytes] | None = None) -> list[StoredBackground]:
    entries = manifest.get("background_inputs") or []
    if not isinstance(entries, list):
        raise InputError(f"{store}: store manifest 'background_inputs' must be a list")
    if manifest.get("format_version") == 1:
        return [_legacy_background(doc) for doc in entries if isinstance(doc, dict)]
    if not entries:
        return []
    n = len(entries)
    maps = _read_background_side(directory, "background.", n, blobs)
    has_reduce = ("background.reduce_usage_s.npy" in blobs if blobs is not None
                  else (directory / "background.reduce_usage_s.npy").exists())
    reduces = _read_background_side(directory, "background.reduce_", n, blobs) if has_reduce else None
    out = []
    for i, entry in enumerate(entries):
        approximate = bool(entry.get("approximate")) if isinstance(entry, dict) else False
        waits, usage_s, usage_delta = maps[i]
        if reduces is None:
            out.append(StoredBackground(waits, usage_s, usage_delta, approximate))
        else:
            out.append(StoredBackground(waits, usage_s, usage_delta, approximate, *reduces[i]))
    return out


def _read_background_side(directory: Path, prefix: str, n: int, blobs: Mapping[str, bytes] | None = None
                          ) -> list[tuple[tuple[tuple[str, float, float], ...], np.ndarray, np.ndarray]]:
    """(waits, usage times, usage deltas) per input from the ``{prefix}*`` files of :func:`_write_background`
    (from ``blobs``, the files' bytes already read and verified, when given)."""
    names = ("usage_s.npy", "usage_delta.npy", "usage.offsets.npy", "waits_s.npy", "waits.offsets.npy")
    try:
        arrays = {name: _load_npy(directory, f"{prefix}{name}", blobs) for name in names}
        jobs = orjson.loads(_file_bytes(directory, f"{prefix}wait_jobs.json", blobs))
    except FileNotFoundError as exc:
        raise InputError(f"{directory}: trace store data incomplete (missing {Path(exc.filename).name})") from None
    except (OSError, ValueError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{directory}: corrupt trace store background data ({exc})") from None
    usage_s, usage_delta = arrays["usage_s.npy"], arrays["usage_delta.npy"]
    u_offs, w_offs = arrays["usage.offsets.npy"], arrays["waits.offsets.npy"]
    waits_s = arrays["waits_s.npy"]
    if (usage_s.dtype != np.float64 or usage_delta.dtype != np.int8 or usage_s.shape != usage_delta.shape
            or u_offs.shape != (n + 1,) or u_offs[0] != 0 or u_offs[-1] != usage_s.size or np.any(np.diff(u_offs) < 0)
            or waits_s.dtype != np.float64 or waits_s.ndim != 2 or waits_s.shape[1:] != (2,)
            or w_offs.shape != (n + 1,) or w_offs[0] != 0 or w_offs[-1] != len(waits_s) or np.any(np.diff(w_offs) < 0)
            or not isinstance(jobs, list) or len(jobs) != len(waits_s)
            or not np.isfinite(usage_s).all() or not np.isfinite(waits_s).all()
            or not np.isin(usage_delta, (-1, 1)).all()):
        raise InputError(f"{directory}: background arrays do not match the manifest's {n} background input(s)")
    out = []
    starts, ends = waits_s[:, 0].tolist(), waits_s[:, 1].tolist()
    if not all(type(j) is str for j in jobs):
        jobs = [str(j) for j in jobs]
    for i in range(n):
        a, b = int(w_offs[i]), int(w_offs[i + 1])
        waits = tuple(zip(jobs[a:b], starts[a:b], ends[a:b]))
        u0, u1 = int(u_offs[i]), int(u_offs[i + 1])
        out.append((waits, usage_s[u0:u1], usage_delta[u0:u1]))
    return out


def load_background_inputs(path: str | os.PathLike[str]) -> list[StoredBackground]:
    """The stored background inputs, one per profiled input (empty when none were stored); see the module
    docstring for what ``approximate`` means. Cost: one ``np.load`` per array, O(waits) Python."""
    store = Path(path)
    manifest = read_manifest(store)
    return _read_background(store, manifest, _data_dir(store, manifest))


# ------------------------------------------------------------------------------------------- on disk


def _manifest_path(store: Path) -> Path:
    return store / MANIFEST


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The store's manifest (format, version, counts, data directory, sources). Raises InputError if not a store."""
    return _parse_manifest(Path(path), manifest_bytes(path))


def manifest_bytes(path: str | os.PathLike[str]) -> bytes:
    """The raw bytes of the store's manifest (read without following a symlink); InputError if there is none."""
    store = Path(path)
    mpath = _manifest_path(store)
    try:
        return confined.read_file(mpath)
    except FileNotFoundError:
        raise InputError(f"{store}: not an mrsim trace store (no {MANIFEST})") from None
    except confined.Escape as exc:
        raise InputError(f"{mpath}: {exc.strerror}; not read") from None
    except OSError as exc:
        raise InputError(f"{mpath}: cannot read ({exc.strerror or exc})") from None


def _parse_manifest(store: Path, data: bytes) -> dict[str, Any]:
    """The manifest ``data`` holds, its own checksum verified (version 3 on: required; older versions: verified
    when present, so that a flipped version digit cannot skip the check)."""
    mpath = _manifest_path(store)
    try:
        manifest = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{mpath}: corrupt store manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise InputError(f"{store}: {MANIFEST} is not an mrsim trace-store manifest")
    version = manifest.get("format_version")
    if version not in READABLE_VERSIONS or type(version) is not int:
        raise InputError(f"{store}: trace-store format version {version} is not supported (this mrsim reads "
                         f"{', '.join(map(str, READABLE_VERSIONS))})")
    if is_sealed(data) or version >= SEALED_VERSION:
        try:
            manifest = unseal(data)
        except SealError as exc:
            raise InputError(f"{mpath}: corrupt store manifest ({exc}); restore it, or rebuild the "
                             "store") from None
    return manifest


def _legacy_warnings(store: Path, manifest: Mapping[str, Any], verified: bool) -> list[str]:
    """The warnings a store written by an older mrsim gets: data or manifest that cannot be verified."""
    if not verified:
        return []
    if not manifest.get("checksums"):
        return [f"{store}: store has no checksums (written by an older mrsim); data not verified"]
    if manifest.get("format_version", SEALED_VERSION) < SEALED_VERSION:
        return [f"{store}: store manifest has no checksum of its own (format version "
                f"{manifest.get('format_version')}, written by an older mrsim); manifest not verified (adding "
                "to the store rewrites it)"]
    return []


def is_store(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a directory holding a trace-store manifest of a readable version (its checksum is not
    checked here: a store whose manifest changed is a store, and reading it is the error). Cheap: reads one small
    file."""
    store = Path(path)
    if not store.is_dir() or not _manifest_path(store).is_file():
        return False
    try:
        manifest = orjson.loads(manifest_bytes(store))
    except (InputError, orjson.JSONDecodeError):
        return False
    return (isinstance(manifest, dict) and manifest.get("format") == FORMAT_NAME
            and manifest.get("format_version") in READABLE_VERSIONS)


def _write_columns(directory: Path, cols: _Columns, hosts: pa.Table | None,
                   backgrounds: Sequence[StoredBackground] = (), job_table_json: bool = False) -> dict[str, str]:
    """Write one data version into ``directory`` (new); returns ``{file name: sha256}`` for the manifest.
    ``job_table_json``: also :data:`JOB_TABLE_JSON` (when the table can be written exactly as JSON)."""
    directory.mkdir()
    _write_background(directory, backgrounds)
    pq.write_table(cols.table, directory / "jobs.parquet", compression="zstd")
    if job_table_json:
        doc = _job_table_json(cols.table, hosts)
        if doc is not None:
            (directory / JOB_TABLE_JSON).write_bytes(doc)
    for name, values in cols.arrays.items():
        np.save(directory / f"{name}.npy", values, allow_pickle=False)
    (directory / "map_locations.hosts.json").write_bytes(orjson.dumps(cols.location_hosts))
    if hosts is not None:
        pq.write_table(hosts, directory / "hosts.parquet")
    # Durability before the swap: the manifest must never point at data still in the page cache only.
    checksums: dict[str, str] = {}
    for child in sorted(directory.iterdir()):
        with open(child, "rb") as fh:
            os.fsync(fh.fileno())
            checksums[child.name] = hashlib.file_digest(fh, "sha256").hexdigest()
    return checksums


#: Float columns where NaN means "unknown" and reads back as None (so a JSON null is the same value).
_NULLABLE_FLOATS = ("deadline_s", "actual_completion_s")


def _job_table_json(table: pa.Table, hosts: pa.Table | None) -> bytes | None:
    """:data:`JOB_TABLE_JSON`'s bytes: every column as the list ``to_pylist`` gives, and the host rows as
    :func:`_hosts_rows` gives them; None when JSON cannot hold the values exactly (an infinity, a NaN outside the
    nullable columns, a string that is not valid UTF-8), and then the readers use the Parquet files."""
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    for name, values in columns.items():
        nullable = name in _NULLABLE_FLOATS or name.startswith(OBS_PREFIX)
        for v in values:
            if type(v) is float and not math.isfinite(v) and not (nullable and v != v):
                return None
    try:
        return orjson.dumps({"columns": columns, "hosts": _hosts_rows(hosts)})
    except orjson.JSONEncodeError:
        return None


def _file_bytes(directory: Path, name: str, blobs: Mapping[str, bytes] | None) -> bytes:
    """A data file's bytes: from ``blobs`` (read and verified once) when it has them, else from the file."""
    if blobs is not None:
        if name in blobs:
            return blobs[name]
        raise InputError(f"{directory / name}: not covered by the store manifest's checksums; not read")
    return _read_data(directory, name)


def _read_data(directory: Path, name: str) -> bytes:
    """One data file's bytes, never through a symlink; InputError naming it otherwise."""
    path = _inside(directory, name)
    try:
        return confined.read_file(path)
    except FileNotFoundError:
        raise InputError(f"{directory}: trace store data incomplete (missing {name})") from None
    except confined.Escape as exc:
        raise InputError(f"{path}: {exc.strerror}; not read") from None


def _load_npy(directory: Path, name: str, blobs: Mapping[str, bytes] | None) -> np.ndarray:
    return np.load(io.BytesIO(_file_bytes(directory, name, blobs)), allow_pickle=False)


def _read_verified(directory: Path, checksums: Mapping[str, str]) -> dict[str, bytes]:
    """Every data file the manifest lists, read once and checked against its sha256 (the loaders parse these
    bytes: one read per file); an :class:`InputError` names the first file that is missing or differs."""
    blobs: dict[str, bytes] = {}
    for name, expected in sorted(checksums.items()):
        path = directory / name
        data = _read_data(directory, name)
        if hashlib.sha256(data).hexdigest() != expected:
            raise InputError(f"{path}: checksum mismatch (the file changed after mrsim wrote it: corrupt data; "
                             "restore it, or load with --no-verify at your own risk)")
        blobs[name] = data
    return blobs


def _inside(base: Path, name: object) -> Path:
    """``base / name`` when ``name`` is a plain file name that stays inside ``base``; else an InputError (a
    manifest naming ``../../etc`` must not make mrsim read outside the store)."""
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise InputError(f"{base}: store manifest names {name!r}, not a file or directory inside the store")
    path = base / name
    if path.is_symlink() or not path.resolve().is_relative_to(base.resolve()):
        raise InputError(f"{base}: store manifest names {name!r}, which is a symlink or resolves outside the "
                         "store (never followed)")
    return path


def _array_names() -> Iterator[str]:
    for name in (*DURATION_ARRAYS, *DEMAND_ARRAYS):
        yield name
        yield f"{name}.offsets"
    yield "map_locations.ids"
    yield "map_locations.offsets"


def _read_columns(directory: Path, blobs: Mapping[str, bytes] | None = None, job_table_json: bool = False
                  ) -> tuple[_Columns, Any]:
    """The data version's columns and its hosts (a ``pyarrow.Table``, or with ``job_table_json`` and a
    :data:`JOB_TABLE_JSON` file, a list of host rows; None when no hosts were stored). ``blobs``: the files'
    bytes, already read and verified (:func:`_read_verified`)."""
    try:
        json_table = job_table_json and (JOB_TABLE_JSON in blobs if blobs is not None
                                         else (directory / JOB_TABLE_JSON).exists())
        hosts: Any
        if json_table:  # no pyarrow import: the same values as the Parquet files (_job_table_json)
            doc = orjson.loads(_file_bytes(directory, JOB_TABLE_JSON, blobs))
            if not isinstance(doc, dict):
                raise ValueError(f"{JOB_TABLE_JSON} is not an object")
            table: Any = _ListTable(doc.get("columns"), str(directory))
            hosts = doc.get("hosts")
            if hosts is not None and not (isinstance(hosts, list) and all(isinstance(h, dict) for h in hosts)):
                raise ValueError(f"{JOB_TABLE_JSON}: hosts is not a list of objects")
        else:
            # ParquetFile.read, not pq.read_table: the latter imports pyarrow.dataset and with it pandas (~0.7 s).
            table = pq.ParquetFile(_parquet_source(directory, "jobs.parquet", blobs)).read()
            has_hosts = "hosts.parquet" in blobs if blobs is not None else (directory / "hosts.parquet").exists()
            hosts = pq.ParquetFile(_parquet_source(directory, "hosts.parquet", blobs)).read() if has_hosts else None
        arrays = {name: _load_npy(directory, f"{name}.npy", blobs) for name in _array_names()}
        hosts_list = orjson.loads(_file_bytes(directory, "map_locations.hosts.json", blobs))
    except FileNotFoundError as exc:
        raise InputError(f"{directory}: trace store data incomplete (missing {Path(exc.filename).name})") from None
    except (OSError, ValueError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{directory}: corrupt trace store data ({exc})") from None
    except Exception as exc:
        if "pyarrow" in sys.modules and isinstance(exc, pa.ArrowException):
            raise InputError(f"{directory}: corrupt trace store data ({exc})") from None
        raise
    return _Columns(table, arrays, hosts_list), hosts


def _parquet_source(directory: Path, name: str, blobs: Mapping[str, bytes] | None) -> Any:
    """What ``pq.ParquetFile`` reads: the verified bytes when there are some, else the file."""
    return pa.BufferReader(_file_bytes(directory, name, blobs))


def _data_dir(store: Path, manifest: Mapping[str, Any]) -> Path:
    """The current data directory, confined to the store."""
    return _inside(store, manifest.get("data"))


def _current(store: Path, verify: bool = True, job_table_json: bool = False
             ) -> tuple[dict[str, Any], _Columns, Any, dict[str, bytes] | None]:
    """Manifest, data, hosts (see :func:`_read_columns`) and, when verified, every data file's bytes, of the
    current version (checksums verified unless ``verify`` is False: each file read once, hashed, then parsed from
    those bytes); retried once if a concurrent update swapped it meanwhile."""
    for attempt in (0, 1):
        manifest = read_manifest(store)
        try:
            directory = _data_dir(store, manifest)
            checksums = manifest.get("checksums")
            if checksums is not None and not isinstance(checksums, dict):
                raise InputError(f"{store}: store manifest 'checksums' must be an object")
            blobs = _read_verified(directory, checksums) if verify and checksums else None
            cols, hosts = _read_columns(directory, blobs, job_table_json)
        except InputError:
            if attempt == 0 and read_manifest(store).get("data") != manifest.get("data"):
                continue
            raise
        return manifest, cols, hosts, blobs
    raise AssertionError("unreachable")


# ------------------------------------------------------------------------------------------- assemble


def _check(cols: _Columns, where: str) -> None:
    """Every template invariant, checked once over the flat arrays (O(values), vectorised)."""
    n = cols.n_jobs
    for name in (*DURATION_ARRAYS, *DEMAND_ARRAYS):
        values, offs = cols.arrays[name], cols.arrays[f"{name}.offsets"]
        if values.dtype != np.float64 or values.ndim != 1:
            raise InputError(f"{where}: {name} is not a flat float64 array")
        if offs.shape != (n + 1,) or offs[0] != 0 or offs[-1] != values.size or np.any(np.diff(offs) < 0):
            raise InputError(f"{where}: {name} offsets do not match the job table ({n} jobs)")
        if values.size and (not np.isfinite(values).all() or (values < 0).any()):
            raise InputError(f"{where}: {name} holds negative or non-finite values")
    n_maps = np.diff(cols.arrays["map_durations.offsets"])
    loc_offs, loc_ids = cols.arrays["map_locations.offsets"], cols.arrays["map_locations.ids"]
    if loc_offs.shape != (int(n_maps.sum()) + 1,) or loc_offs[-1] != loc_ids.size:
        raise InputError(f"{where}: map_locations offsets do not match the maps")
    if loc_ids.size and (loc_ids.min() < 0 or loc_ids.max() >= len(cols.location_hosts)):
        raise InputError(f"{where}: map_locations refer to unknown hosts")
    if not set(cols.table.column("priority").to_pylist()) <= set(_PRIORITIES):
        raise InputError(f"{where}: unknown priority value in the job table")


def _views(values: np.ndarray, offsets: list[int], empty: np.ndarray) -> list[np.ndarray]:
    """Per-job read-only views of a flat array (one shared empty array for empty segments: no allocation)."""
    return [values[a:b] if a != b else empty for a, b in zip(offsets, offsets[1:])]


def _templates(cols: _Columns, where: str, verify: bool) -> list[JobTemplate]:
    t = cols.table
    # to_pylist throughout: ChunkedArray.to_numpy imports pandas (slow cold start), and Python values are needed.
    ids = t.column("job_id").to_pylist()
    n = len(ids)
    submit = t.column("submit_s").to_pylist()
    names = t.column("name").to_pylist()
    users = t.column("user").to_pylist()
    queues = t.column("queue").to_pylist()
    prios = [_PRIORITIES[p] for p in t.column("priority").to_pylist()]
    outcomes = [_OUTCOMES.get(o, Outcome.UNKNOWN) for o in t.column("outcome").to_pylist()]
    deadline = [None if d != d else d for d in t.column("deadline_s").to_pylist()]
    actual = [None if a != a else a for a in t.column("actual_completion_s").to_pylist()]
    resources_cache: dict[str, tuple[str, ...]] = {}
    resources = [resources_cache.setdefault(r, tuple(orjson.loads(r))) for r in t.column("demand_resources").to_pylist()]
    extras = [{} if e == "{}" else orjson.loads(e) for e in t.column("extra").to_pylist()]

    arrays = cols.arrays
    for values in arrays.values():
        values.setflags(write=False)  # template arrays are read-only views of these
    empty = np.empty(0, dtype=np.float64)
    empty.setflags(write=False)
    offs = {name: arrays[f"{name}.offsets"].tolist() for name in (*DURATION_ARRAYS, *DEMAND_ARRAYS)}
    views = {name: _views(arrays[name], offs[name], empty) for name in DURATION_ARRAYS}

    demands: dict[str, list[np.ndarray | None]] = {}
    for name, has_col, rows_of in (("map_demands", "has_map_demands", "map_durations"),
                                   ("reduce_demands", "has_reduce_demands", "reduce_durations")):
        out_d: list[np.ndarray | None] = [None] * n
        o, rows = offs[name], offs[rows_of]
        for i, has in enumerate(t.column(has_col).to_pylist()):
            if has:
                n_rows, k = rows[i + 1] - rows[i], len(resources[i])
                if o[i + 1] - o[i] != n_rows * k:
                    raise InputError(f"{where}: job {ids[i]}: {name} size does not match its tasks")
                out_d[i] = arrays[name][o[i]:o[i + 1]].reshape(n_rows, k)
        demands[name] = out_d

    locations: list[tuple[tuple[str, ...], ...] | None] = [None] * n
    has_loc = t.column("has_map_locations").to_pylist()
    if any(has_loc):
        loc_offs = arrays["map_locations.offsets"].tolist()
        loc_ids = arrays["map_locations.ids"].tolist()
        host_of = cols.location_hosts.__getitem__
        map_offs = offs["map_durations"]
        for i, has in enumerate(has_loc):
            if has:
                locations[i] = tuple(
                    tuple(map(host_of, loc_ids[loc_offs[m]:loc_offs[m + 1]])) for m in range(map_offs[i], map_offs[i + 1])
                )

    rows = zip(ids, submit, views["map_durations"], views["reduce_durations"], views["first_shuffle_durations"],
               views["typical_shuffle_durations"], names, users, queues, prios, outcomes, deadline, actual,
               demands["map_demands"], demands["reduce_demands"], resources, locations, extras)
    out: list[JobTemplate] = []
    new = object.__new__
    set_ = object.__setattr__
    for jid, sub, md, rd, fs, ts, nm, us, qu, pr, oc, dl, ac, mdm, rdm, res, loc, ex in rows:
        values = {"job_id": jid, "submit_s": sub, "map_durations": md, "reduce_durations": rd,
                  "first_shuffle_durations": fs, "typical_shuffle_durations": ts, "name": nm, "user": us, "queue": qu,
                  "priority": pr, "outcome": oc, "deadline_s": dl, "actual_completion_s": ac, "map_demands": mdm,
                  "reduce_demands": rdm, "demand_resources": res, "map_locations": loc, "extra": ex}
        if verify:
            out.append(JobTemplate(**values))
        else:
            # Frozen dataclasses guard __setattr__ only; every value was validated in bulk by _check.
            template = new(JobTemplate)
            set_(template, "__dict__", values)
            out.append(template)
    return out


@dataclass(frozen=True)
class StoreContents:
    """Everything a store holds, read at once (:func:`load_store_contents`). The observations and the background
    inputs are built from the bytes already read and verified when first asked for (:meth:`observations`,
    :meth:`backgrounds`): a replay reads neither (0.03 to 0.1 s of a trace-cache hit on the 1148-job trace,
    mostly the 40,000 reduce-slot waits)."""

    manifest: dict[str, Any]
    workload: Workload
    hosts: list[dict[str, Any]] | None
    _cols: _Columns
    _read_backgrounds: Any  # () -> list[StoredBackground]

    def observations(self) -> dict[str, dict[str, float | None]]:
        return _observations(self._cols)

    def backgrounds(self) -> list[StoredBackground]:
        return self._read_backgrounds()


def load_store_contents(path: str | os.PathLike[str], *, checksums: bool = True) -> StoreContents:
    """:func:`load_store`, :func:`load_observations`, :func:`load_hosts` and :func:`load_background_inputs` in one
    read of the current version: the manifest read once, every data file read once and checked against its
    SHA-256 (by default always: the trace cache reads its entries through this, and a damaged entry must be found,
    whatever ``--no-verify`` says; ``checksums=False`` skips the check, as ``--no-verify`` does for a user's store),
    then parsed from those bytes; the job table from :data:`JOB_TABLE_JSON` when the store has one (no pyarrow
    import). Cost: one read of the data plus the template assembly."""
    store = check_input_file(path, allow_dir=True)
    manifest, cols, hosts, blobs = _current(store, verify=checksums, job_table_json=True)
    where = str(store)
    _check(cols, where)
    if cols.n_jobs != manifest.get("jobs"):
        raise InputError(f"{store}: manifest says {manifest.get('jobs')} jobs, the job table has {cols.n_jobs}")
    warnings = _legacy_warnings(store, manifest, checksums)
    workload = Workload.of(_templates(cols, where, False), source=where, warnings=warnings)
    directory = _data_dir(store, manifest)
    # Only the background's bytes are kept for later (the other files are parsed already): about half the data.
    kept = None if blobs is None else {k: v for k, v in blobs.items() if k.startswith("background.")}
    return StoreContents(manifest, workload, _hosts_rows(hosts), cols,
                         lambda: _read_background(store, manifest, directory, kept))


def load_store(path: str | os.PathLike[str], *, verify: bool = False, checksums: bool | None = None) -> Workload:
    """The store's jobs as a :class:`Workload` (``source`` is the store path).

    ``verify=True`` builds every template through :class:`JobTemplate`'s validating constructor (per-job copies
    and checks, about 60 us per job) instead of the bulk-checked fast path. Both give equal templates.
    ``checksums`` (default: on, unless the global ``--no-verify`` flag is given) checks every data file against
    the sha256 the manifest recorded when it was written; a store written before checksums existed loads with a
    warning saying it was not verified.
    """
    from mrsim.io.policy import verify_checksums

    store = check_input_file(path, allow_dir=True)
    do_verify = verify_checksums() if checksums is None else checksums
    # The job table from its JSON copy when the store has one (mrsim profile writes it): no pyarrow import.
    manifest, cols, _, _ = _current(store, verify=do_verify, job_table_json=True)
    where = str(store)
    _check(cols, where)
    if cols.n_jobs != manifest.get("jobs"):
        raise InputError(f"{store}: manifest says {manifest.get('jobs')} jobs, the job table has {cols.n_jobs}")
    warnings = _legacy_warnings(store, manifest, do_verify)
    return Workload.of(_templates(cols, where, verify), source=where, warnings=warnings)


def stored_job_ids(path: str | os.PathLike[str]) -> set[str]:
    """The job ids in the store at ``path`` (empty when there is no store yet). Reads one Parquet column."""
    store = Path(path)
    if not is_store(store):
        return set()
    manifest = read_manifest(store)
    try:
        table = pq.ParquetFile(pa.BufferReader(_read_data(_data_dir(store, manifest), "jobs.parquet"))).read(
            columns=["job_id"])
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{store}: corrupt trace store data ({exc})") from None
    return set(table.column("job_id").to_pylist())


def _merge_counts(a: Mapping[str, Mapping[str, int]], b: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {k: dict(v) for k, v in a.items()}
    for key, values in b.items():
        slot = out.setdefault(key, {})
        for value, n in values.items():
            slot[value] = slot.get(value, 0) + int(n)
    return out


def load_conf_values(path: str | os.PathLike[str]) -> dict[str, dict[str, int]]:
    """The engine keys recorded by the stored jobs' confs: ``{hadoop key: {value: number of jobs}}``."""
    return {k: dict(v) for k, v in read_manifest(path).get("conf_values", {}).items()}


def load_observations(path: str | os.PathLike[str]) -> dict[str, dict[str, float | None]]:
    """Per-job observation columns (``obs.<name>``) as ``{job_id: {name: value or None}}``."""
    _, cols, _, _ = _current(Path(path))
    return _observations(cols)


def _observations(cols: _Columns) -> dict[str, dict[str, float | None]]:
    t = cols.table
    names = [c for c in t.column_names if c.startswith(OBS_PREFIX)]
    ids = t.column("job_id").to_pylist()
    columns = {c[len(OBS_PREFIX):]: t.column(c).to_pylist() for c in names}
    return {jid: {k: (None if v[i] != v[i] else v[i]) for k, v in columns.items()} for i, jid in enumerate(ids)}


def load_hosts(path: str | os.PathLike[str]) -> list[dict[str, Any]] | None:
    """The stored cluster hosts (rack, host, map_slots, reduce_slots, attempts), or None when none was stored."""
    _, _, hosts, _ = _current(Path(path), job_table_json=True)  # the JSON job table when written: no pyarrow
    return _hosts_rows(hosts)


def _hosts_rows(hosts: Any) -> list[dict[str, Any]] | None:
    """Host rows from the hosts table (None: no hosts stored; a list: already rows, from :data:`JOB_TABLE_JSON`)."""
    if hosts is None or isinstance(hosts, list):
        return hosts
    return [{k: v for k, v in row.items() if v is not None} for row in hosts.to_pylist()]


# ------------------------------------------------------------------------------------------- update


@dataclass(frozen=True)
class StoreUpdate:
    """What an update did: jobs added, duplicates skipped (ids already stored or repeated), totals after it."""

    path: str
    added: int
    skipped: int
    skipped_ids: tuple[str, ...]
    jobs: int
    maps: int
    reduces: int
    created: bool


@contextlib.contextmanager
def _locked(store: Path) -> Iterator[None]:
    try:  # never through a symlink: the lock file is opened for writing
        fd = os.open(store / LOCK, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise  # a full disk, a read-only file system, no permission: mrsim.io.output_errors words it
        raise InputError(f"{store / LOCK}: the store's lock is a symlink (never followed)") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _prepare_dir(store: Path) -> bool:
    """Create the store directory if needed; True when it is a new store. Refuse to take over other data."""
    if store.exists() and not store.is_dir():
        raise InputError(f"{store}: exists and is not a directory (a trace store is a directory)")
    if store.is_dir() and _manifest_path(store).exists():
        read_manifest(store)  # a wrong format or version is an error, not something to overwrite
        return False
    # Only the lock and the partial directory of a creation that crashed before its first manifest may be there.
    # Data directories without a manifest are someone's data (a store that lost its manifest): never delete them.
    if store.is_dir():
        others = sorted(c.name for c in store.iterdir() if c.name != LOCK and not c.name.startswith(PARTIAL_PREFIX))
        if any(name.startswith("data-") for name in others):
            raise InputError(f"{store}: holds trace-store data ({others[0]}) but no {MANIFEST}: a damaged store; "
                             "mrsim will not modify or delete it (restore the manifest, or profile into a new "
                             "directory)")
        if others:
            raise InputError(f"{store}: directory exists, is not empty and is not an mrsim trace store")
    store.mkdir(parents=True, exist_ok=True)
    return True


def _hosts_table(hosts: Iterable[Mapping[str, Any]]) -> pa.Table:
    rows = list(hosts)
    columns = {
        "rack": _arrow_array([str(h["rack"]) for h in rows], pa.string()),
        "host": _arrow_array([str(h["host"]) for h in rows], pa.string()),
        "map_slots": _arrow_array([int(h["map_slots"]) for h in rows], pa.int32()),
        "reduce_slots": _arrow_array([int(h["reduce_slots"]) for h in rows], pa.int32()),
        "attempts": _arrow_array([int(h.get("attempts", 0)) for h in rows], pa.int64()),
    }
    # Peak attempts one slot each, where high-RAM attempts made them differ (optional columns, null elsewhere:
    # mrsim.profiler.topology_infer.HostSlots; stores written before them have neither).
    for key in ("map_tasks", "reduce_tasks"):
        if any(key in h for h in rows):
            columns[key] = _arrow_array([h.get(key) for h in rows], pa.int32())
    return pa.table(columns)


def merge_hosts(old: Iterable[Mapping[str, Any]] | None, new: Iterable[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Union of two host lists by (rack, host); peak slots take the maximum, attempts add up."""
    if old is None and new is None:
        return None
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for rows in (old or (), new or ()):
        for h in rows:
            key = (str(h["rack"]), str(h["host"]))
            cur = merged.get(key)
            if cur is None:
                cur = merged[key] = {"rack": key[0], "host": key[1], "map_slots": int(h["map_slots"]),
                                     "reduce_slots": int(h["reduce_slots"]), "attempts": int(h.get("attempts", 0))}
                for kind in ("map", "reduce"):
                    if h.get(f"{kind}_tasks") is not None:
                        cur[f"{kind}_tasks"] = int(h[f"{kind}_tasks"])
            else:
                for kind in ("map", "reduce"):  # one-slot-per-attempt peaks: the maximum of both sides' values
                    tasks = [int(x.get(f"{kind}_tasks") or x[f"{kind}_slots"]) for x in (cur, h)]
                    if any(x.get(f"{kind}_tasks") is not None for x in (cur, h)):
                        cur[f"{kind}_tasks"] = max(tasks)
                cur["map_slots"] = max(cur["map_slots"], int(h["map_slots"]))
                cur["reduce_slots"] = max(cur["reduce_slots"], int(h["reduce_slots"]))
                cur["attempts"] += int(h.get("attempts", 0))
    return [merged[k] for k in sorted(merged)]


def add_to_store(path: str | os.PathLike[str], templates: Sequence[JobTemplate], *,
                 observations: Mapping[str, Mapping[str, float | None]] | None = None,
                 hosts: Iterable[Mapping[str, Any]] | None = None,
                 sources: Sequence[Mapping[str, Any]] = (),
                 conf_values: Mapping[str, Mapping[str, int]] | None = None,
                 calibration_toml: str | None = None,
                 background_inputs: Sequence[StoredBackground] = (), job_table_json: bool = False) -> StoreUpdate:
    """Create the store at ``path`` or add ``templates`` to it, atomically (see the module docstring).

    A template whose id is already stored, or repeated within ``templates``, is skipped (the first one is kept).
    ``observations`` maps job ids to extra per-job numbers kept beside the templates; ``hosts`` (dicts with
    rack, host, map_slots, reduce_slots, attempts) are merged into the stored cluster by maximum.
    ``sources`` are recorded in the manifest's history. ``conf_values`` (Hadoop key -> value -> number of jobs,
    the engine keys the jobs' confs recorded) are added to the manifest's counts; :func:`load_conf_values` reads
    them. ``calibration_toml`` (the cluster calibration of the new inputs, :mod:`mrsim.calibration`) is merged
    with the stored one; ``background_inputs`` (:meth:`mrsim.calibration.background.BackgroundCollector.stored`)
    are appended, complete (see the module docstring). ``job_table_json`` also writes :data:`JOB_TABLE_JSON`
    (the trace cache's entries: a hit then needs no pyarrow). Cost: O(stored values + new values).
    """
    from mrsim.io.output_errors import writing

    store = Path(path)
    existed = os.path.lexists(store)
    with writing(store, "the trace store"):
        try:
            return _add_to_store(store, templates, observations=observations, hosts=hosts, sources=sources,
                                 conf_values=conf_values, calibration_toml=calibration_toml,
                                 background_inputs=background_inputs, job_table_json=job_table_json)
        except BaseException:
            if not existed:  # a store this call began: nothing of it stays (not even its lock file)
                confined.remove_tree(store)
            raise


def _add_to_store(store: Path, templates: Sequence[JobTemplate], *,
                  observations: Mapping[str, Mapping[str, float | None]] | None,
                  hosts: Iterable[Mapping[str, Any]] | None, sources: Sequence[Mapping[str, Any]],
                  conf_values: Mapping[str, Mapping[str, int]] | None, calibration_toml: str | None,
                  background_inputs: Sequence[StoredBackground], job_table_json: bool) -> StoreUpdate:
    created = _prepare_dir(store)
    with _locked(store):
        if created and _manifest_path(store).exists():  # another writer created it while we waited
            created = False
        old_manifest: dict[str, Any] | None = None
        old_cols: _Columns | None = None
        old_hosts: list[dict[str, Any]] | None = None
        if not created:
            # Refuse to build on data that does not verify: a new version would carry the damage forward.
            old_manifest, old_cols, old_hosts_table, _ = _current(store, verify=True)
            _check(old_cols, str(store))
            old_hosts = None if old_hosts_table is None else old_hosts_table.to_pylist()
        seen = set(old_cols.job_ids()) if old_cols is not None else set()
        fresh: list[JobTemplate] = []
        skipped: list[str] = []
        for t in templates:
            if t.job_id in seen:
                skipped.append(t.job_id)
            else:
                seen.add(t.job_id)
                fresh.append(t)
        merged_hosts = merge_hosts(old_hosts, hosts)
        counts = _merge_counts((old_manifest or {}).get("conf_values", {}), conf_values or {}) if fresh else \
            (old_manifest or {}).get("conf_values", {})
        if old_cols is not None and not fresh and merged_hosts == merge_hosts(old_hosts, None):
            # Nothing new: keep the current version rather than rewriting an identical one.
            n_maps = int(old_cols.arrays["map_durations.offsets"][-1])
            n_reduces = int(old_cols.arrays["reduce_durations.offsets"][-1])
            return StoreUpdate(str(store), 0, len(skipped), tuple(skipped), old_cols.n_jobs, n_maps, n_reduces, False)
        new_cols = _columns_from_templates(fresh, {k: v for k, v in (observations or {}).items()})
        cols = new_cols if old_cols is None else _concat(old_cols, new_cols)
        history = list((old_manifest or {}).get("sources", []))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        history.extend({**dict(s), "at": stamp} for s in sources)
        generation = int((old_manifest or {}).get("generation", 0)) + 1
        data_name = f"data-{generation:06d}-{secrets.token_hex(4)}"
        n_maps = int(cols.arrays["map_durations.offsets"][-1])
        n_reduces = int(cols.arrays["reduce_durations.offsets"][-1])
        manifest = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "generation": generation,
            "data": data_name,
            "jobs": cols.n_jobs,
            "maps": n_maps,
            "reduces": n_reduces,
            "tasks": n_maps + n_reduces,
            "has_hosts": merged_hosts is not None,
            "updated": stamp,
            "sources": history,
            "conf_values": counts,
        }
        old_cal = (old_manifest or {}).get("calibration_toml")
        if fresh and calibration_toml:
            if old_cal:
                from mrsim.calibration.model import Calibration

                merged = Calibration.from_toml(old_cal, f"{store}: calibration").merged(
                    Calibration.from_toml(calibration_toml, "new calibration"))
                calibration_toml = merged.to_toml()
            manifest["calibration_toml"] = calibration_toml
        elif old_cal:
            manifest["calibration_toml"] = old_cal
        backgrounds: list[StoredBackground] = []
        if old_manifest is not None:
            backgrounds = _read_background(store, old_manifest, _data_dir(store, old_manifest))
        if fresh:
            backgrounds.extend(background_inputs)
        if backgrounds:
            manifest["background_inputs"] = [{"waits": len(b.waits), "usage_points": len(b.usage_s),
                                              "approximate": b.approximate} for b in backgrounds]
        partial = store / f"{PARTIAL_PREFIX}{os.getpid()}-{data_name}"  # the writer's pid: see _remove_stale
        target = store / data_name
        try:
            manifest["checksums"] = _write_columns(partial, cols,
                                                   None if merged_hosts is None else _hosts_table(merged_hosts),
                                                   backgrounds, job_table_json)
            os.replace(partial, target)
            with atomic_write(_manifest_path(store), "wb", what="the store manifest") as fh:  # the swap
                fh.write(seal(manifest, indent=True))
        except BaseException:
            confined.remove_tree(partial)
            confined.remove_tree(target)
            raise
        _remove_stale(store, keep=data_name, previous=(old_manifest or {}).get("data"))
    return StoreUpdate(str(store), len(fresh), len(skipped), tuple(skipped), cols.n_jobs, n_maps, n_reduces, created)


def _remove_stale(store: Path, keep: str, previous: object = None) -> None:
    """Delete what this store's writers made and no longer need: the previous version (named by the manifest
    just replaced) and partial directories of crashed updates. Nothing else is deleted -- an unreferenced
    ``data-*`` directory may be a version someone copied in, so it is left alone."""
    for child in store.iterdir():
        if child.is_symlink() or not child.is_dir() or child.name == keep:
            continue
        if child.name.startswith(PARTIAL_PREFIX) or (isinstance(previous, str) and child.name == previous):
            confined.remove_tree(child)

