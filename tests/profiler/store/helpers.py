"""Shared builders for the trace-store, profile and validate tests."""

from __future__ import annotations

import numpy as np

from mrsim.cli import main
from mrsim.model.templates import JobTemplate, Outcome, Priority
from tests.tracker.helpers import SHARED_DATA
from mrsim.errors import InputError, exit_code_for

TRUNK = SHARED_DATA / "rumen" / "small-trace-test"
DISPATCH_LOG = TRUNK / "dispatch-sample-v20-jt-log.gz"
DISPATCH_GOLD = TRUNK / "dispatch-trace-output.json.gz"
DISPATCH_TOPOLOGY = TRUNK / "dispatch-topology-output.json.gz"
GRIDMIX = SHARED_DATA / "gridmix-system-branch-1"


def run_cli(args, capsys):
    """``(exit code, stdout, stderr)`` of ``mrsim ARGS``."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, out, err, needle):
    # exit 1 for a bad file, 2 for a bad flag (README "Errors")
    assert code == exit_code_for(InputError(err.strip().removeprefix("mrsim: error: ")))
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mrsim: error:") and needle in lines[0], err


def full_template(job_id: str, submit: float, n_maps: int = 3, n_reduces: int = 2, seed: int = 0) -> JobTemplate:
    """A template using every field (demands, locations, deadline, extra ...), values drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    return JobTemplate(
        job_id=job_id,
        submit_s=submit,
        map_durations=rng.uniform(1, 50, n_maps),
        reduce_durations=rng.uniform(1, 50, n_reduces),
        first_shuffle_durations=rng.uniform(0, 5, min(1, n_reduces)),
        typical_shuffle_durations=rng.uniform(0, 5, max(0, n_reduces - 1)),
        name=f"name of {job_id} ü",
        user="alice",
        queue="q1",
        priority=Priority.HIGH,
        outcome=Outcome.KILLED,
        deadline_s=123.5,
        actual_completion_s=99.25,
        map_demands=rng.uniform(0, 2, (n_maps, 2)),
        reduce_demands=rng.uniform(0, 2, (n_reduces, 2)),
        demand_resources=("cpu", "disk"),
        map_locations=tuple((f"/r{i % 2}/h{i}", f"/r1/h{i + 7}") if i % 3 else () for i in range(n_maps)),
        extra={"unsuccessful_attempts": 2, "nested": {"a": [1, 2.5, "x"]}, "flag": True, "none": None},
    )


def same_template(a: JobTemplate, b: JobTemplate) -> None:
    """Field-by-field equality over every dataclass field (arrays by value, dtype and shape)."""
    for name in a.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x is not None and y is not None, name
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), name
            assert not y.flags.writeable, name
        else:
            assert x == y, (name, x, y)
            assert type(x) is type(y), (name, type(x), type(y))
