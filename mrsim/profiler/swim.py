"""SWIM workload samples (``.tsv``): reader, idealised job sizes, and a bytes-to-tasks template model.

Format (SWIM ``workloadSuite/*.tsv``, e.g. ``FB-2009_samples_24_times_1hr_0.tsv``): no header, one job per line,
six whitespace-separated (tab in the real files) columns:

1. job id (``job0``, ``job1``, ...);
2. submit time (s since the start of the synthetic day);
3. gap since the previous submission (s). Read and checked to be a number, but the submit column is
   authoritative: the gap column is redundant and not used;
4. map input bytes; 5. shuffle bytes (0 usually means a map-only job); 6. reduce output bytes.

Blank lines and lines starting with ``#`` are skipped. Lines out of submit order are sorted (stable).

Two uses:

* :func:`swim_job_sizes` gives one size per job in seconds of whole-cluster service, for the fluid model of
  Dell'Amico, "A Simulator for Data-Intensive Job Scheduling" (EURECOM RR-13-282, 2013), section 2.2. The study's
  text writes ``S_j = d(i_j + o_j) + n s_j``; its released simulator (``swim_parser.py``) instead uses
  ``raw_j = i_j + (1 + d/n) s_j + o_j`` (shuffled bytes are read from disk *and* sent over the network, which is
  ``d/n`` times slower than disk), then multiplies every size by ``load * t_last / sum(raw)`` with ``t_last`` the
  last submit time as written in the file. We follow the released simulator.
* :func:`swim_to_templates` derives task counts and durations from bytes with the configurable rates of
  :class:`SwimTaskModel`, giving :class:`mrsim.model.templates.JobTemplate` objects for slot-level replay. This is an
  *assumed* model (uniform splits, uniform reduce partitions, fixed per-slot throughputs), not a measurement.

Cost: reading is O(lines) Python work (about 30 ms for the 24,442-line FB-2010 sample); sizes are vectorised.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from typing import Mapping

import numpy as np

from mrsim.errors import InputError
from mrsim.io import open_text
from mrsim.model.templates import JobTemplate, Workload

#: Bytes in one MB as used by every ``*_mb_s`` rate and by Hadoop's block sizes (2**20).
MB = float(1 << 20)

_COLUMNS = ("job id", "submit time", "gap", "map input bytes", "shuffle bytes", "reduce output bytes")


@dataclass(frozen=True, eq=False)
class SwimTrace:
    """One parsed SWIM file, sorted by submit time. Arrays are read-only ``float64``; times in s, sizes in bytes."""

    source: str
    job_ids: tuple[str, ...]
    submit_s: np.ndarray
    input_bytes: np.ndarray
    shuffle_bytes: np.ndarray
    output_bytes: np.ndarray

    def __len__(self) -> int:
        return len(self.job_ids)

    @property
    def t_last(self) -> float:
        """Last submit time on the file's clock (s); the horizon the load is defined against."""
        return float(self.submit_s[-1])


def _number(tok: str, source: str, lineno: int, col: int) -> float:
    try:
        value = float(tok)
    except ValueError:
        raise InputError(f"{source}:{lineno}: column {col + 1} ({_COLUMNS[col]}) is not a number: {tok!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{source}:{lineno}: column {col + 1} ({_COLUMNS[col]}) must be finite and >= 0, got {tok!r}")
    if value > MAX_SWIM_VALUE:
        raise InputError(f"{source}:{lineno}: column {col + 1} ({_COLUMNS[col]}) must be at most {MAX_SWIM_VALUE:.0e} "
                         f"(s or bytes), got {tok!r}")
    return value


#: 10**18: an exabyte, or 31 billion years in seconds; larger SWIM values are damage, and would overflow task counts.
MAX_SWIM_VALUE = 1e18


def swim_line(line: str, source: str, lineno: int) -> tuple[str, float, float, float, float] | None:
    """One line of a SWIM file as ``(job id, submit s, map input, shuffle, reduce output bytes)``; None for a blank
    or comment line. The gap column is checked and dropped. A malformed line raises :class:`InputError` naming it."""
    toks = line.split()
    if not toks or toks[0].startswith("#"):
        return None
    if len(toks) != 6:
        raise InputError(f"{source}:{lineno}: expected 6 columns (job id, submit s, gap s, map input, shuffle, "
                         f"reduce output bytes), got {len(toks)}")
    _number(toks[2], source, lineno, 2)
    return (toks[0], _number(toks[1], source, lineno, 1), _number(toks[3], source, lineno, 3),
            _number(toks[4], source, lineno, 4), _number(toks[5], source, lineno, 5))


