"""The treatments of a sweep: schedulers with their configs, cluster variants, and engine options.

Each is a frozen value with a JSON-ready ``fingerprint()`` that enters the cell id (see :mod:`.cells`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import orjson

from mrsim.analysis.sweeps.axes import Model
from mrsim.analysis.sweeps.checks import boolean, check_keys, integer, number, string, table
from mrsim.analysis.sweeps.ids import canonical_json
from mrsim.analysis.sweeps.sources import file_digest
from mrsim.tracker.replay import ReplayOptions
from mrsim.errors import InputError
from mrsim.model.cluster import ClusterSpec, load_cluster_file, uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf, HadoopVersion, validate_conf
from mrsim.model.modes import Contention


# ------------------------------------------------------------------------------------------------ schedulers

@dataclass(frozen=True)
class SchedulerEntry:
    """A scheduler plug-in (slots) or fluid discipline, with the config handed to its constructor.

    ``config_json`` is the config as canonical JSON (keeps the entry hashable); ``config_digest`` is the SHA-256
    of ``config["config_file"]`` when there is one, so editing that file invalidates completed cells.
    """

    label: str
    name: str
    config_json: bytes = b"{}"
    config_digest: str | None = None

    @property
    def config(self) -> dict[str, Any]:
        return orjson.loads(self.config_json)

    def fingerprint(self) -> dict[str, Any]:
        return {"label": self.label, "name": self.name, "config": self.config, "config_file_sha256": self.config_digest}


def parse_scheduler(doc: Any, index: int, model: Model, base: Path, where: str) -> SchedulerEntry:
    """A ``schedulers`` entry: a name (``"fifo"``) or a table ``{name, label, config}``; checked by loading it."""
    where = f"{where}: schedulers[{index}]"
    if isinstance(doc, str):
        doc = {"name": doc}
    doc = table(doc, where)
    check_keys(doc, ("name", "label", "config"), where)
    if "name" not in doc:
        raise InputError(f"{where}: name is missing")
    name = string(doc["name"], where, "name").lower()
    label = string(doc["label"], where, "label") if "label" in doc else name
    config = dict(table(doc.get("config", {}), f"{where}.config"))
    digest = None
    if model is Model.FLUID:
        from mrsim.studies.fluid import FluidPolicy

        name = FluidPolicy.parse(name).value
        if config:
            raise InputError(f"{where}: config does not apply to fluid discipline {name!r}")
    else:
        if "config_file" in config:
            path = Path(string(config["config_file"], f"{where}.config", "config_file")).expanduser()
            path = path if path.is_absolute() else base / path
            if not path.is_file():
                raise InputError(f"{where}.config: config_file {str(path)!r}: no such file")
            config["config_file"] = str(path.resolve())
            digest = file_digest(path)
        from mrsim.tracker.schedconf.filekind import check_plugin_config
        from mrsim.tracker.scheduling import create_scheduler

        try:
            check_plugin_config(name, config)  # a fair or capacity file given to another scheduler
            create_scheduler(name, config)  # loads the plug-in and its config now, not in the middle of a sweep
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return SchedulerEntry(label=label, name=name, config_json=canonical_json(config), config_digest=digest)


# ------------------------------------------------------------------------------------------------ clusters

_CLUSTER_FLAGS = ("nodes", "map_slots", "reduce_slots", "cores", "racks", "speed")


@dataclass(frozen=True)
class ClusterVariant:
    """A labelled cluster; ``digest`` is the SHA-256 of its canonical tracker list."""

    label: str
    cluster: ClusterSpec
    digest: str

    def fingerprint(self) -> dict[str, Any]:
        return {"label": self.label, "trackers_sha256": self.digest}

    def columns(self) -> dict[str, int]:
        """Results-table columns describing the cluster's size."""
        return {"cluster_nodes": len(self.cluster), "cluster_map_slots": self.cluster.map_slots,
                "cluster_reduce_slots": self.cluster.reduce_slots}


def cluster_digest(cluster: ClusterSpec) -> str:
    rows = [[t.name, t.rack, t.map_slots, t.reduce_slots, t.cores, t.speed, t.disks, t.memory_gb]
            for t in cluster.trackers]
    return hashlib.sha256(canonical_json(rows)).hexdigest()


def default_cluster() -> ClusterVariant:
    """``mrsim replay``'s default: 64 nodes with 2 map and 2 reduce slots each."""
    c = uniform_cluster(64)
    return ClusterVariant("default", c, cluster_digest(c))


def parse_cluster(doc: Any, index: int, base: Path, where: str) -> ClusterVariant:
    """A ``[[clusters]]`` entry: flags (``nodes``, ``map_slots``, ...) or ``file`` (+ slot/core overrides)."""
    where = f"{where}: clusters[{index}]"
    doc = table(doc, where)
    check_keys(doc, ("label", "file", *_CLUSTER_FLAGS), where)
    ints = {k: integer(doc[k], where, k, 1 if k in ("nodes", "racks", "cores") else 0)
            for k in ("nodes", "map_slots", "reduce_slots", "cores", "racks") if k in doc}
    speed = number(doc["speed"], where, "speed", 0.0, strict=True) if "speed" in doc else None
    if "file" in doc:
        for key in ("nodes", "racks", "speed"):
            if key in doc:
                raise InputError(f"{where}: {key} cannot be combined with file (the file lists the nodes)")
        path = Path(string(doc["file"], where, "file")).expanduser()
        path = path if path.is_absolute() else base / path
        overrides = {k: ints[k] for k in ("map_slots", "reduce_slots", "cores") if k in ints}
        try:
            cluster = load_cluster_file(path, overrides or None)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        label = string(doc["label"], where, "label") if "label" in doc else path.name.split(".")[0]
    else:
        try:
            cluster = uniform_cluster(ints.get("nodes", 64), ints.get("map_slots", 2), ints.get("reduce_slots", 2),
                                      ints.get("cores", 4), ints.get("racks", 1), speed if speed is not None else 1.0)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        shape = f"{len(cluster)}x{ints.get('map_slots', 2)}m{ints.get('reduce_slots', 2)}r"  # e.g. 16x2m2r
        label = string(doc["label"], where, "label") if "label" in doc else shape
    return ClusterVariant(label, cluster, cluster_digest(cluster))


