"""Which kind of cluster a trace comes from: Hadoop 1 (JobTracker/TaskTrackers) or YARN (Hadoop 2/3).

One answer for every part that depends on it: ``--engine auto`` (``mrsim.tracker.yarn.engine``) and the cluster
calibration (``mrsim.calibration.choice``: a YARN trace's task lags are container waits, not JVM starts).

A trace is from YARN when any of these holds:

* its format is ``.jhist`` or SLS (``mrsim.profiler.detect``);
* a job conf says so: ``mapreduce.framework.name = yarn`` or any ``yarn.*`` key kept by the template builder;
* most job ids carry a 13-digit cluster part: the ResourceManager's start in epoch milliseconds
  (``job_1329348432655_0001``), where Hadoop 1's JobTracker ids use ``yyyyMMddHHmm`` (``job_201102100941_0026``).

Cost: O(jobs).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from mrsim.errors import InputError
from mrsim.model.templates import JobTemplate

_YARN_JOB_ID = re.compile(r"^job_\d{13}_\d+")


def is_yarn_trace(trace: str | None, jobs: Iterable[JobTemplate], fmt: str | None = None) -> bool:
    """Whether ``trace`` (a path, or None for an in-memory workload) with templates ``jobs`` comes from YARN."""
    from mrsim.profiler.detect import Format, detect_format

    if fmt:
        if fmt.lower() in ("jhist", "sls"):
            return True
    elif trace and Path(trace).is_file():
        try:
            detected = detect_format(trace)
        except InputError:
            detected = None
        if detected in (Format.JHIST, Format.SLS):
            return True
    ids = 0
    yarn_ids = 0
    for template in jobs:
        props = template.extra.get("properties")
        if isinstance(props, dict) and (str(props.get("mapreduce.framework.name", "")).lower() == "yarn"
                                        or any(str(k).startswith("yarn.") for k in props)):
            return True
        ids += 1
        yarn_ids += bool(_YARN_JOB_ID.match(template.job_id))
    return ids > 0 and 2 * yarn_ids > ids
