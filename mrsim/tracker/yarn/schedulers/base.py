"""What a YARN scheduler sees of an application, and the plug-in interface every scheduler implements.

An application's outstanding requests are kept as YARN's ``AppSchedulingInfo`` keeps them: per priority (the MR AM
uses 0 for its own container, 10 for reduces, 20 for maps; a lower number is served first), a count at ``ANY``
(:attr:`Ask.total`), per rack and per host. Allocating a container node-local takes one from the host, its rack and
ANY; rack-local from the rack and ANY; off-switch from ANY only (``AppSchedulingInfo.allocateNodeLocal`` etc.).

A scheduler is called once per NodeManager heartbeat (:meth:`YarnScheduler.node_update`) and hands out containers
one at a time through :meth:`mrsim.tracker.yarn.rm.ResourceManager.allocate`. The scheduler does not import the
RM's module (the RM imports the schedulers): it holds the RM as ``Any`` (the scheduler tests drive it with a
stand-in) and binds the two calls of a heartbeat, ``allocate`` and ``has_room``, when the run starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Final

from mrsim.model.yarn_version import DEFAULT as DEFAULT_VERSION, YarnVersion

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.nodemanager import NodeManager
    from mrsim.tracker.yarn.timeseries import QueueStats

# Final: the compiled core inlines them (a plain module attribute costs a dict lookup at every use)
NODE_LOCAL: Final = 1
RACK_LOCAL: Final = 2
OFF_SWITCH: Final = 3
PRIORITY_AM: Final = 0
PRIORITY_REDUCE: Final = 10
PRIORITY_MAP: Final = 20


class Ask:
    """Outstanding containers of one size at one priority of one application (as the RM knows them)."""

    __slots__ = ("priority", "mem", "vcores", "total", "by_host", "by_rack", "missed")

    def __init__(self, priority: int, mem: float, vcores: float) -> None:
        self.priority = priority
        self.mem = mem
        self.vcores = vcores
        self.total = 0
        self.by_host: dict[str, int] = {}
        self.by_rack: dict[str, int] = {}
        self.missed = 0  # missed scheduling opportunities at this priority (the Capacity Scheduler's delay scheduling)

    def locality_on(self, host: str, rack: str) -> int:
        """Best locality this ask can get on ``host`` (0 when nothing is outstanding)."""
        if self.total <= 0:
            return 0
        # most asks have no locations (reduces, maps without splits): an empty dict's length is read before any
        # lookup (a lookup costs about 130 instructions from compiled code, at every container offered)
        by_host = self.by_host
        if by_host and by_host.get(host, 0) > 0:
            return NODE_LOCAL
        by_rack = self.by_rack
        if by_rack and by_rack.get(rack, 0) > 0:
            return RACK_LOCAL
        return OFF_SWITCH

    def take(self, host: str, rack: str, locality: int) -> None:
        self.total -= 1
        if locality == NODE_LOCAL:
            self.by_host[host] -= 1
            if rack in self.by_rack:
                self.by_rack[rack] = max(0, self.by_rack[rack] - 1)
        elif locality == RACK_LOCAL:
            self.by_rack[rack] -= 1

    @property
    def has_locality(self) -> bool:
        return bool(self.by_host) or bool(self.by_rack)


class SchedulerApp:
    """The scheduler's view of one application (``SchedulerApplicationAttempt``). Memory in MB."""

    __slots__ = ("index", "app_id", "user", "queue_name", "queue", "submit", "asks", "used_mem", "used_vcores",
                 "am_mem", "am_vcores", "am_running", "am_allocated", "runnable", "live", "order",
                 "finished", "sched", "usage", "stats", "pending_mb")

    def __init__(self, index: int, app_id: str, user: str, queue_name: str, submit: float,
                 am_size: tuple[float, float]) -> None:
        self.index = index
        self.app_id = app_id
        self.user = user
        self.queue_name = queue_name  # as submitted; the scheduler resolves :attr:`queue`
        self.queue: object = None
        self.submit = submit
        self.asks: list[Ask] = []  # ascending priority
        self.used_mem = 0.0
        self.used_vcores = 0.0
        self.am_mem, self.am_vcores = am_size
        self.am_allocated = False
        self.am_running = False
        self.runnable = True
        self.live = 0  # containers held
        self.order = index  # submission order (YARN orders by application id)
        self.finished = False
        self.sched: object = None  # the scheduler's own per-app data (its queue object)
        self.usage: object = None  # the scheduler's per-user data of the app's user (Capacity: its UserUsage)
        # the RM's per-queue totals this app counts in, from its submission (mrsim.tracker.yarn.rm.ResourceManager.qstats)
        self.stats: "QueueStats | None" = None
        self.pending_mb = 0.0  # memory of the outstanding asks, kept by the RM at every change

    def ask(self, priority: int, mem: float, vcores: float) -> Ask:
        for a in self.asks:
            if a.priority == priority:
                return a
        a = Ask(priority, mem, vcores)
        self.asks.append(a)
        self.asks.sort(key=lambda x: x.priority)
        return a

    @property
    def pending_mem(self) -> float:
        return self.pending_mb

    @property
    def pending_vcores(self) -> float:
        return sum(a.total * a.vcores for a in self.asks)

    @property
    def pending_containers(self) -> int:
        return sum(a.total for a in self.asks)

    def wants(self) -> bool:
        return any(a.total > 0 for a in self.asks)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"SchedulerApp({self.app_id}, queue={self.queue_name}, used={self.used_mem:g} MB)"


