"""Hadoop MRv1 configuration as mrsim uses it: key names are Hadoop's own, each defined next to its default.

Reads ``mapred-site.xml`` (``<configuration><property><name/><value/></property>...``). Keys mrsim does not
model are listed by :attr:`HadoopConf.ignored_keys` rather than silently dropped.

Heartbeat interval (``JobTracker.getNextHeartbeatInterval``, see ``docs/hadoop-behaviour.md`` §1.3), N = trackers:

* 0.20.2: ``max(3000, 1000 * ceil(N / 100))`` ms;
* 0.20.203 - 1.0.x, and 0.21 / 0.22 (under their own key names): ``max(3000, trunc(1000 * s * ceil(N / h)))`` ms;
* 1.1.x / 1.2.x (MAPREDUCE-1906): ``max(300, trunc(1000 * s * N / h))`` ms;

with h = ``mapred.heartbeats.in.second`` (100) and s = ``mapreduce.jobtracker.heartbeats.scaling.factor`` (1.0).
"""

from __future__ import annotations

import enum
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from mrsim.errors import InputError, OptionError
from mrsim.io.safe_open import check_input_file


class HadoopVersion(enum.Enum):
    """Which JobTracker heartbeat formula (and minimum) to emulate."""

    V0_20 = "0.20"
    V1_0 = "1.0"
    #: 0.21 and 0.22 compute the interval as 1.0.x does (docs/hadoop-behaviour.md §1.3), under their own key
    #: names, which the mapred-site reader accepts for any version.
    V0_21 = "0.21"
    V1_2 = "1.2"

    @classmethod
    def parse(cls, text: str) -> "HadoopVersion":
        aliases = {"0.20": cls.V0_20, "0.20.2": cls.V0_20, "1.0": cls.V1_0, "0.20.203": cls.V1_0, "0.20.205": cls.V1_0,
                   "1.0.4": cls.V1_0, "0.21": cls.V0_21, "0.22": cls.V0_21, "1.1": cls.V1_2, "1.2": cls.V1_2,
                   "1.2.1": cls.V1_2, "1.x": cls.V1_2}
        try:
            return aliases[text.strip().lower()]
        except KeyError:
            raise OptionError(f"unknown {{hadoop_version}} {text!r} (expected 0.20, 0.22, 1.0, 1.2 or 1.x)") from None

    @property
    def formula(self) -> str:
        """``JobTracker.getNextHeartbeatInterval`` of this version, as printed to users (N trackers, h =
        ``mapred.heartbeats.in.second``, s = the scaling factor)."""
        if self is HadoopVersion.V0_20:
            return "max(3 s, ceil(N/100) s)"
        if self is HadoopVersion.V1_2:
            return "max(0.3 s, s*N/h s)"
        return "max(3 s, s*ceil(N/h) s)"

    @property
    def minimum_s(self) -> float:
        """The interval's floor (``HEARTBEAT_INTERVAL_MIN``): 3 s before Hadoop 1.1, 0.3 s from 1.1 (MAPREDUCE-1906)."""
        return 0.3 if self is HadoopVersion.V1_2 else 3.0


# Hadoop key names and their defaults (docs/hadoop-behaviour.md §1, §2, §5).
KEY_MAP_SLOTS = "mapred.tasktracker.map.tasks.maximum"  # default 2
KEY_REDUCE_SLOTS = "mapred.tasktracker.reduce.tasks.maximum"  # default 2
KEY_SLOWSTART = "mapred.reduce.slowstart.completed.maps"  # default 0.05
KEY_SLOWSTART_NEW = "mapreduce.job.reduce.slowstart.completedmaps"
KEY_HB_PER_SECOND = "mapred.heartbeats.in.second"  # default 100
KEY_HB_PER_SECOND_NEW = "mapreduce.jobtracker.heartbeats.in.second"
KEY_HB_SCALING = "mapreduce.jobtracker.heartbeats.scaling.factor"  # default 1.0
KEY_OOB_HEARTBEAT = "mapreduce.tasktracker.outofband.heartbeat"  # default false
KEY_CAPACITY_PAD = "mapred.jobtracker.taskalloc.capacitypad"  # default 0.01
KEY_CAPACITY_PAD_NEW = "mapreduce.jobtracker.taskscheduler.taskalloc.capacitypad"
KEY_TASK_SCHEDULER = "mapred.jobtracker.taskScheduler"  # default JobQueueTaskScheduler
KEY_MAP_SPECULATIVE = "mapred.map.tasks.speculative.execution"
KEY_REDUCE_SPECULATIVE = "mapred.reduce.tasks.speculative.execution"

