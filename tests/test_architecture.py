"""The architecture rules that a test can hold (``docs/architecture.md``).

* **No import cycles** among ``mrsim.*`` modules. The graph has an edge A -> B when module A imports B at its top
  level (module body, including ``try``/``if`` blocks): those imports run when A is imported, so a cycle among
  them makes import order matter and ties layers together. A second test adds the imports inside functions, so a
  cycle cannot be hidden by moving an import into a function. ``from pkg import name`` counts as an import of
  ``pkg.name`` when that is a module, else of ``pkg``; importing a package also runs its ``__init__``, so
  ``a.b.c`` depends on ``a.b`` and ``a``.

  ``if TYPE_CHECKING:`` imports never run, so they are not edges of those two graphs (import order); they are
  edges of the third, which counts every import: no cycle there either, and no import of a higher layer.
* **Layers that point one way** (:data:`LAYERS`, counting every import: top level, inside functions, type-only): the
  model at the bottom; the profiler and the tracker each on the model and the contention solvers only; the analyses
  and studies above them; the run's assembly (``mrsim.run``); the API; the CLI on top. Imports inside functions
  postpone a cost; a third-party one names a heavy or optional dependency of :data:`DEFERRED_THIRD_PARTY`.
* **One event loop**: only the kernel (``mrsim/tracker/kernel.py``) takes events off a heap in a loop; the fluid
  model (a different model by design) is the documented exception. Geo and LoTES run on the JobTracker; their
  former simulators are the test oracles ``tests/oracles/geo_simulator.py`` and ``tests/oracles/lotes_engine.py``,
  which schedule their events on the kernel too.
* **One JobTracker core for both modes**: only ``mrsim/tracker/jobtracker.py`` builds the kernel; tracker heartbeats
  (NodeManager heartbeats in YARN mode) are queued by the core alone (``EV_HEARTBEAT`` is named by ``events.py``,
  ``heartbeats.py`` and ``jobtracker.py`` only), and no module outside the core writes a tracker's parking state
  (``next_hb``, ``hb_k``, ``hb_stamp``); a YARN replay runs on a JobTracker whose heartbeat handler the kernel calls.
* **No copied blocks between plug-ins or between features**: no six code lines (comments, blank lines, imports and
  lone brackets dropped, white space folded) stand in the same order in two scheduler plug-ins, or in two engine
  features; shared steps go into a helper (``mrsim/tracker/plugin_helpers.py``). Repeats inside one file, and
  repeats that differ only in names, are not checked: that needs a judgement a test cannot make.
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from collections import defaultdict
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "mrsim"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of one source file, parsed once per test session (the checks below only read trees)."""
    rel = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)
    return ast.parse(path.read_text(), rel)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module, deferred: bool, type_checking: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Import statements that run when the module is imported; with ``deferred``, also those inside functions
    and classes (they run later, when called). ``if TYPE_CHECKING:`` blocks never run: skipped unless
    ``type_checking`` (an annotation naming a class still ties the two modules' layers)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                if type_checking or not _is_type_checking(node.test):
                    walk(node.body)
                walk(node.orelse)
            elif isinstance(node, ast.Try):
                walk(node.body)
                for handler in node.handlers:
                    walk(handler.body)
                walk(node.orelse)
                walk(node.finalbody)
            elif isinstance(node, (ast.With, ast.For, ast.While)):
                walk(node.body)
            elif deferred and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(node.body)

    walk(tree.body)
    return found


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(deferred: bool = False, type_checking: bool = False) -> dict[str, set[str]]:
    """``module -> mrsim modules it imports at top level`` (with ``deferred``: anywhere; with ``type_checking``:
    ``if TYPE_CHECKING:`` imports too). One parse per module."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        tree = parsed(path)
        for node in _imports(tree, deferred, type_checking):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            else:
                base = _resolve(name, path.name == "__init__.py", node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in modules else base)
        edges: set[str] = set()
        for target in targets:
            # Importing a.b.c runs a/__init__ and a/b/__init__ too.
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in modules and prefix != name and prefix.startswith("mrsim"):
                    edges.add(prefix)
        # A package's __init__ running is implied by importing any of its modules; not a cycle in itself.
        graph[name] = {t for t in edges if not name.startswith(t + ".")}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through each strongly connected component that has one (Tarjan, then BFS)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)

    cycles = []
    for component in components:
        members = set(component)
        start = component[0]
        parents: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in parents:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w not in parents:
                        parents[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        v = parents[start]
        while v != start:
            path.append(v)
            v = parents[v]
        path.append(start)
        cycles.append(path[::-1])
    return cycles


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles among mrsim modules:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_cycles_hidden_by_imports_inside_functions() -> None:
    """An import moved into a function only hides a cycle; the layers still depend on each other. Import inside a
    function to defer a cost (a heavy or optional dependency), not to dodge a cycle."""
    cycles = find_cycles(import_graph(deferred=True))
    assert not cycles, "import cycles through imports inside functions:\n" + "\n".join(" -> ".join(c) for c in cycles)


def full_import_graph() -> dict[str, set[str]]:
    """Every import counted: top level, inside functions and classes, and ``if TYPE_CHECKING:`` blocks."""
    return import_graph(deferred=True, type_checking=True)


#: The layers, bottom first (``docs/architecture.md``): a module may import modules of its own layer and of layers
#: below it, never above; two layers of one rank (the profiler and the tracker) may not import each other. Each
#: entry: (layer, rank, module prefixes). A module belongs to the layer of its longest matching prefix.
LAYERS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("base", 0, ("mrsim.errors", "mrsim.rng", "mrsim.io", "mrsim.wording", "mrsim.compiled_core",
                 "mrsim.renamed_packages")),
    ("model", 1, ("mrsim.model", "mrsim.whatif", "mrsim.calibration")),  # calibration: the model and its checks
    ("contention", 2, ("mrsim.contention",)),
    ("profiler", 3, ("mrsim.profiler", "mrsim.calibration.extract", "mrsim.calibration.background")),
    ("tracker", 3, ("mrsim.tracker", "mrsim.schedulers", "mrsim.calibration.feature",
                     "mrsim.calibration.background_feature")),
    ("analysis", 4, ("mrsim.analysis", "mrsim.studies",
                     "mrsim.calibration.choice")),  # measures a trace's calibration and decides what a run replays
    ("run", 5, ("mrsim.run",)),
    ("api", 6, ("mrsim.api", "mrsim")),
    ("cli", 7, ("mrsim.cli", "mrsim.__main__")),
)

#: Third-party packages a module may import inside a function, to postpone a heavy or optional dependency (the
#: command line's start-up imports none of them), and why. Any other third-party import is at the top of a module.
DEFERRED_THIRD_PARTY: dict[str, str] = {
    "numpy": "about 0.1 s of start-up: the CLI's parsers and --help import no numpy",
    "pandas": "about 0.3 s of start-up: DataFrames only where a result is handed to a user",
    "matplotlib": "optional ([plot]): --plot only",
    "bokeh": "HTML reports (--report) only",
    "scipy": "one statistical test of the profiler, rarely run",
    "tqdm": "progress bars, on a terminal only",
    "dask": "optional ([sweep]): distributed sweeps only",
    "distributed": "optional ([sweep]): distributed sweeps only",
    "pyarrow": "optional: Parquet outputs only",
    "fastavro": "optional: SLS/Avro inputs only",
    "orjson": "the JSON writer, loaded by the commands that print --json",
}


def layer_of(module: str) -> tuple[str, int]:
    """``(layer, rank)`` of ``module`` by :data:`LAYERS` (the longest matching prefix)."""
    best: tuple[int, str, int] | None = None
    for layer, rank, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), layer, rank)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[1], best[2]


def layer_climbs(graph: dict[str, set[str]]) -> list[str]:
    """``a -> b (layer -> layer)`` for every import of a higher layer, or of another layer of the same rank."""
    out = []
    for module, deps in sorted(graph.items()):
        (la, ra) = layer_of(module)
        for dep in sorted(deps):
            (lb, rb) = layer_of(dep)
            if rb > ra or (rb == ra and lb != la):
                out.append(f"{module} -> {dep} ({la} -> {lb})")
    return out


#: Import cycles and climbs counted with every import that are still being taken apart, each with the work that
#: removes it. The tests below fail on any other, and on an entry that no longer occurs (delete it then).
KNOWN_CYCLES: dict[str, str] = {
    "mrsim.tracker.assignment -> mrsim.tracker.jobtracker -> mrsim.tracker.assignment":
        "the JobTracker core's modules write each other's state: the JobTracker by concept removes it",
}
KNOWN_CLIMBS: dict[str, str] = {
    **{f"mrsim.calibration.model -> {dep}": "Distribution.sample is the compiled lag draw of tracker/lag_core.py: "
       "moving that function below the tracker changes the compiled core's module list"
       for dep in ("mrsim.tracker", "mrsim.tracker.lag_core")},
}


def test_no_cycles_counting_every_import() -> None:
    """Cycles through any import, ``if TYPE_CHECKING:`` ones included: an annotation naming a class of another
    module ties the two as an import does (a type-only cycle still makes the layers depend on each other)."""
    cycles = [" -> ".join(c) for c in find_cycles(full_import_graph())]
    unknown = [c for c in cycles if not any(set(k.split(" -> ")) == set(c.split(" -> ")) for k in KNOWN_CYCLES)]
    assert not unknown, "import cycles counting every import:\n" + "\n".join(unknown)
    gone = [k for k in KNOWN_CYCLES if not any(set(k.split(" -> ")) == set(c.split(" -> ")) for c in cycles)]
    assert not gone, f"cycles no longer found (remove them from KNOWN_CYCLES): {gone}"


def test_layers_point_one_way() -> None:
    """The layer order of :data:`LAYERS`, counting every import (top level, inside functions, type-only): the
    model at the bottom; the profiler and the tracker each on the model and the contention solvers only; the
    analyses and studies above them; the run's assembly (:mod:`mrsim.run`) above those; the API; the CLI on top."""
    climbs = layer_climbs(full_import_graph())
    unknown = [c for c in climbs if c.split(" (")[0] not in KNOWN_CLIMBS]
    assert not unknown, "imports of a higher layer (docs/architecture.md, \"Layers\"):\n" + "\n".join(unknown)
    gone = sorted(set(KNOWN_CLIMBS) - {c.split(" (")[0] for c in climbs})
    assert not gone, f"climbs no longer found (remove them from KNOWN_CLIMBS): {gone}"


def test_layer_rules_themselves() -> None:
    assert layer_of("mrsim.tracker.yarn.rm") == ("tracker", 3)
    assert layer_of("mrsim.calibration.model") == ("model", 1)
    assert layer_of("mrsim") == ("api", 6)
    graph = {"mrsim.model.cluster": {"mrsim.profiler.rumen"}, "mrsim.profiler.rumen": {"mrsim.tracker.replay"},
             "mrsim.cli.options": {"mrsim.model.cluster"}, "mrsim.tracker.replay": set()}
    assert layer_climbs(graph) == ["mrsim.model.cluster -> mrsim.profiler.rumen (model -> profiler)",
                                   "mrsim.profiler.rumen -> mrsim.tracker.replay (profiler -> tracker)"]
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import mrsim.api\n"
                     "def f():\n    import mrsim.cli\n")
    assert [n.names[0].name for n in _imports(tree, True, True)][1:] == ["mrsim.api", "mrsim.cli"]
    assert [n.names[0].name for n in _imports(tree, False)] == ["TYPE_CHECKING"]


