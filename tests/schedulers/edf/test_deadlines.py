"""SimMR V-B deadlines: D uniform in [T_J, df*T_J], T_J = completion alone on the cluster under FIFO."""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import create_scheduler
from mrsim.errors import InputError
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import JobTemplate, Workload
from mrsim.studies.deadlines import ISOLATED_KEY, assign_deadlines, isolated_completion_times
from tests.schedulers.edf.helpers import random_workload

CLUSTER = uniform_cluster(4, 2, 2)


def test_isolated_time_is_the_job_alone_under_fifo_hand_computed():
    # Task mode, 4 nodes x 2 map slots: the 3 maps of 5 s run at once and end at 5, which also meets slow start
    # (ceil(0.05 x 3) = 1 map); the reduce launched at 5 takes its 2 s typical shuffle + 4 s and ends at 11.
    jobs = [JobTemplate("a", 0.0, [5.0] * 3, [4.0], typical_shuffle_durations=[2.0]),
            JobTemplate("b", 1.0, [1.0], [])]
    t = isolated_completion_times(Workload.of(jobs), CLUSTER, HadoopConf(), ReplayOptions(heartbeat_interval_s=0.0))
    assert t.tolist() == [11.0, 1.0]


def test_df_one_gives_the_isolated_time_exactly_and_records_it():
    w = random_workload(1, 12)
    options = ReplayOptions(seed=3)
    iso = isolated_completion_times(w, CLUSTER, HadoopConf(), options)
    out = assign_deadlines(w, CLUSTER, HadoopConf(), 1.0, seed=3, options=options)
    assert [j.deadline_s for j in out.jobs] == pytest.approx(iso.tolist(), abs=0)
    assert [j.extra[ISOLATED_KEY] for j in out.jobs] == iso.tolist()
    # One job alone really takes T_J in the same engine setting.
    solo = Workload.of([w.jobs[4]])
    r = replay(solo, CLUSTER, HadoopConf(), create_scheduler("fifo"), options)
    assert float(r.jobs.completion_s.iloc[0]) == iso[4]


def test_deadlines_are_uniform_in_range_and_seeded():
    w = random_workload(2, 40)
    iso = isolated_completion_times(w, CLUSTER, HadoopConf(), ReplayOptions(seed=0))
    a = assign_deadlines(w, CLUSTER, HadoopConf(), 3.0, seed=7, isolated=iso)
    b = assign_deadlines(w, CLUSTER, HadoopConf(), 3.0, seed=7, isolated=iso)
    c = assign_deadlines(w, CLUSTER, HadoopConf(), 3.0, seed=8, isolated=iso)
    d = np.array([j.deadline_s for j in a.jobs])
    assert d.tolist() == [j.deadline_s for j in b.jobs]
    assert d.tolist() != [j.deadline_s for j in c.jobs]
    assert np.all(d >= iso - 1e-12) and np.all(d <= 3.0 * iso + 1e-12)
    u = (d - iso) / (2.0 * iso)  # the underlying uniforms
    assert 0.3 < u.mean() < 0.7
    # The original workload is untouched (templates are immutable).
    assert all(j.deadline_s is None for j in w.jobs)


def test_bad_deadline_factor():
    w = random_workload(0, 3)
    for df in (0.5, float("nan"), float("inf")):
        with pytest.raises(InputError, match="deadline_factor"):
            assign_deadlines(w, CLUSTER, HadoopConf(), df, seed=0)