def read_swim(path: str | os.PathLike[str]) -> SwimTrace:
    """Parse a SWIM ``.tsv`` file (optionally gzipped). Any malformed line raises :class:`InputError` naming it.

    Cost: O(lines).
    """
    source = os.fspath(path)
    ids: list[str] = []
    cols: list[list[float]] = [[], [], [], []]
    seen: dict[str, int] = {}
    with open_text(source) as fh:
        for lineno, line in enumerate(fh, start=1):
            row = swim_line(line, source, lineno)
            if row is None:
                continue
            jid = row[0]
            if jid in seen:
                raise InputError(f"{source}:{lineno}: job id {jid!r} repeats line {seen[jid]}")
            seen[jid] = lineno
            ids.append(jid)
            for c, value in zip(cols, row[1:]):
                c.append(value)
    if not ids:
        raise InputError(f"{source}: no jobs (empty SWIM file)")
    submit = np.asarray(cols[0], dtype=np.float64)
    order = np.argsort(submit, kind="stable")
    arrays = []
    for c in cols:
        a = np.asarray(c, dtype=np.float64)[order]
        a.setflags(write=False)
        arrays.append(a)
    return SwimTrace(source, tuple(ids[i] for i in order), *arrays)


def _as_trace(path_or_trace: str | os.PathLike[str] | SwimTrace) -> SwimTrace:
    return path_or_trace if isinstance(path_or_trace, SwimTrace) else read_swim(path_or_trace)


def swim_job_sizes(trace: SwimTrace, *, load: float = 0.9, dn: float = 4.0) -> np.ndarray:
    """Job sizes in seconds of whole-cluster service (study section 2.2, released-simulator convention).

    ``raw = input + (1 + dn) * shuffle + output`` bytes, scaled by ``load * t_last / sum(raw)`` so that the total
    work is ``load`` times the last submit time. ``load`` > 0 is the offered load (1 = saturated); ``dn`` >= 0 is
    the disk/network bandwidth ratio. Cost: O(jobs), vectorised.
    """
    if not (math.isfinite(load) and load > 0):
        raise InputError(f"load must be a positive number, got {load}")
    if not (math.isfinite(dn) and dn >= 0):
        raise InputError(f"d/n must be a number >= 0, got {dn}")
    raw = trace.input_bytes + (1.0 + dn) * trace.shuffle_bytes + trace.output_bytes
    total = float(raw.sum())
    if total <= 0:
        raise InputError(f"{trace.source}: every job moves zero bytes; sizes cannot be scaled to a load")
    if trace.t_last <= 0:
        raise InputError(f"{trace.source}: last submit time is 0; the load horizon is empty")
    return raw * (load * trace.t_last / total)


@dataclass(frozen=True)
class SwimTaskModel:
    """Assumed bytes-to-tasks model for :func:`swim_to_templates`. All values are configurable; none is fitted.

    Hadoop key names are given where one exists (see :data:`HADOOP_KEYS`).

    Attributes:
        dfs_block_size: HDFS block size in bytes (``dfs.block.size``, Hadoop 1 default 64 MB).
        mapred_min_split_size: minimum split in bytes (``mapred.min.split.size``, default 0). As in Hadoop's
            ``FileInputFormat.computeSplitSize``, split = max(min split, block). Raise it to cap map counts: FB-2010
            has 16 million 64 MB splits.
        bytes_per_reducer: shuffle bytes per reduce (``hive.exec.reducers.bytes.per.reducer``, Hive default 1e9;
            most Facebook jobs were Hive queries). reduces = ceil(shuffle / this), at least 1 if shuffle > 0.
        max_reducers: cap on reduces per job (``hive.exec.reducers.max``, Hive default 999).
        map_mb_s: per-slot map throughput over input bytes (MB/s). Assumed.
        shuffle_mb_s: per-reduce shuffle+sort throughput over that reduce's partition (MB/s). Assumed.
        reduce_mb_s: per-slot reduce throughput over output bytes written (MB/s); map-only jobs (shuffle = 0) write
            their output from the maps at this rate. Assumed.
        task_overhead_s: fixed start-up cost added to every map and reduce (s), e.g. JVM launch. Default 0.
    """

    dfs_block_size: float = 64 * MB
    mapred_min_split_size: float = 0.0
    bytes_per_reducer: float = 1e9
    max_reducers: int = 999
    map_mb_s: float = 8.0
    shuffle_mb_s: float = 4.0
    reduce_mb_s: float = 4.0
    task_overhead_s: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not math.isfinite(v) or v < 0:
                raise InputError(f"SWIM task model: {f.name} must be finite and >= 0, got {v}")
        for name in ("dfs_block_size", "bytes_per_reducer", "map_mb_s", "shuffle_mb_s", "reduce_mb_s"):
            if getattr(self, name) <= 0:
                raise InputError(f"SWIM task model: {name} must be > 0, got {getattr(self, name)}")
        if self.max_reducers < 1 or int(self.max_reducers) != self.max_reducers:
            raise InputError(f"SWIM task model: max_reducers must be a whole number >= 1, got {self.max_reducers}")

    @property
    def split_bytes(self) -> float:
        return max(self.mapred_min_split_size, self.dfs_block_size)

    @classmethod
    def from_conf(cls, conf: Mapping[str, object]) -> tuple["SwimTaskModel", list[str]]:
        """Build from Hadoop-style keys (or field names); returns the model and one warning per unknown key."""
        values: dict[str, float] = {}
        warnings: list[str] = []
        for key, raw in conf.items():
            name = HADOOP_KEYS.get(key, key.replace(".", "_").replace("-", "_"))
            if name not in cls.__dataclass_fields__:
                warnings.append(f"unknown SWIM task-model key {key!r} ignored")
                continue
            try:
                values[name] = float(raw)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise InputError(f"SWIM task model: {key} must be a number, got {raw!r}") from None
        mr = values.get("max_reducers")
        if mr is not None and math.isfinite(mr) and mr == int(mr):
            values["max_reducers"] = int(mr)  # type: ignore[assignment]
        return cls(**values), warnings  # type: ignore[arg-type]

    def effective(self) -> dict[str, float]:
        """Effective values under their Hadoop key names (or mrsim names where Hadoop has none)."""
        inverse = {v: k for k, v in HADOOP_KEYS.items()}
        return {inverse.get(f.name, f"mrsim.swim.{f.name}"): getattr(self, f.name) for f in fields(self)}


