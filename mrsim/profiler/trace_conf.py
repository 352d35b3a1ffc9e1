"""The engine settings a trace recorded: Hadoop keys found in its jobs' ``jobProperties`` (the job conf snapshot).

``mrsim validate`` replays a trace "on the cluster it ran on", so the JobTracker/TaskTracker keys the engine
models are taken from the trace when its jobs carry them (Rumen traces built with job confs, e.g. the Gridmix
system-test traces), unless the user sets them (flags or ``--mapred-site`` win) or passes
``--ignore-trace-conf``. Keys read (old and new names, as :mod:`mrsim.model.hadoop_conf` defines them):

* ``mapred.reduce.slowstart.completed.maps`` / ``mapreduce.job.reduce.slowstart.completedmaps``;
* ``mapred.heartbeats.in.second`` / ``mapreduce.jobtracker.heartbeats.in.second``;
* ``mapreduce.jobtracker.heartbeats.scaling.factor``;
* ``mapreduce.tasktracker.outofband.heartbeat``;
* ``mapred.{map,reduce}.tasks.speculative.execution`` / ``mapreduce.{map,reduce}.speculative``;
* ``mapred.jobtracker.taskScheduler`` / ``mapreduce.jobtracker.taskscheduler``: the scheduler that ran the trace
  (``JobQueueTaskScheduler`` -> fifo, ``FairScheduler`` -> fair, ``CapacityTaskScheduler`` -> capacity; another
  class is reported and ignored). The JobTracker reads it from its own conf, but Rumen copies the client's whole
  conf into each job, and the Gridmix system tests' confs name the scheduler their JobTracker ran. Recorded under
  the 0.21/0.22 name (``mapreduce.*``; 1.x uses ``mapred.jobtracker.taskScheduler``), the Capacity Scheduler is
  replayed as 0.21's ``CapacityTaskScheduler.assignTasks`` hands tasks out (:func:`scheduler_settings`).

Slot counts (``*.tasks.maximum``) are **not** taken from the job conf: they are the client's view of the
TaskTracker setting, while the inferred cluster uses the peaks the trace shows (``docs/validation.md`` compares
both). When jobs disagree on a key, the value of most jobs wins and the disagreement is reported. Slow start is
a per-job setting in Hadoop but one engine-wide value in mrsim, which is the same simplification.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from mrsim.model.hadoop_conf import (KEY_HB_PER_SECOND, KEY_HB_PER_SECOND_NEW, KEY_HB_SCALING, KEY_MAP_SPECULATIVE,
                                     KEY_OOB_HEARTBEAT, KEY_REDUCE_SPECULATIVE, KEY_SLOWSTART, KEY_SLOWSTART_NEW,
                                     KEY_TASK_SCHEDULER, SCHEDULER_CLASSES, HadoopConf, validate_conf)

KEY_MAP_SPECULATIVE_NEW = "mapreduce.map.speculative"
KEY_REDUCE_SPECULATIVE_NEW = "mapreduce.reduce.speculative"
KEY_TASK_SCHEDULER_NEW = "mapreduce.jobtracker.taskscheduler"  # the 0.21/0.22 name of mapred.jobtracker.taskScheduler
CAPACITY_CLASS = "org.apache.hadoop.mapred.CapacityTaskScheduler"

#: Capacity Scheduler settings (Hadoop keys of ``mrsim.tracker.schedconf.capacity_conf``) that give 0.21's
#: ``CapacityTaskScheduler.assignTasks``: at most one reduce and one map per heartbeat, the map found by
#: ``JobInProgress.obtainNewMapTask`` at any locality level (no waiting for a local one).
CAPACITY_021 = {"mapred.capacity-scheduler.maximum-tasks-per-heartbeat": "1",
                "mapreduce.job.locality.wait.factor": "0"}


def _bool(text: str) -> bool:
    return text.strip().lower() == "true"


def _scheduler(text: str) -> str:
    name = SCHEDULER_CLASSES.get(text.strip())
    if name is None:
        raise ValueError(text)
    return name


#: Hadoop key -> (HadoopConf field, parser).
TRACE_KEYS: dict[str, tuple[str, Callable[[str], object]]] = {
    KEY_SLOWSTART: ("slowstart_completed_maps", float),
    KEY_SLOWSTART_NEW: ("slowstart_completed_maps", float),
    KEY_HB_PER_SECOND: ("heartbeats_in_second", float),
    KEY_HB_PER_SECOND_NEW: ("heartbeats_in_second", float),
    KEY_HB_SCALING: ("heartbeat_scaling_factor", float),
    KEY_OOB_HEARTBEAT: ("outofband_heartbeat", _bool),
    KEY_MAP_SPECULATIVE: ("map_speculative", _bool),
    KEY_MAP_SPECULATIVE_NEW: ("map_speculative", _bool),
    KEY_REDUCE_SPECULATIVE: ("reduce_speculative", _bool),
    KEY_REDUCE_SPECULATIVE_NEW: ("reduce_speculative", _bool),
    KEY_TASK_SCHEDULER: ("scheduler", _scheduler),
    KEY_TASK_SCHEDULER_NEW: ("scheduler", _scheduler),
}


class TraceConf:
    """Counts the values each modelled key takes over the jobs seen (cost: O(keys) per job)."""

    def __init__(self) -> None:
        self.values: dict[str, Counter[str]] = {}

    def add_job(self, job: Mapping[str, Any]) -> None:
        props = job.get("jobProperties")
        if not (type(props) is dict or isinstance(props, Mapping)):
            return
        for key in TRACE_KEYS:
            value = props.get(key)
            if value is not None:
                self.values.setdefault(key, Counter())[str(value)] += 1

    def add_counts(self, counts: Mapping[str, Mapping[str, int]]) -> None:
        """Add counts saved earlier (a trace store keeps them in its manifest)."""
        for key, values in counts.items():
            if key in TRACE_KEYS:
                for value, n in values.items():
                    self.values.setdefault(key, Counter())[str(value)] += int(n)

    def as_counts(self) -> dict[str, dict[str, int]]:
        return {key: dict(counts) for key, counts in self.values.items()}

    def changes(self) -> tuple[dict[str, object], dict[str, str], list[str]]:
        """``(HadoopConf changes, {key: value used}, warnings)``; unparsable values are skipped with a warning."""
        changes: dict[str, object] = {}
        used: dict[str, str] = {}
        warnings: list[str] = []
        for key, counts in sorted(self.values.items()):
            value, _ = counts.most_common(1)[0]
            if len(counts) > 1:
                warnings.append(f"trace conf: jobs disagree on {key} ({dict(counts)}); using {value}")
            name, parse = TRACE_KEYS[key]
            try:
                changes[name] = parse(value)
            except ValueError:
                what = "a scheduler mrsim emulates" if name == "scheduler" else "a number"
                warnings.append(f"trace conf: {key} = {value!r} is not {what}; ignored")
                continue
            used[key] = value
        return changes, used, warnings


def apply_trace_conf(conf: HadoopConf, trace: TraceConf, locked: set[str]) -> tuple[HadoopConf, dict[str, str], list[str]]:
    """``conf`` with the trace's values for every field not in ``locked`` (fields the user set)."""
    changes, used, warnings = trace.changes()
    kept = {k: v for k, v in changes.items() if k not in locked}
    used = {k: v for k, v in used.items() if TRACE_KEYS[k][0] in kept}
    if not kept:
        return conf, {}, warnings
    result = conf.with_overrides(**kept)
    validate_conf(result, "trace jobProperties")
    return result, used, warnings


