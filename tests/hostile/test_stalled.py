"""A replay whose scheduler, as configured, assigns none of a job's tasks: a Fair pool whose ``maxMaps`` or
``maxReduces`` is 0 (Hadoop's ``PoolManager`` accepts it) holds the job forever. The replay ends when its events
do, and says so in one line naming the job, its pool, what it ran and what it never launched; the API raises a
:class:`~mrsim.errors.StalledError`, an input error and a ``RuntimeError``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrsim.errors import InputError, StalledError
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job
from tests.profiler.store.helpers import assert_one_line_error, run_cli


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    jobs = [template_to_logged_job(t) for t in facebook_like_workload(FacebookLikeSpec(jobs=2, seed=1))]
    path = tmp_path_factory.mktemp("t") / "t.json"
    path.write_text("\n".join(json.dumps(j) for j in jobs))
    return path


@pytest.mark.parametrize("limit, ran", [
    ("maxMaps", "0/1 maps and 0/1 reduces done, 1 map and 1 reduce never launched"),
    ("maxReduces", "1/1 maps and 0/1 reduces done, 1 reduce never launched"),
])
def test_a_pool_that_runs_nothing_is_one_line(trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              limit: str, ran: str) -> None:
    alloc = tmp_path / "alloc.xml"
    alloc.write_text(f'<?xml version="1.0"?>\n<allocations>\n<pool name="user1"><{limit}>0</{limit}></pool>\n'
                     "</allocations>\n")
    code, out, err = run_cli(["replay", str(trace), "--scheduler", "fair", "--scheduler-config", str(alloc),
                              "--no-cache"], capsys)
    assert_one_line_error(code, out, err, "replay stalled at 96.6 s: 1 job(s) never finished (first: "
                                          f"job_1262304000_0001, pool 'user1', user 'user1': {ran}); scheduler "
                                          "'fair' assigns none of their tasks")


def test_the_api_raises_a_stalled_error(trace: Path, tmp_path: Path) -> None:
    import mrsim

    alloc = tmp_path / "alloc.xml"
    alloc.write_text('<?xml version="1.0"?>\n<allocations>\n<pool name="user1"><maxMaps>0</maxMaps></pool>\n'
                     "</allocations>\n")
    with pytest.raises(StalledError, match="pool 'user1'") as info:
        mrsim.replay(str(trace), scheduler="fair", scheduler_config=str(alloc), quiet=True)
    assert isinstance(info.value, InputError) and isinstance(info.value, RuntimeError)
