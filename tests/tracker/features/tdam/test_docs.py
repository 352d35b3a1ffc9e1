"""docs/tdam.md: the tutorial runs as written, and the API it names exists."""

from __future__ import annotations

import re

from tests.tracker.features.tdam.helpers import REPO

DOC = REPO / "docs" / "tdam.md"


def test_tdam_md_tutorial_runs(monkeypatch):
    monkeypatch.chdir(REPO)  # the tutorial names example files relative to the repository
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    assert namespace["longest_task"](namespace["ca"]) < 150.0  # CA-FIFO tasks run close to their 100 s alone


def test_docs_name_only_existing_api():
    from mrsim.tracker import jobtracker
    from mrsim.tracker.features import contention
    import mrsim.profiler.jobspec as jobspec
    import mrsim.profiler.workloads as workloads
    import mrsim.model.demands as demands
    import mrsim.profiler.demands as trace_demands
    import mrsim.schedulers.cafifo as cafifo

    places = [demands, trace_demands, workloads, jobspec, cafifo, contention, contention.ContentionFeature, contention.NodeMix,
              jobtracker.JobTracker]
    text = DOC.read_text()
    names = {n for n in re.findall(r"`(?:[\w.]+\.)?(\w+)\(", text) if n[0].islower()}
    assert {"load_workload_with_demands", "apply_demand_table", "is_jobspec", "park_until_mix_change"} <= names
    known_elsewhere = {"epochs", "replay", "create_scheduler", "load_workload", "iter_logged_jobs", "run",
                       "check_invariants", "kill_task", "obtain_new_map_task"}
    missing = sorted(n for n in names - known_elsewhere if not any(hasattr(p, n) for p in places))
    assert missing == []