def scheduler_settings(used: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """Scheduler-config entries and a note for a scheduler taken from the trace (``used``: the keys
    :func:`apply_trace_conf` used). A Capacity Scheduler recorded under the 0.21/0.22 key name gets
    :data:`CAPACITY_021`: 0.21's ``CapacityTaskScheduler.assignTasks`` assigns "1 reduce and 1 map" per heartbeat
    (a reduce first, then a map, each when a slot of its kind is free), where the 1.x scheduler mrsim's plug-in
    follows fills every free map slot; the Gridmix traces show it (of 3,066 groups of map assignments to one host
    within 20 ms, 2,845 are single maps; ``docs/validation.md``)."""
    if used.get(KEY_TASK_SCHEDULER_NEW, "").strip() == CAPACITY_CLASS:
        return dict(CAPACITY_021), ("scheduler: capacity, from the trace's job confs (mapreduce.jobtracker.taskscheduler"
                                    " = CapacityTaskScheduler, the 0.21/0.22 name): one map and one reduce per "
                                    "heartbeat, as 0.21's CapacityTaskScheduler.assignTasks; --scheduler overrides")
    name = next((SCHEDULER_CLASSES.get(used[k].strip()) for k in (KEY_TASK_SCHEDULER_NEW, KEY_TASK_SCHEDULER)
                 if k in used), None)
    if name is None:
        return {}, None
    return {}, f"scheduler: {name}, from the trace's job confs (--scheduler overrides)"