def test_deferred_third_party_imports_are_listed() -> None:
    """A third-party package imported inside a function postpones a heavy or optional dependency named in
    :data:`DEFERRED_THIRD_PARTY`; anything else is imported at the top of its module."""
    import sys

    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for fn in ast.walk(parsed(path)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                         else [])
                for name in names:
                    top = name.split(".")[0]
                    if top != "mrsim" and top not in sys.stdlib_module_names and top not in DEFERRED_THIRD_PARTY:
                        found[top].append(f"{path.relative_to(REPO).as_posix()}:{node.lineno}")
    assert not found, f"deferred imports of unlisted packages (import at the top, or list it with a reason): {dict(found)}"


def test_cycle_finder_reports_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


#: Modules allowed to run their own event loop, and why.
EVENT_LOOP_OWNERS = {
    "mrsim/tracker/kernel.py": "the event kernel",
    "mrsim/studies/fluid": "the fluid model: a different model by design (no tasks or heartbeats)",
    "mrsim/tracker/contention_core.py": "not a clock: NodeMix.retire (TDAM's compiled node model) drains the tasks of "
                                       "one node's processor-sharing heaps that end at the current instant (the "
                                       "kernel schedules the instant)",
}


def _pop_names(tree: ast.Module) -> set[str]:
    """``heappop`` and the local names bound to it (``pop = heapq.heappop``, ``push, pop = heapq.heappush, ...``)."""
    names = {"heappop"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets
                       for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for target, value in zip(targets, values):
                if isinstance(target, ast.Name) and isinstance(value, (ast.Attribute, ast.Name)) and (
                        getattr(value, "attr", None) == "heappop" or getattr(value, "id", None) == "heappop"):
                    names.add(target.id)
    return names


def _pops_in_a_loop(tree: ast.Module) -> list[int]:
    """Lines where a ``while`` loop takes the next item off a heap and uses it: ``x, y = heappop(heap)``.

    That is the shape of an event loop. Popping to discard (``heappop(heap)`` as a statement: dropping tombstones
    of cancelled entries) and a pop nested in another call (a sweep moving items between heaps) are not.
    """
    pops = _pop_names(tree)
    lines = set()
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.While):
            continue
        for node in ast.walk(loop):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
                f = node.value.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in pops:
                    lines.add(node.lineno)
    return sorted(lines)


