"""The command line's side of a :class:`~mrsim.model.runspec.RunSpec`: built from the parsed flags, and its errors
worded as the flags that caused them (the one place that names a flag for a spec's field)."""

from __future__ import annotations

import argparse
from typing import Callable

from mrsim.model.runspec import FIELDS, RunSpec
from mrsim.run.execute import RunContext


def flag_of(field: str) -> str:
    """``--calibration-parts`` for the field ``calibration_parts``."""
    return "--" + field.replace("_", "-")


def spec_from_args(args: argparse.Namespace) -> RunSpec:
    """The RunSpec of ``mrsim replay|compare|validate``'s flags (a field without a flag keeps its default; a value
    no field takes raises :class:`~mrsim.errors.OptionError`, which ``mrsim.cli.main`` words with the flags)."""
    return RunSpec(**{name: getattr(args, name) for name in FIELDS if hasattr(args, name)})


def shows_progress(args: argparse.Namespace) -> bool:
    """Whether progress may be drawn on stderr (it still needs a terminal): not under ``--quiet`` or
    ``--log-level error``."""
    return not getattr(args, "quiet", False) and getattr(args, "log_level", "info") != "error"


def context(args: argparse.Namespace, early: Callable[[str], None] | None) -> RunContext:
    """How the command drives its run: the early assumption line (``early``) and progress."""
    return RunContext(early=early, progress=shows_progress(args))
