"""The engines a sweep can drive and the parameter axes of its grid.

Each axis is a :class:`Param`; :data:`AXES` states, next to the name, which engine it applies to, its default
(used when the spec's ``[grid]`` leaves it out) and its valid range. A grid value is a scalar (one point) or a
non-empty list of distinct values.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Mapping

from mrsim.analysis.sweeps.checks import integer, number
from mrsim.errors import InputError


class Model(enum.Enum):
    """Which engine runs a cell."""

    SLOTS = "slots"  # the heartbeat JobTracker/TaskTracker engine (mrsim.tracker.replay)
    FLUID = "fluid"  # the one-server fluid model of size-based scheduling (mrsim.studies.fluid.run_fluid)


class Param(enum.Enum):
    """A grid axis. Values are the spec keys and the results-table column names."""

    INTERARRIVAL_SCALE = "interarrival_scale"  # multiply every inter-arrival gap (x; > 1 means lighter load)
    MEAN_INTERARRIVAL_S = "mean_interarrival_s"  # generator's mean exponential inter-arrival time (s)
    DEADLINE_FACTOR = "deadline_factor"  # SimMR V-A: deadline ~ U[T_J, df * T_J] (df >= 1)
    LOAD = "load"  # fluid: offered load the SWIM sizes are scaled to
    DN = "dn"  # fluid: disk/network speed ratio d/n in the job size
    SIGMA = "sigma"  # fluid: size-estimation error, estimate = size * LogNormal(0, sigma^2)
    SEED = "seed"  # explicit master seeds for the cells (instead of derived ones)
    # The load what-ifs of mrsim.model.load (mrsim replay's --load-scale, --duration, --input-cycle, --concentration)
    LOAD_SCALE = "load_scale"  # F x the load: every inter-arrival gap x 1/F
    DURATION_S = "duration_s"  # Rumen Folder's -output-duration (s)
    INPUT_CYCLE_S = "input_cycle_s"  # Rumen Folder's -input-cycle (s)
    CONCENTRATION = "concentration"  # Rumen Folder's -concentration


@dataclass(frozen=True)
class AxisRule:
    """Where an axis applies and what values it takes."""

    models: frozenset[Model]
    default: float | None
    minimum: float
    strict: bool = False  # value must be > minimum rather than >=
    whole: bool = False  # whole numbers only
    doc: str = ""
    #: False for axes added after sweeps had journals: at its default the axis stays out of the cell id, so the
    #: ids of those sweeps (and their journals) do not change.
    id_at_default: bool = True


AXES: dict[Param, AxisRule] = {
    Param.INTERARRIVAL_SCALE: AxisRule(frozenset({Model.SLOTS}), 1.0, 0.0, strict=True,
                                       doc="factor on every inter-arrival gap"),
    Param.MEAN_INTERARRIVAL_S: AxisRule(frozenset({Model.SLOTS}), None, 0.0,
                                        doc="generators only: mean inter-arrival time (s)"),
    Param.DEADLINE_FACTOR: AxisRule(frozenset({Model.SLOTS}), None, 1.0,
                                    doc="deadlines uniform in [T_J, df * T_J] (needs mrsim.studies.deadlines)"),
    Param.LOAD: AxisRule(frozenset({Model.FLUID}), 0.9, 0.0, strict=True, doc="offered load"),
    Param.DN: AxisRule(frozenset({Model.FLUID}), 4.0, 0.0, doc="shuffle weight d/n"),
    Param.SIGMA: AxisRule(frozenset({Model.FLUID}), 0.0, 0.0, doc="size-estimation error sigma"),
    Param.SEED: AxisRule(frozenset({Model.SLOTS, Model.FLUID}), None, 0.0, whole=True,
                         doc="explicit seeds (exclusive with replications > 1)"),
    Param.LOAD_SCALE: AxisRule(frozenset({Model.SLOTS}), 1.0, 0.0, strict=True, id_at_default=False,
                               doc="F x the load (inter-arrival gaps x 1/F), after the fold"),
    Param.DURATION_S: AxisRule(frozenset({Model.SLOTS}), None, 0.0, strict=True, id_at_default=False,
                               doc="Folder's output duration (s; needs input_cycle_s)"),
    Param.INPUT_CYCLE_S: AxisRule(frozenset({Model.SLOTS}), None, 0.0, strict=True, id_at_default=False,
                                  doc="Folder's input cycle (s)"),
    Param.CONCENTRATION: AxisRule(frozenset({Model.SLOTS}), None, 0.0, strict=True, id_at_default=False,
                                  doc="Folder's concentration (jobs skipped or duplicated, seeded by the cell)"),
}

#: The load what-if axes, in :class:`mrsim.model.load.LoadWhatIf` field order.
LOAD_AXES = (Param.LOAD_SCALE, Param.DURATION_S, Param.INPUT_CYCLE_S, Param.CONCENTRATION)


def identity_params(params: tuple[tuple[Param, Any], ...]) -> dict[str, Any]:
    """The axis values that enter a cell's id: all, except later axes left at their default."""
    return {p.value: v for p, v in params if AXES[p].id_at_default or v != AXES[p].default}


def model_params(model: Model) -> tuple[Param, ...]:
    """The axes that become columns of a results table for ``model`` (every one, gridded or default)."""
    return tuple(p for p, rule in AXES.items() if model in rule.models and p is not Param.SEED)


Grid = tuple[tuple[Param, tuple[Any, ...]], ...]


def parse_grid(doc: Mapping[str, Any], model: Model, where: str) -> Grid:
    """Validate ``[grid]``: known axes for ``model``, scalar or list values in range, no duplicates.

    Returns ``((param, values), ...)`` in :class:`Param` declaration order (the cell order of a sweep).
    Cost: O(values).
    """
    by_name = {p.value: p for p in Param}
    for key in doc:
        if key not in by_name:
            raise InputError(f"{where}: unknown key {key!r} (expected one of: {', '.join(by_name)})")
        rule = AXES[by_name[key]]
        if model not in rule.models:
            engines = " or ".join(sorted(m.value for m in rule.models))
            raise InputError(f"{where}: {key} applies to model {engines} only, not {model.value}")
    axes = []
    for param in Param:
        if param.value not in doc:
            continue
        raw = doc[param.value]
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            raise InputError(f"{where}: {param.value} is an empty list")
        rule = AXES[param]
        checked = []
        for v in values:
            if rule.whole:
                checked.append(integer(v, where, param.value, int(rule.minimum)))
            else:
                checked.append(number(v, where, param.value, rule.minimum, strict=rule.strict))
        if len(set(checked)) != len(checked):
            raise InputError(f"{where}: {param.value} lists a value twice")
        axes.append((param, tuple(checked)))
    return tuple(axes)
