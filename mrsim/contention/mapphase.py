"""Map-phase time of a map-only job with node contention (dissertation section 3.6, eqs. 3.1 to 3.3).

``M`` map tasks run in waves on ``n`` slots spread evenly over ``c`` nodes (``k = n / c`` slots per node). With
``T_MVA(s)`` the execution time of one task when ``s`` identical tasks share a node (exact single-class MVA on
the node's network)::

    T(M, n, c) = T_MVA(n / c) * floor(M / n) + T_MVA(mod(M, n) / c)               (3.1)
    adjusted:  T(M, n, c) / gamma,  gamma = MapTaskConcurrency / NumSlots          (3.2)
    T_NoCont(M, n) = T_m * floor(M / n) + T_m * [mod(M, n) > 0]                    (3.3)

The last wave puts ``mod(M, n) / c`` tasks per node on average, which need not be an integer (the
dissertation's own example: 54 maps on 8 slots over 4 nodes leaves 6 / 4 = 1.5). The dissertation does not
say how ``T_MVA`` is evaluated there; :class:`FractionalConcurrency` makes the choice explicit.
"""

from __future__ import annotations

import enum
import math
from typing import Sequence

from mrsim.contention.mva import exact_mva
from mrsim.contention.node import NodeSpec
from mrsim.errors import InputError


class FractionalConcurrency(enum.Enum):
    """How ``T_MVA(s)`` is evaluated at a non-integer ``s``."""

    #: Linear interpolation between ``T_MVA(floor(s))`` and ``T_MVA(ceil(s))``: the average node.
    INTERPOLATE = "interpolate"
    #: ``T_MVA(ceil(s))``: the busiest node, which is what ends the wave.
    CEIL = "ceil"


def task_time_curve(spec: NodeSpec, demand: Sequence[float], max_concurrency: int) -> tuple[float, ...]:
    """``T_MVA(s)`` for ``s = 0 .. max_concurrency`` identical tasks on one node (s; index ``s``).

    Exact single-class MVA on the node network, the CPU approximated by Seidmann's split. Cost O(s K).
    """
    vec = spec.check(demand, "map task")
    if sum(vec) <= 0.0:
        raise InputError("map task: demand vector is all zeros")
    res = exact_mva(spec.expand(vec), max_concurrency, kinds=spec.kinds)
    return res.response


def _at(curve: Sequence[float], s: float, mode: FractionalConcurrency) -> float:
    lo = math.floor(s)
    if lo == s:
        return curve[lo]
    if mode is FractionalConcurrency.CEIL:
        return curve[lo + 1]
    frac = s - lo
    return curve[lo] * (1.0 - frac) + curve[lo + 1] * frac


def map_phase_time(
    n_maps: int,
    total_slots: int,
    nodes: int,
    spec: NodeSpec,
    demand: Sequence[float],
    *,
    gamma: float = 1.0,
    fractional: FractionalConcurrency = FractionalConcurrency.INTERPOLATE,
) -> float:
    """Eq. 3.1 divided by ``gamma`` (eq. 3.2): the map phase's duration in seconds.

    Args:
        n_maps: ``M``; total_slots: ``n``; nodes: ``c`` (``n`` must be a multiple of ``c``).
        spec, demand: node hardware and one map task's demand vector (s).
        gamma: the measured slope of map-task concurrency versus slots (eq. 3.2), in (0, 1].
        fractional: how to evaluate the last wave's non-integer per-node concurrency.
    """
    for name, v, low in (("number of maps", n_maps, 0), ("slots", total_slots, 1), ("nodes", nodes, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise InputError(f"map phase: {name} must be an integer >= {low}, got {v!r}")
    if total_slots % nodes:
        raise InputError(
            f"map phase: {total_slots} slots do not divide evenly over {nodes} nodes (eq. 3.1 assumes n = k c)"
        )
    if not (0.0 < gamma <= 1.0):
        raise InputError(f"map phase: gamma must be in (0, 1], got {gamma!r}")
    if not isinstance(fractional, FractionalConcurrency):
        raise InputError(f"map phase: fractional must be a FractionalConcurrency, got {fractional!r}")
    per_node = total_slots // nodes
    curve = task_time_curve(spec, demand, per_node)
    waves, rest = divmod(n_maps, total_slots)
    total = curve[per_node] * waves + _at(curve, rest / nodes, fractional)
    return total / gamma


def map_phase_time_no_contention(n_maps: int, total_slots: int, task_time: float) -> float:
    """Eq. 3.3: waves of ``T_m`` seconds each, ignoring contention (what stock Mumak assumes)."""
    if isinstance(n_maps, bool) or not isinstance(n_maps, int) or n_maps < 0 or total_slots < 1:
        raise InputError(f"map phase: need maps >= 0 and slots >= 1, got {n_maps!r} and {total_slots!r}")
    if not math.isfinite(task_time) or task_time < 0:
        raise InputError(f"map phase: task time must be finite and non-negative, got {task_time!r}")
    waves, rest = divmod(n_maps, total_slots)
    return task_time * waves + (task_time if rest > 0 else 0.0)
