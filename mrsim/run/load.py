"""The load what-ifs of a run (:mod:`mrsim.model.load`, docs/what-if-load.md): scale, fold, concentrate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the model: imported when a run applies them
    from mrsim.model.load import LoadWhatIf
    from mrsim.model.templates import Workload


def load_what_if(args: Any) -> "LoadWhatIf":
    """The what-if the flags ask for (all None when none is given), seeded by ``--seed``."""
    from mrsim.model.load import LoadWhatIf, check_load_what_if

    what = LoadWhatIf(load_scale=getattr(args, "load_scale", None), duration_s=getattr(args, "duration", None),
                      input_cycle_s=getattr(args, "input_cycle", None),
                      concentration=getattr(args, "concentration", None), seed=int(getattr(args, "seed", 0) or 0))
    check_load_what_if(what)
    return what


def apply_load_flags(args: Any, workload: "Workload") -> tuple["Workload", dict[str, Any] | None,
                                                                               list[str]]:
    """``(workload, spec.load or None, stderr notes)`` for the load flags of ``args``."""
    from mrsim.model.load import apply_load_what_if

    return apply_load_what_if(workload, load_what_if(args))
