"""The modes a run is configured with, as enums: one value per choice, checked once where a run is specified.

Each is a ``StrEnum``: a member equals and hashes as its text (``Contention.TDAM == "tdam"``), so a spec, a
``--json`` output or a sweep file holds the same words it always did. Parsing a text into a mode raises
:class:`mrsim.errors.InputError` naming what is wrong and the values allowed; the command line words it as a
flag, the API as a keyword argument.
"""

from __future__ import annotations

import enum
from typing import Iterable, TypeVar

from mrsim.errors import InputError

M = TypeVar("M", bound=enum.StrEnum)


class Contention(enum.StrEnum):
    """Task durations: as in the trace, or from per-node queueing networks (TDAM, dissertation ch. 5)."""

    NONE = "none"
    TDAM = "tdam"


class Locality(enum.StrEnum):
    """Whether map split locations are honoured (:class:`mrsim.tracker.locality.LocalityMode`)."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


class Engine(enum.StrEnum):
    """Which JobTracker emulation runs a trace: ``auto`` picks YARN for Hadoop 2/3 inputs."""

    AUTO = "auto"
    YARN = "yarn"
    MR1 = "mr1"


class Model(enum.StrEnum):
    """``slots``: the heartbeat engine; ``fluid``: the idealised one-server model (SWIM traces)."""

    SLOTS = "slots"
    FLUID = "fluid"


class Switch(enum.StrEnum):
    """An on/off mode (memory-based scheduling)."""

    ON = "on"
    OFF = "off"


class BackgroundMode(enum.StrEnum):
    """Map slots held by work outside the trace: estimated from the trace, or none."""

    TRACE = "trace"
    NONE = "none"


class CpuModel(enum.StrEnum):
    """How TDAM solves a node's m-core CPU: Seidmann's approximation or exact multi-server MVA."""

    SEIDMANN = "seidmann"
    EXACT = "exact"


class Admission(enum.StrEnum):
    """CA-FIFO's admission test (Algorithm 9): current utilization, or utilization with the task added."""

    CURRENT = "current"
    PREDICTED = "predicted"


class Placement(enum.StrEnum):
    """Datacenter of each map of jobs without a placement (federated clusters, docs/geo.md)."""

    AUTO = "auto"
    UNIFORM = "uniform"
    ZIPF = "zipf"
    RACKS = "racks"


class CalibrationPart(enum.StrEnum):
    """A term of the cluster calibration a replay applies (ablations, :mod:`mrsim.calibration`)."""

    LAUNCH = "launch"
    REPORT = "report"
    AUX = "aux"
    HEARTBEAT = "heartbeat"
    STALLS = "stalls"
    LAUNCHERS = "launchers"
    BACKUPS = "backups"
    LOCALIZE = "localize"
    CARRY = "carry"


#: Every calibration part, in the order the help and the error messages list them.
ALL_CALIBRATION_PARTS: frozenset[CalibrationPart] = frozenset(CalibrationPart)


def parse_mode(kind: type[M], value: object, what: str) -> M:
    """``value`` (a member, or its text in any case) as a member of ``kind``; ``what`` names the setting in the
    error: ``"contention model 'x' is unknown (expected none or tdam)"``."""
    if isinstance(value, kind):
        return value
    try:
        return kind(str(value).strip().lower())
    except ValueError:
        allowed = [m.value for m in kind]
        raise InputError(f"{what} {value!r} is unknown (expected {', '.join(allowed[:-1])} or {allowed[-1]})") from None


def parse_parts(value: Iterable[object] | str) -> frozenset[CalibrationPart]:
    """Calibration parts from a comma-separated text or an iterable of names/members."""
    items = [x.strip() for x in value.split(",")] if isinstance(value, str) else [str(x).strip() for x in value]
    items = [x for x in items if x]
    known = {p.value for p in CalibrationPart}
    unknown = sorted(set(items) - known)
    if unknown:
        raise InputError(f"unknown calibration part(s) {', '.join(unknown)} (expected "
                         f"{', '.join(p.value for p in CalibrationPart)})")
    return frozenset(CalibrationPart(x) for x in items)