def test_only_the_kernel_owns_an_event_loop() -> None:
    owners = event_loop_owners()
    assert not owners, ("event loops outside mrsim/tracker/kernel.py (schedule through the kernel instead, "
                        "docs/architecture.md):\n" + "\n".join(f"{m}: lines {v}" for m, v in owners.items()))


def test_event_loop_detector() -> None:
    kernel_shaped = "import heapq\ndef run(h):\n    pop = heapq.heappop\n    while h:\n        t, k = pop(h)\n"
    tombstones = "import heapq\ndef top(h, live):\n    while h and h[0] not in live:\n        heapq.heappop(h)\n"
    assert _pops_in_a_loop(ast.parse(kernel_shaped)) == [5]
    assert _pops_in_a_loop(ast.parse(tombstones)) == []


def event_loop_owners() -> dict[str, list[int]]:
    owners = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if any(rel == allowed or rel.startswith(allowed + "/") for allowed in EVENT_LOOP_OWNERS):
            continue
        lines = _pops_in_a_loop(parsed(path))
        if lines:
            owners[rel] = lines
    return owners


#: The engine core: what every replay runs, and what mypyc compiles. It must not depend on a feature.
CORE_MODULES = ("mrsim.tracker.kernel", "mrsim.tracker.jobtracker", "mrsim.tracker.hooks", "mrsim.tracker.state",
                "mrsim.tracker.events",
                # helpers of the JobTracker core, one concern each (docs/architecture.md, "Where each concern ...")
                "mrsim.tracker.heartbeats", "mrsim.tracker.assignment", "mrsim.tracker.stages",
                "mrsim.tracker.preemption", "mrsim.tracker.locality", "mrsim.tracker.placement", "mrsim.tracker.invariants",
                "mrsim.tracker.scheduling",  # the plug-in API the core calls
                "mrsim.tracker.wakeups")  # bounded wake-ups
