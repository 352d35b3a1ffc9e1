"""YARN's Fair Scheduler (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler``, with
``FSParentQueue``, ``FSLeafQueue``, ``FSAppAttempt``, ``QueuePlacementPolicy`` and the ``fair``, ``drf`` and ``fifo``
``SchedulingPolicy`` classes), container by container.

Configuration: the allocation file (``--scheduler-config fair-scheduler.xml``, root ``<allocations>``) and the
``yarn.scheduler.fair.*`` keys (a ``<configuration>`` file given as ``--scheduler-config``, or the config dict).
Honoured: nested ``<queue name>`` (or ``<pool>``) with ``weight``, ``minResources``, ``maxResources`` ("X mb, Y
vcores" or "memory-mb=X, vcores=Y"), ``maxRunningApps``, ``maxAMShare`` (default 0.5 as in Hadoop 2.6+ and 3.x;
-1 turns the check off; Hadoop 2.5 had no such key), ``schedulingPolicy`` (fair, drf, fifo); top-level
``queueMaxAMShareDefault``, ``queueMaxAppsDefault``, ``userMaxAppsDefault``, ``<user name><maxRunningApps>``,
``defaultQueueSchedulingPolicy`` and ``queuePlacementPolicy`` (rules specified, user, primaryGroup,
secondaryGroupExistingQueue (groups: :mod:`mrsim.tracker.yarn.groups`), default (with ``queue``), reject;
``create``; checked for terminal rules at load, as ``QueuePlacementPolicy`` does); with ``--hadoop-version`` 2.9+
``maxChildResources`` and 3.2+ ``maxContainerAllocation``. yarn-site keys (from ``--yarn-site`` and a
``<configuration>`` file): ``user-as-default-queue`` (true), ``allow-undeclared-pools`` (true), ``assignmultiple``
(false) and ``max.assign`` (-1). Everything else is
reported as ignored, including preemption (``yarn.scheduler.fair.preemption`` and the preemption timeouts: not
modelled), locality thresholds (no delay scheduling: YARN's default) and ``sizebasedweight``.

Per NodeManager heartbeat (``FairScheduler.attemptScheduling``): one container (several with assignmultiple), found
by walking from ``root``: at each parent the children are sorted by the parent's policy and the first that can take a
container gets it; a leaf sorts its runnable apps by its policy; an app gets its highest-priority ask that fits,
node-local before rack-local before off-switch. A queue never exceeds ``maxResources``; an app's AM container is
given only while the queue's AM usage plus it stays within ``maxAMShare`` x the queue's fair share
(``FSLeafQueue.canRunAppAM``). Fair shares (``ComputeFairShares``): among the active children of each parent (those
with apps), weight x R clamped to [minResources, maxResources], R found by bisection so the shares fill the parent's
share (memory; ``drf`` queues use the same memory shares for ``maxAMShare``).
"""

from __future__ import annotations

import heapq
import math
import re
from typing import TYPE_CHECKING, Final, Iterable, Iterator

from mrsim.tracker.schedconf.allocation_file import read_allocation_file
from mrsim.tracker.schedconf.document import Element, read_document
from mrsim.tracker.schedconf.site_file import properties_of, read_site_file
from mrsim.tracker.yarn.groups import UserGroups
from mrsim.tracker.yarn.schedulers.base import PRIORITY_AM, SchedulerApp, YarnScheduler
from mrsim.model.yarn_version import from_config
from mrsim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.yarn.nodemanager import NodeManager
    from mrsim.tracker.yarn.timeseries import QueueStats

Y = "yarn.scheduler.fair."
_SITE_KEYS = {Y + "allocation.file", Y + "user-as-default-queue", Y + "allow-undeclared-pools", Y + "assignmultiple",
              Y + "max.assign"}
POLICIES = ("fair", "drf", "fifo")
#: Placement rules modelled, and the ones Hadoop has that mrsim skips (with a warning)
_RULES: Final = ("specified", "user", "primaryGroup", "secondaryGroupExistingQueue", "default", "reject")
_UNMODELLED_RULES: Final = ("nestedUserQueue",)
#: Allocation-file queue elements of later Hadoop releases: the release that honours each
_LATER: Final = {"maxChildResources": "2.9", "maxContainerAllocation": "3.2"}
#: Children a parent queue under the fair policy tries by one pass each before sorting the rest (_assign_fair_children)
_SCANS: Final = 3
INF: Final = math.inf


