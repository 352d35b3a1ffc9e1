"""Names of the fluid-model scheduling disciplines (Dell'Amico RR-13-282, section 2.3, plus LAS)."""

from __future__ import annotations

import enum

from mrsim.errors import UsageError


class FluidPolicy(enum.Enum):
    """A discipline for one server of capacity 1 shared between jobs.

    * ``FIFO``: whole server to the earliest arrival (ties: input order).
    * ``PS``: processor sharing, 1/n each.
    * ``SRPT``: whole server to the least *estimated* remaining work (estimate minus attained; may go negative).
    * ``FSP_FIFO`` / ``FSP_PS``: Fair Sojourn Protocol (Friedman and Henderson 2003) on estimates; late jobs
      (virtually finished, really pending) first, in FIFO order of lateness or sharing equally (study section 2.3).
    * ``LAS``: least attained service, ties share equally (size-oblivious; ignores estimates).
    """

    FIFO = "fifo"
    PS = "ps"
    SRPT = "srpt"
    FSP_FIFO = "fsp-fifo"
    FSP_PS = "fsp-ps"
    LAS = "las"

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(p.value for p in cls)

    @classmethod
    def parse(cls, name: "str | FluidPolicy") -> "FluidPolicy":
        """The policy called ``name`` (case-insensitive; ``_`` and ``+`` accepted for ``-``)."""
        if isinstance(name, FluidPolicy):
            return name
        key = str(name).strip().lower().replace("_", "-").replace("+", "-")
        try:
            return cls(key)
        except ValueError:
            raise UsageError(f"unknown fluid scheduler {name!r} (valid: {', '.join(cls.names())})") from None

    @property
    def uses_estimates(self) -> bool:
        """True for the size-based disciplines, whose outcome depends on the estimation error."""
        return self in (FluidPolicy.SRPT, FluidPolicy.FSP_FIFO, FluidPolicy.FSP_PS)
