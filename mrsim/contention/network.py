"""Closed queueing-network descriptions and Seidmann's multi-server approximation.

A :class:`Network` names its service centres and gives one row of service demands (seconds of service per job
visit-sum, i.e. ``D = V * S``) per job class. The solvers in :mod:`mrsim.contention.mva` and
:mod:`mrsim.contention.amva` take the plain demand rows and centre kinds; this module only describes and
validates networks and rewrites multi-server queues.

Seidmann's approximation (dissertation section 4.5, reference [65]; Menasce et al., *Performance by Design*):
an ``m``-server queue with demand ``D`` is replaced by a single-server queue with demand ``D/m`` in tandem with
a delay centre with demand ``D (m - 1)/m``. With one job the response time is still ``D``; with many jobs the
queue saturates at ``m/D`` jobs per second, the right asymptote. In between it is an approximation (it slightly
overstates queueing at low load, because the queue part makes a lone job's companions wait even when free
servers exist).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Sequence

from mrsim.errors import InputError


class CentreKind(enum.Enum):
    """How a service centre treats concurrent jobs."""

    #: Load-independent single-server queue (FCFS or processor sharing: MVA gives the same means).
    QUEUE = "queue"
    #: Delay (infinite-server) centre: every job is served at once, nobody waits.
    DELAY = "delay"


@dataclass(frozen=True, slots=True)
class Centre:
    """One service centre. ``servers > 1`` is only valid on a QUEUE and must be approximated before solving."""

    name: str
    kind: CentreKind = CentreKind.QUEUE
    servers: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.kind, CentreKind):
            raise InputError(f"centre {self.name!r}: kind must be a CentreKind, got {self.kind!r}")
        if isinstance(self.servers, bool) or not isinstance(self.servers, int) or self.servers < 1:
            raise InputError(f"centre {self.name!r}: servers must be a positive integer, got {self.servers!r}")
        if self.kind is CentreKind.DELAY and self.servers != 1:
            raise InputError(f"centre {self.name!r}: a delay centre has no server count (got {self.servers})")


def check_demand_rows(
    rows: Sequence[Sequence[float]], n_centres: int, what: str = "demands"
) -> tuple[tuple[float, ...], ...]:
    """Validate a ``[class][centre]`` demand matrix and return it as tuples of Python floats.

    Raises :class:`InputError` naming the class and centre for a ragged row, a negative, NaN or infinite value.
    Cost: O(classes x centres).
    """
    out = []
    for c, row in enumerate(rows):
        vals = tuple(float(x) for x in row)
        if len(vals) != n_centres:
            raise InputError(f"{what}: class {c} has {len(vals)} demands, expected one per centre ({n_centres})")
        for k, x in enumerate(vals):
            if not math.isfinite(x) or x < 0.0:
                raise InputError(f"{what}: class {c}, centre {k}: demand must be finite and non-negative, got {x!r}")
        out.append(vals)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Network:
    """A closed multi-class network: centres plus a ``[class][centre]`` service-demand matrix (seconds).

    ``origin[k]`` is the index of the centre in the network this one was derived from (identity for a network
    built by hand; see :func:`seidmann`), so per-centre results can be folded back with :meth:`fold`.
    """

    centres: tuple[Centre, ...]
    demands: tuple[tuple[float, ...], ...]
    origin: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "centres", tuple(self.centres))
        if not self.centres:
            raise InputError("a network needs at least one service centre")
        set_(self, "demands", check_demand_rows(self.demands, len(self.centres)))
        if not self.origin:
            set_(self, "origin", tuple(range(len(self.centres))))
        elif len(self.origin) != len(self.centres):
            raise InputError("network origin map must name one original centre per centre")

    @property
    def kinds(self) -> tuple[CentreKind, ...]:
        return tuple(c.kind for c in self.centres)

    @property
    def n_classes(self) -> int:
        return len(self.demands)

    @property
    def single_server(self) -> bool:
        """True when every centre can be handed to MVA/AMVA as is (no multi-server queues)."""
        return all(c.servers == 1 for c in self.centres)

    def require_single_server(self) -> None:
        """Raise :class:`InputError` naming the first multi-server queue (apply :func:`seidmann` first)."""
        for c in self.centres:
            if c.servers != 1:
                raise InputError(
                    f"centre {c.name!r} has {c.servers} servers; MVA needs single-server centres, "
                    "apply seidmann() first"
                )

    def fold(self, per_centre: Sequence[float], n_original: int | None = None) -> tuple[float, ...]:
        """Sum values of derived centres onto the centres they came from (e.g. a CPU's queue and delay parts)."""
        n = (max(self.origin) + 1) if n_original is None else n_original
        out = [0.0] * n
        for k, v in zip(self.origin, per_centre):
            out[k] += v
        return tuple(out)


def seidmann_split(demand: float, servers: int) -> tuple[float, float]:
    """Seidmann's split of an ``m``-server demand: ``(queue part D/m, delay part D (m-1)/m)``, in seconds."""
    return demand / servers, demand * (servers - 1) / servers


def seidmann(network: Network) -> Network:
    """Replace every multi-server queue by a queue (``D/m``) plus a delay centre (``D (m-1)/m``).

    The delay part is inserted right after its queue and named ``"<name>~delay"``; ``origin`` of the result maps
    both parts back to the original centre's index, so ``result.fold(...)`` sums them. Single-server centres are
    copied unchanged. Cost: O(classes x centres).
    """
    centres: list[Centre] = []
    origin: list[int] = []
    columns: list[tuple[int, float]] = []  # (original centre, multiplier on its demand)
    for k, c in enumerate(network.centres):
        src = network.origin[k]
        if c.kind is CentreKind.QUEUE and c.servers > 1:
            m = c.servers
            centres.append(Centre(c.name, CentreKind.QUEUE, 1))
            centres.append(Centre(f"{c.name}~delay", CentreKind.DELAY, 1))
            origin += [src, src]
            columns += [(k, 1.0 / m), (k, (m - 1) / m)]
        else:
            centres.append(c)
            origin.append(src)
            columns.append((k, 1.0))
    demands = tuple(tuple(row[k] * f for k, f in columns) for row in network.demands)
    return Network(tuple(centres), demands, tuple(origin))