# ------------------------------------------------------------------------------------------------ engine

_ENGINE_KEYS = ("hadoop_version", "heartbeat_interval_s", "slowstart", "oob_heartbeat", "naive_heartbeats",
                "aligned_heartbeats", "contention", "calibration", "yarn")


@dataclass(frozen=True)
class EngineOptions:
    """Heartbeat-engine settings shared by every cell (``mrsim replay``'s engine flags, by the same names).

    ``heartbeat_interval_s``: None for Hadoop's formula, > 0 to override, 0 for SimMR's task-driven mode
    (``"off"`` in the spec). ``slowstart``: ``mapred.reduce.slowstart.completed.maps`` or None for 0.05.
    ``calibration``: ``"trace"`` (default: a trace workload's own calibration, ``docs/calibration.md``), ``"none"``,
    or the path of a calibration TOML / trace / store to measure it from.
    """

    #: None: the trace's Hadoop line when it tells (docs/what-if.md), else 1.2
    hadoop_version: HadoopVersion | None = None
    heartbeat_interval_s: float | None = None
    slowstart: float | None = None
    oob_heartbeat: bool = False
    naive_heartbeats: bool = False
    aligned_heartbeats: bool = False
    contention: Contention = Contention.NONE
    calibration: str = "trace"
    engine: str = "mr1"  # "yarn": mrsim.tracker.yarn's ResourceManager emulation (docs/yarn.md)

    def conf(self) -> HadoopConf:
        conf = HadoopConf(version=self.hadoop_version or HadoopVersion.V1_2).with_overrides(
            slowstart_completed_maps=self.slowstart, outofband_heartbeat=True if self.oob_heartbeat else None)
        return conf

    def replay_options(self, seed: int) -> ReplayOptions:
        return ReplayOptions(heartbeat_interval_s=self.heartbeat_interval_s, naive_heartbeats=self.naive_heartbeats,
                             seed=seed, aligned_heartbeats=self.aligned_heartbeats,
                             contention=self.contention)

    def fingerprint(self) -> dict[str, Any]:
        return {"hadoop_version": (self.hadoop_version or HadoopVersion.V1_2).value, "heartbeat_interval_s": self.heartbeat_interval_s,
                "slowstart": self.slowstart, "oob_heartbeat": self.oob_heartbeat,
                "naive_heartbeats": self.naive_heartbeats, "aligned_heartbeats": self.aligned_heartbeats,
                "contention": self.contention.value,
                # Only when not the default, so that the ids of sweeps planned before calibration (or
                # YARN mode) stay the same.
                **({"calibration": self.calibration} if self.calibration != "trace" else {}),
                **({"engine": self.engine} if self.engine != "mr1" else {})}


def parse_engine(doc: Mapping[str, Any], where: str) -> EngineOptions:
    """Validate ``[engine]`` (every key optional)."""
    where = f"{where}: engine"
    check_keys(doc, _ENGINE_KEYS, where)
    kw: dict[str, Any] = {}
    if "hadoop_version" in doc:
        try:
            kw["hadoop_version"] = HadoopVersion.parse(str(doc["hadoop_version"]))
        except InputError:
            raise InputError(f"{where}: hadoop_version {doc['hadoop_version']!r} is unknown "
                             "(expected 0.20, 0.21, 0.22, 1.0, 1.2)") from None
    if "heartbeat_interval_s" in doc:
        raw = doc["heartbeat_interval_s"]
        kw["heartbeat_interval_s"] = 0.0 if raw == "off" else number(raw, where, "heartbeat_interval_s (or \"off\")",
                                                                      0.0, strict=True)
    if "slowstart" in doc:
        kw["slowstart"] = number(doc["slowstart"], where, "slowstart")
        if kw["slowstart"] > 1:
            raise InputError(f"{where}: slowstart must be within [0, 1], got {kw['slowstart']}")
    for key in ("oob_heartbeat", "naive_heartbeats", "aligned_heartbeats"):
        if key in doc:
            kw[key] = boolean(doc[key], where, key)
    if "contention" in doc:
        try:
            kw["contention"] = Contention(string(doc["contention"], where, "contention").lower())
        except ValueError:
            raise InputError(f"{where}: contention {doc['contention']!r} is unknown (expected none or tdam)") from None
    if "calibration" in doc:
        kw["calibration"] = string(doc["calibration"], where, "calibration (\"trace\", \"none\" or a path)")
    if "yarn" in doc:
        kw["engine"] = "yarn" if boolean(doc["yarn"], where, "yarn") else "mr1"
    options = EngineOptions(**kw)
    validate_conf(options.conf(), where)
    return options
