"""``--scheduler-config``: one file for the run's scheduler(s), or ``NAME=FILE,...`` with a file per scheduler.

``mrsim compare --scheduler-config fair=fair.xml,capacity=capacity-scheduler.xml`` gives each scheduler its own
file; the schedulers not named run without one. The single-file form keeps working: with one scheduler it goes to
it; with several, a fair or capacity file goes to that scheduler alone (announced: the others run without a
file) and any other file to every scheduler, as before. Each file is then checked against the scheduler that
reads it (:func:`mrsim.tracker.schedconf.filekind.check_scheduler_file`). Cost: a stat per file, one parse when
routing a single file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from mrsim.errors import OptionUsageError


def normalise_name(name: str) -> str:
    """Registered scheduler names are case-insensitive; ``module:Class`` is not (as ``load_schedulers``)."""
    name = name.strip()
    return name if ":" in name else name.lower()


def _pairs(text: str) -> dict[str, str] | None:
    """The ``NAME=FILE,...`` form as a dict, or None for a single file (an existing path is always one file)."""
    if os.path.exists(text) or "=" not in text:
        return None
    out: dict[str, str] = {}
    for part in text.split(","):
        name, sep, path = part.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise OptionUsageError(f"{{scheduler_config}} {text!r}: expected FILE or NAME=FILE,... (e.g. "
                             f"fair=fair.xml,capacity=capacity-scheduler.xml), got {part!r}")
        key = normalise_name(name)
        if key in out:
            raise OptionUsageError(f"{{scheduler_config}} names {key!r} twice")
        out[key] = path.strip()
    return out


def config_files(value: "str | Mapping[str, str] | None", names: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """``({scheduler: file}, notes)`` for the run's schedulers ``names`` (normalised). ``value`` is the flag's text,
    or, from the Python API, a mapping of scheduler name to file."""
    if not value:
        return {}, []
    pairs = {normalise_name(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else _pairs(str(value))
    if pairs is not None:
        unknown = [n for n in pairs if n not in names]
        if unknown:
            raise OptionUsageError(f"{{scheduler_config}} names scheduler {unknown[0]!r}, which this run does not use "
                             f"(schedulers: {', '.join(names)})")
        return pairs, []
    path = str(value)
    if len(names) <= 1:
        return {n: path for n in names}, []
    from mrsim.tracker.schedconf.filekind import OWNER, look_at

    look = look_at(path)
    owner = OWNER.get(look.kind)
    if owner is None:
        return {n: path for n in names}, []
    if owner not in names:
        raise OptionUsageError(f"{path}: looks like {look.describe()}, a file for the {owner} scheduler, which is not in "
                         f"{{schedulers}} ({', '.join(names)})")
    others = [n for n in names if n != owner]
    return {owner: path}, [f"mrsim: note: --scheduler-config {path} looks like {look.describe()}: it goes to {owner}; "
                           f"{', '.join(others)} run without a file (a file each: --scheduler-config "
                           f"{owner}={os.path.basename(path)},NAME=FILE)"]
