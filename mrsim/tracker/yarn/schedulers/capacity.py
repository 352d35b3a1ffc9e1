"""YARN's Capacity Scheduler (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler``
with ``ParentQueue`` and ``LeafQueue``), container by container. Memory only (``DefaultResourceCalculator``).

Configuration: ``capacity-scheduler.xml`` (``--scheduler-config``), keys under ``yarn.scheduler.capacity.``:

* ``root.queues`` and ``<path>.queues`` (the tree), ``<path>.capacity`` (% of the parent; siblings sum to 100),
  ``<path>.maximum-capacity`` (% of the parent, -1 = 100), ``<path>.user-limit-factor`` (1),
  ``<path>.minimum-user-limit-percent`` (100), ``<path>.maximum-am-resource-percent`` and the global
  ``maximum-am-resource-percent`` (0.1), ``<path>.maximum-applications`` / ``maximum-applications`` (10000),
  ``<path>.state`` (RUNNING; STOPPED rejects submissions), ``node-locality-delay`` (-1 = no delay before 2.8; 40
  from 2.8 on, chosen by ``--hadoop-version``), ``queue-mappings`` (``u:user:queue``, ``g:group:queue``,
  ``%user``, ``%primary_group``; checked at load; groups from :mod:`mrsim.tracker.yarn.groups`, a user without
  a mapping being in one group, its own name) and ``queue-mappings-override.enable`` (false: a mapping applies only to apps submitted to ``default``).
  Other keys are reported as ignored.

Behaviour per NodeManager heartbeat (Hadoop 2.x): from ``root``, children are tried in ascending order of used
capacity (used / guaranteed, ties by path), skipping a queue that would exceed its maximum capacity; a leaf serves
its *active* applications in submission order, one container per call, at the first priority that has asks and
passes: the user limit (``computeUserLimit`` over the *active* users, those with containers asked for; rounded up
to the minimum allocation; a user is stopped once its consumption *exceeds* it, so it may pass it by one
container), the locality rules (rack-local only after ``min(node-locality-delay, nodes)`` missed opportunities,
off-switch only after ``min(nodes, asks x getLocalityWaitFactor)`` of them when the app asked for locations, the
factor counting the hosts and racks asked; a priority waiting for locality keeps the app's lower priorities
waiting too), and the queue's maximum capacity. Headroom is rounded down to the minimum allocation. ``root``
keeps assigning until nothing fits or an off-switch container was assigned (at most one off-switch container per heartbeat). An application is *activated* only while
the AMs of the active applications fit in ``maximum-am-resource-percent`` of the queue's guaranteed capacity
(``LeafQueue.activateApplications``, Hadoop 2.6+: at least one application is always active); the others wait.
Preemption (``ProportionalCapacityPreemptionPolicy``) is the RM's monitor, :mod:`mrsim.tracker.yarn.preemption_monitor`.
Application priorities and ordering policies: :mod:`mrsim.tracker.yarn.capacity_ordering`; Hadoop 3's weight and
absolute-resource capacities: :mod:`mrsim.tracker.yarn.capacity_values`. Not modelled: reservations, node labels.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from mrsim.tracker.schedconf.capacity_file import queue_list, read_capacity_file
from mrsim.tracker.yarn.groups import UserGroups
from mrsim.tracker.yarn import capacity_ordering, capacity_values
from mrsim.tracker.yarn.preemption_conf import is_preemption_key
from mrsim.tracker.yarn.schedulers.base import OFF_SWITCH, RACK_LOCAL, SchedulerApp, YarnScheduler
from mrsim.model.yarn_version import from_config
from mrsim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.nodemanager import NodeManager

P = "yarn.scheduler.capacity."
_JAVA_INT_MAX = 2**31 - 1
_JAVA_FLOAT_MAX = 3.4028234663852886e38
_QUEUE_KEYS = {"queues", "capacity", "maximum-capacity", "user-limit-factor", "minimum-user-limit-percent",
               "maximum-am-resource-percent", "maximum-applications", "state"}
_GLOBAL_KEYS = {P + "maximum-am-resource-percent", P + "maximum-applications", P + "node-locality-delay",
                P + "queue-mappings", P + "queue-mappings-override.enable", P + "resource-calculator"}


class UserUsage:
    """Memory (MB) one user's containers hold in one leaf queue (``LeafQueue``'s per-user consumption)."""

    __slots__ = ("mem",)

    def __init__(self) -> None:
        self.mem = 0.0


class CSQueue:
    """A queue of the tree; fractions are of the parent (``capacity``) or of the cluster (``abs_*``)."""

    def __init__(self, path: str, parent: "CSQueue | None") -> None:
        self.path = path
        self.name = path.rsplit(".", 1)[-1]
        self.parent = parent
        self.children: list[CSQueue] = []
        self.capacity = 1.0
        self.max_capacity = 1.0
        self.abs_capacity = 1.0
        self.abs_max = 1.0
        self.user_limit_factor = 1.0
        self.min_user_limit = 100.0
        self.max_am_pct = 0.1
        self.max_apps = 10000
        self.running = True
        self.ordered = False  # serves its apps in another order than submission (capacity_ordering)
        self.used_mem = 0.0
        self.am_used = 0.0
        self.active: dict[int, SchedulerApp] = {}  # insertion = submission order
        # the same apps in the same order as a list, which the heartbeat's walk reads (_assign_leaf): compiled code
        # walks a list by index, a dict's values through the generic iterator (about 110 instructions an app)
        self.active_list: list[SchedulerApp] = []
        self.pending: dict[int, SchedulerApp] = {}
        self.users: dict[str, UserUsage] = {}
        self.active_users: dict[str, int] = {}  # user -> active apps (Hadoop counts users with pending asks)
        # computeUserLimit's last result and its inputs (request MB, queue used MB, active users), one memo for the
        # headroom's (request 0) and one for a container request's
        self.limit_required = -1.0
        self.limit_used = -1.0
        self.limit_users = -1
        self.limit_value = 0.0
        self.headroom_limit_used = -1.0
        self.headroom_limit_users = -1
        self.headroom_limit_value = 0.0

    @property
    def is_leaf(self) -> bool:
        return not self.children


class CapacityScheduler(YarnScheduler):
    name = "capacity"
    hadoop_class = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
    memory_only = True

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        path = config.get("config_file")
        props = {k: (p.value, p.line) for k, p in read_capacity_file(path).props.items()} if path else {}
        for key, value in config.items():
            if key != "config_file" and key.startswith((P, "yarn.resourcemanager.", "yarn.cluster.")):
                props[key] = (str(value), 0)
        # the --yarn-site files: the preemption monitor reads its keys from them too (preemption_monitor)
        self.site_files = tuple(config.get("site_files", ()) or ())
        self.source = str(path) if path else "defaults"
        self.props = props
        self.root = CSQueue("root", None)
        self.leaves: dict[str, CSQueue] = {}
        self._shares: list[tuple[str, float]] | None = None  # queue_shares(), built at first use
        self._paths: set[str] = set()
        self._unknown_queues: dict[str, int] = {}
        self.version = from_config(config)
        self.user_groups = UserGroups.from_config(config, config.get("site_files", ()) or ())
        # CapacitySchedulerConfiguration.DEFAULT_NODE_LOCALITY_DELAY: -1 before 2.8, 40 from 2.8 on
        default_delay = 40 if self.version.at_least(2, 8) and self.version.given else -1
        self.node_locality_delay = self._int(P + "node-locality-delay", default_delay, None)
        self.mappings = self._mappings()
        self.override = self._text(P + "queue-mappings-override.enable", "false").lower() == "true"
        default_am = self._num(P + "maximum-am-resource-percent", 0.1, None)
        default_apps = self._int(P + "maximum-applications", 10000, None)
        # Hadoop 3's weights and absolute capacities, as percentages for the tree's checks (capacity_values)
        self.absolute = capacity_values.rewrite(props, self.source)
        self._build(self.root, default_am, default_apps)
        self._check_mappings()
        # application priorities and ordering policies (capacity_ordering): the default serves in submission order
        self.ordering = capacity_ordering.load(props, self.source, self.site_files,
                                               [q.path for name, q in self.leaves.items() if "." in name])
        self.asked_priority: dict[int, int] = {}  # app index -> mapreduce.job.priority (capacity_ordering)
        self.app_priority: dict[int, int] = {}  # app index -> its priority, when not 0
        for name, q in self.leaves.items():
            if "." in name and self.ordering.policy.get(q.path) == "fair":
                q.ordered = True
        used = {P + "root.queues"}
        for key in sorted(props):
            if key in _GLOBAL_KEYS or key in used or is_preemption_key(key) or capacity_ordering.is_ordering_key(key):
                continue
            m = re.fullmatch(re.escape(P) + r"(root(?:\.[^.]+)*)\.([a-z-]+)", key)
            if m and m.group(2) in _QUEUE_KEYS and (m.group(1) == "root" or m.group(1) in self._paths):
                continue
            line = props[key][1]
            self.warnings.append(f"{self.source}{':' + str(line) if line else ''}: {key} is not modelled (ignored)")
        if self.props.get(P + "resource-calculator", ("", 0))[0].endswith("DominantResourceCalculator"):
            self.warnings.append(f"{self.source}: {P}resource-calculator DominantResourceCalculator is not modelled "
                                 "(memory only)")

    def start(self, rm: Any) -> None:
        super().start(rm)
        # absolute capacities are fractions of the cluster's memory, known from here on
        capacity_values.resolve(self, self.cluster_mem)

    # ------------------------------------------------------------------------------------------ configuration

    def _where(self, key: str) -> str:
        line = self.props.get(key, ("", 0))[1]
        return f"{self.source}:{line}" if line else self.source

    def _text(self, key: str, default: str) -> str:
        return self.props.get(key, (default, 0))[0].strip()

    def _num(self, key: str, default: float, queue: str | None) -> float:
        if key not in self.props:
            return default
        text = self.props[key][0]
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{self._where(key)}: queue {queue or '(global)'}: {key} = {text!r} is not a number") from None
        if not math.isfinite(value):
            raise InputError(f"{self._where(key)}: queue {queue or '(global)'}: {key} is not finite")
        return value

    def _int(self, key: str, default: float, queue: str | None) -> int:
        """A count Hadoop reads with ``getInt``: within a Java int (a larger one would reach the compiled core's
        C types)."""
        value = self._num(key, default, queue)
        if not -_JAVA_INT_MAX - 1 <= value <= _JAVA_INT_MAX:
            raise InputError(f"{self._where(key)}: queue {queue or '(global)'}: {key} = {value:g} is out of range "
                             f"(a Java int: at most {_JAVA_INT_MAX:,})")
        return int(value)

    def _mappings(self) -> list[tuple[str, str, str]]:
        """``CapacitySchedulerConfiguration.getQueueMappings``: comma-separated ``u:user:queue`` / ``g:group:queue``
        entries, each part trimmed; an entry with another kind, another number of parts or an empty part is a
        configuration error (Hadoop's IllegalArgumentException at load)."""
        text = self._text(P + "queue-mappings", "")
        out = []
        for part in filter(None, (x.strip() for x in text.split(","))):
            bits = [b.strip() for b in part.split(":")]
            if len(bits) != 3 or bits[0] not in ("u", "g") or not bits[1] or not bits[2]:
                raise InputError(f"{self._where(P + 'queue-mappings')}: {P}queue-mappings entry {part!r} is not "
                                 "u:user:queue or g:group:queue")
            out.append((bits[0], bits[1], bits[2]))
        return out

    def _check_mappings(self) -> None:
        """A mapping to a fixed queue must name a leaf queue (``CapacityScheduler.initializeQueueMappings``: an
        error at load, not at the first submission); ``%user`` and ``%primary_group`` targets are resolved and
        checked when an app is placed."""
        for kind, who, target in self.mappings:
            if "%" in target:
                continue
            if self.leaves.get(target) is None and self.leaves.get(target.rsplit(".", 1)[-1]) is None:
                raise InputError(f"{self._where(P + 'queue-mappings')}: {P}queue-mappings entry {kind}:{who}:{target} "
                                 f"maps to {target!r}, which is not a leaf queue")

    def _build(self, queue: CSQueue, default_am: float, default_apps: float) -> None:
        self._paths.add(queue.path)
        kids = queue_list(self._text(P + queue.path + ".queues", ""))
        if queue.path == "root" and not kids:
            kids = ["default"]
        total = 0.0
        for kid in kids:
            child = CSQueue(f"{queue.path}.{kid}", queue)
            key = f"{P}{child.path}.capacity"
            if key not in self.props and len(kids) > 1:
                raise InputError(f"{self.source}: queue {child.path}: {key} is missing")
            cap = self._num(key, 100.0, child.path)
            if not 0.0 <= cap <= 100.0:
                raise InputError(f"{self._where(key)}: queue {child.path}: {key} = {cap:g} is outside [0, 100]")
            mkey = f"{P}{child.path}.maximum-capacity"
            mx = self._num(mkey, -1.0, child.path)
            if mx < 0 or mx > 100.0:
                if mx > 100.0:
                    raise InputError(f"{self._where(mkey)}: queue {child.path}: {mkey} = {mx:g} is above 100")
                mx = 100.0
            if mx < cap:
                raise InputError(f"{self._where(mkey)}: queue {child.path}: {mkey} = {mx:g} is below its capacity "
                                 f"{cap:g}")
            child.capacity, child.max_capacity = cap / 100.0, mx / 100.0
            child.abs_capacity = queue.abs_capacity * child.capacity
            child.abs_max = queue.abs_max * child.max_capacity
            ukey = f"{P}{child.path}.user-limit-factor"
            child.user_limit_factor = self._num(ukey, 1.0, child.path)
            if not child.user_limit_factor > 0:
                raise InputError(f"{self._where(ukey)}: queue {child.path}: {ukey} must be positive")
            if child.user_limit_factor > _JAVA_FLOAT_MAX:  # getFloat: Hadoop would read infinity
                raise InputError(f"{self._where(ukey)}: queue {child.path}: {ukey} = {child.user_limit_factor:g} is "
                                 f"out of range (a Java float: at most {_JAVA_FLOAT_MAX:.7g})")
            lkey = f"{P}{child.path}.minimum-user-limit-percent"
            child.min_user_limit = self._num(lkey, 100.0, child.path)
            if not 0 < child.min_user_limit <= 100:
                raise InputError(f"{self._where(lkey)}: queue {child.path}: {lkey} must be in (0, 100]")
            akey = f"{P}{child.path}.maximum-am-resource-percent"
            child.max_am_pct = self._num(akey, default_am, child.path)
            if not 0 < child.max_am_pct <= 1:
                raise InputError(f"{self._where(akey)}: queue {child.path}: {akey} must be in (0, 1]")
            child.max_apps = self._int(f"{P}{child.path}.maximum-applications",
                                       default_apps * child.abs_capacity, child.path)
            child.running = self._text(f"{P}{child.path}.state", "RUNNING").upper() != "STOPPED"
            total += cap
            queue.children.append(child)
            self._build(child, default_am, default_apps)
        if kids and abs(total - 100.0) > 1e-6:
            raise InputError(f"{self.source}: queue {queue.path}: the capacities of its children "
                             f"({', '.join(kids)}) sum to {total:g}, not 100")
        if queue.is_leaf:
            if queue.name in self.leaves:
                raise InputError(f"{self.source}: leaf queue name {queue.name!r} is used twice")
            self.leaves[queue.name] = queue
            self.leaves[queue.path] = queue

    # ------------------------------------------------------------------------------------------ apps

    def place(self, app: SchedulerApp) -> CSQueue:
        """``UserGroupMappingPlacementRule``: queue mappings, then the submitted queue."""
        requested = app.queue_name or "default"
        if self.mappings and (self.override or requested == "default"):
            groups = self.user_groups
            for kind, who, target in self.mappings:
                if (kind == "u" and who in (app.user, "%user")) or (kind == "g" and who in groups.groups(app.user)):
                    name = target.replace("%user", app.user)
                    if "%primary_group" in name:
                        name = name.replace("%primary_group", groups.primary(app.user, app.app_id))
                    requested = name
                    break
        queue = self.leaves.get(requested) or self.leaves.get(requested.rsplit(".", 1)[-1])
        if queue is None and self.source == "defaults":
            # No capacity-scheduler.xml: Hadoop would reject the app; a trace's queue names mean nothing here.
            self._unknown_queues[requested] = self._unknown_queues.get(requested, 0) + 1
            queue = self.leaves["default"]
        if queue is None:
            raise InputError(f"job {app.app_id}: submitted to queue {requested!r}, which is not a leaf queue of "
                             f"{self.source} (leaves: {', '.join(sorted(q for q in self.leaves if '.' not in q))})")
        if not queue.running:
            raise InputError(f"job {app.app_id}: queue {queue.path} is STOPPED in {self.source}")
        return queue

    def routes(self, counts: dict[str, int]) -> list[tuple[str, int]]:
        """Jobs per leaf queue with its absolute capacity and user-limit-factor."""
        from mrsim.tracker.routing import ordered

        out = []
        for path, n in ordered(counts):
            q = self.leaves.get(path)
            settings = (f" (capacity {100 * q.abs_capacity:g} %, user-limit-factor {q.user_limit_factor:g})"
                        if q is not None else "")
            out.append((f"{path}{settings}", n))
        return out

    def add_app(self, app: SchedulerApp) -> None:
        queue = self.place(app)
        app.queue = queue.path
        app.sched = queue
        usage = queue.users.get(app.user)
        if usage is None:
            usage = queue.users[app.user] = UserUsage()
        # the app's user's usage in its queue (the queue's ``users`` entry), looked up once per app: an attribute of
        # the app, where a dict keyed by app index cost a lookup at every charge (about 140 instructions)
        app.usage = usage
        priority = self.ordering.priority(queue.path, self.asked_priority.get(app.index))
        if priority != 0:
            self.app_priority[app.index] = priority
            for _name, q in self.leaves.items():
                q.ordered = True  # priorities differ from now on: every leaf sorts
        queue.pending[app.index] = app
        app.runnable = False  # until activated (no RM bookkeeping yet: the app has no asks)
        self._activate(queue)

    def _am_limit(self, queue: CSQueue) -> float:
        assert self.rm is not None
        return self.cluster_mem * queue.abs_capacity * queue.max_am_pct

    def _activate(self, queue: CSQueue) -> None:
        """``LeafQueue.activateApplications``: AMs of active apps within the AM limit; at least one active."""
        limit = self._am_limit(queue)
        waiting = list(queue.pending)
        if self.app_priority:  # FifoOrderingPolicyForPendingApps: priority, then submission
            waiting.sort(key=lambda i: (-self.app_priority.get(i, 0), queue.pending[i].order))
        for index in waiting:
            app = queue.pending[index]
            if queue.active and queue.am_used + app.am_mem > limit:
                break
            del queue.pending[index]
            queue.active[index] = app
            queue.active_list.append(app)
            queue.active_users[app.user] = queue.active_users.get(app.user, 0) + 1
            queue.am_used += app.am_mem
            self.set_runnable(app, True)

    def remove_app(self, app: SchedulerApp) -> None:
        queue: CSQueue = app.sched  # type: ignore[assignment]
        if queue.active.pop(app.index, None) is not None:
            active = queue.active_list
            for j in range(len(active)):  # O(active apps), once per app
                if active[j] is app:
                    del active[j]
                    break
            queue.am_used -= app.am_mem
            left = queue.active_users[app.user] - 1
            if left:
                queue.active_users[app.user] = left
            else:
                del queue.active_users[app.user]
        queue.pending.pop(app.index, None)
        self._activate(queue)

    def charge(self, app: SchedulerApp, mem: float, vcores: float, am: bool) -> None:
        q: CSQueue | None = app.sched  # type: ignore[assignment]
        queue = q
        assert queue is not None
        usage: UserUsage = app.usage  # type: ignore[assignment]
        usage.mem += mem
        while q is not None:
            q.used_mem += mem
            q = q.parent

    # ------------------------------------------------------------------------------------------ limits

    def _active_users(self, queue: CSQueue) -> int:
        """``ActiveUsersManager.getNumActiveUsers``: the users of ``queue`` with an app that has containers asked
        for (``AppSchedulingInfo`` activates a user at its first outstanding ask and deactivates it when none is
        left), admitted or not. Cost O(apps in the queue)."""
        known = self.pending_known
        users: set[str] = set()
        for group in (queue.active_list, queue.pending.values()):
            for a in group:
                if (a.pending_mb > 0.0) if known else a.wants():
                    users.add(a.user)
        return len(users)

    def _user_limit(self, queue: CSQueue, required: float) -> float:
        """``LeafQueue.computeUserLimit`` (memory, Hadoop 2.x): the queue's guaranteed capacity normalised up to the
        minimum allocation (and at least ``required``); the current capacity is that while the queue is below it,
        else its usage plus ``required``; the limit is max(ceil(current / active users) (0 without active users),
        ceil(current x MULP / 100)),
        at most capacity x user-limit-factor, rounded up to the minimum allocation."""
        used = queue.used_mem
        n_users = self._active_users(queue)
        # the last result for this request, while its inputs hold
        if required == 0.0:
            if queue.headroom_limit_used == used and queue.headroom_limit_users == n_users:
                return queue.headroom_limit_value
        elif queue.limit_required == required and queue.limit_used == used and queue.limit_users == n_users:
            return queue.limit_value
        step = self.min_mem
        capacity = math.ceil(queue.abs_capacity * self.cluster_mem / step - 1e-9) * step  # multiplyAndNormalizeUp
        if capacity < required:
            capacity = required  # queues with a minuscule capacity make progress
        current = capacity if used < capacity else used + required
        # Resources.divideAndCeil by 0 active users is 0 (an app with nothing asked reads its headroom so)
        per_user = math.ceil(current / n_users - 1e-9) if n_users > 0 else 0
        limit = max(per_user, math.ceil(math.floor(current * queue.min_user_limit) / 100.0))
        cap = math.floor(capacity * queue.user_limit_factor + 1e-9)
        value = math.ceil(min(limit, cap) / step - 1e-9) * step  # Resources.roundUp to the minimum allocation
        if required == 0.0:
            queue.headroom_limit_used, queue.headroom_limit_users, queue.headroom_limit_value = used, n_users, value
        else:
            queue.limit_required, queue.limit_used, queue.limit_users, queue.limit_value = required, used, n_users, value
        return value

    def _queue_fits(self, queue: CSQueue, required: float) -> bool:
        return queue.used_mem + required <= queue.abs_max * self.cluster_mem + 1e-6

    def headroom(self, app: SchedulerApp) -> float:
        assert self.rm is not None
        queue: CSQueue = app.sched  # type: ignore[assignment]
        usage: UserUsage = app.usage  # type: ignore[assignment]
        user_room = self._user_limit(queue, 0.0) - usage.mem
        q: CSQueue | None = queue
        room: float = self.rm.free_mem
        cluster = self.cluster_mem
        while q is not None:
            left = q.abs_max * cluster - q.used_mem
            if left < room:  # min(room, left), as the builtin picks: the first of equals
                room = left
            q = q.parent
        if user_room < room:
            room = user_room
        # LeafQueue.getHeadroom: min(min(user limit, queue limit) - user usage, queue limit - queue usage), rounded
        # down to the minimum allocation (the queue limit: its and its parents' maximum capacity, the cluster's
        # free memory)
        step = self.min_mem
        room = math.floor(room / step + 1e-9) * step
        return room if room > 0.0 else 0.0

    # ------------------------------------------------------------------------------------------ assignment

    def node_update(self, node: "NodeManager") -> None:
        assert self.rm is not None
        while node.free_mem >= self.min_mem:
            loc = self._assign(self.root, node)
            if not loc or loc == OFF_SWITCH:
                return

    def _assign(self, queue: CSQueue, node: "NodeManager") -> int:
        if queue.is_leaf:
            return self._assign_leaf(queue, node)
        kids = queue.children
        if len(kids) > 1:
            kids = sorted(kids, key=lambda q: (q.used_mem / q.abs_capacity if q.abs_capacity > 0 else math.inf, q.path))
        for child in kids:
            loc = self._assign(child, node)
            if loc:
                return loc
        return 0

    def _assign_leaf(self, queue: CSQueue, node: "NodeManager") -> int:
        n_nodes = self.n_nodes
        rack_after = min(n_nodes, self.node_locality_delay)
        free = node.free_mem + 1e-9
        host, rack = node.name, node.rack
        limited = len(queue.active_users) > 1 or queue.user_limit_factor < 1.0 or queue.abs_capacity < 1.0
        # The queue-fit test and the user limit of the last request size (nothing changes within this call, and
        # the requests of one call are nearly always of one size): a one-entry memo each
        fit_mem, fit_ok = -1.0, False
        limit_mem, limit = -1.0, 0.0
        skip_idle = self.pending_known
        apps = queue.active_list if not queue.ordered else self.serving_order(queue)
        for app in apps:  # the loop ends at the first allocation: the list does not change under it
            if skip_idle and app.pending_mb <= 0.0:
                continue  # nothing asked: the loop below would find nothing
            for ask in app.asks:
                mem = ask.mem
                if ask.total <= 0 or mem > free:
                    continue
                if mem != fit_mem:
                    fit_mem, fit_ok = mem, self._queue_fits_chain(queue, mem)
                if not fit_ok:
                    return 0
                # LeafQueue.assignToUser: consumed > limit (not consumed + request: a user may pass its limit by
                # one container, as Hadoop's comment there says)
                if limited:
                    if mem != limit_mem:
                        limit_mem, limit = mem, self._user_limit(queue, mem) + 1e-6
                    user_usage: UserUsage = app.usage  # type: ignore[assignment]
                    if user_usage.mem > limit:
                        break  # this user is at its limit: next app
                missed = ask.missed + 1
                ask.missed = missed
                loc = ask.locality_on(host, rack)
                if loc == RACK_LOCAL and not (rack_after < missed):
                    loc = OFF_SWITCH  # rack-local not yet allowed: try off-switch (assignContainersOnNode)
                if loc == OFF_SWITCH and ask.has_locality:
                    # canAssign(OFF_SWITCH): wait for min(nodes, asks x getLocalityWaitFactor) missed opportunities;
                    # the factor counts the hosts and racks ever asked at this priority (AppSchedulingInfo keeps a
                    # request whose count fell to 0) over the cluster's nodes, at most 1
                    names = len(ask.by_host) + len(ask.by_rack)
                    factor = min(names / n_nodes, 1.0) if n_nodes else 1.0
                    wait = ask.total * factor
                    if wait > n_nodes:
                        wait = float(n_nodes)
                    if not missed > wait:
                        break  # "do not assign out of order w.r.t. priorities": no lower priority, next app
                self.give(app, ask, node, loc)
                if loc != OFF_SWITCH:
                    ask.missed = 0
                return loc
        return 0

    def serving_order(self, queue: CSQueue) -> list[SchedulerApp]:
        """The leaf's active apps in the order it serves them (its ordering policy and the apps' priorities)."""
        if not queue.ordered:
            return queue.active_list
        return self.ordering.order(queue.path, queue.active_list, self.app_priority)

    def _queue_fits_chain(self, queue: CSQueue, required: float) -> bool:
        q: CSQueue | None = queue
        while q is not None:
            if not self._queue_fits(q, required):
                return False
            q = q.parent
        return True

    def queue_shares(self) -> list:
        """Guaranteed capacity per leaf queue: fixed for a replay, so built once."""
        assert self.rm is not None
        if self._shares is None:
            self._shares = [(q.path, q.abs_capacity * self.rm.cluster_mem) for name, q in self.leaves.items()
                            if "." in name]
        return self._shares

    def describe(self) -> dict:
        for name, n in sorted(self._unknown_queues.items()):
            text = (f"capacity scheduler without a configuration file: {n} job(s) submitted to queue {name!r} "
                    "run in root.default")
            if text not in self.warnings:
                self.warnings.append(text)
        out = super().describe()
        out["queues"] = {q.path: {"capacity": round(q.abs_capacity * 100, 6), "maximum-capacity": round(q.abs_max * 100, 6),
                                  "user-limit-factor": q.user_limit_factor,
                                  "minimum-user-limit-percent": q.min_user_limit,
                                  "maximum-am-resource-percent": q.max_am_pct}
                         for name, q in self.leaves.items() if "." in name}
        policies = {p: v for p, v in self.ordering.policy.items() if v != "fifo"}
        if policies:
            out["ordering_policies"] = policies
        if self.app_priority:
            out["application_priorities"] = {"max": self.ordering.max_priority,
                                             "apps_with_priority": len(self.app_priority)}
        out["node_locality_delay"] = self.node_locality_delay
        out["queue_mappings"] = [":".join(m) for m in self.mappings]
        out["source"] = self.source
        return out