#: The Hadoop line whose JobTracker computed the heartbeat interval, named by how a job conf spells the key that
#: ``JobTracker.getNextHeartbeatInterval`` reads (docs/hadoop-behaviour.md §1.3): 0.20.x and 1.x read
#: ``mapred.heartbeats.in.second``, 0.21 and 0.22 ``mapreduce.jobtracker.heartbeats.in.second``.
LINE_0_20 = "0.20/1.x"
LINE_0_21 = "0.21/0.22"
HADOOP_LINES = (LINE_0_20, LINE_0_21)


def heartbeat_line(props: object) -> str | None:
    """The Hadoop line a job conf (``jobProperties``) names by its spelling of the heartbeat-rate key, or None when
    it has neither spelling or both (a conf that carries both cannot tell)."""
    if not isinstance(props, Mapping):
        return None
    old, new = KEY_HB_PER_SECOND in props, KEY_HB_PER_SECOND_NEW in props
    if old == new:
        return None
    return LINE_0_21 if new else LINE_0_20


#: Scheduler class names in ``mapred.jobtracker.taskScheduler`` and the mrsim plug-in that emulates each.
KEY_REDUCER_PREEMPT_DELAY = "mapreduce.job.reducer.unconditional-preempt.delay.sec"

SCHEDULER_CLASSES = {
    "org.apache.hadoop.mapred.JobQueueTaskScheduler": "fifo",
    "org.apache.hadoop.mapred.FairScheduler": "fair",
    "org.apache.hadoop.mapred.CapacityTaskScheduler": "capacity",
}


@dataclass(frozen=True)
class HadoopConf:
    """JobTracker/TaskTracker settings that shape a replay. Immutable; ``with_overrides`` makes variants."""

    version: HadoopVersion = HadoopVersion.V1_2
    map_slots: int = 2
    reduce_slots: int = 2
    slowstart_completed_maps: float = 0.05
    heartbeats_in_second: float = 100.0
    heartbeat_scaling_factor: float = 1.0
    outofband_heartbeat: bool = False
    capacity_pad: float = 0.01
    scheduler: str | None = None
    map_speculative: bool = False
    reduce_speculative: bool = False
    #: ``mapreduce.job.reducer.unconditional-preempt.delay.sec`` (Hadoop 2.8+; resource clusters only): a job whose
    #: maps have waited this long without a container preempts its waiting reduces (``RMContainerAllocator``)
    reducer_preempt_delay_s: float = 300.0
    source: str = ""
    ignored_keys: tuple[str, ...] = field(default=(), compare=False)
    #: why ``version`` is what it is when the trace's evidence chose it (``mrsim.whatif.heartbeat.trace_line``)
    version_origin: str = field(default="", compare=False)

    def heartbeat_interval_s(self, n_trackers: int) -> float:
        """The JobTracker's heartbeat interval for a cluster of ``n_trackers`` TaskTrackers (seconds)."""
        h = self.heartbeats_in_second if self.heartbeats_in_second >= 1 else 100.0
        s = self.heartbeat_scaling_factor if self.heartbeat_scaling_factor >= 0.01 else 1.0
        n = max(1, n_trackers)
        if self.version is HadoopVersion.V0_20:
            ms = max(3000, 1000 * math.ceil(n / 100))
        elif self.version in (HadoopVersion.V1_0, HadoopVersion.V0_21):
            ms = max(3000, int(1000 * s * math.ceil(n / h)))
        else:
            ms = max(300, int(1000 * s * n / h))
        return ms / 1000.0

    def with_overrides(self, **changes: object) -> "HadoopConf":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


_USED_KEYS = {
    KEY_MAP_SLOTS, KEY_REDUCE_SLOTS, KEY_SLOWSTART, KEY_SLOWSTART_NEW, KEY_HB_PER_SECOND, KEY_HB_PER_SECOND_NEW,
    KEY_HB_SCALING, KEY_OOB_HEARTBEAT, KEY_CAPACITY_PAD, KEY_CAPACITY_PAD_NEW, KEY_TASK_SCHEDULER,
    KEY_MAP_SPECULATIVE, KEY_REDUCE_SPECULATIVE, KEY_REDUCER_PREEMPT_DELAY,
}


