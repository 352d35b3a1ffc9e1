"""The YARN schedulers by name: ``create_yarn_scheduler`` builds FIFO, Capacity or Fair from a config dict.

Apart from the package's ``__init__`` so that importing one scheduler's module (or ``base``) never runs the
registry, which imports the schedulers: a module a scheduler uses may import ``base`` without a cycle.
"""

from __future__ import annotations

from mrsim.tracker.yarn.schedulers.base import YarnScheduler
from mrsim.errors import InputError

YARN_SCHEDULERS = ("fifo", "capacity", "fair")


def create_yarn_scheduler(name: str, config: dict | None = None) -> YarnScheduler:
    """The YARN scheduler ``name`` (fifo, capacity or fair) built from ``config`` (``config_file``: its XML)."""
    key = (name or "").strip().lower()
    path = (config or {}).get("config_file")
    if path and key in YARN_SCHEDULERS:
        from mrsim.tracker.schedconf.filekind import check_scheduler_file

        check_scheduler_file(key, str(path))  # the shared check: a file of another scheduler is refused
    if key == "fifo":
        from mrsim.tracker.yarn.schedulers.fifo import FifoScheduler

        return FifoScheduler(config)
    if key == "capacity":
        from mrsim.tracker.yarn.schedulers.capacity import CapacityScheduler

        return CapacityScheduler(config)
    if key == "fair":
        from mrsim.tracker.yarn.schedulers.fair import FairScheduler

        return FairScheduler(config)
    raise InputError(f"--engine yarn: unknown YARN scheduler {name!r} (expected one of {', '.join(YARN_SCHEDULERS)})")
