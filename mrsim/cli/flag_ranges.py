"""Explicit ranges for every numeric flag of every command, applied once to the whole parser.

Commands keep declaring plain ``type=int`` / ``type=float``; :func:`harden_flags` wraps those types so that
a bad value is an argparse usage error (one line, exit 2) instead of a traceback, a hang or an allocation that
never ends (``--seed -1``, ``--heartbeat-interval inf``, ``--nodes 10000000000``).
"""

from __future__ import annotations

import argparse
import math

#: Flags whose integer values size an allocation: the limit of :mod:`mrsim.io.limits` that bounds them.
_LIMITED_FLAGS = {"--nodes": "nodes", "--map-slots": "slots", "--reduce-slots": "slots",
                  "--replications": "replications"}
#: Java's long: no count or seed of a Hadoop model is larger; a bigger int is a typo, not a request.
_MAX_FLAG_INT = 2**63 - 1
#: Explicit ranges of flags whose meaning bounds them more tightly: (low, high, low excluded). A slowdown of 1e308
#: multiplies durations to infinity; a node has at least one core and no more than a node's slot limit.
_FLOAT_RANGES: dict[str, tuple[float, float, bool]] = {
    "--rack-local-slowdown": (0.0, 1e6, True), "--off-switch-slowdown": (0.0, 1e6, True),
    "--slowstart": (0.0, 1.0, False), "--disk-mb-s": (0.0, 1e9, True),
}
_INT_RANGES: dict[str, tuple[int, str]] = {"--cores": (1, "slots"), "--racks": (1, "nodes")}


def _checked_int(flag: str, inner):
    def parse(text: str) -> int:
        value = inner(text)
        if isinstance(value, int) and not isinstance(value, bool):
            if flag == "--seed" and not 0 <= value <= _MAX_FLAG_INT:
                raise argparse.ArgumentTypeError(f"expected a seed in [0, 2**63-1], got {value}")
            if abs(value) > _MAX_FLAG_INT:
                raise argparse.ArgumentTypeError(f"{value} is out of range (at most 2**63-1)")
            name = _LIMITED_FLAGS.get(flag) or ("jobs" if flag == "--jobs" and inner is int else None)
            if name is not None:
                from mrsim.io.limits import LIMITS, limit

                if value > limit(name):
                    raise argparse.ArgumentTypeError(
                        f"{value:,} {LIMITS[name].what} exceeds the limit of {limit(name):,} (raise it with "
                        f"--limit {name}=N or MRSIM_MAX_{name.upper()}=N)")
            if flag in _INT_RANGES:
                from mrsim.io.limits import limit

                lo, cap = _INT_RANGES[flag]
                if not lo <= value <= limit(cap):
                    raise argparse.ArgumentTypeError(f"expected an integer in [{lo}, {limit(cap):,}] (the {cap} "
                                                     f"limit), got {value}")
        return value
    parse.__name__ = getattr(inner, "__name__", "int")
    return parse


def _checked_float(flag: str, inner):
    def parse(text: str) -> float:
        value = inner(text)
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        bounds = _FLOAT_RANGES.get(flag)
        if bounds is not None and isinstance(value, float):
            lo, hi, lo_open = bounds
            if not ((lo < value) if lo_open else (lo <= value)) or value > hi:
                raise argparse.ArgumentTypeError(
                    f"expected a number in {'(' if lo_open else '['}{lo:g}, {hi:g}], got {text}")
        return value
    parse.__name__ = getattr(inner, "__name__", "float")
    return parse


def harden_flags(parser: argparse.ArgumentParser) -> None:
    """Give every numeric flag of ``parser`` (and its subparsers) explicit ranges: float flags refuse NaN and
    infinities, integer flags refuse values beyond a Java long, ``--seed`` refuses negatives, and the flags that
    size an allocation (``--nodes``, ``--map-slots``, ``--reduce-slots``, ``--replications``, ``synth --jobs``)
    refuse values above their documented limit before anything is allocated. Done here, once, so each command
    keeps declaring plain ``type=int`` / ``type=float``; the errors are argparse usage errors (exit 2)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                harden_flags(sub)
            continue
        flag = next((s for s in action.option_strings if s.startswith("--")), None)
        if flag is None or action.type is None:
            continue
        if action.type is float or getattr(action.type, "__name__", "") in ("float", "_positive_float"):
            action.type = _checked_float(flag, action.type)
        elif action.type is int or flag in _LIMITED_FLAGS or flag == "--seed":
            action.type = _checked_int(flag, action.type)