class FSQueue:
    """A queue of the tree (memory in MB)."""

    def __init__(self, path: str, parent: "FSQueue | None") -> None:
        self.path = path
        self.parent = parent
        self.children: list[FSQueue] = []
        self.parent_type = False
        self.weight = 1.0
        self.min_mem = 0.0
        self.min_vcores = 0.0
        self.max_mem = INF
        self.max_vcores = INF
        self.max_apps = -1
        self.max_am_share = 0.5
        # maxChildResources (2.9+): the maxResources of the ad hoc queues placement creates as direct children;
        # maxContainerAllocation (3.2+): the largest container an app of this queue (or of its subtree) may ask for
        self.max_child: tuple[float, float] | None = None
        self.max_container: tuple[float, float] | None = None
        # whether maxAMShare / maxRunningApps take the allocation file's defaults (no value of the queue's own)
        self.am_share_default = True
        self.max_apps_default = True
        self.policy = "fair"
        self.used_mem = 0.0
        self.used_vcores = 0.0
        self.am_used = 0.0
        self.fair_share = 0.0
        # derived from the configuration (set by FairScheduler._derive): a child has a min share; this queue or an
        # ancestor has a finite maxResources
        self.kids_min = False
        self.share_memo: tuple = ()  # (own fair share, active children) the children's shares were computed for
        self.capped: bool = parent.capped if parent is not None else False
        # the position of this queue's path among its siblings' paths (FairScheduler._rank_children): the walk
        # breaks ties of usage / weight by comparing two ints instead of two strings (the same order)
        self.rank = 0
        self.n_apps = 0  # runnable apps in this queue's subtree (kept on every change: "active" is n_apps > 0)
        self.apps: dict[int, SchedulerApp] = {}  # runnable, submission order
        self.waiting: dict[int, SchedulerApp] = {}  # not runnable (maxRunningApps)
        # the runnable apps split by whether their AM container is allocated, so a heartbeat looks only at apps that
        # can take something: AM-less apps ask for their AM alone, and are all held back when the smallest of them
        # would pass maxAMShare (am_sizes: AM memory -> number of such apps)
        self.am_waiting: dict[int, SchedulerApp] = {}
        self.am_sizes: dict[float, int] = {}
        # a list, in no particular order (every walk over it orders by keys that end in the app's unique submission
        # order): compiled code iterates a list natively, a dict's values through the generic iterator (about 100
        # instructions per app, and the heartbeat's leaf scans them all)
        self.am_holders: list[SchedulerApp] = []
        # a leaf's totals as the ResourceManager keeps them (its apps' ``SchedulerApp.stats``, taken at the first
        # charge; None before, and for parents and under a stand-in RM): a leaf with no container asked for by
        # any of its apps cannot take one, and the walk skips it (:meth:`FairScheduler._may_take`)
        self.stats: "QueueStats | None" = None

    @property
    def is_leaf(self) -> bool:
        return not self.children and not self.parent_type

    def active(self) -> bool:
        return self.n_apps > 0

    def demand(self) -> float:
        if self.is_leaf:
            return sum(a.used_mem + a.pending_mem for a in self.apps.values())
        return sum(c.demand() for c in self.children)


def _min_first(keyed: list[tuple]) -> Iterator:
    """The last items of ``keyed`` in ascending key order, found lazily: the least by one ``min`` (O(k)), the rest
    sorted only if the caller asks for more. A heartbeat's first choice nearly always takes the container, so
    this saves the sort. The keys are unique (they end in a name or a submission order before the object)."""
    if not keyed:
        return
    best = min(keyed)
    yield best[-1]
    if len(keyed) > 1:
        keyed.sort()
        for k in keyed:
            if k is not best:
                yield k[-1]


def _discard(apps: list[SchedulerApp], app: SchedulerApp) -> None:
    """Remove ``app`` from ``apps`` if it is there (by identity; the last one takes its place: the list's order is
    never read). O(len(apps))."""
    for i in range(len(apps)):
        if apps[i] is app:
            apps[i] = apps[-1]
            apps.pop()
            return


def _clean(name: str) -> str:
    """``QueuePlacementRule.cleanName``: a period in a user or group name would make a nested queue."""
    return name.strip().replace(".", "_dot_")


def compute_shares(weights: list[float], mins: list[float], maxs: list[float], total: float) -> list[float]:
    """``ComputeFairShares.computeShares`` for one resource: each share is ``weight x R`` clamped to [min, max], with
    R found by bisection (60 halvings, from an upper bound found by doubling) so the shares fill ``total``; every
    share is its max when the maxima sum to no more than ``total``. Hadoop truncates each share to an integer
    after 25 halvings; mrsim keeps the float (within 1e-6 of Hadoop's value when that is exact). Cost
    O(60 x len(weights))."""
    n = len(weights)

    def filled(r: float) -> float:
        return sum(min(max(weights[i] * r, mins[i]), maxs[i]) for i in range(n))

    cap = sum(min(m, 1e18) for m in maxs)
    if cap <= total:
        return list(maxs)
    hi = 1.0
    while filled(hi) < total and hi < 1e18:
        hi *= 2.0
    lo = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if filled(mid) < total:
            lo = mid
        else:
            hi = mid
    return [min(max(weights[i] * hi, mins[i]), maxs[i]) for i in range(n)]


def _resources(text: str, where: str, queue: str, key: str) -> tuple[float, float]:
    t = text.strip().lower()
    mem = re.search(r"(\d+(?:\.\d+)?)\s*mb", t) or re.search(r"memory(?:-mb)?\s*=\s*(\d+(?:\.\d+)?)", t)
    vc = re.search(r"(\d+(?:\.\d+)?)\s*vcores", t) or re.search(r"vcores\s*=\s*(\d+(?:\.\d+)?)", t)
    if mem is None or vc is None:
        raise InputError(f"{where}: queue {queue}: {key} = {text!r} is not 'X mb, Y vcores'")
    return float(mem.group(1)), float(vc.group(1))


