"""SimMR Fig. 7/8, small: MinEDF vs MaxEDF on the Facebook-like synthetic workload (SimMR V-C).

Qualitative claims checked (not the paper's numbers): with deadlines drawn in [T_J, df*T_J],

* df = 1.5 and 3: MinEDF's relative deadline exceeded, averaged over replications, is at most MaxEDF's;
* df = 1: the two coincide. This holds exactly when MinEDF sizes jobs with the ARIA *upper* bound: with D = T_J
  the model then asks for every slot the job can use, so MinEDF makes MaxEDF's decisions. With the default
  (average) bound it does not: for single-wave phases of heavy-tailed tasks the average bound underestimates
  T_J, so MinEDF gives such jobs fewer slots even at df = 1 (documented in docs/deadline-scheduling.md).

Workload: 20 jobs, mean inter-arrival 1000 s, 16 nodes x (2 map, 2 reduce) slots, Hadoop 1.2 heartbeats,
replications with seeds 0..3 (workload, heartbeat phases and deadlines all from the replication's seed).
"""

from __future__ import annotations

import numpy as np
import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.schedulers.maxedf import MaxEdfScheduler
from mrsim.schedulers.minedf import MinEdfScheduler
from mrsim.studies.deadlines import assign_deadlines, isolated_completion_times

CLUSTER = uniform_cluster(16, 2, 2)
SEEDS = range(4)
FACTORS = (1.0, 1.5, 3.0)


@pytest.fixture(scope="module")
def runs() -> dict:
    """(df, scheduler) -> list of (relative deadline exceeded, tasks table) per replication."""
    conf = HadoopConf()
    out: dict = {}
    for seed in SEEDS:
        w = facebook_like_workload(FacebookLikeSpec(jobs=20, seed=seed, mean_interarrival_s=1000.0))
        options = ReplayOptions(seed=seed)
        iso = isolated_completion_times(w, CLUSTER, conf, options)
        for df in FACTORS:
            wd = assign_deadlines(w, CLUSTER, conf, df, seed, options, isolated=iso)
            variants = {"maxedf": MaxEdfScheduler, "minedf": MinEdfScheduler}
            if df == 1.0:
                variants["minedf-upper"] = lambda: MinEdfScheduler({"bound": "upper"})
            for name, make in variants.items():
                r = replay(wd, CLUSTER, conf, make(), options)
                out.setdefault((df, name), []).append((r.summary["relative_deadline_exceeded"], r.tasks))
    return out


def mean_exceeded(runs, df, name) -> float:
    return float(np.mean([x for x, _ in runs[(df, name)]]))


@pytest.mark.parametrize("df", [1.5, 3.0])
def test_minedf_exceeds_deadlines_less_than_maxedf_when_deadlines_are_relaxed(runs, df):
    assert mean_exceeded(runs, df, "minedf") <= mean_exceeded(runs, df, "maxedf")


def test_relaxing_deadlines_helps_both(runs):
    # MaxEDF at every step; MinEDF from df 1 or 1.5 to 3. MinEDF's df 1 and df 1.5 means lie within the spread of
    # four replications (per replication 0.4-8.0 and 0.0-10.5): which one is lower moved with a change of the reduce
    # model's shuffle draw that is neutral in distribution for these i.i.d. synthetic durations (a stand-in array
    # drawn on one counter, mrsim.tracker.state.JobState.next_first_shuffle), so it is not asserted.
    assert mean_exceeded(runs, 3.0, "maxedf") < mean_exceeded(runs, 1.5, "maxedf") < mean_exceeded(runs, 1.0, "maxedf")
    assert mean_exceeded(runs, 3.0, "minedf") < min(mean_exceeded(runs, 1.5, "minedf"), mean_exceeded(runs, 1.0, "minedf"))


def test_df_one_minedf_with_upper_bound_coincides_with_maxedf(runs):
    for (x_max, tasks_max), (x_min, tasks_min) in zip(runs[(1.0, "maxedf")], runs[(1.0, "minedf-upper")]):
        assert x_min == x_max
        assert tasks_min.equals(tasks_max)  # the very same schedule, task by task
