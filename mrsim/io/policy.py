"""Process-wide choices set by global flags: ``--strict``, ``--no-verify`` and ``--no-cache``.

``--strict``: every warning about the input becomes an error (exit 1).

Readers and the engine keep collecting warnings in lists (``Workload.warnings``, ``ReplayResult.warnings``);
:func:`enforce` is called where those lists are complete -- after loading a workload and after a run -- and,
in strict mode, raises :class:`~mrsim.errors.StrictError` (exit 1) with the count and the first warning.
"""

from __future__ import annotations

from collections.abc import Sequence

from mrsim.errors import StrictError

_strict = False
_verify = True
_cache = True
_exported = False  # MRSIM_NO_CACHE was set by --no-cache, not by the user


def set_strict(on: bool) -> None:
    global _strict
    _strict = bool(on)


def is_strict() -> bool:
    return _strict


def enforce(warnings: Sequence[str], where: str = "") -> None:
    """Raise in strict mode when ``warnings`` is not empty; nothing otherwise."""
    if _strict and warnings:
        more = f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""
        prefix = f"{where}: " if where else ""
        raise StrictError(f"{prefix}--strict: {len(warnings)} warning{'s' if len(warnings) > 1 else ''}: "
                         f"{warnings[0]}{more}")


def set_verify(on: bool) -> None:
    """``--no-verify`` sets False: trace stores are loaded without checking their per-array checksums."""
    global _verify
    _verify = bool(on)


def verify_checksums() -> bool:
    return _verify


def set_cache(on: bool) -> None:
    """``--no-cache`` sets False: inputs are parsed, never read from or saved to the trace cache
    (:mod:`mrsim.profiler.cache`). Also exported as ``MRSIM_NO_CACHE=1`` so that worker processes (sweeps) follow."""
    import os

    global _cache, _exported
    _cache = bool(on)
    if not on and not os.environ.get("MRSIM_NO_CACHE"):
        os.environ["MRSIM_NO_CACHE"] = "1"
        _exported = True
    elif on and _exported:
        os.environ.pop("MRSIM_NO_CACHE", None)
        _exported = False


def cache_allowed() -> bool:
    return _cache
