"""Every trace and log under ../shared/data replays to completion (FIFO, invariants checked)."""

from __future__ import annotations

import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.profiler.detect import Format, detect_format
from mrsim.profiler.workloads import load_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from tests.tracker.helpers import SHARED_DATA

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="../shared/data not present")


def _inputs():
    if not SHARED_DATA.exists():
        return []
    found = []
    for path in sorted(SHARED_DATA.rglob("*")):
        if not path.is_file() or path.name.endswith((".xml", ".txt", ".text.gz")):
            continue
        try:
            fmt = detect_format(path)
        except InputError:
            continue  # topologies, histograms, SLS node files: not traces
        found.append(pytest.param(path, fmt, id=str(path.relative_to(SHARED_DATA))))
    return found


INPUTS = _inputs()


def test_the_real_data_holds_traces_of_every_kind():
    kinds = {p.values[1] for p in INPUTS}
    assert {Format.RUMEN, Format.JOBHISTORY, Format.JHIST, Format.SWIM} <= kinds
    assert len(INPUTS) >= 40


@pytest.mark.parametrize("path,fmt", INPUTS)
def test_real_trace_replays_to_completion(path, fmt):
    try:
        workload = load_workload(path)
    except InputError as exc:
        # Allowed only for inputs with nothing to replay; the message must name the file.
        assert str(path) in str(exc) or path.name in str(exc)
        pytest.skip(f"no replayable job: {exc}")
    if fmt is Format.SWIM:
        workload = type(workload).of(workload.jobs[:300], source=workload.source)
    check = workload.n_tasks < 5000
    result = replay(workload, uniform_cluster(40, 2, 2), HadoopConf(), create_scheduler("fifo"),
                    ReplayOptions(check_invariants=check))
    assert result.summary["jobs"] == len(workload)
    assert (result.jobs.finish_s >= result.jobs.submit_s).all()
    assert len(result.tasks) == workload.n_tasks
