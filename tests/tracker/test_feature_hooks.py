"""Features on the engine's hooks (docs/architecture.md, "The engine's hooks" and "Writing a feature"): the
documented example feature runs as printed, and the kernel's typed API is the one way to queue events."""

from __future__ import annotations

import re

import pytest

from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.kernel import Kernel
from mrsim.tracker.replay import ReplayOptions
from mrsim.tracker.results import collect_result
from mrsim.tracker.scheduling import create_scheduler
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from tests.tracker.helpers import REPO, job, one_node


def documented_feature() -> type:
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text[text.index("## Writing a feature"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the Writing a feature section has no python block"
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "docs/architecture.md", "exec"), namespace)
    return namespace["CoLocatedMaps"]  # type: ignore[return-value]


def test_the_documented_example_feature_counts_co_located_maps():
    # One tracker with 2 map slots, task mode. t=0: maps 0 and 1 launch (map 1 joins map 0: count 1). t=10: both
    # complete (completions sort before the heartbeat), so map 2 launches on an idle tracker: the count stays 1.
    workload = Workload.of([job("j", 0.0, maps=[10.0, 10.0, 10.0])], source="test")
    jt = JobTracker(workload, one_node(2, 1), HadoopConf(), create_scheduler("fifo"), heartbeat_interval=0.0)
    feature = documented_feature()()
    jt.attach(feature)
    jt.run(jt.check_invariants)
    result = collect_result(jt, ReplayOptions(heartbeat_interval_s=0.0), 0.0)
    assert feature.count == 1 and feature.running == {(0, 0): 0}
    assert result.summary["co_located_maps"] == 1 and result.spec["co_located_maps"] == {"enabled": True}
    assert sorted(result.tasks.start_s) == [0.0, 0.0, 10.0]


def test_feature_lookup_and_event_kinds():
    workload = Workload.of([job("j", 0.0, maps=[5.0])], source="test")
    jt = JobTracker(workload, one_node(1, 1), HadoopConf(), create_scheduler("fifo"), heartbeat_interval=0.0)
    seen: list[tuple[float, int, int]] = []
    kind = jt.register_event(lambda now, order, a, b: seen.append((now, a, b)))
    assert jt.register_event(lambda *args: None) == kind + 1  # each feature event gets its own kind
    jt.schedule(2.5, -1, kind, 7, 8)
    feature = documented_feature()()
    jt.attach(feature)
    assert jt.feature(type(feature)) is feature and jt.feature(int) is None
    jt.run()
    assert seen == [(2.5, 7, 8)] and jt.jobs_done == 1


def test_kernel_api():
    k = Kernel()
    out: list[tuple[float, int]] = []
    k.register(0, lambda now, order, a, b: out.append((now, a)))
    k.register(3, lambda now, order, a, b: out.append((now, -a)))
    with pytest.raises(ValueError):
        k.register(0, lambda *args: None)
    k.schedule(1.0, 0, 3, 1)
    k.schedule(1.0, 0, 0, 2)  # same (time, order): push order decides
    k.schedule(0.5, 5, 0, 3)
    assert k.has_pending((3,)) and not k.has_pending((1, 2))
    k.run()
    assert out == [(0.5, 3), (1.0, -1), (1.0, 2)] and k.events == 3
    k.schedule(4.0, 0, 1)  # kind 1 has no handler
    with pytest.raises(RuntimeError, match="unregistered"):
        k.run()
    k.schedule(5.0, 0, 0)
    k.clear()
    assert not k.has_pending((0, 1, 2, 3))
