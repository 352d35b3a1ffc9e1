"""YARN mode's modules import one way: the ResourceManager on the AMs, the schedulers and the queue series, never
back, counting imports inside functions and ``if TYPE_CHECKING:`` blocks (they are dependencies too)."""

from __future__ import annotations

import tests.test_architecture as arch


def test_no_cycle_through_yarn_counting_type_checking_and_deferred_imports(monkeypatch):
    monkeypatch.setattr(arch, "_is_type_checking", lambda test: False)
    graph = arch.import_graph(deferred=True)
    yarn = [c for c in arch.find_cycles(graph) if any(m.startswith("mrsim.tracker.yarn") for m in c)]
    assert not yarn, "import cycles through mrsim.tracker.yarn:\n" + "\n".join(" -> ".join(c) for c in yarn)


def test_below_the_rm_nothing_names_it(monkeypatch):
    monkeypatch.setattr(arch, "_is_type_checking", lambda test: False)
    graph = arch.import_graph(deferred=True)
    below = ("appmaster", "timeseries", "views", "schedulers", "schedulers.base", "schedulers.fifo",
             "schedulers.capacity", "schedulers.fair", "nodemanager")
    for name in below:
        assert "mrsim.tracker.yarn.rm" not in graph[f"mrsim.tracker.yarn.{name}"], name
