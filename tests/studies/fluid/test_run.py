"""``run_fluid``: the replay JSON contract, seeded estimation errors, and the real FB-2009 sample."""

from __future__ import annotations

import doctest
import math
import re
from pathlib import Path

import numpy as np
import orjson
import pytest

from mrsim.errors import InputError
import mrsim.studies.fluid
from mrsim.studies.fluid import FluidPolicy, FluidWorkload, estimate_sizes, run_fluid, simulate
from tests.tracker.helpers import SHARED_DATA

DATA = SHARED_DATA / "swim"
FB09_0 = DATA / "FB-2009_samples_24_times_1hr_0.tsv"
DOC = Path(__file__).resolve().parents[3] / "docs" / "size_based.md"

JOB_KEYS = {"job_id", "submit_s", "start_s", "finish_s", "completion_s", "maps", "reduces", "actual_completion_s"}
SUMMARY_KEYS = {"jobs", "tasks", "makespan_s", "mean_completion_s", "events", "wall_s"}


def test_contract_on_explicit_sizes() -> None:
    out = run_fluid([(5.0, 3.0), (6.0, 1.0), (7.0, 2.0)], "ps")
    assert out["scheduler"] == "ps" and out["model"] == "fluid"
    assert out["load"] is None and out["dn"] is None
    assert [set(j) >= JOB_KEYS for j in out["jobs"]] == [True] * 3
    assert set(out["summary"]) >= SUMMARY_KEYS
    # Clock starts at the first submission; PS timeline of tests/studies/fluid/test_oracles.py.
    assert [j["submit_s"] for j in out["jobs"]] == [0.0, 1.0, 2.0]
    assert [j["finish_s"] for j in out["jobs"]] == pytest.approx([5.5, 3.5, 6.0])
    assert [j["completion_s"] for j in out["jobs"]] == pytest.approx([5.5, 2.5, 4.0])
    assert all(j["actual_completion_s"] is None and j["maps"] == 0 and j["reduces"] == 0 for j in out["jobs"])
    s = out["summary"]
    assert s["jobs"] == 3 and s["tasks"] == 0 and s["events"] == 6
    assert s["makespan_s"] == pytest.approx(6.0)
    assert s["mean_completion_s"] == pytest.approx(12.0 / 3)
    assert s["mean_slowdown"] == pytest.approx((5.5 / 3 + 2.5 / 1 + 4.0 / 2) / 3)
    orjson.dumps(out)  # JSON-serialisable as is


def test_unknown_scheduler_lists_the_valid_ones() -> None:
    with pytest.raises(InputError) as exc:
        run_fluid([(0.0, 1.0)], "hfsp")
    assert str(exc.value) == "unknown fluid scheduler 'hfsp' (valid: fifo, ps, srpt, fsp-fifo, fsp-ps, las)"
    assert FluidPolicy.parse("FSP+PS") is FluidPolicy.FSP_PS


@pytest.mark.parametrize("kwargs, fragment", [
    ({"sigma": -1.0}, "sigma"), ({"sigma": math.nan}, "sigma"), ({"seed": -3}, "seed"), ({"seed": 1.5}, "seed"),
])
def test_bad_parameters(kwargs: dict, fragment: str) -> None:
    with pytest.raises(InputError, match=fragment):
        run_fluid([(0.0, 1.0)], "srpt", **kwargs)


def test_bad_explicit_sizes() -> None:
    with pytest.raises(InputError, match="job job1: size -1.0"):
        FluidWorkload.from_sizes([0.0, 1.0], [1.0, -1.0])
    with pytest.raises(InputError, match="no jobs"):
        run_fluid([], "ps")
    with pytest.raises(InputError, match="pair"):
        run_fluid([(0.0, 1.0, 2.0)], "ps")


