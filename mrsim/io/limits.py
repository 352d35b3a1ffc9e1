"""Documented size limits, checked before anything is allocated.

A hostile or mistyped input (``count = 10**12``, ``--nodes 10000000000``) would otherwise make mrsim allocate
until the machine kills it. Each limit has a default well above any real Hadoop cluster or trace mrsim has met,
an environment variable ``MRSIM_MAX_<NAME>`` and a global flag ``--limit NAME=N`` to raise it (the flag wins).
The list, with defaults, is in ``docs/reliability.md``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mrsim.errors import LimitError, UsageError


@dataclass(frozen=True)
class Limit:
    name: str
    default: int
    what: str


LIMITS: dict[str, Limit] = {limit.name: limit for limit in (
    Limit("jobs", 10_000_000, "jobs in one workload"),
    Limit("tasks_per_job", 10_000_000, "map or reduce tasks in one job"),
    Limit("tasks", 100_000_000, "tasks in one workload"),
    Limit("nodes", 1_000_000, "nodes (TaskTrackers) in one cluster"),
    Limit("slots", 10_000, "map or reduce slots on one node"),
    Limit("replications", 1_000_000, "replications (or cells) in one sweep"),
    Limit("input_bytes", 8 << 30, "bytes read from one input file (after gunzip)"),
)}

_overrides: dict[str, int] = {}
#: No limit is set above a Java long: a larger number is a typo, and it would not fit the engine's C integers.
MAX_LIMIT = 2**63 - 1


def _env_name(name: str) -> str:
    return f"MRSIM_MAX_{name.upper()}"


def limit(name: str) -> int:
    """The effective limit ``name``: ``--limit`` flag, else ``MRSIM_MAX_<NAME>``, else the default."""
    if name in _overrides:
        return _overrides[name]
    raw = os.environ.get(_env_name(name))
    if raw:
        try:
            value = int(raw)
        except ValueError:
            raise UsageError(f"{_env_name(name)}={raw!r}: expected a positive integer") from None
        if 1 <= value <= MAX_LIMIT:
            return value
        raise UsageError(f"{_env_name(name)}={raw!r}: expected a positive integer at most 2**63-1")
    return LIMITS[name].default


def set_limit_flag(text: str) -> None:
    """Apply one ``--limit NAME=N`` flag."""
    name, _, raw = text.partition("=")
    name = name.strip().lower().replace("-", "_")
    if name not in LIMITS:
        raise UsageError(f"--limit {text!r}: unknown limit (known: {', '.join(LIMITS)})")
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_LIMIT:
        raise UsageError(f"--limit {text!r}: expected NAME=N with N a positive integer at most 2**63-1")
    _overrides[name] = value


def reset_limit_flags() -> None:
    _overrides.clear()


def check_limit(name: str, value: int | float, where: str) -> None:
    """Raise :class:`LimitError` when ``value`` exceeds limit ``name``; the message says how to raise it."""
    cap = limit(name)
    if value > cap:
        raise LimitError(f"{where}: {value:,} {LIMITS[name].what} exceeds the limit of {cap:,} "
                         f"(raise it with --limit {name}=N or {_env_name(name)}=N)")
