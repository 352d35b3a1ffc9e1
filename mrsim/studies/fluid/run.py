"""Entry points: run one discipline on one workload, as raw times (:func:`simulate`) or as replay JSON
(:func:`run_fluid`, the contract behind ``mrsim replay FILE.tsv --model fluid``)."""

from __future__ import annotations

import math
import os
import time
from typing import Callable, Iterable, Sequence

import numpy as np

from mrsim.errors import InputError
from mrsim.profiler.swim import SwimTrace
from mrsim.studies.fluid.estimation import estimate_sizes
from mrsim.studies.fluid.fifo import simulate_fifo
from mrsim.studies.fluid.fsp import LateTreatment, simulate_fsp
from mrsim.studies.fluid.las import simulate_las
from mrsim.studies.fluid.policy import FluidPolicy
from mrsim.studies.fluid.ps import simulate_ps
from mrsim.studies.fluid.schedule import FluidSchedule
from mrsim.studies.fluid.srpt import simulate_srpt
from mrsim.studies.fluid.workload import FluidWorkload

_Sim = Callable[[list[float], list[float], list[float], bool], FluidSchedule]

_SIMULATORS: dict[FluidPolicy, _Sim] = {
    FluidPolicy.FIFO: lambda a, s, e, c: simulate_fifo(a, s),
    FluidPolicy.PS: lambda a, s, e, c: simulate_ps(a, s, check=c),
    FluidPolicy.SRPT: lambda a, s, e, c: simulate_srpt(a, s, e),
    FluidPolicy.FSP_FIFO: lambda a, s, e, c: simulate_fsp(a, s, e, LateTreatment.FIFO, check=c),
    FluidPolicy.FSP_PS: lambda a, s, e, c: simulate_fsp(a, s, e, LateTreatment.PS, check=c),
    FluidPolicy.LAS: lambda a, s, e, c: simulate_las(a, s, check=c),
}


def simulate(workload: FluidWorkload, policy: FluidPolicy | str, estimate: np.ndarray | Sequence[float] | None = None,
             *, check: bool = False) -> FluidSchedule:
    """Run ``policy`` on ``workload`` with per-job size estimates (s; default exact). Cost: O(n log n) overall.

    ``check`` runs the discipline's invariant checker after every event (O(n) per event; for tests).
    """
    policy = FluidPolicy.parse(policy)
    submit = workload.submit_s.tolist()
    size = workload.size_s.tolist()
    if estimate is None:
        est = size
    else:
        arr = np.asarray(estimate, dtype=np.float64).reshape(-1)
        if arr.size != len(size):
            raise InputError(f"{arr.size} size estimates for {len(size)} jobs")
        if arr.size and not (np.all(np.isfinite(arr)) and np.all(arr >= 0)):
            raise InputError("size estimates must be finite and >= 0")
        est = arr.tolist()
    return _SIMULATORS[policy](submit, size, est, check)


def load_workload(source: str | os.PathLike[str] | SwimTrace | FluidWorkload | Iterable[Sequence[float]], *,
                  load: float = 0.9, dn: float = 4.0) -> FluidWorkload:
    """A SWIM path or trace (scaled with ``load`` and ``dn``), a ready workload, or ``(submit_s, size_s)`` pairs
    (used as given; ``load`` and ``dn`` do not apply)."""
    if isinstance(source, FluidWorkload):
        return source
    if isinstance(source, (str, os.PathLike, SwimTrace)):
        return FluidWorkload.from_swim(source, load=load, dn=dn)
    return FluidWorkload.from_pairs(source)


def run_fluid(path_or_sizes: str | os.PathLike[str] | SwimTrace | FluidWorkload | Iterable[Sequence[float]],
              scheduler: str | FluidPolicy, load: float = 0.9, dn: float = 4.0, sigma: float = 0.0,
              seed: int = 0) -> dict:
    """Replay a workload through the fluid model and return the replay JSON contract.

    Times are seconds from the first submission; ``completion_s`` is the sojourn ``finish - submit``;
    ``summary.mean_completion_s`` is the mean sojourn; ``summary.events`` counts simulation events (arrivals,
    completions, FSP virtual finishes, LAS merges); ``summary.wall_s`` is the wall time of the simulation alone
    (not parsing). Extra keys: ``model``, ``sigma``, ``seed``, ``load``, ``dn`` (null for explicit sizes),
    ``source``; per job ``size_s`` and ``estimate_s``; ``summary.mean_slowdown`` (sojourn / size over jobs of
    positive size). ``maps``/``reduces`` are counts derived from SWIM bytes by the default
    :class:`mrsim.profiler.swim.SwimTaskModel` (0 for explicit sizes); they do not affect the fluid model.
    Unknown ``scheduler`` names raise :class:`InputError` listing the valid ones.
    """
    policy = FluidPolicy.parse(scheduler)
    if not (isinstance(sigma, (int, float)) and math.isfinite(sigma) and sigma >= 0):
        raise InputError(f"sigma must be a number >= 0, got {sigma}")
    workload = load_workload(path_or_sizes, load=load, dn=dn)
    estimate = estimate_sizes(workload.size_s, float(sigma), seed)
    t0 = time.perf_counter()
    sched = simulate(workload, policy, estimate)
    wall = time.perf_counter() - t0

    submit = workload.submit_s
    size = workload.size_s
    finish = np.asarray(sched.finish_s)
    sojourn = finish - submit
    positive = size > 0
    maps = workload.maps.tolist()
    reduces = workload.reduces.tolist()
    est_list = estimate.tolist()
    size_list = size.tolist()
    submit_list = submit.tolist()
    sojourn_list = sojourn.tolist()
    jobs = [
        {
            "job_id": workload.job_ids[i],
            "submit_s": submit_list[i],
            "start_s": sched.start_s[i],
            "finish_s": sched.finish_s[i],
            "completion_s": sojourn_list[i],
            "maps": maps[i],
            "reduces": reduces[i],
            "actual_completion_s": None,
            "size_s": size_list[i],
            "estimate_s": est_list[i],
        }
        for i in range(len(workload))
    ]
    return {
        "scheduler": policy.value,
        "model": "fluid",
        "source": workload.source,
        "sigma": float(sigma),
        "seed": int(seed),
        "load": workload.load,
        "dn": workload.dn,
        "jobs": jobs,
        "summary": {
            "jobs": len(workload),
            "tasks": int(workload.maps.sum() + workload.reduces.sum()),
            "makespan_s": float(finish.max()),
            "mean_completion_s": float(sojourn.mean()),
            "events": sched.events,
            "wall_s": wall,
            "mean_slowdown": float((sojourn[positive] / size[positive]).mean()) if positive.any() else None,
        },
    }


__all__ = ["simulate", "load_workload", "run_fluid"]