#: Engine features: objects attached with ``jt.attach(feature)`` to the JobTracker's hooks.
FEATURE_MODULES = ("mrsim.tracker.features.contention", "mrsim.tracker.features.speculation",
                   "mrsim.tracker.features.overheads", "mrsim.tracker.features.failures",
                   "mrsim.tracker.features.reducer_preemption", "mrsim.tracker.features.resources",
                   "mrsim.tracker.features.federation", "mrsim.calibration.feature", "mrsim.calibration.background_feature")
#: Feature code the core imports, and why. Empty: overheads, failed attempts, speculation and contention are on
#: hooks; a new entry needs a reason.
CORE_STILL_IMPORTS: dict[str, str] = {}


def test_the_core_imports_no_feature() -> None:
    graph = import_graph(deferred=True)
    features = set(FEATURE_MODULES) | {m for m in graph if m.startswith("mrsim.contention")}
    bad = {core: sorted(graph.get(core, set()) & features) for core in CORE_MODULES}
    assert not any(bad.values()), f"core modules import features (attach them in tracker/replay.py instead): {bad}"
    stray = {core: sorted(dep for dep in graph.get(core, set()) if dep.startswith("mrsim.tracker.")
                          and dep not in CORE_MODULES and dep not in CORE_STILL_IMPORTS
                          and dep != "mrsim.tracker")
             for core in CORE_MODULES}
    assert not any(stray.values()), f"core modules import engine modules outside the core: {stray}"


