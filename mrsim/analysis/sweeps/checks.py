"""Typed reads from a parsed TOML table, each failure an :class:`InputError` naming the place and the key.

``where`` is a location like ``"grid.toml: workloads[1]"``; every message reads ``<where>: <key> ...``.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from mrsim.errors import InputError


def check_keys(table: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """Reject keys not in ``allowed`` (the message names the first unknown key and lists the valid ones)."""
    allowed = tuple(allowed)
    for key in table:
        if key not in allowed:
            raise InputError(f"{where}: unknown key {key!r} (expected one of: {', '.join(allowed)})")


def table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a table, got {type(value).__name__}")
    return value


def string(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value.strip()


def boolean(value: Any, where: str, key: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def integer(value: Any, where: str, key: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{where}: {key} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def number(value: Any, where: str, key: str, minimum: float = 0.0, *, strict: bool = False) -> float:
    """A finite float >= ``minimum`` (> ``minimum`` when ``strict``)."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if ok:
        ok = value > minimum if strict else value >= minimum
    if not ok:
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise InputError(f"{where}: {key} must be a number {bound}, got {value!r}")
    return float(value)