def test_estimates_are_seeded_lognormal_and_shared_by_schedulers() -> None:
    size = np.full(20000, 2.0)
    a = estimate_sizes(size, 0.5, seed=11)
    assert np.array_equal(a, estimate_sizes(size, 0.5, seed=11))
    assert not np.array_equal(a, estimate_sizes(size, 0.5, seed=12))
    logx = np.log(a / size)
    # LogNormal(0, 0.25): mean 0 and sd 0.5; 20,000 draws give standard errors 0.0035 and 0.0025.
    assert abs(logx.mean()) < 0.02 and abs(logx.std() - 0.5) < 0.015
    assert np.array_equal(estimate_sizes(size, 0.0, seed=11), size)
    pairs = [(float(i), 1.0 + i % 3) for i in range(30)]
    outs = [run_fluid(pairs, p, sigma=1.0, seed=3) for p in FluidPolicy.names()]
    est = [[j["estimate_s"] for j in o["jobs"]] for o in outs]
    assert all(e == est[0] for e in est)


def test_same_inputs_and_seed_give_identical_results() -> None:
    pairs = [(float(i) * 0.7, 1.0 + (i * 7919) % 13) for i in range(200)]
    for p in FluidPolicy.names():
        a, b = run_fluid(pairs, p, sigma=1.0, seed=5), run_fluid(pairs, p, sigma=1.0, seed=5)
        assert a["jobs"] == b["jobs"]


def test_fb2009_all_schedulers() -> None:
    """The study's FB09-0 workload at the defaults (load 0.9, d/n 4), exact sizes and sigma = 1."""
    results = {}
    n = 5894
    for policy in FluidPolicy.names():
        out = run_fluid(FB09_0, policy, sigma=0.0, seed=0)
        # Work is bounded by events, not by a clock (speed: benchmarks/bench_fluid.py): an arrival and a completion
        # per job, plus at most one LAS level merge or one FSP virtual finish per job.
        events = out["summary"]["events"]
        if policy in ("fifo", "ps", "srpt"):
            assert events == 2 * n, policy
        else:
            assert 2 * n <= events <= 3 * n, policy
        results[policy] = out
    fifo = results["fifo"]
    assert fifo["summary"]["jobs"] == 5894 and fifo["load"] == 0.9 and fifo["dn"] == 4.0
    assert fifo["summary"]["tasks"] > 5894  # derived map and reduce counts
    sizes = np.array([j["size_s"] for j in fifo["jobs"]])
    assert sizes.sum() == pytest.approx(0.9 * 86404)  # load x last submit time on the file's clock
    mean = {p: r["summary"]["mean_completion_s"] for p, r in results.items()}
    for p, r in results.items():
        assert r["summary"]["makespan_s"] == pytest.approx(fifo["summary"]["makespan_s"], rel=1e-9), p
        assert mean["srpt"] <= mean[p] * (1 + 1e-12), p
    # Qualitative findings of the study (section 3.1 at sigma = 0): FIFO is worst by far, FSP close to SRPT.
    assert mean["fifo"] > 10 * mean["ps"]
    assert mean["fsp-ps"] < mean["ps"] and mean["fsp-ps"] < 1.2 * mean["srpt"]
    ps_finish = np.array([j["finish_s"] for j in results["ps"]["jobs"]])
    fsp_finish = np.array([j["finish_s"] for j in results["fsp-ps"]["jobs"]])
    assert np.all(fsp_finish <= ps_finish + 1e-6)
    noisy = run_fluid(FB09_0, "fsp-fifo", sigma=1.0, seed=1)
    assert noisy["summary"]["makespan_s"] == pytest.approx(fifo["summary"]["makespan_s"], rel=1e-9)


def test_fb2009_fast_matches_invariant_checked_run_on_a_prefix() -> None:
    w = FluidWorkload.from_swim(FB09_0)
    head = FluidWorkload.from_sizes(w.submit_s[:400], w.size_s[:400])
    est = estimate_sizes(head.size_s, 1.0, seed=2)
    for policy in FluidPolicy:
        assert simulate(head, policy, est, check=True).finish_s == simulate(head, policy, est).finish_s


def test_package_doctest() -> None:
    assert doctest.testmod(mrsim.studies.fluid, raise_on_error=False).failed == 0


def test_docs_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    if not FB09_0.exists():
        pytest.skip(f"real data absent ({SHARED_DATA})")
    monkeypatch.setenv("MRSIM_SHARED_DATA", str(SHARED_DATA))  # the example reads it, whatever the cwd
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert blocks, "docs/size_based.md has no python example"
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), {})