#: What a scheduler plug-in (``schedulers/*.py``) may read and call on the engine (``jt``): the view of the cluster
#: and jobs, the launch and kill actions, wake-ups and timers, the hook registration of a compiled heartbeat.
PLUGIN_SURFACE = frozenset({
    # read: the cluster, the jobs, the clock and the configuration
    "conf", "datacenters", "interval", "jobs", "now", "resource_names", "running_jobs", "scheduler", "site_slots",
    "task_mode", "total_map_slots", "total_reduce_slots", "trackers", "workload", "last_task", "kernel",
    "feature",
    # act: launch, kill, wake, time
    "obtain_new_map_task", "obtain_new_reduce_task", "kill_task", "request_heartbeat", "park_until_change",
    "wake", "wake_all", "wake_for_maps", "wake_for_reduces", "schedule", "schedule_timer", "fits",
    # join: hooks and events of the plug-in's own
    "register", "register_event",
})


def _plugin_engine_uses() -> tuple[dict[str, set[str]], list[str]]:
    """Per plug-in file, the attributes it reads or calls on ``jt`` / ``self.jt``; and every assignment to one."""
    uses: dict[str, set[str]] = {}
    writes: list[str] = []
    for path in sorted((REPO / "schedulers").glob("*.py")):
        tree = ast.parse(path.read_text())
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                owner = node.value
                on_jt = (isinstance(owner, ast.Name) and owner.id == "jt") or (
                    isinstance(owner, ast.Attribute) and owner.attr == "jt" and isinstance(owner.value, ast.Name)
                    and owner.value.id == "self")
                if on_jt:
                    names.add(node.attr)
                    if isinstance(node.ctx, ast.Store):
                        writes.append(f"{path.name}:{node.lineno} jt.{node.attr}")
        uses[path.name] = names
    return uses, writes


def test_plug_ins_use_only_the_scheduler_facing_surface_and_write_no_engine_field() -> None:
    """Scheduler plug-ins see the engine through :data:`PLUGIN_SURFACE` (docs/architecture.md, "The scheduler
    plug-in API"): they read the view and call the actions, and never assign a field of the JobTracker."""
    uses, writes = _plugin_engine_uses()
    outside = {name: sorted(found - PLUGIN_SURFACE) for name, found in uses.items() if found - PLUGIN_SURFACE}
    assert not outside, f"plug-ins use engine attributes outside the scheduler-facing surface: {outside}"
    assert not writes, f"plug-ins assign engine fields: {writes}"


def test_the_scheduler_facing_surface_exists_on_the_engine() -> None:
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.model.hadoop_conf import HadoopConf
    from mrsim.model.templates import Workload
    from tests.tracker.helpers import job, one_node

    jt = JobTracker(Workload.of([job("j", 0.0, maps=[1.0])], source="test"), one_node(1, 1), HadoopConf(),
                    create_scheduler("fifo"))
    missing = sorted(name for name in PLUGIN_SURFACE if not hasattr(jt, name))
    assert not missing, f"the scheduler-facing surface names what the engine lacks: {missing}"
    callables = {"obtain_new_map_task", "obtain_new_reduce_task", "kill_task", "request_heartbeat",
                 "park_until_change", "wake", "wake_all", "wake_for_maps", "wake_for_reduces", "schedule",
                 "schedule_timer", "fits", "register", "register_event", "feature"}
    assert all(callable(getattr(jt, name)) for name in callables)


