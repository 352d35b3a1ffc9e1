"""Typed, range-checked field readers for parsed input (TOML, JSON, XML values).

Each returns the value or raises :class:`~mrsim.errors.InputError` worded as
``<where>: <field> must be <what was expected>, got <value>``. Booleans are not numbers here (TOML and JSON
``true`` would otherwise read as 1), NaN and infinities are never accepted, and integers are checked against
their range before anything is sized from them.
"""

from __future__ import annotations

import math

from mrsim.errors import InputError


def show_value(value: object) -> str:
    """``repr(value)`` cut to 40 characters; an integer too long to print is described instead."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= 40 else text[:37] + "..."


_show = show_value


def as_int(value: object, where: str, field: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer (or an integral float/str) within [lo, hi]."""
    out: int | None = None
    if isinstance(value, bool):
        out = None
    elif isinstance(value, int):
        out = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        out = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) <= 20:
        out = int(value.strip())
    if out is None:
        raise InputError(f"{where}: {field} must be {_int_kind(lo, hi)}, got {_show(value)}")
    if (lo is not None and out < lo) or (hi is not None and out > hi):
        raise InputError(f"{where}: {field} must be {_int_kind(lo, hi)}, got {out}")
    return out


def as_float(value: object, where: str, field: str, lo: float | None = None, hi: float | None = None,
             *, lo_open: bool = False) -> float:
    """A finite number within [lo, hi] (or (lo, hi] with ``lo_open``)."""
    out: float | None = None
    if isinstance(value, bool):
        out = None
    elif isinstance(value, (int, float)):
        out = float(value) if abs(value) < 1e300 else math.inf
    elif isinstance(value, str):
        try:
            out = float(value)
        except ValueError:
            out = None
    if out is None or not math.isfinite(out):
        raise InputError(f"{where}: {field} must be {_float_kind(lo, hi, lo_open, 'a finite number')}, "
                         f"got {_show(value)}")
    if (lo is not None and (out <= lo if lo_open else out < lo)) or (hi is not None and out > hi):
        raise InputError(f"{where}: {field} must be {_float_kind(lo, hi, lo_open, 'a number')}, got {out:g}")
    return out


def _float_kind(lo: float | None, hi: float | None, lo_open: bool, noun: str) -> str:
    if lo == 0:
        sign = "positive" if lo_open else "non-negative"
        return f"a {sign} {noun.removeprefix('a ')}" + ("" if hi is None else f" at most {hi:g}")
    return f"{noun}{_range(lo, hi, lo_open)}"


def _int_kind(lo: int | None, hi: int | None) -> str:
    top = "" if hi is None else f" at most {hi:,}"
    if lo == 0:
        return f"a non-negative integer{top}"
    if lo == 1:
        return f"a positive integer{top}"
    return f"an integer{_range(lo, hi)}"


def _range(lo: float | None, hi: float | None, lo_open: bool = False) -> str:
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f" > {lo:g}" if lo_open else f" >= {lo:g}"
    if lo is None:
        return f" <= {hi:g}"
    return f" in {'(' if lo_open else '['}{lo:g}, {hi:g}]"