def fits(node: "NodeManager", mem: float, vcores: float, memory_only: bool = False) -> bool:
    return node.free_mem + 1e-9 >= mem and (memory_only or node.free_vcores + 1e-9 >= vcores)


class YarnScheduler:
    """Plug-in interface (``ResourceScheduler``): apps come and go, NodeManagers heartbeat."""

    name = "base"
    hadoop_class = ""
    memory_only = False  # True: fit and share by memory alone (DefaultResourceCalculator)

    def __init__(self) -> None:
        # Typed Any, not ResourceManager: the scheduler tests drive schedulers with a stub RM (tests/tracker/yarn/helpers.py),
        # which compiled code would reject as the wrong class
        self.rm: Any = None
        # the RM's allocate and has_room, bound at start(): a call of a bound method skips the attribute lookup a
        # call through ``rm`` (typed Any) makes in compiled code
        self.rm_allocate: Callable[[SchedulerApp, Ask, NodeManager, int], object] | None = None
        self.rm_has_room: Callable[[NodeManager], bool] | None = None
        self.warnings: list[str] = []
        self.pending_known = False
        self.cluster_mem = self.cluster_vcores = 0.0  # the RM's, from start()
        self.min_mem = self.min_vcores = 0.0
        self.n_nodes = 0
        # the Hadoop line followed where 2.x and 3.x differ (--hadoop-version; mrsim.model.yarn_version)
        self.version: YarnVersion = DEFAULT_VERSION

    def start(self, rm: Any) -> None:
        self.rm = rm
        self.rm_allocate = rm.allocate
        self.rm_has_room = getattr(rm, "has_room", None)
        # The ResourceManager keeps SchedulerApp.pending_mb at every change, so a scheduler may skip apps with
        # nothing asked; a stand-in (tests) may not keep it.
        self.pending_known = bool(getattr(rm, "keeps_pending", False))
        # Fixed for a replay, and read at every heartbeat: typed copies (``rm`` is typed Any, so each read through
        # it would be a generic attribute lookup)
        self.cluster_mem = float(rm.cluster_mem)
        self.cluster_vcores = float(rm.cluster_vcores)
        self.min_mem = float(rm.min_mem)
        self.min_vcores = float(rm.min_vcores)
        self.n_nodes = len(rm.nodes)

    def give(self, app: SchedulerApp, ask: Ask, node: "NodeManager", locality: int) -> None:
        """One container of ``ask`` to ``app`` on ``node`` (``rm.allocate``, bound at :meth:`start`)."""
        allocate = self.rm_allocate
        assert allocate is not None
        allocate(app, ask, node, locality)

    def set_runnable(self, app: SchedulerApp, runnable: bool) -> None:
        """Mark ``app`` as one the scheduler may (not) serve; the RM counts only runnable apps' asks as outstanding,
        so NodeManagers do not heartbeat for asks nobody may serve."""
        if app.runnable == runnable:
            return
        app.runnable = runnable
        rm = self.rm
        if rm is not None and hasattr(rm, "runnable_changed"):
            rm.runnable_changed(app)

    def add_app(self, app: SchedulerApp) -> None:
        raise NotImplementedError

    def remove_app(self, app: SchedulerApp) -> None:
        raise NotImplementedError

    def node_update(self, node: "NodeManager") -> None:
        raise NotImplementedError

    def charge(self, app: SchedulerApp, mem: float, vcores: float, am: bool) -> None:
        """A container of ``app`` was allocated (positive) or released (negative amounts)."""

    def container_limit(self, app: SchedulerApp) -> tuple[float, float, str] | None:
        """The largest container (MB, vcores) ``app``'s queue allows and that queue's name, or None (no limit beyond
        the RM's maximum allocation). Asked once per app, after :meth:`add_app`."""
        return None

    def headroom(self, app: SchedulerApp) -> float:
        """Memory (MB) reported to ``app``'s AM as headroom; by default the cluster's free memory."""
        assert self.rm is not None
        return max(0.0, self.rm.free_mem)

    def queue_shares(self) -> list[tuple[str, float]]:
        """(leaf queue name, guaranteed or fair-share memory MB) per leaf queue, for the time series."""
        raise NotImplementedError

    def describe(self) -> dict:
        return {"name": self.name, "hadoop_class": self.hadoop_class, "warnings": list(self.warnings)}

    def routes(self, counts: dict[str, int]) -> list[tuple[str, int]] | None:
        """``counts`` (jobs per leaf queue path, from a finished replay) with each queue's settings, most jobs
        first, or None for a scheduler without queues (:mod:`mrsim.tracker.routing`)."""
        return None


def assign_one(rm: Any, app: SchedulerApp, node: "NodeManager", allow_rack: bool = True,
               allow_off: bool = True, memory_only: bool = False, ask_filter=None) -> int:
    """Give ``app`` one container on ``node`` at its highest priority with outstanding asks that fits, at the best
    locality allowed. Returns the locality assigned, or 0. Cost O(priorities)."""
    host, rack = node.name, node.rack
    for ask in app.asks:
        if ask.total <= 0 or (ask_filter is not None and not ask_filter(app, ask)):
            continue
        if not fits(node, ask.mem, ask.vcores, memory_only):
            continue
        loc = ask.locality_on(host, rack)
        if loc == RACK_LOCAL and not allow_rack:
            continue
        if loc == OFF_SWITCH and not allow_off:
            continue
        rm.allocate(app, ask, node, loc)
        return loc
    return 0
