"""Job sizes, estimation errors shared with the fluid model, the virtual PS cluster and configuration."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from mrsim.errors import InputError
from mrsim.profiler.swim import swim_to_templates
from mrsim.schedulers._sizebased import LateTreatment, SizeBasedConfig, VirtualPS, draw_order, error_factors, job_work
from mrsim.schedulers.fsp import FspScheduler
from mrsim.schedulers.srpt import SrptScheduler
from mrsim.studies.fluid import FluidWorkload, estimate_sizes
from tests.schedulers.sizebased.helpers import job


def test_job_work_counts_maps_reduces_and_cycled_typical_shuffles():
    # maps 3 + 4; reduces 5 + 6 + 7; shuffles cycle [1, 2]: 1 + 2 + 1.
    t = job("j", 0, [3, 4], [5, 6, 7], [1, 2])
    assert job_work(t) == 3 + 4 + 5 + 6 + 7 + 1 + 2 + 1
    # no typical array: the first-wave array stands in; none at all: no shuffle.
    from mrsim.model.templates import JobTemplate

    only_first = JobTemplate(job_id="k", submit_s=0, map_durations=[1], reduce_durations=[2, 2],
                             first_shuffle_durations=[3])
    assert job_work(only_first) == 1 + 2 + 2 + 3 + 3
    assert job_work(job("m", 0, [1, 1])) == 2


def test_error_factors_match_the_fluid_stream_in_trace_order(tmp_path):
    # A SWIM file whose submit ties put job10 before job9 in a Workload (string order): the factors still follow
    # the file order the fluid model draws in, so each job gets the same X in both models.
    lines = [f"job{i}\t{0 if i in (9, 10) else 100 + i}\t0\t{(i + 1) * 2**20}\t0\t0" for i in range(12)]
    lines.sort(key=lambda s: float(s.split("\t")[1]))
    lines = [lines[0], *sorted(lines[1:3], key=lambda s: int(s.split("\t")[0][3:]))] + lines[3:]
    path = tmp_path / "ties.tsv"
    path.write_text("\n".join(lines) + "\n")
    templates = swim_to_templates(path)
    ids = [j.job_id for j in templates.jobs]
    assert ids.index("job10") < ids.index("job9")  # the Workload's own tie order differs from the file's
    fluid = FluidWorkload.from_swim(path)
    fluid_x = dict(zip(fluid.job_ids, estimate_sizes(fluid.size_s, 0.8, 7) / fluid.size_s))
    slot_x = dict(zip(ids, error_factors(templates, 0.8, 7)))
    assert slot_x.keys() == fluid_x.keys()
    for j in ids:
        assert slot_x[j] == pytest.approx(fluid_x[j], rel=1e-12)
    assert [templates.jobs[i].job_id for i in draw_order(templates.jobs)] == list(fluid.job_ids)


def test_sigma_zero_gives_exact_sizes_and_seeds_change_draws():
    jobs = [job(f"j{i}", i, [1.0]) for i in range(20)]
    assert np.array_equal(error_factors(jobs, 0.0, 3), np.ones(20))
    a, b, c = error_factors(jobs, 1.0, 3), error_factors(jobs, 1.0, 3), error_factors(jobs, 1.0, 4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.all(a > 0)


def test_virtual_ps_hand_computed():
    # Capacity 2. A (estimate 4) at 0, B (estimate 2) at 1: V(1) = 1 * 2 / 1 = 2, B's tag 4; A's tag 4 too.
    # Two jobs share: V grows at 1/s; both reach 4 at t = 3 (A first: equal tags, lower index).
    v = VirtualPS(2)
    assert v.arrive(0.0, 0, 4.0) == (4.0, [])
    assert v.next_finish() == 2.0
    tag, done = v.arrive(1.0, 1, 2.0)
    assert tag == 4.0 and done == []
    assert v.next_finish() == 3.0
    assert v.finish_until(2.9) == []
    assert v.finish_until(3.0) == [0, 1]
    assert len(v) == 0 and v.next_finish() == math.inf
    # Queries never move the state between events: A (9) alone on 3 slots, polled three times, then B (1) at 2:
    # V(2) = 2 * 3 / 1 = 6, so B's tag is 7 exactly, as without the polls.
    w = VirtualPS(3)
    w.arrive(0.0, 0, 9.0)
    for t in (0.5, 1.0, 1.7):
        assert w.finish_until(t) == []
    assert w.arrive(2.0, 1, 1.0) == (7.0, [])


def test_config_validation_and_effective_values(tmp_path):
    cfg = SizeBasedConfig.parse({"sigma": 0.5, "seed": 2, "late": "FIFO", "preempt": True}, "fsp")
    assert cfg == SizeBasedConfig(0.5, 2, True, LateTreatment.FIFO)
    for bad in ({"sigma": -1}, {"sigma": "x"}, {"seed": -1}, {"seed": 1.5}, {"preempt": "yes"}, {"late": "lifo"}):
        with pytest.raises(InputError):
            SizeBasedConfig.parse(bad, "srpt")
    with pytest.warns(UserWarning, match="sigmaa"):
        SizeBasedConfig.parse({"sigmaa": 1}, "srpt")
    path = tmp_path / "fsp.json"
    path.write_text('{"sigma": 1.5, "late": "fifo"}')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = FspScheduler({"config_file": str(path), "seed": 4})
    assert s.settings == SizeBasedConfig(1.5, 4, False, LateTreatment.FIFO)
    assert SrptScheduler({"sigma": 1}).describe() == {"name": "srpt", "preempt": False, "sigma": 1.0, "seed": 0}