def _heap_touches(tree: ast.Module) -> list[int]:
    """Lines that reach into a kernel's heap: ``<x>.kernel.heap``, or ``k.heap`` / ``kernel.heap`` / ``kern.heap``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "heap":
            owner = node.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "kernel") or (
                    isinstance(owner, ast.Name) and owner.id in ("k", "kern", "kernel")):
                lines.append(node.lineno)
    return lines


def test_only_the_kernel_touches_its_heap() -> None:
    """Events are queued with ``kernel.schedule`` (handlers registered with ``kernel.register`` /
    ``jt.register_event``), never pushed onto the heap around the kernel (one way to schedule)."""
    touches = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel == "mrsim/tracker/kernel.py":
            continue
        lines = _heap_touches(parsed(path))
        if lines:
            touches[rel] = lines
    assert not touches, f"modules pushing onto or reading the kernel's heap: {touches}"
    assert _heap_touches(ast.parse("k = self.kernel\nheappush(k.heap, ev)\nself.kernel.heap.clear()\n")) == [2, 3]


#: Modules of the JobTracker core that handle tracker heartbeats: ``EV_HEARTBEAT`` is defined, queued and handled
#: there and nowhere else (one heartbeat mechanism for TaskTrackers and NodeManagers).
HEARTBEAT_OWNERS = {"mrsim/tracker/events.py", "mrsim/tracker/heartbeats.py", "mrsim/tracker/jobtracker.py"}
#: Tracker attributes that are the core's heartbeat grid and parking state.
PARKING_STATE = ("next_hb", "hb_k", "hb_stamp")
#: Core modules that keep that state: the heartbeat helpers, the handlers, bounded wake-ups, the end of a run.
PARKING_OWNERS = {"mrsim/tracker/heartbeats.py", "mrsim/tracker/jobtracker.py", "mrsim/tracker/wakeups.py",
                  "mrsim/tracker/stages.py", "mrsim/tracker/state.py"}


def _names_used(tree: ast.Module) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}


def _kernels_built(tree: ast.Module) -> list[int]:
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (getattr(node.func, "id", None) == "Kernel" or getattr(node.func, "attr", None) == "Kernel")]


def _parking_writes(tree: ast.Module) -> list[int]:
    targets = [t for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
               for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
    flat = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return [e.lineno for e in flat if isinstance(e, ast.Attribute) and e.attr in PARKING_STATE]


def test_one_core_owns_the_kernel_and_the_heartbeats() -> None:
    """The rule: "one JobTracker core (heartbeats, slots or containers, assignment, completion) that every scheduler
    and every study runs on". YARN mode too: its NodeManager heartbeats are the core's tracker heartbeats (no
    second grid, parking rule or event loop in ``mrsim/tracker/yarn``)."""
    kernels, heartbeats, parking = {}, [], {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        tree = parsed(path)
        if _kernels_built(tree):
            kernels[rel] = _kernels_built(tree)
        if "EV_HEARTBEAT" in _names_used(tree) and rel not in HEARTBEAT_OWNERS:
            heartbeats.append(rel)
        if _parking_writes(tree) and rel not in PARKING_OWNERS:
            parking[rel] = _parking_writes(tree)
    assert set(kernels) == {"mrsim/tracker/jobtracker.py"}, f"modules building their own kernel: {kernels}"
    assert not heartbeats, f"modules queuing or handling tracker heartbeats outside the core: {heartbeats}"
    assert not parking, f"modules writing the core's heartbeat grid or parking state: {parking}"
    assert _parking_writes(ast.parse("t.next_hb = 1\nnode.hb_k, x = 2, 3\nt.hb_stamp += 1\nt.phase = 0\n")) == [1, 2, 3]
    assert _kernels_built(ast.parse("k = Kernel()\nk2 = kernel.Kernel()\n")) == [1, 2]


def test_yarn_mode_runs_on_the_jobtracker_core() -> None:
    """A YARN replay's events run on a JobTracker: the kernel is the core's, NodeManager heartbeats are the core's
    heartbeat events (counted by the core), job submissions are its job arrivals, task results its ``JobState``."""
    from mrsim.tracker.events import EV_HEARTBEAT, EV_JOB_ARRIVAL
    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
    from mrsim.tracker.yarn.heartbeat import NodeUpdates
    from tests.tracker.yarn.helpers import cluster, conf, job, workload

    seen = []
    result = replay_yarn(workload(job("j1", [10.0, 10.0], [5.0]), job("j2", [4.0], submit=3.0)), cluster(2),
                         conf(), create_yarn_scheduler("capacity"), aligned_heartbeats=True,
                         check=lambda rm: seen.append(rm) if not seen else None)
    rm = seen[0]
    jt = rm.jt
    assert isinstance(jt, JobTracker) and isinstance(jt.scheduler, NodeUpdates) and rm in jt.features
    assert rm.kernel is jt.kernel and jt.kernel.events == result.summary["events"]
    from mrsim.tracker.jobtracker import Heartbeats, JobArrivals

    assert type(jt.kernel.handlers[EV_HEARTBEAT]) is Heartbeats  # the core's own heartbeat handler
    assert type(jt.kernel.handlers[EV_JOB_ARRIVAL]) is JobArrivals
    assert result.summary["yarn"]["nm_heartbeats"] == jt.heartbeats > 0
    assert [j.finish_time for j in jt.jobs] == [-1.0, -1.0]  # the AM, not the core's slots, ran them
    assert list(jt.jobs[0].map_start) == list(result.task_columns["start_s"][:2])


#: How many code lines in a row make a copied block (the limit).
REPEAT_LINES = 6
#: Groups of files that must not share a block: the scheduler plug-ins, YARN's scheduler plug-ins, the features.
REPEAT_GROUPS = {
    "scheduler plug-ins": sorted((REPO / "schedulers").glob("*.py")),
    "YARN scheduler plug-ins": sorted((PACKAGE / "tracker" / "yarn" / "schedulers").glob("*.py")),
    "engine features": sorted((PACKAGE / "tracker" / "features").glob("*.py"))
    + [REPO / (m.replace(".", "/") + ".py") for m in FEATURE_MODULES if not m.startswith("mrsim.tracker.features.")],
}


def code_lines(source: str) -> list[tuple[int, str]]:
    """``(line number, text)`` of the lines that count: comments cut, white space folded; blank lines, import lines
    and lines of brackets and commas alone dropped (they repeat everywhere and carry no logic)."""
    comment_at = {tok.start[0]: tok.start[1] for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                  if tok.type == tokenize.COMMENT}
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        text = " ".join(line[:comment_at.get(number, len(line))].split())
        if text and not text.startswith(("import ", "from ")) and text.strip("()[]{},:"):
            out.append((number, text))
    return out


def repeated_blocks(sources: dict[str, str], size: int = REPEAT_LINES) -> list[str]:
    """Places where ``size`` code lines in a row stand again in another of ``sources`` (name -> text), one line
    per block: ``a.py:10-17 = b.py:40-47``. Overlapping windows of one long copy give one line per window start."""
    seen: dict[tuple[str, ...], list[tuple[str, int, int]]] = defaultdict(list)
    for name, source in sources.items():
        lines = code_lines(source)
        for k in range(len(lines) - size + 1):
            window = tuple(text for _, text in lines[k:k + size])
            seen[window].append((name, lines[k][0], lines[k + size - 1][0]))
    return [" = ".join(f"{name}:{first}-{last}" for name, first, last in places)
            for places in seen.values() if len({name for name, _, _ in places}) > 1]


def test_no_block_is_repeated_between_plugins_or_features() -> None:
    found = {}
    for group, paths in REPEAT_GROUPS.items():
        assert paths, f"no files for {group}: the layout changed, update REPEAT_GROUPS"
        blocks = repeated_blocks({p.relative_to(REPO).as_posix(): p.read_text() for p in paths})
        if blocks:
            found[group] = blocks
    assert not found, (f"blocks of {REPEAT_LINES} code lines repeated between files (factor them into a helper, "
                       "e.g. mrsim/tracker/plugin_helpers.py):\n"
                       + "\n".join(f"{group}: {block}" for group, blocks in found.items() for block in blocks))


def test_repeated_block_finder() -> None:
    body = "".join(f"    x{i} = f(x{i - 1})  # step {i}\n" for i in range(1, 7))
    first = "import os\n\ndef a(x0):\n" + body + "    return x6\n"
    second = "def b(x0):\n    y = 1\n\n" + body.replace("  # step", "  # other note on step") + "    return y\n"
    assert repeated_blocks({"a.py": first, "b.py": second}) == ["a.py:4-9 = b.py:4-9"]
    five_lines = body.split("\n", 1)[1]  # one line fewer: not a block
    assert repeated_blocks({"a.py": first, "c.py": "def c(x0):\n" + five_lines}) == []
    assert repeated_blocks({"a.py": first + first.replace("def a", "def a2")}) == []  # inside one file: allowed
