"""Job deadlines as SimMR section V-B draws them, and each job's isolated completion time.

SimMR: "The job deadline (which is relative to the job completion time) is set to be uniformly distributed in
the interval [T_J, df·T_J], where T_J is the completion time of job J given all the cluster resources (i.e.,
maximum amount of map/reduce slots that job can utilize) and where df ≥ 1 is a given deadline factor."

Here T_J is measured, not modelled: the job is replayed **alone** on the same cluster under FIFO with the same
Hadoop configuration and engine options (heartbeat interval, seed, contention model), and T_J is its finish
minus submit time. With df = 1 every deadline equals T_J exactly. Deadlines are relative to submission
(``JobTemplate.deadline_s``); the draw uses the named stream ``"deadlines"`` of the given seed, one uniform per
job in workload order, so the same seed gives the same deadlines whatever else is drawn. T_J is also stored in
each template's ``extra["isolated_completion_s"]`` so that reports can compute slowdowns.

Nothing is cached between calls. Cost: one replay per job, O(tasks of the job × log) each (about 13 ms for a
300-task job on a 64-node cluster), i.e. roughly the cost of one replay of the whole workload.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

import numpy as np

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.errors import InputError, OptionError
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import (ISOLATED_KEY, Workload)  # ISOLATED_KEY: T_J (s) in JobTemplate.extra; compare imports it here
from mrsim.rng import stream


def check_deadline_factor(deadline_factor: float) -> float:
    """The factor as a float, or :class:`InputError` unless it is a finite number >= 1."""
    df = float(deadline_factor)
    if not (math.isfinite(df) and df >= 1.0):
        raise OptionError(f"{{deadline_factor}} must be a number >= 1, got {deadline_factor}")
    return df


def isolated_completion_times(workload: Workload, cluster: ClusterSpec, conf: HadoopConf,
                              options: ReplayOptions | None = None,
                              progress: Callable[[int], None] | None = None) -> np.ndarray:
    """T_J (s) per job, in workload order: the job replayed alone on ``cluster`` under FIFO. ``progress(done)`` is
    called after each job's replay.

    Invariant checks and naive heartbeats are switched off for these helper replays (they do not change results).
    """
    from mrsim.tracker.scheduling import create_scheduler

    # Same engine options (fields added later included), minus the two that only slow the helper replays down.
    solo_options = replace(options or ReplayOptions(), naive_heartbeats=False, check_invariants=False)
    out = np.empty(len(workload))
    for i, template in enumerate(workload.jobs):
        solo = Workload.of([template], source=f"{workload.source} [{template.job_id} alone]")
        result = replay(solo, cluster, conf, create_scheduler("fifo"), solo_options)
        out[i] = float(result.jobs["completion_s"].iloc[0])
        if progress is not None:
            progress(i + 1)
    return out


def assign_deadlines(workload: Workload, cluster: ClusterSpec, conf: HadoopConf, deadline_factor: float,
                     seed: int, options: ReplayOptions | None = None,
                     isolated: np.ndarray | None = None) -> Workload:
    """A copy of ``workload`` whose jobs have deadlines drawn uniformly in [T_J, df·T_J] (s, relative to submit).

    ``options`` are the engine options of the replays that will use the deadlines (default: ``ReplayOptions(seed=
    seed)``); ``isolated`` may pass precomputed T_J values (from :func:`isolated_completion_times`).
    Raises :class:`InputError` for df < 1 or a non-finite df.
    """
    df = check_deadline_factor(deadline_factor)
    if len(workload) == 0:
        raise InputError(f"{workload.source or 'workload'}: no jobs to assign deadlines to")
    if isolated is None:
        isolated = isolated_completion_times(workload, cluster, conf, options or ReplayOptions(seed=seed))
    elif len(isolated) != len(workload):
        raise ValueError("isolated completion times must have one value per job")
    u = stream(seed, "deadlines").uniform(0.0, 1.0, len(workload))
    jobs = []
    for template, t_j, x in zip(workload.jobs, isolated, u):
        t_j = float(t_j)
        # df = 1 must give D = T_J exactly (no rounding from T_J + 0·u); a zero T_J cannot be a deadline.
        deadline = t_j if df == 1.0 else t_j + (df - 1.0) * t_j * float(x)
        deadline = max(deadline, 1e-9)
        extra = {**template.extra, ISOLATED_KEY: t_j}
        jobs.append(template.with_changes(deadline_s=deadline, extra=extra))
    source = f"{workload.source} (deadlines df={df:g} seed={seed})"
    return Workload.of(jobs, source=source, warnings=workload.warnings)