class FairScheduler(YarnScheduler):
    name = "fair"
    hadoop_class = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.version = from_config(config)
        self.user_groups = UserGroups.from_config(config, config.get("site_files", ()) or ())
        site: dict[str, tuple[str, str]] = {}
        # yarn-site.xml files first (--yarn-site, in order): the RM reads the yarn.scheduler.fair.* keys from there;
        # a --scheduler-config <configuration> file and the config dict override them
        for path in config.get("site_files", ()) or ():
            for k, p in read_site_file(str(path)).props.items():
                if k.startswith(Y):
                    site[k] = (p.value, f"{path}:{p.line}")
        alloc_path = None
        cfg = config.get("config_file")
        if cfg:
            root = read_document(str(cfg))
            if root.tag == "allocations":
                alloc_path = str(cfg)
            elif root.tag == "configuration":
                for k, p in properties_of(root).items():
                    site[k] = (p.value, f"{cfg}:{p.line}")
            else:
                raise InputError(f"{cfg}:{root.line}: expected <allocations> or <configuration>, found <{root.tag}>")
        for k, v in config.items():
            if k.startswith(Y):
                site[k] = (str(v).lower() if isinstance(v, bool) else str(v), "scheduler config")
        for k, (_value, where) in sorted(site.items()):
            if k.startswith(Y) and k not in _SITE_KEYS:
                self.warnings.append(f"{where}: {k} is not modelled (ignored)")
        if alloc_path is None and Y + "allocation.file" in site:
            alloc_path = site[Y + "allocation.file"][0]

        def flag(key: str, default: bool) -> bool:
            if key not in site:
                return default
            text = site[key][0].strip().lower()
            if text not in ("true", "false"):
                raise InputError(f"{site[key][1]}: {key} = {text!r} is not true or false")
            return text == "true"

        self.user_as_default = flag(Y + "user-as-default-queue", True)
        self.allow_undeclared = flag(Y + "allow-undeclared-pools", True)
        self.assignmultiple = flag(Y + "assignmultiple", False)
        self.max_assign = int(float(site.get(Y + "max.assign", ("-1", ""))[0]))
        self.source = alloc_path or "defaults"
        self.root = FSQueue("root", None)
        self.root.parent_type = True
        self.queues: dict[str, FSQueue] = {"root": self.root}
        self._shares: list[tuple[str, float]] | None = None  # queue_shares(), until the shares change
        self.default_max_am_share = 0.5
        self.default_max_apps = -1
        self.user_max_default = -1
        self.user_max: dict[str, int] = {}
        self.default_policy = "fair"
        self.rules: list[tuple[str, bool, str]] = []  # (rule, create, queue of a default rule)
        if alloc_path:
            self._load(read_allocation_file(alloc_path).root)
        if not any(q.is_leaf for q in self.queues.values()) or "root.default" not in self.queues:
            self._leaf("root.default", create=True)
        self.user_running: dict[str, int] = {}
        self._derive(self.root)

    # ------------------------------------------------------------------------------------------ allocation file

    def _at(self, node: Element) -> str:
        return f"{self.source}:{node.line}"

    def _load(self, root: Element) -> None:
        if root.tag != "allocations":
            raise InputError(f"{self._at(root)}: expected <allocations>, found <{root.tag}>")
        for el in root.children:
            if el.tag == "defaultQueueSchedulingPolicy" or el.tag == "defaultQueueSchedulingMode":
                self.default_policy = self._policy(el, "root")
        self.root.policy = self.default_policy  # root is a queue like any other (an explicit <queue name="root"> wins)
        for el in root.children:
            tag = el.tag
            if tag in ("queue", "pool"):
                self._queue(el, self.root)
            elif tag == "queueMaxAMShareDefault":
                self.default_max_am_share = self._number(el, "root", tag)
            elif tag == "queueMaxAppsDefault":
                self.default_max_apps = int(self._number(el, "root", tag))
            elif tag == "userMaxAppsDefault":
                self.user_max_default = int(self._number(el, "root", tag))
            elif tag == "user":
                for c in el.children:
                    if c.tag == "maxRunningApps":
                        self.user_max[el.attrs.get("name", "")] = int(self._number(c, "root", c.tag))
            elif tag == "queuePlacementPolicy":
                self._placement_policy(el)
            elif tag in ("defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode"):
                pass
            else:
                self.warnings.append(f"{self._at(el)}: <{tag}> is not modelled (ignored)")
        for q in self.queues.values():  # defaults that apply to queues without their own value
            if q.am_share_default:
                q.max_am_share = self.default_max_am_share
            if q.max_apps_default:
                q.max_apps = self.default_max_apps

    def _placement_policy(self, el: Element) -> None:
        """``QueuePlacementPolicy.fromXml``: the rules in order. As Hadoop does, a policy whose last rule is not
        terminal (an app could pass every rule unplaced), or with a rule after a terminal one (never reached), is a
        configuration error; so is a rule Hadoop does not know. ``nestedUserQueue``, which mrsim does not model, is
        skipped with a warning but counts in the check."""
        seen: list[tuple[str, bool, Element]] = []
        for rule in el.children:
            if rule.tag != "rule":
                continue
            kind = rule.attrs.get("name", "")
            create = rule.attrs.get("create", "true").strip().lower() != "false"
            if kind not in _RULES and kind not in _UNMODELLED_RULES:
                raise InputError(f"{self._at(rule)}: queuePlacementPolicy: no placement rule named {kind!r} (expected "
                                 f"one of {', '.join(_RULES + _UNMODELLED_RULES)})")
            seen.append((kind, create, rule))
            if kind in _UNMODELLED_RULES:
                self.warnings.append(f"{self._at(rule)}: placement rule {kind!r} is not modelled (skipped)")
                continue
            self.rules.append((kind, create, rule.attrs.get("queue", "default")))
        for i, (kind, create, rule) in enumerate(seen[:-1]):
            if self._terminal(kind, create):
                raise InputError(f"{self._at(rule)}: queuePlacementPolicy: rule {i + 1} ({kind}) is terminal, so the "
                                 "rules after it can never be reached")
        if seen and not self._terminal(seen[-1][0], seen[-1][1]):
            kind, create, rule = seen[-1]
            raise InputError(f"{self._at(rule)}: queuePlacementPolicy: the last rule ({kind}"
                             f"{'' if create else ', create=false'}) is not terminal, so an app could pass every rule "
                             "without a queue")

    def _terminal(self, kind: str, create: bool) -> bool:
        """``QueuePlacementRule.isTerminal``: reject always; user, primaryGroup and nestedUserQueue when they may
        create the queue; default always in 2.x, only with create in 3.x; specified and
        secondaryGroupExistingQueue never."""
        if kind == "reject":
            return True
        if kind == "default":
            return create or self.version.major < 3
        return create and kind in ("user", "primaryGroup", "nestedUserQueue")

    def _number(self, el: Element, queue: str, key: str) -> float:
        try:
            value = float(el.text)
        except ValueError:
            raise InputError(f"{self._at(el)}: queue {queue}: {key} = {el.text!r} is not a number") from None
        if not math.isfinite(value):
            raise InputError(f"{self._at(el)}: queue {queue}: {key} is not finite")
        return value

    def _policy(self, el: Element, queue: str) -> str:
        text = el.text.strip().lower()
        if text not in POLICIES:
            raise InputError(f"{self._at(el)}: queue {queue}: {el.tag} = {el.text!r} is not one of "
                             f"{', '.join(POLICIES)}")
        return text

    def _queue(self, el: Element, parent: FSQueue) -> None:
        name = el.attrs.get("name", "").strip()
        if not name:
            raise InputError(f"{self._at(el)}: a <{el.tag}> has no name")
        if name == "root" and parent is self.root:
            path = "root"
        else:
            path = name if name.startswith("root.") else f"{parent.path}.{name}"
        q = self.queues.get(path) or FSQueue(path, parent)
        if path not in self.queues:
            self.queues[path] = q
            parent.children.append(q)
            self._rank_children(parent)
        q.policy = self.default_policy
        q.parent_type = el.attrs.get("type", "") == "parent" or path == "root"
        q.am_share_default = True
        q.max_apps_default = True
        for c in el.children:
            tag = c.tag
            if tag in ("queue", "pool"):
                self._queue(c, q)
            elif tag == "weight":
                q.weight = self._number(c, path, tag)
                if q.weight < 0:
                    raise InputError(f"{self._at(c)}: queue {path}: weight = {c.text!r} must not be negative")
            elif tag == "minResources":
                q.min_mem, q.min_vcores = _resources(c.text, self._at(c), path, tag)
            elif tag == "maxResources":
                q.max_mem, q.max_vcores = _resources(c.text, self._at(c), path, tag)
            elif tag == "maxRunningApps":
                q.max_apps = int(self._number(c, path, tag))
                q.max_apps_default = False
            elif tag == "maxAMShare":
                q.max_am_share = self._number(c, path, tag)
                if q.max_am_share > 1 or (q.max_am_share < 0 and q.max_am_share != -1):
                    raise InputError(f"{self._at(c)}: queue {path}: maxAMShare = {c.text!r} must be in [0, 1] or -1")
                q.am_share_default = False
            elif tag in ("schedulingPolicy", "schedulingMode"):
                q.policy = self._policy(c, path)
            elif tag == "maxChildResources" and self.version.at_least(2, 9):
                q.max_child = _resources(c.text, self._at(c), path, tag)
            elif tag == "maxContainerAllocation" and self.version.at_least(3, 2):
                q.max_container = _resources(c.text, self._at(c), path, tag)
            elif tag in _LATER:
                since = _LATER[tag]
                self.warnings.append(f"{self._at(c)}: queue {path}: <{tag}> is Hadoop {since}+ and the run follows "
                                     f"{self.version.text} (--hadoop-version {since} or later honours it; ignored)")
            else:
                self.warnings.append(f"{self._at(c)}: queue {path}: <{tag}> is not modelled (ignored)")
        if q.min_mem > q.max_mem:
            raise InputError(f"{self._at(el)}: queue {path}: minResources exceed maxResources")
        if q.children and q.policy == "fifo":
            raise InputError(f"{self._at(el)}: queue {path}: schedulingPolicy fifo is allowed on leaf queues only")

    def _leaf(self, path: str, create: bool) -> FSQueue | None:
        if not path.startswith("root."):
            path = "root." + path
        q = self.queues.get(path)
        if q is not None:
            return q if q.is_leaf else None
        if not create:
            return None
        parent = self.root
        parts = path.split(".")
        for i in range(1, len(parts)):
            sub = ".".join(parts[: i + 1])
            q = self.queues.get(sub)
            if q is None:
                q = FSQueue(sub, parent)
                if parent.max_child is not None:  # an ad hoc child of a queue with maxChildResources
                    q.max_mem, q.max_vcores = parent.max_child
                    q.capped = True
                q.policy = self.default_policy
                q.max_am_share = self.default_max_am_share
                q.max_apps = self.default_max_apps
                self.queues[sub] = q
                parent.children.append(q)
                self._rank_children(parent)
                self._shares = None
            parent = q
        return q

    # ------------------------------------------------------------------------------------------ apps

    def place(self, app: SchedulerApp) -> FSQueue:
        """``QueuePlacementPolicy.assignAppToQueue`` (default policy: specified, then user, then default) and
        ``FairScheduler.assignToQueue``. An empty queue name is rejected (``FairScheduler.addApplication``); only the
        name ``default`` counts as unspecified (``root.default`` is specified); a rule's queue that exists is used
        when it is a leaf and rejects the app when it is a parent; a missing one is created when the rule may create
        it, else the next rule is tried (a 2.x ``default`` rule without create rejects the app instead)."""
        requested = app.queue_name
        if not requested.strip():
            raise InputError(f"job {app.app_id}: submitted with an empty queue name, which the Fair Scheduler rejects")
        rules = self.rules or ([("specified", self.allow_undeclared, "")]
                               + ([("user", self.allow_undeclared, "")] if self.user_as_default else [])
                               + [("default", True, "default")])
        for kind, create, target in rules:
            if kind == "specified":
                if requested == "default":
                    continue
                name = requested
            elif kind == "user":
                name = _clean(app.user)
            elif kind == "primaryGroup":
                name = _clean(self.user_groups.primary(app.user, app.app_id))
            elif kind == "secondaryGroupExistingQueue":
                # the first of the user's other groups that names an existing queue (the rule never creates one)
                found = [g for g in (_clean(g) for g in self.user_groups.groups(app.user)[1:])
                         if "root." + g in self.queues]
                if not found:
                    continue
                name, create = found[0], False
            elif kind == "default":
                name = target or "default"
            else:  # reject
                raise InputError(f"job {app.app_id}: rejected by the placement policy of {self.source} "
                                 f"(queue {requested!r}, user {app.user!r})")
            path = name if name.startswith("root.") else "root." + name
            q = self.queues.get(path)
            if q is not None and not q.is_leaf:
                raise InputError(f"job {app.app_id}: the {kind} placement rule puts it in {path}, a parent queue of "
                                 f"{self.source}: rejected (apps run in leaf queues)")
            if q is None and create:
                q = self._leaf(path, True)
            if q is not None:
                return q
            if kind == "default" and self.version.major < 3:  # terminal in 2.x even without create: rejected
                raise InputError(f"job {app.app_id}: the default placement rule names {path}, which does not exist "
                                 f"in {self.source} and may not be created (create=false): rejected")
        raise InputError(f"job {app.app_id}: no placement rule of {self.source} placed it (queue {requested!r}, user "
                         f"{app.user!r}): rejected")

    def container_limit(self, app: SchedulerApp) -> tuple[float, float, str] | None:
        """``FSQueue.getMaximumContainerAllocation``: the ``maxContainerAllocation`` of the app's queue, else of its
        nearest ancestor that has one (MB, vcores, that queue's path); None when none has."""
        q: FSQueue | None = app.sched  # type: ignore[assignment]
        while q is not None:
            if q.max_container is not None:
                return q.max_container[0], q.max_container[1], q.path
            q = q.parent
        return None

    def routes(self, counts: dict[str, int]) -> list[tuple[str, int]]:
        """Jobs per leaf queue with its weight and minimum memory."""
        from mrsim.tracker.routing import ordered

        out = []
        for path, n in ordered(counts):
            q = self.queues.get(path)
            settings = f" (weight {q.weight:g}, minResources {q.min_mem:g} MB)" if q is not None else ""
            out.append((f"queue {path}{settings}", n))
        return out

    def add_app(self, app: SchedulerApp) -> None:
        queue = self.place(app)
        app.queue = queue.path
        app.sched = queue
        if self._can_run(queue, app.user):
            self._make_runnable(queue, app)
        else:
            app.runnable = False
            queue.waiting[app.index] = app
        self._update_shares()

    def _queue_running(self, queue: FSQueue) -> int:
        return queue.n_apps

    @staticmethod
    def _count(queue: FSQueue, delta: int) -> None:
        q: FSQueue | None = queue
        while q is not None:
            q.n_apps += delta
            q = q.parent

    def _can_run(self, queue: FSQueue, user: str) -> bool:
        limit = self.user_max.get(user, self.user_max_default)
        if limit >= 0 and self.user_running.get(user, 0) >= limit:
            return False
        q: FSQueue | None = queue
        while q is not None:
            if q.max_apps >= 0 and self._queue_running(q) >= q.max_apps:
                return False
            q = q.parent
        return True

    def _make_runnable(self, queue: FSQueue, app: SchedulerApp) -> None:
        self.set_runnable(app, True)
        queue.apps[app.index] = app
        if app.am_allocated:
            queue.am_holders.append(app)
        else:
            queue.am_waiting[app.index] = app
            queue.am_sizes[app.am_mem] = queue.am_sizes.get(app.am_mem, 0) + 1
        self._count(queue, 1)
        self.user_running[app.user] = self.user_running.get(app.user, 0) + 1

    def remove_app(self, app: SchedulerApp) -> None:
        queue: FSQueue = app.sched  # type: ignore[assignment]
        if queue.apps.pop(app.index, None) is not None:
            self.user_running[app.user] -= 1
            self._count(queue, -1)
            _discard(queue.am_holders, app)
            if queue.am_waiting.pop(app.index, None) is not None:
                self._forget_am_size(queue, app.am_mem)
        queue.waiting.pop(app.index, None)
        # MaxRunningAppsEnforcer.updateRunnabilityOnAppRemoval: earliest waiting apps first
        waiting = sorted((a for q in self.queues.values() for a in q.waiting.values()), key=lambda a: a.order)
        for other in waiting:
            oq: FSQueue = other.sched  # type: ignore[assignment]
            if self._can_run(oq, other.user):
                del oq.waiting[other.index]
                self._make_runnable(oq, other)
        self._update_shares()

    def charge(self, app: SchedulerApp, mem: float, vcores: float, am: bool) -> None:
        q: FSQueue | None = app.sched  # type: ignore[assignment]
        if am and q is not None:
            if q.stats is None:
                q.stats = app.stats  # the leaf's totals (FSQueue.stats); None under a stand-in RM
            q.am_used += mem
            if mem > 0 and q.am_waiting.pop(app.index, None) is not None:  # its AM container was just allocated
                self._forget_am_size(q, app.am_mem)
                q.am_holders.append(app)
        while q is not None:
            q.used_mem += mem
            q.used_vcores += vcores
            q = q.parent

    def _derive(self, queue: FSQueue) -> None:
        """``kids_min`` and ``capped`` of ``queue``'s subtree, once the configuration is read (queues created later
        by placement have neither a min share nor a maximum of their own, and inherit ``capped``)."""
        parent = queue.parent
        queue.capped = queue.max_mem != INF or queue.max_vcores != INF or (parent is not None and parent.capped)
        queue.kids_min = any(c.min_mem > 0 for c in queue.children)
        for c in queue.children:
            self._derive(c)

    @staticmethod
    def _rank_children(parent: FSQueue) -> None:
        """Number ``parent``'s children in the order of their paths (:attr:`FSQueue.rank`); called when one is added."""
        for rank, child in enumerate(sorted(parent.children, key=lambda c: c.path)):
            child.rank = rank

    @staticmethod
    def _forget_am_size(queue: FSQueue, mem: float) -> None:
        left = queue.am_sizes[mem] - 1
        if left:
            queue.am_sizes[mem] = left
        else:
            del queue.am_sizes[mem]

    # ------------------------------------------------------------------------------------------ shares

    def _update_shares(self) -> None:
        assert self.rm is not None
        self.root.fair_share = self.rm.cluster_mem
        self._share_children(self.root)

    def _share_children(self, parent: FSQueue) -> None:
        """``ComputeFairShares.computeShares`` over the active children (memory)."""
        kids = [c for c in parent.children if c.active()]
        total = parent.fair_share
        memo = (total, tuple(id(c) for c in kids))
        if memo == parent.share_memo:  # same parent share and active children: the same shares as last time
            for c in parent.children:
                if c.children:
                    self._share_children(c)
            return
        parent.share_memo = memo
        self._shares = None
        for c in parent.children:
            c.fair_share = 0.0
        if kids:
            shares = compute_shares([c.weight for c in kids], [c.min_mem for c in kids], [c.max_mem for c in kids],
                                    total)
            for c, share in zip(kids, shares):
                c.fair_share = share
        for c in parent.children:
            if c.children:
                self._share_children(c)

    # ------------------------------------------------------------------------------------------ ordering

    def _key(self, policy: str, used_mem: float, used_vc: float, weight: float, min_mem: float, min_vc: float,
             demand: float, start: float, name: object) -> tuple:
        assert self.rm is not None
        if policy == "fifo":
            return (start, name)
        if policy == "drf":
            return self._drf_key(used_mem, used_vc, weight, min_mem, min_vc, start, name)
        min_share = min(min_mem, demand) if min_mem > 0 else 0.0
        needy = used_mem < min_share
        if needy:
            return (0, used_mem / max(min_share, 1.0), start, name)
        return (1, used_mem / weight if weight > 0 else INF, start, name)

    def _drf_key(self, used_mem: float, used_vc: float, weight: float, min_mem: float, min_vc: float, start: float,
                 name: object) -> tuple:
        """``DominantResourceFairnessComparator`` as a sort key: a schedulable below its min share on its dominant
        resource (the larger share of the cluster; vcores on a tie, as Hadoop orders them) comes first, ordered by
        its usage / min share on the dominant, then on the other resource; the others by their dominant share /
        weight, then the other resource's share / weight (equal dominant shares are decided by the next resource);
        then start time and name. 0 / 0 counts as 0 and x / 0 as infinity."""
        cluster_mem, cluster_vc = self.rm.cluster_mem, self.rm.cluster_vcores
        mem_share = used_mem / cluster_mem if cluster_mem > 0 else 0.0
        vc_share = used_vc / cluster_vc if cluster_vc > 0 else 0.0
        if mem_share > vc_share:
            dom_share, other_share = mem_share, vc_share
            dom_used, dom_min, other_used, other_min = used_mem, min_mem, used_vc, min_vc
        else:
            dom_share, other_share = vc_share, mem_share
            dom_used, dom_min, other_used, other_min = used_vc, min_vc, used_mem, min_mem
        if dom_min > 0 and dom_used < dom_min:
            other = other_used / other_min if other_min > 0 else (INF if other_used > 0 else 0.0)
            return (0, dom_used / dom_min, other, start, name)
        if weight > 0:
            return (1, dom_share / weight, other_share / weight, start, name)
        return (1, INF, INF, start, name)

    def _queue_key(self, parent: FSQueue, q: FSQueue) -> tuple:
        demand = q.demand() if q.min_mem > 0 or q.min_vcores > 0 else 0.0  # only a min share needs the demand
        return self._key(parent.policy, q.used_mem, q.used_vcores, q.weight, q.min_mem, q.min_vcores, demand, 0.0,
                         q.path)

    def _app_key(self, queue: FSQueue, app: SchedulerApp) -> tuple:
        return self._key(queue.policy, app.used_mem, app.used_vcores, 1.0, 0.0, 0.0, 0.0, app.submit, app.order)

    # ------------------------------------------------------------------------------------------ assignment

    def node_update(self, node: "NodeManager") -> None:
        rm = self.rm
        assert rm is not None
        has_room = self.rm_has_room  # bound at start(): no lookup through ``rm`` (Any) per container
        assert has_room is not None
        assigned = 0
        while has_room(node):
            if not self._assign(self.root, node):
                return
            assigned += 1
            if not self.assignmultiple or (self.max_assign > 0 and assigned >= self.max_assign):
                return

    def _within_max(self, queue: FSQueue, mem: float, vcores: float) -> bool:
        q: FSQueue | None = queue
        while q is not None:
            if q.used_mem + mem > q.max_mem + 1e-6 or q.used_vcores + vcores > q.max_vcores + 1e-6:
                return False
            q = q.parent
        return True

    def _assign(self, queue: FSQueue, node: "NodeManager") -> bool:
        if not queue.children and not queue.parent_type:  # FSQueue.is_leaf, inlined
            return self._assign_leaf(queue, node)
        if queue.policy == "fair" and not queue.kids_min:
            return self._assign_fair_children(queue, node)
        return self._assign_sorted_children(queue, node)

    def _assign_fair_children(self, queue: FSQueue, node: "NodeManager") -> bool:
        """FairShareComparator without min shares: (1, usage / weight, name) for every child, so the order is
        (usage / weight, name). The children are tried in that order, each found by one pass over plain attributes
        without building keys: the least, then the least after it, and so on (a child that cannot take the
        container allocated nothing, so the keys do not change between passes; names are unique). This runs at
        every heartbeat and the first or second choice nearly always takes the container; after
        :data:`_SCANS` passes the children left are sorted instead. Names are compared by their rank among the
        siblings (:attr:`FSQueue.rank`: the same order, an int comparison). Cost O(k) per child tried."""
        has_prev = False
        prev_key, prev_rank = 0.0, 0
        for _ in range(_SCANS):
            best: FSQueue | None = None
            best_key = 0.0
            best_rank = 0
            for c in queue.children:
                if c.n_apps > 0:
                    stats = c.stats  # _may_take, inlined
                    if stats is not None and stats.pending_containers <= 0:
                        continue
                    key = c.used_mem / c.weight if c.weight > 0 else INF
                    rank = c.rank
                    if has_prev and (key < prev_key or (key == prev_key and rank <= prev_rank)):
                        continue  # tried already: at or before the previous choice in (key, name) order
                    if best is None or key < best_key or (key == best_key and rank < best_rank):
                        best, best_key, best_rank = c, key, rank
            if best is None:
                return False
            if self._assign(best, node):
                return True
            has_prev, prev_key, prev_rank = True, best_key, best_rank
        kids = sorted((key, c.rank, c) for key, c in
                      ((c.used_mem / c.weight if c.weight > 0 else INF, c) for c in queue.children
                       if c.n_apps > 0 and self._may_take(c))
                      if key > prev_key or (key == prev_key and c.rank > prev_rank))
        for _key, _rank, child in kids:
            if self._assign(child, node):
                return True
        return False

    @staticmethod
    def _may_take(queue: FSQueue) -> bool:
        """False when ``queue`` is a leaf none of whose apps has a container asked for (the RM's count of its
        pending containers, :attr:`FSQueue.stats`): it cannot take one, so trying it would allocate nothing and
        change nothing, and skipping it leaves the walk's choice as it was. True otherwise (parents, and leaves
        whose totals are not known). Cost O(1)."""
        stats = queue.stats
        return stats is None or stats.pending_containers > 0

    def _assign_sorted_children(self, queue: FSQueue, node: "NodeManager") -> bool:
        """The parent's policy in general (min shares, drf): its active children sorted by the policy's key."""
        for child in sorted((c for c in queue.children if c.active() and self._may_take(c)),
                            key=lambda c: self._queue_key(queue, c)):
            if self._assign(child, node):
                return True
        return False

    def _assign_leaf(self, queue: FSQueue, node: "NodeManager") -> bool:
        """``FSLeafQueue.assignContainer``: the queue's runnable apps in its policy's order, the first that takes a
        container wins. Only apps that can take one are looked at (the result is the same as trying every app):
        apps holding their AM with asks outstanding, and the AM-less apps unless even the smallest AM among them
        would pass ``maxAMShare``. Cost O(k log k) for k such apps (the AM-less ones only when an AM may start)."""
        share = queue.max_am_share
        am_room = False
        if queue.am_waiting:
            smallest = INF  # min(queue.am_sizes), written out: the builtin is a generic call in compiled code
            for size in queue.am_sizes:
                if size < smallest:
                    smallest = size
            am_room = share < 0 or queue.am_used + smallest <= share * queue.fair_share + 1e-6

        if queue.policy == "fair" and self.pending_known:
            # FairShareComparator for apps (weight 1, no min share): (1, usage, submit, order), over the AM holders
            # with asks outstanding (the only ones that can take a container) and, with room for an AM, the AM-less
            # apps (no usage: key (0, submit, order)). The least app is found in one pass without building keys;
            # the others are sorted only if it cannot take the container (orders are unique).
            first: SchedulerApp | None = None
            used, submit, order = 0.0, 0.0, 0
            for a in queue.am_holders:
                if a.pending_mb > 0.0 and (first is None or a.used_mem < used or (a.used_mem == used and (
                        a.submit < submit or (a.submit == submit and a.order < order)))):
                    first, used, submit, order = a, a.used_mem, a.submit, a.order
            if am_room:
                for a in queue.am_waiting.values():
                    if first is None or 0.0 < used or (0.0 == used and (
                            a.submit < submit or (a.submit == submit and a.order < order))):
                        first, used, submit, order = a, 0.0, a.submit, a.order
            if first is None:
                return False
            if self._try_app(queue, node, first):
                return True
            keyed = [(a.used_mem, a.submit, a.order, a) for a in queue.am_holders
                     if a.pending_mb > 0.0 and a is not first]
            if am_room:
                keyed += [(0.0, a.submit, a.order, a) for a in queue.am_waiting.values() if a is not first]
            keyed.sort()
            return self._try_apps(queue, node, [k[-1] for k in keyed])
        return self._assign_leaf_sorted(queue, node, am_room)

    def _assign_leaf_sorted(self, queue: FSQueue, node: "NodeManager", am_room: bool) -> bool:
        """:meth:`_assign_leaf` for the fifo and drf policies (and without the RM's pending totals): the apps
        sorted by the policy's key."""
        holders: Iterable[SchedulerApp] = queue.am_holders
        if self.pending_known:  # only AM holders with asks outstanding can take a container
            holders = [a for a in holders if a.pending_mb > 0.0]
            if not holders and not am_room:
                return False
        apps: Iterable[SchedulerApp]
        if queue.policy == "fifo":  # submission order is the dict's order
            apps = [a for a in queue.apps.values() if (am_room and not a.am_allocated)
                    or (a.am_allocated and (a.pending_mb > 0.0 or not self.pending_known))]
        elif queue.policy == "fair":
            # FairShareComparator for apps (weight 1, no min share): (1, usage, submit, order)
            keyed = [(a.used_mem, a.submit, a.order, a) for a in holders]
            if am_room:  # AM-less apps have no usage: they come first, by (submit, order)
                keyed += [(0.0, a.submit, a.order, a) for a in queue.am_waiting.values()]
            apps = _min_first(keyed)
        else:
            apps = sorted(holders, key=lambda a: self._app_key(queue, a))
            if am_room:  # AM-less apps order among themselves by (submit time, submission order) in every policy
                apps = heapq.merge(apps, sorted(queue.am_waiting.values(), key=lambda a: (a.submit, a.order)),
                                   key=lambda a: self._app_key(queue, a))
        return self._try_apps(queue, node, apps)

    def _try_apps(self, queue: FSQueue, node: "NodeManager", apps: Iterable[SchedulerApp]) -> bool:
        """The first of ``apps`` (in the leaf's order) that can take a container on ``node`` gets it."""
        for app in apps:
            if self._try_app(queue, node, app):
                return True
        return False

    def _try_app(self, queue: FSQueue, node: "NodeManager", app: SchedulerApp) -> bool:
        """``assign_one`` with the queue's limits: ``app``'s highest-priority ask that fits on ``node``, within
        maxResources and, for the AM, within maxAMShare, gets a container. Cost O(priorities)."""
        share = queue.max_am_share
        limit = share * queue.fair_share + 1e-6 if share >= 0 else INF
        memory_only = self.memory_only
        free_mem, free_vcores = node.free_mem + 1e-9, node.free_vcores + 1e-9  # base.fits, inlined
        for ask in app.asks:
            if ask.total <= 0 or free_mem < ask.mem or not (memory_only or free_vcores >= ask.vcores):
                continue
            if queue.capped and not self._within_max(queue, ask.mem, ask.vcores):
                continue
            if ask.priority == PRIORITY_AM and queue.am_used + ask.mem > limit:
                continue
            self.give(app, ask, node, ask.locality_on(node.name, node.rack))
            return True
        return False

    def headroom(self, app: SchedulerApp) -> float:
        """``FSAppAttempt.getHeadroom``: min(queue fair share - usage, cluster free, queue max - usage)."""
        assert self.rm is not None
        q: FSQueue = app.sched  # type: ignore[assignment]
        # min() and max() of the builtins written out (the first of equal values, as they pick): no generic call
        room = q.fair_share - q.used_mem
        free: float = self.rm.free_mem
        if free < room:
            room = free
        left = q.max_mem - q.used_mem
        if left < room:
            room = left
        return room if room > 0.0 else 0.0

    def queue_shares(self) -> list:
        """Cached between share updates (the time series reads it every second that changes)."""
        if self._shares is None:
            self._shares = [(q.path, q.fair_share) for q in self.queues.values() if q.is_leaf]
        return self._shares

    def describe(self) -> dict:
        out = super().describe()
        out["queues"] = {q.path: {"weight": q.weight, "policy": q.policy, "minResources": [q.min_mem, q.min_vcores],
                                  "maxResources": [q.max_mem if q.max_mem != INF else None,
                                                   q.max_vcores if q.max_vcores != INF else None],
                                  "maxRunningApps": q.max_apps, "maxAMShare": q.max_am_share}
                         for q in self.queues.values() if q.path != "root"}
        out["placement"] = [r[0] for r in self.rules] or ["specified", "user" if self.user_as_default else "", "default"]
        out["assignmultiple"] = self.assignmultiple
        out["source"] = self.source
        return out
