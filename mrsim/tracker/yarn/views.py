"""What the parts of YARN mode below the ResourceManager read and call of it, as typing protocols.

:class:`mrsim.tracker.yarn.rm.ResourceManager` owns the MR ApplicationMasters, the scheduler and the per-queue
series, and they call back into it. Each of them names the RM by a protocol here instead of importing the RM's
module, so the imports point one way (``rm`` on ``appmaster``, ``schedulers`` and ``timeseries``, never back); the
RM satisfies every protocol structurally. A YARN scheduler types its RM ``Any`` (the scheduler tests drive it
with a stand-in, ``tests/tracker/yarn/helpers.py``). Imported for type checking only: nothing here runs. An
ApplicationMaster, a scheduler's view of an application and a queue's totals are typed ``Any`` here: their
modules name these protocols (or are below a module that does), and this module imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.nodemanager import Container, NodeManager


class AppMasterHost(Protocol):
    """The ResourceManager as an MR ApplicationMaster (:class:`mrsim.tracker.yarn.appmaster.MRAppMaster`) uses it:
    the allocate protocol (asks, headroom, container launches and releases) and the launch settings."""

    running_tasks: int  # map/reduce containers held, kept by the AMs as they launch and end tasks

    @property
    def nodes(self) -> list[NodeManager]: ...
    @property
    def lag_sampled(self) -> bool: ...
    @property
    def lag_constant(self) -> float: ...
    @property
    def rack_local_slowdown(self) -> float: ...
    @property
    def off_switch_slowdown(self) -> float: ...
    @property
    def rampup_limit(self) -> float: ...
    @property
    def preemption_limit(self) -> float: ...

    def apply_asks(self, app: Any, outbox: list[tuple[int, int, tuple[str, ...], tuple[str, ...]]],
                   map_size: tuple[float, float], reduce_size: tuple[float, float]) -> None: ...

    def headroom(self, app: Any) -> float: ...

    def task_lag(self) -> float: ...

    def container_runs(self, c: Container) -> None: ...

    def release_unused(self, am: Any, c: Container, now: float) -> None: ...

    def kill_container(self, c: Container, now: float) -> None: ...

    def tasks_done(self, am: Any, now: float) -> None: ...

    def wake_am(self, am: Any) -> None: ...


class QueueShares(Protocol):
    """A YARN scheduler as the per-queue series reads it (:meth:`mrsim.tracker.yarn.schedulers.base.YarnScheduler.queue_shares`)."""

    def queue_shares(self) -> list[tuple[str, float]]: ...


class QueueSource(Protocol):
    """The ResourceManager as the per-queue series (:class:`mrsim.tracker.yarn.timeseries.QueueSeries`) reads it:
    its scheduler's queue shares and its per-queue totals (``QueueStats`` by queue name)."""

    @property
    def scheduler(self) -> QueueShares: ...
    @property
    def qstats(self) -> dict[str, Any]: ...