def read_configuration_xml(path: str | os.PathLike[str]) -> dict[str, str]:
    """Hadoop ``<configuration>`` XML as a ``{name: value}`` dict (later properties win, as in Hadoop)."""
    import xml.etree.ElementTree as ET  # here: only a run given an XML file pays for its import (about 10 ms)

    check_input_file(path)  # a FIFO or device would block or never end
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except ET.ParseError as exc:
        raise InputError(f"{path}: not well-formed XML ({exc})") from None
    if root.tag != "configuration":
        raise InputError(f"{path}: expected a Hadoop <configuration> file, found <{root.tag}>")
    props: dict[str, str] = {}
    for prop in root.iter("property"):
        name = (prop.findtext("name") or "").strip()
        if name:
            props[name] = (prop.findtext("value") or "").strip()
    return props


def _parse_number(props: dict[str, str], key: str, kind: type, path: object) -> object:
    raw = props[key]
    try:
        value = kind(raw)
    except ValueError:
        raise InputError(f"{path}: property {key} = {raw!r} is not a valid {kind.__name__}") from None
    if kind is float and not math.isfinite(value):
        raise InputError(f"{path}: property {key} = {raw!r} must be a finite number")
    if kind is int and abs(value) > 2**31 - 1:  # Hadoop reads these keys as Java ints
        raise InputError(f"{path}: property {key} = {raw!r} is out of range for an int")
    return value


def _parse_bool(raw: str) -> bool:
    return raw.strip().lower() == "true"


def conf_from_mapred_site(path: str | os.PathLike[str], base: HadoopConf | None = None) -> HadoopConf:
    """Overlay the keys of a ``mapred-site.xml`` onto ``base`` (defaults when None)."""
    props = read_configuration_xml(path)
    conf = base or HadoopConf()
    changes: dict[str, object] = {"source": str(path)}
    if KEY_MAP_SLOTS in props:
        changes["map_slots"] = _parse_number(props, KEY_MAP_SLOTS, int, path)
    if KEY_REDUCE_SLOTS in props:
        changes["reduce_slots"] = _parse_number(props, KEY_REDUCE_SLOTS, int, path)
    for key in (KEY_SLOWSTART, KEY_SLOWSTART_NEW):
        if key in props:
            changes["slowstart_completed_maps"] = _parse_number(props, key, float, path)
    for key in (KEY_HB_PER_SECOND, KEY_HB_PER_SECOND_NEW):
        if key in props:
            changes["heartbeats_in_second"] = _parse_number(props, key, float, path)
    if KEY_HB_SCALING in props:
        changes["heartbeat_scaling_factor"] = _parse_number(props, KEY_HB_SCALING, float, path)
    if KEY_OOB_HEARTBEAT in props:
        changes["outofband_heartbeat"] = _parse_bool(props[KEY_OOB_HEARTBEAT])
    for key in (KEY_CAPACITY_PAD, KEY_CAPACITY_PAD_NEW):
        if key in props:
            changes["capacity_pad"] = _parse_number(props, key, float, path)
    if KEY_MAP_SPECULATIVE in props:
        changes["map_speculative"] = _parse_bool(props[KEY_MAP_SPECULATIVE])
    if KEY_REDUCE_SPECULATIVE in props:
        changes["reduce_speculative"] = _parse_bool(props[KEY_REDUCE_SPECULATIVE])
    if KEY_REDUCER_PREEMPT_DELAY in props:
        changes["reducer_preempt_delay_s"] = _parse_number(props, KEY_REDUCER_PREEMPT_DELAY, float, path)
    if KEY_TASK_SCHEDULER in props:
        cls = props[KEY_TASK_SCHEDULER]
        changes["scheduler"] = SCHEDULER_CLASSES.get(cls, cls)
    changes["ignored_keys"] = tuple(sorted(k for k in props if k not in _USED_KEYS))
    result = replace(conf, **changes)
    validate_conf(result, str(path))
    return result


def validate_conf(conf: HadoopConf, where: str = "configuration") -> None:
    """Reject values Hadoop would reject or that make a replay meaningless."""
    if conf.map_slots < 0 or conf.reduce_slots < 0:
        raise InputError(f"{where}: slot counts must be non-negative")
    if not 0.0 <= conf.slowstart_completed_maps <= 1.0:
        raise InputError(f"{where}: {KEY_SLOWSTART} must be within [0, 1], got {conf.slowstart_completed_maps}")
    if conf.capacity_pad < 0:
        raise InputError(f"{where}: {KEY_CAPACITY_PAD} must be non-negative")
