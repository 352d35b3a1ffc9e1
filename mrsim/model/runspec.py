"""What one ``replay``, ``compare`` or ``validate`` run is asked to do, as one frozen value: :class:`RunSpec`.

The API (:func:`mrsim.replay`, :func:`mrsim.compare`, :func:`mrsim.validate`) builds it from keyword arguments, the
command line from its flags (``mrsim.cli.runspec``); :mod:`mrsim.run` turns it into a cluster, a Hadoop
configuration, replay options and a workload. Every mode is an enum of :mod:`mrsim.model.modes`; a text given for
one is parsed once, here, and a text no mode has is an :class:`~mrsim.errors.OptionError` naming the field.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Mapping

from mrsim.errors import InputError, OptionError
from mrsim.model.modes import (ALL_CALIBRATION_PARTS, Admission, BackgroundMode, CalibrationPart, Contention,
                               CpuModel, Engine, Locality, Model, Placement, Switch, parse_mode, parse_parts)


#: Fields whose value is one mode of an enum, and the words an error uses for the setting.
_MODES: dict[str, tuple[type, str]] = {
    "model": (Model, "model"), "memory_slots": (Switch, "memory-based scheduling"),
    "locality": (Locality, "locality mode"), "contention": (Contention, "contention model"),
    "cpu_model": (CpuModel, "CPU model"), "cafifo_admission": (Admission, "CA-FIFO admission test"),
    "background": (BackgroundMode, "background"), "placement": (Placement, "placement"),
    "engine": (Engine, "engine"),
}


@dataclass(frozen=True)
class RunSpec:
    """The options of one run (every field has the command line's default; units in the field comments).

    Input: ``trace`` (a path; None: the bundled trace), ``format`` (forced input format).
    Schedulers: ``scheduler`` (a registered name, ``module:Class``, a plug-in class or instance; None: the one the
    configuration or trace names, else FIFO), ``schedulers`` (compare: comma-separated names), ``scheduler_config``
    (a file, ``NAME=FILE,...`` or a mapping name -> file), ``threshold`` (CA-FIFO: ``cpu=0.7,disk=0.75``),
    ``cafifo_admission``.
    Cluster: ``nodes``, ``map_slots``, ``reduce_slots``, ``cores``, ``racks``, ``cluster`` (a cluster file),
    ``topology`` (a Rumen topology), ``mapred_site``.
    Engine: ``hadoop_version``, ``heartbeat_interval`` (s, or ``"off"``), ``oob_heartbeat``, ``no_job_overheads``,
    ``memory_slots``, ``no_failed_attempts``, ``speculative``, ``slowstart`` (fraction of maps),
    ``naive_heartbeats``, ``seed``, ``locality``, ``rack_local_slowdown`` / ``off_switch_slowdown`` (factors),
    ``contention``, ``cpu_model``, ``demands`` (``"counters"`` and/or a demand table file), ``disk_mb_s`` (MB/s),
    ``engine``, ``yarn_site``, ``task_results`` (keep per-task rows).
    Calibration: ``calibration_from``, ``no_calibration``, ``calibration_parts``, ``background``,
    ``ignore_trace_conf`` (validate).
    What-ifs: ``load_scale``, ``duration`` (s), ``input_cycle`` (s), ``concentration``; ``deadline_factor``;
    ``placement``, ``placement_skew``, ``rack_map``.
    Modes of a command: ``replications`` and ``schedulers`` (compare), ``isolate`` (validate), ``stream``,
    ``model`` and the fluid model's ``load``, ``dn``, ``sigma`` (replay).
    """

    trace: str | None = None
    format: str | None = None
    scheduler: Any = None
    schedulers: str = "fifo,fair,capacity"
    deadline_factor: float | None = None
    replications: int = 1
    isolate: bool = False
    stream: bool = False
    model: Model = Model.SLOTS
    load: float = 0.9
    dn: float = 4.0
    sigma: float = 0.0
    load_scale: float | None = None
    duration: float | None = None
    input_cycle: float | None = None
    concentration: float | None = None
    nodes: int | None = None
    map_slots: int | None = None
    reduce_slots: int | None = None
    cores: int | None = None
    racks: int | None = None
    cluster: str | None = None
    topology: str | None = None
    mapred_site: str | None = None
    hadoop_version: str | None = None
    heartbeat_interval: float | str | None = None
    oob_heartbeat: bool = False
    no_job_overheads: bool = False
    memory_slots: Switch = Switch.ON
    no_failed_attempts: bool = False
    speculative: bool = False
    slowstart: float | None = None
    naive_heartbeats: bool = False
    seed: int = 0
    locality: Locality = Locality.AUTO
    rack_local_slowdown: float = 1.0
    off_switch_slowdown: float = 1.0
    contention: Contention = Contention.NONE
    cpu_model: CpuModel | None = None
    demands: tuple[str, ...] | None = None
    disk_mb_s: float | None = None
    scheduler_config: str | Mapping[str, str] | None = None
    threshold: str | None = None
    cafifo_admission: Admission | None = None
    calibration_from: str | None = None
    no_calibration: bool = False
    calibration_parts: frozenset[CalibrationPart] = ALL_CALIBRATION_PARTS
    background: BackgroundMode = BackgroundMode.NONE
    placement: Placement = Placement.AUTO
    placement_skew: float | None = None
    rack_map: str | None = None
    engine: Engine = Engine.AUTO
    yarn_site: tuple[str, ...] | None = None
    ignore_trace_conf: bool = False
    task_results: bool = True

    def __post_init__(self) -> None:
        for name, (kind, what) in _MODES.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _mode(name, kind, value, what))
        try:
            object.__setattr__(self, "calibration_parts", parse_parts(self.calibration_parts))
        except InputError as e:
            raise OptionError("{calibration_parts}: " + str(e).replace("unknown calibration part(s)",
                                                                       "unknown part(s)")) from None
        for name in ("demands", "yarn_site"):  # repeatable: one text, or several
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, (str(value),) if isinstance(value, (str, os.PathLike)) else
                                   tuple(str(v) for v in value))

    def replace(self, **changes: Any) -> "RunSpec":
        """A copy with ``changes`` (checked like the constructor's arguments)."""
        return dataclasses.replace(self, **changes)


def _mode(name: str, kind: type, value: object, what: str) -> Any:
    try:
        return parse_mode(kind, value, what)
    except InputError as e:
        raise OptionError(f"{{{name}}}: {e}") from None


#: The field names, in declaration order (what the API's keyword arguments and the CLI's flags map to).
FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunSpec))
