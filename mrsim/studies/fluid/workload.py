"""The fluid model's input: (arrival, size) per job, frozen and sorted.

Times are seconds from the first submission (the first job arrives at 0); sizes are seconds of service on the
whole cluster (a server of capacity 1). Built from a SWIM file (study section 2.2, see
:func:`mrsim.profiler.swim.swim_job_sizes`) or from explicit sizes.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from mrsim.errors import InputError
from mrsim.profiler.swim import SwimTaskModel, SwimTrace, read_swim, swim_job_sizes, swim_task_counts


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class FluidWorkload:
    """Jobs for the fluid model, sorted by arrival (stable). Arrays are read-only.

    Attributes:
        job_ids: one id per job.
        submit_s: arrival times (s) from the first submission; non-decreasing, ``submit_s[0] == 0``.
        size_s: service demand (s at full cluster capacity), >= 0.
        maps / reduces: task counts derived from bytes (:func:`mrsim.profiler.swim.swim_task_counts`), or zeros.
        source: where the jobs came from.
        load / dn: the SWIM scaling parameters used, or None for explicit sizes.
    """

    job_ids: tuple[str, ...]
    submit_s: np.ndarray
    size_s: np.ndarray
    maps: np.ndarray
    reduces: np.ndarray
    source: str = ""
    load: float | None = None
    dn: float | None = None

    def __len__(self) -> int:
        return len(self.job_ids)

    @classmethod
    def from_swim(cls, path_or_trace: str | os.PathLike[str] | SwimTrace, *, load: float = 0.9, dn: float = 4.0,
                  task_model: SwimTaskModel = SwimTaskModel()) -> "FluidWorkload":
        """Sizes from SWIM bytes scaled to ``load`` with disk/network ratio ``dn``. Cost: O(jobs)."""
        trace = path_or_trace if isinstance(path_or_trace, SwimTrace) else read_swim(path_or_trace)
        sizes = swim_job_sizes(trace, load=load, dn=dn)
        maps, reduces = swim_task_counts(trace, task_model)
        submit = trace.submit_s - trace.submit_s[0]
        return cls(trace.job_ids, _frozen(submit), _frozen(sizes), _frozen(maps), _frozen(reduces),
                   trace.source, float(load), float(dn))

    @classmethod
    def from_sizes(cls, submit_s: Sequence[float] | np.ndarray, size_s: Sequence[float] | np.ndarray,
                   job_ids: Sequence[str] | None = None, source: str = "") -> "FluidWorkload":
        """Explicit arrivals and sizes (s); shifted so the first arrival is 0 and sorted stably. Cost: O(n log n)."""
        submit = np.asarray(submit_s, dtype=np.float64).reshape(-1)
        size = np.asarray(size_s, dtype=np.float64).reshape(-1)
        if submit.size != size.size:
            raise InputError(f"{submit.size} arrival times for {size.size} sizes")
        if submit.size == 0:
            raise InputError("no jobs given to the fluid model")
        ids = tuple(str(j) for j in job_ids) if job_ids is not None else tuple(f"job{i}" for i in range(submit.size))
        if len(ids) != submit.size:
            raise InputError(f"{len(ids)} job ids for {submit.size} jobs")
        for i in range(submit.size):
            if not math.isfinite(submit[i]):
                raise InputError(f"job {ids[i]}: arrival time {submit[i]} is not finite")
            if not (math.isfinite(size[i]) and size[i] >= 0):
                raise InputError(f"job {ids[i]}: size {size[i]} must be finite and >= 0")
        order = np.argsort(submit, kind="stable")
        submit = submit[order] - submit[order[0]]
        zeros = np.zeros(submit.size, dtype=np.int64)
        return cls(tuple(ids[i] for i in order), _frozen(submit), _frozen(size[order]), _frozen(zeros),
                   _frozen(zeros), source)

    @classmethod
    def from_pairs(cls, pairs: Iterable[Sequence[float]], source: str = "") -> "FluidWorkload":
        """From ``(submit_s, size_s)`` pairs."""
        rows = [tuple(p) for p in pairs]
        for i, r in enumerate(rows):
            if len(r) != 2:
                raise InputError(f"job {i}: expected a (submit_s, size_s) pair, got {len(r)} values")
        return cls.from_sizes([r[0] for r in rows], [r[1] for r in rows], source=source)