#: Hadoop / Hive configuration keys accepted by :meth:`SwimTaskModel.from_conf`, mapped to field names.
HADOOP_KEYS: dict[str, str] = {
    "dfs.block.size": "dfs_block_size",
    "mapred.min.split.size": "mapred_min_split_size",
    "hive.exec.reducers.bytes.per.reducer": "bytes_per_reducer",
    "hive.exec.reducers.max": "max_reducers",
}


def swim_task_counts(trace: SwimTrace, model: SwimTaskModel = SwimTaskModel()) -> tuple[np.ndarray, np.ndarray]:
    """``(maps, reduces)`` per job as int64 arrays under ``model``. Cost: O(jobs), vectorised.

    maps = max(1, ceil(input / split)); reduces = 0 when shuffle is 0, else clip(ceil(shuffle / bytes per reducer),
    1, max reducers).
    """
    maps = np.maximum(1, np.ceil(trace.input_bytes / model.split_bytes)).astype(np.int64)
    red = np.clip(np.ceil(trace.shuffle_bytes / model.bytes_per_reducer), 1, int(model.max_reducers)).astype(np.int64)
    red[trace.shuffle_bytes <= 0] = 0
    return maps, red


def swim_job_template(jid: str, submit_s: float, inp: float, shuffle: float, out: float, n_map: int, n_red: int,
                      model: SwimTaskModel) -> JobTemplate:
    """One SWIM job's template under ``model`` (:func:`swim_to_templates` says how; ``n_map`` / ``n_red`` from
    :func:`swim_task_counts`). Shared with the streamed reader (``mrsim.profiler.swim_stream``)."""
    split = model.split_bytes
    map_rate = model.map_mb_s * MB
    reduce_rate = model.reduce_mb_s * MB
    over = model.task_overhead_s
    map_d = np.full(n_map, split / map_rate + over)
    map_d[-1] = (inp - (n_map - 1) * split) / map_rate + over
    if n_red == 0:
        map_d += (out / n_map) / reduce_rate
        red_d = np.empty(0)
        shuf_d = np.empty(0)
    else:
        red_d = np.full(n_red, (out / n_red) / reduce_rate + over)
        shuf_d = np.full(n_red, (shuffle / n_red) / (model.shuffle_mb_s * MB))
    return JobTemplate(job_id=jid, submit_s=submit_s, map_durations=map_d, reduce_durations=red_d,
                       typical_shuffle_durations=shuf_d, name=jid,
                       extra={"input_bytes": inp, "shuffle_bytes": shuffle, "output_bytes": out})


def swim_to_templates(path_or_trace: str | os.PathLike[str] | SwimTrace,
                      model: SwimTaskModel = SwimTaskModel()) -> Workload:
    """One :class:`JobTemplate` per SWIM job, wrapped in a :class:`Workload` (submit times on the file's clock).

    Map ``k`` reads its split (all full splits but the last) at ``map_mb_s``; each reduce shuffles an equal share of
    the shuffle bytes at ``shuffle_mb_s`` (recorded as *typical* shuffle durations; no first-wave shuffle is
    derivable from SWIM, so replays fall back to the typical array, see :mod:`mrsim.model.templates`) and writes an equal
    share of the output at ``reduce_mb_s``. Map-only jobs write the output from their maps. ``extra`` keeps the
    three byte counts. Cost: O(jobs + tasks) memory and time.
    """
    trace = _as_trace(path_or_trace)
    maps, reduces = swim_task_counts(trace, model)
    if len(maps):  # before one array per task is allocated
        from mrsim.io.limits import check_limit

        worst = int(np.argmax(maps))
        check_limit("tasks_per_job", int(maps[worst]), f"{trace.source}: job {trace.job_ids[worst]}: maps")
        check_limit("tasks", int(maps.sum() + reduces.sum()), f"{trace.source}: tasks")
    jobs = [swim_job_template(jid, float(trace.submit_s[j]), float(trace.input_bytes[j]), float(trace.shuffle_bytes[j]),
                              float(trace.output_bytes[j]), int(maps[j]), int(reduces[j]), model)
            for j, jid in enumerate(trace.job_ids)]
    return Workload.of(jobs, source=trace.source)
