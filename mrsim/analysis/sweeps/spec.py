"""Sweep specifications (TOML): what to run, validated in full before anything runs.

Format (see ``docs/sweeps.md`` and ``examples/sweeps/``)::

    name = "fifo-vs-load"        # optional, recorded with the results
    model = "slots"              # "slots" (heartbeat engine, default) or "fluid"
    seed = 0                     # master seed every cell's seed derives from
    replications = 3             # cells per grid point (different derived seeds)

    [[workloads]]                # one or more; a trace ...
    trace = "traces/day1.json.gz"   # relative to this file; any format mrsim reads (fluid: SWIM .tsv)
    # ... or a generator with its parameters (mrsim.profiler.synth.FacebookLikeSpec fields but seed)
    # generator = "facebook-like"
    # jobs = 50

    schedulers = ["fifo"]        # names, or [[schedulers]] tables: name, label, [schedulers.config]

    [[clusters]]                 # slots only; flags-like (nodes, map_slots, reduce_slots, cores, racks,
    nodes = 16                   # speed) or file = "cluster.toml"; default: 64 nodes x (2, 2)

    [engine]                     # slots only: hadoop_version, heartbeat_interval_s (or "off"), slowstart,
    heartbeat_interval_s = "off" # oob_heartbeat, naive_heartbeats, aligned_heartbeats, contention

    [grid]                       # scalar or list per axis (mrsim.analysis.sweeps.axes.Param)
    interarrival_scale = [0.5, 1, 2]

Unknown keys anywhere are an :class:`InputError` naming the file, the entry and the key.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from mrsim.analysis.sweeps.axes import Grid, Model, Param, parse_grid
from mrsim.analysis.sweeps.checks import check_keys, integer, string, table
from mrsim.analysis.sweeps.sources import WorkloadSource, parse_workload
from mrsim.analysis.sweeps.variants import (ClusterVariant, EngineOptions, SchedulerEntry, default_cluster,
                                            parse_cluster, parse_engine, parse_scheduler)
from mrsim.errors import InputError
from mrsim.io.limits import check_limit
from mrsim.io.safe_open import check_input_file

_TOP_KEYS = ("name", "model", "seed", "replications", "workloads", "schedulers", "clusters", "engine", "grid")


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep. ``clusters`` and ``engine`` are empty / None for the fluid model."""

    source: str
    name: str
    model: Model
    seed: int
    replications: int
    workloads: tuple[WorkloadSource, ...]
    schedulers: tuple[SchedulerEntry, ...]
    clusters: tuple[ClusterVariant, ...] = ()
    engine: EngineOptions | None = None
    grid: Grid = field(default=())

    def axis(self, param: Param) -> tuple[Any, ...] | None:
        """The values gridded for ``param``, or None when the grid leaves it at its default."""
        return dict(self.grid).get(param)

    def describe(self) -> dict[str, Any]:
        """JSON-ready record of the whole specification (written beside the results)."""
        return {
            "source": self.source, "name": self.name, "model": self.model.value, "seed": self.seed,
            "replications": self.replications,
            "workloads": [w.describe() for w in self.workloads],
            "schedulers": [s.fingerprint() for s in self.schedulers],
            "clusters": [{**c.fingerprint(), **c.cluster.describe()} for c in self.clusters],
            "engine": self.engine.fingerprint() if self.engine else None,
            "grid": {p.value: list(v) for p, v in self.grid},
        }


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a sweep spec file. Cost: the TOML parse plus one SHA-256 pass over each trace."""
    p = check_input_file(path)
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p}: invalid TOML ({exc})") from None
    except RecursionError:
        raise InputError(f"{p}: invalid TOML (nesting too deep)") from None
    except UnicodeDecodeError:
        raise InputError(f"{p}: not UTF-8 text") from None
    return parse_spec(doc, str(p), p.resolve().parent)


def parse_spec(doc: Mapping[str, Any], source: str = "spec", base: Path | None = None) -> SweepSpec:
    """Validate a parsed spec; relative paths resolve against ``base`` (default: the current directory)."""
    base = base or Path.cwd()
    check_keys(doc, _TOP_KEYS, source)
    _check_misplaced(doc, source)
    model_name = string(doc.get("model", "slots"), source, "model").lower()
    try:
        model = Model(model_name)
    except ValueError:
        raise InputError(f"{source}: model {model_name!r} is unknown (expected slots or fluid)") from None
    seed = integer(doc.get("seed", 0), source, "seed")
    replications = integer(doc.get("replications", 1), source, "replications", 1)
    check_limit("replications", replications, f"{source}: replications")
    name = string(doc["name"], source, "name") if "name" in doc else Path(source).stem

    raw_workloads = _entries(doc, "workloads", source)
    workloads = tuple(parse_workload(table(w, f"{source}: workloads[{i}]"), i, model, base, source)
                      for i, w in enumerate(raw_workloads))
    schedulers = tuple(parse_scheduler(s, i, model, base, source)
                       for i, s in enumerate(_entries(doc, "schedulers", source)))

    if model is Model.FLUID:
        for key in ("clusters", "engine"):
            if key in doc:
                raise InputError(f"{source}: {key} does not apply to the fluid model (one server of capacity 1)")
        clusters: tuple[ClusterVariant, ...] = ()
        engine = None
    else:
        clusters = tuple(parse_cluster(c, i, base, source) for i, c in enumerate(_entries(doc, "clusters", source))) \
            if "clusters" in doc else (default_cluster(),)
        engine = parse_engine(table(doc.get("engine", {}), f"{source}: engine"), source)

    grid = parse_grid(table(doc.get("grid", {}), f"{source}: grid"), model, f"{source}: grid")
    spec = SweepSpec(source, name, model, seed, replications, workloads, schedulers, clusters, engine, grid)
    _check_consistency(spec)
    return spec


def _check_misplaced(doc: Mapping[str, Any], source: str) -> None:
    """A top-level key written after a ``[table]`` header lands inside that table (a common TOML slip)."""
    for section in ("workloads", "clusters", "schedulers", "engine", "grid"):
        value = doc.get(section)
        tables = value if isinstance(value, list) else [value]
        for i, entry in enumerate(tables):
            if isinstance(entry, dict):
                for key in entry:
                    if key in _TOP_KEYS and key != "name" and not (section == "grid" and key == Param.SEED.value):
                        where = f"{section}[{i}]" if isinstance(value, list) else section
                        raise InputError(f"{source}: {where}: unknown key {key!r}; top-level keys such as {key} must "
                                         f"come before the first [table] header")


def _entries(doc: Mapping[str, Any], key: str, source: str) -> list[Any]:
    value = doc.get(key)
    if value is None:
        raise InputError(f"{source}: {key} is missing (give at least one)")
    if not isinstance(value, list) or not value:
        raise InputError(f"{source}: {key} must be a non-empty list")
    return value


def _check_consistency(spec: SweepSpec) -> None:
    src = spec.source
    for key, labels in (("workloads", [w.label for w in spec.workloads]),
                        ("schedulers", [s.label for s in spec.schedulers]),
                        ("clusters", [c.label for c in spec.clusters])):
        dup = next((x for x in labels if labels.count(x) > 1), None)
        if dup is not None:
            raise InputError(f"{src}: {key}: label {dup!r} is used twice (give each entry a distinct label)")
    cells = spec.replications * max(len(spec.workloads), 1) * max(len(spec.schedulers), 1) * max(len(spec.clusters), 1)
    for _param, values in spec.grid:
        cells *= max(len(values), 1)
    check_limit("replications", cells, f"{src}: cells (grid x replications)")  # before enumerating them
    if spec.axis(Param.SEED) is not None and spec.replications > 1:
        raise InputError(f"{src}: grid.seed and replications > 1 exclude each other "
                         "(list the seeds, or count replications)")
    if spec.axis(Param.MEAN_INTERARRIVAL_S) is not None:
        trace = next((w for w in spec.workloads if w.generator is None), None)
        if trace is not None:
            raise InputError(f"{src}: grid.mean_interarrival_s applies to generators only, workload "
                             f"{trace.label!r} is a trace (use interarrival_scale)")
    if spec.axis(Param.DURATION_S) is not None and spec.axis(Param.INPUT_CYCLE_S) is None:
        raise InputError(f"{src}: grid.duration_s folds each workload into that many seconds by cycles of "
                         "grid.input_cycle_s: give input_cycle_s too (Rumen's Folder has no default cycle)")
    if spec.axis(Param.DEADLINE_FACTOR) is not None:
        try:
            from mrsim.studies.deadlines import assign_deadlines  # noqa: F401  (checked now, used by the workers)
        except ImportError as exc:
            raise InputError(f"{src}: grid.deadline_factor needs mrsim.studies.deadlines.assign_deadlines, which cannot be "
                             f"imported ({exc})") from None
