"""JSON decoding that refuses what Python's ``json`` silently accepts or crashes on.

* ``NaN``, ``Infinity``, ``-Infinity`` (not JSON; Python reads them as floats that poison every sum);
* numbers too large to be a time or a count (more than :data:`MAX_INT_DIGITS` digits, or a float that overflows
  to infinity) -- Python raises a bare ``ValueError`` past 4300 digits;
* nesting deeper than the interpreter's recursion limit (``RecursionError``).

The readers decode with ``orjson`` first (:func:`fast_loads`, about twice the standard library's speed on a trace)
and come back to the standard library for anything ``orjson`` refuses or might read differently, so both give the
same values and the same errors.

Each becomes :class:`JSONValueError`, a ``ValueError`` the readers turn into an :class:`~mrsim.errors.InputError`
naming the file and line. Cost: the C scanner calls back into Python once per number, which makes decoding
about 1.5x slower, so the streaming trace readers use the fast form (see :func:`strict_decoder`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson

#: 10**20 exceeds every Java long; nothing in a Hadoop trace is longer.
MAX_INT_DIGITS = 20


class JSONValueError(ValueError):
    """A JSON value mrsim refuses (see the module docstring); ``msg`` says which."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg


def _constant(name: str) -> Any:
    raise JSONValueError(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONValueError(f"integer of {len(text)} digits is too large (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONValueError(f"number {text[:30]} overflows a 64-bit float")
    return value


def strict_decoder(*, check_numbers: bool = False) -> json.JSONDecoder:
    """A decoder whose :func:`raw_decode` raises :class:`JSONValueError` for ``NaN``/``Infinity`` (and, with
    ``check_numbers``, for long integers and overflowing floats, at the cost of a Python call per number).

    Without ``check_numbers`` the C scanner parses numbers: an integer past Python's 4300-digit limit is still
    refused (:func:`raw_decode` turns the ``ValueError`` into :class:`JSONValueError`), while long-but-legal
    integers and floats that overflow to infinity come through and are refused by the field checks of whoever
    reads them (:mod:`mrsim.profiler.logged_check`, :mod:`mrsim.io.fields`). The streaming trace readers use
    this fast form: a 1148-job trace has 3.8 million numbers.
    """
    if check_numbers:
        return json.JSONDecoder(parse_constant=_constant, parse_int=_int, parse_float=_float)
    return json.JSONDecoder(parse_constant=_constant)


_DECODER = strict_decoder(check_numbers=True)  # whole small documents (configs, topologies): check everything


def raw_decode(decoder: json.JSONDecoder, text: str, pos: int = 0) -> tuple[Any, int]:
    """``decoder.raw_decode`` with ``RecursionError`` as :class:`JSONValueError`."""
    try:
        return decoder.raw_decode(text, pos)
    except RecursionError:
        raise JSONValueError("nesting too deep") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # int() past sys.get_int_max_str_digits(): not a JSONDecodeError
        if isinstance(exc, JSONValueError):
            raise
        raise JSONValueError("integer too large") from None


def loads(data: str | bytes) -> Any:
    """``json.loads`` with the refusals above (one document)."""
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8")
    try:
        return _DECODER.decode(data)
    except RecursionError:
        raise JSONValueError("nesting too deep") from None


_REFUSED = re.compile(r'(?:"((?:[^"\\]|\\.)*)"\s*:\s*)?(-?\bNaN\b|-?\bInfinity\b|-?\d{%d,}(?:\.\d+)?(?:[eE][-+]?\d+)?|'
                      r'-?\d+(?:\.\d+)?[eE]\+?\d{3,})' % (MAX_INT_DIGITS + 1))


def locate_refused(text: str, start: int = 0) -> tuple[int, str] | None:
    """``(offset, field)`` of the first refused number at or after ``start`` (field "" when not a key's value),
    so an error can name the line and the field; None when none is found (e.g. only too deep)."""
    match = _REFUSED.search(text, start)
    if match is None:
        return None
    return match.start(2), match.group(1) or ""


#: :func:`fast_loads`'s answer when the caller must decode with the standard library instead.
STRICT = object()

#: Digits to ``0``, every other byte to a space: a run of :data:`LONG_DIGITS` then marks an integer ``orjson`` might
#: read as a float (it turns integers beyond 64 bits into floats; the standard library keeps them, and
#: :data:`MAX_INT_DIGITS` refuses the longest). ``bytes.translate`` + ``find`` cost about a tenth of decoding.
DIGIT_CLASS = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
LONG_DIGITS = b"0" * 19
_STR_DIGITS = str.maketrans({str(d): "0" for d in range(1, 10)})


def has_long_integer(data: bytes | str) -> bool:
    """True when ``data`` holds a run of 19 or more digits (an integer ``orjson`` may not read as Python does)."""
    if isinstance(data, str):
        return data.translate(_STR_DIGITS).find("0" * 19) >= 0
    return data.translate(DIGIT_CLASS).find(LONG_DIGITS) >= 0


def fast_loads(data: bytes | str) -> Any:
    """``orjson.loads(data)``, or :data:`STRICT` when the standard library must decide: ``orjson`` refused it
    (``NaN``, overflow, invalid UTF-8, lone surrogates, a byte-order mark, nesting past 1024, or plain bad JSON --
    the strict decoder then gives mrsim's usual error) or it holds an integer of 19+ digits."""
    if has_long_integer(data):
        return STRICT
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return STRICT
